"""Options shared by several commands."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import click

from replaygate.errors import ReplaygateError
from replaygate.examples.research_copilot import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_MODEL,
    DEFAULT_SYSTEM,
    load_cases,
)

F = TypeVar("F", bound=Callable[..., Any])
P = ParamSpec("P")
R = TypeVar("R")


class CommandError(click.ClickException):
    """A command that cannot run: printed as ``Error: ...``, exit status 2."""

    exit_code = 2


def errors_as_exit_2(fn: Callable[P, R]) -> Callable[P, R]:
    """Turn replaygate errors (and missing files) into a clean message and exit 2."""

    @wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except (ReplaygateError, FileNotFoundError) as err:
            raise CommandError(f"{type(err).__name__}: {err}") from None

    return wrapper


def request_settings(fn: F) -> F:
    """``--model``, ``--max-tokens`` and ``--system``: what the request is built with."""
    fn = click.option("--system", default=DEFAULT_SYSTEM, show_default="ResearchCopilot's")(fn)
    fn = click.option("--max-tokens", default=DEFAULT_MAX_TOKENS, show_default=True)(fn)
    fn = click.option("--model", default=DEFAULT_MODEL, show_default=True)(fn)
    return fn


def questions_source(fn: F) -> F:
    """``--question`` (repeatable) or ``--cases FILE``; defaults to the shipped cases."""
    fn = click.option(
        "--cases",
        "cases_path",
        type=click.Path(exists=True, dir_okay=False, path_type=Path),
        help="JSONL eval cases (default: ResearchCopilot's shipped cases).",
    )(fn)
    fn = click.option("--question", "-q", "questions", multiple=True, help="A question to ask.")(fn)
    return fn


def resolve_questions(questions: tuple[str, ...], cases_path: Path | None) -> list[str]:
    """The questions to run: given ones, or those of the cases file."""
    if questions and cases_path:
        raise click.UsageError("give --question or --cases, not both")
    if questions:
        return list(questions)
    return [case.question for case in load_cases(cases_path)]
