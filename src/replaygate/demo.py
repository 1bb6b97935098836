"""The whole eval loop on the loopback simulator, for ``replaygate demo``.

Record the shipped ResearchCopilot eval cases (5 samples each) through the official
``anthropic`` SDK from the simulator, approved for this run; stop the simulator;
replay them offline; score; gate against the shipped baseline; append to a history;
write the report. It sits above what it drives (the example agent, the simulator,
evals, the report); only the demo command imports it.

The ``--out`` folder is the demo's only where it wrote the files: each run leaves a mark
(:data:`MARK`) with a digest of each file it wrote, kept up to date as it writes them
one by one, and a file there under one of its names whose digest the mark does not
hold is refused before anything is written (:func:`claim_out`): one being written when
a run stopped too, as a file put there since could not be told from it. The folder is
looked at once, each file hashed once; a run then holds the folder's lock (:data:`LOCK`)
to its end: a second demo on the same folder is refused at once.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import time
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from filelock import Timeout

from replaygate.errors import ReplaygateError, first_few, shown_file
from replaygate.evals.cases import load_eval_cases
from replaygate.evals.config import GateConfig
from replaygate.evals.gate import GateReport, run_gate
from replaygate.evals.git import GitError, head_commit
from replaygate.evals.history import History
from replaygate.evals.metrics import METRICS
from replaygate.evals.prices import shipped_prices
from replaygate.evals.reference import Reference, load_reference
from replaygate.evals.runner import RecordPlan, run_eval
from replaygate.evals.scorers import Metrics
from replaygate.examples.research_copilot import (
    SETTINGS,
    copilot,
    shipped_baseline,
    shipped_eval_cases,
)
from replaygate.extras import require
from replaygate.fixtures.store import FixtureStore
from replaygate.fixtures.store.side_files import is_written_beside
from replaygate.hygiene.checksum import file_digest
from replaygate.locks import lock_at
from replaygate.models.live import AnthropicModel
from replaygate.outputs import atomic_write
from replaygate.regular import read_regular_bytes
from replaygate.report import write_report
from replaygate.sim import Simulator

SHOWN = ("success", "citation_precision", "citation_recall", "fabricated", "cost", "steps")
"""The metrics the demo prints."""
DEMO_SEED = 7
"""The simulator seed the shipped baseline was recorded with."""
SHIPPED_CASES = "replaygate/examples/research_copilot/data/eval_cases.jsonl"
"""How the demo's results and history name the shipped eval cases: by their place in the
package, never by the path of an installation (which differs from machine to machine)."""

STORE, RESULTS, HISTORY, REPORT = "eval_fixtures.jsonl", "results.json", "history.db", "report.html"
WRITTEN = (STORE, RESULTS, HISTORY, REPORT)
"""What the eval loop writes in its folder: it deletes and records its store, replaces
its results and report, and adds a run to its history."""
MARK = ".replaygate-demo.json"
"""The demo's mark in its folder: the digest of each file of :data:`WRITTEN` it wrote
(null for the one a run is writing)."""
MARK_FORMAT = "replaygate.demo"
LOCK = ".replaygate-demo.lock"
"""The lock a demo holds on its folder for its whole run."""


def _beside(name: str) -> bool:
    """Whether ``name`` is what the demo's writes leave beside its files: its lock, the
    store's, the history's journal, the temporary file of a write that was stopped."""
    return name == LOCK or is_written_beside(
        name, temporaries=(RESULTS, REPORT, MARK), locks=(STORE,), databases=(HISTORY,)
    )


class DemoOutError(ReplaygateError):
    """The demo's ``--out`` folder cannot be written: it holds files the demo did not
    write, or another demo is writing there. Nothing was written."""


@dataclass(frozen=True)
class _Survey:
    """What one look at the demo's folder found: the entries the demo must neither remove
    nor replace (each shown with why), and the digest of each file of :data:`WRITTEN`
    there that its mark vouches for."""

    foreign: list[str]
    vouched: dict[str, str]


def _survey(out: Path, kept: Collection[str], noted: Mapping[str, str] | None = None) -> _Survey:
    """Look at ``out`` once, hashing each file of :data:`WRITTEN` there once. An ``out``
    not yet there holds nothing; an unreadable one is an :class:`OSError`. A foreign
    name in ``noted`` is shown with what ``noted`` says of it."""
    try:
        names = sorted(os.listdir(out))
    except FileNotFoundError:
        return _Survey([], {})
    marked = _read_mark(out)
    found = [] if marked is not None or MARK not in names else [repr(MARK)]
    vouched: dict[str, str] = {}
    for name in names:
        if name in WRITTEN:
            held = (marked or {}).get(name, "")
            why = _unvouched(out / name, held)
            if why is None and held:
                vouched[name] = held
            else:
                found.append(f"{name!r}{why or ''}")
        elif name != MARK and name not in kept and not _beside(name):
            found.append(f"{name!r}{(noted or {}).get(name, '')}")
    return _Survey(found, vouched)


def _unvouched(path: Path, marked: str | None) -> str | None:
    """Why the digest the mark holds, ``marked``, does not vouch for the file at ``path``
    (``""``: the mark names none), shown after its name; None when it does."""
    if marked == "" or not _regular(path):
        return ""
    if marked is None:
        return " (a demo stopped while writing it, or a file put there since: remove it)"
    try:
        now = digest(path)
    except (OSError, ReplaygateError):
        return " (cannot be read)"
    return None if now == marked else " (changed since the demo wrote it)"


def foreign_files(out: Path, kept: Collection[str] = ()) -> list[str]:
    """The entries of ``out`` the demo must neither remove nor replace, each shown with
    why: a name of :data:`WRITTEN` whose digest its mark does not hold (no mark, not in
    it, being written when a run stopped, or changed since), and any other name but
    those its writes leave (and ``kept``). An ``out`` not yet there holds none; an
    unreadable one is an :class:`OSError`."""
    return _survey(out, kept).foreign


@dataclass
class Claim:
    """A demo run's hold on its folder (:func:`claim_out`): what the mark vouches for, kept
    up to date as the run writes each file (:meth:`writing`)."""

    out: Path
    files: dict[str, str | None]

    @contextlib.contextmanager
    def writing(self, name: str) -> Iterator[Path]:
        """Write the file ``name`` of :data:`WRITTEN` in the block: marked as being
        written (vouched for by no digest) until the block ends, then by its digest. A
        run stopped in the block leaves it unvouched: the next demo refuses it rather
        than take a file put there since for its own."""
        self.files[name] = None
        mark(self.out, self.files)
        yield self.out / name
        self.files[name] = digest(self.out / name)
        mark(self.out, self.files)


@contextlib.contextmanager
def claim_out(
    out: Path, kept: Collection[str] = (), noted: Mapping[str, str] | None = None
) -> Iterator[Claim]:
    """Hold ``out`` for one demo run: refuse it (:class:`DemoOutError`), before anything
    is written, when it holds :func:`foreign_files` (each name of ``noted`` shown with
    what it says of it) or another demo holds its lock; then create it and keep its lock
    until the run ends. The folder is looked at once: another demo writing there holds
    the lock, and is named as such."""
    survey = _survey(out, kept, noted)
    if survey.foreign:
        if _held(out):
            raise _held_error(out)
        shown = first_few(survey.foreign, 5)
        raise DemoOutError(
            f"{shown_file(str(out))}: holds files the demo did not write ({shown}); it deletes its "
            f"{STORE} there, replaces its {RESULTS} and {REPORT} and adds a run to its "
            f"{HISTORY}: give a new or empty folder, or one an earlier demo wrote and "
            f"marked ({MARK}) (nothing was written)"
        )
    out.mkdir(parents=True, exist_ok=True)
    lock = lock_at(out / LOCK)
    try:
        lock.acquire(blocking=False)
    except Timeout:
        raise _held_error(out) from None
    try:
        yield Claim(out, dict(survey.vouched))
    finally:
        lock.release()


def _held(out: Path) -> bool:
    """Whether another demo holds ``out``'s lock (no lock file is made to tell)."""
    if not (out / LOCK).is_file():
        return False
    lock = lock_at(out / LOCK)
    try:
        lock.acquire(blocking=False)
    except Timeout:
        return True
    lock.release()
    return False


