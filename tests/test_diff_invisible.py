"""A miss whose only change cannot be seen shows it: the differing characters escaped.

A prompt changed only in its Unicode normalization (``é`` against ``e`` and a combining
accent), by a letter of another script that looks the same (Cyrillic ``а``) or by an
invisible character printed two texts that look equal on the miss's diff line.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from echo_recording import record_echoes
from replaygate.errors import FixtureMismatchError
from replaygate.fixtures.diff import FieldDifference
from replaygate.http import httpx2_client
from sdks import anthropic

RECORDED = "Résumé of the café meeting"
CHANGED = {
    "normalization": (
        unicodedata.normalize("NFD", RECORDED),
        "(escaped from offset 1: '\\xe9sum\\xe9 of the caf\\xe9' != "
        "'e\\u0301sume\\u0301 of the cafe\\u0301')",
    ),
    "another script": (
        "Résumé of the c\u0430fé meeting",
        "(escaped from offset 15: 'a' != '\\u0430')",
    ),
    "invisible": ("Résumé of the ca\u00adfé meeting", "(escaped from offset 16: '' != '\\xad')"),
}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("invisible") / "meeting.jsonl"
    record_echoes(path, [RECORDED])
    return path


@pytest.mark.parametrize("change", sorted(CHANGED))
def test_the_miss_shows_an_invisible_change_escaped(store: Path, change: str) -> None:
    sent, shown = CHANGED[change]
    client = anthropic.Anthropic(api_key="k", max_retries=0, http_client=httpx2_client(store))
    with client, pytest.raises(FixtureMismatchError) as caught:
        client.messages.create(
            model="m", max_tokens=8, messages=[{"role": "user", "content": sent}]
        )
    line = f"body.messages[0].content: {RECORDED!r} != {sent!r} {shown}"
    assert line in caught.value.differences
    assert f"\n  {line}" in str(caught.value)


def test_an_ascii_change_is_shown_once() -> None:
    assert FieldDifference("p", "café au lait", "café au lai").render() == (
        "p: 'café au lait' != 'café au lai'"
    )


def test_a_long_text_shows_its_window_and_the_escaped_parts_cut() -> None:
    left = "x" * 300 + "\u0430" * 60
    rendered = FieldDifference("p", left, "x" * 300 + "a" * 60).render(40)
    assert rendered.startswith("p: at offset 300 (lengths 360, 360): ")
    assert rendered.endswith(
        "(escaped from offset 300: '\\u0430\\u0430\\u0430'... != 'aaaaaaaaaaaaaaaaaa'...)"
    )


@pytest.mark.parametrize(
    ("recorded", "sent"),
    [
        ("o", "\u03bf"),  # Greek omicron
        ("10 km", "10\u00a0km"),  # a no-break space
        ("fine", "\ufb01ne"),  # a ligature
        ("RAG", "\uff32AG"),  # a full-width letter
        ("ab", "a\u200bb"),  # a zero-width space
    ],
)
def test_changes_that_print_alike_are_escaped(recorded: str, sent: str) -> None:
    assert "(escaped from offset " in FieldDifference("p", recorded, sent).render()


@pytest.mark.parametrize(
    ("recorded", "sent"), [("什么是 RAG？", "RAG 是什么？"), ("café", "cafés"), ("naïve", "naive!")]
)
def test_changes_that_show_are_not_escaped_again(recorded: str, sent: str) -> None:
    assert FieldDifference("p", recorded, sent).render() == f"p: {recorded!r} != {sent!r}"
