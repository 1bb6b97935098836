"""Running the cases of one eval in several processes (``replaygate eval --jobs N``).

The cases are dealt out in :func:`~replaygate.evals.casework.chains` (cases asking
the same question stay together, in file order), round robin, one share per process.
Each process starts clean (forked by a fork server that has loaded this module and
the agent's, or spawned where there is none) with this run's environment, opens the
store itself, loads the agent by its ``module:function`` name, blocks the network
when replaying (law 3) or opens its own live model when recording, and runs its share
with :func:`~replaygate.evals.casework.run_cases`. It sends the results back as the
cases finish (what finished in the last :data:`POLL` seconds at once), so a progress
bar moves, and the results are put back in case order: those of a serial run.

Any error in a process ends the run: the other processes are stopped and
:class:`WorkerError` says what went wrong, in words (a process that dies says so
too). Processes ignore Ctrl-C; the parent stops them and lets the interrupt through.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import signal
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from replaygate.errors import ReplaygateError
from replaygate.evals.agents import load_agent
from replaygate.evals.cases import EvalCase
from replaygate.evals.casework import Setup, chains, run_cases
from replaygate.evals.errors import EvalError
from replaygate.evals.prices import PriceTable
from replaygate.evals.progress import Reporter
from replaygate.evals.recording import RecordRecipe
from replaygate.evals.results import CaseResult
from replaygate.models.replay import RequestSettings
from replaygate.network import block_network

POLL = 0.2
"""Seconds between looks at the processes while no result comes in."""


class WorkerError(EvalError):
    """A process of a parallel eval run failed; the message says how."""


@dataclass(frozen=True)
class Work:
    """What every process of one run is given (it must survive pickling)."""

    store: Path
    agent: str
    settings: RequestSettings
    prices: PriceTable | None
    recording: RecordRecipe | None


def shares(cases: Sequence[EvalCase], jobs: int) -> list[list[int]]:
    """The positions each process runs: whole chains, dealt round robin; none empty (at
    most one share a chain, however many ``jobs`` are asked for)."""
    dealt = chains(cases)
    shared: list[list[int]] = [[] for _ in range(min(jobs, len(dealt)))]
    for turn, chain in enumerate(dealt):
        shared[turn % len(shared)].extend(chain)
    return [sorted(share) for share in shared]


def run_in_processes(
    cases: Sequence[EvalCase], work: Work, jobs: int, reporter: Reporter | None
) -> list[CaseResult]:
    """The result of each case, in order, from ``jobs`` processes (fewer for few cases)."""
    context = _context(work.agent.partition(":")[0])
    inbox: Any = context.Queue()
    split = shares(cases, jobs)
    environ = dict(os.environ)
    processes: list[BaseProcess] = [
        context.Process(
            target=_process_share,
            args=(index, work, [cases[p] for p in share], len(split), environ, inbox),
            name=f"replaygate-eval-{index + 1}",
            daemon=True,
        )
        for index, share in enumerate(split)
    ]
    results: dict[int, CaseResult] = {}
    try:
        for process in processes:
            process.start()
        finished: set[int] = set()
        ended: BaseProcess | None = None
        while len(finished) < len(processes):
            try:
                index, kind, payload = inbox.get(timeout=POLL)
            except queue.Empty:
                if ended is not None:  # what it sent before it ended was read by now
                    raise _ended_early(processes, ended) from None
                ended = _unfinished_exit(processes, finished)
                continue
            if kind == "cases":
                for at, result in payload:
                    results[split[index][at]] = result
                    if reporter is not None:
                        reporter.case_done(result.id, result.sampled.verdict)
            elif kind == "failed":
                raise WorkerError(payload)
            else:
                finished.add(index)
        for process in processes:
            process.join()  # each has sent all it had: it ends by itself
    finally:
        _stop(processes)
        inbox.close()
    return [results[i] for i in range(len(cases))]


def _context(agent_module: str) -> Any:
    """A fork server (single-threaded; this module and the agent's loaded once, before
    it forks the processes) where there is one, else spawn."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__, agent_module])
    return context


def _unfinished_exit(processes: Sequence[BaseProcess], finished: set[int]) -> BaseProcess | None:
    """A process that ended without saying it finished, if there is one."""
    return next(
        (p for i, p in enumerate(processes) if i not in finished and p.exitcode is not None), None
    )


def _ended_early(processes: Sequence[BaseProcess], process: BaseProcess) -> WorkerError:
    return WorkerError(
        f"eval process {processes.index(process) + 1} of {len(processes)} ended (exit code "
        f"{process.exitcode}) before its cases were done: it was killed or ran out of "
        "memory, or the agent ended the process; run with --jobs 1 to see where"
    )


def _stop(processes: Sequence[BaseProcess]) -> None:
    """End the processes still running (after an error or an interrupt), and reap them."""
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        if process.pid is not None:
            process.join()


def _process_share(
    index: int,
    work: Work,
    cases: list[EvalCase],
    jobs: int,
    environ: Mapping[str, str],
    outbox: Any,
) -> None:
    """The body of one process: run ``cases``, sending their results to ``outbox``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what Ctrl-C stops
    os.environ.clear()
    os.environ.update(environ)  # a fork server's children start with its environment

    batch = Batch(index, outbox)
    try:
        with contextlib.ExitStack() as stack:
            if work.recording is None:
                stack.enter_context(block_network())  # replay: nothing leaves (law 3)
            setup = Setup(load_agent(work.agent), work.settings, work.prices)
            run_cases(cases, work.store, setup, work.recording, batch.add, jobs=jobs)
    except Exception as err:  # every failure reaches the parent as words
        outbox.put((index, "failed", describe_failure(err)))
    else:
        batch.send()
        outbox.put((index, "finished", None))


class Batch:
    """The results of one process not yet sent; sent every :data:`POLL` seconds at most.

    One message a batch, not one a case: a fast replay would spend its time handing
    messages to the queue's thread.
    """

    def __init__(self, index: int, outbox: Any) -> None:
        self.index = index
        self.outbox = outbox
        self.results: list[tuple[int, CaseResult]] = []
        self.since = time.monotonic()

    def add(self, at: int, result: CaseResult) -> None:
        """Keep the result of case ``at``; send what is kept once it is :data:`POLL` old."""
        self.results.append((at, result))
        if time.monotonic() - self.since >= POLL:
            self.send()

    def send(self) -> None:
        """Send what is kept, if anything."""
        if self.results:
            self.outbox.put((self.index, "cases", self.results))
        self.results = []
        self.since = time.monotonic()


def describe_failure(err: Exception) -> str:
    """What went wrong in a process, for a person: the message, with the kind of an
    unexpected exception and where it was raised (its notes), never a traceback."""
    if isinstance(err, ReplaygateError):
        return str(err)
    notes = "".join(f" ({note})" for note in getattr(err, "__notes__", ()))
    return f"{type(err).__name__}: {err}{notes}"
