"""Running eval cases in this process: replayed in order, or recorded by worker threads.

:func:`run_cases` is the engine under :func:`~replaygate.evals.runner.run_eval` and
under each process of a parallel run (:mod:`replaygate.evals.jobs`). Recording, it
runs :func:`chains` of cases on ``concurrency`` threads: cases that ask the same
question form one chain, run in file order, so their identical requests reach the
live model one after another, as in a serial run. Each sample's model counts what its
calls spend (:class:`Spent`): a run the agent gave up on is scored with the tokens and
steps of the calls it made. :func:`check_case` refuses a case that could never fail.
"""

from __future__ import annotations

import contextlib
import threading
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from replaygate.errors import LiveSendFailedWarning
from replaygate.evals.agents import AgentEntry, agent_name, call_agent
from replaygate.evals.cases import EvalCase
from replaygate.evals.errors import AgentRunError, CaseFormatError
from replaygate.evals.expectations import checks_for
from replaygate.evals.output import RUN_FIELDS, failed_output, output_of
from replaygate.evals.prices import PriceTable
from replaygate.evals.ratelimit import RateLimiter, limited, wrap_calls
from replaygate.evals.recording import RecordPlan, RecordRecipe, SampleRecorder, StoreGuard
from replaygate.evals.results import CaseResult
from replaygate.evals.scorers import score_case
from replaygate.fixtures.store import FixtureStore
from replaygate.models.replay import RecordingModel, ReplayModel, RequestSettings
from replaygate.models.types import Message, Model, ModelResponse, ToolSpec
from replaygate.sampling import run_sampled
from replaygate.sanitize import Sanitizer, sanitizer_for

Answered = Callable[[ModelResponse], None]
"""Told each response a sample's model hands the agent."""
ModelFor = Callable[[int, Answered], Model]
"""The model sample ``i`` of a case is answered by, telling ``answered`` each response."""
Done = Callable[[int, CaseResult], None]
"""Told the position and the result of each case as it finishes."""
EVAL_RERECORD = (
    "`replaygate eval --record-mode record-missing --approve-live` (with the same cases and "
    "fixtures), or run_eval(..., recording=RecordPlan(...))"
)
"""How a miss of an eval says to record it."""
EVAL_REPLACE = (
    "`replaygate eval --record-mode rerecord --approve-live` (with the same cases and "
    'fixtures), or run_eval(..., recording=RecordPlan(..., mode="rerecord"))'
)
"""How an eval says to record anew an answer that cannot be replayed as it is."""


@dataclass
class Spent:
    """What one run's model calls spent, added up as each response reaches the agent: its
    tokens, and its steps (each tool call a response asks for, or the response as the
    answer), as a run result counts them. A run the agent gives up on returns no result,
    so it is scored with these."""

    input_tokens: int = 0
    output_tokens: int = 0
    steps: int = 0
    calls: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, response: ModelResponse) -> None:
        """Count ``response``."""
        with self._lock:  # an agent may call its model from several threads
            self.input_tokens += response.usage.input_tokens
            self.output_tokens += response.usage.output_tokens
            self.steps += len(response.tool_calls) or 1
            self.calls += 1

    def check_usage(self, output: dict[str, Any], agent: str) -> None:
        """:class:`AgentRunError` when the run result ``output`` was made of says fewer
        tokens than its model calls reported (``Usage()``, or the last call's alone): its
        cost would be scored below what the calls cost. More is taken: an agent may also
        ask models the eval does not serve."""
        said = (output["input_tokens"], output["output_tokens"])
        if said[0] >= self.input_tokens and said[1] >= self.output_tokens:
            return
        raise AgentRunError(
            f"the agent {agent} returned a run result whose usage says {said[0]} input and "
            f"{said[1]} output tokens, fewer than its {self.calls} model call(s) reported "
            f"({self.input_tokens} input, {self.output_tokens} output): usage must be "
            f"{RUN_FIELDS['usage']}"
        )

    def counts(self) -> dict[str, int]:
        """The output fields these set: ``input_tokens``, ``output_tokens``, ``steps``."""
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "steps": self.steps,
        }


class _ToldReplayModel(ReplayModel):
    """A :class:`ReplayModel` that tells ``answered`` each response it serves (copies made
    with another system prompt tell it too)."""

    def __init__(self, store: FixtureStore, answered: Answered, **given: Any) -> None:
        super().__init__(store, **given)
        self.answered = answered

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        """The recorded response, counted."""
        __tracebackhide__ = True
        response = super().complete(messages, tools)
        self.answered(response)
        return response


_FIELD_OF = {"contains": "must_contain", "citations": "expected_doc_ids", "schema": "schema"}
"""The case field each expectation (a name ``signals`` may hold) comes from."""


def check_case(case: EvalCase) -> None:
    """Refuse ``case`` when it could pass having checked nothing: it gives no expectation,
    ``signals`` names one the case does not give, or every expectation it gives is a
    signal (no sample could fail). A :class:`CaseFormatError` naming its file and line (a
    ``ValueError`` naming the case when it was made in code)."""
    checks = checks_for(case)
    given = [check.name for check in checks]
    absent = [name for name in case.signals if name not in given]
    if not checks:  # a case made in code; a file's are refused as they are read
        reason = "gives no expectation: give must_contain, expected_doc_ids or schema"
    elif absent and absent[0] not in _FIELD_OF:  # a case made in code; a file's are checked
        reason = f"signals names {absent[0]!r}, which is no expectation ({', '.join(_FIELD_OF)})"
    elif absent:
        reason = (
            f"signals names {absent[0]!r}, but the case gives no {_FIELD_OF[absent[0]]}: "
            "a signal of an expectation it does not have observes nothing"
        )
    elif all(check.kind == "signal" for check in checks):
        reason = (
            f"every expectation is a signal ({', '.join(given)}), so no sample can fail and "
            "the case would pass having checked nothing; make one a gate (leave it out of "
            "signals)"
        )
    else:
        return
    if case.file:
        raise CaseFormatError(case.file, case.line, f"case {case.id!r}: {reason}")
    raise ValueError(f"case {case.id!r}: {reason}")


