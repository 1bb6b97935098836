"""Number options written in ASCII digits.

click's ``int`` and ``float`` types convert with Python's ``int()`` and ``float()``, which
also read full-width and other Unicode digits (``３``) and underscores (``1_000``). These
types refuse such a value as a usage error naming the option, then convert and check the
range as click does (``nan`` and ``inf`` are left to the option's own checks). The
checks themselves are in :mod:`replaygate.digits`.
"""

from __future__ import annotations

from typing import Any

import click

from replaygate.digits import a_decimal, an_integer


class _Described(click.types._NumberRangeBase[Any, Any]):
    """A range shown in help only where it has a bound (click writes ``x<=None`` for
    none)."""

    def _describe_range(self) -> str:
        if self.min is None and self.max is None:
            return ""
        return super()._describe_range()


class DigitsInt(_Described, click.IntRange):
    """An integer in ASCII digits (an optional sign), within the bounds given, if any."""

    name = "integer"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not an_integer(value):
            self.fail(f"{value!r} is not an integer written in the digits 0-9.", param, ctx)
        return super().convert(value, param, ctx)


class DigitsFloat(_Described, click.FloatRange):
    """A decimal number in ASCII digits (``2``, ``0.5``, ``1e-3``), within the bounds given."""

    name = "float"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not a_decimal(value):
            self.fail(f"{value!r} is not a number written in the digits 0-9.", param, ctx)
        return super().convert(value, param, ctx)
