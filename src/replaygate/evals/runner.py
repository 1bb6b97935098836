"""Run eval cases through an agent: replay by default, record on explicit approval.

Each case runs ``samples`` times through :func:`~replaygate.sampling.run_sampled`;
sample ``i`` is answered by ``ReplayModel(sample=i)`` (replay) or recorded by
``RecordingModel(sample=i)`` (``record-missing`` / ``rerecord``, which need
``approve_live=True``: refused before anything is called, law 3). In a recording
mode, ``concurrency`` cases run in parallel: live calls share a rate limit, the store
is touched by one worker at a time (never during a live call), and cases that ask the
same question run one after another, in file order, so a seeded simulator answers
them as it would in a serial run. With ``jobs`` > 1 the cases are shared out among
that many processes (:mod:`replaygate.evals.jobs`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from replaygate._version import __version__
from replaygate.evals.agents import Agent, AgentEntry, agent_search_folder, as_entry
from replaygate.evals.cases import EvalCase
from replaygate.evals.casework import EVAL_RERECORD, Setup, check_case, run_cases
from replaygate.evals.giveups import GAVE_UP
from replaygate.evals.jobs import Work, run_in_processes
from replaygate.evals.prices import PriceTable
from replaygate.evals.recording import RecordPlan, RecordRecipe
from replaygate.evals.results import CaseResult, EvalResults, read_back_text
from replaygate.fixtures import hits
from replaygate.fixtures.fixture import now_iso
from replaygate.fixtures.mismatch import read_from
from replaygate.fixtures.modes import require_approval
from replaygate.fixtures.store.files import store_path
from replaygate.models.replay import RequestSettings

if TYPE_CHECKING:  # a progress bar is the command line's (rich): not imported for a run
    from replaygate.evals.progress import Reporter

__all__ = ["RecordPlan", "RecordRecipe", "run_eval"]


RUN_INFO = ("time", "mode", "model", "interface", "prices", "replaygate_version")
"""The run information every run writes itself, which ``info`` may not restate; it may
name the fixture store otherwise (``fixtures``: the command line names it from the
project folder, alike in every checkout)."""


def _check_cases(cases: Sequence[EvalCase]) -> None:
    """Before any call: refuse a case that could never fail (:func:`check_case`) and an id
    given twice, which the results file could not hold (their calls would be spent)."""
    first: dict[str, int] = {}
    for index, case in enumerate(cases):
        check_case(case)
        seen = first.setdefault(case.id, index)
        if seen != index:
            raise ValueError(
                f"cases[{index}]: case {case.id!r} is already at cases[{seen}]: give each "
                "case an id of its own"
            )


def _check_info(info: dict[str, Any]) -> None:
    """Before any call: refuse ``info`` naming the run's own fields, or holding what the
    results file cannot (NaN, an object that is no JSON), as writing them would."""
    taken = sorted(set(info) & {*RUN_INFO, GAVE_UP})
    if taken:
        raise ValueError(
            f"info names the run's own field(s) {', '.join(map(repr, taken))}, which the run "
            "writes itself: give your information names of its own"
        )
    read_back_text({"eval": info}, "info", ValueError)


def run_eval(
    cases: Sequence[EvalCase],
    store: str | os.PathLike[str],
    *,
    agent: Agent | AgentEntry | str,
    settings: RequestSettings | None = None,
    recording: RecordPlan | RecordRecipe | None = None,
    prices: PriceTable | None = None,
    reporter: Reporter | None = None,
    info: dict[str, Any] | None = None,
    jobs: int = 1,
    agent_folder: str | os.PathLike[str] | None = None,
) -> EvalResults:
    """Run every case ``samples`` times through ``agent``, score it, and return the results.

    ``agent`` is a function ``(model, question) -> run result``, an
    :class:`~replaygate.evals.agents.AgentEntry`, or the ``module:function`` naming one,
    whose module is looked for first in ``agent_folder`` (default: the working
    folder), then on the import path, in this process and in each of ``jobs``
    (:func:`~replaygate.evals.agents.load_agent`).

    Requests are built with ``settings`` (default: the ones the agent declares).
    Without ``recording`` every model call is replayed from ``store`` (a miss
    raises :class:`~replaygate.errors.FixtureMismatchError`). With it, calls are
    recorded into ``store``. ``info`` is added to the run information (a ``ValueError``
    where it names a field of :data:`RUN_INFO`, which would misstate the run). A ``prices``
    table without a price for the model raises
    :class:`~replaygate.evals.errors.PriceError` before any call, unless every case
    opts out of cost (``"cost": false``). A case whose every expectation is a signal, or
    whose ``signals`` names one it does not give, is refused before any call
    (:func:`~replaygate.evals.casework.check_case`), and so are a case id given twice
    and an ``info`` the results file cannot hold (NaN).

    ``jobs`` > 1 runs the cases in that many processes, each opening the store (and,
    recording, its own live model) itself; ``agent`` must then be a
    ``module:function`` and ``recording`` a :class:`RecordRecipe`. The results are
    those of a serial run, cases in their order. Each process imports the calling
    script again: keep a script's work under ``if __name__ == "__main__":``. Ctrl-C
    stops every process (:mod:`replaygate.evals.jobs`), then raises
    :class:`KeyboardInterrupt`.
    """
    __tracebackhide__ = True
    folder = agent_search_folder(agent_folder)
    entry = as_entry(agent, folder)
    settings = settings or entry.settings
    if settings is None:
        raise ValueError(
            "no request settings: pass settings=RequestSettings(model=..., max_tokens=...) "
            "or declare them on the agent (AgentEntry(run, settings=...))"
        )
    if type(jobs) is not int or jobs < 1:
        raise ValueError(f"jobs must be a whole number of at least 1, got {jobs!r}")
    _check_cases(cases)
    _check_info(info or {})
    if prices is not None and any(case.cost for case in cases):
        prices.require(settings.model)  # before any call: no price is an error, not a gap
    if recording is not None:
        require_approval(recording.mode, recording.approve_live)
    path = store_path(store)
    if recording is None and not path.exists() and not path.is_symlink():  # a link: named as one
        raise FileNotFoundError(  # a notebook's working folder is the notebook's, not the project's
            f"no fixtures at {path}{read_from(path)}: record them first ({EVAL_RERECORD}), or "
            "give a recorded store"
        )
    started = now_iso()
    if jobs > 1:
        if not isinstance(agent, str) or isinstance(recording, RecordPlan):
            raise ValueError(
                "jobs > 1 needs the agent as 'module:function' and recording as a "
                "RecordRecipe: each process loads the agent and opens its live model itself"
            )
        work = Work(path, agent, settings, prices, recording, hits.active(), Path(folder))
        results = run_in_processes(cases, work, jobs, reporter)
    else:
        results = run_cases(cases, path, Setup(entry, settings, prices), recording, _told(reporter))
    run_info: dict[str, Any] = {
        "time": started,
        "mode": recording.mode if recording else "replay",
        "model": settings.model,
        "interface": settings.interface,
        "fixtures": str(path),
        "prices": prices.to_json() if prices else None,
        "replaygate_version": __version__,
    }
    return EvalResults(tuple(results), {**run_info, **(info or {})})


def _told(reporter: Reporter | None) -> Callable[[int, CaseResult], None] | None:
    """Tell ``reporter`` of each case as it finishes."""
    if reporter is None:
        return None
    return lambda _position, result: reporter.case_done(result.id, result.sampled.verdict)
