"""JSON written by ``--json``: one form for every command, always UTF-8 JSON.

Documented in ``docs/cli.md`` ("JSON output").
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator
from typing import Any

import click

from replaygate.jsonfields import escape_surrogates
from replaygate.locale_names import names_as_utf8
from replaygate.reasons import unseen_escaped


def json_text(document: Any, *, sort_keys: bool = False) -> str:
    """``document`` as indented JSON text, non-ASCII kept, that is always UTF-8: a file
    name that is not UTF-8 is written with each of its bytes that is not as the JSON escape
    ``\\udcXX`` (``"caf\\udce9.jsonl"``; Python's ``os.fsencode`` of the parsed text gives
    back the name's bytes), never as the raw byte, which would make it no JSON; a UTF-8
    name is written as its text in any locale (an ASCII one holds its bytes as surrogates
    too). A character that reorders what follows it or is drawn as nothing is written as
    its escape (``\\u202e``: :func:`~replaygate.reasons.unseen_escaped`), the same text
    to a JSON reader."""
    text = json.dumps(document, ensure_ascii=False, indent=2, sort_keys=sort_keys)
    return unseen_escaped(escape_surrogates(names_as_utf8(text)))


def echo_json(document: Any, *, sort_keys: bool = False) -> None:
    """Print ``document`` on stdout as :func:`json_text`, in UTF-8 (:func:`echo_document`)."""
    echo_document(json_text(document, sort_keys=sort_keys) + "\n")


def echo_document(text: str) -> None:
    """Print ``text``, a document for a program or a page (JSON, Markdown), on stdout in
    UTF-8 whatever the stream's encoding: ``PYTHONIOENCODING=latin-1`` wrote ``é`` as the
    byte ``0xe9`` and ``→`` as the six characters ``\\u2192``. A file name that is not
    UTF-8 is written as its bytes on disk, as the text output writes it. A stdout of text
    alone (``contextlib.redirect_stdout`` to a ``StringIO``: the commands run from Python)
    is given the text."""
    if getattr(sys.stdout, "buffer", None) is None:
        click.echo(text, nl=False)
        return
    click.echo(text.encode("utf-8", "surrogateescape"), nl=False)


@contextlib.contextmanager
def prints_to_stderr(active: bool) -> Iterator[None]:
    """While ``active`` (a ``--json`` command running an agent), send what is printed on
    stdout to stderr: the agent's ``print``, a library's, a subprocess's or a worker
    process's, so that the JSON document printed after it is all stdout holds."""
    if not active:
        yield
        return
    _flush()
    saved = _redirect_fd(1)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        _flush()
        if saved is not None:
            os.dup2(saved, 1)
            os.close(saved)


def _flush() -> None:
    """Flush stdout and stderr, so that nothing printed waits in a buffer across a switch."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()


def _redirect_fd(fd: int) -> int | None:
    """Point file descriptor ``fd`` at stderr (or nowhere, when stderr is closed); a copy
    of what it was, to put back, or None when ``fd`` was not open."""
    try:
        saved = os.dup(fd)
    except OSError:
        return None
    try:
        os.dup2(2, fd)
    except OSError:  # stderr closed: what is printed goes nowhere, as on a closed stderr
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)
    return saved