def _held_error(out: Path) -> DemoOutError:
    return DemoOutError(
        f"{shown_file(str(out))}: another replaygate demo is writing there (it holds "
        f"{LOCK}); wait for it to end, or give another folder (nothing was written)"
    )


def _read_mark(out: Path) -> dict[str, str | None] | None:
    """The digests the demo's mark in ``out`` holds by file name (None: being written),
    or None when there is no mark there, or not one the demo wrote."""
    try:
        document = json.loads(read_regular_bytes(out / MARK))
    except (OSError, ValueError):  # not a regular file (a FIFO would wait for ever) too
        return None
    if not isinstance(document, dict) or document.get("format") != MARK_FORMAT:
        return None
    files = document.get("files")
    if not isinstance(files, dict):
        return None
    return {str(k): v if isinstance(v, str) and v else None for k, v in files.items()}


def mark(out: Path, files: Mapping[str, str | None]) -> None:
    """Leave the demo's mark in ``out``: the digest of each file of :data:`WRITTEN` it
    wrote (:func:`digest`), None for one being written."""
    document = {"format": MARK_FORMAT, "files": dict(files)}
    atomic_write(out / MARK, json.dumps(document, indent=2).encode() + b"\n")


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def digest(path: Path) -> str:
    """The digest the mark holds for the file at ``path`` (``sha256:`` and its hex)."""
    return "sha256:" + file_digest(path)


