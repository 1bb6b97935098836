"""The ``replaygate`` command line: a thin layer over the library.

Each command's module is imported only when that command runs (or ``--help`` lists
it), so a quick command such as ``replaygate verify`` in a pre-commit hook does not
pay for the SDKs, the simulator or the plotting library.
"""

from __future__ import annotations

import codecs
import contextlib
import importlib
import io
import sys
from collections.abc import Iterator

import click

from replaygate._version import __version__
from replaygate.cli.closed_stdout import reader_may_leave
from replaygate.cli.interrupts import end_interrupted, signals_ignored_from_now, sigterm_as_ctrl_c
from replaygate.cli.program import command_ended, program_runs
from replaygate.click_once import OnceGroup

COMMANDS: dict[str, str] = {
    "run": "replaygate.cli.replay_cmds:run",
    "record": "replaygate.cli.replay_cmds:record",
    "show": "replaygate.cli.replay_cmds:show",
    "verify": "replaygate.cli.verify_cmd:verify",
    "demo": "replaygate.cli.demo:demo",
    "sim": "replaygate.sim.cli:sim_group",
    "calibrate": "replaygate.cli.assert_cmds:calibrate",
    "flaky": "replaygate.cli.assert_cmds:flaky",
    "checksum": "replaygate.cli.checksum_cmd:checksum",
    "diff": "replaygate.cli.diff_cmd:diff",
    "drift": "replaygate.cli.hygiene_cmds:drift",
    "patrol": "replaygate.cli.hygiene_cmds:patrol_cmd",
    "prune": "replaygate.cli.hygiene_cmds:prune",
    "eval": "replaygate.cli.eval_cmds:eval_cmd",
    "gate": "replaygate.cli.gate_cmds:gate_cmd",
    "baseline": "replaygate.cli.gate_cmds:baseline_group",
    "report": "replaygate.cli.history_cmds:report_cmd",
    "history": "replaygate.cli.history_cmds:history_group",
    "ci": "replaygate.cli.ci_cmd:ci_group",
    "upgrade": "replaygate.cli.gate_cmds:upgrade_cmd",
    "import-cassettes": "replaygate.cli.import_cmd:import_cassettes_cmd",
    "compact": "replaygate.cli.compact_cmd:compact_cmd",
    "docs": "replaygate.cli.docs_cmd:docs_cmd",
}
"""Command name -> ``module:attribute`` of its click command."""

PURPOSES: dict[str, str] = {
    "baseline": "The committed eval baseline: make a results file the new one, with a reason.",
    "calibrate": "Calibrate the automatic assertions against human labels (never a gate).",
    "checksum": "Print a digest of the fixtures under PATH, stable across machines (a CI cache "
    "key).",
    "ci": "CI stages: which stages a change must run.",
    "compact": "Fold appended sample lines into their fixtures, rewriting each file atomically.",
    "demo": "Record ResearchCopilot once, replay it offline twice, then catch a mismatch.",
    "docs": "Print a page of the documentation, or the section PAGE#ANCHOR names.",
    "diff": "Review fixture changes under PATH between --base and the working tree (or --head).",
    "drift": "Compare the response field sets of the fixtures at PATH with live responses.",
    "eval": "Run the eval cases through the agent: replay by default, never live.",
    "flaky": "Run each unsampled test RUNS times and list those that passed and failed.",
    "gate": "Compare RESULTS with the baseline; exit 1 when a metric drops beyond its limit.",
    "history": "The SQLite eval history: export runs as JSON, merge them into another history.",
    "import-cassettes": "Import vcrpy / pytest-recording cassettes (YAML or JSON) as fixture "
    "stores.",
    "patrol": "Age, use and references of every fixture under PATH, oldest first.",
    "prune": "List (dry run) or delete (--yes) the unused fixtures under PATH.",
    "record": "Record the agent's answers to each QUESTION through the anthropic SDK.",
    "report": "Write a self-contained HTML report of the history (with the gate, given --results).",
    "run": "Replay the agent from the fixtures (never live) and print trace and answer.",
    "show": "Print the fixture(s) whose key starts with KEY.",
    "sim": "A loopback server speaking the Anthropic, OpenAI and Gemini wire formats.",
    "upgrade": "Classify each failure of a candidate model's results against the baseline's.",
    "verify": "Check every fixture under PATH; one line per problem, exit 1 if any.",
}
"""Command name -> its purpose as ``replaygate --help`` lists it, the first line of its
help: the listing imports no command's module (all of them took most of a second). A test
holds each to its command's own."""


