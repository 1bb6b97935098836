"""``report`` and ``history export`` / ``history merge``: the eval history."""

from __future__ import annotations

from pathlib import Path

import click

from replaygate.cli.options import (
    CommandError,
    config_option,
    errors_as_exit_2,
    file_option,
    history_option,
)
from replaygate.evals.config import load_config
from replaygate.evals.gate import run_gate
from replaygate.evals.history import History, read_export
from replaygate.evals.reference import load_reference


@click.command("report")
@file_option("--out", default="report.html")
@history_option
@click.option(
    "--fixtures",
    "fixture_paths",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Stores for the fixture age histogram (default: [tool.replaygate] fixtures).",
)
@file_option("--results", "results_path")
@file_option("--baseline", "baseline_path")
@config_option
@errors_as_exit_2
def report_cmd(
    out: Path,
    history_path: Path | None,
    fixture_paths: tuple[Path, ...],
    results_path: Path | None,
    baseline_path: Path | None,
    config_path: Path | None,
) -> None:
    """Write a self-contained HTML report of the history (with the gate, given --results)."""
    from replaygate.report import write_report

    config = load_config(config_path)
    stores = list(fixture_paths) or ([config.fixtures] if config.fixtures else [])
    gate = None
    if results_path is not None:
        baseline = load_reference(baseline_path or config.baseline_path)
        gate = run_gate(baseline, load_reference(results_path), config.gate)
    written = write_report(
        out,
        history=history_path or config.history_path,
        stores=stores,
        config=config.report,
        gate=gate,
    )
    click.echo(f"report: {written}")


@click.group("history")
def history_group() -> None:
    """The SQLite eval history: export runs as JSON, merge them into another history."""


@history_group.command("export")
@file_option("--out", required=True)
@click.option("--last", type=click.IntRange(min=1), help="Only the newest N runs.")
@history_option
@config_option
@errors_as_exit_2
def history_export(
    out: Path, last: int | None, history_path: Path | None, config_path: Path | None
) -> None:
    """Write the history's runs as JSON (for merging elsewhere)."""
    target = history_path or load_config(config_path).history_path
    if not target.is_file():
        raise CommandError(f"no history at {target}: run `replaygate eval` first")
    with History.open(target) as history:
        count = history.export_to(out, last=last)
    click.echo(f"exported {count} run(s) from {target} to {out}")


@history_group.command("merge")
@click.argument("exports", nargs=-1, required=True, type=click.Path(path_type=Path))
@history_option
@config_option
@errors_as_exit_2
def history_merge(
    exports: tuple[Path, ...], history_path: Path | None, config_path: Path | None
) -> None:
    """Add the runs of exported EXPORTS that the history does not have yet."""
    target = history_path or load_config(config_path).history_path
    runs = [run for export in exports for run in read_export(export)]
    with History.open(target) as history:
        added, skipped = history.merge(runs)
    click.echo(f"merged into {target}: {added} run(s) added, {skipped} already there")
