"""patrol takes a fixture's age from its oldest answer: a sample line appended today (a
request sent once more than recorded, under record-missing) does not hide that the first
answer, the one replay serves first, is two years old."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from replaygate import FixtureStore
from replaygate.fixtures.store import record_response
from replaygate.fixtures.store.compact import compact_file
from replaygate.http import Exchange, httpx2_client
from replaygate.hygiene.patrol import patrol
from replaygate.hygiene.stored import each_fixture_metas
from replaygate.sim import Simulator
from sdks import anthropic
from test_store import META, fixture, request, response, write_lines
from test_store_samples import add

HI = [{"role": "user", "content": "hi"}]


def ask(sim: Simulator, store: Path, times: int) -> None:
    """A session that sends the same request ``times`` times, recording what is missing."""
    exchange = Exchange(store, mode="record-missing", approve_live=True, source="sim")
    with anthropic.Anthropic(
        api_key="k", base_url=sim.url, http_client=httpx2_client(exchange)
    ) as client:
        for _ in range(times):
            client.messages.create(model="m", max_tokens=16, messages=HI)


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_sample_added_today_does_not_make_an_old_fixture_fresh(tmp_path: Path) -> None:
    store = tmp_path / "s.jsonl"
    with Simulator(behavior="echo") as sim:
        ask(sim, store, 1)
        line = json.loads(store.read_text())
        line["meta"]["recorded_at"] = "2025-01-01T00:00:00Z"  # recorded two years ago
        store.write_text(json.dumps(line, separators=(",", ":")) + "\n")
        ask(sim, store, 2)  # the second send is recorded as sample 1, on a line of its own
    assert len(store.read_text().splitlines()) == 2
    result = patrol(store, max_age=timedelta(days=90), runs=5, refs=[], hits_dir=tmp_path / "h")
    (row,) = result.rows
    assert row.recorded_at == datetime(2025, 1, 1, tzinfo=UTC)
    assert row.stale


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_first_answer_dated_by_no_time_is_of_unknown_age_not_its_sample_s(
    tmp_path: Path,
) -> None:
    """The first answer's recorded_at was edited into no time: the fixture's age is
    unknown (named as such), not the age of the sample appended today."""
    store = tmp_path / "s.jsonl"
    with Simulator(behavior="echo") as sim:
        ask(sim, store, 1)
        line = json.loads(store.read_text())
        line["meta"]["recorded_at"] = "2025-13-45T00:00:00Z"
        store.write_text(json.dumps(line, separators=(",", ":")) + "\n")
        ask(sim, store, 2)
    result = patrol(store, max_age=timedelta(days=90), runs=5, refs=[], hits_dir=tmp_path / "h")
    (row,) = result.rows
    assert (row.recorded_at, row.age, row.misdated) == (None, None, True)


def test_the_sample_lines_are_read_from_the_file_indexed_while_a_recording_rewrites_it(
    tmp_path: Path,
) -> None:
    # patrol ended in a traceback (orjson.JSONDecodeError) beside a re-recording session:
    # the meta of each sample line was read from the store's path again, at the offsets
    # of the file it had indexed, after a rewrite had moved every line
    store = tmp_path / "s.jsonl"
    write_lines(store, fixture(0), fixture(1))
    add(store, "question 1", 1, "second")
    read = each_fixture_metas(store)
    assert next(read)[1].key == fixture(0).key
    with FixtureStore.open(store) as recorder:
        recorder.put(fixture(0, "a longer answer " * 40), replace=True)
    ((_, second, metas),) = list(read)
    assert second.key == fixture(1).key and len(metas) == 2
    assert all(meta == META for meta in metas)


def test_an_answer_recorded_again_dates_the_fixture_as_compact_dates_it(tmp_path: Path) -> None:
    # a sample line that recorded a fixture's one answer again, today, left the fixture
    # STALE by the date of the answer it replaced, and fresh once compact folded the line
    store = tmp_path / "s.jsonl"
    write_lines(store, fixture(0), fixture(1))
    today = {**META, "recorded_at": "2026-12-01T00:00:00Z"}
    with FixtureStore.open(store) as recorder:
        record_response(recorder, request("question 0"), response("again"), sample=0, meta=today)
        record_response(recorder, request("question 1"), response("more"), sample=1, meta=today)

    def dated() -> dict[str, datetime | None]:
        now = datetime(2026, 12, 2, tzinfo=UTC)
        found = patrol(store, runs=5, refs=[], hits_dir=tmp_path / "h", now=now)
        return {row.key: row.recorded_at for row in found.rows}

    before = dated()
    assert before == {
        fixture(0).key: datetime(2026, 12, 1, tzinfo=UTC),  # its one answer is today's
        fixture(1).key: datetime(2025, 1, 1, tzinfo=UTC),  # its first answer is still old
    }
    compact_file(store)
    assert dated() == before
