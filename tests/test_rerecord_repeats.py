"""Recording anew (mode ``rerecord``) leaves a fixture holding exactly the answers the run
recorded: a request sent k times where an earlier recording sent it m > k times keeps no
answer k+1..m of the old recording, which a later replay would serve mixed with the new
ones (law 1: the n-th identical request gets the n-th answer of one recording)."""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from replaygate import FixtureMismatchError, Message, ModelResponse, ToolSpec
from replaygate.errors import StoreWriteError
from replaygate.fixtures import hits
from replaygate.fixtures.session import FixtureSession, Repeat
from replaygate.fixtures.store import FixtureStore
from replaygate.http import httpx2_client
from replaygate.models.fakes import ScriptedModel
from replaygate.models.live import AnthropicModel
from replaygate.models.replay import RecordingModel, ReplayModel
from replaygate.sim import Simulator
from sdks import anthropic

SETTINGS: dict[str, Any] = {"model": "claude-sonnet-4-6", "max_tokens": 64}
ASK = (Message.user("Pick a number."),)
WIRE_ASK = [{"role": "user", "content": "Pick a number."}]


class Counting:
    """A simulator behaviour answering every request with the next number."""

    def __init__(self) -> None:
        self.asked = 0

    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        self.asked += 1
        return ModelResponse(text=f"number {self.asked}")


@pytest.fixture()
def sim() -> Iterator[Simulator]:
    with Simulator(behavior=Counting()) as running:
        yield running


def recorder(sim: Simulator, store: Path, mode: str, sample: int = 0) -> RecordingModel:
    """A model recording the simulator's answers over the Anthropic SDK in ``mode``."""
    client = anthropic.Anthropic(api_key="k", base_url=sim.url, max_retries=0)
    live = AnthropicModel(client, **SETTINGS)
    return RecordingModel(
        live, store, approve_live=True, mode=mode, sample=sample, source="sim", **SETTINGS
    )


def texts(store: Path) -> list[str | None]:
    """The text of each answer of the store's one fixture (None: no answer there)."""
    (fixture,) = FixtureStore.open(store)
    return [r["content"][0]["text"] if r else None for r in fixture.responses]


