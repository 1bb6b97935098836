"""The written-credential patterns are run only where a match may start, with the same
matches as a search of the whole text (a decompressed upload of tens of MiB is read in a
fraction of its time: bench/bench_secret_decompressed_text.py); the token families'
anchors are looked for at once in a short text and by their first two characters first
in a long one, and find every rule that matches; percent-encoding is decoded as the
standard library decodes it."""

from __future__ import annotations

import bisect
import functools
import itertools
import random
import re
import urllib.parse
from collections.abc import Sequence

import pytest

from replaygate.sanitize import secret_rules
from replaygate.sanitize.secret_decode import _base64_runs, decode_base64, unquote_plus
from replaygate.sanitize.secret_entropy import (
    _FOLDED_NAME_CHARS,
    _FREE_TABLE,
    _NAME_CHARS,
    _SCHEMES,
    AUTH_SCHEME,
    FREE_MIN_LENGTH,
    FREE_RUN,
    KEY_KEYWORD,
    KEYWORD,
    _matches,
    _name_starts,
)
from replaygate.sanitize.secret_prefilter import BYTES_FROM, folded, text_spans
from replaygate.sanitize.secret_rules import DETECTORS, LONG_TEXT, Detector, candidates
from replaygate.sanitize.secret_shapes import real_shapes

PIECES = [
    "token",
    "api_key",
    "Key",
    "KEY",
    "apiKey",
    "sig",
    "code",
    "signature",
    "?",
    "&",
    ";",
    "=",
    ":",
    "bearer",
    "Bearer",
    "BASIC",
    "digest",
    "api-key",
    "apikey",
    "x",
    "ab",
    "Q7xk2LmN9pRt4VwYz8Ab3Cd6",
    "aaaaaaaaaaaaaaaaaaaaaa",
    "1234567890",
    "-",
    ".",
    "_",
    "/",
    "+",
    "~",
    "%",
    "İ",
    "ı",
    "ſ",
    "K",
    "é",
    "ß",
    "ghp_",
    "sk-",
    "xox",
    "XOXB-",
    "AC",
    "gl",
    "glpat-",
    ",",
    "(",
    "password",
    "PASSWORD",
    "Session",
    "ToKeN",
    " ",
    "  ",
    "\t",
    "\n",
    '"',
    "'",
    "\u00a0",
]


@functools.cache
def _texts(count: int) -> tuple[str, ...]:
    """``count`` texts of one to forty :data:`PIECES`, made once for the module's tests."""
    rng = random.Random(7)
    return tuple("".join(rng.choices(PIECES, k=rng.randint(1, 40))) for _ in range(count))


@pytest.mark.parametrize(
    "pattern", [KEYWORD, KEY_KEYWORD, AUTH_SCHEME], ids=["kw", "key", "scheme"]
)
def test_the_matches_are_those_of_a_search_of_the_whole_text(pattern: re.Pattern[str]) -> None:
    for text in _texts(4000):
        assert [m.span() for m in _matches(pattern, text)] == [
            m.span() for m in pattern.finditer(text)
        ], text


_APART = "\x00"
"""What :func:`_matching` joins texts with: no rule matches it, nor reads it as a letter,
digit or sign before or after a key, so that a match ends before it as at a text's end."""


def _matching(texts: Sequence[str]) -> list[set[Detector]]:
    """The token families that match in each of ``texts``: each family's pattern is run
    once over all of them joined by :data:`_APART`, not once per text."""
    assert not any(_APART in text for text in texts)
    joined = _APART.join(texts)
    ends = list(itertools.accumulate(len(text) + 1 for text in texts))
    found: list[set[Detector]] = [set() for _ in texts]
    for detector in DETECTORS:
        for start, end in detector.spans(joined):
            at = bisect.bisect_right(ends, start)
            assert end < ends[at], (detector.name, joined[start:end])  # within its text
            found[at].add(detector)
    return found


def test_the_families_matching_in_texts_joined_are_those_matching_in_each() -> None:
    texts = [*_texts(300), *(shape for _, shape in real_shapes()[::5])]
    expected = [{d for d in DETECTORS if next(d.starts(text), None) is not None} for text in texts]
    assert _matching(texts) == expected
    assert sum(map(bool, expected)) > 100


def test_every_token_family_that_matches_is_a_candidate() -> None:
    texts = _texts(4000)
    for text, matching in zip(texts, _matching(texts), strict=True):
        if matching:  # (no family matching is a subset of any candidates)
            assert matching <= set(candidates(text)), text


