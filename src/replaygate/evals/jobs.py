"""Running the cases of one eval in several processes (``replaygate eval --jobs N``).

The cases are dealt out in :func:`~replaygate.evals.casework.chains` (cases asking
the same question stay together, in file order), round robin, one share per process.
Each process starts clean (forked by a fork server that has loaded this module, the
agent's and, recording, the live model's SDK (:attr:`RecordRecipe.preload`), or
spawned where there is none) with this run's environment and import path, opens the
store itself, loads the agent by its ``module:function`` name from where the run's own
process loaded it (:attr:`Work.agent_folder` first, then the import path; a module of
that name the fork server imported from elsewhere is imported anew), blocks the network
beyond loopback when replaying or recording from the simulator (law 3), opens its own
live model when recording, and runs its share
with :func:`~replaygate.evals.casework.run_cases`. It sends the results back as the
cases finish (what finished in the last :data:`POLL` seconds at once), so a progress
bar moves, and the results are put back in case order: those of a serial run.

Any error in a process ends the run: the other processes are stopped and
:class:`WorkerError` says what went wrong, in words (a process that dies says so
too).

Ctrl-C is the parent's to act on. A process starts with SIGINT blocked (held back in
the parent while it starts one, and inherited), so a Ctrl-C sent to the whole terminal
cannot interrupt it, nor the fork server, half-way through its start; it then ignores
SIGINT. The parent notes a Ctrl-C instead of raising it inside ``multiprocessing``
(where it would leave a process started but not yet known, never stopped), and acts on
it between two steps: it stops every process it started (SIGTERM, then SIGKILL after
:data:`GRACE` seconds) and raises :class:`KeyboardInterrupt`. A second Ctrl-C while
it stops them changes nothing. A SIGTERM sent to the parent alone (``timeout``, a CI
job's cancel) is acted on the same way, so no process it started goes on running (and,
recording, calling the live API) after it; nor after a SIGKILL, which the parent
cannot act on: each process ends itself once the parent is gone.
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from multiprocessing.process import BaseProcess
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from replaygate.errors import ReplaygateError
from replaygate.evals.agents import agent_search_folder, load_agent, shadowed
from replaygate.evals.cases import EvalCase
from replaygate.evals.casework import Setup, chains, run_cases
from replaygate.evals.errors import EvalError
from replaygate.evals.prices import PriceTable
from replaygate.evals.recording import RecordRecipe, offline_block
from replaygate.evals.results import CaseResult
from replaygate.fixtures import hits
from replaygate.fixtures.hits import HitLog
from replaygate.models.replay import RequestSettings
from replaygate.network import BLOCK_IMPORTS
from replaygate.sanitize.secret_mask import masked_error
from replaygate.signals import ctrl_c_left_to_parent, end_with_parent, held
from replaygate.start_methods import workers_context
from replaygate.warning_lines import warnings_as_lines

if TYPE_CHECKING:  # rich, which the processes never draw with, is not imported for them
    from replaygate.evals.progress import Reporter

POLL = 0.2
"""Seconds between looks at the processes (and for a Ctrl-C) while no result comes in."""

GRACE = 2.0
"""Seconds a process is given to end once told to (SIGTERM) before it is killed."""


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
    hits: HitLog | None = None
    """The hits log of the run, each process writing its own file."""
    agent_folder: Path | None = None
    """Where the agent's module is looked for first (None: the working folder), as the
    run's own process looked for it (:func:`~replaygate.evals.agents.load_agent`)."""


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
    """The result of each case, in order, from ``jobs`` processes (fewer for few cases).

    Ctrl-C stops every process started and raises :class:`KeyboardInterrupt`.
    """
    preload = work.recording.preload if work.recording is not None else ()
    loaded = [__name__, *BLOCK_IMPORTS, *_agent_preload(work.agent), *preload]
    context = workers_context(loaded)  # BLOCK_IMPORTS: what a process blocking imports
    split = shares(cases, jobs)
    environ = dict(os.environ)
    with _ctrl_c_noted() as ctrl_c:
        inbox: Any = context.Queue()
        processes: list[BaseProcess] = [
            context.Process(
                target=_process_share,
                args=(index, work, [cases[p] for p in share], len(split), environ, inbox),
                name=f"replaygate-eval-{index + 1}",
                daemon=True,
            )
            for index, share in enumerate(split)
        ]
        try:
            _start(processes, ctrl_c)
            results = _collect(processes, split, inbox, reporter, ctrl_c)
            _join(processes, ctrl_c)  # each has sent all it had: it ends by itself
        finally:
            _stop(processes)
            inbox.close()
    return [results[i] for i in range(len(cases))]


def _agent_preload(agent: str) -> list[str]:
    """The agent's module, for the fork server to import once for every process; none where
    the working folder holds another module of its name, which the fork server (whose
    import path begins with the working folder) would import in its place."""
    module = agent.partition(":")[0]
    return [] if shadowed(module, agent_search_folder()) else [module]


