"""``replaygate verify PATH [--repair] [--allow-missing-meta] [--jobs N] [--json]``."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import click

from replaygate.cli.json_docs import echo_json, verify_json
from replaygate.cli.long_lists import more_line, terminal_limit
from replaygate.cli.options import (
    CommandError,
    PathParam,
    json_option,
    refuse_no_store,
    walked_store,
)
from replaygate.click_numbers import DigitsInt
from replaygate.click_once import OnceCommand
from replaygate.errors import shown_file
from replaygate.evals.progress import reporter
from replaygate.fixtures.store.folder import StoreTree
from replaygate.hygiene.verify import StoreProblem, verify_store
from replaygate.hygiene.verify_jobs import default_jobs
from replaygate.hygiene.verify_passed import passed_over_notes
from replaygate.hygiene.verify_repair import repair as repair_store


def _verify(
    path: Path, require_meta: bool, jobs: int, tree: StoreTree | None = None
) -> tuple[int, list[StoreProblem]]:
    """:func:`verify_store` with a progress bar of the files read (on a terminal)."""
    with contextlib.ExitStack() as stack:

        def progress(total: int) -> Callable[[str], None]:
            bar = reporter(total, label="verify")
            stack.enter_context(bar)
            return bar.advance

        try:
            return verify_store(
                path, require_meta=require_meta, progress=progress, jobs=jobs, tree=tree
            )
        except BrokenProcessPool:
            raise CommandError(
                "a verify worker process ended before its work was done (out of memory?); "
                "run again with fewer --jobs, or --jobs 1"
            ) from None


@click.command(cls=OnceCommand)
@click.argument("path", type=PathParam(path_type=Path))
@click.option(
    "--repair",
    is_flag=True,
    help="Undo what an interrupted write left: cut a partial last line, move a truncated "
    "fixture file or a temporary file aside (each kept as a backup).",
)
@click.option(
    "--allow-missing-meta",
    is_flag=True,
    help="Accept fixtures without meta (a seed-style store); incomplete meta is still reported.",
)
@click.option(
    "--jobs",
    type=DigitsInt(min=1),
    default=default_jobs,
    show_default="the usable CPUs, at most 8",
    help="Processes that check a large store's segments in parallel; the report is the same.",
)
@json_option
def verify(path: Path, repair: bool, allow_missing_meta: bool, jobs: int, as_json: bool) -> None:
    """Check every fixture under PATH; one line per problem, exit 1 if any.

    Exit 2 with "Error: ..." when PATH does not exist or is no store (a symlink
    loop, a FIFO, a cassette), or holds no fixture store file (a source folder, a
    store's lock, the hits log's folder: a store file with no fixture, an empty .jsonl,
    is checked and passes, with a note), and exit 2 when a file was refused unread: not a
    regular file (a folder, a FIFO, a device, a symlink loop), unreadable, holding a
    line over the maximum size, or replaced or cut shorter while it was read (run verify
    again). Exit 1 for damaged content a file was read for (a malformed line, nesting
    too deep, NaN): every such line is listed with its file and line.

    Checked: each line parses (a partial last line is reported, and --repair cuts
    it; a one-fixture file cut short, or a temporary file of an interrupted write,
    --repair moves aside); each key matches its request; no request is recorded twice with different
    responses; each response replays (a fixture holds one that is not null, and each
    streamed event of a model API carries the JSON its SDK parses); no
    secret-looking value; meta is complete; a one-file fixture sits in the
    <interface>@<version> folder its meta names; no file in a folder store looks
    meant for it but is never read (a .JSON suffix, notes.txt in an interface folder).

    Example:

    \b
        replaygate verify tests/fixtures --repair
    """
    require_meta = not allow_missing_meta
    walked = walked_store(path)
    for tree in walked:
        for note in passed_over_notes(tree):
            click.echo(note, err=True)
    refuse_no_store(path, walked)  # a check of no store at all passes nothing
    count, problems = _verify(path, require_meta, jobs, next(iter(walked), None))
    if repair and any(problem.repairable for problem in problems):
        for done in repair_store(path, problems):
            click.echo(done, err=as_json)
        # checked again; a one-fixture file named alone and moved aside leaves nothing
        count, problems = _verify(path, require_meta, jobs) if os.path.lexists(path) else (0, [])
    if as_json:
        echo_json(verify_json(str(path), count, problems))
    else:
        _echo_problems(problems)
        click.echo(f"{count} fixture(s) checked, {len(problems)} problem(s)")
    if not count and not problems and os.path.lexists(path):
        click.echo(
            f"note: {shown_file(str(path))} holds no fixture (an empty store): nothing was "
            "checked; `replaygate run` refuses to replay from a store with no fixture",
            err=True,
        )
    if any(problem.refused for problem in problems):
        raise SystemExit(2)
    if problems:
        raise SystemExit(1)


def _echo_problems(problems: list[StoreProblem]) -> None:
    """One line per problem; on a terminal the first of many, and how to see the rest."""
    limit = terminal_limit()
    for problem in problems[:limit]:
        click.echo(str(problem))
    if limit is not None and len(problems) > limit:
        click.echo(more_line(len(problems) - limit, "problem(s)"))
