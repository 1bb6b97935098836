"""``replaygate diff``: review fixture changes between git revisions (docs/fixtures.md).

Exit status: 0 when all is well, 1 for an ALARM (a response changed for an unchanged
request, a key that is not its request's, a request recorded twice), 2 for a usage error
or when the review could not run.
"""

from __future__ import annotations

from pathlib import Path

import click

from replaygate.cli.json_out import echo_document, echo_json
from replaygate.cli.options import (
    TEXT,
    PathParam,
    chosen_format,
    fail,
    format_option,
    json_option,
    refuse_output_under,
)
from replaygate.cli.review_json import review_json
from replaygate.click_once import OnceCommand
from replaygate.errors import ReplaygateError
from replaygate.hygiene.review import review_store
from replaygate.hygiene.review_report import render_markdown, render_text
from replaygate.reasons import reason_problem

__all__ = ["diff"]


@click.command("diff", cls=OnceCommand)
@click.argument("path", required=False, default="tests/fixtures", type=PathParam(path_type=Path))
@click.option("--base", default="HEAD", show_default=True, help="The git revision to compare from.")
@click.option(
    "--head", default=None, help="The git revision to compare to [default: the working tree]."
)
@format_option
@click.option(
    "--allow-response-change",
    is_flag=True,
    help="Accept responses that changed for an unchanged request (needs --reason).",
)
@click.option("--reason", type=TEXT, help="Why the responses changed; printed in the report.")
@json_option
def diff(
    path: Path,
    base: str,
    head: str | None,
    fmt: str,
    allow_response_change: bool,
    reason: str | None,
    as_json: bool,
) -> None:
    """Review fixture changes under PATH between --base and the working tree (or --head).

    Shows fixtures added and removed, pairs a removed and an added fixture of the same
    test with their request difference by field path, and raises an ALARM (exit 1) for
    a fixture whose request is unchanged but whose response changed, unless
    --allow-response-change --reason "..." is given, and for a changed or added fixture
    whose stored key is not its request's, whose request its store holds already with
    other responses, or that holds a secret-looking value (no option accepts those).
    PATH defaults to tests/fixtures.

    Example:

    \b
        replaygate diff tests/fixtures --base origin/main --format markdown
    """
    fmt = chosen_format(fmt, as_json)
    if allow_response_change and not (reason or "").strip():
        raise click.UsageError(
            '--allow-response-change needs --reason "...": why the recorded responses '
            "changed (it is printed in the report for the reviewer)"
        )
    if reason is not None and not allow_response_change:
        raise click.UsageError("--reason goes with --allow-response-change")
    if allow_response_change and (problem := reason_problem(reason)) is not None:
        raise click.UsageError(
            f"--reason: {problem}; the report shows it to the reviewer as why the recorded "
            "responses changed"
        )
    from replaygate.sanitize.secret_scan import secret_detector  # the scanner: when asked

    if allow_response_change and (detector := secret_detector(reason or "")) is not None:
        raise click.UsageError(
            f"--reason holds a secret-looking value ({detector}), which the report would "
            "show to the reviewer and the CI log keep (law 4): say why without it"
        )
    refuse_output_under(path)  # `diff --json > tests/fixtures/review.json`
    try:
        result = review_store(path, base, head)
    except ReplaygateError as err:
        fail(err)
    allowed = reason.strip() if allow_response_change and reason else None
    if fmt == "json":
        echo_json(review_json(result, allowed))
    elif fmt == "markdown":
        echo_document(render_markdown(result, allowed))
    else:
        click.echo(render_text(result, allowed), nl=False)
    # A response change may be accepted with a reason; a key that is not its request's,
    # a request recorded twice with other responses, or a secret-looking value, cannot:
    # verify (and the replay) refuse that fixture whatever the review says.
    if result.refused or (result.response_alarms and allowed is None):
        raise SystemExit(1)
