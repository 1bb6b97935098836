"""``replaygate eval``: run the eval cases through an agent, replayed by default.

Exit status: 0 when the run completes, 2 when it cannot run (bad input, a refused
recording, a fixture mismatch), 130 when Ctrl-C or SIGTERM stops it
(:mod:`replaygate.cli.interrupts`).
"""

from __future__ import annotations

import contextlib
import functools
import os
import stat
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path

import click
from click.core import ParameterSource

from replaygate.cli.choices import (
    agent_folder,
    choose_agent,
    choose_fixtures,
    choose_settings,
    missing_setting,
)
from replaygate.cli.json_out import echo_json, prints_to_stderr
from replaygate.cli.live import (
    check_recordable,
    live_model,
    python_recording,
    recorded_source,
    source_option,
)
from replaygate.cli.options import (
    CommandError,
    PathParam,
    agent_option,
    check_seed_with_simulator,
    config_option,
    errors_as_exit_2,
    file_option,
    history_option,
    json_option,
    max_cost_option,
    new_history_note,
    other_config,
    request_settings,
    simulator_seed_option,
)
from replaygate.cli.replay_cmds import never_recorded, note_ignored_stores, recorded_store
from replaygate.click_numbers import DigitsFloat, DigitsInt
from replaygate.click_once import OnceGroup
from replaygate.described import describe
from replaygate.errors import LiveCallNotApproved, ReplaygateError, shown_file
from replaygate.evals.agents import raised_by_agent
from replaygate.evals.cases import cases_digest, load_eval_cases
from replaygate.evals.casework import EVAL_REPLACE, EVAL_RERECORD
from replaygate.evals.config import Config, load_config
from replaygate.evals.errors import HistoryError
from replaygate.evals.git import head_commit
from replaygate.evals.history import History, HistoryRun, check_run, derived_run_id
from replaygate.evals.jobs import describe_failure
from replaygate.evals.metrics import METRICS
from replaygate.evals.preflight import check_history, check_not_an_input, check_writable
from replaygate.evals.prices import PriceTable, load_price_file, with_shipped
from replaygate.evals.progress import reporter
from replaygate.evals.recording import RecordRecipe, offline_block
from replaygate.evals.results import EvalResults, project_path
from replaygate.evals.runner import run_eval
from replaygate.evals.shards import (
    Shard,
    load_shard,
    merge,
    settings_digest,
    shards_digest,
)
from replaygate.fixtures import hits
from replaygate.fixtures.mismatch import RECORDED_FROM_SIMULATOR
from replaygate.fixtures.modes import RECORDING_MODES, require_approval
from replaygate.fixtures.spending import spending_cap
from replaygate.hygiene.checksum import store_checksum
from replaygate.models.replay import RequestSettings
from replaygate.outputs import atomic_write, open_fifo
from replaygate.shell_words import shell_join
from replaygate.signals import held


def _prices(config: Config, given: Path | None) -> PriceTable:
    """The shipped prices with the given (or configured) table laid over them; the given
    one named from the project folder, as the results name the cases and the store."""
    if given is None:
        return with_shipped(config.prices)
    own = load_price_file(given)
    return with_shipped(replace(own, source=project_path(given, config.root)))


def _print_metrics(results: EvalResults) -> None:
    for line in results.summary():
        click.echo(line)
    currency = (results.info.get("prices") or {}).get("currency", "")
    for name, value in results.metrics.items():
        unit = f" {currency}" if name.startswith("cost") and value is not None else ""
        click.echo(f"{name:<20}{METRICS[name].format(value)}{unit}")


def _check_flags(
    record_mode: str | None, approve_live: bool, simulator: bool, recording_options: bool
) -> None:
    if record_mode:
        try:
            require_approval(
                record_mode, approve_live, how="add --approve-live", simulator=simulator
            )
        except LiveCallNotApproved as err:
            raise CommandError(f"refusing --record-mode {record_mode}: {err}") from None
    if approve_live and not record_mode:
        raise CommandError("--approve-live only applies with --record-mode")
    if recording_options and not record_mode:
        raise CommandError(
            "--simulator, --source, --concurrency, --rate-limit and --max-cost apply to "
            "--record-mode"
        )


