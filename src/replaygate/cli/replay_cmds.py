"""``replaygate run``, ``record`` and ``show``: an agent over a fixture store.

The agent is any ``module:function`` (``--agent`` or ``[tool.replaygate] agent``);
see :mod:`replaygate.cli.choices` for where each setting comes from.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import string
from dataclasses import asdict
from pathlib import Path

import click

from replaygate.cli.choices import AgentInputs, agent_inputs, choose_fixtures
from replaygate.cli.json_out import echo_json
from replaygate.cli.live import (
    live_errors,
    live_model,
    python_recording,
    recorded_source,
    source_option,
    spent,
)
from replaygate.cli.long_lists import Cut, cut_encoded, cut_line
from replaygate.cli.options import (
    TEXT,
    CommandError,
    check_seed_with_simulator,
    config_option,
    errors_as_exit_2,
    fixtures_option,
    max_cost_option,
    refuse_no_store,
    simulator_seed_option,
)
from replaygate.click_once import OnceCommand
from replaygate.described import describe
from replaygate.errors import (
    LiveCallNotApproved,
    LocatedError,
    ReplaygateError,
    SpendingCapError,
    shell_path,
    shown_file,
)
from replaygate.evals.agents import Agent, run_agent
from replaygate.evals.config import load_config
from replaygate.evals.errors import AgentRunError
from replaygate.evals.output import RunLike, trace_lines
from replaygate.evals.prices import with_shipped
from replaygate.evals.progress import reporter
from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.modes import FROM_SIMULATOR, require_live_approval
from replaygate.fixtures.spending import spending_cap
from replaygate.fixtures.store import FixtureStore, Location, store_roots
from replaygate.fixtures.store.files import existing_store, refuse_cassette
from replaygate.fixtures.store.folder import read_together
from replaygate.missing import ONE_FIXTURE_FILE, typo_note
from replaygate.models.replay import RECORDING_MODES, RecordingModel, ReplayModel, RequestSettings
from replaygate.network import SIMULATOR_BLOCK, block_network
from replaygate.regular import blocked_folder

RECORD_WHY = "recording calls a live model, which costs money,"


def print_run(question: str, result: RunLike) -> None:
    """The trace and final answer of one run."""
    click.echo(f"question: {question}")
    for line in trace_lines(result):
        click.echo(f"   {line}")
    click.echo(f"final: {result.final}")


def replay_once(
    store: FixtureStore,
    question: str,
    agent: Agent,
    settings: RequestSettings,
    rerecord: str | None = None,
    rerecord_all: str | None = None,
) -> RunLike:
    """One run of ``agent`` answered from ``store``, with the network blocked (law 3); a
    miss names ``rerecord``, the command that records the question, and an answer that
    cannot be replayed as it is ``rerecord_all``, the one that records it anew, where
    they are known."""
    replay = ReplayModel(store, **asdict(settings))
    if rerecord:
        replay.session.rerecord = python_recording(settings) or f"`{rerecord}`"
    if rerecord_all:
        replay.session.rerecord_all = python_recording(settings, "rerecord") or f"`{rerecord_all}`"
    with block_network():
        try:
            result = run_agent(agent, replay, question)
        except AgentRunError:
            replay.raise_caught()  # a miss the agent caught, then failed from, comes first
            raise
    replay.raise_caught()
    return result


def never_recorded(fixtures: Path, command: str, settings: RequestSettings | None = None) -> str:
    """What to do about a store that is not there, or holds no fixture: record it
    (``command``, which records it from a live API; from Python where the agent's
    ``settings`` name an interface the commands do not record), or name a recorded one;
    or, where no file can be there (a file or a symlink to nothing stands for one of its
    folders), what stands there, which a recording would refuse too, as it refuses a
    ``.json`` one-fixture file."""
    blocked = blocked_folder(fixtures)
    if blocked is not None:
        return f"{fixtures}: no fixture store can be there: {blocked}"
    if fixtures.suffix == ".json":  # the command would refuse it: name the store to make
        return (
            f"no fixtures at {fixtures}: {ONE_FIXTURE_FILE}: record into a .jsonl file "
            f"(--fixtures {shlex.quote(str(fixtures.with_suffix('.jsonl')))}) or a folder, "
            "or point --fixtures at a recorded store"
        )
    typo = typo_note(fixtures)  # a misspelt folder or name, not a new store
    nothing = f"no fixtures at {fixtures}" + (f" ({typo})" if typo else "")
    python = None if settings is None else python_recording(settings)
    if python is not None:
        return f"{nothing}: record them first {python}; or point --fixtures at a recorded store"
    return (
        f"{nothing}: record them first (`{command}`"
        "; add --simulator to record from the built-in simulator, with no key and no cost), "
        "or point --fixtures at a recorded store"
    )


def recorded_store(
    fixtures: Path, command: str, settings: RequestSettings | None = None
) -> FixtureStore:
    """The store at ``fixtures``, opened to be replayed; a :class:`CommandError` saying to
    record it (:func:`never_recorded`, with ``command`` and ``settings``) where it is not
    there or holds no fixture, as each question would miss."""
    refuse_cassette(fixtures)  # a typo in the suffix, a cassette: named as such first
    if not os.path.lexists(fixtures):  # never recorded
        raise CommandError(never_recorded(fixtures, command, settings))
    existing_store(fixtures)  # a symlink to nothing, a FIFO...: named as what it is
    store = FixtureStore.open(fixtures)
    if len(store) == 0:  # an empty file or folder: as never recorded
        store.close()
        raise CommandError(never_recorded(fixtures, command, settings))
    return store


@click.command(cls=OnceCommand)
@agent_inputs
@click.option("--check-determinism", is_flag=True, help="Run twice and compare the traces.")
@config_option
@errors_as_exit_2
def run(inputs: AgentInputs, check_determinism: bool) -> None:
    """Replay the agent from the fixtures (never live) and print trace and answer.

    Each QUESTION is asked in turn (or each question of --cases); a request that was
    never recorded fails with the nearest recorded one and the fields that differ.

    Example:

    \b
        replaygate run --agent replaygate.examples.research_copilot:copilot \\
          --fixtures rc.jsonl --check-determinism "What is RAG?"
    """
    entry, settings, fixtures, to_ask = inputs.resolve()
    store = recorded_store(fixtures, inputs.record_command(*inputs.questions), settings)
    from replaygate.cli.offline_exit import offline_to_exit  # after network: its docstring

    offline_to_exit()
    all_identical = True
    for question in to_ask:
        commands = inputs.record_command(question), inputs.record_command(question, mode="rerecord")
        try:
            first = replay_once(store, question, entry, settings, *commands)
            print_run(question, first)
            if check_determinism:
                second = replay_once(store, question, entry, settings, *commands)
                same_final = first.final == second.final
                same_trace = trace_lines(first) == trace_lines(second)
                click.echo(f"identical final: {same_final}; identical trace: {same_trace}")
                all_identical &= same_final and same_trace
        except LocatedError:
            raise  # a damaged store, a bad config: exit 2, like a store that does not open
        except AgentRunError as err:
            raise CommandError(str(err)) from None
        except ReplaygateError as err:
            raise click.ClickException(describe(err)) from None
    if not all_identical:
        raise SystemExit(1)


@click.command(cls=OnceCommand)
@agent_inputs
@click.option("--approve-live", is_flag=True, help="Approve live (paid) model calls for this run.")
@click.option(
    "--mode",
    type=click.Choice(RECORDING_MODES),
    default="record-missing",
    show_default=True,
    help="record-missing keeps what is recorded; rerecord replaces it.",
)
@source_option
@click.option("--note", type=TEXT, help="A note stored in each new fixture's meta.")
@click.option(
    "--simulator",
    is_flag=True,
    help="Record from the embedded loopback simulator instead of ANTHROPIC_BASE_URL.",
)
@simulator_seed_option
@max_cost_option
@config_option
@errors_as_exit_2
def record(
    inputs: AgentInputs,
    approve_live: bool,
    mode: str,
    source: str | None,
    note: str | None,
    simulator: bool,
    seed: int,
    max_cost: float | None,
) -> None:
    """Record the agent's answers to each QUESTION through the anthropic SDK.

    Only with --approve-live. The SDK reads ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN,
    a bearer token) and ANTHROPIC_BASE_URL, unless --simulator records from the
    embedded loopback simulator.

    Example:

    \b
        replaygate record --agent replaygate.examples.research_copilot:copilot \\
          --fixtures rc.jsonl --approve-live --simulator "What is RAG?"
    """
    check_seed_with_simulator(simulator)
    meta_source = recorded_source(source, simulator)
    try:
        why = f"recording {FROM_SIMULATOR}" if simulator else RECORD_WHY
        require_live_approval(approve_live, why=why, how="add --approve-live")
    except LiveCallNotApproved as err:
        raise CommandError(str(err)) from None
    entry, settings, fixtures, to_ask = inputs.resolve()
    config = load_config(inputs.config_path, near=fixtures)
    cap = spending_cap(max_cost, config.max_cost, with_shipped(config.prices), simulator)
    with contextlib.ExitStack() as stack:
        if simulator:  # the loopback simulator: nothing else leaves the process (law 3)
            from replaygate.cli.offline_exit import offline_to_exit  # after network

            offline_to_exit()
            stack.enter_context(block_network(remedy=SIMULATOR_BLOCK))
        # opened first: a store that cannot be one is refused before the SDK is loaded
        store = stack.enter_context(FixtureStore.open(fixtures))
        live = stack.enter_context(live_model(settings, simulator, seed))
        bar = reporter(len(to_ask), label="record")
        stack.enter_context(bar)
        recorded = not_kept = 0
        for question in to_ask:
            # a model per run, as replay answers each: a question asked twice replays
            recorder = RecordingModel(
                live,
                store,
                approve_live=True,
                mode=mode,  # type: ignore[arg-type]
                source=meta_source,
                note=note,
                cap=cap,
                **asdict(settings),
            )
            try:
                result = run_agent(entry, recorder, question, live_errors())
                recorder.raise_caught()  # a refusal the agent caught: nothing recorded
                print_run(question, result)
            except (SpendingCapError, LocatedError):
                raise  # exit 2: what was spent, or the file or setting to fix, is in the message
            except AgentRunError as err:
                raise CommandError(str(err)) from None
            except ReplaygateError as err:  # a request refused unsent, a response unwritten
                raise CommandError(describe(err)) from None
            recorded, not_kept = recorded + recorder.recorded, not_kept + recorder.not_kept
            bar.advance(question)
    line = f"recorded {recorded} new response(s) into {shown_file(str(fixtures))}{spent(cap)}"
    if not_kept:
        line += (
            f"; {not_kept} answer(s) fetched were not kept: another recording "
            "stored those requests first (its answers were used)"
        )
    click.echo(line)
    if recorded:
        note_ignored_stores(fixtures)


def note_ignored_stores(fixtures: Path) -> None:
    """Say on stderr which store files of ``fixtures`` a recording wrote into that git
    ignores, with the rule (:func:`~replaygate.checkouts.ignored_stores_note`), if any."""
    from replaygate.checkouts import ignored_stores_note
    from replaygate.fixtures.store import store_files

    ignored = ignored_stores_note(store_files(fixtures))
    if ignored is not None:
        click.echo(f"Note: {ignored}", err=True)


def _refuse_store_as_key(key: str, fixtures_path: Path | None) -> None:
    """Refuse a KEY of ``show`` that names a store (``replaygate show rc.jsonl``), which
    would be looked for as a key, or missed for want of ``--fixtures``."""
    if all(char in string.hexdigits for char in key) or not (
        os.path.lexists(key) or key.endswith((".json", ".jsonl"))
    ):
        return
    store = shell_path(str(fixtures_path) if fixtures_path is not None else key)
    raise CommandError(
        f"{key!r} is a fixture store, not a key: show prints the fixture of a key, "
        f"`replaygate show KEY --fixtures {store}`, KEY the 12 hex digits of a fixture's "
        '"key" (a miss names it)'
    )


_HEX_RUN = re.compile(r"[0-9a-fA-F]{12,}")


def _refuse_pasted_key(key: str) -> None:
    """Refuse a KEY of ``show`` holding characters no key holds (a key is hex digits)
    around one that does, as a key is pasted from a line that names it (``key
    470a055b517b``, ``(key 2b324c7e66fe)``, ``f8e558479d81,``): it was looked for as
    written, and missed, naming no cause."""
    if all(char in string.hexdigits for char in key):
        return
    runs = _HEX_RUN.findall(key)
    meant = f": did you mean {runs[0]}?" if len(runs) == 1 else ""
    raise CommandError(
        f"{key!r} is no key: a key is hex digits (0-9, a-f), 12 or more of them{meant}"
    )


def _found_under(path: Path, key: str) -> list[tuple[Location, Fixture]]:
    """The fixtures whose key starts with ``key`` (in either case) in each store under
    ``path``, each read as a store of its own, as ``verify`` reads a tree
    (:func:`~replaygate.fixtures.store.folder.read_together`): a request two tests' stores
    record with other answers is two fixtures, not a damaged store."""
    found: list[tuple[Location, Fixture]] = []
    for root, files in read_together(store_roots(path)).items():
        named = set(files)
        with FixtureStore.open(root) as store:
            held = store.get(key) or (store.get(key.lower()) if key != key.lower() else [])
        found += [(loc, fixture) for loc, fixture in held if loc.file in named]
    return found


def _plugin_stores() -> str:
    """Where the pytest plugin keeps the stores of the project the command runs in (the
    folder of its pyproject.toml, pytest configuration or .git), when it holds them, for
    ``show`` given no store: ``--fixtures`` naming them (else nothing)."""
    from replaygate.hygiene.usage import project_folder

    folder = project_folder(Path.cwd()) / "tests" / "fixtures"
    if not folder.is_dir():
        return ""
    shown = os.path.relpath(folder)
    return f" (the pytest plugin's stores are in {shown}: --fixtures {shown})"


@click.command(cls=OnceCommand)
@click.argument("key")
@fixtures_option
@config_option
@errors_as_exit_2
def show(key: str, fixtures_path: Path | None, config_path: Path | None) -> None:
    """Print the fixture(s) whose key starts with KEY.

    KEY is the stored key (12 characters) or a longer start of the request's digest,
    in either case. On a terminal, a long base64 value (an image, a document) and a long
    list of numbers (an embedding) are cut to their start and their length; piped, every
    value is printed whole.

    Example:

    \b
        replaygate show f8e558479d81 --fixtures rc.jsonl
    """
    _refuse_store_as_key(key, fixtures_path)
    _refuse_pasted_key(key)
    config = load_config(config_path, near=fixtures_path)
    try:
        fixtures = choose_fixtures(fixtures_path, config)
    except CommandError as err:
        raise CommandError(err.message + _plugin_stores()) from None
    existing_store(fixtures)  # an empty store when opened: "no fixture with key" would mislead
    refuse_no_store(fixtures, [])  # so would a folder of no store (a source folder)
    found = _found_under(fixtures, key)
    if not found:
        raise click.ClickException(f"no fixture with key {key!r} in {fixtures}")
    cut = Cut()
    for loc, fixture in found:
        click.echo(f"# {loc}")
        document, shortened = cut_encoded(fixture.to_json())
        echo_json(document, sort_keys=True)
        cut += shortened
    if cut:
        click.echo(cut_line(cut))
