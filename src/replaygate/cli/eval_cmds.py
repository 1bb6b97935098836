"""``eval``, ``gate``, ``baseline``, ``report``, ``history``, ``ci`` and ``upgrade``.

Thin commands over :mod:`replaygate.evals`, :mod:`replaygate.report` and
:mod:`replaygate.ci`. Exit status: 0 when all is well, 1 when a gate (or an
upgrade check) fails, 2 when the command cannot run (bad input, refused recording).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import click

from replaygate.cli.options import CommandError, errors_as_exit_2
from replaygate.evals.agents import DEFAULT_AGENT, load_agent
from replaygate.evals.baseline import update_baseline
from replaygate.evals.cases import load_eval_cases, shipped_cases_path
from replaygate.evals.config import WHEN, Config, load_config
from replaygate.evals.gate import gate_config, parse_limits, run_gate
from replaygate.evals.git import changed_files, file_at, head_commit
from replaygate.evals.history import History, read_export
from replaygate.evals.metrics import METRICS
from replaygate.evals.prices import PriceTable, load_price_file, shipped_prices
from replaygate.evals.progress import reporter
from replaygate.evals.reference import load_reference
from replaygate.evals.results import EvalResults, load_eval_results
from replaygate.evals.runner import ModelSettings, Recording, run_eval
from replaygate.evals.upgrade import classify_upgrade
from replaygate.examples.research_copilot import DEFAULT_MAX_TOKENS, DEFAULT_MODEL, DEFAULT_SYSTEM
from replaygate.models.replay import RECORDING_MODES

P = ParamSpec("P")
R = TypeVar("R")


config_option = click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="pyproject.toml to read [tool.replaygate] from (default: the nearest one).",
)
format_option = click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "markdown", "json"]),
    default="text",
    show_default=True,
)
history_option = click.option(
    "--history",
    "history_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The SQLite history (default: [tool.replaygate] history, or .replaygate/history.db).",
)


def _config(path: Path | None) -> Config:
    return load_config(path)


def _history_path(config: Config, given: Path | None) -> Path:
    return given or config.history_path


def _prices(config: Config, given: Path | None) -> PriceTable:
    if given is not None:
        return load_price_file(given)
    return config.prices or shipped_prices()


@contextlib.contextmanager
def _live_model(simulator: bool, seed: int, settings: ModelSettings) -> Iterator[tuple[Any, str]]:
    """The live model to record from, and the ``meta.source`` to record."""
    import anthropic

    from replaygate.models.live import AnthropicModel
    from replaygate.sim import Simulator

    with contextlib.ExitStack() as stack:
        if simulator:
            sim = stack.enter_context(Simulator(behavior="research-copilot", seed=seed))
            click.echo(f"recording from the simulator at {sim.url} (seed {seed})", err=True)
            client = anthropic.Anthropic(base_url=sim.url, api_key="sim-key", max_retries=0)
            source = "sim"
        else:
            client = anthropic.Anthropic(base_url=os.environ.get("ANTHROPIC_BASE_URL"))
            source = "live"
        yield (
            AnthropicModel(
                client,
                model=settings.model,
                max_tokens=settings.max_tokens,
                system=settings.system,
            ),
            source,
        )


def _print_metrics(results: EvalResults) -> None:
    for line in results.summary():
        click.echo(line)
    currency = (results.info.get("prices") or {}).get("currency", "")
    for name, value in results.metrics.items():
        unit = f" {currency}" if name.startswith("cost") and value is not None else ""
        click.echo(f"{name:<20}{METRICS[name].format(value)}{unit}")


@click.command("eval")
@click.option(
    "--cases",
    "cases_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="JSONL eval cases (default: [tool.replaygate] cases, or the shipped ones).",
)
@click.option(
    "--fixtures",
    "fixtures_path",
    type=click.Path(path_type=Path),
    help="Fixture store (default: [tool.replaygate] fixtures).",
)
@click.option(
    "--agent", help=f"module:function (model, question) -> run (default {DEFAULT_AGENT})."
)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write results here.")
@click.option("--record-mode", type=click.Choice(RECORDING_MODES), help="Record instead of replay.")
@click.option("--approve-live", is_flag=True, help="Approve live (paid) model calls for this run.")
@click.option("--simulator", is_flag=True, help="Record from the embedded loopback simulator.")
@click.option("--seed", default=7, show_default=True, help="The simulator's seed.")
@click.option("--concurrency", default=1, show_default=True, type=click.IntRange(min=1))
@click.option("--rate-limit", type=click.FloatRange(min=0, min_open=True), help="Live calls/s.")
@click.option(
    "--prices",
    "prices_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A TOML price table (default: [tool.replaygate.prices], or the shipped one).",
)
@history_option
@click.option("--no-history", is_flag=True, help="Do not append this run to the history.")
@click.option("--progress/--no-progress", default=None, help="Default: on a terminal outside CI.")
@click.option("--model", help=f"Model id of the requests (default {DEFAULT_MODEL}).")
@click.option("--max-tokens", type=int, help=f"max_tokens (default {DEFAULT_MAX_TOKENS}).")
@click.option("--system", help="System prompt (default: ResearchCopilot's).")
@config_option
@errors_as_exit_2
def eval_cmd(
    cases_path: Path | None,
    fixtures_path: Path | None,
    agent: str | None,
    out: Path | None,
    record_mode: str | None,
    approve_live: bool,
    simulator: bool,
    seed: int,
    concurrency: int,
    rate_limit: float | None,
    prices_path: Path | None,
    history_path: Path | None,
    no_history: bool,
    progress: bool | None,
    model: str | None,
    max_tokens: int | None,
    system: str | None,
    config_path: Path | None,
) -> None:
    """Run the eval cases through the agent: replay by default, never live.

    --record-mode (record-missing or rerecord) records instead, and only with
    --approve-live. Prints each case's verdict and the metrics; --out writes the
    results JSON; the run is appended to the history.
    """
    if record_mode and not approve_live:
        raise CommandError(
            f"refusing --record-mode {record_mode} without --approve-live: recording calls a "
            "live model and needs an explicit approval for this run. Nothing was called."
        )
    if approve_live and not record_mode:
        raise CommandError("--approve-live only applies with --record-mode")
    if (simulator or concurrency > 1 or rate_limit) and not record_mode:
        raise CommandError("--simulator, --concurrency and --rate-limit apply to --record-mode")
    config = _config(config_path)
    cases_file = cases_path or config.cases or shipped_cases_path()
    fixtures = fixtures_path or config.fixtures
    if fixtures is None:
        raise CommandError("no fixture store: pass --fixtures or set [tool.replaygate] fixtures")
    cases = load_eval_cases(cases_file)
    agent_spec = agent or config.agent or DEFAULT_AGENT
    run_agent = load_agent(agent_spec)
    settings = ModelSettings(
        model=model or config.model or DEFAULT_MODEL,
        max_tokens=max_tokens or config.max_tokens or DEFAULT_MAX_TOKENS,
        system=system or config.system or DEFAULT_SYSTEM,
    )
    prices = _prices(config, prices_path)
    info = {
        "commit": head_commit(config.root),
        "cases_file": str(cases_file),
        "agent": agent_spec,
    }
    with contextlib.ExitStack() as stack:
        recording = None
        if record_mode:
            live, source = stack.enter_context(_live_model(simulator, seed, settings))
            recording = Recording(live, approve_live, record_mode, source, concurrency, rate_limit)
        bar = reporter(len(cases), progress)
        stack.enter_context(bar)
        results = run_eval(
            cases,
            fixtures,
            agent=run_agent,
            settings=settings,
            recording=recording,
            prices=prices,
            reporter=bar,
            info=info,
        )
    _print_metrics(results)
    if out is not None:
        click.echo(f"results: {results.write(out)}")
    if not no_history:
        target = _history_path(config, history_path)
        with History.open(target) as history:
            run = history.append(results)
        click.echo(f"history: run {run.id} appended to {target}")


def _limits(text: str | None, flag: str) -> dict[str, float] | None:
    return parse_limits(text, flag) if text else None


@click.command("gate")
@click.option("--baseline", "baseline_path", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--results", "results_path", required=True, type=click.Path(dir_okay=False, path_type=Path)
)
@click.option("--max-drop", help="e.g. success=0.02,citation=0.05 (points for shares).")
@click.option("--max-rise", help="e.g. cost=0.10,steps=0.25 (fractions for amounts).")
@format_option
@config_option
@errors_as_exit_2
def gate_cmd(
    baseline_path: Path | None,
    results_path: Path,
    max_drop: str | None,
    max_rise: str | None,
    fmt: str,
    config_path: Path | None,
) -> None:
    """Compare RESULTS with the baseline; exit 1 when a metric drops beyond its limit.

    Limits come from [tool.replaygate.gate] and --max-drop / --max-rise (flags win,
    per metric). A case whose every sample failed, or a baseline case missing from
    the results, fails the gate too.
    """
    config = _config(config_path)
    limits = gate_config(
        config.gate, _limits(max_drop, "--max-drop"), _limits(max_rise, "--max-rise")
    )
    baseline = load_reference(baseline_path or config.baseline_path)
    now = load_reference(results_path)
    report = run_gate(baseline, now, limits)
    click.echo(report.render(fmt))
    if not report.passed:
        raise SystemExit(1)


@click.group("baseline")
def baseline_group() -> None:
    """The committed eval baseline."""


@baseline_group.command("update")
@click.option(
    "--results", "results_path", required=True, type=click.Path(dir_okay=False, path_type=Path)
)
@click.option("--reason", help="Why the baseline changes (required; kept in its history).")
@click.option("--baseline", "baseline_path", type=click.Path(dir_okay=False, path_type=Path))
@config_option
@errors_as_exit_2
def baseline_update(
    results_path: Path, reason: str | None, baseline_path: Path | None, config_path: Path | None
) -> None:
    """Make RESULTS the new baseline; refused without --reason.

    The baseline's history gets the reason, the date, the git commit and the
    metrics that changed.
    """
    target = baseline_path or _config(config_path).baseline_path
    if reason is None or not reason.strip():
        raise CommandError(
            f"refusing to update {target} without --reason: a changed baseline must say why. "
            "Nothing was written."
        )
    results = load_eval_results(results_path)
    baseline = update_baseline(target, results, reason=reason, results_name=str(results_path))
    entry = baseline.history[-1]
    click.echo(f"baseline {target} updated at commit {entry['commit'] or 'unknown'}")
    for name, change in entry["changes"].items():
        click.echo(f"  {name}: {change['from']} -> {change['to']}")


@click.command("report")
@click.option("--out", default="report.html", type=click.Path(dir_okay=False, path_type=Path))
@history_option
@click.option(
    "--fixtures",
    "fixture_paths",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Stores for the fixture age histogram (default: [tool.replaygate] fixtures).",
)
@click.option("--results", "results_path", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--baseline", "baseline_path", type=click.Path(dir_okay=False, path_type=Path))
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

    config = _config(config_path)
    stores = list(fixture_paths) or ([config.fixtures] if config.fixtures else [])
    gate = None
    if results_path is not None:
        baseline = load_reference(baseline_path or config.baseline_path)
        gate = run_gate(baseline, load_reference(results_path), config.gate)
    written = write_report(
        out,
        history=_history_path(config, history_path),
        fixtures=stores,
        config=config.report,
        gate=gate,
    )
    click.echo(f"report: {written}")


@click.group("history")
def history_group() -> None:
    """The SQLite eval history: export runs as JSON, merge them into another history."""


@history_group.command("export")
@click.option("--out", required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--last", type=click.IntRange(min=1), help="Only the newest N runs.")
@history_option
@config_option
@errors_as_exit_2
def history_export(
    out: Path, last: int | None, history_path: Path | None, config_path: Path | None
) -> None:
    """Write the history's runs as JSON (for merging elsewhere)."""
    target = _history_path(_config(config_path), history_path)
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
    target = _history_path(_config(config_path), history_path)
    runs = [run for export in exports for run in read_export(export)]
    with History.open(target) as history:
        added, skipped = history.merge(runs)
    click.echo(f"merged into {target}: {added} run(s) added, {skipped} already there")


