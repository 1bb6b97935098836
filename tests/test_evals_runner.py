"""The eval runner end to end: record the example's cases from the simulator once, then
replay them offline, deterministically; recording is refused without approval."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import sys
import textwrap
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from replaygate.cli.eval_cmds import eval_cmd
from replaygate.errors import FixtureMismatchError, LiveCallNotApproved
from replaygate.evals import (
    AgentEntry,
    AgentLoadError,
    EvalResults,
    History,
    RecordPlan,
    RecordRecipe,
    load_agent,
    load_eval_cases,
    load_eval_results,
    run_eval,
    shipped_prices,
)
from replaygate.evals.cases import EvalCase
from replaygate.evals.errors import AgentRunError
from replaygate.evals.output import checked_run
from replaygate.evals.progress import Bar, Quiet, reporter
from replaygate.evals.ratelimit import RateLimiter, WrappedWireModel, limited
from replaygate.evals.runner import RUN_INFO
from replaygate.examples.research_copilot import (
    SETTINGS,
    ResearchPolicy,
    RunResult,
    Step,
    StepLimitExceeded,
    copilot,
    shipped_eval_cases,
)
from replaygate.fixtures.store import FixtureStore
from replaygate.models.fakes import FunctionModel
from replaygate.models.live import AnthropicModel
from replaygate.models.replay import RequestSettings
from replaygate.models.types import Message, Model, ModelResponse, ToolSpec, Usage
from replaygate.sampling import load_results
from replaygate.sim import Simulator
from sdks import anthropic

SEED = 7
AGENT = "replaygate.examples.research_copilot:copilot"
pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")


@contextlib.contextmanager
def sim_model(url: str) -> Iterator[AnthropicModel]:
    """The example's live model over an ``anthropic`` client of ``url``, closed after the block."""
    with anthropic.Anthropic(base_url=url, api_key="sim-key", max_retries=0) as client:
        yield AnthropicModel(
            client, model=SETTINGS.model, max_tokens=SETTINGS.max_tokens, system=SETTINGS.system
        )


def shipped_cases() -> list[EvalCase]:
    return load_eval_cases(shipped_eval_cases())


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, EvalResults]]:
    """The example's eval cases, 5 samples each, recorded from the simulator."""
    store = tmp_path_factory.mktemp("evals") / "fixtures.jsonl"
    with Simulator(behavior="research-copilot", seed=SEED) as sim, sim_model(sim.url) as live:
        plan = RecordPlan(live, approve_live=True, source="sim")
        results = run_eval(
            shipped_cases(), store, agent=copilot, recording=plan, prices=shipped_prices()
        )
    yield store, results


@pytest.fixture(scope="module")
def replayed(recorded: tuple[Path, EvalResults]) -> EvalResults:
    """The recording replayed once, for the tests that read a replay's results."""
    store, _ = recorded
    return run_eval(shipped_cases(), store, agent=copilot, prices=shipped_prices())


def cases_json(results: EvalResults) -> str:
    return json.dumps(results.to_json()["cases"], ensure_ascii=False, sort_keys=True)


@pytest.mark.slow  # replays the recording the eval runner made (recorded)
def test_replay_reproduces_the_recording_byte_for_byte(
    recorded: tuple[Path, EvalResults], replayed: EvalResults
) -> None:
    store, recording = recorded
    first = replayed
    second = run_eval(shipped_cases(), store, agent=copilot, prices=shipped_prices())
    assert cases_json(first) == cases_json(recording) == cases_json(second)
    assert first.info["mode"] == "replay"
    assert set(RUN_INFO) <= set(first.info)  # what info may not name is what a run writes
    assert recording.info["mode"] == "record-missing"


@pytest.mark.slow  # replays the recording the eval runner made (recorded)
def test_replayed_results_are_scored(replayed: EvalResults) -> None:
    results = replayed
    assert [c.sampled.n for c in results.cases] == [5] * 8
    metrics = results.metrics
    assert 0.0 < metrics["success"] <= 1.0  # type: ignore[operator]
    assert metrics["citation_precision"] == 1.0
    assert 0.5 < metrics["citation_recall"] < 1.0  # type: ignore[operator]  # citations dropped
    assert metrics["fabricated"] == 0.0
    assert metrics["cost"] is not None and metrics["cost"] > 0
    assert metrics["steps"] is not None and metrics["steps"] >= 3
    assert metrics["cost_total"] == pytest.approx(metrics["cost"] * 40)
    assert results.info["prices"]["currency"] == "USD"
    failing = {a.name for c in results.cases for a in c.sampled.failing()}
    assert failing == {"citations"}


