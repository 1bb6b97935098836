"""Fixture hygiene commands: ``checksum``."""

from __future__ import annotations

from pathlib import Path

import click

from replaygate.hygiene.checksum import store_checksum


@click.command()
@click.argument("path", type=click.Path(exists=True, path_type=Path))
def checksum(path: Path) -> None:
    """Print a digest of the fixtures under PATH, stable across machines (a CI cache key)."""
    click.echo(store_checksum(path))
