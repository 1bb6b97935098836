"""Commands whose one-value options refuse being given twice, shared by both command lines.

click keeps the last of ``--model a --model b`` without a word, so a script or a CI
line that names an option twice (one from a shared variable, one added by hand) runs
with a value its reader may not expect. Every ``replaygate`` and ``sim`` command is an
:class:`OnceCommand` or :class:`OnceGroup`: an option taking one value, or an on/off
pair (``--x/--no-x``), named twice is a usage error (exit 2) naming it. Options that
gather values (``multiple=True``, counters) and plain flags, which mean the same
however often they are given, are not refused.
"""

from __future__ import annotations

import ast
import difflib
import functools
import inspect
import os
import tokenize
from collections import Counter
from collections.abc import Callable
from typing import Any

import click


def _takes_one(param: click.Parameter) -> bool:
    """Whether ``param`` is an option whose second mention would replace its first."""
    if not isinstance(param, click.Option) or param.multiple or param.count:
        return False
    return not param.is_flag or bool(param.secondary_opts)


def refuse_repeated(command: click.Command, ctx: click.Context, args: list[str]) -> None:
    """Raise :class:`click.UsageError` when ``args`` name a one-value option of
    ``command`` more than once."""
    _, _, order = command.make_parser(ctx).parse_args(args=list(args))
    counts = Counter(param for param in order if _takes_one(param))
    for param, times in counts.items():
        if times > 1:
            assert isinstance(param, click.Option)
            names = " / ".join(f"'{name}'" for name in (*param.opts, *param.secondary_opts))
            raise click.UsageError(
                f"Option {names} was given {times} times; it takes one value: give it once.",
                ctx,
            )


def _dashed_path(err: click.NoSuchOption, args: list[str]) -> click.NoSuchOption:
    """``err``, saying how to name a file whose name starts with a dash when an argument
    click took for the unknown option is a file or folder there (``-x.jsonl``)."""
    path = next((a for a in args if a.startswith(err.option_name) and os.path.lexists(a)), None)
    if path is None:
        return err
    return click.NoSuchOption(
        err.option_name,
        f"{err.message} {path} is a file or folder there: name a path that starts with '-' "
        f"as ./{path}, or after -- (`-- {path}`)",
        err.possibilities,
        err.ctx,
    )


def _paths_given(
    command: click.Command, ctx: click.Context, args: list[str], err: click.UsageError
) -> click.UsageError:
    """``err``, click's refusal of extra arguments, saying what to pass instead when the
    command takes one path and every argument given is a file or folder there: a shell
    pattern (``replaygate verify fx/*.jsonl``) gives one argument a file."""
    if not err.message.startswith("Got unexpected extra argument"):
        return err
    single = [p for p in command.params if isinstance(p, click.Argument)]
    if len(single) != 1 or single[0].nargs != 1 or single[0].name is None:
        return err
    opts, extras, _ = command.make_parser(ctx).parse_args(args=list(args))
    given = [opts.get(single[0].name), *extras]
    if not all(isinstance(path, str) and os.path.lexists(path) for path in given):
        return err
    try:
        folder = os.path.commonpath([os.path.normpath(str(path)) for path in given])
    except ValueError:  # absolute and relative paths together
        folder = ""
    holding = f" ({folder})" if folder and os.path.isdir(folder) else ""
    return click.UsageError(
        f"{err.message}: {ctx.command_path} takes one {single[0].human_readable_name}, and "
        f"{len(given)} were given (a shell pattern such as fixtures/*.jsonl gives one "
        f"each): pass the folder that holds them{holding}, whose every store is read, or "
        "run the command once for each",
        ctx,
    )


@functools.cache
def _docstrings(path: str) -> dict[tuple[str, int], str]:
    """The docstring of each function in the source file ``path``, by its name and each
    line from its first decorator to its ``def`` (empty when the file cannot be read)."""
    try:
        with tokenize.open(path) as handle:
            tree = ast.parse(handle.read(), path)
    except (OSError, SyntaxError, ValueError):
        return {}
    found: dict[tuple[str, int], str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node)
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if doc is not None:
                found.update({(node.name, line): doc for line in range(first, node.lineno + 1)})
    return found


def source_help(callback: Callable[..., Any] | None) -> str | None:
    """The docstring of ``callback`` read from its source file: ``python -OO`` (or
    ``PYTHONOPTIMIZE=2``) strips docstrings, which click makes each command's help of,
    so ``--help`` would show no description and the command lists no purpose."""
    if callback is None:
        return None
    func = inspect.unwrap(callback)
    code = getattr(func, "__code__", None)
    try:
        path = inspect.getsourcefile(func)
    except TypeError:
        return None
    if code is None or path is None:
        return None
    return _docstrings(path).get((func.__name__, code.co_firstlineno))


class _HelpFromSource(click.Command):
    """A command whose help, missing because docstrings were stripped, is read from its
    callback's source (:func:`source_help`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.help is None:
            self.help = source_help(self.callback)


class OnceCommand(_HelpFromSource):
    """A command refusing a one-value option given twice (:func:`refuse_repeated`)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Refuse a repeated one-value option, then parse as click does; an unknown option
        that is a file's name says how to name such a file (:func:`_dashed_path`), and
        several paths given to a command taking one what to pass (:func:`_paths_given`)."""
        given = list(args)  # click's parser consumes the list it is given
        try:
            if not ctx.resilient_parsing:
                refuse_repeated(self, ctx, args)
            return super().parse_args(ctx, args)
        except click.NoSuchOption as err:
            raise _dashed_path(err, args) from None
        except click.UsageError as err:
            raise _paths_given(self, ctx, given, err) from None


class OnceGroup(_HelpFromSource, click.Group):
    """A group refusing a repeated one-value option of its own; its commands and groups
    are :class:`OnceCommand` and :class:`OnceGroup` too. A command name it does not know
    is refused with the one it is nearest, as click does for a misspelt option."""

    command_class = OnceCommand
    group_class = type  # a group made by this one is of its class

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Refuse a repeated one-value option of the group's, then parse as click does."""
        if not ctx.resilient_parsing:
            refuse_repeated(self, ctx, args)
        return super().parse_args(ctx, args)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """The command ``args`` name, as click finds it; an unknown one (``verfy``,
        ``Verify``) is refused saying which command was meant, where click said only
        ``No such command 'verfy'.``"""
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError as err:
            given = str(args[0]) if args else ""
            told = err.format_message() != err.message  # click 8.4+ names it, of a group
            meant = difflib.get_close_matches(given.lower(), self.list_commands(ctx), n=1)
            if meant and not told and err.message == f"No such command {given!r}.":
                raise click.UsageError(f"{err.message} Did you mean {meant[0]!r}?", ctx) from None
            raise
