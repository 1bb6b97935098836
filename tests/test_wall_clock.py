"""What replaygate writes down as the time something happened is read from the system's
clock, not from a test's frozen or travelling one (freezegun, time-machine): a fixture
recorded, a hit noted or a run begun in a test under ``freeze_time("2020-01-01")`` is
dated today, so ``patrol --max-age`` does not take it for years old."""

from __future__ import annotations

import sys
import time
import types
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from replaygate.fixtures import hits
from replaygate.fixtures.fixture import make_meta, now_iso
from replaygate.sim import FaultPlan, Simulator
from replaygate.wall_clock import wall_now, wall_seconds

FROZEN = datetime(2020, 1, 1, tzinfo=UTC).timestamp()


@pytest.fixture
def frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    """``time.time`` stopped at 2020-01-01, as freezegun's ``freeze_time`` stops it."""
    monkeypatch.setattr(time, "time", lambda: FROZEN)
    monkeypatch.setattr(time, "time_ns", lambda: int(FROZEN * 1e9))


def test_a_frozen_clock_leaves_recorded_times_at_the_present(frozen: None, tmp_path: Path) -> None:
    this_year = str(datetime.now(UTC).year)
    assert now_iso().startswith(this_year)
    assert make_meta("openai.chat.completions", "v1", "sim")["recorded_at"].startswith(this_year)
    assert hits.new_run_id().startswith(this_year)
    log = hits.HitLog(tmp_path / "hits", "run-1")
    log.note("s.jsonl", "abc")
    log.flush()
    assert [hit.time[:4] for hit in hits.read_hits(tmp_path / "hits")] == [this_year]


def test_a_travelling_time_machine_is_read_through_its_escape_hatch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = time.time()
    travelling = [True]
    hatch = types.SimpleNamespace(
        is_travelling=lambda: travelling[0],
        time=types.SimpleNamespace(time=lambda: real),
    )
    monkeypatch.setitem(sys.modules, "time_machine", types.SimpleNamespace(escape_hatch=hatch))
    monkeypatch.setattr(time, "clock_gettime", lambda clock: FROZEN)  # as time-machine moves it
    assert wall_seconds() == real
    assert wall_now().timestamp() == pytest.approx(real)
    travelling[0] = False  # its hatch refuses to be read then: the system's clock is
    assert wall_seconds() == FROZEN


def test_the_simulator_ends_a_slow_reply_s_pause_while_time_monotonic_is_frozen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """freezegun stops ``time.monotonic``, which asyncio's loops read: the in-process
    simulator's pause before a slow reply never ended, and the client timed out."""
    question = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}
    with Simulator(
        behavior="echo", faults=FaultPlan.from_rates({"slow": 1.0}, slow_delay=0.01)
    ) as sim:
        monkeypatch.setattr(time, "monotonic", lambda: 1.0)
        reply = httpx.post(
            f"{sim.url}/v1/chat/completions",
            json=question,
            headers={"authorization": "Bearer k"},
            timeout=3,
        )
        monkeypatch.undo()
    assert reply.json()["choices"][0]["message"]["content"] == "echo: hi"
