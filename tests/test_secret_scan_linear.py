"""The secret scan's patterns read a long text in time that grows with its length.

A recorded image, document or audio is a megabyte of base64 in one string, and every
pattern of the scan searches it. Two shapes make a search slow without any nested
repeat (which :mod:`replaygate.sanitize.patterns` refuses in a user's pattern):

- a search that starts again at each character of a run and reads the rest of the run
  each time (``[A-Za-z][A-Za-z0-9+.-]*://`` on a run of letters): an alternative that
  begins with an unbounded repeat of a class, more having to follow it, must refuse to
  start after a character of that class (a negative lookbehind);
- two repeats of a common character with only characters of the first between them
  (``[\\w.-]*?(?:token|key)[\\w.-]*?=``): a failed attempt tries every split of the run
  between them; the first must not go back (an atomic group or a possessive repeat).

The checks read the parsed patterns, so they hold on any machine and take no time.
"""

from __future__ import annotations

import re
from re import _compiler as compiler  # type: ignore[attr-defined]
from re import _constants as constants  # type: ignore[attr-defined]
from re import _parser as parser  # type: ignore[attr-defined]
from typing import Any

import pytest

from replaygate.sanitize.secret_entropy import (
    AUTH_SCHEME,
    BASE64_TEXT,
    FREE_RUN,
    KEY_KEYWORD,
    KEYWORD,
    detect_context,
)
from replaygate.sanitize.secret_rules import DETECTORS
from replaygate.sanitize.secret_tables import _HEADER_CELLS, _NAMED_ELEMENT, _NAMING, _WORD

SCAN_PATTERNS = {
    **{detector.name: detector.pattern for detector in DETECTORS},
    "KEYWORD": KEYWORD,
    "KEY_KEYWORD": KEY_KEYWORD,
    "AUTH_SCHEME": AUTH_SCHEME,
    "FREE_RUN": FREE_RUN,
    # a table's header and markup (secret_tables): the patterns it searches a text with
    **{f"header cell {i}": pattern for i, pattern in enumerate(_HEADER_CELLS)},
    **{f"naming attribute {name}": pattern for name, pattern in _NAMING},
    "named element": _NAMED_ELEMENT,
    "credential word": _WORD,
}
_ASCII = [chr(i) for i in range(128)]
_UNBOUNDED = (constants.MAX_REPEAT, constants.MIN_REPEAT, constants.POSSESSIVE_REPEAT)


def _sequences(items: list[Any], open_atomic: bool) -> list[list[Any]]:
    """Each way through ``items`` as a flat list: groups opened (atomic ones only when
    ``open_atomic``), one alternative of each choice taken."""
    flat: list[list[Any]] = [[]]
    for op, av in items:
        if op == constants.SUBPATTERN:
            options = _sequences(list(av[-1]), open_atomic)
        elif op == constants.ATOMIC_GROUP and open_atomic:
            options = _sequences(list(av), open_atomic)
        elif op == constants.BRANCH:
            options = [s for branch in av[1] for s in _sequences(list(branch), open_atomic)]
        else:
            options = [[(op, av)]]
        flat = [head + tail for head in flat for tail in options]
    return flat


def _chars(item: Any, state: Any) -> set[str]:
    """The ASCII characters one parsed item can match as a whole."""
    compiled = compiler.compile(parser.SubPattern(state, [item]))
    return {c for c in _ASCII if compiled.fullmatch(c)}


def _class_repeat(item: Any) -> bool:
    """Whether ``item`` is an unbounded repeat of one character class."""
    op, av = item
    return op in _UNBOUNDED and av[1] == constants.MAXREPEAT and len(av[2]) == 1


def _restarts_inside_runs(pattern: re.Pattern[str]) -> str | None:
    parsed = parser.parse(pattern.pattern, pattern.flags)
    for seq in _sequences(list(parsed), open_atomic=True):
        guard: set[str] = set()
        i = 0
        while i < len(seq) and seq[i][0] in (constants.ASSERT, constants.ASSERT_NOT):
            op, (direction, body) = seq[i]
            if op == constants.ASSERT_NOT and direction == -1 and body.getwidth() == (1, 1):
                behind = compiler.compile(body)
                guard |= {c for c in _ASCII if behind.fullmatch(c)}
            i += 1
        while i < len(seq) - 1 and (seq[i][0] == constants.IN or seq[i][0] in _UNBOUNDED):
            if _class_repeat(seq[i]) and not _chars(seq[i], parsed.state) <= guard:
                return f"a search starts again inside a run of {seq[i]}"
            i += 1
    return None


def _goes_back_across(pattern: re.Pattern[str]) -> str | None:
    parsed = parser.parse(pattern.pattern, pattern.flags)
    state = parsed.state
    for seq in _sequences(list(parsed), open_atomic=False):
        for i, first in enumerate(seq):
            if not _class_repeat(first) or first[0] == constants.POSSESSIVE_REPEAT:
                continue
            run = _chars(first, state)
            for second in seq[i + 1 :]:
                if _class_repeat(second) and run & _chars(second, state):
                    return f"{first} and {second} share a run"
                if not _chars(second, state) <= run:
                    break
    return None


@pytest.mark.parametrize("name", sorted(SCAN_PATTERNS))
def test_a_search_tries_each_run_once(name: str) -> None:
    assert _restarts_inside_runs(SCAN_PATTERNS[name]) is None


@pytest.mark.parametrize("name", sorted(SCAN_PATTERNS))
def test_no_attempt_splits_a_run_two_ways(name: str) -> None:
    assert _goes_back_across(SCAN_PATTERNS[name]) is None


@pytest.mark.parametrize(
    "pattern",
    [
        r"[A-Za-z][A-Za-z0-9+.\-]*://[^@]+@",
        r"(?i)(?<![A-Za-z])[A-Za-z0-9_.-]*?(?:token|key)[A-Za-z0-9_.-]*?=",
    ],
)
def test_the_checks_refuse_the_slow_shapes(pattern: str) -> None:
    compiled = re.compile(pattern)
    assert _restarts_inside_runs(compiled) or _goes_back_across(compiled)


_PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
    "YPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
"""A one-pixel PNG in base64."""


@pytest.mark.parametrize(
    "text",
    [
        _PNG,
        "token" * 40 + "A/b+C_d-e=",
    ],
)
def test_base64_text_is_not_searched_for_written_credentials(text: str) -> None:
    # A text of base64's letters holds no "=" or ":" before a value, nor white space
    # after a scheme: the written-credential patterns, which cannot match, are not run.
    assert BASE64_TEXT.fullmatch(text) is not None
    assert not any(p.search(text) for p in (KEYWORD, KEY_KEYWORD, AUTH_SCHEME))
    assert detect_context(text, "data", encoded=True) is None


def test_a_credential_written_beside_base64_is_still_found() -> None:
    written = "api_key=Xq8vR2mT9pL4wZ7nB3cF6hJ1"
    assert detect_context(_PNG + " " + written, "data", encoded=True) is not None
    assert detect_context("0" * 5000 + " " + written, "text") is not None