@pytest.mark.slow  # replays the recording the eval runner made (recorded)
def test_the_results_file_extends_the_sampling_format(
    replayed: EvalResults, tmp_path: Path
) -> None:
    path = replayed.write(tmp_path / "r.json")
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["format"] == "replaygate.sampling.results"
    assert set(document["metrics"]) >= {"success", "citation_precision", "cost", "steps"}
    first = document["cases"][0]
    assert {"counts", "metrics", "tags", "assertions", "sample_results"} <= set(first)
    assert first["sample_results"][0]["output"]["fetched"] == ["doc-rag"]
    assert len(load_results(path)) == 8  # the sampling reader still reads it
    loaded = load_eval_results(path)
    assert loaded.metrics == document["metrics"]


@pytest.mark.slow  # replays the recording the eval runner made (recorded)
def test_divergent_samples_are_recorded_with_null_for_samples_that_never_sent_them(
    recorded: tuple[Path, EvalResults],
) -> None:
    store, _ = recorded
    with FixtureStore.open(store) as opened:
        fixtures = list(opened)
    assert any(None in f.responses for f in fixtures)
    assert all(f.responses[-1] is not None for f in fixtures)


@pytest.mark.slow  # replays the recording the eval runner made (recorded)
def test_a_request_that_was_never_recorded_fails_loudly(
    recorded: tuple[Path, EvalResults],
) -> None:
    store, _ = recorded
    case = EvalCase("new", "What is a fixture?", 3, 1, must_contain=("fixture",))
    with pytest.raises(FixtureMismatchError) as caught:
        run_eval([case], store, agent=copilot)
    assert "raised in sample 0 of 3 of case new" in caught.value.__notes__
    assert "re-record: `replaygate eval --record-mode record-missing --approve-live`" in str(
        caught.value
    )


def _changed_then_recorded(model: Model, question: str) -> Any:
    """An agent that asks a changed question, and on any error the recorded one instead."""
    try:
        return copilot(model, f"{question} Answer briefly.")
    except Exception:
        return copilot(model, question)


@pytest.mark.slow  # replays the recording the eval runner made (recorded)
@pytest.mark.parametrize(
    "agent",
    [_changed_then_recorded, AgentEntry(copilot, failures=(RuntimeError,))],
    ids=["caught-inside", "declared-failure"],
)
def test_a_miss_the_agent_catches_still_stops_the_eval(
    recorded: tuple[Path, EvalResults], agent: Any
) -> None:
    store, _ = recorded
    case = shipped_cases()[0]
    if isinstance(agent, AgentEntry):  # a question never recorded: the run gives up
        case = EvalCase("new", "What is a fixture?", 3, 1, must_contain=("fixture",))
    with pytest.raises(FixtureMismatchError) as caught:
        run_eval([case], store, agent=agent, settings=SETTINGS)
    assert "the code under test caught this error and went on; a miss must not be hidden" in (
        caught.value.__notes__
    )
    assert f"raised in sample 0 of {case.samples} of case {case.id}" in caught.value.__notes__


def test_replay_of_a_missing_store_says_how_to_record(tmp_path: Path) -> None:
    # it named the flags of `replaygate eval` alone, and its --fixtures, to a caller of
    # run_eval
    with pytest.raises(FileNotFoundError) as caught:
        run_eval(shipped_cases(), tmp_path / "none.jsonl", agent=copilot)
    assert str(caught.value) == (
        f"no fixtures at {tmp_path / 'none.jsonl'}: record them first (`replaygate eval "
        "--record-mode record-missing --approve-live` (with the same cases and fixtures), "
        "or run_eval(..., recording=RecordPlan(...))), or give a recorded store"
    )


def test_replay_of_a_missing_relative_store_names_the_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # run from a notebook, whose working folder is its own (notebooks/), not the project's:
    # "record them first" sent the user to record a second store there
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError) as caught:
        run_eval(shipped_cases(), "evals/fixtures.jsonl", agent=copilot)
    assert str(caught.value).startswith(
        f"no fixtures at evals/fixtures.jsonl (a relative path, read from the working folder, "
        f"{tmp_path}): record them first ("
    )


