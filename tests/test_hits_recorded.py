"""What a run records is logged as played by it, as what it replays is: after recording
the answers to a changed question (a test session or ``eval --record-mode
record-missing``), ``prune --unused`` offers the old question's fixtures, not the new."""

from __future__ import annotations

from pathlib import Path

import pytest

from replaygate.fixtures import hits
from replaygate.fixtures.store import FixtureStore
from replaygate.http import httpx2_client
from replaygate.sim import Simulator
from sdks import anthropic

pytestmark = pytest.mark.slow  # each test: records through an SDK from the simulator and replays


def test_a_recorded_fixture_is_logged_as_played_by_the_run_that_recorded_it(
    tmp_path: Path,
) -> None:
    store = tmp_path / "tests" / "fixtures" / "plan.jsonl"
    previous = hits.active()
    hits.enable(tmp_path / "hits", run="20261203T000000Z-0001", root=tmp_path)
    try:
        with (
            Simulator(behavior="echo") as sim,
            httpx2_client(store, "record-missing", approve_live=True) as http,
            anthropic.Anthropic(api_key="k", base_url=sim.url, http_client=http) as client,
        ):
            client.messages.create(
                model="m", max_tokens=8, messages=[{"role": "user", "content": "new question"}]
            )
    finally:
        hits.use(previous)
    [fixture] = FixtureStore.open(store)
    logged = [(h.store, h.key) for h in hits.read_hits(tmp_path / "hits")]
    assert logged == [("tests/fixtures/plan.jsonl", fixture.key)]
