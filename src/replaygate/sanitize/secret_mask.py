"""Secrets masked in what is printed: the values a replay miss's diff shows.

A miss goes to the test's output, which CI logs and JUnit reports keep; the request that
missed may carry a key the code under test put in a prompt. :func:`masked_pair` gives two
values with each match of a token family (:data:`~.secret_rules.DETECTORS`) in their
strings replaced by its family, a number and its length (``<GitHub token #1, 40
characters>``): one key reads the same on both sides and two keys read apart, so the diff
still shows where the change is.
"""

from __future__ import annotations

from typing import Any

from replaygate.sanitize.secret_rules import candidates
from replaygate.sanitize.walk import map_strings


def masked_pair(left: Any, right: Any) -> tuple[Any, Any]:
    """``left`` and ``right`` (JSON values) with the token-family matches of their strings
    masked, numbered over both; values holding none are returned as they are."""
    numbers: dict[str, int] = {}

    def mask(text: str) -> str:
        spans = sorted(
            (start, end, detector.name)
            for detector in candidates(text)
            for start, end in detector.spans(text)
        )
        if not spans:
            return text
        pieces, at = [], 0
        for start, end, name in spans:
            if start < at:  # inside a match already masked (two families' rules overlap)
                continue
            number = numbers.setdefault(text[start:end], len(numbers) + 1)
            pieces += [text[at:start], f"<{name} #{number}, {end - start} characters>"]
            at = end
        return "".join([*pieces, text[at:]])

    return map_strings(left, mask), map_strings(right, mask)
