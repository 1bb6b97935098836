"""Fixture hygiene commands: ``drift``, ``patrol``, ``prune`` (``checksum`` and ``diff``,
which a pre-commit hook or a CI step runs, are modules of their own that import little).

Exit status: 0 when all is well, 1 when the check found something (an alarm, a
drift), 2 for a usage error or when the check could not run (nothing was changed).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard

import click
from click.core import ParameterSource

from replaygate.base_url import refused_base_url
from replaygate.cli.json_out import echo_json, json_text
from replaygate.cli.long_lists import more_line, terminal_limit
from replaygate.cli.options import (
    CommandError,
    PathParam,
    fail,
    file_option,
    json_option,
    note_other_files,
    refuse_no_store,
)
from replaygate.click_numbers import DigitsInt
from replaygate.click_once import OnceCommand
from replaygate.errors import ReplaygateError, shown_file
from replaygate.evals.progress import Bar, Quiet, reporter
from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.hits import DEFAULT_DIR
from replaygate.fixtures.modes import require_live_approval
from replaygate.fixtures.store.files import resolved
from replaygate.hygiene.age import DEFAULT_MAX_AGE, parse_max_age
from replaygate.hygiene.drift import (
    LIVE_DRIFT,
    SIM_DRIFT,
    DriftReport,
    drift_against,
    drift_live,
)
from replaygate.hygiene.drift_report import render_drift
from replaygate.hygiene.errors import HygieneError
from replaygate.hygiene.patrol import Patrol, PatrolRow, patrol, shown, with_eval_stores
from replaygate.hygiene.patrol_report import (
    age_text,
    failed_tests_line,
    missing_refs_line,
    render_patrol,
    unsearched,
)
from replaygate.hygiene.prune import LINKED, candidates, delete, refuse_running, running_line
from replaygate.hygiene.refs import holds_code
from replaygate.hygiene.resend import LiveSender
from replaygate.hygiene.usage import project_folder
from replaygate.locale_names import on_disk
from replaygate.outputs import write_text
from replaygate.seed import SIMULATOR_SEED
from replaygate.sim.behavior_option import behavior_option

if TYPE_CHECKING:
    from replaygate.sim.behaviors import Behavior


DEFAULT_BEHAVIOR_NOTE = (
    "note: the simulator answered as research-copilot, the default --behavior, which is how "
    "record, eval and demo with --simulator record; fixtures the pytest plugin recorded with "
    "--replaygate-simulator=echo or =script:FILE are answered in another form by it, which "
    "shows as this drift: give --behavior as they were recorded (echo, script:FILE)"
)
"""Said under a drift found by the simulator answering as its default behaviour, which
may not be the one the fixtures were recorded from."""


@click.command(cls=OnceCommand)
@click.argument("path", type=PathParam(path_type=Path))
@click.option(
    "--live-sample",
    type=DigitsInt(min=1),
    metavar="N",
    help="Re-send N sampled recorded requests to the live API (needs --approve-live).",
)
@click.option("--approve-live", is_flag=True, help="Approve live (paid) API calls for this run.")
@click.option("--base-url", help="Send to this server instead of the providers' API URLs.")
@click.option("--simulator", is_flag=True, help="Send to the built-in loopback simulator instead.")
@behavior_option(
    "With --simulator: how it answers, as the fixtures were recorded: research-copilot "
    "(record, eval or demo with --simulator), echo, or script:FILE (the script they were "
    "recorded from, as the pytest plugin takes it). Another behaviour answers in another "
    "form, which shows as drift.",
    seed=SIMULATOR_SEED,
)
@click.option(
    "--sim-drift",
    metavar="SPEC",
    help="With --simulator: drift to inject, e.g. add-field:usage.foo,drop-field:stop_sequence.",
)
@click.option(
    "--sample-seed",
    "--seed",
    "sample_seed",
    default=0,
    show_default=True,
    type=DigitsInt(),
    help="Seed of the draw of which fixtures are re-sent (not the simulator's seed).",
)
@click.option(
    "--against",
    type=PathParam(path_type=Path),
    metavar="OTHER_PATH",
    help="Compare with another fixture set instead (offline).",
)
@file_option("--report", "report_path", help="Also write the text report to this file.")
@file_option("--json-out", "json_path", help="Also write the report as JSON to this file.")
@json_option
def drift(
    path: Path,
    live_sample: int | None,
    approve_live: bool,
    base_url: str | None,
    simulator: bool,
    behavior: Behavior,
    sim_drift: str | None,
    sample_seed: int,
    against: Path | None,
    report_path: Path | None,
    json_path: Path | None,
    as_json: bool,
) -> None:
    """Compare the response field sets of the fixtures at PATH with live responses.

    Both ways: fields the live API sends that no fixture has, and fields the fixtures
    have that the live API no longer sends. Exit 1 on drift; 2 without --approve-live
    (nothing is sent) or when a request failed. --against OTHER_PATH compares two
    fixture sets offline instead.

    Example:

    \b
        replaygate drift tests/fixtures --live-sample 5 --approve-live --simulator
    """
    if live_sample is not None and against is not None:
        raise click.UsageError(
            "--live-sample N and --against OTHER_PATH are two modes of drift (re-send "
            "recorded requests to the live API, or compare with another fixture set "
            "offline): give one, not both"
        )
    if live_sample is None and against is None:
        raise click.UsageError("give --live-sample N (with --approve-live) or --against OTHER_PATH")
    if against is not None and (approve_live or base_url or simulator):
        raise click.UsageError(
            "--against compares fixture sets offline; --approve-live, --base-url and "
            "--simulator go with --live-sample"
        )
    if sim_drift is not None and not simulator:
        raise click.UsageError("--sim-drift goes with --simulator")
    given = click.get_current_context().get_parameter_source("behavior")
    if given is ParameterSource.COMMANDLINE and not simulator:
        raise click.UsageError("--behavior goes with --simulator")
    if simulator and base_url:
        raise click.UsageError("give --simulator or --base-url, not both")
    refused = None if base_url is None else refused_base_url("--base-url", base_url)
    if refused is not None:  # "" too: not the providers' URLs instead
        raise click.UsageError(f"{refused}; nothing was sent")
    _check_drift_outputs(path, against, report_path, json_path)
    note_other_files(path, against)
    try:
        if live_sample is not None:
            why = SIM_DRIFT if simulator else LIVE_DRIFT
            require_live_approval(approve_live, why=why, how="add --approve-live")
        if against is not None:
            report = drift_against(path, against)
        else:
            assert live_sample is not None
            sim = behavior if simulator else None
            report = _drift_live(path, live_sample, base_url, sim, sim_drift, sample_seed)
    except ReplaygateError as err:
        fail(err)
    text = render_drift(report)
    if as_json:
        echo_json(report.to_json())
    else:
        click.echo(text, nl=False)
    if report_path is not None:
        write_text(report_path, text)
    if json_path is not None:
        write_text(json_path, json_text(report.to_json()) + "\n")
    if report.drifted:
        if simulator and given is not ParameterSource.COMMANDLINE and sim_drift is None:
            click.echo(DEFAULT_BEHAVIOR_NOTE, err=True)
        raise SystemExit(1)
    if report.verdict is None:  # not checked whole: no pass
        raise SystemExit(2)


def _check_drift_outputs(
    path: Path, against: Path | None, report_path: Path | None, json_path: Path | None
) -> None:
    """Refuse, before a request is sent, a --report or --json-out that names a fixture
    set compared, or a file replaygate keeps (the fixtures, a baseline, eval cases,
    results...), or that cannot be written: it was replaced by the report. Both naming
    one file are refused too: the second written replaced the first."""
    from replaygate.evals.preflight import check_not_an_input, check_writable
    from replaygate.hygiene.drift_outputs import output_problem
    from replaygate.outputs import open_fifo
    from replaygate.regular import same_file

    if report_path is not None and json_path is not None and same_file(report_path, json_path):
        raise click.UsageError(
            f"{json_path}: named by both --report and --json-out: the JSON would replace "
            "the text report; give each its own file (nothing was sent)"
        )
    inputs = {"the fixture set compared": path, "the other fixture set": against}
    for out, own in ((report_path, _is_drift_text), (json_path, _is_drift_json)):
        if out is not None:
            check_not_an_input(out, inputs, page=True, own=own)
            check_writable(out)
            problem = output_problem(out, inputs)
            if problem is not None:
                raise CommandError(problem)
            open_fifo(out)


def _is_drift_text(head: bytes) -> bool:
    """Whether a file opening with ``head`` is a drift report written before."""
    return head.startswith(b"drift: ")


def _is_drift_json(head: bytes) -> bool:
    """Whether a file opening with ``head`` is a drift JSON report written before (tagged
    with its ``format``, or, written by an earlier version, opening with its ``mode``)."""
    from replaygate.fixtures.store.folder import kind_of
    from replaygate.hygiene.drift import DRIFT_FORMAT

    return re.match(rb'\{\s*"mode"\s*:', head) is not None or kind_of(head) == DRIFT_FORMAT


def _drift_live(
    path: Path,
    n: int,
    base_url: str | None,
    behavior: Behavior | None,
    sim_drift: str | None,
    sample_seed: int,
) -> DriftReport:
    """Re-send ``n`` sampled requests to ``base_url``, or to the simulator answering as
    ``behavior`` when one is given."""
    from replaygate.hygiene.drift_script import script_lines
    from replaygate.sanitize import sanitizer_for
    from replaygate.sim import DriftPlan, DriftSpecError, Simulator

    sanitizer = sanitizer_for(path)
    try:
        plan = DriftPlan() if sim_drift is None else DriftPlan.parse(sim_drift, allow_empty=False)
    except DriftSpecError as err:
        raise click.BadParameter(str(err), param_hint="--sim-drift") from None
    sim = Simulator(behavior, seed=SIMULATOR_SEED, drift=plan) if behavior is not None else None
    with contextlib.ExitStack() as stack:
        if sim is not None:
            base_url = stack.enter_context(sim).url
        bar = reporter(n, label="drift")
        stack.enter_context(bar)
        sender = CountingSender(base_url, sanitizer=sanitizer, bar=bar)
        stack.callback(sender.close)
        script = script_lines(behavior)
        report = drift_live(path, n, sender, sample_seed, approve_live=True, script=script)
        unmatched = sim.unmatched_drift() if sim is not None and report.sampled else ()
    for rule in unmatched:
        click.echo(
            f"note: --sim-drift rule '{rule}' changed no answer: none has that path, or each "
            "holds that value already, so it injected no drift",
            err=True,
        )
    return dataclasses.replace(report, uninjected=tuple(str(rule) for rule in unmatched))


@dataclass
class CountingSender(LiveSender):
    """A :class:`LiveSender` that advances a progress bar after each request."""

    bar: Bar | Quiet = field(default_factory=Quiet)

    def send(self, fixture: Fixture) -> Any:
        """Send ``fixture``'s request, then count it."""
        try:
            return super().send(fixture)
        finally:
            self.bar.advance(f"key {fixture.key}")