def _shard(ctx: click.Context, param: click.Parameter, value: str | None) -> Shard | None:
    try:
        return Shard.parse(value) if value is not None else None
    except ValueError as err:
        raise click.BadParameter(str(err)) from None


@click.group("eval", cls=OnceGroup, invoke_without_command=True)
@file_option("--cases", "cases_path", help="JSONL eval cases (default: [tool.replaygate] cases).")
@click.option(
    "--fixtures",
    "fixtures_path",
    type=PathParam(path_type=Path),
    help="Fixture store (default: [tool.replaygate] fixtures).",
)
@agent_option
@file_option("--out", help="Also write the results JSON to this file.")
@click.option("--record-mode", type=click.Choice(RECORDING_MODES), help="Record instead of replay.")
@click.option("--approve-live", is_flag=True, help="Approve live (paid) model calls for this run.")
@click.option("--simulator", is_flag=True, help="Record from the embedded loopback simulator.")
@simulator_seed_option
@source_option
@click.option(
    "--concurrency",
    default=1,
    show_default=True,
    type=DigitsInt(min=1),
    help="Cases recorded in parallel (with --record-mode).",
)
@click.option("--rate-limit", type=DigitsFloat(min=0, min_open=True), help="Live calls/s.")
@file_option(
    "--prices",
    "prices_path",
    help="A TOML price table laid over the shipped one (default: [tool.replaygate.prices]).",
)
@max_cost_option
@click.option(
    "--shard",
    metavar="I/N",
    callback=_shard,
    help="Run only shard I of N (a deterministic share of the cases; needs --out; "
    "no history entry: `replaygate eval merge` makes one).",
)
@click.option(
    "--jobs",
    default=1,
    show_default=True,
    type=DigitsInt(min=1),
    help="Processes the cases are shared out among; the results are a serial run's.",
)
@history_option
@click.option("--no-history", is_flag=True, help="Do not append this run to the history.")
@click.option(
    "--progress/--no-progress",
    default=None,
    help="A progress bar on stderr (default: on a terminal outside CI, for long runs).",
)
@json_option
@request_settings
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
    source: str | None,
    concurrency: int,
    rate_limit: float | None,
    prices_path: Path | None,
    max_cost: float | None,
    shard: Shard | None,
    jobs: int,
    history_path: Path | None,
    no_history: bool,
    progress: bool | None,
    as_json: bool,
    model: str | None,
    max_tokens: int | None,
    system: str | None,
    config_path: Path | None,
) -> None:
    """Run the eval cases through the agent: replay by default, never live.

    --record-mode (record-missing or rerecord) records instead, and only with
    --approve-live. Prints each case's verdict and the metrics (--json: the results
    document instead); --out writes the results JSON; the run is appended to the
    history.

    Example:

    \b
        replaygate eval --agent replaygate.examples.research_copilot:copilot \\
          --cases eval_cases.jsonl --fixtures fixtures.jsonl --out results.json
    """
    if click.get_current_context().invoked_subcommand is not None:
        _refuse_options_before(click.get_current_context())  # `replaygate eval merge ...`
        return
    with prints_to_stderr(as_json):  # --json: stdout holds the results document alone
        _check_flags(
            record_mode,
            approve_live,
            simulator,
            simulator
            or source is not None
            or concurrency > 1
            or bool(rate_limit)
            or max_cost is not None,
        )
        check_seed_with_simulator(simulator)
        meta_source = recorded_source(source, simulator)
        if shard is not None and out is None:
            raise CommandError(
                "--shard needs --out: `replaygate eval merge` reads each shard's file"
            )
        if shard is not None and history_path is not None:  # never passed over
            raise CommandError(
                f"--history {history_path} with --shard: a shard appends nothing to the "
                "history (its cases are not the run); give --history to `replaygate eval "
                "merge`, which appends the merged run"
            )
        config = load_config(config_path, near=fixtures_path or cases_path)
        fixtures = choose_fixtures(fixtures_path, config)
        cases_file = cases_path or config.cases
        if cases_file is None:
            raise missing_setting("eval cases", "--cases", "cases", config)
        cases = load_eval_cases(cases_file)
        agent_spec, entry = choose_agent(agent, config)
        settings = choose_settings(entry, config, model, max_tokens, system)
        given = {
            "--agent": agent,
            "--cases": cases_path,
            "--fixtures": fixtures_path,
            "--model": model,
            "--max-tokens": max_tokens,
            "--system": system,
            "--config": config_path,
        }
        info: dict[str, object] = {
            "commit": head_commit(config.root),
            "fixtures": project_path(fixtures, config.root),  # alike in every checkout
            "cases_file": project_path(cases_file, config.root),
            "cases_digest": cases_digest(cases),
            "agent": agent_spec,
        }
        if shard is not None:
            cases, info["shard"] = shard.select(cases)
            info["settings_digest"] = settings_digest(settings)
            if record_mode is None and fixtures.exists():  # what each shard replays: one store
                info["fixtures_digest"] = store_checksum(fixtures)
            elif record_mode is not None:  # where each shard records from: one source
                info["recording"] = f"the simulator, seed {seed}" if simulator else "live"
        history = None if shard is not None or no_history else history_path or config.history_path
        inputs = {
            "the cases file": cases_file,
            "the fixture store": fixtures,
            "the history": history,
            "the price table": prices_path,  # --prices p.toml --out p.toml replaced it
            "the config": other_config(config.file),  # as did --config cfg.toml --out cfg.toml
        }
        _check_outputs(out, history, inputs)
        new_history_note(history_path if history is not None else None, config)
        if record_mode is None and not os.path.lexists(fixtures):  # each case would miss
            raise CommandError(never_recorded(fixtures, _record_command(given), settings))
        prices = _prices(config, prices_path)
        recipe = None
        if record_mode:
            check_recordable(settings)  # in this process, before any --jobs worker starts
            cap = spending_cap(max_cost, config.max_cost, prices, simulator)
            recipe = RecordRecipe(
                functools.partial(live_model, settings, simulator, seed),
                approve_live,
                record_mode,
                meta_source,
                concurrency,
                rate_limit,
                cap.limit if cap is not None else None,
                simulator,
                preload=("anthropic",),  # what live_model imports, loaded once for --jobs N
            )
        unlogged: list[str] = []
        with contextlib.ExitStack() as stack:
            stack.enter_context(_hits_logged(config, unlogged))  # played: not unused
            if recipe is None or recipe.simulator:
                from replaygate.cli.offline_exit import offline_to_exit  # after network

                offline_to_exit()
            stack.enter_context(offline_block(recipe))  # nothing leaves (law 3)
            bar = reporter(len(cases), progress)
            stack.enter_context(bar)
            stack.enter_context(_agent_errors())
            stack.enter_context(_rerecord_hint(given, fixtures, settings))
            results = run_eval(
                cases,
                fixtures,
                agent=agent_spec,
                settings=settings,
                recording=recipe,
                prices=prices,
                reporter=bar,
                info=info,
                jobs=jobs,
                agent_folder=agent_folder(agent, config),
            )
    _show_and_write(results, out, history, as_json)
    if record_mode and os.path.lexists(fixtures):
        note_ignored_stores(fixtures)
    if shard is not None:
        click.echo(
            f"shard {shard}: {len(cases)} case(s); merge every shard with `replaygate eval merge`",
            err=True,
        )
    if unlogged:
        raise CommandError(unlogged[0])


