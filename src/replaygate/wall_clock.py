"""The present by the system's clock, which a test's frozen or travelling clock does not
move (freezegun, time-machine): what replaygate writes down as the time something
happened (a fixture's ``meta.recorded_at``, a hit, a run of the history, an observation
queued) is when it happened, not the date the test pretends it is, and it is compared
with a present read the same way; and a wait is timed by a clock that runs while
freezegun has stopped ``time.monotonic``."""

from __future__ import annotations

import sys
import time
from datetime import UTC, datetime


def wall_seconds() -> float:
    """Seconds since the epoch by the system's clock, whatever time-machine's travel or
    freezegun's ``freeze_time`` make ``time.time()`` say."""
    hatch = getattr(sys.modules.get("time_machine"), "escape_hatch", None)
    if hatch is not None and hatch.is_travelling():  # it moves clock_gettime too
        return float(hatch.time.time())
    clock = getattr(time, "clock_gettime", None)  # freezegun replaces time.time only
    if clock is not None:
        return float(clock(time.CLOCK_REALTIME))
    frozen = getattr(sys.modules.get("freezegun.api"), "real_time", None)
    return float(frozen() if frozen is not None else time.time())


def wall_now() -> datetime:
    """The present in UTC by the system's clock (:func:`wall_seconds`)."""
    return datetime.fromtimestamp(wall_seconds(), UTC)


def steady_seconds() -> float:
    """Seconds of a clock that only goes forward, to time a wait: the system's monotonic
    clock, whatever freezegun's ``freeze_time`` makes ``time.monotonic()`` say."""
    clock = getattr(time, "clock_gettime", None)  # freezegun replaces time.monotonic only
    if clock is not None:
        return float(clock(time.CLOCK_MONOTONIC))
    frozen = getattr(sys.modules.get("freezegun.api"), "real_monotonic", None)
    return float(frozen() if frozen is not None else time.monotonic())