def _usage_options(fn: click.decorators.FC) -> click.decorators.FC:
    """``--runs``, ``--refs`` and ``--hits-dir``: what counts as used. Both folders default
    to the project's (:func:`_project_defaults`), whatever folder the command runs from."""
    fn = click.option(
        "--hits-dir",
        type=PathParam(file_okay=False, path_type=Path),
        default=None,
        help="The hits log the pytest plugin writes [default: hits of [tool.replaygate] "
        "in pyproject.toml, else .replaygate/hits in the project's folder].",
    )(fn)
    fn = click.option(
        "--refs",
        multiple=True,
        type=PathParam(path_type=Path),
        help="A folder of code to search for references (repeatable) "
        "[default: tests in the project's folder].",
    )(fn)
    fn = click.option(
        "--runs",
        type=DigitsInt(min=1),
        default=5,
        show_default=True,
        help="How many of the last recorded test runs count.",
    )(fn)
    return fn


def _project_defaults(path: Path, hits_dir: Path | None) -> tuple[Path, Path, Path | None]:
    """The hits log (``hits_dir`` when given) and default reference folder of the store at
    ``path``, and the project folder the log's store paths are relative to (for a
    ``hits_dir`` given that is not the project's log, None:
    :func:`~replaygate.hygiene.usage.project_root`). The project is the store's
    (:func:`~replaygate.hygiene.usage.project_folder`: where pytest, run in it, takes its
    rootdir), named from the current folder; its hits log is where the plugin writes it
    (:func:`~replaygate.evals.config.hits_folder`: ``[tool.replaygate] hits``, else
    ``.replaygate/hits`` under the project folder)."""
    from replaygate.config import store_pyproject
    from replaygate.evals.config import hits_folder  # the eval commands' own

    folder = project_folder(path)
    root = Path(shown(folder))
    if hits_dir is not None:  # the project's own log named (as patrol's prune line does)
        try:
            own = resolved(hits_folder(store_pyproject(None, folder), folder))
        except ReplaygateError:  # a setting refused: the folder given is not it
            own = None
        if not os.path.lexists(hits_dir):  # a slip of the name: not a log of no run
            log = f"; the project's hits log is {shown(own)}" if own is not None else ""
            raise CommandError(f"--hits-dir {shown(hits_dir)}: no such directory{log}")
        return hits_dir, root / "tests", folder if resolved(hits_dir) == own else None
    hits = hits_folder(store_pyproject(None, folder), folder)
    shown_hits = root / DEFAULT_DIR if hits == folder / DEFAULT_DIR else Path(shown(hits))
    return shown_hits, root / "tests", folder


