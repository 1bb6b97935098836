"""The samples in which an agent gave up: raised a failure its ``AgentEntry`` declares.

Such a sample fails every check (it answered nothing), so its case line would name only
the checks; the give-up, with its error (``<kind>: <message>``, a key it holds masked), is
said beside them, by ``replaygate eval`` and by the report, which reads it from the run's
information in the history (``info.gave_up``: per case, how many samples gave up and the
first one's error).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from replaygate.jsondoc import FieldError
from replaygate.jsonfields import count, each, known_fields, mapping, text_field, within
from replaygate.sampling import SampledResult
from replaygate.unicode_forms import cut

GAVE_UP = "gave_up"
"""The key of a history run's information holding its give-ups."""
KEPT = 300
"""Characters of an error the history keeps; a longer one is cut there (or before, not to
cut an accent from its letter or an emoji sequence in two)."""
SHOWN = 80
"""Characters of an error a case line shows; a longer one is cut there."""
BREAKING = ("Cc", "Cf", "Zl", "Zp")
"""Unicode categories of the characters a case line shows as their escapes."""


@dataclass(frozen=True)
class GaveUp:
    """How many of a case's ``of`` samples gave up, and the first one's error."""

    samples: int
    of: int
    error: str

    def words(self) -> str:
        """``gave up 3/3: GiveUp: <its message, cut short>``, on one line: a character
        that would break or garble it (a newline, an escape, a right-to-left override)
        written as its escape."""
        error = self.error if len(self.error) <= SHOWN else f"{cut(self.error, SHOWN)}..."
        shown = "".join(
            f"\\u{ord(c):04x}" if unicodedata.category(c) in BREAKING else c for c in error
        )
        return f"gave up {self.samples}/{self.of}: {shown}"

    def to_json(self) -> dict[str, Any]:
        """As a run's information keeps it (the case's samples are the case's)."""
        error = self.error if len(self.error) <= KEPT else f"{cut(self.error, KEPT)}..."
        return {"samples": self.samples, "error": error}


def gave_up(sampled: SampledResult) -> GaveUp | None:
    """The give-ups of a case's samples (an ``error`` in their output), if any."""
    errors = [
        str(sample.output["error"])
        for sample in sampled.samples
        if isinstance(sample.output, Mapping) and sample.output.get("error")
    ]
    return GaveUp(len(errors), sampled.n, errors[0]) if errors else None


def kept_give_ups(info: Mapping[str, Any], samples: Mapping[str, int]) -> dict[str, GaveUp]:
    """The give-ups a run's ``info`` keeps, per case id; ``samples`` gives each case of the
    run its number of samples. A :class:`~replaygate.jsondoc.FieldError` names what is
    wrong (a case the run does not hold, more samples than it has)."""

    def one(case: str, obj: Any) -> tuple[str, GaveUp]:
        known_fields(mapping(obj), ("samples", "error"))
        if case not in samples:
            raise FieldError("", "names no case of the run")
        return case, GaveUp(
            count(obj, "samples", 1, samples[case]), samples[case], text_field(obj, "error")
        )

    with within("info"):
        return dict(each(info, GAVE_UP, one, key="case id", required=False))
