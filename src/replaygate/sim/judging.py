"""The ``research-copilot`` model asked to grade a text, as replaygate's ``Judge`` asks.

A judge's prompt (:func:`replaygate.assertions.judge_prompt.build_prompt`) quotes the text
between ``<<<TEXT n>>>`` and ``<<<END n>>>`` and asks for a last line ``GRADE: n`` on a
scale. A real model answers it with its reasoning and that line; so does the simulator,
so that a judge can be recorded from it: a text that cites a source (``[doc-id]``) grades
at the top of the scale, one that does not at the bottom, and with a random stream one
grade in five is a step nearer the middle, as a real judge's grades vary.
"""

from __future__ import annotations

import random
import re

_GRADED = re.compile(r"^<<<TEXT (\w+)>>>\n(.*?)\n<<<END \1>>>$", re.DOTALL | re.MULTILINE)
_SCALE = re.compile(r"^GRADE: n\nwhere n is a number from (-?\d+) to (-?\d+)\.\Z", re.MULTILINE)
_CITATION = re.compile(r"\[[^\[\]\s]+\]")
OFF_BY_ONE_RATE = 0.2
"""How often, with a random stream, the grade is a step nearer the middle."""


def judge_reply(prompt: str, rng: random.Random | None = None) -> str | None:
    """The reply to a judge's prompt, its last line ``GRADE: n``; ``None`` when ``prompt``
    is no judge's prompt."""
    graded, scale = _GRADED.search(prompt), _SCALE.search(prompt)
    if graded is None or scale is None:
        return None
    low, high = int(scale.group(1)), int(scale.group(2))
    text = "\n".join(line.removeprefix("| ") for line in graded.group(2).split("\n"))
    cited = _CITATION.search(text) is not None
    grade, step = (high, -1) if cited else (low, 1)
    if rng is not None and low < high and rng.random() < OFF_BY_ONE_RATE:
        grade += step
    why = "It cites its source." if cited else "It cites no source."
    return f"{why}\nGRADE: {grade}"