def _patrol(
    path: Path,
    given: str | None,
    runs: int,
    refs: tuple[Path, ...],
    hits_dir: Path | None,
    *,
    stale: bool = True,
) -> Patrol:
    """The patrol of the store at ``path``; with ``stale``, fixtures older than the
    ``--max-age`` ``given`` (else the project's, :func:`_max_age`) are flagged, read once
    the store is found (a missing store is named before the project's settings)."""
    refuse_no_store(path, note_other_files(path))
    hits, default_refs, root = _project_defaults(path, hits_dir)
    folders, missing = list(refs), None
    if not refs:  # a default folder that is not there searches nothing, and says so
        searched = default_refs.is_dir() and holds_code(default_refs)
        folders, missing = ([default_refs], None) if searched else ([], default_refs)
    max_age, written = _max_age(path, given) if stale else (None, None)
    result = patrol(
        path,
        max_age=max_age,
        max_age_written=written,
        runs=runs,
        refs=folders,
        hits_dir=hits,
        missing_refs=missing,
        root=root,
    )
    if hits_dir is None and root is not None:
        _refuse_other_logs(result, root)
    return result


def _refuse_other_logs(result: Patrol, root: Path) -> None:
    """Refuse a patrol of stores of a project below ``root`` (a monorepo's package, its
    own ``pyproject.toml`` or pytest config) whose runs log their plays to a hits log of
    its own, there: read from ``root``'s log, its fixtures would read as unplayed, and
    ``prune`` delete them."""
    from replaygate.config import store_pyproject
    from replaygate.evals.config import hits_folder  # the eval commands' own

    own = resolved(result.hits_dir)
    seen: set[Path] = set()
    for row in result.rows:
        if row.file.parent in seen:
            continue
        seen.add(row.file.parent)
        project = project_folder(row.file)
        if project == root:
            continue
        log = hits_folder(store_pyproject(None, project), project)
        if resolved(log) != own and log.is_dir():
            raise HygieneError(
                f"{shown_file(row.where)} is a store of the project at {shown(project)}, whose "
                f"runs log the fixtures they play to {shown(log)}, not to {shown(result.hits_dir)}"
                f", the log of the project at {shown(root)} read for {shown(result.path)}: its "
                "fixtures would read as unplayed. Patrol and prune each project's stores apart "
                f"(replaygate patrol {shown_file(shown(project))})"
            )


