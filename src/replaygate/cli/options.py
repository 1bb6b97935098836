"""Options shared by several commands, and how their errors end a command."""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, ParamSpec, TypeVar

import click
from click.core import ParameterSource

from replaygate.click_errors import CommandError as CommandError  # the commands raise it
from replaygate.click_numbers import DigitsInt
from replaygate.config import MAX_TOKENS
from replaygate.described import describe
from replaygate.digits import a_decimal
from replaygate.errors import ReplaygateError, first_few, shown_file
from replaygate.fixtures.spending import amount_problem
from replaygate.jsonfields import escape_surrogates, lone_surrogate
from replaygate.locale_names import names_as_utf8
from replaygate.regular import backslashed_here, unexpanded_tilde, unreadable
from replaygate.seed import SIMULATOR_SEED
from replaygate.shell_words import shell_quote

if TYPE_CHECKING:
    from replaygate.evals.config import Config
    from replaygate.fixtures.store.folder import StoreTree

F = TypeVar("F", bound=Callable[..., Any])
P = ParamSpec("P")
R = TypeVar("R")


def input_error(err: BaseException) -> bool:
    """Whether ``err`` is a failed file operation (a read-only folder, a full disk), which
    ends any command with exit status 2; a broken pipe is click's to handle."""
    return isinstance(err, OSError) and err.errno not in (None, errno.EPIPE)


def note_other_files(*paths: Path | None) -> list[StoreTree]:
    """Name on stderr, in one line, the files under the folders ``paths`` passed over as
    replaygate's other files (eval cases, a baseline...), not fixtures.

    Returns the walks made (:func:`~replaygate.fixtures.store.folder.store_tree`), one
    for each path not None, for the command to reuse; none when a folder cannot be listed.
    """
    from replaygate.fixtures.store.folder import OTHER_FILES_NOTE, store_tree

    try:
        trees = [store_tree(path) for path in paths if path is not None]
    except ReplaygateError:  # a folder that cannot be listed: the command says so
        return []
    _refuse_output_inside(trees)
    skipped = [f"{file} ({kind})" for tree in trees for file, kind in tree.others]
    if skipped:
        names = ", ".join(skipped)
        if len(skipped) > MOST_NAMED:  # a hits log's runs: a line the error after it buries
            names = f"{first_few(skipped, MOST_NAMED // 2)} ({len(skipped)} in all)"
        click.echo(f"{OTHER_FILES_NOTE}: {names}", err=True)
    return trees


MOST_NAMED = 8
"""How many files passed over the note names one by one; of more, the first half of that
and how many there are."""


def refuse_output_under(path: Path) -> None:
    """:func:`_refuse_output_inside` of the stores under ``path``, for a command that
    reads them its own way (``diff``, from git and the working tree); walked only when
    stdout is a file."""
    from replaygate.fixtures.store.folder import store_tree

    if _stdout_file() is None or not os.path.isdir(path):
        return
    try:
        tree = store_tree(path)
    except ReplaygateError:  # a folder that cannot be listed: the command says so
        return
    _refuse_output_inside([tree])


def _stdout_file() -> os.stat_result | None:
    """The ``stat`` of the regular file stdout is sent to, or None (a terminal, a pipe,
    no file behind it: a test runner's)."""
    try:
        out = os.fstat(sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):
        return None
    return out if stat.S_ISREG(out.st_mode) else None


def _refuse_output_inside(trees: list[StoreTree]) -> None:
    """End the command (exit 2, ``Error: ...``) when its stdout is sent to a fixture file
    of the stores it reads (``replaygate verify fx --json > fx/report.json``): the shell
    made that file empty before the command ran, so the command would read its own output
    as a damaged fixture, report it, and write that into it."""
    out = _stdout_file()
    if out is None:
        return
    for tree in trees:
        for root, files in tree.stores.items():
            for file in files:
                try:
                    same = os.path.samestat(os.stat(file), out)
                except OSError:
                    continue
                if same:
                    raise CommandError(
                        f"stdout: {shown_file(str(file))} is a fixture file of the stores "
                        f"read ({shown_file(str(root))}), so this command would read its "
                        "own output as a fixture: send the output to a file outside them"
                        + _emptied(file, out)
                    )


