"""A request body's content codings undone, each in bounded steps.

A body sent with a ``content-encoding`` is matched, scanned for secrets and stored as
what it says, so the same body compressed again later still matches and a key inside
it is found. ``gzip`` (every member), ``deflate`` (zlib or raw), ``br`` (with the
``brotli`` package, 1.2 or later, or ``brotlicffi``, installed) and ``zstd`` (Python
3.14's ``compression.zstd``, or the ``backports.zstd`` package before it) are decoded.
Each decoder stops as soon as its output passes :data:`MAX_DECODED_BODY`: a body that
would decode to more is refused. So is a body whose coding cannot be decoded here, or
whose bytes are not of the coding they claim (a member cut short, or followed by other
bytes): it would be stored compressed, where no search for secrets sees inside; unless
it is UTF-8 text (``not gzip at all``, a plain body labelled ``utf-8``, or one named
``utf-8, gzip`` that gzip alone decodes to text), which a compressed body almost never
is: that text is kept, as what was decoded up to that coding, and read as the text it is.
One coding is undone, within a room of bytes, by :func:`undone` (which cassette import
uses for a response body).
"""

from __future__ import annotations

import importlib
import zlib
from collections.abc import Callable
from typing import Any

from replaygate.errors import WireFormatError

MAX_DECODED_BODY = 256 * 1024 * 1024
"""The most bytes a compressed request body is decoded to; one that decodes to more is
refused (:func:`decoded_body`)."""

DECODED = "gzip, deflate, br (with brotli >= 1.2) and zstd (on Python 3.14, or with backports.zstd)"
"""The codings :func:`decoded_body` undoes, as its errors name them."""
ZSTD_NEEDS = (
    "Python 3.14 (compression.zstd) or the backports.zstd package (pip install backports.zstd)"
)
"""What decoding ``zstd`` needs, as the error of a body it cannot decode names it."""
BROTLI_NEEDS = "the brotli package (1.2 or later: pip install 'brotli>=1.2')"
"""What decoding ``br`` needs, as the error of a body it cannot decode names it."""


class PastRoom(Exception):
    """A decoder's output passed the room it was given (:func:`undone`)."""


class NoDecoder(Exception):
    """No decoder of the coding can be used here; the argument says what it needs."""


def _members(data: bytes, make: Callable[[], Any], room: int, padded: bool = False) -> bytes | None:
    """``data`` decoded by decoders ``make`` makes (``decompress(data, max_length)``,
    ``eof``, ``unused_data``), one member after another until no byte is left (after the
    NULs that may pad the last one when ``padded``); None when it is not of that format."""
    out: list[bytes] = []
    rest = data
    while True:
        decoder = make()
        try:
            part = decoder.decompress(rest, room + 1)
        except Exception:  # zlib.error, ZstdError: not of that format
            return None
        room -= len(part)
        if room < 0:
            raise PastRoom
        if not decoder.eof:  # cut short
            return None
        out.append(part)
        rest = decoder.unused_data.lstrip(b"\0") if padded else decoder.unused_data
        if not rest:
            return b"".join(out)


def _deflate(data: bytes, room: int) -> bytes | None:
    """A ``deflate`` body: zlib-wrapped as the standard says, or raw as some clients send
    (one stream: a byte after its end is not deflate)."""
    for wbits in (15, -15):
        inflater = zlib.decompressobj(wbits)
        try:
            out = inflater.decompress(data, room + 1)
        except zlib.error:
            continue
        if len(out) > room:
            raise PastRoom
        if inflater.eof and not inflater.unused_data:
            return out
    return None


def _gzip(data: bytes, room: int) -> bytes | None:
    """A ``gzip`` body, of one member or several (as a server reads it)."""
    return _members(data, lambda: zlib.decompressobj(31), room, padded=True)


def _first(modules: tuple[str, ...], needs: str) -> Any:
    """The first of ``modules`` that imports; :class:`NoDecoder` saying ``needs`` if none."""
    for name in modules:
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    raise NoDecoder(needs)