@click.group("ci")
def ci_group() -> None:
    """CI stages: which stages a change must run."""


@ci_group.command("plan")
@click.option("--base", help="Compare with this revision (its merge base with HEAD).")
@click.option("--changed", multiple=True, type=click.Path(path_type=Path), help="A changed file.")
@click.option("--event", type=click.Choice(WHEN), default="pull-request", show_default=True)
@click.option("--format", "fmt", type=click.Choice(["table", "json", "github"]), default="table")
@config_option
@errors_as_exit_2
def ci_plan(
    base: str | None,
    changed: tuple[Path, ...],
    event: str,
    fmt: str,
    config_path: Path | None,
) -> None:
    """Print the stages this change must run and why (table, JSON, or GitHub outputs)."""
    from replaygate.ci import make_plan

    if (base is None) == (not changed):
        raise CommandError("give --base REV or --changed FILE (one of them)")
    config = _config(config_path)
    root = config.root
    old_text = None
    if base is not None:
        files = changed_files(base, root)

        def old_text(path: Path) -> str | None:
            return file_at(base, path, root)

    else:
        files = [Path(p) if Path(p).is_absolute() else Path.cwd() / p for p in changed]
    plan = make_plan(files, config.ci, root=root, event=event, old_text=old_text)
    click.echo(plan.render(fmt))


@click.command("upgrade")
@click.option(
    "--baseline", "baseline_path", required=True, type=click.Path(dir_okay=False, path_type=Path)
)
@click.option(
    "--candidate", "candidate_path", required=True, type=click.Path(dir_okay=False, path_type=Path)
)
@format_option
@errors_as_exit_2
def upgrade_cmd(baseline_path: Path, candidate_path: Path, fmt: str) -> None:
    """Classify each failure of a candidate model's results against the baseline's.

    Structure changed, distribution shifted, or broken; warns to suspect the
    assertions when most semantic assertions flip at once. Exit 1 when the
    candidate has a failure the baseline did not have.
    """
    report = classify_upgrade(load_reference(baseline_path), load_reference(candidate_path))
    click.echo(report.render(fmt))
    if any(not failure.pre_existing for failure in report.failures):
        raise SystemExit(1)


COMMANDS: tuple[click.Command, ...] = (
    eval_cmd,
    gate_cmd,
    baseline_group,
    report_cmd,
    history_group,
    ci_group,
    upgrade_cmd,
)
"""Every command of this module, to add to the ``replaygate`` group."""
