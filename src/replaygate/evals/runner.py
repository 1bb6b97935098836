"""Run eval cases through an agent: replay by default, record on explicit approval.

Each case runs ``samples`` times through :func:`~replaygate.sampling.run_sampled`;
sample ``i`` is answered by ``ReplayModel(sample=i)`` (replay) or recorded by
``RecordingModel(sample=i)`` (``record-missing`` / ``rerecord``, which need
``approve_live=True``: refused before anything is called, law 3). In a recording
mode, ``concurrency`` cases run in parallel: live calls share a rate limit, and the
store is touched by one worker at a time (never during a live call).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from replaygate._version import __version__
from replaygate.evals.agents import Agent, AgentEntry, as_entry
from replaygate.evals.cases import EvalCase
from replaygate.evals.expectations import checks_for
from replaygate.evals.output import failed_output, output_of
from replaygate.evals.prices import PriceTable
from replaygate.evals.progress import Reporter
from replaygate.evals.ratelimit import RateLimiter, limited, wrap_calls
from replaygate.evals.recording import SampleRecorder, StoreGuard
from replaygate.evals.results import CaseResult, EvalResults
from replaygate.evals.scorers import score_case
from replaygate.fixtures.fixture import now_iso
from replaygate.fixtures.modes import require_approval
from replaygate.fixtures.spending import SpendingCap
from replaygate.fixtures.store import FixtureStore
from replaygate.models.replay import RecordingModel, ReplayModel, RequestSettings
from replaygate.models.types import Model
from replaygate.sampling import run_sampled


@dataclass(frozen=True)
class RecordPlan:
    """How to record: the live model, the mode, the approval and the parallelism."""

    live: Model
    approve_live: bool
    mode: str = "record-missing"
    source: str | None = None
    concurrency: int = 1
    rate_limit: float | None = None
    cap: SpendingCap | None = None
    """What the recording may spend (:class:`~replaygate.fixtures.spending.SpendingCap`)."""


def run_eval(
    cases: Sequence[EvalCase],
    store: str | os.PathLike[str],
    *,
    agent: Agent | AgentEntry | str,
    settings: RequestSettings | None = None,
    recording: RecordPlan | None = None,
    prices: PriceTable | None = None,
    reporter: Reporter | None = None,
    info: dict[str, Any] | None = None,
) -> EvalResults:
    """Run every case ``samples`` times through ``agent``, score it, and return the results.

    ``agent`` is a function ``(model, question) -> run result``, an
    :class:`~replaygate.evals.agents.AgentEntry`, or the ``module:function`` naming one.

    Requests are built with ``settings`` (default: the ones the agent declares).
    Without ``recording`` every model call is replayed from ``store`` (a miss
    raises :class:`~replaygate.errors.FixtureMismatchError`). With it, calls are
    recorded into ``store``. ``info`` is added to the run information. A ``prices``
    table without a price for the model raises
    :class:`~replaygate.evals.errors.PriceError` before any call, unless every case
    opts out of cost (``"cost": false``).
    """
    entry = as_entry(agent)
    settings = settings or entry.settings
    if settings is None:
        raise ValueError(
            "no request settings: pass settings=RequestSettings(model=..., max_tokens=...) "
            "or declare them on the agent (AgentEntry(run, settings=...))"
        )
    if prices is not None and any(case.cost for case in cases):
        prices.require(settings.model)  # before any call: no price is an error, not a gap
    if recording is not None:
        require_approval(recording.mode, recording.approve_live)
        if recording.concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {recording.concurrency}")
    path = Path(store)
    started = now_iso()
    done: dict[str, CaseResult] = {}

    def finish(case: EvalCase, result: CaseResult) -> None:
        done[case.id] = result
        if reporter is not None:
            reporter.case_done(case.id, result.sampled.verdict)

    if recording is None:
        if not path.exists():
            raise FileNotFoundError(
                f"no fixtures at {path}: record them first (--record-mode record-missing "
                "--approve-live), or point --fixtures at a recorded store"
            )
        with FixtureStore.open(path) as opened:
            for case in cases:
                finish(case, _run_case(case, _replaying(opened, settings), entry, settings, prices))
    else:
        limiter = RateLimiter(recording.rate_limit) if recording.rate_limit else None
        guard = StoreGuard()
        live = wrap_calls(limited(recording.live, limiter), guard.released)
        with (
            FixtureStore.open(path) as opened,
            ThreadPoolExecutor(max_workers=recording.concurrency) as pool,
        ):
            models = _recording(opened, settings, recording, live, guard)
            futures = [
                (case, pool.submit(_run_case, case, models, entry, settings, prices))
                for case in cases
            ]
            for case, future in futures:
                finish(case, future.result())
    run_info: dict[str, Any] = {
        "time": started,
        "mode": recording.mode if recording else "replay",
        "model": settings.model,
        "interface": settings.interface,
        "fixtures": str(path),
        "prices": prices.to_json() if prices else None,
        "replaygate_version": __version__,
        **(info or {}),
    }
    return EvalResults(tuple(done[case.id] for case in cases), run_info)


ModelFor = Callable[[int], Model]


def _replaying(store: FixtureStore, settings: RequestSettings) -> ModelFor:
    def model_for(sample: int) -> Model:
        return ReplayModel(store, sample=sample, **asdict(settings))

    return model_for


def _recording(
    store: FixtureStore,
    settings: RequestSettings,
    recording: RecordPlan,
    live: Model,
    guard: StoreGuard,
) -> ModelFor:
    def model_for(sample: int) -> Model:
        recorder = RecordingModel(
            live,
            store,
            approve_live=recording.approve_live,
            mode=recording.mode,  # type: ignore[arg-type]
            sample=sample,
            source=recording.source,
            cap=recording.cap,
            **asdict(settings),
        )
        return SampleRecorder(recorder, guard)

    return model_for


def _run_case(
    case: EvalCase,
    model_for: ModelFor,
    agent: AgentEntry,
    settings: RequestSettings,
    prices: PriceTable | None,
) -> CaseResult:
    def sample(index: int) -> dict[str, Any]:
        try:
            return output_of(agent(model_for(index), case.question))
        except agent.failures as err:
            return failed_output(err)

    sampled = run_sampled(sample, case.samples, case.floor, checks_for(case), case=case.id)
    counts = score_case(case, sampled, prices, settings.model)
    return CaseResult(sampled, counts, case.tags)
