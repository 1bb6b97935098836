"""A JSON value put into a ``.jsonl`` file over several lines, or as an array, named so.

A ``.jsonl`` file (a fixture store, eval cases) holds one JSON object per line. Pretty
JSON (as an editor formats it, or an example wrapped to be read) spreads one object
over lines that each fail to parse alone, and a JSON array holds the objects where
each line should. Both are named for what they are, with the command that puts each
object back on one line (:data:`ONE_A_LINE`), rather than as the first line's parse error.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from replaygate.errors import rewrite_advice, shell_path

__all__ = ["ONE_A_LINE", "Spread", "array_reason", "spread_at", "spread_lines", "spread_reason"]

ONE_A_LINE = (
    'python3 -c \'import json,re,sys;t=open(sys.argv[1],encoding="utf-8").read();'
    'd=json.JSONDecoder();s=re.compile(r"\\S");e=0;'
    '[print(json.dumps(v,ensure_ascii=False,separators=(",",":")))'
    " for m in iter(lambda:s.search(t,e),None) if(r:=d.raw_decode(t,m.start()))and(e:=r[1])"
    " for v in(r[0]if type(r[0])is list else[r[0]])]'"
)
"""The command, less the file it reads, that prints each JSON value of a file on a line of
its own, the items of an array each on theirs, in the compact form the store writes: with
Python's JSON, which keeps every number as the store reads it (``jq`` 1.6 writes ``1.0`` as
``1`` and rounds an integer beyond 2**53, changing the key of a request that holds one)."""


def spread_lines(what: str, first: int | None = None, last: int | None = None) -> str:
    """``a <what> spread over lines <first> to <last>``, or, where its end is not known,
    ``a <what> spread over several lines starts here``."""
    if first is None:
        return f"a {what} spread over several lines starts here"
    return f"a {what} spread over lines {first} to {last}"


def spread_reason(what: str, file: str, first: int | None = None, last: int | None = None) -> str:
    """Why line ``first`` of the ``.jsonl`` file ``file`` is refused, a ``what`` spread over
    lines (:func:`spread_lines`), with the commands that put each back on one line."""
    join = rewrite_advice(f"{ONE_A_LINE} {shell_path(file)}", file, "fixed")
    return (
        f"{spread_lines(what, first, last)} (pretty JSON, as an editor formats it), where a "
        f".jsonl file holds one {what} per line: put each back on one line, {join}"
    )


def array_reason(what: str, file: str, count: int, first: int, last: int) -> str:
    """Why line ``first`` of the ``.jsonl`` file ``file`` is refused, a JSON array of
    ``count`` objects ending on line ``last``, with the commands that put each object on a
    line of its own."""
    lines = f"on line {first}" if first == last else f"spread over lines {first} to {last}"
    split = rewrite_advice(f"{ONE_A_LINE} {shell_path(file)}", file, "fixed")
    plural = what if count == 1 else f"{what}s"
    return (
        f"a JSON array of {count} {plural} {lines}, where a .jsonl file holds one {what} "
        f"per line, not an array: put each on a line of its own, {split}"
    )


@dataclass(frozen=True)
class Spread:
    """A JSON value that starts on line ``first`` and ends at the end of line ``last``."""

    value: Any
    first: int
    last: int


def spread_at(lines: Sequence[str], index: int, number: int) -> Spread | None:
    """The JSON value that starts on ``lines[index]`` (line ``number`` of its file) and
    ends at the end of that line or of a later one, or None when none does (the text
    there is no JSON value, or more follows it on its last line)."""
    text = "\n".join(lines[index:])
    start = len(text) - len(text.lstrip())
    if start > len(lines[index]):  # the line is blank
        return None
    try:
        value, end = json.JSONDecoder().raw_decode(text, start)
    except (ValueError, RecursionError):
        return None
    ends_line = text.find("\n", end)
    rest = text[end:] if ends_line < 0 else text[end:ends_line]
    if rest.strip():
        return None
    return Spread(value, number, number + text.count("\n", 0, end))
