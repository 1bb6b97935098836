"""A fixture pasted as pretty JSON into a ``.jsonl`` file, reported once by ``verify``.

Each line of such a fixture fails to parse alone. Its first line (``{``) says what
happened and how to fix it; the lines after it would each add a problem that says
nothing more (a fixture of 90 lines, 90 problems). A block from a ``{`` line to the
next ``}`` line, both unindented, every line of which has a problem, is one problem
naming its first and last line. Anything else is reported line by line as before: a
block never closed, one holding a line with no problem (a whole fixture), one cut by
another ``{`` line.
"""

from __future__ import annotations

import dataclasses

from replaygate.fixtures.store.jsonl import SPREAD
from replaygate.hygiene.verify_problem import StoreProblem
from replaygate.jsonl_spread import spread_lines

__all__ = ["fold_pretty_blocks"]


def fold_pretty_blocks(problems: list[StoreProblem], start: int) -> None:
    """Replace the problems of each pretty fixture block in ``problems[start:]``, one
    file's problems in line order, by one naming the block's lines."""
    firsts = {p.line for p in problems[start:] if p.reason.startswith(SPREAD)}
    if not firsts:
        return
    blocks = _blocks(problems[start].file, firsts, {p.line for p in problems[start:]})
    if not blocks:
        return
    folded: list[StoreProblem] = []
    first = end = 0
    for problem in problems[start:]:
        if problem.line in blocks:
            first, end = problem.line, blocks[problem.line]
            reason = problem.reason.replace(SPREAD, spread_lines("fixture", first, end), 1)
            folded.append(dataclasses.replace(problem, reason=reason))
        elif not first < problem.line <= end:
            folded.append(problem)
    problems[start:] = folded


def _blocks(file: str, firsts: set[int], flagged: set[int]) -> dict[int, int]:
    """The first line -> last line of each closed block of ``file`` starting at one of
    ``firsts``, every line of which is one of ``flagged``."""
    blocks: dict[int, int] = {}
    last = max(firsts)
    opened = 0
    try:
        with open(file, "rb") as lines:
            for number, raw in enumerate(lines, start=1):
                text = raw.rstrip()
                if text == b"{":
                    opened = number if number in firsts else 0
                elif opened and number not in flagged:
                    opened = 0
                elif opened and text == b"}":
                    blocks[opened] = number
                    opened = 0
                if number >= last and not opened:
                    break
    except OSError:  # read a moment ago: the problems stay as they were found
        return {}
    return blocks
