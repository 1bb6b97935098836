"""A schema's ``pattern`` searched in a string the simulator made, within a time bound.

JSON Schema checks a ``pattern`` with ``re.search``: Python's engine backtracks, so a
pattern like ``^((x|x){50}){1,4}$`` takes exponential time on a string it does not
match, and ``re`` cannot be interrupted: a simulator checking such a string held its
thread for ever. Each search is tried first under the time bound of the ``regex``
module (which reads Python's dialect alike); one past :data:`SECONDS` is a
:class:`SlowPatternError` naming the pattern, and one within it is answered by ``re``
itself, the engine JSON Schema checks with.
"""

from __future__ import annotations

import re

import regex

SECONDS = 1.0
"""How long one search of a pattern may take before the pattern is refused."""


class SlowPatternError(ValueError):
    """A pattern whose search of a string took longer than :data:`SECONDS`."""


def searched(pattern: str, text: str) -> bool:
    """Whether ``pattern`` matches somewhere in ``text``, as ``re.search`` tells;
    :class:`SlowPatternError` when the search takes longer than :data:`SECONDS`, and
    ``re.error`` for what is no pattern."""
    try:
        regex.search(pattern, text, timeout=SECONDS)
    except TimeoutError:
        raise SlowPatternError(
            f"pattern '{pattern}' took more than {SECONDS:g} s to search a string of "
            f"{len(text):,} characters: its repeats of alternatives that match the same "
            "text backtrack exponentially (as they would in any check of it with Python's "
            "re); no value is made for it"
        ) from None
    except regex.error:
        pass  # re tells below, in its own words
    return re.search(pattern, text) is not None
