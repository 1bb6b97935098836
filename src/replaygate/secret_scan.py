"""Detectors for secret-looking values in a fixture (law 4: nothing secret is written).

Each detector is a small named rule. :func:`find_secrets` walks a JSON value and
returns every path holding a match, so the error can name the field.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

_PATTERNS: dict[str, re.Pattern[str]] = {
    "Anthropic API key": re.compile(r"(?<![A-Za-z0-9])sk-ant-[A-Za-z0-9_\-]{20,}"),
    # A key is random: it has a digit, which a hyphenated phrase ("task-...") has not.
    "OpenAI API key": re.compile(
        r"(?<![A-Za-z0-9])sk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z_\-]*[0-9])[A-Za-z0-9_\-]{32,}"
    ),
    "AWS access key id": re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    "GitHub token": re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})"),
    "bearer token": re.compile(r"\b[Bb]earer\s+[A-Za-z0-9_\-.=+/]{16,}"),
    "PEM private key": re.compile(r"-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----"),
}
AUTH_LIKE_FIELD = re.compile(
    r"(?i)(^|[-_.])(auth|authorization|api[-_]?key|secret|token|password|passwd|credential|"
    r"session|cookie)s?($|[-_.])"
)
_ENTROPY_MIN_LENGTH = 20
_ENTROPY_BITS_PER_CHAR = 3.5


@dataclass(frozen=True)
class SecretFinding:
    """Where a secret-looking value sits and which detector saw it."""

    path: str
    detector: str


def _entropy(text: str) -> float:
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def _high_entropy(text: str) -> bool:
    token = text.strip()
    return (
        len(token) >= _ENTROPY_MIN_LENGTH
        and " " not in token
        and _entropy(token) >= _ENTROPY_BITS_PER_CHAR
    )


def detect_in_text(text: str, field_name: str = "") -> str | None:
    """The name of the detector that matches ``text``, or None."""
    for name, pattern in _PATTERNS.items():
        if pattern.search(text):
            return name
    if field_name and AUTH_LIKE_FIELD.search(field_name) and _high_entropy(text):
        return "high-entropy value in an auth-like field"
    return None


def _leaves(value: Any, path: str, field_name: str) -> Iterator[tuple[str, str, str]]:
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield from _leaves(item, f"{path}.{key}" if path else str(key), str(key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _leaves(item, f"{path}[{i}]", field_name)
    elif isinstance(value, str):
        yield path, field_name, value


def find_secrets(
    value: Any, detect: Callable[[str, str], str | None] = detect_in_text
) -> list[SecretFinding]:
    """Every leaf of ``value`` that a detector flags, by path."""
    return [
        SecretFinding(path, name)
        for path, field_name, text in _leaves(value, "", "")
        if (name := detect(text, field_name)) is not None
    ]
