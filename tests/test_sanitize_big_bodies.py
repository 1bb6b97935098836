"""Big CSV and HTML bodies (a document an agent's tool fetched, echoed into a request): a
secret inside one is still refused, a clean one is written, and the text rules rewrite
one with escapes exactly where they match (:class:`~replaygate.sanitize.aligned.Edited`).

The bodies are a little over a mebibyte: from there the token rules look for their
anchors in the text's runs (:data:`~replaygate.sanitize.secret_rules.LONG_TEXT`). Each test
of one takes a few tenths of a second: they are marked slow, out of the inner loop.
"""

from __future__ import annotations

import functools
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from replaygate import Fixture, FixtureStore
from replaygate.errors import SecretInFixtureError
from replaygate.sanitize.aligned import Edited
from replaygate.sanitize.pii import TextRules
from replaygate.sanitize.secret_rules import LONG_TEXT
from test_store import META, response

SIZE = LONG_TEXT + 50_000
CONTEXT = "high-entropy value in an auth-like field"
ANTHROPIC_KEY = "sk-ant-api03-" + "Q7x2Lm9Vt4Rb8Nw3Kp6Hs1Zc5Yd0Gf" * 2
GITHUB_TOKEN = "ghp_" + "8Kd2Lq9Wm4Xz7Rt1Vb6Ny3Hc5Pj0Fs2Ga4Eu"
NAMED_SECRET = "Xk9mQ2pL7vR4tZ8wB3nH6yJ1"
"""24 characters: under the free-standing rule's 32, a credential only by its name."""


@functools.cache
def csv_rows() -> tuple[str, ...]:
    """The rows of :func:`csv_body`, made once for the module's tests."""
    rng = random.Random(1)
    cities = ("Zürich", "Paris", "上海", "São Paulo")
    return tuple(
        f"{i},{rng.choice(('Ann Lee', 'José García', 'Chen Wei'))},{rng.choice(cities)},"
        f"{rng.random() * 1000:.2f},2024-05-{1 + i % 28:02d}T10:22:00Z,"
        f'"paid, ref {rng.randrange(10**8)}"'
        for i in range(SIZE // 60)
    )


HEADER = "id,name,city,amount,created_at,note"
KEY_HEADER = "id,name,city,amount,created_at,api_key"
"""A column of credentials, holding notes with spaces (no credential) in every row."""


def csv_body(header: str = HEADER, planted: str = "") -> str:
    """A CSV export of about :data:`SIZE` characters, ``planted`` as a row in its middle."""
    rows = list(csv_rows())
    if planted:
        rows.insert(len(rows) // 2, planted)
    return "\n".join([header, *rows])


@functools.cache
def html_rows() -> tuple[str, ...]:
    """The rows of :func:`html_body`, made once for the module's tests."""
    rng = random.Random(2)
    return tuple(
        f'<tr data-id="{rng.randrange(10**9)}"><td><a href="https://shop.example.com/items/'
        f'{rng.randrange(10**6)}?ref=list&amp;page={rng.randrange(50)}">Item {i}</a></td>'
        f'<td style="color:#{rng.randrange(16**6):06x}">{rng.random() * 100:.3f}</td></tr>\n'
        for i in range(SIZE // 150)
    )


def html_body(planted: str = "") -> str:
    """A page of about :data:`SIZE` characters: a table of links, ``planted`` in its middle."""
    rows = list(html_rows())
    if planted:
        rows.insert(len(rows) // 2, planted)
    return '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><table>\n' + (
        "".join(rows) + "</table></body></html>"
    )


def request(body: str) -> dict[str, Any]:
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 256,
        "messages": [
            {"role": "user", "content": "Summarize the document."},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "toolu_01", "name": "fetch", "input": {}}],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": body}],
            },
        ],
    }