@contextlib.contextmanager
def _hits_logged(config: Config, unlogged: list[str]) -> Iterator[None]:
    """Log the run's hits (:func:`~replaygate.fixtures.hits.logging_run`) to the project's
    hits folder (``[tool.replaygate] hits``, else ``.replaygate/hits``). A log that
    cannot be written once the run is done is said in ``unlogged``, for the command to
    report after it showed and wrote the results, which stand."""
    ran = False
    try:
        with hits.logging_run(config.hits_path, config.root, hits.EVAL):
            yield
            ran = True
    except OSError as err:
        if not ran:
            raise
        unlogged.append(
            f"cannot write the hits log ({describe(err)}): the run's results stand; patrol "
            f"and prune would take what it played for unused ({hits.ELSEWHERE})"
        )


def _refuse_options_before(ctx: click.Context) -> None:
    """Refuse options of ``eval`` given before ``merge`` (``replaygate eval --out m.json
    merge ...``): merge would not use them, and a history the user told
    it not to write, or an output asked for, would be passed over in silence."""
    given = [
        param.opts[0]
        for param in ctx.command.params
        if param.name is not None
        and ctx.get_parameter_source(param.name)
        not in (None, ParameterSource.DEFAULT, ParameterSource.DEFAULT_MAP)
    ]
    if given:
        raise CommandError(
            f"{', '.join(given)} given before `merge` would not be used: give merge's "
            "options after it (`replaygate eval merge [--out FILE] [--history FILE] "
            "[--no-history] [--json] [--config FILE] PARTS...`). Nothing was run or written."
        )


