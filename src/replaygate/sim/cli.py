"""``replaygate sim``: run the simulator from the command line.

    replaygate sim serve --port 8765 --behavior echo --seed 0 --faults 429:0.1

Also runnable as ``python -m replaygate.sim.cli serve ...``, which runs ``python -m
replaygate sim serve ...`` in its place: the one program every command runs.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from types import FrameType
from typing import TYPE_CHECKING

import click

from replaygate.addresses import is_loopback
from replaygate.click_errors import CommandError
from replaygate.click_numbers import DigitsFloat, DigitsInt
from replaygate.click_once import OnceGroup
from replaygate.sim.behavior_option import ChosenBehavior, behavior_option
from replaygate.sim.drift import DriftPlan, DriftSpecError
from replaygate.sim.faults import FaultPlan, FaultSpecError, seconds_problem

if TYPE_CHECKING:
    from replaygate.sim.server import Simulator


@click.group(cls=OnceGroup, name="sim")
def sim_group() -> None:
    """A loopback server speaking the Anthropic, OpenAI and Gemini wire formats.

    Point a client's base URL at it to record without an API key, or to break a
    replay on purpose (faults, drift). It serves the model calls (Messages, Chat
    Completions, Responses, generateContent, embeddings, moderations, token counts, the
    models' lists, Anthropic's Message Batches and Files API, OpenAI's Files and Batch
    APIs), at the APIs' routes and at Azure OpenAI's, Vertex AI's and Amazon Bedrock's,
    not OpenAI's audio or images: docs/providers.md, "The simulator".

    Example:

    \b
        replaygate sim serve --port 8765 --behavior echo --faults "429:0.1"
    """


def _seconds(_context: click.Context, _option: click.Parameter, value: float) -> float:
    problem = seconds_problem(value)
    if problem is not None:
        raise click.BadParameter(problem)
    return value


def _polls(_context: click.Context, _option: click.Parameter, value: int) -> int:
    from replaygate.sim.message_batches import batch_polls_problem

    problem = batch_polls_problem(value)
    if problem is not None:
        raise click.BadParameter(problem.removeprefix("batch_polls: "))
    return value


@sim_group.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to bind.")
@click.option(
    "--port", default=0, show_default=True, type=DigitsInt(), help="Port; 0 picks a free one."
)
@behavior_option()
@click.option(
    "--seed", default=7, show_default=True, type=DigitsInt(), help="Seed of all randomness."
)
@click.option("--faults", default="", help='Fault rates, e.g. "429:0.1,500:0.05,slow:0.05".')
@click.option("--drift", default="", help='Drift rules, e.g. "add-field:usage.foo,drop-field:id".')
@click.option(
    "--slow-delay",
    default=0.2,
    show_default=True,
    type=DigitsFloat(),
    callback=_seconds,
    help="Seconds of a slow fault.",
)
@click.option(
    "--retry-after",
    default=1.0,
    show_default=True,
    type=DigitsFloat(),
    callback=_seconds,
    help="Seconds announced on 429/529.",
)
@click.option(
    "--batch-polls",
    default=0,
    show_default=True,
    type=DigitsInt(),
    callback=_polls,
    help="Polls of a batch that find it still in progress before one finds it ended.",
)
@click.option("--allow-remote", is_flag=True, help="Allow a host that is not loopback.")
def serve(
    host: str,
    port: int,
    behavior: ChosenBehavior,
    seed: int,
    faults: str,
    drift: str,
    slow_delay: float,
    retry_after: float,
    batch_polls: int,
    allow_remote: bool,
) -> None:
    """Serve until interrupted (SIGINT or SIGTERM).

    Prints the URL it listens on: give it to the clients as their base URL
    (ANTHROPIC_BASE_URL; URL/v1 for OpenAI's; GOOGLE_GEMINI_BASE_URL, or
    HttpOptions(base_url=URL), for google-genai's; azure_endpoint=URL for AzureOpenAI,
    base_url=URL/v1 for AnthropicVertex, base_url=URL for AnthropicBedrock, api_base=URL
    for LiteLLM's bedrock/ models).
    --behavior script:FILE answers from a JSONL file of responses, one per line.

    Example:

    \b
        replaygate sim serve --port 8765 --behavior research-copilot --seed 7
    """
    if not allow_remote and not is_loopback(host):
        raise click.UsageError(
            f"refusing to serve on {host!r}: not a loopback address (pass --allow-remote)"
        )
    from replaygate.sim.server import Simulator  # loaded when serving, not for --help

    try:
        fault_plan = FaultPlan.parse(faults, slow_delay=slow_delay, retry_after=retry_after)
        drift_plan = DriftPlan.parse(drift)
        sim = Simulator(
            behavior.build(seed),
            seed=seed,
            faults=fault_plan,
            drift=drift_plan,
            port=port,
            host=host,
            allow_remote=allow_remote,
            batch_polls=batch_polls,
        )
    except (FaultSpecError, DriftSpecError, ValueError) as err:
        raise click.UsageError(str(err)) from None
    done = threading.Event()

    def _stop(signum: int, frame: FrameType | None) -> None:
        done.set()

    previous = {s: signal.signal(s, _stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        with _serving(sim, host, port):
            said = f"(behavior={behavior.name}, seed={seed})"
            click.echo(f"replaygate simulator listening on {sim.url} {said}")  # flushed
            while not done.wait(0.5):
                pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@contextlib.contextmanager
def _serving(sim: Simulator, host: str, port: int) -> Iterator[Simulator]:
    """``sim`` started, and stopped when done; one it cannot start names why
    (:func:`_cannot_serve`)."""
    try:
        sim.start()
    except OSError as err:
        raise CommandError(_cannot_serve(err, host, port)) from None
    try:
        yield sim
    finally:
        sim.stop()


def _cannot_serve(err: OSError, host: str, port: int) -> str:
    """Why the server could not listen, naming the option at fault: ``--port`` for a port
    another process holds (or one this user may not take), ``--host`` for a name no
    resolver knows or an address not this machine's. The resolver's and asyncio's own
    messages name no option (``error while attempting to bind on address ('127.0.0.1',
    8765)``)."""
    if isinstance(err, socket.gaierror) or not err.errno:
        reason = err.strerror or str(err)
    else:
        reason = os.strerror(err.errno)
    if err.errno == errno.EADDRINUSE:
        return (
            f"--port {port}: another process listens on it at {host}: stop it, or pass "
            "another --port (0 picks a free one)"
        )
    if err.errno == errno.EACCES:
        return f"--port {port}: cannot serve on it: {reason.lower()}"
    return f"--host {host!r}: cannot serve on it: {reason.lower()}"


def _as_replaygate_sim() -> None:
    """Run ``python -m replaygate sim ARGS`` in place of this process, started as ``python
    -m replaygate.sim.cli ARGS``: the one program every command runs
    (:func:`replaygate.cli.run`), so a reader of its output that goes away ends only the
    printing (``sim serve`` keeps serving), and an error or a Ctrl-C ends it as every
    command. The process is replaced (same process id, its signals its own) where the
    system can; elsewhere it runs as a child, whose exit status it ends with."""
    program = [sys.executable, "-m", "replaygate", "sim", *sys.argv[1:]]
    if os.name == "posix":
        os.execv(sys.executable, program)
    raise SystemExit(subprocess.call(program))


if __name__ == "__main__":
    _as_replaygate_sim()
