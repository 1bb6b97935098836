"""``replaygate demo``: the whole replay story in under a minute, offline.

1. start the simulator on a free loopback port (or, with ``--live`` and
   ``ANTHROPIC_API_KEY`` or ``ANTHROPIC_AUTH_TOKEN``, use the real API);
2. record ResearchCopilot's eval cases through the official ``anthropic`` SDK,
   approved for this run, into a temporary store;
3. stop the server and replay a question twice: same trace, same answer;
4. reword the question: the replay refuses it with a field diff instead of
   answering from the wrong fixture;
5. the whole eval loop on the simulator: record the eval set with 5 samples per
   case, replay it, score it, gate it against the shipped baseline, append it to a
   history and write ``report.html``.
"""

from __future__ import annotations

import contextlib
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import click

from replaygate.cli.live import live_model, require_credential
from replaygate.cli.options import CommandError, PathParam
from replaygate.cli.replay_cmds import print_run, replay_once
from replaygate.click_numbers import DigitsInt
from replaygate.click_once import OnceCommand
from replaygate.demo import DEMO_SEED, Claim, DemoOutError, claim_out, demo_loop
from replaygate.described import describe
from replaygate.errors import FixtureMismatchError, shown_file
from replaygate.evals.output import trace_lines
from replaygate.examples.research_copilot import SETTINGS, copilot, load_cases
from replaygate.extras import require, require_all
from replaygate.fixtures.store import FixtureStore
from replaygate.models.live import AnthropicModel
from replaygate.models.replay import RecordingModel
from replaygate.regular import same_file
from replaygate.seed import SIMULATOR_SEED
from replaygate.sim import Simulator

QUESTION = "What is RAG?"
REWORDED = "RAG, what is it?"


def _say(text: str) -> None:
    click.secho(f"\n== {text}", bold=True)


@contextlib.contextmanager
def _model_endpoint(live: bool, seed: int) -> Iterator[tuple[AnthropicModel, str]]:
    """The model to record from and the ``meta.source`` it records, for the demo's
    duration. With ``--live``, the real API's, through the recording commands' own
    :func:`~replaygate.cli.live.live_model`: no credential in the environment, an API
    that cannot be reached, refuses the key or answers an error status ends the demo
    with one ``Error:`` line, exit 2."""
    if live:
        with live_model(SETTINGS, simulator=False, seed=seed, instead=_INSTEAD) as model:
            _say("Recording from the real Anthropic API (approved by --live)")
            yield model, "live"
        return
    anthropic = require("anthropic", "anthropic", "replaygate demo")
    with Simulator(behavior="research-copilot", seed=seed) as sim:
        _say(f"Started the API simulator on {sim.url} (seed {seed})")
        with anthropic.Anthropic(api_key="sim-demo-key", base_url=sim.url, max_retries=0) as client:
            model = AnthropicModel(
                client, model=SETTINGS.model, max_tokens=SETTINGS.max_tokens, system=SETTINGS.system
            )
            yield model, "sim"
    click.echo("Stopped the simulator: everything below runs with no model server at all.")


_INSTEAD = "drop --live to record from the loopback simulator instead"


def _record(store_path: Path, live: AnthropicModel, source: str) -> int:
    recorder = RecordingModel(
        live,
        store_path,
        approve_live=True,
        model=SETTINGS.model,
        max_tokens=SETTINGS.max_tokens,
        system=SETTINGS.system,
        source=source,
    )
    cases = load_cases()
    for case in cases:
        before = recorder.recorded
        result = copilot(recorder, case.question)
        done = "recorded" if recorder.recorded > before else "already recorded"
        click.echo(f"  {done} {case.id}: {len(result.steps)} steps -> {result.final[:70]}")
    return recorder.recorded


KEPT_STORE = "research_copilot.jsonl"
"""The name of the store --keep keeps."""


def _claim(stack: contextlib.ExitStack[bool | None], out: Path, keep: Path | None) -> Claim:
    """Hold --out for the demo's whole run (:func:`~replaygate.demo.claim_out`), refused
    before anything runs when it holds what the demo did not write (the loop deletes
    its store there and replaces its results and report: ``--out .`` in a project
    replaced the project's own files) or another demo writes there. The store ``--keep``
    keeps there (the same folder) is the demo's too; one an earlier run kept there, in a
    run that keeps it elsewhere or not at all, is refused saying what it is."""
    kept = frozenset({KEPT_STORE, f"{KEPT_STORE}.lock"} if keep and same_file(keep, out) else ())
    noted = {
        KEPT_STORE: (
            f" (the store an earlier run given --keep {shown_file(str(out))} kept there: give "
            "that --keep again to replay it, or move it out)"
        )
    }
    try:
        return stack.enter_context(claim_out(out, kept, noted))
    except DemoOutError as err:
        raise CommandError(f"--out {err}") from None
    except OSError as err:
        raise CommandError(f"--out {shown_file(str(out))}: {describe(err)}") from None