class LazyGroup(OnceGroup):
    """A group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command name, sorted."""
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command called ``cmd_name``, imported now."""
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module, attribute = target.split(":")
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Each command with its whole purpose line (wrapped, never cut short), from
        :data:`PURPOSES`."""
        with formatter.section("Commands"):
            formatter.write_dl([(name, PURPOSES[name]) for name in self.list_commands(ctx)])

    def invoke(self, ctx: click.Context) -> object:
        """Run the command; a replaygate error or a failed file operation (a read-only
        folder, a full disk) it lets through ends it with exit 2, Ctrl-C or SIGTERM with
        one line and exit 130 (:mod:`replaygate.cli.interrupts`).

        Commands handle the errors they expect; this is the net under them, so a
        first mistake gets ``Error: <what, where, what to do>``, never a traceback.
        """
        try:
            with sigterm_as_ctrl_c():
                return self._invoke_described(ctx)
        except KeyboardInterrupt:  # also while the modules below are still being imported
            raise end_interrupted(ctx.invoked_subcommand) from None

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Read the group's own options; ``--help`` and ``--version``, printed here, to a
        full disk (``> /dev/full``) end with ``Error:`` and exit 2, as a command does, and
        Ctrl-C here (the modules for it still being imported) with one line and exit 130."""
        try:
            with _described_errors():
                return super().parse_args(ctx, args)
        except KeyboardInterrupt:
            raise end_interrupted(None) from None

    def _invoke_described(self, ctx: click.Context) -> object:
        """Run the command, a replaygate error or a failed file operation described, a
        replaygate warning shown as a line (:mod:`replaygate.warning_lines`)."""
        from replaygate.warning_lines import warnings_as_lines

        _names_as_on_disk()
        with _described_errors(), warnings_as_lines():
            return super().invoke(ctx)


@contextlib.contextmanager
def _described_errors() -> Iterator[None]:
    """A replaygate error or a failed file operation (a read-only folder, a full disk)
    raised inside, as ``Error: <what, where>`` with exit status 2."""
    from replaygate.cli.options import CommandError, input_error
    from replaygate.described import describe
    from replaygate.errors import ReplaygateError

    try:
        yield
    except ReplaygateError as err:
        raise CommandError(describe(err)) from None
    except OSError as err:
        if not input_error(err):
            raise
        raise CommandError(describe(err)) from None


_AS_ON_DISK = "replaygate.as_on_disk"
"""The name of the codec error handler :func:`_as_on_disk`."""


def _names_as_on_disk() -> None:
    """Let stdout and stderr write a file name that is not UTF-8 as its bytes on disk, as
    ``ls`` and ``git`` do (:func:`_as_on_disk`): Python holds those bytes as surrogates,
    which a strict stream (stdout in a UTF-8 locale other than ``C.UTF-8``) refuses with
    a traceback, and stderr writes as ``\\udce9``, a name no file has (every ``Error:``
    line). A stream of an ASCII locale (``LC_ALL=C``), which holds each byte of a UTF-8
    name as a surrogate, writes UTF-8, as click writes to it: its bytes, never the ``?``
    click's own wrapper writes for them, so the output is the same in every locale."""
    codecs.register_error(_AS_ON_DISK, _as_on_disk)
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and stream.errors in _PYTHONS_ERRORS:
            ascii_locale = codecs.lookup(stream.encoding).name == "ascii"
            stream.reconfigure(encoding="utf-8" if ascii_locale else None, errors=_AS_ON_DISK)


_PYTHONS_ERRORS = ("strict", "backslashreplace", "surrogateescape")
"""How Python's own stdout and stderr write what their encoding cannot (a stream set
otherwise, ``PYTHONIOENCODING=utf-8:replace``, is left as it is)."""


def _as_on_disk(err: UnicodeError) -> tuple[str | bytes, int]:
    """Write a byte that is not UTF-8 (held as a surrogate U+DC80..U+DCFF) as that byte,
    as ``surrogateescape`` does; any other character the stream cannot write as its
    backslash escape, never an error."""
    if isinstance(err, UnicodeEncodeError):
        char = err.object[err.start]
        if "\udc80" <= char <= "\udcff":
            return bytes([ord(char) - 0xDC00]), err.start + 1
    return codecs.backslashreplace_errors(err)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="replaygate")
def main() -> None:
    """Deterministic, offline tests for LLM agents: record once, replay strictly.

    The pages its messages name (docs/frameworks.md#langchain) are installed with it:
    `replaygate docs frameworks#langchain` prints that section.
    """


def run() -> None:
    """The ``replaygate`` program, however it is started (the console script, ``python -m
    replaygate``; ``python -m replaygate.sim.cli`` runs ``python -m replaygate sim``):
    :func:`main`, a reader of its output that goes away (``| head``) ending only the
    printing (:mod:`~.closed_stdout`), then a Ctrl-C or SIGTERM while the process ends
    changes its exit status no more (:func:`~.interrupts.signals_ignored_from_now`). A
    replaying command keeps the network blocked to the process's end
    (:mod:`~.offline_exit`)."""
    reader_may_leave()
    program_runs()
    try:
        main()
    finally:
        command_ended()
        signals_ignored_from_now()


__all__ = ["COMMANDS", "main", "run"]
