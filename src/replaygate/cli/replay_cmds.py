"""``replaygate run``, ``record`` and ``show``: ResearchCopilot over a fixture store."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

import click

from replaygate.cli.options import (
    errors_as_exit_2,
    questions_source,
    request_settings,
    resolve_questions,
)
from replaygate.errors import ReplaygateError
from replaygate.examples.research_copilot import RunResult, build_registry, shipped_fixtures
from replaygate.examples.research_copilot import run as run_agent
from replaygate.fixtures.store import FixtureStore
from replaygate.http.network import block_network
from replaygate.models.live import AnthropicModel
from replaygate.models.replay import RECORDING_MODES, RecordingModel, ReplayModel
from replaygate.sim import Simulator

fixtures_option = click.option(
    "--fixtures",
    "fixtures_path",
    required=True,
    type=click.Path(path_type=Path),
    help="Fixture store: a .jsonl file or a folder.",
)
shipped_fixtures_option = click.option(
    "--fixtures",
    "fixtures_path",
    type=click.Path(path_type=Path),
    default=shipped_fixtures,
    show_default="ResearchCopilot's shipped fixtures",
    help="Fixture store: a .jsonl file or a folder.",
)


def print_run(question: str, result: RunResult) -> None:
    """The trace and final answer of one run."""
    click.echo(f"question: {question}")
    for step in result.steps:
        click.echo(f"   {step.detail}")
    click.echo(f"final: {result.final}")


def replay_once(
    store: FixtureStore, question: str, model: str, max_tokens: int, system: str
) -> RunResult:
    """One ResearchCopilot run answered from ``store``, with the network blocked (law 3)."""
    replay = ReplayModel(store, model=model, max_tokens=max_tokens, system=system)
    with block_network():
        return run_agent(replay, build_registry(), question, system=system)


@click.command()
@shipped_fixtures_option
@questions_source
@request_settings
@click.option("--check-determinism", is_flag=True, help="Run twice and compare the traces.")
@errors_as_exit_2
def run(
    fixtures_path: Path,
    questions: tuple[str, ...],
    cases_path: Path | None,
    model: str,
    max_tokens: int,
    system: str,
    check_determinism: bool,
) -> None:
    """Replay ResearchCopilot from FIXTURES (never live) and print trace and answer."""
    store = FixtureStore.open(fixtures_path)
    all_identical = True
    for question in resolve_questions(questions, cases_path):
        try:
            first = replay_once(store, question, model, max_tokens, system)
            print_run(question, first)
            if check_determinism:
                second = replay_once(store, question, model, max_tokens, system)
                same_final = first.final == second.final
                same_trace = [s.detail for s in first.steps] == [s.detail for s in second.steps]
                click.echo(f"identical final: {same_final}; identical trace: {same_trace}")
                all_identical &= same_final and same_trace
        except ReplaygateError as err:
            raise click.ClickException(f"{type(err).__name__}: {err}") from None
    if not all_identical:
        raise SystemExit(1)


@click.command()
@fixtures_option
@questions_source
@request_settings
@click.option("--approve-live", is_flag=True, help="Approve live (paid) model calls for this run.")
@click.option(
    "--mode", type=click.Choice(RECORDING_MODES), default="record-missing", show_default=True
)
@click.option(
    "--source",
    type=click.Choice(["live", "sim"]),
    default="live",
    show_default=True,
    help="What meta.source says: 'sim' when ANTHROPIC_BASE_URL points at the simulator.",
)
@click.option("--note", help="A note stored in each new fixture's meta.")
@click.option(
    "--simulator",
    is_flag=True,
    help="Record from the embedded loopback simulator instead of ANTHROPIC_BASE_URL.",
)
@click.option("--seed", default=7, show_default=True, help="The simulator's seed.")
@errors_as_exit_2
def record(
    fixtures_path: Path,
    questions: tuple[str, ...],
    cases_path: Path | None,
    model: str,
    max_tokens: int,
    system: str,
    approve_live: bool,
    mode: str,
    source: str,
    note: str | None,
    simulator: bool,
    seed: int,
) -> None:
    """Record ResearchCopilot runs through the anthropic SDK.

    The SDK reads ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL, unless --simulator.
    """
    if not approve_live:
        click.echo(
            "refusing to call a live model: recording costs money and needs an explicit "
            "--approve-live for this run. Nothing was called or written.",
            err=True,
        )
        raise SystemExit(2)
    to_ask = resolve_questions(questions, cases_path)
    with contextlib.ExitStack() as stack:
        base_url, api_key = os.environ.get("ANTHROPIC_BASE_URL"), None
        if simulator:
            sim = stack.enter_context(Simulator(behavior="research-copilot", seed=seed))
            click.echo(f"recording from the simulator at {sim.url} (seed {seed})")
            base_url, api_key, source = sim.url, "sim-key", "sim"
        import anthropic

        client = anthropic.Anthropic(base_url=base_url, api_key=api_key)
        recorder = RecordingModel(
            AnthropicModel(client, model=model, max_tokens=max_tokens, system=system),
            fixtures_path,
            approve_live=True,
            mode=mode,  # type: ignore[arg-type]
            model=model,
            max_tokens=max_tokens,
            system=system,
            source=source,
            note=note,
        )
        for question in to_ask:
            try:
                print_run(question, run_agent(recorder, build_registry(), question, system=system))
            except ReplaygateError as err:
                raise click.ClickException(f"{type(err).__name__}: {err}") from None
    click.echo(f"recorded {recorder.recorded} new response(s) into {fixtures_path}")


@click.command()
@click.argument("key")
@shipped_fixtures_option
@errors_as_exit_2
def show(key: str, fixtures_path: Path) -> None:
    """Print the fixture(s) whose key starts with KEY."""
    found = FixtureStore.open(fixtures_path).get(key)
    if not found:
        raise click.ClickException(f"no fixture with key {key!r} in {fixtures_path}")
    for loc, fixture in found:
        click.echo(f"# {loc}")
        click.echo(json.dumps(fixture.to_json(), ensure_ascii=False, indent=2, sort_keys=True))
