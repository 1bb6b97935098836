"""Real agent runs scored as they happened: a run that gives up is charged for the model
calls it made, and a document fetched under an id not in NFKC form is the one its answer
cites."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from replaygate.errors import LiveSendFailedWarning
from replaygate.evals import AgentEntry, RecordPlan, load_eval_cases, run_eval, shipped_prices
from replaygate.evals.cases import EvalCase
from replaygate.evals.errors import AgentRunError
from replaygate.examples.research_copilot import (
    SETTINGS,
    RunResult,
    Step,
    StepLimitExceeded,
    build_registry,
    run,
    shipped_eval_cases,
)
from replaygate.examples.research_copilot.defaults import shipped_fixtures
from replaygate.models.fakes import ScriptedModel
from replaygate.models.replay import ReplayModel
from replaygate.models.types import Message, Model, ModelResponse, ToolCall, ToolSpec, Usage
from replaygate.sim import Simulator
from test_evals_runner import sim_model

# Its tests import the provider SDKs through replaygate (the example agent, sim_model).

pytestmark = [
    pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::replaygate.sampling.SamplingWarning"),
]


def _limited(max_steps: int) -> AgentEntry:
    """ResearchCopilot giving up after ``max_steps`` model calls."""

    def answer(model: Model, question: str) -> RunResult:
        return run(model, build_registry(), question, max_steps=max_steps)

    return AgentEntry(answer, SETTINGS, failures=(StepLimitExceeded,))


def _first_cases(count: int) -> list[EvalCase]:
    """The shipped eval cases' first ``count``, one sample each (as the shipped
    fixtures hold them)."""
    cases = load_eval_cases(shipped_eval_cases())[:count]
    return [dataclasses.replace(c, samples=1, floor=1) for c in cases]


class _Counting:
    """A model that adds up the usage and the tool calls of the answers it passes on."""

    def __init__(self, inner: Model) -> None:
        self.inner = inner
        self.tokens = [0, 0]
        self.tool_calls = 0

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        response = self.inner.complete(messages, tools)
        self.tokens[0] += response.usage.input_tokens
        self.tokens[1] += response.usage.output_tokens
        self.tool_calls += len(response.tool_calls)
        return response


@pytest.mark.slow  # the eval runner's whole flow
def test_a_run_that_gives_up_is_charged_for_the_calls_it_made() -> None:
    cases = _first_cases(2)
    results = run_eval(cases, shipped_fixtures(), agent=_limited(2), prices=shipped_prices())
    for case, result in zip(cases, results.cases, strict=True):
        (sample,) = result.sampled.samples
        assert sample.output["error"].startswith("StepLimitExceeded")
        counted = _Counting(ReplayModel(shipped_fixtures(), **dataclasses.asdict(SETTINGS)))
        with pytest.raises(StepLimitExceeded):
            run(counted, build_registry(), case.question, max_steps=2)
        assert counted.tokens[0] > 0 and counted.tool_calls == 2
        assert [sample.output["input_tokens"], sample.output["output_tokens"]] == counted.tokens
        assert sample.output["steps"] == 2  # a tool step per tool call asked for
        assert result.counts.cost is not None and result.counts.cost > 0
    metrics = results.metrics
    spent = [c.counts.input_tokens + c.counts.output_tokens for c in results.cases]
    assert metrics["tokens"] == sum(spent) / 2 and min(spent) > 0
    assert metrics["steps"] == 2.0
    assert metrics["cost"] is not None and metrics["cost"] > 0


@pytest.mark.slow  # the eval runner's whole flow
def test_a_run_that_gives_up_while_recording_is_charged_as_in_replay(tmp_path: Path) -> None:
    store = tmp_path / "fixtures.jsonl"
    cases = _first_cases(1)
    with Simulator(behavior="research-copilot", seed=7) as sim, sim_model(sim.url) as live:
        plan = RecordPlan(live, approve_live=True, source="sim")
        recorded = run_eval(cases, store, agent=_limited(1), recording=plan)
    replayed = run_eval(cases, store, agent=_limited(1))
    (sample,) = recorded.cases[0].sampled.samples
    assert sample.output["error"].startswith("StepLimitExceeded")
    assert sample.output["input_tokens"] > 0 and sample.output["steps"] == 1
    assert replayed.cases[0].sampled.samples[0].output == sample.output


@pytest.mark.parametrize("kept", ["none", "input"])
@pytest.mark.slow  # the eval runner's whole flow
def test_a_run_result_saying_fewer_tokens_than_its_calls_is_refused(kept: str) -> None:
    # Usage(), or the input tokens alone, was scored as it said: a cost below the calls'
    # (0), a silent green
    def answer(model: Model, question: str) -> RunResult:
        counted = _Counting(model)
        result = run(counted, build_registry(), question)
        usage = Usage() if kept == "none" else Usage(counted.tokens[0], 0)
        return dataclasses.replace(result, usage=usage)

    agent = AgentEntry(answer, SETTINGS)
    with pytest.raises(AgentRunError, match=r"fewer than its 3 model call\(s\) reported \("):
        run_eval(_first_cases(1), shipped_fixtures(), agent=agent, prices=shipped_prices())


def _fetch_and_cite(doc_id: str) -> Any:
    """An agent that fetches ``doc_id`` and cites it with the very same id."""

    def answer(model: Model, question: str) -> RunResult:
        call = ToolCall(id="t", name="fetch_doc", arguments={"doc_id": doc_id})
        fetched = json.dumps({"doc_id": doc_id, "text": "x"}, ensure_ascii=False)
        text = f"See [{doc_id}]."
        steps = (Step("tool", "fetch", call, fetched), Step("answer", text))
        return RunResult(final=text, steps=steps, messages=(), usage=Usage(100, 10))

    return answer


@pytest.mark.parametrize("doc_id", ["doc-cafe\u0301", "ｄｏｃ-ｗｉｄｅ"], ids=["nfd", "full-width"])
@pytest.mark.slow  # the eval runner's whole flow
def test_a_fetched_id_not_in_nfkc_form_is_not_a_fabricated_citation(
    doc_id: str, tmp_path: Path
) -> None:
    store = tmp_path / "fixtures.jsonl"
    store.touch()
    case = EvalCase("c", "q", 1, 1, expected_doc_ids=(doc_id,))
    results = run_eval([case], store, agent=AgentEntry(_fetch_and_cite(doc_id), SETTINGS))
    counts = results.cases[0].counts
    assert (counts.cited, counts.correct, counts.fabricated) == (1, 1, 0)
    assert results.metrics["fabricated"] == 0.0


@pytest.mark.slow  # the eval runner's whole flow
def test_a_run_that_gave_up_on_a_failed_live_call_warns_that_its_replay_misses(
    tmp_path: Path,
) -> None:
    # A 429 the agent declares a failure recorded a green eval (the sample gave up), and
    # nothing for that call, so the replay stopped at it: "sample 0 did not send this request".
    def answer(model: Model, question: str) -> RunResult:
        response = model.complete([Message.user(question)], [])
        return RunResult(final=response.text, steps=[], messages=[], usage=response.usage)

    live = ScriptedModel([ConnectionError("reset by peer"), ModelResponse(text="RAG [doc-rag]")])
    (case,) = _first_cases(1)
    agent = AgentEntry(answer, SETTINGS, failures=(ConnectionError,))
    plan = RecordPlan(live, approve_live=True)
    with pytest.warns(LiveSendFailedWarning, match=r"failed \(ConnectionError: reset by peer\)"):
        recorded = run_eval(
            [dataclasses.replace(case, samples=2)],
            tmp_path / "f.jsonl",
            agent=agent,
            recording=plan,
            prices=shipped_prices(),
        )
    assert [s.output["error"] for s in recorded.cases[0].sampled.samples] == [
        "ConnectionError: reset by peer",
        None,
    ]