def test_every_token_family_in_a_short_text_in_any_case_is_a_candidate() -> None:
    """A short ASCII text is first searched for any rule's anchor at once: the shape of
    every family, in its case, upper or lower case, alone or among words, still finds
    its rule among the candidates."""
    texts = [
        text
        for _, shape in real_shapes()
        for form in (shape, shape.upper(), shape.lower())
        for text in (form, f'see {{"key": "{form}"}}')
    ]
    for text, matching in zip(texts, _matching(texts), strict=True):
        if matching:
            assert matching <= set(candidates(text)), text


@pytest.mark.parametrize("around", [" \u00e9{}'", ' key="{}"\n'])
def test_every_token_family_in_a_long_text_is_a_candidate(
    around: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long text has its anchors looked for in its runs: the shape of each anchor of each
    family is found, wherever it stands in the text. What a long text is is made 64 KiB
    here (a megabyte in use): the runs are read the same way at any length."""
    long_text = 1 << 16
    monkeypatch.setattr(secret_rules, "LONG_TEXT", long_text)
    assert long_text < LONG_TEXT
    sentence = "The quick brown fox, jumps over the lazy dog's \u00e9t\u00e9."
    words = (sentence * (long_text // len(sentence) + 1))[:long_text]
    shapes: dict[tuple[str, str], str] = {}
    for name, shape in real_shapes():
        for detector in DETECTORS:
            anchor = next((a for a in detector.anchors if a in shape), None)
            if detector.name == name and anchor is not None:
                shapes.setdefault((name, anchor), shape)
    assert len(shapes) > 40
    for (name, _), shape in shapes.items():
        detector = next(d for d in DETECTORS if d.name == name)
        placed = around.format(shape)
        assert next(detector.starts(placed), None) is not None
        assert detector in set(candidates(words + placed)), (name, shape)


def test_a_long_log_is_tried_only_where_a_written_credential_may_start() -> None:
    """A search of the whole text tries every position; the patterns are tried at the start
    of the name before each ``=`` or ``:`` and at each scheme word, a few a line."""
    line = "2026-12-03T12:00:00Z INFO the session token of user keys was sent id={}\n"
    text = "".join(line.format(n) for n in range(1_000))
    separators = text.count("=") + text.count(":")
    for name_chars in (_NAME_CHARS, _FOLDED_NAME_CHARS):
        assert len(list(_name_starts(text, name_chars))) <= separators < len(text) / 20
    lowered = folded(text)
    assert lowered is not None
    assert len(list(_SCHEMES.finditer(lowered))) <= text.count("token")
    for pattern in (KEYWORD, KEY_KEYWORD, AUTH_SCHEME):
        assert [m.span() for m in _matches(pattern, text)] == [
            m.span() for m in pattern.finditer(text)
        ]


def test_percent_encoding_is_decoded_as_the_standard_library_decodes_it() -> None:
    rng = random.Random(3)
    pieces = ["%", "%2", "%41", "%e9", "%C3", "%A9", "%c3%a9", "%E2%82", "%ac", "%F0%9F%98"]
    pieces += ["%80", "+", "a", "\u00e9", "\u20ac", "\udcff", "%%", "%zz", "%0", " ", "%ff"]
    pieces += ["%ED%A0%80", "\x00", "%00"]
    texts = ("".join(rng.choices(pieces, k=rng.randint(0, 12))) for _ in range(20_000))
    for text in dict.fromkeys(texts):  # each distinct text once (a fifth are drawn again)
        assert unquote_plus(text) == urllib.parse.unquote_plus(text), text


def test_a_long_binary_text_is_percent_decoded_as_the_standard_library_decodes_it() -> None:
    """The bytes of a compressed file read as text: few escapes, ASCII and Latin-1 mixed
    (how much faster: bench/bench_secret_decompressed_text.py)."""
    text = random.Random(4).randbytes(200_000).decode("latin-1")
    assert unquote_plus(text) == urllib.parse.unquote_plus(text)


def _long_texts() -> list[str]:
    rng = random.Random(5)
    pieces = [*PIECES, "=", "==", "===", "Zm9vYmFyYmF6cXV4", "a" * 40, "\udcff", "A1b2" * 9]
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(900, 1400))) for _ in range(60)]


def test_a_long_text_has_the_free_standing_runs_and_base64_runs_a_search_gives() -> None:
    base64_run = re.compile(r"[A-Za-z0-9+/_\-]{24,}={0,2}")
    for text in _long_texts():
        assert len(text) >= BYTES_FROM
        assert list(text_spans(text, FREE_RUN, _FREE_TABLE, FREE_MIN_LENGTH)) == [
            m.span() for m in FREE_RUN.finditer(text)
        ]
        assert list(_base64_runs(text)) == [
            raw for m in base64_run.finditer(text) if (raw := decode_base64(m.group())) is not None
        ]
