"""``replaygate checksum``: a stable digest of a store, for CI cache keys.

Exit status: 0 with the digest printed, 2 for a usage error or a store that cannot be read.
"""

from __future__ import annotations

from pathlib import Path

import click

from replaygate.cli.json_out import echo_json
from replaygate.cli.options import PathParam, fail, json_option, refuse_no_store, walked_store
from replaygate.click_once import OnceCommand
from replaygate.errors import FixtureFormatError, ReplaygateError
from replaygate.fixtures.store.folder import other_kind
from replaygate.fixtures.store.given import PASS_A_STORE
from replaygate.hygiene.checksum import store_checksum

__all__ = ["checksum"]


@click.command(cls=OnceCommand)
@click.argument("path", type=PathParam(path_type=Path))
@json_option
def checksum(path: Path, as_json: bool) -> None:
    """Print a digest of the fixtures under PATH, stable across machines (a CI cache key).

    Example:

    \b
        replaygate checksum tests/fixtures
    """
    walked = walked_store(path)
    refuse_no_store(path, walked)  # the digest of nothing would key a cache all the same
    kind = other_kind(path) if path.is_file() else None
    if kind is not None:  # read as a store, verify finds no fixture in it
        fail(
            FixtureFormatError(
                str(path),
                0,
                f"is no fixture store, but {kind} (its digest would key a cache on no "
                f"fixture); {PASS_A_STORE}",
            )
        )
    try:
        digest = store_checksum(path)
    except ReplaygateError as err:
        fail(err)
    if as_json:
        echo_json({"path": str(path), "checksum": digest})
    else:
        click.echo(digest)
