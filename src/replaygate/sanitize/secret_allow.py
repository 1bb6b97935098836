"""A project's known-safe values: secret-looking strings it vouches for.

A test corpus may hold values that look like credentials and are not: a documented
example key, a fake token a fixture needs, an opaque id of the project's own. List
them in ``[tool.replaygate.sanitize]``::

    known_safe = ["AKIAIOSFODNN7EXAMPLE"]            # exact values
    known_safe_patterns = ['acme_test_[0-9a-f]{32}']  # regular expressions

Before a text is scanned, every occurrence of a known-safe value (or a match of a
pattern) that stands as a whole token is blanked out, so the rest of the text is still
scanned, and a listed value never hides the start of a longer key: a real key next to
an allowed one is still refused. The values apply to the text as written, not to its
decoded forms (base64, percent-encoding). A value shorter than
:data:`MIN_SAFE_LENGTH` characters, a pattern that matches the empty string, or one
that matches a real key's shape (:func:`~.secret_shapes.real_shapes`: ``.+``,
``sk-ant-[A-Za-z0-9_-]+``, ``[A-Za-z0-9]{32}``)
would hide too much and is refused.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from replaygate.sanitize.patterns import pattern_problem
from replaygate.sanitize.secret_shapes import real_shapes

MIN_SAFE_LENGTH = 8
_TOKEN = r"A-Za-z0-9_\-"
_EDGE_BEFORE = f"(?<![{_TOKEN}])"
_EDGE_AFTER = f"(?![{_TOKEN}])"


@dataclass(frozen=True)
class KnownSafe:
    """Compiled known-safe values; :meth:`mask` blanks them out of a text.

    The exact values are one expression; each pattern is one of its own, so two
    patterns may name the same group, and a backreference means what it says.
    """

    pattern: re.Pattern[str] | None
    patterns: tuple[re.Pattern[str], ...] = ()

    def mask(self, text: str) -> str:
        """``text`` with every known-safe value replaced by a space."""
        if self.pattern is not None:
            text = self.pattern.sub(" ", text)
        for pattern in self.patterns:
            text = pattern.sub(" ", text)
        return text

    def __bool__(self) -> bool:
        return self.pattern is not None or bool(self.patterns)


NOTHING_SAFE = KnownSafe(None)


def safe_value_problem(value: str) -> str | None:
    """Why ``value`` cannot be a known-safe value, or None."""
    if len(value) < MIN_SAFE_LENGTH:
        return f"{value!r} is shorter than {MIN_SAFE_LENGTH} characters and would hide too much"
    return None


def safe_pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` cannot be a known-safe pattern (:func:`~.patterns.pattern_problem`,
    or it cannot stand inside a larger expression), or None."""
    problem = pattern_problem(pattern)
    if problem is not None:
        return problem
    try:
        whole = _whole_tokens(pattern)
    except re.error as err:
        return (
            f"{pattern!r} cannot stand inside a larger expression ({err}): a flag applies to "
            "a group, as in (?i:...), not to the whole pattern"
        )
    for family, shape in real_shapes():
        if whole.search(shape) is not None:
            return (
                f"{pattern!r} matches the shape of a real {family} ({shape[:14]}...), so every "
                "such key would be written to disk; match only your own test values, as in "
                "acme_test_[0-9a-f]{32}"
            )
    return None


def _whole_tokens(pattern: str) -> re.Pattern[str]:
    """``pattern`` matched only as a whole token: a listed value inside a longer token (the
    first characters of a real key) must not blank part of it and hide the rest."""
    return re.compile(f"{_EDGE_BEFORE}(?:{pattern}){_EDGE_AFTER}")


@functools.cache
def compile_known_safe(values: tuple[str, ...], patterns: tuple[str, ...]) -> KnownSafe:
    """The :class:`KnownSafe` of these exact ``values`` and regular expressions ``patterns``."""
    if not values and not patterns:
        return NOTHING_SAFE
    exact = "|".join(re.escape(v) for v in sorted(values, key=len, reverse=True))
    return KnownSafe(
        _whole_tokens(exact) if values else None, tuple(_whole_tokens(p) for p in patterns)
    )
