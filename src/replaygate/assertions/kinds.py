"""Gates and signals: a named check, what it found, and how much it counts.

A :class:`Check` wraps one assertion with a name, a kind and a category. Evaluated on
a value it gives an :class:`Outcome`. A ``gate`` that fails fails the sample (and so
the test); a ``signal`` is recorded and never fails anything.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, Protocol, TypeVar, get_args

from replaygate.errors import has_control
from replaygate.jsondoc import json_fields, shown
from replaygate.jsonfields import lone_surrogate

Kind = Literal["gate", "signal"]
KINDS: tuple[str, ...] = get_args(Kind)

Category = Literal["structure", "contains", "set", "judge", "custom"]
CATEGORIES: tuple[str, ...] = get_args(Category)
SEMANTIC_CATEGORIES: frozenset[str] = frozenset({"contains", "set", "judge", "custom"})
"""Categories whose result varies with the wording of an output (sample them)."""

T = TypeVar("T", contravariant=True)


class Measure(Protocol):
    """What a measuring assertion returns: passed or not, why, and an optional score."""

    @property
    def passed(self) -> bool:
        """Whether the assertion holds."""
        ...

    @property
    def message(self) -> str:
        """What was found, in words; names what is missing when it failed."""
        ...

    @property
    def score(self) -> float | None:
        """A number in [0, 1] (or a grade) for history and calibration, if any."""
        ...


@dataclass(frozen=True)
class Outcome:
    """One check evaluated on one output."""

    name: str
    kind: Kind
    passed: bool
    message: str = ""
    score: float | None = None
    category: Category = "custom"

    def __post_init__(self) -> None:
        # One conversion for every way an outcome is made (a check's measure, a results
        # file, a user's own): a numpy bool is a yes or no, the string "false" is not.
        object.__setattr__(self, "passed", yes_or_no(self.passed))
        if self.score is not None:
            object.__setattr__(self, "score", finite_score(self.score))

    @property
    def blocks(self) -> bool:
        """True for a failed gate: the only outcome that fails a sample."""
        return self.kind == "gate" and not self.passed

    def to_json(self) -> dict[str, Any]:
        """The JSON object stored in results files."""
        return json_fields(self, ("name", "kind", "category", "passed", "message", "score"))

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> Outcome:
        """The inverse of :meth:`to_json`."""
        return Outcome(
            name=str(obj["name"]),
            kind=check_kind(obj["kind"]),
            passed=obj["passed"],
            message=str(obj.get("message", "")),
            score=obj.get("score"),
            category=check_category(obj.get("category", "custom")),
        )


def yes_or_no(value: Any) -> bool:
    """``value`` as a bool: True, False, or a number equal to 1 or 0 (a numpy bool, say);
    TypeError for anything else (the string ``"false"`` would be true by its truth)."""
    if isinstance(value, bool):
        return value
    numeric = isinstance(value, int | float) or type(value).__module__ == "numpy"
    if numeric and _zero_or_one(value):
        return bool(value)
    raise TypeError(f"passed must be true or false, got {value!r}")


def _zero_or_one(value: Any) -> bool:
    try:
        return bool(value == 0 or value == 1)
    except ValueError:  # an array: no single truth
        return False


def finite_score(value: Any) -> float:
    """``value`` as a float if it is a finite number; ValueError otherwise (NaN or
    infinity cannot be written to a results file that reads back, nor a number beyond
    a float's range, ``10**400``, which no float holds)."""
    if isinstance(value, bool | str):
        raise ValueError(f"score must be a finite number or None, got {value!r}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"score must be a finite number or None, got {value!r}") from None
    except OverflowError:
        raise ValueError(
            f"score must be a finite number or None, got {_too_large(value)}, beyond the "
            "range of a float"
        ) from None
    if not math.isfinite(number):
        raise ValueError(f"score must be a finite number or None, got {value!r}")
    return number


def _too_large(value: Any) -> str:
    """``value``, a number beyond a float's range, for a message: cut short, an integer
    named by its length (``an integer of 401 digits``)."""
    try:
        return shown(value)
    except ValueError:  # more digits than Python prints
        return f"an integer of more than {sys.get_int_max_str_digits():,} digits"


def check_kind(kind: Any) -> Kind:
    """``kind`` if it is ``gate`` or ``signal``; ValueError otherwise."""
    if kind == "gate":
        return "gate"
    if kind == "signal":
        return "signal"
    raise ValueError(f"kind must be 'gate' or 'signal', got {kind!r}")


def check_category(category: Any) -> Category:
    """``category`` if it is one of :data:`CATEGORIES`; ValueError otherwise."""
    for known in get_args(Category):
        if category == known:
            return known  # type: ignore[no-any-return]
    raise ValueError(f"category must be one of {', '.join(CATEGORIES)}, got {category!r}")


@dataclass(frozen=True)
class Check(Generic[T]):
    """A named assertion declared a ``gate`` or a ``signal``.

    ``fn(value)`` returns a :class:`Measure` (its ``passed`` decides), ``None`` (passed)
    or raises :class:`AssertionError` (failed, with the error's text as the message).
    Any other exception is a broken check and propagates, noted with the check's name.
    """

    name: str
    kind: Kind
    fn: Callable[[T], Measure | None] = field(repr=False)
    category: Category = "custom"
    description: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(
                f"a check needs a non-empty name, one not only spaces: got {self.name!r}"
            )
        if not self.name.isascii() and lone_surrogate(self.name):
            raise ValueError(
                f"a check's name must be Unicode text, got {self.name!r}: it holds half of a "
                "surrogate pair, which no results file can hold"
            )
        if has_control(self.name):
            raise ValueError(
                f"a check's name must hold no control character (a newline, a tab, an escape): "
                f"it is printed on terminals and pages, got {self.name!r}"
            )
        check_kind(self.kind)
        check_category(self.category)
        if not callable(self.fn):
            raise TypeError(
                f"check {self.name!r}: fn must be a function of the value, got {self.fn!r}"
            )

    @property
    def semantic(self) -> bool:
        """True when the check looks at content that varies between samples."""
        return self.category in SEMANTIC_CATEGORIES

    def evaluate(self, value: T) -> Outcome:
        """Run the check on ``value``; a failed assertion becomes a failed outcome."""
        try:
            measured = self.fn(value)
        except AssertionError as err:
            return self._outcome(False, str(err) or "assertion failed", None)
        except Exception as err:  # a broken check: an error, named
            err.add_note(f"raised by check {self.name!r}")
            raise
        if measured is None:
            return self._outcome(True, "", None)
        if not all(hasattr(measured, part) for part in ("passed", "message", "score")):
            raise TypeError(
                f"check {self.name!r}: fn must return a measure (with passed, message and "
                f"score) or None, or raise AssertionError to fail; got "
                f"{type(measured).__name__} {measured!r:.60}{_returned_hint(measured)}"
            )
        return self._outcome(measured.passed, measured.message, measured.score)

    def _outcome(self, passed: Any, message: str, score: Any) -> Outcome:
        """The outcome of a measurement; one whose ``passed`` is not a yes or no, whose
        message is not text, or whose score is not a finite number, is an error naming
        this check (the outcome checks all three, as it does for every outcome)."""
        if not isinstance(message, str):  # None would be written as the text "None"
            raise TypeError(
                f"check {self.name!r}: the measure's message must be text (str), got "
                f"{type(message).__name__} {message!r:.60}"
            )
        try:
            return Outcome(self.name, self.kind, passed, message, score, self.category)
        except (TypeError, ValueError) as err:
            raise type(err)(f"check {self.name!r}: {err}") from None


def _returned_hint(measured: object) -> str:
    """What to write instead of a function that returned ``measured``, no measure: a
    predicate's bool, or the value an assertion that passed returns (``assert_json`` and
    ``assert_structure`` return the validated payload, so wrapped in a check they failed
    every sample that passed)."""
    if isinstance(measured, bool):
        return " (a predicate: write assert <condition>, 'message' in fn instead)"
    return (
        " (a value given back after the check passed: assert_json and assert_structure "
        "return the validated payload; use structure_check(schema, kind=..., "
        "from_json=True), or have fn return None)"
    )


def require_unique_names(checks: tuple[Check[Any], ...]) -> None:
    """Refuse two checks with the same name: their results would be merged."""
    seen: set[str] = set()
    for check in checks:
        if check.name in seen:
            raise ValueError(f"two checks are named {check.name!r}; give each a distinct name")
        seen.add(check.name)
