"""``ci plan``: which CI stages a change must run, and why."""

from __future__ import annotations

import os
from pathlib import Path

import click

from replaygate.cli.options import CommandError, PathParam, config_option, errors_as_exit_2
from replaygate.click_once import OnceGroup
from replaygate.evals.config import WHEN, load_config
from replaygate.evals.git import (
    NOT_A_REPOSITORY,
    GitError,
    changed_files,
    file_at,
    git,
    merge_base,
    repo_root,
)


@click.group("ci", cls=OnceGroup)
def ci_group() -> None:
    """CI stages: which stages a change must run.

    Example:

    \b
        replaygate ci plan --base origin/main
    """


@ci_group.command("plan")
@click.option("--base", help="Compare with this revision (its merge base with HEAD).")
@click.option("--changed", multiple=True, type=PathParam(path_type=Path), help="A changed file.")
@click.option(
    "--event",
    type=click.Choice(WHEN),
    default="pull-request",
    show_default=True,
    help="What started the run: stages declare the events they run on.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "github"]),
    default="table",
    show_default=True,
    help="table for a person, json for a program, github for step outputs.",
)
@config_option
@errors_as_exit_2
def ci_plan(
    base: str | None,
    changed: tuple[Path, ...],
    event: str,
    fmt: str,
    config_path: Path | None,
) -> None:
    """Print the stages this change must run and why (table, JSON, or GitHub outputs).

    A --base of 40 zeros (GitHub's github.event.before on a branch's first push; or 64)
    names no commit: every stage that runs on the event is planned, with a note.

    Example:

    \b
        replaygate ci plan --changed src/agent.py --format json
    """
    from replaygate.ci import every_stage, make_plan
    from replaygate.ci.plan import NO_BASE
    from replaygate.ci.stages import check_stages

    if (base is None) == (not changed):
        raise CommandError("give --base REV or --changed FILE (one of them)")
    config = load_config(config_path)
    if not config.ci.stages:
        raise CommandError(_no_stages(config.file))
    check_stages(config.ci, config.file)
    root = config.root
    if base is not None and NO_BASE.fullmatch(base):
        why = "no base: --base is zeros only (a branch's first push)"
        click.echo(every_stage(config.ci, event=event, why=why).render(fmt))
        return
    old_text = None
    if base is not None:
        _check_base(base, root)
        files = changed_files(base, root)

        def old_text(path: Path) -> str | None:
            return file_at(base, path, root)

    else:
        files = [_changed_path(p, root) for p in changed]
    plan = make_plan(files, config.ci, root=root, event=event, old_text=old_text)
    click.echo(plan.render(fmt))


def _changed_path(given: Path, root: Path) -> Path:
    """``--changed`` ``given``, read from the working folder. Refused when nothing is there
    but the project folder ``root`` has it: a path written from the project's top, given
    from a folder below it, would be classified as another file (a removed file named
    from the working folder is still a change)."""
    path = given if given.is_absolute() else Path.cwd() / given
    there = root / given
    if given.is_absolute() or os.path.lexists(path) or not os.path.lexists(there):
        return path
    raise CommandError(
        f"--changed {given.as_posix()}: there is no {path} (a relative --changed is read "
        f"from the working folder, {Path.cwd()}), but the project folder {root} has "
        f"{given.as_posix()}: give --changed {Path(os.path.relpath(there)).as_posix()}, or "
        f"run ci plan from {root}"
    )


def _no_stages(file: Path | None) -> str:
    """Why there is no stage to plan: the ``pyproject.toml`` read declares none, or no
    ``pyproject.toml`` was found (run from a monorepo's top, above its projects)."""
    if file is None:
        return (
            f"no pyproject.toml in {Path.cwd()} or a folder above it, so no CI stages are "
            "configured: run ci plan from the project's folder (a monorepo's service/), or "
            "pass --config with the project's pyproject.toml"
        )
    return (
        f"{file}: no CI stages configured: add [[tool.replaygate.ci.stages]] to it "
        "(see docs/ci.md), or pass --config with the pyproject.toml that declares them"
    )


def _repository_top(root: Path) -> Path:
    """The top of the git repository holding ``root``; outside one (a tarball of the
    project, a copy without ``.git``), a :class:`CommandError` saying to name the
    changed files with ``--changed``, where git says only ``not a git repository``. A
    repository git will not read (another user's, in a CI container) is left to git's
    own words, which name the ``safe.directory`` that lets it."""
    try:
        return repo_root(root)
    except GitError as err:
        if NOT_A_REPOSITORY not in str(err):
            raise
        raise CommandError(
            f"--base needs a git repository, and {root} is in none (a tarball or a copy of "
            "the project, without its .git folder): name the changed files with --changed "
            "FILE instead, or run ci plan in a clone of the repository"
        ) from None


def _check_base(base: str, root: Path) -> None:
    """Refuse a ``--base`` that names no commit of the repository, or whose merge base with
    HEAD the repository does not hold (a shallow clone), saying what to do: git alone says
    ``Not a valid commit name``, or nothing at all."""
    top = _repository_top(root)
    every = (
        f"To plan every stage instead, pass --base {'0' * 40} (40 zeros, as GitHub gives "
        "for a branch's first push)"
    )
    try:
        git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{base}^{{commit}}"], top)
    except GitError:
        raise CommandError(
            f"--base {base!r}: no such commit in the repository at {top} (a typo, a branch "
            "not fetched, a shallow clone: fetch the history, e.g. fetch-depth: 0; or a "
            f"commit gone after a force-push). {every}"
        ) from None
    try:
        merge_base(base, top)
    except GitError as err:
        raise CommandError(f"--base {base!r}: {err}. {every}") from None