@contextlib.contextmanager
def _agent_errors() -> Iterator[None]:
    """An exception the agent raised ends the command as in a run of several processes:
    ``Error: <kind>: <message>`` with the sample, the case and where it was raised."""
    try:
        yield
    except Exception as err:
        if not raised_by_agent(err):
            raise
        raise CommandError(describe_failure(err)) from None


@contextlib.contextmanager
def _rerecord_hint(
    given: Mapping[str, object], fixtures: Path, settings: RequestSettings
) -> Iterator[None]:
    """A miss says to re-record with the inputs and request settings this run was
    ``given`` (``--system``, ``--model``...): a command that records other requests than
    those that missed would record nothing new, and the eval would miss again. An agent
    whose ``settings`` name an interface the command does not record is told to record
    from Python. A miss of a store that holds no fixture (an empty file or folder, which
    an agent that never calls its model replays) says it was never recorded, as
    ``replaygate run`` does."""
    try:
        yield
    except (ReplaygateError, CommandError) as err:
        text = err.message if isinstance(err, CommandError) else describe(err)
        if EVAL_RERECORD not in text and EVAL_REPLACE not in text:
            raise
        command = _record_command(given)
        recorded_store(fixtures, command, settings).close()  # never recorded: said so
        python = python_recording(settings)
        if python is not None:  # it says how to record from the simulator: no note of the command
            text = "\n".join(line for line in text.splitlines() if _SIMULATOR_NOTE not in line)
        replace = python_recording(settings, "rerecord")
        text = text.replace(EVAL_REPLACE, replace or f"`{_record_command(given, 'rerecord')}`")
        raise CommandError(text.replace(EVAL_RERECORD, python or f"`{command}`")) from None


_SIMULATOR_NOTE = RECORDED_FROM_SIMULATOR.split("{which}")[1].split("{how}")[0]
"""What the note of a miss recorded from the simulator says of the command it names."""


def _record_command(given: Mapping[str, object], mode: str = "record-missing") -> str:
    """The ``replaygate eval`` command line that records (in ``mode``) what a run ``given``
    these inputs and request settings replays, quoted for a shell."""
    words = ["replaygate", "eval", "--record-mode", mode, "--approve-live"]
    words += [w for flag, value in given.items() if value is not None for w in (flag, str(value))]
    return shell_join(words)


def _check_outputs(out: Path | None, history: Path | None, inputs: dict[str, Path | None]) -> None:
    """Refuse, before anything runs, a results file or history that cannot be written, and
    a results file that is one of the ``inputs``."""
    if out is not None:
        check_not_an_input(out, inputs)
        check_writable(out)
        open_fifo(out)
    if history is not None:
        try:
            check_history(history)
        except OSError as err:  # a read-only checkout, a file where its folder goes
            raise CommandError(
                f"{describe(err)}: the eval history cannot be written there, so nothing "
                "was run or written; give --no-history, or --history FILE (history in "
                "[tool.replaygate] of pyproject.toml) naming a file that can be written"
            ) from None