@dataclass(frozen=True)
class Setup:
    """What every case of a run shares: the agent, the request settings, the prices."""

    agent: AgentEntry
    settings: RequestSettings
    prices: PriceTable | None


def chains(cases: Sequence[EvalCase]) -> list[list[int]]:
    """The positions of ``cases`` grouped by question, each group in file order."""
    groups: dict[str, list[int]] = {}
    for position, case in enumerate(cases):
        groups.setdefault(case.question, []).append(position)
    return list(groups.values())


def run_cases(
    cases: Sequence[EvalCase],
    path: Path,
    setup: Setup,
    recording: RecordPlan | RecordRecipe | None,
    on_done: Done | None = None,
    *,
    jobs: int = 1,
) -> list[CaseResult]:
    """The result of each case, in order; ``on_done(position, result)`` as each finishes.

    A :class:`RecordRecipe` opens its live model here, as one of ``jobs`` processes.
    """
    __tracebackhide__ = True
    done: dict[int, CaseResult] = {}
    lock = threading.Lock()

    def finish(position: int, result: CaseResult) -> None:
        with lock:
            done[position] = result
            if on_done is not None:
                on_done(position, result)

    sanitizer = sanitizer_for(path)  # the store's project's, read once for every sample
    with contextlib.ExitStack() as stack:
        opened = stack.enter_context(FixtureStore.open(path))
        if recording is None:
            model_for = _replaying(opened, setup.settings, sanitizer)
            for position, case in enumerate(cases):
                finish(position, _run_case(case, model_for, setup))
            return [done[i] for i in range(len(cases))]
        if isinstance(recording, RecordRecipe):
            recording = stack.enter_context(recording.plan(setup.prices, jobs))
        limiter = RateLimiter(recording.rate_limit) if recording.rate_limit else None
        guard = StoreGuard()
        live = wrap_calls(limited(recording.live, limiter), guard.released)
        model_for = _recording(opened, setup.settings, sanitizer, recording, live, guard)

        stop = threading.Event()  # an error or Ctrl-C: the cases under way finish, no other starts

        def run_chain(chain: list[int]) -> None:
            try:
                for position in chain:
                    if stop.is_set():
                        return
                    finish(position, _run_case(cases[position], model_for, setup))
            except BaseException:
                stop.set()
                raise

        pool = stack.enter_context(ThreadPoolExecutor(max_workers=recording.concurrency))
        try:
            for future in [pool.submit(run_chain, chain) for chain in chains(cases)]:
                future.result()
        finally:
            stop.set()  # before the pool waits for its threads
    return [done[i] for i in range(len(cases))]


def _replaying(store: FixtureStore, settings: RequestSettings, sanitizer: Sanitizer) -> ModelFor:
    def model_for(sample: int, answered: Answered) -> Model:
        model = _ToldReplayModel(
            store, answered, sample=sample, sanitize=sanitizer, **asdict(settings)
        )
        model.session.rerecord = EVAL_RERECORD
        model.session.rerecord_all = EVAL_REPLACE
        return model

    return model_for


def _recording(
    store: FixtureStore,
    settings: RequestSettings,
    sanitizer: Sanitizer,
    recording: RecordPlan,
    live: Model,
    guard: StoreGuard,
) -> ModelFor:
    def model_for(sample: int, answered: Answered) -> Model:
        recorder = RecordingModel(
            live,
            store,
            approve_live=recording.approve_live,
            mode=recording.mode,  # type: ignore[arg-type]
            sample=sample,
            source=recording.source,
            cap=recording.cap,
            sanitize=sanitizer,
            **asdict(settings),
        )
        return SampleRecorder(recorder, guard, answered)

    return model_for


def _answer(agent: AgentEntry, model: Model, question: str, spent: Spent) -> dict[str, Any]:
    """What one run of the agent yields for scoring; a failure it declares is a failed
    run, with what its calls ``spent``. Any other exception goes through as
    :func:`call_agent` lets it."""
    __tracebackhide__ = True
    try:
        run = call_agent(agent, model, question, agent.failures)
    except agent.failures as err:
        return {**failed_output(err), **spent.counts()}
    output = output_of(run, agent_name(agent))
    spent.check_usage(output, agent_name(agent))
    return output


def _run_case(case: EvalCase, model_for: ModelFor, setup: Setup) -> CaseResult:
    __tracebackhide__ = True

    def sample(index: int) -> dict[str, Any]:
        __tracebackhide__ = True
        spent = Spent()
        model = model_for(index, spent.add)
        output = _answer(setup.agent, model, case.question, spent)
        if isinstance(model, ReplayModel):
            model.raise_caught()
        if isinstance(model, SampleRecorder):  # the run went on from a call not recorded
            for said in model.recorder.failed_live:
                warnings.warn(said, LiveSendFailedWarning, stacklevel=2)
            model.recorder.raise_caught()  # a refusal the agent caught: nothing recorded
        return output

    sampled = run_sampled(sample, case.samples, case.floor, checks_for(case), case=case.id)
    counts = score_case(case, sampled, setup.prices, setup.settings.model)
    return CaseResult(sampled, counts, case.tags)