@dataclass(frozen=True)
class DemoSummary:
    """What the demo did and where it wrote it."""

    out_dir: Path
    store: Path
    results: Path
    history: Path
    report: Path
    seed: int
    cases: int
    runs: int
    fixture_count: int
    identical: bool
    metrics: Metrics
    gate: GateReport
    history_runs: int
    seconds: float
    currency: str = "USD"

    def lines(self) -> list[str]:
        """The lines the demo prints."""
        shown = " | ".join(f"{n} {METRICS[n].format(self.metrics.get(n))}" for n in SHOWN)
        return [
            f"recorded {self.cases} eval cases x their samples ({self.runs} agent runs) from the "
            f"simulator (seed {self.seed}): {self.fixture_count} fixtures in {self.store}",
            f"replayed offline with no server: identical to the recording: {self.identical}",
            f"scores: {shown} (cost in {self.currency} per run)",
            "gate against the shipped baseline:",
            *("  " + line for line in self.gate.text().splitlines()),
            f"history: {self.history} ({self.history_runs} run(s))",
            f"report: {self.report}",
            f"done in {self.seconds:.1f} s",
        ]


def demo_loop(
    out_dir: Path,
    *,
    seed: int = DEMO_SEED,
    baseline: Path | None = None,
    now: datetime | None = None,
    claim: Claim | None = None,
) -> DemoSummary:
    """Record, replay, score, gate, log and report the shipped eval cases in ``out_dir``.

    Recording goes to the loopback simulator only (never a paid API); it is approved
    here, for this call. ``out_dir``'s previous eval fixtures are replaced; its
    history grows by one run. ``out_dir`` is held for the run: by ``claim``, made by
    the caller's :func:`claim_out`, else claimed here (a :class:`DemoOutError` when it
    holds files the demo did not write, or another demo writes there).
    """
    anthropic = require("anthropic", "anthropic", "the demo's recording")
    if claim is not None:
        return _loop(claim, anthropic, seed=seed, baseline=baseline, now=now)
    with claim_out(out_dir) as claimed:
        return _loop(claimed, anthropic, seed=seed, baseline=baseline, now=now)


def _loop(
    claim: Claim, anthropic: Any, *, seed: int, baseline: Path | None, now: datetime | None
) -> DemoSummary:
    started = time.perf_counter()
    out_dir = claim.out
    cases_file = shipped_eval_cases()
    cases = load_eval_cases(cases_file)
    prices = shipped_prices()
    with claim.writing(STORE) as store:
        store.unlink(missing_ok=True)
        with Simulator(behavior="research-copilot", seed=seed) as sim:
            client = anthropic.Anthropic(api_key="sim-demo-key", base_url=sim.url, max_retries=0)
            live = AnthropicModel(
                client, model=SETTINGS.model, max_tokens=SETTINGS.max_tokens, system=SETTINGS.system
            )
            plan = RecordPlan(live, approve_live=True, source="sim")
            recorded = run_eval(cases, store, agent=copilot, recording=plan, prices=prices)
    try:
        commit = head_commit(Path.cwd())
    except GitError:  # a folder git refuses to read: the demo's run keeps no commit
        commit = None
    info = {"commit": commit, "cases_file": SHIPPED_CASES}
    replayed = run_eval(cases, store, agent=copilot, prices=prices, info=info)
    identical = recorded.to_json()["cases"] == replayed.to_json()["cases"]
    with claim.writing(RESULTS) as results_path:
        results = replayed.write(results_path)
    reference = load_reference(baseline or shipped_baseline())
    gate = run_gate(reference, Reference.of(replayed, str(results)), GateConfig())
    with claim.writing(HISTORY) as history_path, History.open(history_path) as history:
        history.append(replayed)
        history_runs = len(history)
        with claim.writing(REPORT) as report_path:
            report = write_report(report_path, history=history, stores=[store], gate=gate, now=now)
    with FixtureStore.open(store) as opened:
        fixture_count = len(opened)
    return DemoSummary(
        out_dir=out_dir,
        store=store,
        results=results,
        history=history_path,
        report=report,
        seed=seed,
        cases=len(cases),
        runs=sum(case.samples for case in cases),
        fixture_count=fixture_count,
        identical=identical,
        metrics=replayed.metrics,
        gate=gate,
        history_runs=history_runs,
        seconds=time.perf_counter() - started,
        currency=prices.currency,
    )
