"""What a text may hide once decoded: the views of a string the secret rules also read.

A secret can sit in a fixture encoded: a body kept as ``{"base64": ...}`` (not
UTF-8), a base64 run inside text, ``\\u`` escapes in JSON held as text (tool-call
arguments, a stream event's ``data``), percent-encoding in a path or a form body, a run
of hex digits, or text with invisible characters between its letters (zero-width
spaces, soft hyphens) or written in Unicode tag characters.
:func:`views` yields each decoding that changes the text, with a label for the error
message; :func:`json_leaves` the strings of JSON held as text, with their field names.
Compressed data in the bytes of a base64 run (a gzip file, the zip of a ``.docx``) is
read decompressed (:mod:`.secret_compressed`); the printable stretches of the bytes of
a binary run (an image, a file) are read for the token families only, and those of a
binary body kept as base64 by every rule (:func:`body_text`).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote_to_bytes

from replaygate.sanitize.encoded import decode_escapes
from replaygate.sanitize.secret_compressed import Budget, expanded, holds_compressed
from replaygate.sanitize.secret_entropy import (
    HELD_ENCODED_NAMES,
    binary_file,
    encoded_field,
    is_encoded_path,
)
from replaygate.sanitize.secret_held import held_json, part_contents
from replaygate.sanitize.secret_prefilter import MIN_RUN, Runs, stretches, table_of, text_spans
from replaygate.sanitize.secret_rules import detect_family

BASE64_MIN_LENGTH = 24
_ESCAPED = re.compile(r"\\[ux/]")
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
_PERCENT_RUN = re.compile(r"(?:%[0-9A-Fa-f]{2})+")
_BASE64_LETTERS = re.compile(rf"[A-Za-z0-9+/_\-]{{{BASE64_MIN_LENGTH},}}")
_BASE64_TABLE = table_of(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-")
HEX_MIN_LENGTH = 32
"""The shortest run of hex digits read as the bytes it spells (16 bytes: shorter than any
token of a family written out)."""
_HEX_DIGITS = re.compile(rf"[0-9A-Fa-f]{{{HEX_MIN_LENGTH},}}")
_HEX_TABLE = table_of(b"0123456789ABCDEFabcdef")
_INVISIBLE = (
    (0x00AD, 0x00AD),  # soft hyphen
    (0x180E, 0x180E),  # Mongolian vowel separator
    (0x200B, 0x200F),  # zero-width space, non-joiner, joiner; direction marks
    (0x202A, 0x202E),  # direction embeddings and overrides
    (0x2060, 0x2064),  # word joiner, invisible operators
    (0x2066, 0x206F),  # direction isolates, deprecated format characters
    (0xFEFF, 0xFEFF),  # zero-width no-break space (byte order mark)
)
"""Characters that show as nothing, by range."""
_TAG_BASE = 0xE0000
"""Unicode tag characters (``_TAG_BASE`` to ``_TAG_BASE + 0x7F``) are invisible, each
standing for the ASCII character ``_TAG_BASE`` below it."""
SHOWN: dict[int, str | None] = {
    **{code: None for first, last in _INVISIBLE for code in range(first, last + 1)},
    **{_TAG_BASE + code: chr(code) if 0x20 <= code < 0x7F else None for code in range(0x80)},
}
"""A text as it shows (:meth:`str.translate`): the invisible characters removed, a tag
character made the ASCII it stands for."""
_INVISIBLE_TEXT = re.compile(
    "["
    + "".join(f"{chr(first)}-{chr(last)}" for first, last in _INVISIBLE)
    + f"{chr(_TAG_BASE)}-{chr(_TAG_BASE + 0x7F)}]"
)
"""A character of :data:`SHOWN`, by range: a class of each of its characters took a
tenth of a second to search a text of a mebibyte beyond ASCII (a CSV export), by range
a hundredth of that."""
INVISIBLE_BYTES = re.compile(
    rb"\xc2\xad|\xe1\xa0\x8e|\xe2\x80[\x8b-\x8f\xaa-\xae]|\xe2\x81[\xa0-\xa4\xa6-\xaf]"
    rb"|\xef\xbb\xbf|\xf3\xa0[\x80\x81]"
)
"""A character :data:`SHOWN` changes, as UTF-8 writes it."""
_PRINTABLE = bytes([*range(0x20, 0x7F), 0x09, 0x0A, 0x0D])
_PRINTABLE_TABLE = table_of(_PRINTABLE)

BASE64_BODY = b'"base64":'
"""A body kept as base64 (its field name as written)."""
_BASE64_PAIR = b'["base64","'
"""A body kept as base64 among the fields the secret gate writes as ``[name, value]``
pairs (:func:`~.secret_gate.may_hold_secret`: an envelope's own fields)."""
ESCAPE_BYTES = re.compile(rb"\\\\[ux/]")
"""An escape written in text (a \\u, \\x or \\/ as JSON writes it)."""
PERCENT_BYTES = re.compile(rb"%[0-9A-Fa-f]{2}")


def bytes_text(raw: bytes) -> str:
    """Bytes as text for the rules: UTF-8, else Latin-1 (ASCII runs kept), UTF-16 NULs dropped."""
    if b"\x00" in raw:
        raw = raw.replace(b"\x00", b"")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def decode_base64(text: str) -> bytes | None:
    """The bytes of standard or URL-safe base64 ``text``, or None."""
    padded = text + "=" * (-len(text) % 4)
    try:
        if "-" in text or "_" in text:
            return base64.urlsafe_b64decode(padded)
        return base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return None


def unquote_plus(text: str) -> str:
    """``text`` with ``+`` as a space and each run of ``%XX`` escapes decoded as UTF-8 (an
    invalid byte as U+FFFD), as :func:`urllib.parse.unquote_plus` decodes it, in a fraction
    of its time on a long text of few escapes (the bytes of a compressed file read as text,
    where it decodes each stretch of ASCII alone)."""
    return _PERCENT_RUN.sub(
        lambda run: unquote_to_bytes(run.group()).decode("utf-8", "replace"),
        text.replace("+", " "),
    )


def _mostly_printable(raw: bytes) -> bool:
    """Whether ``raw`` reads as text: no image or audio file (:func:`.binary_file`), and nine
    in ten of its first 256 bytes printable."""
    if binary_file(raw):
        return False
    sample = raw[:256].replace(b"\x00", b"")
    printable = len(sample) - len(sample.translate(None, _PRINTABLE))
    return bool(sample) and printable >= 0.9 * len(sample)


def _base64_runs(text: str) -> Iterator[bytes]:
    """The bytes of each base64 run of ``text`` (a run of its letters, and up to two ``=``)."""
    for start, end in text_spans(text, _BASE64_LETTERS, _BASE64_TABLE, BASE64_MIN_LENGTH):
        while end < len(text) and text[end] == "=" and text[end - 2 : end] != "==":
            end += 1
        raw = decode_base64(text[start:end])
        if raw is not None:
            yield raw


def printable_stretches(raw: bytes) -> str:
    """The stretches of printable ASCII in binary ``raw`` long enough to hold a token, one
    a line: what a token family can match in it."""
    return "\n".join(raw[s:e].decode("ascii") for s, e in stretches(raw, _PRINTABLE_TABLE, MIN_RUN))


def body_text(raw: bytes) -> str:
    """The text the rules read in the bytes of a body kept as base64: each part's content of
    a multipart body (:func:`~.secret_held.part_contents`) read as a body of its own, its
    delimiters and headers as text; else all of it when it reads as text
    (:func:`_mostly_printable`), else its printable stretches, one a line, as ASCII
    (:func:`printable_stretches`) and as UTF-16 (:data:`_UTF16_RUN`). Every rule reads in
    them what the whole bytes read as Latin-1 showed it, but for a secret cut by bytes that
    are not printable, which no rule matches, in a fraction of the time: megabytes of audio
    or an image hold few such stretches, where Latin-1 text of them took each rule and
    decoding over every byte (about 1.4 s a MB)."""
    if raw.startswith(b"--"):
        pieces, at = [], 0
        for _, start, end in part_contents(raw.decode("latin-1")):
            pieces += [bytes_text(raw[at:start]), _content_text(raw[start:end])]
            at = end
        if pieces:
            return "".join([*pieces, bytes_text(raw[at:])])
    return _content_text(raw)


def _content_text(raw: bytes) -> str:
    """:func:`body_text` of bytes that are no multipart body."""
    if _mostly_printable(raw):
        return bytes_text(raw)
    wide = [
        run.group().replace(b"\x00", b"").decode("ascii")
        for start, end in stretches(raw, _PRINTABLE_OR_NUL_TABLE, 2 * MIN_RUN)
        for run in _UTF16_RUN.finditer(raw, start, end)
    ]
    return "\n".join([printable_stretches(raw), *wide])


_UTF16_RUN = re.compile(
    rb"(?:[\x09\x0a\x0d\x20-\x7e]\x00){%d,}|(?:\x00[\x09\x0a\x0d\x20-\x7e]){%d,}"
    % (MIN_RUN, MIN_RUN)
)
"""A stretch of printable ASCII written as UTF-16, little- or big-endian: looked for only
within the stretches of printable bytes and NULs (:data:`_PRINTABLE_OR_NUL_TABLE`), where
a search of all the bytes tried the pattern at each."""
_PRINTABLE_OR_NUL_TABLE = table_of(_PRINTABLE + b"\x00")


def _hex_runs(text: str) -> Iterator[bytes]:
    """The bytes of each run of hex digits of ``text`` that spell printable text, read from
    its first digit or, when that spells none, from its second."""
    for start, end in text_spans(text, _HEX_DIGITS, _HEX_TABLE, HEX_MIN_LENGTH):
        for first in (start, start + 1):
            raw = bytes.fromhex(text[first : end - (end - first) % 2])
            if _mostly_printable(raw):
                yield raw
                break


def run_may_hide(text: str) -> bool:
    """Whether a base64 run of ``text`` decodes to printable bytes, holds compressed data, or
    holds a token of a family among its binary bytes, or a run of its hex digits spells
    printable text."""
    return (
        any(
            _mostly_printable(raw)
            or holds_compressed(raw)
            or detect_family(printable_stretches(raw)) is not None
            for raw in _base64_runs(text)
        )
        or next(_hex_runs(text), None) is not None
    )


@dataclass(frozen=True)
class View:
    """A decoding of a text: its label, its text, and whether only the token families
    read it (the printable stretches of binary bytes, where other rules see noise)."""

    label: str
    text: str
    families_only: bool = False


def views(text: str, budget: Budget, *, base64: bool = True) -> Iterator[View]:
    """Each decoding of ``text`` that changes it (of its base64 runs only when ``base64``);
    compressed data in a base64 run is read within ``budget`` (it raises
    :class:`~.secret_compressed.Unsearchable` for what it cannot read whole)."""
    if "\\" in text and _ESCAPED.search(text):
        decoded = decode_escapes(text)  # the decoder the text rules use (:mod:`.encoded`)
        if decoded != text:
            yield View("\\u-escaped", decoded)
    if "%" in text and _PERCENT.search(text):
        yield View("percent-encoded", unquote_plus(text))
    if not text.isascii() and _INVISIBLE_TEXT.search(text):
        yield View("invisible-character", text.translate(SHOWN))
    for raw in _hex_runs(text):
        yield View("hex", bytes_text(raw))
    for raw in _base64_runs(text) if base64 else ():
        if _mostly_printable(raw):
            yield View("base64", bytes_text(raw))
        else:
            yield View("binary base64", printable_stretches(raw), families_only=True)
        if holds_compressed(raw):
            for label, inner in expanded(raw, budget):
                yield View(f"{label} in base64", bytes_text(inner))


def may_have_views(runs: Runs) -> bool:
    """False only when no string of a serialized fixture has a view or a base64 body."""
    data = runs.data
    if data.find(BASE64_BODY) >= 0 or data.find(_BASE64_PAIR) >= 0:
        return True
    if data.find(b"\\\\") >= 0 and ESCAPE_BYTES.search(data):
        return True
    if data.find(b"%") >= 0 and PERCENT_BYTES.search(data):
        return True
    if not data.isascii() and INVISIBLE_BYTES.search(data):
        return True
    # A run holds the same base64 and hex stretches as its parts of that length.
    return any(_run_may_hide(run) for run in runs.texts(BASE64_MIN_LENGTH))


_QUIET_RUNS: dict[bytes, None] = {}
"""Runs :func:`run_may_hide` found to hide nothing (at most :data:`_QUIET_MAX` of them, of
at most :data:`_QUIET_LONGEST` bytes): the names of a provider's fields
(``cache_creation_input_tokens``) stand in every fixture, an answer's id in each event of
its stream."""
_QUIET_MAX = 8192
_QUIET_LONGEST = 256


def _run_may_hide(run: bytes) -> bool:
    """:func:`run_may_hide` of ASCII ``run``, a quiet one remembered."""
    if run in _QUIET_RUNS:
        return False
    if run_may_hide(run.decode("ascii")):
        return True
    if len(run) <= _QUIET_LONGEST:
        if len(_QUIET_RUNS) >= _QUIET_MAX:
            _QUIET_RUNS.clear()
        _QUIET_RUNS[run] = None
    return False


def json_leaves(text: str, results: bool = False) -> Iterator[tuple[str, str, bool]]:
    """(field name, string, whether it is encoded data) of every string of the JSON held in
    ``text`` (:func:`~.secret_held.held_json`): encoded data by the object it stands in
    (:func:`~.secret_entropy.encoded_field`) or, when ``text`` may hold lines of a batch's
    results (``results``: it is an HTTP body of its own), by its path from where that JSON
    starts (:func:`~.secret_entropy.is_encoded_path`, ``held``: read for the names it ends
    with). A user's file or form field in a multipart body (all but a file of requests)
    holds no encoded data: its strings are read as text, with their field names."""
    stack: list[tuple[_Place, str, Any, bool, str, bool]] = [
        (None, "", value, False, "", not file) for *_, value, file in held_json(text)
    ]
    while stack:
        place, name, item, encoded, outer, answer = stack.pop()
        if isinstance(item, str):
            if results and answer and not encoded and name in HELD_ENCODED_NAMES:
                encoded = is_encoded_path(_path(place), held=True)
            yield name, item, encoded
        elif isinstance(item, dict):
            stack.extend(
                (
                    (place, str(k)),
                    str(k),
                    v,
                    answer and encoded_field(str(k), item, name, outer),
                    name,
                    answer,
                )
                for k, v in item.items()
            )
        elif isinstance(item, list):
            stack.extend(((place, i), name, v, encoded, outer, answer) for i, v in enumerate(item))


_Place = tuple[Any, str | int] | None
"""Where a value of held JSON stands: the place of what holds it and its field name or
index (None at the top), kept as pairs and written out only when read."""


def _path(place: _Place) -> str:
    """The field path of ``place``: ``response.body.data[0].embedding``."""
    steps: list[str] = []
    while place is not None:
        place, step = place
        steps.append(f"[{step}]" if isinstance(step, int) else f".{step}")
    return "".join(reversed(steps)).lstrip(".")