def bodies(store: Path) -> list[str]:
    """The text of each HTTP answer of the store's one fixture."""
    (fixture,) = FixtureStore.open(store)
    return [r["body"]["content"][0]["text"] for r in fixture.responses]


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_model_rerecording_fewer_repeats_keeps_only_its_own(
    sim: Simulator, tmp_path: Path
) -> None:
    store = tmp_path / "votes.jsonl"
    first = recorder(sim, store, "record-missing")
    assert [first.complete(ASK, ()).text for _ in range(3)] == ["number 1", "number 2", "number 3"]
    again = recorder(sim, store, "rerecord")
    assert again.complete(ASK, ()).text == "number 4"
    assert texts(store) == ["number 4"]  # not number 4, number 2, number 3
    replay = ReplayModel(store, **SETTINGS)
    assert replay.complete(ASK, ()).text == "number 4"
    with pytest.raises(FixtureMismatchError, match="recorded 1 time and sent 2 times"):
        replay.complete(ASK, ())  # a miss, not an answer of the old recording


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_sessions_of_one_run_keep_each_others_answers(tmp_path: Path) -> None:
    # two clients (two tests, say) of one rerecord run send the same request, the first
    # twice: the second is answered from what the run recorded anew, as record-missing
    # answers it, where it was sent again and its answer replaced the first one's, which
    # the first test's conversation had gone on from (its replay then missed)
    store = tmp_path / "two.jsonl"
    with Simulator(behavior=Counting()) as sim:
        for run, mode, sessions in (
            ("run-1", "record-missing", [3]),
            ("run-2", "rerecord", [2, 1]),
        ):
            with hits.used(hits.HitLog(tmp_path / "hits", run)):
                for sends in sessions:
                    with httpx2_client(store, mode, approve_live=True, base_url=sim.url) as http:
                        client = anthropic.Anthropic(
                            api_key="k", base_url=sim.url, http_client=http
                        )
                        for _ in range(sends):
                            client.messages.create(model="m", max_tokens=8, messages=WIRE_ASK)
        assert len(sim.requests) == 3 + 2  # the third send of run-2 went nowhere
    assert bodies(store) == ["number 4", "number 5"]


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_second_run_in_one_process_records_anew_again(sim: Simulator, tmp_path: Path) -> None:
    store = tmp_path / "runs.jsonl"
    for run, sends in (("run-1", 2), ("run-2", 1)):
        with hits.used(hits.HitLog(tmp_path / "hits", run)):
            model = recorder(sim, store, "rerecord")
            for _ in range(sends):
                model.complete(ASK, ())
    assert texts(store) == ["number 3"]


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_rerecorded_samples_keep_only_this_runs(sim: Simulator, tmp_path: Path) -> None:
    store = tmp_path / "samples.jsonl"
    for sample in range(3):
        recorder(sim, store, "record-missing", sample).complete(ASK, ())
    with hits.used(hits.HitLog(tmp_path / "hits", "rerecord-run")):
        for sample in (1, 0):  # in any order: a sample stored first keeps its index
            recorder(sim, store, "rerecord", sample).complete(ASK, ())
    assert texts(store) == ["number 5", "number 4"]
    with pytest.raises(FixtureMismatchError, match="no response for sample 2"):
        ReplayModel(store, sample=2, **SETTINGS).complete(ASK, ())


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_rerecord_that_stops_early_leaves_no_old_answer_behind(tmp_path: Path) -> None:
    # the run fails at its second send: the fixture holds the first answer recorded
    # anew, whole, and a replay's second send is a loud miss, not the old second answer
    store = tmp_path / "cut.jsonl"
    with Simulator(behavior=Counting()) as sim:
        old = recorder(sim, store, "record-missing")
        for _ in range(2):
            old.complete(ASK, ())
        again = recorder(sim, store, "rerecord")
        again.complete(ASK, ())
    with pytest.raises(anthropic.APIConnectionError):
        again.complete(ASK, ())  # the simulator is gone: the run stops here
    assert texts(store) == ["number 3"]
    replay = ReplayModel(store, **SETTINGS)
    assert replay.complete(ASK, ()).text == "number 3"
    with pytest.raises(FixtureMismatchError, match="recorded 1 time and sent 2 times"):
        replay.complete(ASK, ())


def _sends(store: Path, url: str, sends: int) -> None:
    """``sends`` identical requests recorded anew to ``store`` by one client."""
    with httpx2_client(store, "rerecord", approve_live=True, base_url=url) as http:
        client = anthropic.Anthropic(api_key="k", base_url=url, http_client=http)
        for _ in range(sends):
            client.messages.create(model="m", max_tokens=8, messages=WIRE_ASK)


@pytest.mark.slow  # forks a process
def test_processes_of_one_run_keep_each_others_answers(tmp_path: Path) -> None:
    # an xdist worker (here a forked process) records the request twice, another once,
    # in one run: the second is answered from what the first recorded anew
    store = tmp_path / "workers.jsonl"
    with Simulator(behavior=Counting()) as sim:
        with hits.used(hits.HitLog(tmp_path / "hits", "run-1")):
            _sends(store, sim.url, 3)  # an earlier recording: three answers
        with hits.used(hits.HitLog(tmp_path / "hits", "run-2")):
            worker = multiprocessing.get_context("fork").Process(
                target=_sends, args=(store, sim.url, 2)
            )
            worker.start()
            worker.join()
            assert worker.exitcode == 0
            _sends(store, sim.url, 1)
        assert len(sim.requests) == 3 + 2
    assert bodies(store) == ["number 4", "number 5"]
    assert (tmp_path / "hits" / "run-2.rerecorded").is_file()