@click.command(cls=OnceCommand)
@click.option(
    "--live",
    is_flag=True,
    help="Record from the real API (needs ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN).",
)
@click.option(
    "--seed",
    default=SIMULATOR_SEED,
    show_default=True,
    type=DigitsInt(),
    help=(
        "Seed of the simulator the first recording draws from (refused with --live: the real "
        f"API takes no seed); the eval loop always records with seed {DEMO_SEED}, the shipped "
        "baseline's."
    ),
)
@click.option(
    "--keep",
    type=PathParam(file_okay=False, path_type=Path),
    help="Keep the recorded store in this folder, as research_copilot.jsonl (a later run "
    "with the same folder replays what is there and records only what is missing).",
)
@click.option(
    "--out",
    type=PathParam(file_okay=False, path_type=Path),
    default=Path(".replaygate") / "demo",
    show_default=True,
    help="Where the eval loop writes its fixtures, results, history and report.",
)
def demo(live: bool, seed: int, keep: Path | None, out: Path) -> None:
    """Record ResearchCopilot once, replay it offline twice, then catch a mismatch.

    Then the whole eval loop on the simulator: record, replay, score, gate against
    the shipped baseline, history and report.html. Offline unless --live.

    Example:

    \b
        replaygate demo --out .replaygate/demo
    """
    _check_seed(live)
    # What the demo needs beyond the base install, before anything runs: the report is
    # drawn last, after every recording.
    require_all({"anthropic": "anthropic", "matplotlib": "report"}, "replaygate demo")
    if live:  # before --out is claimed: a demo that cannot record leaves no folder behind
        require_credential(_INSTEAD)
    with contextlib.ExitStack() as stack:
        claim = _claim(stack, out, keep)
        _run(live, seed, keep, claim)


def _check_seed(live: bool) -> None:
    """Refuse ``--seed`` with ``--live``, before anything runs: the first recording then
    comes from the real API, which takes no seed, and the eval loop records with
    :data:`~replaygate.demo.DEMO_SEED` either way, so the seed was ignored and a run
    the user took for seeded was not."""
    ctx = click.get_current_context()
    given = ctx.get_parameter_source("seed") not in (None, click.core.ParameterSource.DEFAULT)
    if live and given:
        raise click.UsageError(
            "--seed goes without --live: it seeds the simulator the first recording draws "
            "from, and with --live that recording comes from the real API, which takes no "
            f"seed (the eval loop records from the simulator with seed {DEMO_SEED} either "
            "way): drop --seed, or --live to record from the simulator",
            ctx,
        )


def _run(live: bool, seed: int, keep: Path | None, claim: Claim) -> None:
    """The demo, in the --out folder it holds."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="replaygate-demo-") as tmp:
        store_path = (keep or Path(tmp)) / KEPT_STORE
        with _model_endpoint(live, seed) as (model, source):
            _say("Recording the eval cases through the official anthropic SDK (--approve-live)")
            recorded = _record(store_path, model, source)
            if recorded:
                click.echo(f"  {recorded} model responses recorded as fixtures in {store_path}")
            else:
                click.echo(f"  nothing new to record: every response is already in {store_path}")

        store = FixtureStore.open(store_path)
        _say(f"Replaying {QUESTION!r} twice from {len(store)} fixtures")
        first = replay_once(store, QUESTION, copilot, SETTINGS)
        print_run(QUESTION, first)
        second = replay_once(store, QUESTION, copilot, SETTINGS)
        same_final = first.final == second.final
        same_trace = trace_lines(first) == trace_lines(second)
        click.echo(f"identical final answer: {same_final}")
        click.echo(f"identical trace:        {same_trace}")

        _say(f"Rewording the question to {REWORDED!r} without re-recording")
        try:
            replay_once(store, REWORDED, copilot, SETTINGS)
        except FixtureMismatchError as err:
            click.echo("caught, as it must be (no silent false green):")
            click.echo("  " + str(err).replace("\n", "\n  "))
        else:
            raise click.ClickException("the reworded question replayed: fixtures matched loosely")

    _say("The eval loop: record 5 samples per case, replay, score, gate, history, report")
    summary = demo_loop(claim.out, seed=DEMO_SEED, claim=claim)
    for line in summary.lines():
        click.echo(f"  {line}")

    _say(f"Done in {time.perf_counter() - started:.1f} s")
    click.echo(
        "Recorded once with explicit approval, replayed offline byte for byte, a changed "
        "request failed loudly with the field that changed, and the eval scores were "
        f"gated against the committed baseline. Open {summary.report} to see the trends."
    )
    if not (same_final and same_trace and summary.identical and summary.gate.passed):
        raise SystemExit(1)