def _emptied(file: Path, out: os.stat_result) -> str:
    """What to do about ``file``, stdout's, when the shell left it empty (``>`` makes or
    empties it before the command runs): every command reading the stores would then
    refuse it as a damaged fixture."""
    if out.st_size:
        return ""
    shown = shell_quote(shown_file(str(file)))
    return (
        f"; the shell made {shown} for it, empty, which the stores' readers refuse as a "
        f"damaged fixture: delete it (`rm {shown}`), or, if it held fixtures, restore it "
        f"(`git checkout -- {shown}`)"
    )


def walked_store(path: Path) -> list[StoreTree]:
    """:func:`note_other_files` of ``path``, then ``path`` named as what it is when it is
    no store to read (missing, a symlink loop, a FIFO...: exit 2, ``Error: ...``)."""
    from replaygate.fixtures.store.files import existing_store

    walked = note_other_files(path)
    try:
        existing_store(path)
    except ReplaygateError as err:
        fail(err)
    return walked


def refuse_no_store(path: Path, walked: list[StoreTree]) -> None:
    """End the command (exit 2, ``Error: ...``) when ``path``, given as the stores to read,
    is there but holds no fixture store file: a source folder, a store's lock, the hits
    log's folder (:func:`~replaygate.fixtures.store.given.require_store`, given the walk
    :func:`note_other_files` made, when it made one), or holds a git submodule that is
    not checked out (:func:`~replaygate.checkouts.unchecked_out_module`) or store files
    a sparse checkout leaves out (:func:`~replaygate.checkouts.sparse_left_out_under`). A
    path that is not there is left for the command to name, as it does."""
    from replaygate.checkouts import sparse_left_out_under, unchecked_out_module
    from replaygate.fixtures.store.files import existing_store
    from replaygate.fixtures.store.given import require_store

    if not os.path.lexists(path):
        return
    try:
        existing_store(path)  # a FIFO, a symlink loop...: named as what it is first
        if path.is_dir() and (module := unchecked_out_module(path)):
            raise CommandError(module)  # its fixtures would be left out in silence
        require_store(path, walked[0] if walked else None)
        if path.is_dir() and (left := sparse_left_out_under(path)):
            raise CommandError(left)  # so would those of the files left out
    except ReplaygateError as err:
        raise CommandError(describe(err)) from None


def fail(err: Exception) -> NoReturn:
    """End the command with ``Error: ...`` on stderr and exit 2, as every command does."""
    raise CommandError(describe(err)) from None


def errors_as_exit_2(fn: Callable[P, R]) -> Callable[P, R]:
    """Turn replaygate errors (and missing files) into a clean message and exit 2."""

    @wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except (ReplaygateError, FileNotFoundError) as err:
            raise CommandError(describe(err)) from None

    return wrapper


class PathParam(click.Path):
    """click's path type, refusing an empty path: ``Path("")`` is the current folder, so
    ``--out ""`` or ``verify ""`` acted on the folder the command ran in; a ``~`` no
    shell expanded (``--out="~/report.html"``), which wrote into a new folder named ``~``;
    and, on Linux and macOS, a path not there whose folders a backslash separates
    (``--fixtures 'evals\\rc.jsonl'``, from a command written on Windows), which named a
    new file of that name in the working folder."""

    def convert(
        self,
        value: str | os.PathLike[str],
        param: click.Parameter | None,
        ctx: click.Context | None,
    ) -> Any:
        text = os.fspath(value)
        if text == "":
            self.fail("an empty path: give one (. for the current folder)", param, ctx)
        if isinstance(text, str) and "\0" in text:  # only from Python: no argv holds one
            self.fail(f"a path cannot hold a NUL character (\\u0000), got {text!r}", param, ctx)
        problem = unexpanded_tilde(text, ".") if isinstance(text, str) else None
        if problem is None and isinstance(text, str) and "\\" in text:
            problem = backslashed_here(text, ".")
        if problem is not None:
            self.fail(problem, param, ctx)
        if self.exists and os.path.islink(text) and not os.path.exists(text):
            try:  # click says a symlink loop "does not exist"
                os.stat(text)
            except OSError as err:
                what = "folder" if not self.file_okay else "file"
                self.fail(f"{os.fsdecode(text)!r} {unreadable(text, err, what)}", param, ctx)
        return super().convert(value, param, ctx)


FILE = PathParam(dir_okay=False, path_type=Path)
"""The type of an option that names a file (a folder is refused), as a ``Path``."""


def file_option(*names: str, **attrs: Any) -> Callable[[F], F]:
    """An option that names a file; ``attrs`` as for :func:`click.option`."""
    return click.option(*names, type=FILE, **attrs)