@pytest.mark.slow  # the eval runner's whole flow
def test_replay_of_an_empty_store_says_how_to_record(tmp_path: Path) -> None:
    # it ended "If the change was meant, re-record: ... Otherwise revert the change."
    store = tmp_path / "empty.jsonl"
    store.touch()
    with pytest.raises(FixtureMismatchError) as caught:
        run_eval(shipped_cases()[:1], store, agent=copilot)
    assert str(caught.value).endswith(
        "the store is empty: record it first (`replaygate eval --record-mode record-missing "
        "--approve-live` (with the same cases and fixtures), or "
        "run_eval(..., recording=RecordPlan(...)))"
    )


class Spy:
    """A live model that counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        self.calls += 1
        return ModelResponse(text="x")


def test_recording_without_approval_is_refused_before_any_call(tmp_path: Path) -> None:
    spy = Spy()
    store = tmp_path / "f.jsonl"
    with pytest.raises(
        LiveCallNotApproved, match=r"needs an explicit approval.*Nothing was called"
    ):
        run_eval(shipped_cases(), store, agent=copilot, recording=RecordPlan(spy, False))
    assert spy.calls == 0
    assert not store.exists()
    with pytest.raises(ValueError, match="mode must be one of"):
        run_eval(shipped_cases(), store, agent=copilot, recording=RecordPlan(spy, True, "live"))
    for concurrency in (0, float("nan"), 2.5, True):  # NaN started no thread: a hang
        with pytest.raises(ValueError, match="concurrency must be a whole number of at least 1"):
            RecordPlan(spy, True, concurrency=concurrency)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="concurrency must be a whole number of at least 1"):
            RecordRecipe(lambda: None, True, concurrency=concurrency)  # type: ignore[arg-type,return-value]
    assert spy.calls == 0


def test_a_run_refuses_info_naming_its_own_fields_an_empty_store_and_odd_jobs(
    tmp_path: Path,
) -> None:
    store = tmp_path / "f.jsonl"
    store.touch()
    for info, named in (
        ({"model": "gpt-4o"}, "'model'"),
        ({"mode": 1, "time": 2}, "'mode', 'time'"),
        ({"gave_up": {}}, "'gave_up'"),  # the history keeps the run's give-ups there
    ):
        with pytest.raises(ValueError, match=f"info names the run's own field\\(s\\) {named}"):
            run_eval(shipped_cases(), store, agent=copilot, info=info)
    with pytest.raises(ValueError, match="store: an empty path"):
        run_eval(shipped_cases(), "", agent=copilot)
    for jobs in (None, 0, 1.0):
        with pytest.raises(ValueError, match="jobs must be a whole number of at least 1"):
            run_eval(shipped_cases(), store, agent=copilot, jobs=jobs)  # type: ignore[arg-type]


def test_a_run_refuses_a_case_id_given_twice_and_info_no_results_hold_before_any_call(
    tmp_path: Path,
) -> None:
    # the calls were made and paid for, then writing the results refused them
    live = FunctionModel(ResearchPolicy().respond)
    recording = RecordPlan(live, approve_live=True)
    store = tmp_path / "f.jsonl"
    case = shipped_cases()[0]
    twice = rf"^cases\[1\]: case '{case.id}' is already at cases\[0\]"
    with pytest.raises(ValueError, match=twice):
        run_eval([case, case], store, agent=copilot, recording=recording)
    with pytest.raises(ValueError, match=r"eval\.build: NaN is not a number JSON can hold"):
        run_eval([case], store, agent=copilot, recording=recording, info={"build": math.nan})
    assert live.calls == [] and not store.exists()


def test_the_cli_refuses_record_mode_without_approve_live(tmp_path: Path) -> None:
    store = tmp_path / "f.jsonl"
    args = ["--fixtures", str(store), "--record-mode", "record-missing", "--simulator"]
    args += ["--agent", AGENT, "--cases", str(shipped_eval_cases())]
    result = CliRunner().invoke(eval_cmd, args)
    assert result.exit_code == 2
    refused = "refusing --record-mode record-missing: mode 'record-missing' records from the"
    assert refused + " loopback simulator: free, but it writes fixtures" in result.output
    assert "needs an explicit approval for this run: add --approve-live" in result.output
    assert "Nothing was called" in result.output
    assert "recording from the simulator at" not in result.output  # none was started
    assert not store.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--approve-live"], "--approve-live only applies with --record-mode"),
        (["--concurrency", "2"], "apply to --record-mode"),
        (["--simulator"], "apply to --record-mode"),
        (["--max-cost", "0"], "--rate-limit and --max-cost apply to --record-mode"),
    ],
)
def test_the_cli_refuses_recording_options_in_replay(
    tmp_path: Path, args: list[str], message: str
) -> None:
    result = CliRunner().invoke(eval_cmd, ["--fixtures", str(tmp_path / "f.jsonl"), *args])
    assert result.exit_code == 2
    assert message in result.output


@pytest.mark.slow
def test_the_cli_replays_writes_results_and_appends_to_the_history(
    recorded: tuple[Path, EvalResults], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, _ = recorded
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CI", "1")
    history = tmp_path / "h.db"
    args = ["--fixtures", str(store), "--out", "r.json", "--history", str(history)]
    args += ["--agent", AGENT, "--cases", str(shipped_eval_cases())]
    for _ in range(2):
        result = CliRunner().invoke(eval_cmd, args)
        assert result.exit_code == 0, result.output
    assert "rag-basics: " in result.output
    assert "cost " in result.output and " USD" in result.output
    assert (tmp_path / "r.json").is_file()
    with History.open(history) as opened:
        assert len(opened) == 2
    missing = CliRunner().invoke(eval_cmd, ["--no-history"])
    assert missing.exit_code == 2
    assert "no fixture store: pass --fixtures" in missing.output


@pytest.mark.slow  # replays the recording the eval runner made (recorded)
def test_the_cli_reports_a_mismatch_as_an_error(
    recorded: tuple[Path, EvalResults], tmp_path: Path
) -> None:
    store, _ = recorded
    cases = tmp_path / "cases.jsonl"
    record = {"id": "x", "question": "Unrecorded?", "must_contain": ["a"], "samples": 3, "floor": 2}
    cases.write_text(json.dumps(record) + "\n", encoding="utf-8")
    args = ["--fixtures", str(store), "--cases", str(cases), "--no-history", "--agent", AGENT]
    result = CliRunner().invoke(eval_cmd, args)
    assert result.exit_code == 2
    assert "Error: no fixture recorded for this request" in result.output


@pytest.mark.slow  # replays the recording the eval runner made (recorded)
def test_a_model_without_a_price_fails_before_any_call_unless_cases_opt_out(
    recorded: tuple[Path, EvalResults], tmp_path: Path
) -> None:
    store, _ = recorded
    euros = tmp_path / "prices.toml"
    euros.write_text('currency = "EUR"\n"other-model" = { input = 1.0, output = 2.0 }\n')
    args = ["--fixtures", str(store), "--no-history", "--agent", AGENT, "--prices", str(euros)]
    unpriced = CliRunner().invoke(eval_cmd, [*args, "--cases", str(shipped_eval_cases())])
    assert unpriced.exit_code == 2
    assert f"Error: no price for model 'claude-sonnet-4-6' in {euros}" in unpriced.output
    assert "rag-basics" not in unpriced.output  # refused before any case ran
    cases = tmp_path / "cases.jsonl"
    lines = shipped_eval_cases().read_text(encoding="utf-8").splitlines()
    opted = [json.dumps({**json.loads(line), "cost": False}) for line in lines if line.strip()]
    cases.write_text("\n".join(opted) + "\n", encoding="utf-8")
    out = tmp_path / "r.json"
    result = CliRunner().invoke(eval_cmd, [*args, "--cases", str(cases), "--out", str(out)])
    assert result.exit_code == 0, result.output
    written = json.loads(out.read_text(encoding="utf-8"))
    assert all(case["counts"]["cost_skipped"] for case in written["cases"])
    assert written["metrics"]["cost"] is None


@pytest.mark.slow
def test_concurrent_recording_with_a_rate_limit_replays_identically(tmp_path: Path) -> None:
    store = tmp_path / "f.jsonl"
    cases = shipped_cases()[:4]
    with Simulator(behavior="research-copilot", seed=3) as sim, sim_model(sim.url) as live:
        plan = RecordPlan(live, approve_live=True, source="sim", concurrency=3, rate_limit=500.0)
        recorded = run_eval(cases, store, agent=copilot, recording=plan)
    replayed = run_eval(cases, store, agent=copilot)
    assert cases_json(replayed) == cases_json(recorded)
    assert [c.id for c in replayed.cases] == [c.id for c in cases]


def test_the_rate_limiter_spaces_calls() -> None:
    now = [0.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)

    limiter = RateLimiter(4.0, clock=lambda: now[0], sleep=sleep)
    waits = [limiter.acquire() for _ in range(3)]
    assert waits == [0.0, 0.25, 0.5]
    assert slept == [0.25, 0.5]
    now[0] = 10.0
    assert limiter.acquire() == 0.0
    with pytest.raises(ValueError, match="must be a positive"):
        RateLimiter(0)


def test_the_rate_limiter_is_shared_across_threads() -> None:
    # a clock that stands still: each of the 20 calls of 4 threads gets a slot of its own,
    # 5 ms after the one before, whatever order the threads take them in
    slept: list[float] = []
    limiter = RateLimiter(200.0, clock=lambda: 0.0, sleep=slept.append)
    waits: list[float] = []
    lock = threading.Lock()

    def work() -> None:
        for _ in range(5):
            wait = limiter.acquire()
            with lock:
                waits.append(wait)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(waits) == pytest.approx([i * 0.005 for i in range(20)])
    assert sorted(slept) == pytest.approx([i * 0.005 for i in range(1, 20)])


def test_a_limited_model_keeps_its_wire_method() -> None:
    limiter = RateLimiter(1000.0)
    plain = FunctionModel(lambda messages, tools: ModelResponse(text="ok"))
    assert limited(plain, None) is plain
    assert not isinstance(limited(plain, limiter), WrappedWireModel)
    # the example's live model, over a client it is never asked to call (an SDK client
    # costs the import of the SDK)
    wire = AnthropicModel(
        object(), model=SETTINGS.model, max_tokens=SETTINGS.max_tokens, system=SETTINGS.system
    )
    assert isinstance(limited(wire, limiter), WrappedWireModel)


def test_progress_is_quiet_in_ci_and_off_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    assert isinstance(reporter(3), Quiet)
    monkeypatch.delenv("CI")
    assert isinstance(reporter(3), Quiet)  # pytest's stderr is not a terminal
    with reporter(2, enabled=True) as bar:
        assert isinstance(bar, Bar)
        bar.case_done("a", "pass")


@pytest.mark.slow  # replays the recording the eval runner made (recorded)
def test_an_agent_that_gives_up_fails_its_sample_without_stopping_the_run(
    recorded: tuple[Path, EvalResults],
) -> None:
    store, _ = recorded
    calls = [0]

    def gives_up(model: Model, question: str) -> Any:
        calls[0] += 1
        raise StepLimitExceeded(8, question, None)

    agent = AgentEntry(gives_up, SETTINGS, failures=(StepLimitExceeded,))
    case = EvalCase("c", "q", 3, 2, must_contain=("x",), expected_doc_ids=("doc-x",))
    results = run_eval([case], store, agent=agent)
    (only,) = results.cases
    assert calls[0] == 3
    assert only.sampled.verdict == "block"
    assert only.sampled.samples[0].output["error"].startswith("StepLimitExceeded: no final answer")
    assert results.metrics["citation_recall"] == 0.0
    assert results.metrics["citation_precision"] is None


def test_agents_load_by_module_and_function(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = tmp_path / "my_agent.py"
    module.write_text(
        textwrap.dedent(
            """
            from replaygate.examples.research_copilot import build_registry, run

            def agent(model, question):
                return run(model, build_registry(), question)

            NOT_CALLABLE = 3
            """
        ),
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    loaded = load_agent("my_agent:agent")
    assert isinstance(loaded, AgentEntry)
    assert (loaded.settings, loaded.failures) == (None, ())
    assert load_agent(AGENT) is copilot
    for spec, message in [
        ("my_agent", "expected 'package.module:function'$"),
        ("my_agent.agent", "expected 'package.module:function': did you mean 'my_agent:agent'"),
        ("no_such_module_xyz:agent", "cannot import 'no_such_module_xyz'"),
        ("my_agent:missing", "has no attribute 'missing'"),
        ("my_agent:NOT_CALLABLE", "is not callable"),
    ]:
        with pytest.raises(AgentLoadError, match=message):
            load_agent(spec)
    sys.modules.pop("my_agent", None)


@pytest.mark.slow  # replays the recording the eval runner made (recorded)
def test_settings_are_the_recorded_ones(recorded: tuple[Path, EvalResults]) -> None:
    store, _ = recorded
    other = RequestSettings("another-model", SETTINGS.max_tokens, SETTINGS.system)
    with pytest.raises(FixtureMismatchError):
        run_eval(shipped_cases()[:1], store, agent=copilot, settings=other)


@pytest.mark.parametrize(
    ("step", "problem"),
    [
        ({"kind": "thought"}, "its kind is 'thought'"),
        ({"is_error": "no"}, "its is_error is a str ('no')"),
        ({"result": {"doc_id": "d"}}, "its result is a dict ({'doc_id': 'd'})"),
        ({"tool_call": "search"}, "its tool_call is a str ('search')"),
    ],
)
def test_a_step_that_is_no_trace_step_is_named_with_its_index(
    step: dict[str, Any], problem: str
) -> None:
    good = Step("answer", "the answer")
    run = RunResult("the answer", (good, dataclasses.replace(good, **step)), (), Usage(1, 1))
    with pytest.raises(AgentRunError) as refused:
        checked_run(run, "mine:answer")
    assert str(refused.value).startswith(
        "the agent mine:answer returned a run result whose steps[1] is a Step (Step("
    )
    assert f"not a trace step ({problem}): a trace step is an object with kind" in str(
        refused.value
    )
    assert checked_run(RunResult("the answer", (good,), (), Usage(1, 1)), "mine:answer")


@pytest.mark.parametrize(
    ("fields", "problem", "must"),
    [
        ({"usage": None}, "usage is None", "usage must be the tokens of the run, an object"),
        (
            {"usage": {"input_tokens": 1, "output_tokens": 1}},
            "usage is a dict ({'input_tokens': 1, 'output_tokens': 1})",
            "a dict of the two counts is not one: return Usage(**counts)",
        ),
        ({"steps": iter(())}, "steps is a tuple_iterator", "a generator or an iterator is used"),
        ({"steps": (s for s in ())}, "steps is a generator", "return list(...) of it"),
        ({"final": None}, "final is None", "final must be the answer, a string"),
    ],
)
def test_a_run_result_with_a_wrong_field_is_named_with_the_field(
    fields: dict[str, Any], problem: str, must: str
) -> None:
    good = RunResult("the answer", (), (), Usage(1, 1))
    run = dataclasses.replace(good, **fields)
    with pytest.raises(AgentRunError) as refused:
        checked_run(run, "mine:answer")
    said = str(refused.value)
    assert said.startswith("the agent mine:answer returned a RunResult (RunResult("), said
    assert f"not a run result ({problem}" in said and must in said, said
    # each wrong field is named
    both = dataclasses.replace(good, final=None, usage=None)
    with pytest.raises(AgentRunError, match=r"\(final is None, usage is None\): final must be"):
        checked_run(both)


@pytest.mark.slow  # the eval runner's whole flow
def test_a_miss_of_an_eval_is_shown_through_the_agent_s_frames_alone(tmp_path: Path) -> None:
    # In a notebook, a miss of run_eval was shown through 14 frames, a dozen of them the
    # runner's (run_cases, run_sampled, call_agent, ...) between the cell and the agent:
    # IPython and pytest leave out the frames that say __tracebackhide__.
    store = tmp_path / "rc.jsonl"
    store.touch()
    case = EvalCase("new", "What is a fixture?", 3, 1, must_contain=("fixture",))
    with pytest.raises(FixtureMismatchError) as caught:
        run_eval([case], store, agent=copilot)
    shown = []
    at = caught.value.__traceback__
    while at is not None:
        code, hidden = at.tb_frame.f_code, at.tb_frame.f_locals.get("__tracebackhide__")
        if "/replaygate/" in code.co_filename and "/examples/" not in code.co_filename:
            shown += [] if hidden else [code.co_qualname]
        at = at.tb_next
    assert shown == []
