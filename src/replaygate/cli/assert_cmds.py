"""``replaygate calibrate export|score`` and ``replaygate flaky``."""

from __future__ import annotations

import importlib.util
import json
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import click

from replaygate.cli.options import CommandError, PathParam, file_option
from replaygate.click_numbers import DigitsInt
from replaygate.click_once import OnceCommand, OnceGroup
from replaygate.errors import ReplaygateError, shell_path
from replaygate.evals.preflight import check_not_an_input, check_writable
from replaygate.regular import not_regular
from replaygate.sampling.calibration import (
    export_sheet,
    format_agreements,
    score_sheet,
    sidecar_path,
)
from replaygate.sampling.flaky import ADVICE


@click.group(cls=OnceGroup)
def calibrate() -> None:
    """Calibrate the automatic assertions against human labels (never a gate).

    Example:

    \b
        replaygate calibrate export results.json --n 20 --seed 7
    """


def _check_kept_file(path: Path) -> None:
    """Refuse a sheet or verdicts file that cannot be kept and read back: a FIFO (reading
    it, to see what it holds before it is replaced, waited for a writer for ever), a
    socket, a folder, a path that cannot be written."""
    try:
        mode = path.stat().st_mode
    except OSError:
        mode = 0
    if stat.S_ISFIFO(mode):
        raise not_regular(path, mode)
    check_writable(path)


@calibrate.command("export")
@click.argument("results", type=PathParam(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--n", "n", default=20, show_default=True, type=DigitsInt(), help="How many outputs to draw."
)
@click.option("--seed", required=True, type=DigitsInt(), help="Seed of the random draw.")
@file_option(
    "--out",
    default=Path("calibration.csv"),
    show_default=True,
    help="The labelling sheet to write; the verdicts go beside it.",
)
def export(results: Path, n: int, seed: int, out: Path) -> None:
    """Write a CSV labelling sheet of N outputs drawn from RESULTS, verdicts hidden.

    Example:

    \b
        replaygate calibrate export results.json --n 20 --seed 7 --out calibration.csv
    """
    try:
        for written in (out, sidecar_path(out)):
            check_not_an_input(written, {"the results file": results}, page=written == out)
            _check_kept_file(written)
        exported = export_sheet(results, out, n=n, seed=seed)
    except ReplaygateError as err:
        raise CommandError(str(err)) from None
    drawn = f"{exported.outputs} output(s) drawn"
    if exported.outputs < n:
        drawn = f"{drawn}, all {results} holds, of the {n} asked"
    click.echo(
        f"wrote {exported.rows} row(s), one per assertion of {drawn}, to {exported.sheet}; "
        f"automatic verdicts kept in {exported.sidecar}"
    )
    click.echo(
        "fill the label column with pass or fail, then: "
        f"replaygate calibrate score {shell_path(str(exported.sheet))}"
    )


@calibrate.command("score")
@click.argument("sheet", type=PathParam(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--verdicts",
    type=PathParam(exists=True, dir_okay=False, path_type=Path),
    help="The sidecar of automatic verdicts (default: beside the sheet).",
)
def score(sheet: Path, verdicts: Path | None) -> None:
    """Report per assertion the agreement of SHEET's labels with the automatic verdicts.

    Example:

    \b
        replaygate calibrate score calibration.csv
    """
    try:
        agreements = score_sheet(sheet, verdicts)
    except ReplaygateError as err:
        raise CommandError(str(err)) from None
    for line in format_agreements(agreements):
        click.echo(line)


EVERY_RUN = (
    "a real failure, or a request that changes only from one process to the next, as a "
    "set's order does with the hash seed: the runs share one process, and the test's error "
    "says which"
)
"""What ``flaky`` says of a test that failed every run: its runs share the process, so a
miss of a request that varies only between processes (PYTHONHASHSEED) fails them all."""


@click.command(cls=OnceCommand, context_settings={"ignore_unknown_options": True})
@click.option(
    "--runs",
    default=2,
    show_default=True,
    type=DigitsInt(),
    help="How many times to run each test.",
)
@click.argument("pytest_args", nargs=-1, type=click.UNPROCESSED)
def flaky(runs: int, pytest_args: tuple[str, ...]) -> None:
    """Run each unsampled test RUNS times and list those that passed and failed.

    Pass pytest's arguments after --. Exit 1 when a test is flaky; otherwise
    pytest's exit code (1 when a test failed every run).

    Example:

    \b
        replaygate flaky --runs 3 -- tests/ -k agent
    """
    if runs < 2:
        raise click.UsageError(f"--runs must be at least 2, got {runs}")
    if importlib.util.find_spec("pytest") is None:  # else "No module named pytest", exit 1
        raise CommandError(
            "replaygate flaky runs your tests with pytest, which is not installed: "
            "pip install pytest"
        )
    with tempfile.TemporaryDirectory() as tmp:
        report_path = Path(tmp) / "flaky.json"
        command = [
            sys.executable,
            "-m",
            "pytest",
            f"--flaky-runs={runs}",
            f"--flaky-report={report_path}",
            *pytest_args,
        ]
        code = subprocess.call(command)
        if not report_path.exists():
            click.echo(f"pytest stopped before any test ran (exit {code})", err=True)
            raise SystemExit(code or 2)
        report = json.loads(report_path.read_text(encoding="utf-8"))
    found, failing = report["flaky"], report["failed_every_run"]
    if found:
        click.echo(f"replaygate flaky: {len(found)} flaky test(s):")
        for test in found:
            click.echo(f"  {test['nodeid']}: {', '.join(test['outcomes'])}")
        click.echo(ADVICE)
    elif report["tests"]:
        tests = report["tests"]
        click.echo(
            f"replaygate flaky: no flaky test among {tests} unsampled test(s) run {runs} times"
        )
    else:
        click.echo("replaygate flaky: no unsampled test ran, so none could be flaky")
    if failing:
        click.echo(f"{len(failing)} test(s) failed every run ({EVERY_RUN}):")
        click.echo("".join(f"  {node}\n" for node in failing), nl=False)
    raise SystemExit(1 if found else code)
