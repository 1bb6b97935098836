"""The observation queue: cases that passed some samples but fewer than their floor.

One JSON object per line in ``.replaygate/observe.jsonl``::

    {"case": "...", "passes": 3, "samples": 5, "floor": 4,
     "failing": [{"name": "citations", "kind": "gate", "passes": 3, "samples": 5}],
     "time": "2026-01-01T00:00:00Z"}
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from replaygate.errors import not_utf8_text
from replaygate.jsondoc import FieldError, json_fields
from replaygate.regular import is_blank, read_regular_text, text_lines
from replaygate.strict_json import plain_loads

if TYPE_CHECKING:
    from replaygate.sampling.results import SampledResult

DEFAULT_QUEUE = Path(".replaygate") / "observe.jsonl"


@dataclass(frozen=True)
class Observation:
    """One queued case."""

    case: str
    passes: int
    samples: int
    floor: int
    failing: tuple[dict[str, Any], ...]
    time: str

    @staticmethod
    def of(result: SampledResult, time: str | None = None) -> Observation:
        """The queue entry of a sampled case."""
        from replaygate.fixtures.fixture import now_iso

        failing = tuple(
            {"name": a.name, "kind": a.kind, "passes": a.passes, "samples": a.samples}
            for a in result.failing()
        )
        return Observation(
            result.case, result.passes, result.n, result.floor, failing, time or now_iso()
        )

    def to_json(self) -> dict[str, Any]:
        """The queue line's object."""
        return json_fields(self)

    def summary(self) -> str:
        """One line for the session summary."""
        failing = ", ".join(f"{f['name']} {f['passes']}/{f['samples']}" for f in self.failing)
        return f"{self.case}: {self.passes}/{self.samples} passed, floor {self.floor}" + (
            f"; failing: {failing}" if failing else ""
        )


def append_observation(path: str | os.PathLike[str], entry: Observation) -> None:
    """Append ``entry`` as one line, under a lock (concurrent sessions lose nothing), in one
    write and fsync: a failed one (a full disk) leaves the queue as it was. A last line left
    without its newline (an edit) gets one first, so neither line is damaged. Half of a
    surrogate pair (a test file name that is not UTF-8) is kept as its escape."""
    from replaygate.fixtures.store.writing import append_line
    from replaygate.jsonfields import escape_surrogates
    from replaygate.locks import lock_at

    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    line = escape_surrogates(json.dumps(entry.to_json(), ensure_ascii=False, sort_keys=True))
    with lock_at(f"{target}.lock"):
        append_line(target, (line + "\n").encode("utf-8"), check_tail=None)


def read_queue(path: str | os.PathLike[str]) -> list[Observation]:
    """Every entry of the queue at ``path`` (an absent file is an empty queue).

    Raises ``ValueError`` naming the file (and the line) when it cannot be read as one.
    """
    target = Path(path)
    if not target.exists():
        return []
    try:
        text = read_regular_text(target)
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) else not_utf8_text(err, byte=False)
        raise ValueError(f"{target}: cannot read the queue: {reason}") from None
    entries = []
    for number, raw in text_lines(text):
        if is_blank(raw):
            continue
        try:
            entries.append(_observation(plain_loads(raw)))
        except FieldError as err:
            field = f"{err.field}: " if err.field else ""
            raise ValueError(f"{target}:{number}: not an observation: {field}{err}") from None
        except (ValueError, RecursionError) as err:
            raise ValueError(f"{target}:{number}: not an observation: {err}") from None
    return entries


def _observation(obj: Any) -> Observation:
    """A queue line's object, each field checked (a :class:`FieldError` names it)."""
    from replaygate.jsonfields import count, each, mapping, text_field
    from replaygate.sampling.verdict import MAX_SAMPLES

    samples = count(mapping(obj), "samples", 1, MAX_SAMPLES)
    failing = each(obj, "failing", lambda _i, entry: _failing(mapping(entry)))
    return Observation(
        text_field(obj, "case"),
        count(obj, "passes", 0, samples),
        samples,
        count(obj, "floor", 1, samples),
        tuple(failing),
        text_field(obj, "time"),
    )


def _failing(entry: dict[str, Any]) -> dict[str, Any]:
    """An assertion of ``failing``: its name and counts checked, as the summary shows them."""
    from replaygate.jsonfields import count, text_field

    text_field(entry, "name")
    count(entry, "passes", 0, count(entry, "samples", 1))
    return entry
