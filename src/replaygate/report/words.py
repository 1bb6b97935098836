"""Counts said in words, as the report shows them."""

from __future__ import annotations

import re

from replaygate.evals.giveups import GaveUp
from replaygate.evals.reference import CaseSummary
from replaygate.locale_names import names_as_utf8
from replaygate.reasons import DIRECTION_MARKS, LINE_SEPARATORS, ZERO_WIDTH
from replaygate.report.evidence import plural
from replaygate.sampling import AssertionStats

UNSEEN = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"  # control characters
    f"{DIRECTION_MARKS}\u202a-\u202e\u2066-\u2069"  # marks, embeddings, overrides, isolates
    f"{ZERO_WIDTH}"  # no width: a space, a word joiner, a byte order mark, a soft hyphen
    f"{''.join(LINE_SEPARATORS)}"  # the line and paragraph separators: a page breaks there
    "\ud800-\udfff]"  # half of a surrogate pair: a file name's byte that is not UTF-8
)
"""Characters a page would hide or act on instead of showing: control characters, the
marks that turn text around (a case id holding U+202E would read backwards), those of no
width (``rag``, U+200B, ``basics`` would read as another case id, ``ragbasics``), the line
and paragraph separators, where a page breaks the line (``rag``, U+2028, ``FAIL case x``
read as two lines, the second a FAIL of its own), and the lone surrogates that stand for
the bytes of a file name that is not UTF-8 (no UTF-8 page can hold one: writing the
report failed)."""


def visible(text: str) -> str:
    """``text`` with each character of :data:`UNSEEN` written as its escape; a UTF-8 file
    name an ASCII locale (``LC_ALL=C``) holds as the surrogates of its bytes as its text,
    as a UTF-8 locale shows it."""
    return UNSEEN.sub(_escaped, names_as_utf8(text))


def _escaped(found: re.Match[str]) -> str:
    """A character of :data:`UNSEEN` as text: ``\\xff`` for a byte of a file name that is
    not UTF-8 (as the terminal messages show it), else ``\\uXXXX``."""
    code = ord(found.group())
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"


def cut(text: str, longest: int) -> str:
    """``text``, cut after ``longest`` characters (saying how long it is)."""
    if len(text) > longest:
        return f"{text[:longest]}... ({len(text):,} characters)"
    return text


def assertion_words(stats: AssertionStats, floor: int) -> str:
    """``citations: 4 of 5 samples passed, floor 4`` (a signal says it never blocks)."""
    text = f"{stats.name}: {stats.passes} of {plural(stats.samples, 'sample')} passed"
    if stats.kind == "gate":
        return f"{text}, floor {floor}"
    return f"{text} (a signal: never blocks)"


def case_words(case: CaseSummary) -> str:
    """``observe: 3 of 5 samples passed, floor 4``."""
    samples = plural(case.samples, "sample")
    return f"{case.verdict}: {case.passes} of {samples} passed, floor {case.floor}"


def failed_assertions(case: CaseSummary, gave_up: GaveUp | None = None) -> str:
    """What failed in a case, in words, the samples in which the agent gave up first;
    ``none failed`` when every sample passed each one."""
    failed = [assertion_words(a, case.floor) for a in case.assertions if a.passes < a.samples]
    if gave_up is not None:
        failed.insert(0, gave_up.words())
    return "; ".join(failed) or f"none failed in {plural(case.samples, 'sample')}"
