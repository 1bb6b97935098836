"""The spending cap of one process of ``eval --jobs N``: its share of ``--max-cost``.

Each process may spend ``--max-cost`` / N, so that together they stay within the cap
(so may each pytest-xdist worker of a recording session, its share of the session's).
A call a share refuses says so (the cap it names is the share, not the amount given)
and, when the call alone could cost more than a share but not more than the whole cap,
how many jobs would give a share that holds it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from replaygate.errors import SpendingCapError
from replaygate.fixtures.spending import Prices, SpendingCap


@dataclass
class CapShare(SpendingCap):
    """``whole`` split over ``jobs`` processes: this one may spend ``whole / jobs``."""

    whole: float = field(default=0.0, kw_only=True)
    jobs: int = field(default=1, kw_only=True)
    split: str = field(
        default="process's share: --max-cost {whole} split over --jobs {jobs}", kw_only=True
    )
    """What shares the cap, and how, its ``{whole}`` and ``{jobs}`` filled in."""
    fewer: str = field(default="--jobs", kw_only=True)
    """The option that sets how many share it."""

    def reserve(self, request: Mapping[str, Any]) -> None:
        """Refuse a call as :class:`SpendingCap` does, saying the cap is this process's share."""
        bound = self._bound(request)[1]  # a model without a price is refused as it is
        try:
            super().reserve(request)
        except SpendingCapError as err:
            raise SpendingCapError(f"{err} {self._share_note(bound)}") from None

    def _share_note(self, bound: float) -> str:
        note = f"This {self.split.format(whole=f'{self.whole:g}', jobs=self.jobs)}."
        fewer = min(int(self.whole / bound), self.jobs - 1) if bound > 0 else 0
        if bound > self.limit and fewer >= 1:
            jobs = f"{self.fewer} {fewer}" + (" or fewer" if fewer > 1 else "")
            note += (
                f" The call alone could cost more than the share; with {jobs}, a share "
                f"({self.whole / fewer:g}) would hold it."
            )
        return note


def process_cap(whole: float, prices: Prices, jobs: int) -> SpendingCap:
    """The cap of one of ``jobs`` processes sharing a cap of ``whole``."""
    if jobs == 1:
        return SpendingCap(whole, prices)
    return CapShare(whole / jobs, prices, whole=whole, jobs=jobs)