def _zstd(data: bytes, room: int) -> bytes | None:
    """A ``zstd`` body, of one frame or several."""
    zstd = _first(("compression.zstd", "backports.zstd"), ZSTD_NEEDS)
    return _members(data, zstd.ZstdDecompressor, room)


def _brotli(data: bytes, room: int) -> bytes | None:
    """A ``br`` body, its output taken a bounded piece at a time."""
    brotli = _first(("brotli", "brotlicffi"), BROTLI_NEEDS)
    decoder = brotli.Decompressor()
    if not hasattr(decoder, "can_accept_more_data"):  # before 1.2: no bound on its output
        raise NoDecoder(f"{BROTLI_NEEDS}, as an older one decodes unbounded")
    size = 0
    out: list[bytes] = []
    piece = data
    while True:
        try:
            chunk = decoder.process(piece, output_buffer_limit=room + 1 - size)
        except Exception:  # brotli.error: not brotli, or bytes after its end
            return None
        size += len(chunk)
        if size > room:
            raise PastRoom
        out.append(chunk)
        if decoder.is_finished() or decoder.can_accept_more_data():
            break
        piece = b""  # more output is held for the input already given
    return b"".join(out) if decoder.is_finished() else None


def is_text(data: bytes) -> bool:
    """Whether ``data`` is UTF-8 text (a gzip or zstd header never is, nor, but by chance,
    a br body)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


_DECODERS: dict[str, Callable[[bytes, int], bytes | None]] = {
    "gzip": _gzip,
    "x-gzip": _gzip,
    "deflate": _deflate,
    "br": _brotli,
    "zstd": _zstd,
}


def undone(coding: str, data: bytes, room: int) -> bytes | None:
    """``data`` with one content ``coding`` undone, decoded to ``room`` bytes at most
    (:class:`PastRoom` as soon as it passes them); None when its bytes are not of that
    coding (cut short, other bytes after its end); :class:`NoDecoder` when the coding
    cannot be decoded here."""
    decode = _DECODERS.get(coding)
    if decode is None:
        raise NoDecoder("")
    return decode(data, room)


def decoded_body(content: bytes, codings: list[str]) -> tuple[bytes, list[str]]:
    """``content`` with its content ``codings`` (as sent, ``identity`` left out) undone,
    last applied first, and the codings it was named with but is not in (none, unless
    it is the text below).

    :class:`~replaygate.errors.WireFormatError` (``request.body``) refuses a body that
    decodes past :data:`MAX_DECODED_BODY` (decoding stops there), whose coding cannot be
    decoded here, or whose bytes are not of the coding they claim (cut short, other bytes
    after its end), naming the coding; but a body that is UTF-8 text when a coding
    fails, which a compressed one almost never is, is not in that coding (nor any named
    before it) whatever its label says: that text, the codings after it undone, is
    returned, with the codings named up to the one it is not in: the same text sent
    compressed is another request, which a server reads otherwise.
    """
    if not content or not codings:
        return content, []
    data = content
    for at in range(len(codings) - 1, -1, -1):
        coding = codings[at]
        try:
            decoded = undone(coding, data, MAX_DECODED_BODY)
            why = f": its bytes are not {coding} (cut short, or other bytes after its end)"
        except PastRoom:
            raise WireFormatError(
                "request.body",
                f"content-encoding {coding!r}: decoding stopped past {MAX_DECODED_BODY} bytes, "
                "the most a request body is decoded to; refused, as it could be neither "
                "matched nor searched for secrets whole",
            ) from None
        except NoDecoder as missing:
            decoded = None
            needs = f" here: it needs {missing}" if str(missing) else ""
            why = f" cannot be decoded{needs}"
        if decoded is None:
            if is_text(data):  # not in this coding, whatever it claims (``utf-8``)
                return data, codings[: at + 1]  # the text read, never the bytes before
            decodes = "" if why.startswith(":") else f" (replaygate decodes {DECODED})"
            raise WireFormatError(
                "request.body",
                f"content-encoding {coding!r}{why}; refused, as it would be stored "
                f"compressed, unsearched for secrets{decodes}",
            )
        data = decoded
    return data, []