def _max_age(path: Path, given: str | None) -> tuple[timedelta, str | None]:
    """``--max-age`` when given, else the ``[tool.replaygate.patrol] max_age`` of the
    project owning ``path``, else :data:`DEFAULT_MAX_AGE`; with it as written (``12w``),
    None for the default."""
    if given is not None:
        return parse_max_age(given), given.strip()
    from replaygate.evals.config import load_config  # the eval commands' own

    configured = load_config(near=path).patrol
    if configured.max_age is None:
        return DEFAULT_MAX_AGE, None
    return configured.max_age, configured.max_age_written


@click.command("patrol", cls=OnceCommand)
@click.argument("path", type=PathParam(path_type=Path))
@click.option(
    "--max-age",
    default=None,
    help="Older fixtures are flagged stale (h, d or w: 36h, 90d, 12w) "
    "[default: max_age of [tool.replaygate.patrol] in pyproject.toml, else 90d].",
)
@_usage_options
@json_option
def patrol_cmd(
    path: Path,
    max_age: str | None,
    runs: int,
    refs: tuple[Path, ...],
    hits_dir: Path | None,
    as_json: bool,
) -> None:
    """Age, use and references of every fixture under PATH, oldest first.

    Age from meta.recorded_at; use from the hits log of the last --runs test runs (a
    store a test that did not pass played keeps every fixture); references from the
    files under --refs that name a fixture's store file or key. The hits log and the
    references default to the project's (the folder of the pyproject.toml or pytest
    configuration above PATH), whatever folder this runs from.

    Example:

    \b
        replaygate patrol tests/fixtures --max-age 90d --json
    """
    try:
        result = _patrol(path, max_age, runs, refs, hits_dir)
        judged = [row for row in result.rows if row.unused and not row.eval_store]
        if result.test_sessions and judged:  # by test sessions: the eval's read only then
            result = with_eval_stores(result, _eval_stores(path, runs, then=""))
    except ReplaygateError as err:
        fail(err)
    if as_json:
        echo_json(result.to_json())
    else:
        limit = terminal_limit()
        hidden = len(result.rows) - (limit or 0)
        click.echo(render_patrol(result, limit, more_line(hidden, "fixture(s)")), nl=False)


