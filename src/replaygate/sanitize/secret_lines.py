"""The secret gate's first look at many written fixtures: one multi-pattern scan of a batch.

:func:`clean_lines` tells, for each fixture of a batch written exactly as ``orjson.dumps``
writes it, whether it is known to hold no secret. A line :func:`quiet_lines` finds quiet
holds nothing the gate (:func:`~.secret_gate.clean_written`) looks for. Every other line
goes through the gate as before, so the findings are the same whichever way a line goes.

The lines are joined by newlines, each without the ``{"key":"`` the gate leaves out, and
searched for all the patterns of :func:`_patterns` in one pass by Hyperscan (a
multi-pattern regular expression engine; without it every line goes through the gate).
Then the stretches of :data:`~.secret_entropy.FREE_PART` characters long enough to be a
free-standing token or a base64 run are found with one :meth:`bytes.translate`, and each
is checked as the gate checks it.

Why a quiet line is one the gate clears. The gate searches the line's pieces (cut at
:data:`~.secret_gate.CUT` and :data:`~.secret_gate.FIELD_CUT`, each a stretch of the line
with a quote before and after it, wrapped in ``CUT``), and by its own argument what it
flags lies within a piece, that is within the line. It flags a text holding:

- a field word followed, before the next quote, by a backslash, ``,``, ``;`` or ``|``, or
  that quote by ``:"`` or ``:[``, or a tag holding a field word
  (:func:`~.secret_entropy.may_have_auth_like_field`, which passes over some of the
  backslashes: the pattern flags more lines than it): the first two patterns are those
  searches, in any letter case;
- an anchor of a rule (:func:`~.secret_rules.may_match_family`), one holding a space
  anywhere, the others in a run: each is a pattern, anywhere (a rule that ignores case,
  in any case);
- in a run, a credential name and its ``=`` or ``:`` (:data:`~.secret_entropy.NAMED_SOURCE`),
  or, just before a run that does not start a string, what stands before a credential
  (:data:`~.secret_entropy.BEFORE_SOURCE`): the first is a pattern anywhere, the second
  one followed by :data:`~.secret_prefilter.MIN_RUN` run characters, any case (an
  orjson line holds no control character, so white space is only a space there);
- ``"base64":``, an escape written as text, a percent escape, or an invisible character
  (:func:`~.secret_decode.may_have_views`): the same patterns;
- in a run, a free-standing token, a base64 run that decodes to text or holds
  compressed data, or a run of hex digits that spells text: each lies in a
  stretch of free-token characters (base64's among them) of at least
  :data:`~.secret_decode.BASE64_MIN_LENGTH`, and every such stretch of the line is
  checked as the gate checks a run's (:func:`_may_hide`).

The engine reports every place where a match ends, so a match within a line is reported
for that line whatever the lines around it hold.
"""

from __future__ import annotations

import functools
import itertools
import threading
from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

from replaygate.sanitize.secret_decode import (
    BASE64_BODY,
    BASE64_MIN_LENGTH,
    ESCAPE_BYTES,
    INVISIBLE_BYTES,
    PERCENT_BYTES,
    run_may_hide,
)
from replaygate.sanitize.secret_entropy import (
    BEFORE_SOURCE,
    FIELD_WORDS,
    FREE_MIN_LENGTH,
    FREE_PART,
    NAMED_SOURCE,
    TAG_SOURCE,
    free_secret,
)
from replaygate.sanitize.secret_gate import KEY_FIRST, clean_written, cut_written
from replaygate.sanitize.secret_prefilter import MIN_RUN, RUN_BYTES, stretches, table_of
from replaygate.sanitize.secret_rules import EXACT_ANCHORS, FOLDED_ANCHORS, SPACED_ANCHORS

ENGINE_AFTER = 4096
"""Written lines a process checks before it loads the engine (about 60 ms to load and
compile its patterns; the gate spends that on a few thousand lines)."""
ENGINE_BYTES = 8 << 20
"""Written bytes announced at once (:func:`expect_bytes`) that have the engine used from
the first batch: at about 2 KB a recorded fixture, they hold :data:`ENGINE_AFTER` lines."""
_FREE_TABLE = table_of(bytes(b for b in range(256) if FREE_PART.fullmatch(bytes([b]))))
_STRETCH = min(BASE64_MIN_LENGTH, FREE_MIN_LENGTH)
_seen = 0


def _literal(text: bytes) -> bytes:
    """``text`` as a pattern matching itself (every byte but a letter or digit escaped)."""
    return b"".join(bytes([b]) if bytes([b]).isalnum() else b"\\x%02x" % b for b in text)


def _one_of(texts: Sequence[bytes]) -> bytes:
    return b"(?:" + b"|".join(map(_literal, texts)) + b")"


