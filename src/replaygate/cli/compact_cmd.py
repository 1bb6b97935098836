"""``replaygate compact PATH [--check] [--json]``."""

from __future__ import annotations

from pathlib import Path

import click

from replaygate.cli.json_docs import echo_json
from replaygate.cli.options import (
    CommandError,
    PathParam,
    json_option,
    refuse_no_store,
    walked_store,
)
from replaygate.click_once import OnceCommand
from replaygate.described import describe
from replaygate.errors import ReplaygateError, shown_file
from replaygate.fixtures.store.compact import compact


@click.command("compact", cls=OnceCommand)
@click.argument("path", type=PathParam(path_type=Path))
@click.option(
    "--check",
    is_flag=True,
    help="Change nothing (only read: no lock is taken, so a read-only checkout is "
    "checked); exit 1 when a file holds sample lines to fold.",
)
@json_option
def compact_cmd(path: Path, check: bool, as_json: bool) -> None:
    """Fold appended sample lines into their fixtures, rewriting each file atomically.

    Recording another sample of a stored request appends a line instead of rewriting
    the file; compact puts each fixture on one line again. Lines without samples are
    kept byte for byte. Only a file with sample lines is locked and written: one without
    any is only read, as --check reads it. Exit 2 when a file does not read cleanly, or
    folding would hide a hand edit (a fixture whose key is not its request's): nothing
    in it is changed; `replaygate verify` names the line.

    Example:

    \b
        replaygate compact tests/fixtures
    """
    walked = walked_store(path)
    refuse_no_store(path, walked)  # "nothing to compact" under a wrong path would pass
    try:
        done = compact(path, write=not check)
    except (ReplaygateError, OSError) as err:
        raise CommandError(describe(err)) from None
    if as_json:
        echo_json(
            {
                "path": str(path),
                "written": bool(done) and not check,  # a file was rewritten
                "files": [
                    {"file": str(c.file), "fixtures": c.fixtures, "sample_lines": c.sample_lines}
                    for c in done
                ],
            }
        )
    else:
        verb = "would fold" if check else "folded"
        for c in done:
            click.echo(
                f"{shown_file(str(c.file))}: {verb} {c.sample_lines} sample line(s) into "
                f"{c.fixtures} fixture(s)"
            )
        if not done:
            click.echo(f"nothing to compact under {shown_file(str(path))}")
    if check and done:
        raise SystemExit(1)