_READ_TO_TELL = (
    " (patrol and prune read it to tell the eval's stores, which no test session plays): "
    "make it readable, or move it aside"
)


def _eval_stores(path: Path, runs: int, then: str = "; nothing deleted") -> list[tuple[Path, str]]:
    """The stores the project owning ``path`` knows an eval plays, each with where it is
    named: ``[tool.replaygate] fixtures``, the ``source.fixtures`` of its baseline (the
    store of the run it was made of) and the ``fixtures`` of each of the last ``runs``
    runs of its history (a store given as ``eval --fixtures PATH`` only). A relative
    name is the project's, as ``eval`` run from the project's folder gives it; a baseline
    or history that cannot be read is an error (its message ends with ``then``), as what
    it names would be offered."""
    from replaygate.evals.config import load_config  # the eval commands' own, read here only

    config = load_config(near=path)
    stores = [(config.fixtures, "[tool.replaygate] fixtures")] if config.fixtures else []
    baseline = Path(shown(config.baseline_path))  # named as the user would
    if baseline.exists():
        where = f"source.fixtures of the baseline {shown(baseline)}"
        stores += [(config.root / name, where) for name in _baseline_fixtures(baseline, then)]
    history = Path(shown(config.history_path))
    if history.exists():
        where = f"an eval run of the history {shown(history)}"
        stores += [(config.root / name, where) for name in _history_fixtures(history, runs, then)]
    seen: set[Path] = set()
    known = []
    for store, where in stores:
        real = resolved(store)
        if real not in seen:
            seen.add(real)
            known.append((store, where))
    return known


def _baseline_fixtures(baseline: Path, then: str) -> list[str]:
    """The store the run a baseline was made of played (its ``source.fixtures``), as the
    file system names it (:func:`~replaygate.locale_names.on_disk`)."""
    from replaygate.evals.results import read_json

    try:
        document = read_json(baseline, "the baseline")
    except ReplaygateError as err:
        raise HygieneError(f"{err}{_READ_TO_TELL}{then}") from None
    source = document.get("source") if isinstance(document, dict) else None
    name = source.get("fixtures") if isinstance(source, dict) else None
    return [on_disk(name)] if _file_name(name) else []


def _history_fixtures(history: Path, runs: int, then: str) -> list[str]:
    """The stores the last ``runs`` runs of a history played (each one's ``info.fixtures``),
    as the file system names them."""
    from replaygate.evals.history import History

    try:  # a damaged run is an error too: the store it names would be offered
        with History.open(history, read_only=True) as opened:
            played = opened.runs(last=runs)
    except ReplaygateError as err:
        raise HygieneError(f"{err}{_READ_TO_TELL}{then}") from None
    names = (run.info.get("fixtures") for run in played)
    return list(dict.fromkeys(on_disk(n) for n in names if _file_name(n)))


