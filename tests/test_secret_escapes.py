"""``\\u`` escapes are decoded by one decoder for the secret scan and the text rules: a
character beyond the Basic Multilingual Plane, written as a surrogate pair, is that
character, so a text reads the same escaped (as ``json.dumps`` writes it) and plain."""

from __future__ import annotations

import json

import pytest

from replaygate.sanitize.encoded import unescaped
from replaygate.sanitize.secret_compressed import Budget
from replaygate.sanitize.secret_decode import views
from replaygate.sanitize.secret_scan import find_fixture_secrets

KEY = "sk-proj-" + "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF"


def _found(content: str) -> list[tuple[str, str]]:
    fixture = {"request": {"messages": [{"role": "user", "content": content}]}, "response": {}}
    return [(f.path, f.detector) for f in find_fixture_secrets(fixture)]


@pytest.mark.parametrize(
    "text", ["\U0001d400token abcdefgh12345678", "\U0001d400bearer ab12cd34ef56gh78"]
)
def test_a_letter_beyond_the_bmp_reads_the_same_escaped_and_plain(text: str) -> None:
    # The mathematical bold A is a letter: "token" glued after it names no auth scheme.
    assert _found(text) == []
    assert _found(json.dumps(text)[1:-1]) == []
    assert _found(json.dumps({"note": text})) == []


def test_the_secret_scan_reads_what_the_text_rules_read() -> None:
    text = "Jos\\u00e9 \\ud83d\\ude00 alice\\u0040corp.example \\u00e9t\\u00e9"
    handed: list[str] = []
    unescaped(text, lambda plain: handed.append(plain.text))
    assert handed == ["José 😀 alice@corp.example été"]
    assert [view.text for view in views(text, Budget())] == handed


@pytest.mark.parametrize(
    "written",
    [
        "\\ud83d\\ude00 " + KEY.replace("s", "\\u0073", 1),
        "\\\\u0073" + KEY[1:],
        KEY[:10] + "\\x" + f"{ord(KEY[10]):02x}" + KEY[11:],
    ],
)
def test_a_key_written_with_escapes_is_refused(written: str) -> None:
    assert [path for path, _ in _found(written)] == ["request.messages[0].content"]


@pytest.mark.parametrize("name", ["password", "api_key", "client_secret", "subscription-key"])
@pytest.mark.parametrize("escapes", [1, 3])
def test_a_credential_in_json_quoted_in_text_is_refused(name: str, escapes: int) -> None:
    # {\"password\": \"...\"} (tool output, a log line) was written: the quotes around
    # the name and the value, escaped, were not read as quotes
    quote = "\\" * escapes + '"'
    text = f"Tool said: {{{quote}{name}{quote}: {quote}q8zrt3xv9mlw2kpn7byc4hdf{quote}}}"
    assert _found(text) != [], text
    assert _found(text.replace("q8zrt3xv9mlw2kpn7byc4hdf", "not-a-secret")) == []
