"""JSON written by ``--json``: one form for every command, always UTF-8 JSON.

Documented in ``docs/cli.md`` ("JSON output").
"""

from __future__ import annotations

import json
from typing import Any

import click

from replaygate.jsonfields import escape_surrogates


def json_text(document: Any, *, sort_keys: bool = False) -> str:
    """``document`` as indented JSON text, non-ASCII kept, that is always UTF-8: a file
    name that is not UTF-8 is written with each of its bytes that is not as the JSON escape
    ``\\udcXX`` (``"caf\\udce9.jsonl"``; Python's ``os.fsencode`` of the parsed text gives
    back the name's bytes), never as the raw byte, which would make it no JSON."""
    text = json.dumps(document, ensure_ascii=False, indent=2, sort_keys=sort_keys)
    return escape_surrogates(text)


def echo_json(document: Any, *, sort_keys: bool = False) -> None:
    """Print ``document`` on stdout as :func:`json_text`."""
    click.echo(json_text(document, sort_keys=sort_keys))
