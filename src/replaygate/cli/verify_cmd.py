"""``replaygate verify PATH [--repair]``."""

from __future__ import annotations

from pathlib import Path

import click

from replaygate.store import repair_partial_tail
from replaygate.verify import verify_store


@click.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--repair", is_flag=True, help="Remove a partial last line (after a backup).")
def verify(path: Path, repair: bool) -> None:
    """Check every fixture under PATH; one line per problem, exit 1 if any."""
    count, problems = verify_store(path)
    if repair:
        for problem in [p for p in problems if p.repairable]:
            repaired = repair_partial_tail(Path(problem.file))
            if repaired is not None:
                backup, removed = repaired
                click.echo(
                    f"{problem.file}: removed a partial tail of {removed} bytes (backup: {backup})"
                )
        count, problems = verify_store(path)
    for problem in problems:
        click.echo(str(problem))
    click.echo(f"{count} fixture(s) checked, {len(problems)} problem(s)")
    if problems:
        raise SystemExit(1)
