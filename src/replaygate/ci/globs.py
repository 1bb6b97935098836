"""Path globs with ``**``: ``src/*/providers/**``, ``**/*.jsonl``, ``pyproject.toml``.

``*`` and ``?`` stay within one path segment, ``**`` spans any number of segments
(``a/**/b`` matches ``a/b``), and a pattern ending in ``/`` matches everything under it.
Every character of a name is matched alike, a newline too.
"""

from __future__ import annotations

import re
from functools import lru_cache


@lru_cache(maxsize=512)
def _compile(pattern: str) -> re.Pattern[str]:
    if pattern.endswith("/"):
        pattern += "**"
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z", re.DOTALL)  # a name may hold a newline


def glob_match(path: str, pattern: str) -> bool:
    """True when the POSIX relative ``path`` matches ``pattern``."""
    return _compile(pattern).match(path) is not None
