"""Drift of a field's type: a value that turned null, or a number that came as text.

The types of a path are gathered per interface on each side, over every answer: the
fixtures' (every recorded answer of the interface, errors left out) and the live ones
(or OTHER's). A path drifted when the new side holds it with a type that no answer of
the fixtures held it with. A field the API sends null in some answers and set in others
(Anthropic's ``stop_sequence``, OpenAI's ``content`` beside a tool call) is no drift
once the fixtures hold it both ways, so a run that meets the other form does not turn
drift on; null is drift only where the fixtures never held the field null. A type the
fixtures hold that the new side never sent is no drift: a sample shows what can come,
not all of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from replaygate.fixtures.fixture import is_envelope
from replaygate.hygiene.drift_answers import error_answer
from replaygate.hygiene.fieldset import Shape, not_json_answer, response_shape


@dataclass(frozen=True)
class Retyped:
    """A field the new side sent with a type the fixtures never held it with."""

    field: str
    old: tuple[str, ...]
    """Every type the fixtures hold at :attr:`field`."""
    new: tuple[str, ...]
    """Every type the new side sent at :attr:`field`."""

    def shown(self, old_side: str, new_side: str) -> str:
        """``usage.input_tokens: number in fixtures, null in live``."""
        return (
            f"{self.field}: {' or '.join(self.old)} in {old_side}, "
            f"{' or '.join(self.new)} in {new_side}"
        )


def retyped(old: Shape, new: Shape) -> list[Retyped]:
    """The paths of both ``old`` and ``new`` that ``new`` holds with a type ``old`` never
    does (a path only one side has is drift of the field set, not of its type)."""
    return [
        Retyped(path, tuple(sorted(old[path])), tuple(sorted(new[path])))
        for path in sorted(old.keys() & new.keys())
        if new[path] - old[path]
    ]


def answer_shape(request: dict[str, Any], response: Any) -> Shape | None:
    """The shape of a recorded answer, or None for no answer, an error answer, or one
    that is not a JSON object: none of them shows what the API sends."""
    if response is None or error_answer(request, response) is not None:
        return None
    if not_json_answer(request, response) is not None:
        return None
    return response_shape(response, envelope=is_envelope(request))
