"""The ``replaygate`` command line: a thin layer over the library."""

from __future__ import annotations

import click

from replaygate import __version__
from replaygate.cli.assert_cmds import calibrate, flaky
from replaygate.cli.demo import demo
from replaygate.cli.eval_cmds import COMMANDS as EVAL_COMMANDS
from replaygate.cli.hygiene_cmds import COMMANDS as HYGIENE_COMMANDS
from replaygate.cli.replay_cmds import record, run, show
from replaygate.cli.verify_cmd import verify
from replaygate.sim.cli import sim_group


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="replaygate")
def main() -> None:
    """Deterministic, offline tests for LLM agents: record once, replay strictly."""


for command in (
    run,
    record,
    show,
    verify,
    demo,
    sim_group,
    calibrate,
    flaky,
    *HYGIENE_COMMANDS,
    *EVAL_COMMANDS,
):
    main.add_command(command)

__all__ = ["main"]