class CtrlC:
    """Whether Ctrl-C was pressed (or SIGTERM received); raised as
    :class:`KeyboardInterrupt` by :meth:`check`."""

    def __init__(self) -> None:
        self.pressed = False

    def note(self, signum: int, frame: FrameType | None) -> None:
        """The SIGINT and SIGTERM handler: note the press, raise nothing."""
        self.pressed = True

    def check(self) -> None:
        """Raise :class:`KeyboardInterrupt` if Ctrl-C was pressed."""
        if self.pressed:
            raise KeyboardInterrupt


@contextlib.contextmanager
def _ctrl_c_noted() -> Iterator[CtrlC]:
    """Ctrl-C and SIGTERM noted, not acted on at once, inside the block, where each has
    Python's default handling (in the main thread), or raises :class:`KeyboardInterrupt`
    as the command line makes SIGTERM do: SIGINT would raise it anywhere, SIGTERM would
    raise it anywhere too or end this process alone."""
    ctrl_c = CtrlC()
    if threading.current_thread() is not threading.main_thread():
        yield ctrl_c
        return
    defaults = {
        signal.SIGINT: (signal.default_int_handler,),
        signal.SIGTERM: (signal.SIG_DFL, signal.default_int_handler),
    }
    taken = [signum for signum, own in defaults.items() if signal.getsignal(signum) in own]
    previous = {signum: signal.signal(signum, ctrl_c.note) for signum in taken}
    try:
        yield ctrl_c
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _start(processes: Sequence[BaseProcess], ctrl_c: CtrlC) -> None:
    """Start the processes, each with Ctrl-C and SIGTERM held while it starts; none more
    after Ctrl-C."""
    for process in processes:
        ctrl_c.check()
        with held():
            process.start()


def _collect(
    processes: Sequence[BaseProcess],
    split: Sequence[Sequence[int]],
    inbox: Any,
    reporter: Reporter | None,
    ctrl_c: CtrlC,
) -> dict[int, CaseResult]:
    """The result of each case by position, as the processes send them, until each has
    said it finished; a process that fails or ends early raises :class:`WorkerError`."""
    results: dict[int, CaseResult] = {}
    finished: set[int] = set()
    ended: BaseProcess | None = None
    while len(finished) < len(processes):
        ctrl_c.check()
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
        elif kind == "interrupted":
            raise KeyboardInterrupt
        else:
            finished.add(index)
    return results


def _join(processes: Sequence[BaseProcess], ctrl_c: CtrlC) -> None:
    """Wait for the processes to end by themselves, or for Ctrl-C."""
    for process in processes:
        while process.exitcode is None:
            ctrl_c.check()
            process.join(POLL)


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
    """End the processes still running (after an error or an interrupt): SIGTERM, then
    SIGKILL for those still there after :data:`GRACE` seconds; and reap them."""
    started = [process for process in processes if process.pid is not None]
    for process in started:
        if process.is_alive():
            process.terminate()
    _reap(started, GRACE)
    for process in started:
        if process.exitcode is None:
            process.kill()
    _reap(started, GRACE)


def _reap(processes: Sequence[BaseProcess], within: float) -> None:
    """Wait at most ``within`` seconds in all for the processes to end."""
    deadline = time.monotonic() + within
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))


def _process_share(
    index: int,
    work: Work,
    cases: list[EvalCase],
    jobs: int,
    environ: Mapping[str, str],
    outbox: Any,
) -> None:
    """The body of one process: run ``cases``, sending their results to ``outbox``."""
    ctrl_c_left_to_parent()
    end_with_parent()  # a parent killed outright leaves no orphan running the share
    os.environ.clear()
    os.environ.update(environ)  # a fork server's children start with its environment

    batch = Batch(index, outbox)
    try:
        with contextlib.ExitStack() as stack:
            stack.enter_context(warnings_as_lines())  # as the command line shows them
            stack.enter_context(hits.used(work.hits))
            stack.enter_context(offline_block(work.recording))  # nothing leaves (law 3)
            agent = load_agent(work.agent, folder=work.agent_folder, replace=True)
            setup = Setup(agent, work.settings, work.prices)
            run_cases(cases, work.store, setup, work.recording, batch.add, jobs=jobs)
    except Exception as err:  # every failure reaches the parent as words
        outbox.put((index, "failed", describe_failure(err)))
    except KeyboardInterrupt:  # the agent's own (Ctrl-C goes to the parent): as --jobs 1 ends
        outbox.put((index, "interrupted", None))
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
    """What went wrong in a process, for a person: the message (a key it holds masked, as
    CI logs keep it), with the kind of an unexpected exception and where it was raised
    (its notes), never a traceback; a replaygate error (a miss) as a serial run says it,
    its notes on lines of their own (``raised in sample i of n of case c``)."""
    notes = getattr(err, "__notes__", ())
    if isinstance(err, ReplaygateError):
        return "\n".join([str(err), *notes])
    notes = "".join(f" ({note})" for note in notes)
    return f"{masked_error(err)}{notes}"