config_option = file_option(
    "--config",
    "config_path",
    help="pyproject.toml to read [tool.replaygate] from (default: the nearest one).",
)
format_option = click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "markdown", "json"]),
    default="text",
    show_default=True,
    help="text for a terminal, markdown for a pull-request comment, json for a program.",
)
json_option = click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print JSON on stdout instead of text, and nothing else (shapes: docs/cli.md).",
)


def chosen_format(fmt: str, as_json: bool) -> str:
    """The output format :data:`format_option` and :data:`json_option` choose: ``--json``
    is ``--format json``, so given with another ``--format`` it is refused (a usage error),
    never one of the two silently kept."""
    if not as_json:
        return fmt
    source = click.get_current_context().get_parameter_source("fmt")
    given = source in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)
    if given and fmt != "json":
        raise click.UsageError(
            f"--json is --format json, and --format {fmt} was given too: give one of them"
        )
    return "json"


def other_config(file: Path | None) -> Path | None:
    """The config file a command read, as one of its inputs an output may not replace,
    when it is not a ``pyproject.toml`` (refused as the project's configuration anyway,
    by name): ``eval --config cfg.toml --out cfg.toml`` replaced it."""
    return file if file is not None and file.name != "pyproject.toml" else None


def check_seed_with_simulator(simulator: bool) -> None:
    """Refuse a ``--seed`` given without ``--simulator``: nothing takes it (a replay serves
    what the store holds, the live API draws its own answers), and it was ignored."""
    ctx = click.get_current_context()
    given = ctx.get_parameter_source("seed") not in (None, click.core.ParameterSource.DEFAULT)
    if given and not simulator:
        raise click.UsageError(
            "--seed goes with --simulator (the simulator's answers); without it nothing "
            "takes a seed: a replay serves what the store holds, the live API its own answers",
            ctx,
        )


simulator_seed_option = click.option(
    "--seed",
    default=SIMULATOR_SEED,
    show_default=True,
    type=DigitsInt(),
    help="Seed of the simulator's answers (with --simulator).",
)


class _Amount(click.ParamType[float, Any]):
    """A spending cap: a number, 0 or more (infinity caps nothing), never NaN."""

    name = "amount"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        if isinstance(value, str) and not a_decimal(value):
            self.fail(f"{value!r} is not an amount written in the digits 0-9.", param, ctx)
        number = click.FLOAT.convert(value, param, ctx)
        problem = amount_problem(number)
        if problem is not None:
            self.fail(problem, param, ctx)
        return number


max_cost_option = click.option(
    "--max-cost",
    type=_Amount(),
    metavar="AMOUNT",
    help="Spending cap of this recording, in the price table's currency (default: max_cost "
    "in [tool.replaygate], else 5.00 for a live API, none for --simulator). A call that "
    "could pass it is not sent; what was recorded is kept.",
)
history_option = file_option(
    "--history",
    "history_path",
    help="The SQLite history (default: [tool.replaygate] history, or .replaygate/history.db).",
)
fixtures_option = click.option(
    "--fixtures",
    "fixtures_path",
    type=PathParam(path_type=Path),
    help="Fixture store: a .jsonl file or a folder (default: [tool.replaygate] fixtures).",
)


def _agent_spec(ctx: click.Context, param: click.Parameter, given: str | None) -> str | None:
    """Refuse an empty ``--agent``, as an empty ``--model`` is: it silently ran the
    configured agent."""
    if given is not None and not given.strip():
        raise click.BadParameter("an empty agent: give module:function", ctx, param)
    return given


agent_option = click.option(
    "--agent",
    callback=_agent_spec,
    help="The agent, module:function (model, question) -> run (default: [tool.replaygate] agent).",
)


class TextParam(click.ParamType[str, Any]):
    """click's text type, refusing text that is not UTF-8: a byte such as ``\\xff`` in an
    argument reaches Python as half of a surrogate pair, which no fixture, baseline or
    request can hold (``record --note`` said "cannot fingerprint request" and exited 1,
    ``baseline update --reason`` ended in a traceback).

    UTF-8 text given under an ASCII locale (``LC_ALL=C``), which Python decodes byte by
    byte as surrogates, is read as a UTF-8 locale reads it (``\\udcc3\\udca9`` as ``é``):
    the same words are stored and sent on every machine."""

    name = "text"

    def convert(
        self, value: object, param: click.Parameter | None, ctx: click.Context | None
    ) -> str:
        text = names_as_utf8(value if isinstance(value, str) else str(value))
        if lone_surrogate(text) is not None:
            self.fail(
                f"'{escape_surrogates(text)}' is not UTF-8 text (a byte that is not UTF-8 is "
                "shown as \\udcXX): give it as UTF-8",
                param,
                ctx,
            )
        return text


