"""Fault injection: which request fails, and how.

A :class:`FaultPlan` is plain data: a scripted sequence (the n-th request gets the
n-th fault) and/or per-request rates. A :class:`FaultDrawer` applies a plan to the
requests of one server. A rate is drawn, like the behaviour's answers
(:mod:`.draws`), from the seed, the request (its route and JSON body) and how often that
same request came before: clients sending at once meet the faults they would meet one
after another, and a retry of a request draws afresh. A request a recording answered
from its store takes its fault too (:meth:`~replaygate.sim.app.SimApp.learn`). Faults
never perturb the randomness of the behaviour.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias, cast

from replaygate.sim.draws import Draws, request_digest

FaultKind = Literal["429", "500", "529", "slow", "cut-stream", "sse-error"]
FAULT_KINDS: tuple[FaultKind, ...] = ("429", "500", "529", "slow", "cut-stream", "sse-error")

StatusFault = Literal["429", "500", "529"]
"""A fault answered with an error status instead of the behaviour's answer."""

FaultSpec: TypeAlias = "FaultPlan | str | Mapping[str, float] | Sequence[str | None] | None"


class FaultSpecError(ValueError):
    """A fault specification names an unknown fault or holds a bad rate."""


_STATUS_FAULTS: dict[int, StatusFault] = {429: "429", 500: "500", 503: "529", 529: "529"}


def status_of(err: BaseException) -> int | None:
    """The HTTP status an SDK's status error carries: ``status_code`` (anthropic's,
    openai's), else ``code`` (google-genai's ``APIError``); None for another error."""
    status = getattr(err, "status_code", None)
    if status is None:
        status = getattr(err, "code", None)
    return status if isinstance(status, int) and not isinstance(status, bool) else None


def status_fault(err: BaseException) -> StatusFault | None:
    """The fault an SDK's status error raised by a behaviour stands for (a scripted
    ``anthropic.RateLimitError(...)`` or google-genai ``ClientError(429, ...)`` is a 429;
    OpenAI's 503 is Anthropic's 529), or None: another error, or a status no fault plays."""
    status = status_of(err)
    return None if status is None else _STATUS_FAULTS.get(status)


def announced_retry(err: BaseException) -> float | None:
    """The seconds an SDK's status error's own response announces to wait before a retry
    (``retry-after-ms``, else ``retry-after`` in seconds), or None: no response, no such
    header, or one that is not a number of seconds (an HTTP date is not played)."""
    headers = getattr(getattr(err, "response", None), "headers", None)
    get = getattr(headers, "get", None)
    if not callable(get):
        return None
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = get(name)
        try:
            seconds = float(value) / scale if isinstance(value, str) else math.nan
        except ValueError:
            continue
        if math.isfinite(seconds) and seconds >= 0:
            return seconds
    return None


_OVERLOADED = "503"
"""OpenAI's and Gemini's overloaded status, which the fault ``529`` answers on their routes."""


def _kind(name: str) -> FaultKind:
    if name not in FAULT_KINDS:
        text = f" (as text: {str(name)!r})" if str(name) in FAULT_KINDS else ""
        if str(name) == _OVERLOADED:
            text = " (an overload is the fault 529, answered 503 on OpenAI's and Gemini's routes)"
        known = ", ".join(FAULT_KINDS)
        raise FaultSpecError(f"unknown fault {name!r}{text}; expected one of {known}")
    return name


def _rate(name: str, value: object) -> float:
    try:
        rate = float(cast(float, value))
    except (TypeError, ValueError):
        raise FaultSpecError(f"fault {name!r}: rate {value!r} is not a number") from None
    if not 0.0 <= rate <= 1.0:
        raise FaultSpecError(f"fault {name!r}: rate {rate} is not between 0 and 1")
    return rate


