"""Words of a command line shown to be pasted into a shell, quoted so that the shell hands
the program the word as it was, whatever the output stream can show.

A character the stream printing the command cannot encode (``PYTHONIOENCODING=latin-1``,
a Windows console's code page) would be written as ``\\u4ec0``, six characters of
another word: such a word is quoted as ``$'...'`` with that character's bytes escaped
(``\\xe4\\xbb\\x80``), which bash, zsh, ksh and a POSIX.1-2024 shell turn back into the
bytes the program decodes its arguments from. Every other word is quoted as
:func:`shlex.quote` quotes it, for any POSIX shell.
"""

from __future__ import annotations

import codecs
import os
import shlex
import sys
from collections.abc import Iterable

__all__ = ["shell_join", "shell_quote"]


def shell_quote(word: str, *, always: bool = False) -> str:
    """``word`` as one word of a POSIX shell, as :func:`shlex.quote` gives it (in single
    quotes, given ``always``, even where it needs none), or as ``$'...'`` when it holds a
    character the output streams cannot encode (:func:`_unshown`)."""
    unshown = _unshown(word)
    if not unshown:
        if always:
            return "'" + word.replace("'", "'\\''") + "'"
        return shlex.quote(word)
    parts = []
    for char in word:
        if char in unshown:
            parts.append("".join(f"\\x{byte:02x}" for byte in _argv_bytes(char)))
        elif char in "\\'":
            parts.append("\\" + char)
        else:
            parts.append(char)
    return "$'" + "".join(parts) + "'"


def shell_join(words: Iterable[str]) -> str:
    """``words`` as a command line, each quoted by :func:`shell_quote`."""
    return " ".join(shell_quote(word) for word in words)


def _unshown(word: str) -> set[str]:
    """The characters of ``word`` that stdout or stderr (those a test run captures
    included: a pytest report is printed on the terminal's) cannot encode. A byte of a
    file name that is not UTF-8 (held as a surrogate U+DC80..U+DCFF) is written as that
    byte by replaygate's streams, inside the quotes, so it counts as shown."""
    if word.isascii():
        return set()
    encodings = {_encoding(stream) for stream in _streams()} - {None}
    return {
        char
        for char in set(word)
        if not "\udc80" <= char <= "\udcff" and not all(_encodes(e, char) for e in encodings)
    }


def _streams() -> tuple[object, ...]:
    """The streams a command line may be printed on."""
    return (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__)


def _encoding(stream: object) -> str | None:
    """The codec name of ``stream``'s encoding, or None where it has none that Python knows."""
    name = getattr(stream, "encoding", None)
    if not isinstance(name, str):
        return None
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def _encodes(encoding: str | None, char: str) -> bool:
    """Whether ``encoding`` can write ``char``."""
    if encoding is None:
        return True
    try:
        char.encode(encoding)
    except UnicodeEncodeError:
        return False
    return True


def _argv_bytes(char: str) -> bytes:
    """The bytes the program reads back as ``char`` from its command line: the encoding
    it decodes its arguments with, UTF-8 where that cannot hold ``char``."""
    try:
        return os.fsencode(char)
    except UnicodeEncodeError:
        return char.encode("utf-8")
