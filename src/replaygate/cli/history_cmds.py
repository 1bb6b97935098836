"""``report`` and ``history export`` / ``history merge``: the eval history."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from replaygate.cli.json_docs import echo_json
from replaygate.cli.options import (
    CommandError,
    PathParam,
    config_option,
    errors_as_exit_2,
    file_option,
    history_option,
    in_project,
    json_option,
    new_history_note,
    other_config,
)
from replaygate.click_numbers import DigitsInt
from replaygate.click_once import OnceCommand, OnceGroup
from replaygate.errors import first_few, shown_file
from replaygate.evals.baseline import load_gated
from replaygate.evals.config import Config, load_config
from replaygate.evals.gate import run_gate
from replaygate.evals.history import History, HistoryRun, read_export
from replaygate.evals.preflight import check_not_an_input, check_writable
from replaygate.evals.results import project_path
from replaygate.fixtures.store.files import existing_store
from replaygate.outputs import open_fifo


@click.command("report", cls=OnceCommand)
@file_option("--out", default="report.html", show_default=True, help="The HTML file to write.")
@history_option
@click.option(
    "--fixtures",
    "fixture_paths",
    multiple=True,
    type=PathParam(path_type=Path),
    help="Stores for the fixture age histogram (default: [tool.replaygate] fixtures).",
)
@file_option("--results", "results_path", help="Also show the gate of these eval results.")
@click.option(
    "--cases",
    "cases_path",
    type=PathParam(path_type=Path),
    help="Report on the runs of this cases file (default: [tool.replaygate] cases when "
    "the history has runs of it, else the latest run's).",
)
@file_option(
    "--baseline",
    "baseline_path",
    help="The baseline the gate compares with (default: [tool.replaygate] baseline).",
)
@config_option
@errors_as_exit_2
def report_cmd(
    out: Path,
    history_path: Path | None,
    fixture_paths: tuple[Path, ...],
    results_path: Path | None,
    cases_path: Path | None,
    baseline_path: Path | None,
    config_path: Path | None,
) -> None:
    """Write a self-contained HTML report of the history (with the gate, given --results).

    The report shows the latest run, the maintenance signals (replays of the same
    recorded answers count once), the metrics over time, the weekly pass rate of
    each assertion and the age of the fixtures, from the runs of one cases file (runs
    of other cases files are named as left out).

    Example:

    \b
        replaygate report --out report.html --results results.json
    """
    from replaygate.report import write_report

    if baseline_path is not None and results_path is None:
        raise CommandError(
            "--baseline needs --results: the report's gate compares a results file with "
            "the baseline (replaygate report --results results.json --baseline BASELINE)"
        )
    # the project of the files gated, as `gate` takes it: its limits, history and stores
    config = load_config(config_path, near=baseline_path or results_path)
    missing = [shown_file(str(path)) for path in fixture_paths if not os.path.lexists(path)]
    if missing:
        raise CommandError(f"--fixtures {', '.join(missing)}: no such store (a typo?)")
    for path in fixture_paths:
        existing_store(path)  # a symlink loop or to nothing, a FIFO: named as what it is
    stores = list(fixture_paths) or ([config.fixtures] if config.fixtures else [])
    history = history_path or config.history_path
    if not os.path.lexists(history) and in_project(history, "--history", config):
        raise CommandError(_no_history(history, config))  # the page names the rest
    baseline_file = baseline_path or config.baseline_path
    inputs = {
        "the history": history,
        "the results file": results_path,
        "the baseline": baseline_file,
        "the config": other_config(config.file),
    }
    stored = {f"the fixture store {s}": s for s in stores}
    check_not_an_input(out, {**inputs, **stored}, page=True, own=_is_page)
    check_writable(out)  # before the charts are drawn, as eval checks before it runs
    gate = None
    if results_path is not None:  # refused (no case in common) before the output is opened
        gate = run_gate(*load_gated(baseline_file, results_path), config.gate)
    left_out: list[str] = []
    other_cases: list[str] = []
    written = write_report(
        out,
        history=history,
        stores=stores,
        config=config.report,
        gate=gate,
        left_out=left_out,
        cases=project_path(cases_path, config.root) if cases_path is not None else None,
        prefer=project_path(config.cases, config.root) if config.cases is not None else None,
        other_cases=other_cases,
    )
    for note in left_out:
        click.echo(f"note: left out of the report, damaged: {note}", err=True)
    for note in other_cases:
        click.echo(
            f"note: left out of the report, runs of another cases file: {note} "
            "(--cases FILE reports on them)",
            err=True,
        )
    click.echo(f"report: {shown_file(str(written))}")


def _is_page(head: bytes) -> bool:
    """Whether a file opening with ``head`` is an HTML page (a report written before)."""
    return head.lstrip()[:15].lower() == b"<!doctype html>"


@click.group("history", cls=OnceGroup)
def history_group() -> None:
    """The SQLite eval history: export runs as JSON, merge them into another history.

    Example:

    \b
        replaygate history export --last 10 --json
    """


@history_group.command("export")
@file_option("--out", help="The JSON file to write (or --json: print it).")
@click.option("--last", type=DigitsInt(min=1), help="Only the newest N runs.")
@history_option
@json_option
@config_option
@errors_as_exit_2
def history_export(
    out: Path | None,
    last: int | None,
    history_path: Path | None,
    as_json: bool,
    config_path: Path | None,
) -> None:
    """Write the history's runs as JSON (for merging elsewhere).

    Example:

    \b
        replaygate history export --out history.json --last 50
    """
    if (out is None) == (not as_json):
        raise click.UsageError("give --out FILE or --json (one of them)")
    config = load_config(config_path)
    target = history_path or config.history_path
    if not os.path.lexists(target):  # a symlink loop, or to nothing: History.open says so
        raise CommandError(_no_history(target, config))
    if out is not None:
        inputs = {"the history": target, "the config": other_config(config.file)}
        check_not_an_input(out, inputs, export=True)
        check_writable(out)
        open_fifo(out)
    with History.open(target, read_only=True) as history:
        for note in history.leftovers():  # rows of no run: nothing to export, said so
            click.echo(f"note: not exported: {note}", err=True)
        if out is None:
            echo_json(history.export(last=last))
            return
        count = history.export_to(out, last=last)
    click.echo(f"exported {count} run(s) from {shown_file(str(target))} to {shown_file(str(out))}")


def _differing(stored: dict[str, Any], runs: list[HistoryRun]) -> set[str]:
    """The ids of ``runs`` whose run differs from the one kept under the id: stored before
    the merge, or met first among the exports."""
    kept = dict(stored)
    found = set()
    for run in runs:
        document = run.to_json()
        if kept.setdefault(run.id, document) != document:
            found.add(run.id)
    return found


def _once(runs: list[HistoryRun]) -> list[HistoryRun]:
    """``runs`` without a run met before, the same (an export given twice, two exports
    sharing runs): each is counted once; a different run under an id met before is kept,
    for :func:`_differing` to name."""
    seen: dict[str, list[dict[str, Any]]] = {}
    kept = []
    for run in runs:
        document = run.to_json()
        if document not in seen.setdefault(run.id, []):
            seen[run.id].append(document)
            kept.append(run)
    return kept


@history_group.command("merge")
@click.argument("exports", nargs=-1, required=True, type=PathParam(path_type=Path))
@history_option
@config_option
@errors_as_exit_2
def history_merge(
    exports: tuple[Path, ...], history_path: Path | None, config_path: Path | None
) -> None:
    """Add the runs of exported EXPORTS that the history does not have yet.

    Example:

    \b
        replaygate history merge ci-history.json
    """
    config = load_config(config_path)
    target = history_path or config.history_path
    runs = _once([run for export in exports for run in read_export(export)])
    new_history_note(history_path, config)
    with History.open(target) as history:
        # the runs kept under the export's ids alone: reading every run of a history of
        # thousands, each checked whole, took a minute to merge one
        stored = history.runs(skipped=[], ids={run.id for run in runs})
        before = {run.id: run.to_json() for run in stored}
        added, skipped = history.merge(runs)
    click.echo(
        f"merged into {shown_file(str(target))}: {added} run(s) added, {skipped} already there"
    )
    differing = sorted(_differing(before, runs))
    if differing:
        shown = first_few(differing, 5)
        click.echo(
            f"note: {len(differing)} run(s) already there differ from the export's ({shown}): "
            "a run is merged once, by its id, so the history kept its own; the export's "
            "were not stored (an edited export, or another history's run under the same id)",
            err=True,
        )


def _no_history(path: Path, config: Config) -> str:
    """Why a command that reads the history at ``path`` cannot: there is none, with where
    the project folder has one of that name when ``path`` was read from the working
    folder."""
    elsewhere = in_project(path, "--history", config)
    return f"no history at {shown_file(str(path))}: " + (
        f"it is read from the working folder, {Path.cwd()}; {elsewhere}"
        if elsewhere is not None
        else "run `replaygate eval` first"
    )