TEXT = TextParam()
"""The type of every option and argument whose text is stored or sent (a note, a reason,
a question, a system prompt, a model id)."""


def request_settings(fn: F) -> F:
    """``--model``, ``--max-tokens`` and ``--system``: what the requests are built with.

    Each defaults to ``[tool.replaygate]``, then to what the agent declares.
    """
    fn = click.option(
        "--system",
        type=TEXT,
        help='System prompt (default: [tool.replaygate] system; --system "" sends none).',
    )(fn)
    fn = click.option(
        "--max-tokens",
        type=DigitsInt(min=1, max=MAX_TOKENS),
        help="Request max_tokens (default: [tool.replaygate] max_tokens).",
    )(fn)
    fn = click.option(
        "--model",
        type=TEXT,
        callback=_model_id,
        help="Model id (default: [tool.replaygate] model).",
    )(fn)
    return fn


def _model_id(ctx: click.Context, param: click.Parameter, given: str | None) -> str | None:
    if given is not None and not given.strip():
        raise click.BadParameter("an empty model id", ctx, param)
    return given


def _no_short_question(ctx: click.Context, param: click.Parameter, given: bool) -> None:
    if given:
        raise click.UsageError(
            "-q no longer takes a question: pass the question as an argument after your "
            f'other options, in place of -q: {ctx.command_path} [OPTIONS] "What is RAG?"',
            ctx,
        )


def _deprecated_question(
    ctx: click.Context, param: click.Parameter, given: tuple[str, ...]
) -> tuple[str, ...]:
    if given:
        click.echo(
            "--question is deprecated and goes in the next release: pass the question as "
            f'an argument, e.g. {ctx.command_path} "{given[0]}"',
            err=True,
        )
    return given


def questions_source(fn: F) -> F:
    """``QUESTION...`` arguments, or ``--cases FILE`` (default: ``[tool.replaygate] cases``).

    ``--question`` (hidden, deprecated) still adds a question; ``-q`` is a usage error
    that says to pass the question as an argument.
    """
    fn = click.option(
        "--cases",
        "cases_path",
        type=PathParam(exists=True, dir_okay=False, path_type=Path),
        help="JSONL eval cases whose questions to ask (default: [tool.replaygate] cases).",
    )(fn)
    fn = click.option(
        "--question",
        "legacy_questions",
        type=TEXT,
        multiple=True,
        hidden=True,
        callback=_deprecated_question,
        help="Deprecated: pass the question as an argument.",
    )(fn)
    fn = click.option(
        "-q",
        "short_question",
        is_flag=True,
        hidden=True,
        expose_value=False,
        callback=_no_short_question,
        help="No longer a question: pass the question as an argument.",
    )(fn)
    fn = click.argument("questions", nargs=-1, type=TEXT, metavar="[QUESTION]...")(fn)
    return fn


def in_project(path: Path, flag: str, config: Config) -> str | None:
    """Where the project folder (of its ``pyproject.toml``) has ``path``, a relative path
    that the command read from the working folder, and how to name that file: None when
    the project has no such file, or the working folder is the project's."""
    cwd = Path.cwd()
    if path.is_absolute() or config.file is None or config.root.resolve() == cwd.resolve():
        return None
    there = config.root / path
    if not there.is_file():
        return None
    return (
        f"the project folder {config.root} (of its pyproject.toml) has {path.as_posix()} "
        f"(to name it, give {flag} {os.path.relpath(there, cwd)}, or run the command from "
        f"{config.root})"
    )


def new_history_note(path: Path | None, config: Config) -> None:
    """Say on stderr that ``--history`` ``path``, a relative path not there, makes a new
    history in the working folder where the project folder has one of that name: the
    run would be kept apart from the project's runs, named alike."""
    if path is None or os.path.lexists(path):
        return
    elsewhere = in_project(path, "--history", config)
    if elsewhere is not None:
        click.echo(
            f"note: {path} is not in the working folder, {Path.cwd()}, so a new history is "
            f"made there, apart from the project's runs; {elsewhere}",
            err=True,
        )
