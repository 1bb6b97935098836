"""The digest of a fixture's request for ``replaygate verify``, without re-serializing what repeats.

The key is the SHA-256 of the canonical text (:mod:`replaygate.fixtures.fingerprint`):
orjson's compact text with its keys sorted and a space after each ``,`` and ``:`` that
separates (the replay takes it from orjson's indented text, :func:`has_key`). Most of a
store's requests repeat most of their text (the tools, the system prompt, the earlier
turns), so the compact text is cut where one object of a list ends and the next begins
(``"},{"``) and each piece's canonical text is kept by its bytes: only new pieces are
rewritten. Every cut is checked to stand between two strings (the quote before it closes
one: no backslash, ``:``, ``,``, ``[`` or ``{`` before it), so a piece starts inside a
key and ends inside a string value, whatever it holds; a request with any other cut is
rewritten whole.

As in the replay, the text decides only when its digest starts with the stored key;
otherwise the json module's canonical text does (orjson writes a few floats otherwise).
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

import orjson

from replaygate.fixtures.fingerprint import digest, orjson_canonical
from replaygate.sanitize.secret_gate import CUT

CANONICAL_CUT = b'"}, {"'
_SURE = frozenset(bytes([byte]) for byte in range(256)) - {b"\\", b":", b",", b"[", b"{"}
"""What the quote a cut starts with can only close a string after: not a backslash (it
would be escaped), nor what stands before a string's first quote (it would open one)."""
_TO_SEPARATOR = re.compile(rb'(?:"[^"\\]*+(?:\\.[^"\\]*+)*+"|[^",:"]++)*+[,:]')
_BACKSLASH = ord("\\")
_CACHE_SIZE = 8192
_inner: dict[bytes, bytes] = {}
"""Canonical text of a later piece (it starts inside a key)."""


def request_digest(request: Any, key: str, compact: bytes | None = None) -> str:
    """The SHA-256 hex digest of ``request``'s canonical text, confirmed as the replay does.

    ``compact``, when given, is orjson's compact text of the request with its keys
    sorted (its match form, as a line written by the store holds it). Raises
    :class:`~replaygate.errors.CanonicalFormError` when the request has no canonical form.
    """
    return _digest_of(request, key, _canonical_text(request, compact))


def _digest_of(request: Any, key: str, text: bytes | None) -> str:
    """The digest of ``text`` when it starts with ``key`` (it is then taken as the
    canonical text of ``request``), else the json module's digest of it."""
    if text is not None:
        full = hashlib.sha256(text).hexdigest()
        if full.startswith(key):
            return full
    return digest(request)


def _canonical_text(request: Any, compact: bytes | None = None) -> bytes | None:
    """orjson's canonical text of ``request`` (None if orjson cannot write it), from
    ``compact`` as for :func:`request_digest` when given."""
    if compact is None:
        try:
            compact = orjson.dumps(request, option=orjson.OPT_SORT_KEYS)
        except (TypeError, RecursionError):
            return None
    pieces = compact.split(CUT)
    if len(pieces) == 1:
        return _spaced(compact)
    spaced = _spaced_pieces(pieces)
    return orjson_canonical(request) if spaced is None else CANONICAL_CUT.join(spaced)


def _spaced_pieces(pieces: list[bytes]) -> list[bytes] | None:
    """The canonical text of each of ``pieces`` (a compact text cut at :data:`CUT`, its
    first piece starting outside any string); None when a cut may stand inside a string.

    A piece is kept only once every cut of its text was checked, so when all but the
    first are known, only the first cut is checked again."""
    first = pieces[0]
    if first[-1:] not in _SURE:
        return None
    known = list(map(_inner.get, pieces))
    known[0] = _first_spaced(first)
    if None in known:
        if not _SURE.issuperset([piece[-1:] for piece in pieces]):
            return None
        last = len(pieces) - 1
        for i in range(1, len(pieces)):
            if known[i] is None:
                piece = pieces[i]
                if i == last:
                    text = _spaced(b'"' + piece)[1:]
                else:
                    text = _spaced(b'"' + piece + b'"')[1:-1]
                known[i] = _learn(_inner, piece, text)
    return known  # type: ignore[return-value]


def _first_spaced(piece: bytes) -> bytes:
    """The canonical text of the first piece of a compact text cut at :data:`CUT` (it ends
    inside a string: without a backslash, its quotes alone say what is outside strings)."""
    if _BACKSLASH in piece:
        return _spaced(piece + b'"')[:-1]
    return _spaced(piece)


def _learn(table: dict[bytes, bytes], piece: bytes, canonical: bytes) -> bytes:
    if len(table) >= _CACHE_SIZE:
        table.clear()
    table[piece] = canonical
    return canonical


def _spaced(text: bytes) -> bytes:
    """Compact JSON ``text`` (strings whole), a space after each ``,`` and ``:`` outside them.

    Without a backslash every quote opens or closes a string, so the text between
    them alternates: outside, a string, outside... Otherwise each match of
    :data:`_TO_SEPARATOR` runs from outside any string to the next ``,`` or ``:`` outside
    one (strings taken whole), so the matches cover the text and end at its separators;
    a ``,`` added at the end closes the last.
    """
    if _BACKSLASH in text:
        return b" ".join(_TO_SEPARATOR.findall(text + b","))[:-1]
    parts = text.split(b'"')
    outside = b'"'.join(parts[0::2]).replace(b",", b", ").replace(b":", b": ")
    parts[0::2] = outside.split(b'"')
    return b'"'.join(parts)
