"""``replaygate import-cassettes DIR [--out OUT] [--force] [--match-host] [--json]``."""

from __future__ import annotations

import os
from pathlib import Path

import click

from replaygate.cli.json_docs import echo_json
from replaygate.cli.options import CommandError, PathParam, json_option
from replaygate.click_once import OnceCommand
from replaygate.config import find_pyproject
from replaygate.errors import shown_file
from replaygate.fixtures.store.files import YAML_SUFFIXES
from replaygate.jsondoc import json_fields
from replaygate.migrate.importing import CassetteImport, import_cassettes
from replaygate.missing import missing
from replaygate.pytest_plugin.store_names import DEFAULT_DIR, MAX_NAME, SAFE_CHARACTERS

EXIT_CODES = {"imported": 0, "unchanged": 0, "empty": 0, "refused": 1, "error": 2}
"""The exit status a cassette's outcome asks for; the command exits with the highest."""


def render(result: CassetteImport) -> str:
    """One line per cassette: where it went and its counts, or why nothing was written;
    then the old and new name of a store named otherwise than its cassette."""
    if result.outcome in ("refused", "error"):
        return f"{result.outcome.upper()} (nothing written): {result.problem}"
    cassette, store = shown_file(result.cassette), shown_file(result.store)
    if result.outcome == "empty":
        return f"{cassette}: holds no interaction; no store written"
    line = (
        f"{cassette} -> {store}: {result.imported} imported, "
        f"{result.unchanged} already there, {result.skipped} skipped, {result.refused} refused"
    )
    if result.dropped:
        line += f", {result.dropped} dropped (--force: past the cassette's answers)"
    if not result.renamed:
        return line
    old, new = Path(result.cassette).stem, Path(result.store).stem
    cut = f"; cut at {MAX_NAME} characters, ending in a digest" if len(old) > MAX_NAME else ""
    return (
        f"{line}\n  renamed {shown_file(old)} -> {new}: the name the pytest plugin gives the "
        f"test's store (each character outside {SAFE_CHARACTERS} written _{cut})"
    )


def _refuse_file_name(out: Path) -> None:
    """Refuse an ``--out`` named as a store file or a cassette (``stores.jsonl``): every
    command reads a path so named as one file and refuses a folder under that name, so
    the stores written in it could be neither replayed nor verified."""
    if out.suffix.lower() in (".jsonl", ".json", *YAML_SUFFIXES):
        raise CommandError(
            f"--out {out}: is named as a file ({out.suffix}), where the folder of the stores "
            "is expected: every command reads a path so named as one file and refuses a "
            "folder of that name, so no store written in it would replay; name a folder "
            "(--out tests/fixtures)"
        )


def project_stores() -> Path:
    """The plugin's folder of stores in the project the current folder is in (the folder of
    the nearest ``pyproject.toml``, pytest's rootdir), else in the current folder; as a
    path from the current folder (``tests/fixtures`` run at the project's top)."""
    pyproject = find_pyproject()
    top = pyproject.parent if pyproject is not None else Path.cwd()
    return Path(os.path.relpath(top / DEFAULT_DIR))


def summary(results: list[CassetteImport]) -> str:
    """How many cassettes had each outcome."""
    counts = ", ".join(f"{sum(r.outcome == o for r in results)} {o}" for o in EXIT_CODES)
    return f"{len(results)} cassette(s): {counts}"


@click.command("import-cassettes", cls=OnceCommand)
@click.argument("root", metavar="DIR", type=PathParam(path_type=Path))
@click.option(
    "--out",
    type=PathParam(file_okay=False, path_type=Path),
    help="Folder of the stores: one per cassette, at its path under DIR, named as the pytest "
    f"plugin names the store of its test (<name>.jsonl). Default: {DEFAULT_DIR} of the "
    "project, the folder of the nearest pyproject.toml (where the plugin looks), else of "
    "the current folder.",
)
@click.option(
    "--force", is_flag=True, help="Replace answers a store holds otherwise for the same request."
)
@click.option(
    "--match-host",
    is_flag=True,
    help="Store each request with its host, as a recording with match_host=True does: for "
    "tests that replay with match_host=True.",
)
@json_option
def import_cassettes_cmd(
    root: Path, out: Path | None, force: bool, match_host: bool, as_json: bool
) -> None:
    """Import vcrpy / pytest-recording cassettes (YAML or JSON) as fixture stores.

    Each cassette under DIR (or DIR itself, one cassette file) becomes a store under
    --out, written as a live recording would have stored it: sanitized, auth never
    kept, repeated requests answered in order, meta.source "vcrpy". Each store is
    named as the pytest plugin names its test's (a space in a parametrized id becomes
    _), and a store so renamed is printed with its old name. A cassette is
    imported whole or not at all; importing again writes nothing new. Exit 1 when a
    cassette was refused (a secret, a store holding another answer without --force,
    or one request sent to two hosts without --match-host); exit 2 when one could not
    be read, its store holds another cassette's fixtures, or a folder under DIR could
    not be listed (a linked folder is followed, each real folder once). Example:

        replaygate import-cassettes tests/cassettes --out tests/fixtures
    """
    if not os.path.lexists(root):
        raise CommandError(f"{root}: {missing(root)}")
    if out is None:
        out = project_stores()
    _refuse_file_name(out)
    results = import_cassettes(root, out, force=force, match_host=match_host)
    if not results:
        raise CommandError(f"no cassette (*.yaml, *.yml, *.json) under {root}")
    if as_json:
        echo_json({"cassettes": [json_fields(r) for r in results]})
    else:
        for result in results:
            click.echo(render(result))
        click.echo(summary(results))
    raise SystemExit(max(EXIT_CODES[r.outcome] for r in results))
