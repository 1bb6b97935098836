"""Set assertions: an extracted set against the expected one, by recall and precision."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass

from replaygate.assertions.text import fold


def _sorted(items: frozenset[Hashable]) -> list[Hashable]:
    return [
        _plain(item) for item in sorted(items, key=lambda item: (type(item).__name__, repr(item)))
    ]


@dataclass(frozen=True)
class _Truth:
    """``True`` or ``False`` as a set item of its own: Python's sets take ``True`` for ``1``
    and ``False`` for ``0``, so a flag extracted where an id was expected passed."""

    value: bool

    def __repr__(self) -> str:
        return repr(self.value)


def _plain(item: Hashable) -> Hashable:
    """``item`` as it was given, a :class:`_Truth` as its bool (in a tuple too)."""
    if isinstance(item, _Truth):
        return item.value
    if type(item) is tuple:
        return tuple(_plain(inner) for inner in item)
    return item


@dataclass(frozen=True)
class SetResult:
    """``got`` against ``expected``: missing and extra items, recall and precision."""

    got: frozenset[Hashable]
    expected: frozenset[Hashable]
    min_recall: float
    min_precision: float | None

    @property
    def missing(self) -> list[Hashable]:
        """Expected items not got, sorted."""
        return _sorted(self.expected - self.got)

    @property
    def extra(self) -> list[Hashable]:
        """Items got but not expected, sorted."""
        return _sorted(self.got - self.expected)

    @property
    def recall(self) -> float:
        """|got & expected| / |expected| (1.0 when nothing is expected)."""
        return len(self.got & self.expected) / len(self.expected) if self.expected else 1.0

    @property
    def precision(self) -> float:
        """|got & expected| / |got| (1.0 when nothing was got)."""
        return len(self.got & self.expected) / len(self.got) if self.got else 1.0

    @property
    def passed(self) -> bool:
        """Recall (and precision, when a minimum is set) at or above the minimums."""
        if self.recall < self.min_recall:
            return False
        return self.min_precision is None or self.precision >= self.min_precision

    @property
    def score(self) -> float:
        """The recall."""
        return self.recall

    @property
    def message(self) -> str:
        """Recall and precision against their minimums, with the missing and extra items."""
        failing = []
        if self.recall < self.min_recall:
            failing.append(
                "recall {} < min_recall {}".format(*_apart(self.recall, self.min_recall))
            )
        if self.min_precision is not None and self.precision < self.min_precision:
            shown = _apart(self.precision, self.min_precision)
            failing.append("precision {} < min_precision {}".format(*shown))
        head = "; ".join(failing) if failing else "set matches"
        return (
            f"{head} (recall {self.recall:.2f}, precision {self.precision:.2f}); "
            f"missing: {self.missing!r}; extra: {self.extra!r}"
        )


def _apart(rate: float, minimum: float) -> tuple[str, str]:
    """``rate`` and the ``minimum`` it fell short of, with the fewest decimals (two at
    least) that show the minimum as given and tell the two apart: rounded alike, a rate of
    2/3 against 0.6667 read ``0.67 < 0.67``, and 0.996 was shown as 1.00."""
    for digits in range(2, 17):
        shown, least = f"{rate:.{digits}f}", f"{minimum:.{digits}f}"
        if float(least) == minimum and shown != least:
            return shown, least
    return repr(rate), repr(minimum)


def _fraction(name: str, value: float | None) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a number between 0 and 1, got {value!r}")
    if not 0.0 <= value <= 1.0:
        as_rate = (
            f" (a rate, not a percent: {value / 100:g} for {value:g}%)" if 1 < value <= 100 else ""
        )
        raise ValueError(f"{name} must be between 0 and 1, got {value!r}{as_rate}")


def measure_set(
    got: Iterable[Hashable],
    expected: Iterable[Hashable],
    *,
    min_recall: float = 1.0,
    min_precision: float | None = None,
) -> SetResult:
    """Compare ``got`` with ``expected`` as sets (duplicates count once; text items folded,
    so ``café`` written decomposed, as macOS writes it, is ``café``)."""
    if isinstance(got, str) or isinstance(expected, str):
        raise TypeError("got and expected must be collections of items, not strings")
    _fraction("min_recall", min_recall)
    _fraction("min_precision", min_precision)
    wanted = _items("expected", expected)
    if not wanted and not min_precision:
        raise ValueError(
            "expected is empty: every set would pass (there is nothing to recall); name at "
            "least one item, or give min_precision to fail on extra items"
        )
    if not min_recall and not min_precision:
        raise ValueError(
            f"min_recall is {min_recall!r} and no min_precision is above 0: every set would "
            "pass (a recall of 0 meets the minimum); give min_recall above 0, or a "
            "min_precision above 0 to fail on extra items"
        )
    return SetResult(_items("got", got), wanted, min_recall, min_precision)


def _folded(item: Hashable) -> Hashable:
    """A text item folded (:func:`~replaygate.assertions.text.fold`: one text in two Unicode
    forms is one item, ``10⁶`` and ``106`` are two), in a tuple too (an extracted
    ``(entity, kind)`` pair); a numpy scalar as Python's own value (an extraction made with
    numpy reports ``extra: ['b']``, not ``[np.str_('b')]``); a bool as an item other than
    the number it equals (``True`` is not ``1``); any other as it is."""
    if type(item).__module__.partition(".")[0] == "numpy" and getattr(item, "ndim", None) == 0:
        item = item.item()  # type: ignore[attr-defined]
    if isinstance(item, str):
        return fold(item)
    if isinstance(item, bool):
        return _Truth(item)
    if type(item) is tuple:
        return tuple(_folded(inner) for inner in item)
    return item


def _items(name: str, items: Iterable[Hashable]) -> frozenset[Hashable]:
    """``items`` as a set, text items folded; one that is no collection of hashable items
    is a TypeError naming ``name``."""
    try:
        return frozenset(_folded(item) for item in items)
    except TypeError:
        raise TypeError(
            f"{name} must be a collection of hashable items, got {type(items).__name__}"
        ) from None


def assert_set(
    got: Iterable[Hashable],
    expected: Iterable[Hashable],
    *,
    min_recall: float = 1.0,
    min_precision: float | None = None,
) -> SetResult:
    """Raise :class:`AssertionError` with missing and extra items when recall or precision
    is below its minimum. ``min_precision=None`` (default) does not check precision."""
    result = measure_set(got, expected, min_recall=min_recall, min_precision=min_precision)
    if not result.passed:
        raise AssertionError(result.message)
    return result