def _show_and_write(
    results: EvalResults,
    out: Path | None,
    history: Path | None,
    as_json: bool,
    run_id: str | None = None,
) -> None:
    """Print the verdicts and metrics (``as_json``: the results document), then write the
    results file and append the run to the history, then say so, as one step: a Ctrl-C or
    SIGTERM arriving between them takes effect once both are written and said; a reader of
    stdout that went away (``| head``) stops the printing, never the writing, as for every
    command (:mod:`~replaygate.cli.closed_stdout`). A run whose ``run_id`` the history holds
    already (shards merged again) is kept once. A run the history would refuse is refused
    first: nothing is printed or written."""
    run = HistoryRun.of(results, run_id)
    if history is not None:
        check_run(run, history)
    if as_json:
        echo_json(results.to_json())
    else:
        _print_metrics(results)
    said: list[str] = []
    with held():
        if out is not None and _regular_or_absent(out):
            with _put_back(out):
                said.append(f"results: {shown_file(str(results.write(out)))}")
                added = _append(run, history)
        else:  # a FIFO or a device, whose bytes cannot be taken back, once the history took it
            added = _append(run, history)
            if out is not None:
                said.append(f"results: {shown_file(str(results.write(out)))}")
        if history is not None:
            if added:
                said.append(f"history: run {run.id} appended to {shown_file(str(history))}")
            else:
                said.append(
                    f"history: run {run.id} is already in {history} (merged from these "
                    "shards before): nothing appended"
                )
        for line in said:
            click.echo(line, err=as_json)


def _append(run: HistoryRun, history: Path | None) -> bool:
    """Append ``run`` to ``history`` (when one is kept); False when it holds it already."""
    if history is None:
        return False
    with History.open(history) as opened:
        return opened.add(run, checked=True)


@contextlib.contextmanager
def _put_back(out: Path) -> Iterator[None]:
    """Put the regular file ``out`` back as it was (its old bytes, or no file) when the
    block raises a :class:`HistoryError` (the history cannot take the run written into
    ``out``): the results file and the history run are written both or neither."""
    old = out.read_bytes() if out.is_file() else None
    try:
        yield
    except HistoryError as err:
        try:
            if old is None:
                out.unlink(missing_ok=True)
            else:
                atomic_write(out, old)
        except OSError as undo:
            raise HistoryError(
                f"{err}; the results file {out} was written but cannot be put back "
                f"({undo.strerror}): it holds a run the history lacks"
            ) from None
        kept = "left as it was" if old is not None else "not written"
        raise HistoryError(
            f"{err}; the results file {out} was {kept} (the results and the history run "
            "are written both or neither)"
        ) from None


def _regular_or_absent(path: Path) -> bool:
    """Whether ``path`` is a regular file (or nothing): one whose bytes can be put back."""
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except FileNotFoundError:
        return True


@eval_cmd.command("merge")
@click.argument("parts", nargs=-1, required=True, type=PathParam(dir_okay=False, path_type=Path))
@click.option(
    "--out",
    type=PathParam(dir_okay=False, path_type=Path),
    help="Write the merged results JSON to this file.",
)
@history_option
@click.option("--no-history", is_flag=True, help="Do not append the merged run to the history.")
@json_option
@config_option
@errors_as_exit_2
def merge_cmd(
    parts: tuple[Path, ...],
    out: Path | None,
    history_path: Path | None,
    no_history: bool,
    as_json: bool,
    config_path: Path | None,
) -> None:
    """Combine the results of every shard of one eval run into the results of the run.

    Each PART is the --out file of `replaygate eval --shard I/N`; every shard of the run
    must be given once. The merged run holds the cases in their file order, as a
    serial run does; it prints the verdicts and metrics (--json: the results document
    instead), --out writes it, and it is appended to the history once (its id comes
    from the shards: merging them again appends nothing); gate it as any results file.

    Example:

    \b
        replaygate eval merge shard-1.json shard-2.json --out results.json
    """
    shards = [load_shard(p) for p in parts]
    # the project of the shards (its history), as eval's is of its inputs: never that of
    # an --out written into another project's folder
    config = load_config(config_path, near=parts[0])
    files = [project_path(p, config.root) for p in parts]  # as the run names its files
    results = merge(shards, [str(p) for p in parts], files)
    run_id = derived_run_id(str(results.info.get("time", "")), shards_digest(shards))
    history = None if no_history else history_path or config.history_path
    inputs: dict[str, Path | None] = {f"the shard {part}": part for part in parts}
    _check_outputs(out, history, {**inputs, "the history": history})
    new_history_note(history_path if history is not None else None, config)
    _show_and_write(results, out, history, as_json, run_id)
