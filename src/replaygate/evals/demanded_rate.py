"""The pass rate a case's floor demands, weighing how many samples it takes.

``floor`` passes of ``samples`` is no plain share: 1 of 1 demands every sample pass but
is passed by luck half the time by an agent that passes half its samples, while 4 of 5
is met by such an agent about one time in five. The rate a case demands is the pass
rate per sample at which it meets its floor as often as not: ``p`` where
``P(Binomial(samples, p) >= floor) = 1/2`` (the median of ``Beta(floor, samples -
floor + 1)``). It grows with the floor and falls as samples are added with the floor
kept: 1 of 1 demands 0.5, 4 of 5 0.69, 4 of 6 0.58, 5 of 6 0.74.
"""

from __future__ import annotations

import functools
import math

_STEPS = 60
"""Halvings of the search interval: the rate to about 1e-18, past a float's precision."""
_WIDTH = 12.0
"""Standard deviations either side of the mean past which a binomial term is below any
float's precision and is left out of the sum."""


@functools.lru_cache(maxsize=1024)
def demanded_rate(samples: int, floor: int) -> float:
    """The pass rate per sample at which a case of ``samples`` runs meets ``floor``
    (``1 <= floor <= samples``) half the time."""
    if floor == samples:
        return float(0.5 ** (1 / samples))
    low, high = 0.0, 1.0
    for _ in range(_STEPS):
        middle = (low + high) / 2
        if _at_least(samples, floor, middle) < 0.5:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def _at_least(n: int, k: int, p: float) -> float:
    """``P(Binomial(n, p) >= k)`` for ``0 < p < 1``, summed over the terms a float holds."""
    if p <= 0.0:
        return 0.0
    if p >= 1.0:
        return 1.0
    spread = _WIDTH * math.sqrt(n * p * (1 - p)) + 1
    first, last = max(k, math.floor(n * p - spread)), min(n, math.ceil(n * p + spread))
    log_p, log_q, whole = math.log(p), math.log1p(-p), math.lgamma(n + 1)
    return math.fsum(
        math.exp(whole - math.lgamma(j + 1) - math.lgamma(n - j + 1) + j * log_p + (n - j) * log_q)
        for j in range(first, last + 1)
    )