def _patterns() -> list[tuple[bytes, bool]]:
    """The patterns searched, each with whether it ignores letter case."""
    run = b"[" + b"".join(b"\\x%02x" % b for b in RUN_BYTES) + b"]"
    return [
        (_one_of(FIELD_WORDS) + rb'[^"\\]*(?:[\\,;|]|":["\[])', True),
        (TAG_SOURCE, True),
        *((_literal(anchor), False) for anchor in SPACED_ANCHORS),
        (_one_of(EXACT_ANCHORS), False),
        (_one_of(FOLDED_ANCHORS), True),
        (NAMED_SOURCE, True),
        (BEFORE_SOURCE + run + b"{%d}" % MIN_RUN, True),
        (_literal(BASE64_BODY), False),
        (ESCAPE_BYTES.pattern, False),
        (PERCENT_BYTES.pattern, False),
        (INVISIBLE_BYTES.pattern, False),
    ]


@functools.cache
def _database() -> Any:
    """The compiled patterns; None when Hyperscan is not installed or cannot run here
    (it needs a CPU with SSSE3)."""
    try:
        import hyperscan
    except ImportError:
        return None
    sources, caseless = zip(*_patterns(), strict=True)
    database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    try:
        database.compile(
            expressions=list(sources),
            ids=list(range(len(sources))),
            elements=len(sources),
            flags=[hyperscan.HS_FLAG_CASELESS if flag else 0 for flag in caseless],
        )
    except hyperscan.HyperscanError:
        return None
    return database


_local = threading.local()
"""Each thread's scratch space for the engine (a scan in progress holds its own)."""


def _scratch(database: Any) -> Any:
    held = getattr(_local, "held", None)
    if held is None or held[0] is not database:
        import hyperscan

        held = _local.held = (database, hyperscan.Scratch(database))
    return held[1]


def _hit(_pattern: int, _start: int, end: int, _flags: int, ends: list[int]) -> None:
    ends.append(end)


def quiet_lines(lines: Sequence[bytes]) -> list[bool] | None:
    """For each of ``lines`` (fixtures as ``orjson.dumps`` writes them, each starting with
    :data:`~.secret_gate.KEY_FIRST`), whether the gate has nothing to look at in it; None
    when Hyperscan is not installed."""
    database = _database()
    if database is None:
        return None
    skip = len(KEY_FIRST)
    text = b"\n".join([memoryview(line)[skip:] for line in lines])
    starts = list(itertools.accumulate((len(line) - skip + 1 for line in lines), initial=0))
    ends: list[int] = []
    database.scan(text, match_event_handler=_hit, context=ends, scratch=_scratch(database))
    loud = {bisect_right(starts, end - 1) - 1 for end in ends}
    for start, end in stretches(text, _FREE_TABLE, _STRETCH):
        if _may_hide(text[start:end].decode("ascii")):
            loud.add(bisect_right(starts, start) - 1)
    return [i not in loud for i in range(len(lines))]


def _may_hide(stretch: str) -> bool:
    """Whether the gate flags a run for this stretch: a free-standing token (it mixes
    letter cases), base64 that decodes to text or holds compressed data, or hex digits
    that spell text."""
    if len(stretch) >= FREE_MIN_LENGTH and not stretch.islower() and free_secret(stretch):
        return True
    return run_may_hide(stretch)


def expect_bytes(size: int) -> None:
    """Announce ``size`` bytes of written lines about to be checked in this process: from
    :data:`ENGINE_BYTES` on, the engine is used from the first batch instead of after
    :data:`ENGINE_AFTER` lines (a verify worker would otherwise check its first few
    thousand lines the slow way)."""
    global _seen
    if size >= ENGINE_BYTES:
        _seen = max(_seen, ENGINE_AFTER + 1)


def clean_lines(lines: Sequence[bytes | None]) -> list[bool | None]:
    """For each of ``lines``, whether the fixture written there is known to hold no secret.

    Each line is exactly what ``orjson.dumps`` writes for its fixture, or None: None in
    return, as for a line :func:`~.secret_gate.cut_written` does not cut. False means
    "not known", as for :func:`~.secret_gate.clean_written`.
    """
    global _seen
    written = {
        i: line for i, line in enumerate(lines) if line is not None and line.startswith(KEY_FIRST)
    }
    _seen += len(written)
    quiet = quiet_lines(list(written.values())) if written and _seen > ENGINE_AFTER else None
    loud = {
        i: line
        for (i, line), clear in zip(written.items(), quiet or [False] * len(written), strict=True)
        if not clear
    }
    known = dict(
        zip(loud, clean_written([cut_written(line) for line in loud.values()]), strict=True)
    )
    return [known.get(i, True) if i in written else None for i in range(len(lines))]