def _file_name(name: object) -> TypeGuard[str]:
    """Whether ``name`` may name a file: a text, not empty, without a NUL (no file name
    holds one; a baseline edited by hand may)."""
    return isinstance(name, str) and bool(name) and "\x00" not in name


@click.command(cls=OnceCommand)
@click.argument("path", type=PathParam(path_type=Path))
@click.option(
    "--unused",
    is_flag=True,
    help="Prune the fixtures neither played in the last --runs runs nor referenced.",
)
@_usage_options
@click.option("--yes", is_flag=True, help="Delete them (without it: a dry run that lists them).")
def prune(
    path: Path, unused: bool, runs: int, refs: tuple[Path, ...], hits_dir: Path | None, yes: bool
) -> None:
    """List (dry run) or delete (--yes) the unused fixtures under PATH.

    A fixture still played by a recent run or referenced from code is never deleted, nor
    one in a store that a test which did not pass (failed, errored, interrupted) played.
    Each file is backed up (<name>.bak) before it is rewritten or removed. Without
    --refs, the project's tests folder is searched, and nothing is offered when it is
    not there.

    Example:

    \b
        replaygate prune tests/fixtures --unused --runs 5
    """
    if not unused:
        raise click.UsageError(
            "say what to prune: --unused (fixtures neither played in the last --runs "
            "runs nor referenced)"
        )
    try:
        result = _patrol(path, None, runs, refs, hits_dir, stale=False)
        doomed = candidates(result, lambda: _eval_stores(path, runs))
        kept_played = sum(1 for r in result.rows if r.plays)
        kept_refs = sum(1 for r in result.rows if r.refs and not r.plays)
        held = len(result.held_by_failures)
        failed = f", {held} in stores of tests that did not pass" if held else ""
        kept_new = sum(1 for r in result.new if not r.refs and not r.held_by_failure)
        since = (
            f", {kept_new} new (recorded after the newest run counted started)" if kept_new else ""
        )
        click.echo(
            f"{len(result.rows)} fixture(s) under {path}; last {result.test_sessions} test "
            f"session(s), {len(result.runs) - result.test_sessions} eval run(s); "
            f"kept: {kept_played} played, {kept_refs} referenced only{failed}{since}"
        )
        if held:
            click.echo(f"  {failed_tests_line(result)}")
        for row in doomed:
            recorded = (
                "age unknown"
                if row.age is None
                else "recorded in the future: a wrong clock or an edited date"
                if row.future
                else age_text(row.age) + " old"
            )
            click.echo(f"  {shown_file(row.where)}  key {row.key}  ({recorded})")
        if not doomed:
            click.echo("nothing to prune")
            return
        if not yes:
            click.echo(f"dry run: would delete {len(doomed)} fixture(s); add --yes to delete")
            if result.missing_refs is not None:
                click.echo(f"{missing_refs_line(result)}: --yes deletes nothing until then")
            running = running_line(result)
            if running is not None:
                click.echo(f"{running}: --yes deletes nothing until it has ended")
            return
        _refuse_unsearched(result, doomed)
        refuse_running(result)
        done = delete(path, doomed)
    except ReplaygateError as err:
        fail(err)
    click.echo(f"deleted {len(done.deleted)} fixture(s)")
    if done.gone:
        click.echo(
            f"  {len(done.gone)} listed fixture(s) were gone once the store's lock was taken "
            "(another prune removed them, or a recording changed them, first: "
            "a changed one is kept)"
        )
    for file in done.files_removed:
        click.echo(f"  removed: {shown_file(str(file))}")
    for backup in done.backups:
        click.echo(f"  backup: {shown_file(str(backup))}")
    for file in done.linked:
        click.echo(f"  {shown_file(str(file))}: {LINKED}")


def _refuse_unsearched(result: Patrol, doomed: list[PatrolRow]) -> None:
    """Refuse to delete while no reference was searched, the default ``--refs`` folder (the
    project's ``tests``) not being there: code elsewhere may name what no run played."""
    if result.missing_refs is None:
        return
    others = f" and {len(doomed) - 1} more" if len(doomed) > 1 else ""
    raise HygieneError(
        f"{unsearched(result.missing_refs)}, so code may name {doomed[0].where}{others}, "
        "which no run counted played: name the folders of code that may name a store with "
        "--refs (e.g. --refs test --refs src); nothing deleted"
    )