def seconds_problem(value: object) -> str | None:
    """Why ``value`` is not a pause in seconds (a finite number, 0 or more), or None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"expected a number of seconds, got {value!r}"
    if not (math.isfinite(value) and value >= 0):
        return f"{value!r} is not a number of seconds (finite, 0 or more)"
    return None


@dataclass(frozen=True)
class FaultPlan:
    """Which faults to inject.

    ``script[n]`` is the fault of the n-th request (``None``: no fault); once the
    script is used up, each request draws at most one fault from ``rates``
    (probabilities that sum to at most 1, each fault named once: a second rate of one
    fault is refused, never taken for the first). ``slow_delay`` is the pause of a ``slow``
    fault in seconds; ``retry_after`` the seconds announced on a 429 or 529.
    """

    rates: tuple[tuple[FaultKind, float], ...] = ()
    script: tuple[FaultKind | None, ...] = ()
    slow_delay: float = 0.2
    retry_after: float = 1.0

    def __post_init__(self) -> None:
        named = [kind for kind, _ in self.rates]
        twice = next((kind for i, kind in enumerate(named) if kind in named[:i]), None)
        if twice is not None:
            given = " and ".join(f"{rate:g}" for kind, rate in self.rates if kind == twice)
            raise FaultSpecError(
                f"fault {twice!r} is named twice (rates {given}); name each fault once"
            )
        total = sum(rate for _, rate in self.rates)
        if total > 1.0 + 1e-9:
            raise FaultSpecError(f"fault rates sum to {total:g}, more than 1")
        for name, seconds in (("slow_delay", self.slow_delay), ("retry_after", self.retry_after)):
            problem = seconds_problem(seconds)
            if problem is not None:
                raise FaultSpecError(f"{name}: {problem}")

    @staticmethod
    def parse(spec: str, *, slow_delay: float = 0.2, retry_after: float = 1.0) -> FaultPlan:
        """Rates from ``"429:0.1,500:0.05,slow:0.05"`` (an empty string: no faults)."""
        rates: list[tuple[FaultKind, float]] = []
        for item in spec.split(","):
            item = item.strip()
            if not item:
                continue
            name, sep, value = item.rpartition(":")
            if not sep:
                raise FaultSpecError(f"fault {item!r}: expected NAME:RATE, e.g. 429:0.1")
            rates.append((_kind(name.strip()), _rate(name, value.strip())))
        return FaultPlan(rates=tuple(rates), slow_delay=slow_delay, retry_after=retry_after)

    @staticmethod
    def from_rates(
        rates: Mapping[str, float], *, slow_delay: float = 0.2, retry_after: float = 1.0
    ) -> FaultPlan:
        """Rates from a mapping such as ``{"429": 0.1, "slow": 0.05}``."""
        return FaultPlan(
            rates=tuple((_kind(k), _rate(k, v)) for k, v in rates.items()),
            slow_delay=slow_delay,
            retry_after=retry_after,
        )

    @staticmethod
    def sequence(
        faults: Iterable[str | None], *, slow_delay: float = 0.2, retry_after: float = 1.0
    ) -> FaultPlan:
        """A scripted plan: the n-th request gets the n-th fault, later requests none."""
        return FaultPlan(
            script=tuple(None if f is None else _kind(f) for f in faults),
            slow_delay=slow_delay,
            retry_after=retry_after,
        )

    @staticmethod
    def coerce(value: FaultSpec) -> FaultPlan:
        """A plan from any accepted form: a plan, a rate string, a rate mapping, a sequence."""
        if value is None:
            return FaultPlan()
        if isinstance(value, FaultPlan):
            return value
        if isinstance(value, str):
            return FaultPlan.parse(value)
        if isinstance(value, Mapping):
            return FaultPlan.from_rates(value)
        if not isinstance(value, Iterable):
            raise FaultSpecError(
                "faults: expected rates such as '429:0.1' (text or a mapping), a list of "
                f"faults or a FaultPlan, got {type(value).__name__}"
            )
        return FaultPlan.sequence(value)

    def __bool__(self) -> bool:
        return bool(self.script) or any(rate > 0 for _, rate in self.rates)

    def drawer(self, seed: int) -> FaultDrawer:
        """A fresh drawer applying this plan, seeded with ``seed``."""
        return FaultDrawer(self, seed)


class FaultDrawer:
    """Hands out the fault of each request (not thread-safe)."""

    def __init__(self, plan: FaultPlan, seed: int) -> None:
        self.plan = plan
        self._seed = seed
        self._count = 0
        self._seen = Draws()

    def next(self, route: str, body: bytes) -> FaultKind | None:
        """The fault of the next request, to ``route`` with ``body``, or ``None``: the
        script's next entry while it lasts, then one drawn from the rates (for the JSON
        ``body`` whatever its spelling: :func:`~replaygate.sim.draws.json_form`)."""
        index = self._count
        self._count += 1
        if index < len(self.plan.script):
            return self.plan.script[index]
        if not self.plan.rates:
            return None
        draw = self._seen.counted(request_digest(b"faults", route, body)).rng(self._seed).random()
        for kind, rate in self.plan.rates:
            if draw < rate:
                return kind
            draw -= rate
        return None
