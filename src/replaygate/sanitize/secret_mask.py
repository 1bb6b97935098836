"""Secrets masked in what is printed: the values a replay miss's diff shows.

A miss goes to the test's output, which CI logs and JUnit reports keep; the request that
missed may carry a key the code under test put in a prompt. :func:`masked_pair` gives two
values with each match of a token family (:data:`~.secret_rules.DETECTORS`) in their
strings and field names, and each credential after an auth scheme (``Bearer ...``),
replaced by its rule, a number and its length (``<GitHub token #1, 40 characters>``): one
key reads the same on both sides and two keys read apart, so the diff still shows where
the change is. A string the secret scan flags in a decoded form (a key ``\\u``-escaped,
in base64) is masked whole.
"""

from __future__ import annotations

from typing import Any

from replaygate.sanitize.secret_entropy import AUTH_SCHEME, SCHEME
from replaygate.sanitize.secret_rules import candidates
from replaygate.sanitize.secret_scan import detect_in_text


def _spans(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, rule)`` of each token-family match and credential after a scheme."""
    spans = [
        (start, end, detector.name)
        for detector in candidates(text)
        for start, end in detector.spans(text)
    ]
    for match in AUTH_SCHEME.finditer(text):
        credential = match.group(2)
        if match.group(1).lower() == "bearer" or any(c.isdigit() for c in credential):
            spans.append((match.start(2), match.end(2), SCHEME))
    return sorted(spans)


def masked_pair(left: Any, right: Any) -> tuple[Any, Any]:
    """``left`` and ``right`` (JSON values) with the secrets of their strings and field
    names masked, numbered over both."""
    numbers: dict[str, int] = {}

    def shown(secret: str, name: str) -> str:
        number = numbers.setdefault(secret, len(numbers) + 1)
        return f"<{name} #{number}, {len(secret)} characters>"

    def mask(text: str) -> str:
        pieces, at = [], 0
        for start, end, name in _spans(text):
            if start < at:  # inside a match already masked (two rules overlap)
                continue
            pieces += [text[at:start], shown(text[start:end], name)]
            at = end
        masked = "".join([*pieces, text[at:]])
        found = detect_in_text(masked, encoded=True)  # the free-standing rule left out
        if found is not None and " (in " in found:
            return shown(text, found)
        return masked

    def masked(value: Any) -> Any:
        if isinstance(value, str):
            return mask(value)
        if isinstance(value, dict):
            return {mask(k) if isinstance(k, str) else k: masked(v) for k, v in value.items()}
        if isinstance(value, list):
            return [masked(item) for item in value]
        return value

    return masked(left), masked(right)