def put(path: Path, body: str) -> None:
    store = FixtureStore.open(path)
    store.put(Fixture.create(request(body), [response("a summary")], META))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("body", "detector"),
    [
        (lambda: csv_body(planted=f"77,Ann Lee,Paris,1.00,{ANTHROPIC_KEY},x"), "Anthropic API key"),
        (
            lambda: csv_body(KEY_HEADER, f"78,Bo,Oslo,1.00,2024-05-01T10:22:00Z,{NAMED_SECRET}"),
            CONTEXT,
        ),
        (
            lambda: html_body(f"<tr><td><input type='password' value='{NAMED_SECRET}'></td></tr>"),
            CONTEXT,
        ),
        # a tool that returned its page as JSON text: escapes and all
        (
            lambda: json.dumps({"html": html_body(f'<tr data-t="{GITHUB_TOKEN}"></tr>')}),
            "GitHub token",
        ),
    ],
    ids=["csv-token", "csv-column", "html-password-input", "html-in-json"],
)
def test_a_secret_inside_a_big_body_is_refused_and_nothing_written(
    tmp_path: Path, body: Any, detector: str
) -> None:
    text = body()
    assert len(text) > LONG_TEXT
    path = tmp_path / "s.jsonl"
    with pytest.raises(SecretInFixtureError) as caught:
        put(path, text)
    assert caught.value.path == "request.messages[2].content[0].content"
    assert caught.value.detector == detector
    assert not path.exists() or path.read_bytes() == b""


@pytest.mark.slow
@pytest.mark.parametrize(
    "body",
    [csv_body, lambda: csv_body(KEY_HEADER), html_body],
    ids=["csv", "csv-key-column", "html"],
)
def test_a_clean_big_body_is_written(tmp_path: Path, body: Any) -> None:
    path = tmp_path / "s.jsonl"
    text = body()
    put(path, text)
    found = FixtureStore.open(path).lookup(request(text))
    assert found is not None and found.response == response("a summary")


@pytest.mark.slow
def test_the_rules_rewrite_a_big_escaped_body_only_where_they_match() -> None:
    # HTML written as JSON text that escapes <, > and & (as Go's and Django's do), and a
    # letter beyond ASCII: each address is replaced, every escape elsewhere kept as written
    rules = TextRules(["email"])
    rng = random.Random(3)
    row = "\\u003ctr\\u003e\\u003ctd\\u003eJos\\u00e9\\u003c/td\\u003e\\u003ctd\\u003e{}"
    row += "\\u003c/td\\u003e\\u003c/tr\\u003e\\u0026\\n"
    pieces, expected = [], []
    for _ in range(SIZE // len(row)):
        address = f"{rng.choice(('jose', 'ann', 'wei'))}.{rng.randrange(10**6)}@corp-mail.com"
        pieces.append(row.format(address))
        expected.append(row.format(rules.apply(address)))
    text = "".join(pieces)
    redacted = rules.apply(text)
    assert redacted == "".join(expected) and redacted != text
    assert rules.apply(redacted) == redacted  # a fixed point: replay redacts it the same


def test_edited_keeps_the_stretches_of_any_run_of_rules_exact() -> None:
    # rules run in turn, later ones matching what earlier ones wrote, replaced text longer,
    # shorter, gone and put back: the text is what `re.sub` makes, the stretches told the
    # same are the same, and they join to both texts
    rng = random.Random(4)
    patterns = [re.compile(p) for p in (r"ab+", r"b", r"[xy]{2}", r"Z+", r"a(?=c)", r"cab")]
    for _ in range(500):
        before = "".join(rng.choice("abcxyZ ") for _ in range(rng.randrange(0, 40)))
        edited, expected = Edited(before), before
        for pattern in rng.sample(patterns, 3):
            new = rng.choice(("", "Z", "ab", "xyz", "b"))
            edited.sub(pattern, lambda _, new=new: new)  # type: ignore[misc]
            expected = pattern.sub(new, expected)
        assert edited.text == expected
        stretches = edited.stretches()
        assert "".join(before[i1:i2] for i1, i2, *_ in stretches) == before
        assert "".join(expected[j1:j2] for _, _, j1, j2, _ in stretches) == expected
        for i1, i2, j1, j2, same in stretches:
            assert not same or before[i1:i2] == expected[j1:j2]
            assert i1 < i2 or j1 < j2