def test_notes_that_cannot_be_kept_stop_the_write(tmp_path: Path) -> None:
    store = tmp_path / "kept.jsonl"
    blocked = tmp_path / "hits"
    blocked.write_text("a file where the hits log's folder goes")
    live = ScriptedModel([ModelResponse(text="new")])
    recorder = RecordingModel(live, store, approve_live=True, mode="rerecord", **SETTINGS)
    with hits.used(hits.HitLog(blocked, "run-1")), pytest.raises(StoreWriteError) as caught:
        recorder.complete(ASK, ())
    assert str(caught.value).startswith(f"{blocked / 'run-1.rerecorded'}: cannot note what")
    assert not store.exists()  # nothing written


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_model_of_a_run_replays_what_another_recorded_anew(
    sim: Simulator, tmp_path: Path
) -> None:
    # two eval cases asking one question: the second was sent again and its answer took
    # the first's place, so the first case's results described an answer no longer stored
    store = tmp_path / "asked twice.jsonl"
    with hits.used(hits.HitLog(tmp_path / "hits", "run-1")):
        recorder(sim, store, "record-missing").complete(ASK, ())
    with hits.used(hits.HitLog(tmp_path / "hits", "run-2")):
        first = recorder(sim, store, "rerecord").complete(ASK, ()).text
        second = recorder(sim, store, "rerecord").complete(ASK, ()).text
    assert (first, second) == ("number 2", "number 2")
    assert texts(store) == ["number 2"] and len(sim.requests) == 2
    with hits.used(hits.HitLog(tmp_path / "hits", "run-3")):  # a run of its own: anew
        assert recorder(sim, store, "rerecord").complete(ASK, ()).text == "number 3"


SHARED_FIRST_REQUEST = """
import pytest


@pytest.mark.replaygate(fixtures="shared.jsonl")
@pytest.mark.parametrize("i", range(3))
def test_follow_up(anthropic_client, i):
    client = anthropic_client(max_retries=0)
    first = client.messages.create(
        model="m", max_tokens=8, messages=[{"role": "user", "content": "What is RAG?"}]
    )
    follow = [{"role": "user", "content": f"Regarding {first.id}: and test {i}?"}]
    assert client.messages.create(model="m", max_tokens=8, messages=follow).content
"""


@pytest.mark.slow  # pytest sessions of its own
def test_tests_sharing_a_first_request_replay_what_a_rerecord_run_recorded(
    pytester: pytest.Pytester,
) -> None:
    # each test's follow-up quotes the first answer's id: the rerecord run was green and
    # the replay after it failed every test but the last, whose first answer was kept
    pytester.makepyfile(test_shared=SHARED_FIRST_REQUEST)
    record = ["--replaygate-approve-live", "--replaygate-simulator=echo"]
    for mode in ("record-missing", "rerecord"):
        pytester.runpytest(f"--replaygate-record-mode={mode}", *record).assert_outcomes(passed=3)
        pytester.runpytest().assert_outcomes(passed=3)


def test_an_answer_another_process_of_the_run_recorded_anew_meanwhile_is_kept(
    tmp_path: Path,
) -> None:
    # pytest-xdist workers sending one request at once each go live before any stores its
    # answer: the first stored is kept, as record-missing keeps it, where each later one
    # replaced it and tests that had passed on it replayed an answer they never saw
    store = tmp_path / "shared.jsonl"
    request = {**SETTINGS, "messages": WIRE_ASK}
    first, second = (
        FixtureSession(store, mode="rerecord", approve_live=True, source="sim") for _ in range(2)
    )

    def answer(text: str) -> dict[str, Any]:
        return {
            "id": "msg_1", "type": "message", "role": "assistant", "model": SETTINGS["model"],
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
            "stop_sequence": None, "usage": {"input_tokens": 3, "output_tokens": 2},
        }  # fmt: skip

    for session, text in ((first, "number 1"), (second, "number 2")):
        meta = session.meta("anthropic.messages", "2023-06-01", "sim")
        session.record(request, answer(text), Repeat(0), interface="anthropic.messages", meta=meta)
    assert texts(store) == ["number 1"]
    assert (first.recorded, second.recorded, second.not_kept) == (1, 0, 1)
