"""Compressed data inside a fixture's bytes, decompressed for the secret scan (law 4).

A file uploaded through an SDK (``files.create`` with a ``.gz`` or a ``.zip``), or a
document sent as base64 (a ``.docx`` or ``.xlsx`` is a zip), is stored as its compressed
bytes, where no rule sees the text. :func:`expanded` finds each gzip, bzip2 and xz stream,
a zlib stream where data or a multipart part's content starts (``zlib.compress``),
each deflated zip member, each stream compressed with ``FlateDecode`` (zlib: in a PDF, page
text, forms, object streams; not an image's pixels) and the compressed text chunks of a PNG
(``zTXt``, a compressed ``iTXt``) in a run of bytes, wherever it starts (a multipart body
holds the file between part headers), and gives its bytes decompressed, the compressed data
inside them too (a zip inside a gzip), to :data:`MAX_NESTING` levels.

All of it is bounded by one :class:`Budget` per fixture: :data:`MAX_EXPANDED` bytes of
output, each stream tried costing :data:`TRY_COST` of it, so a zip bomb, or a body made of
compressed headers, costs no more, nor does compressed data spread over many fields or
streams. Bytes read whole are given again as they were read, at no further cost, up to
:data:`FREE_READS` times: the scan reads the same bytes in a few places (a stream event's
data as text, as the JSON it holds, and joined with the other events), and a read beyond
those is charged again, so the text given stays within a few times the bound however often
a fixture repeats its data. What cannot be read to its end (more than the budget, or a zip
member compressed by a method the standard library cannot read) raises
:class:`Unsearchable`, and the scan refuses the fixture: it may hold anything, a PDF too;
only the streams a PDF marks as images (``/Subtype /Image``, pixels, no text) are passed
over, in data that is a PDF (it starts with ``%PDF-``). An encrypted zip member is passed
over, as encrypted text is. A zip member stored without compression is given as it stands
(the compressed data inside it is found where it stands, not again), and the bzip2 or xz
data of a zip member is read as such.
"""

from __future__ import annotations

import bz2
import hashlib
import lzma
import re
import struct
import zlib
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Protocol

from replaygate.sanitize.secret_rules import detect_family

MAX_EXPANDED = 64 * 2**20
"""Bytes of decompressed data read for one fixture."""
TRY_COST = 1024
"""What each compressed stream tried costs of the budget, whatever it gives."""
MAX_NESTING = 3
"""Levels of compressed data read inside one another."""
FREE_READS = 3
"""Times the output of bytes read whole is given again at no cost (:func:`expanded`)."""
_CHUNK = 1 << 16
_GZIP = b"\x1f\x8b\x08"
_ZIP = b"PK\x03\x04"
_XZ = b"\xfd7zXZ\x00"
_BZIP2 = re.compile(rb"BZh[1-9](?:1AY&SY|\x17rE8P\x90)")
_PDF_STREAM = re.compile(rb"\bstream\r?\n")
"""Where the data of a PDF stream starts: after the ``stream`` keyword and its end of line."""
_PDF_IMAGE = re.compile(rb"/Subtype\s*/Image\b")
_PDF_START = re.compile(rb"(?:\A|\n\r?\n)%PDF-")
"""Where a PDF starts: at the start of the data or of a multipart part's content."""
_PDF_DICTIONARY = 4096
"""How far before ``stream`` its dictionary is looked for (``/Filter /FlateDecode``)."""
_PNG = b"\x89PNG\r\n\x1a\n"
_PNG_CHUNK = struct.Struct(">I4s")
_PNG_TEXT = {b"zTXt": "zTXt", b"iTXt": "iTXt"}
"""The PNG chunks of zlib-compressed text (an ``iTXt`` one when its flag says so)."""
_LOCAL_HEADER = struct.Struct("<4sHHHHHIIIHH")
"""A zip member's local header: signature, version, flags, method, time, date, CRC,
compressed and uncompressed size, name and extra field lengths."""
_STORED, _DEFLATED, _ENCRYPTED, _SIZES_AFTER = 0, 8, 0x1, 0x8
_UNREADABLE_METHODS = {9: "Deflate64", 14: "LZMA", 93: "Zstandard", 98: "PPMd"}
"""Zip compression methods the standard library cannot read (bzip2 and xz members start
with their own signature and are read as such)."""
_DISPOSITION = re.compile(
    rb'(?i)content-disposition:[^\r\n]*?\bname="([^"\r\n]*)"(?:[^\r\n]*?\bfilename="([^"\r\n]*)")?'
)
_SHOWN_NAME = re.compile(r"[\w.\-/ \[\]]{1,31}")
"""A name short and plain enough to show in an error (too short for a free-standing token)."""


class Unsearchable(Exception):
    """Compressed data the scan cannot read to its end; the message says what, why, and
    what to do."""


@dataclass
class Budget:
    """The bytes of decompressed data still to be read for one fixture, and what
    :func:`expanded` gave for the bytes it read whole (by their digest), with the times it
    may give it again at no cost."""

    left: int = MAX_EXPANDED
    read: dict[bytes, tuple[list[tuple[str, bytes]], int]] = field(default_factory=dict)


class _Decompressor(Protocol):
    @property
    def eof(self) -> bool: ...

    def decompress(self, data: bytes, max_length: int = ..., /) -> bytes: ...


def holds_compressed(raw: bytes) -> bool:
    """Whether ``raw`` holds the signature of compressed data :func:`expanded` reads."""
    return (
        _GZIP in raw
        or _ZIP in raw
        or _XZ in raw
        or (b"BZh" in raw and _BZIP2.search(raw) is not None)
        or (b"FlateDecode" in raw and b"stream" in raw)
        or (_PNG in raw and (b"zTXt" in raw or b"iTXt" in raw))
        or any(True for _ in _zlib_streams(raw))
    )


def expanded(raw: bytes, budget: Budget) -> Iterator[tuple[str, bytes]]:
    """``(label, decompressed bytes)`` of each compressed stream or zip member in ``raw``,
    then those inside it; raises :class:`Unsearchable` for one it cannot read whole. Bytes
    read whole within ``budget`` are given again at no cost :data:`FREE_READS` times."""
    digest = hashlib.blake2b(raw, digest_size=16).digest()
    found, free = budget.read.pop(digest, ([], 0))
    if free:
        budget.read[digest] = found, free - 1
        yield from found
        return
    found = []
    for item in _expanded(raw, budget, 0):
        found.append(item)
        yield item
    budget.read[digest] = found, FREE_READS


def _expanded(raw: bytes, budget: Budget, depth: int) -> Iterator[tuple[str, bytes]]:
    for start, kind in _starts(raw):
        found = _expand(raw, start, kind, _part(raw, start), budget)
        if found is None:
            continue
        label, data, stored = found
        yield label, data
        if not stored and depth + 1 < MAX_NESTING and holds_compressed(data):
            for inner, nested in _expanded(data, budget, depth + 1):
                yield f"{inner} in {label}", nested


def _starts(raw: bytes) -> list[tuple[int, str]]:
    starts = [(m.start(), "bzip2") for m in _BZIP2.finditer(raw)] if b"BZh" in raw else []
    for signature, kind in ((_GZIP, "gzip"), (_ZIP, "zip"), (_XZ, "xz")):
        at = raw.find(signature)
        while at >= 0:
            starts.append((at, kind))
            at = raw.find(signature, at + 1)
    if b"FlateDecode" in raw:
        starts += _flate_streams(raw)
    starts += _zlib_streams(raw)
    at = raw.find(_PNG)
    while at >= 0:
        starts += _png_texts(raw, at + len(_PNG))
        at = raw.find(_PNG, at + 1)
    return sorted(starts)


def _zlib_streams(raw: bytes) -> Iterator[tuple[int, str]]:
    """``(start, "zlib")`` of a zlib stream (``zlib.compress``, sent with no encoding
    label) where data starts: at the start of ``raw`` or of a multipart part's content,
    its two header bytes those of a deflate stream (their checksum holds, no preset
    dictionary). Elsewhere two such bytes are too common in binary data to try each."""
    for at in (0, *(found.end() for found in _PART_BODY.finditer(raw))):
        header = raw[at : at + 2]
        if len(header) == 2 and _is_zlib_header(header[0], header[1]):
            yield at, "zlib"


_PART_BODY = re.compile(rb"\r\n\r\n")
"""Where a multipart part's content starts, after its headers."""


def _is_zlib_header(method: int, flags: int) -> bool:
    """Whether two bytes start a zlib stream of deflate data (RFC 1950)."""
    deflate = method & 0x0F == 8 and method >> 4 <= 7
    return deflate and (method << 8 | flags) % 31 == 0 and not flags & 0x20


def _flate_streams(raw: bytes) -> Iterator[tuple[int, str]]:
    """``(start, kind)`` of the data of each stream of ``raw`` compressed with
    ``FlateDecode`` (zlib): ``"PDF"`` in data that is a PDF (page text, forms, object
    streams; an image's pixels, ``/Subtype /Image``, are passed over), else
    ``"FlateDecode"``, every one read."""
    pdfs = [match.end() for match in _PDF_START.finditer(raw)] if b"%PDF-" in raw else []
    parts = [match.start() for match in _DISPOSITION.finditer(raw)] if pdfs else []
    for match in _PDF_STREAM.finditer(raw):
        before = raw[max(0, match.start() - _PDF_DICTIONARY) : match.start()]
        dictionary = before[before.rfind(b" obj") + 1 :]
        if b"/FlateDecode" not in dictionary:
            continue
        if not _in_pdf(pdfs, parts, match.start()):
            yield match.end(), "FlateDecode"
        elif _PDF_IMAGE.search(dictionary) is None:
            yield match.end(), "PDF"


def _in_pdf(pdfs: list[int], parts: list[int], at: int) -> bool:
    """Whether ``at`` stands in a PDF starting at one of ``pdfs``: after one, and after the
    headers of none of the multipart ``parts`` that follow it."""
    last = bisect_right(pdfs, at) - 1
    if last < 0:
        return False
    part = bisect_right(parts, pdfs[last])
    return part == len(parts) or parts[part] >= at


def _png_texts(raw: bytes, at: int) -> list[tuple[int, str]]:
    """``(start, chunk type)`` of the compressed text of each ``zTXt`` and ``iTXt`` chunk of
    the PNG whose chunks start at ``at`` (up to its ``IEND`` or where its chunks stop)."""
    found = []
    while at + _PNG_CHUNK.size <= len(raw):
        size, kind = _PNG_CHUNK.unpack_from(raw, at)
        data = at + _PNG_CHUNK.size
        end = data + size
        if kind == b"IEND" or end > len(raw):
            break
        name_end = raw.find(b"\0", data, end)
        if kind in _PNG_TEXT and name_end >= 0:
            if kind == b"zTXt":
                found.append((name_end + 2, _PNG_TEXT[kind]))
            elif raw[name_end + 1 : name_end + 2] == b"\1":  # iTXt, compressed
                language = raw.find(b"\0", name_end + 3, end)
                translated = raw.find(b"\0", language + 1, end) if language >= 0 else -1
                if translated >= 0:
                    found.append((translated + 1, _PNG_TEXT[kind]))
        at = end + 4  # the chunk's CRC
    return found


def _expand(
    raw: bytes, start: int, kind: str, where: str, budget: Budget
) -> tuple[str, bytes, bool] | None:
    """The label and output of the stream of ``kind`` at ``start`` (``where``: the multipart
    part it stands in), and whether it is a zip member stored as it stands in ``raw``;
    None when there is none."""
    if kind == "zip":
        return _zip_member(raw, start, where, budget)
    label = f"{kind} data{where}"
    decompressor: _Decompressor
    if kind in ("PDF", "FlateDecode", "zlib"):
        if kind == "PDF":
            label = f"a PDF's FlateDecode stream{where}"
        decompressor = zlib.decompressobj()
    elif kind in _PNG_TEXT.values():
        label = f"a PNG's {kind} text{where}"
        decompressor = zlib.decompressobj()
    elif kind == "gzip":
        decompressor = zlib.decompressobj(31)
    elif kind == "bzip2":
        decompressor = bz2.BZ2Decompressor()
    else:
        decompressor = lzma.LZMADecompressor(lzma.FORMAT_XZ)
    return label, _inflate(decompressor, raw, start, label, budget), False


def _zip_member(
    raw: bytes, start: int, where: str, budget: Budget
) -> tuple[str, bytes, bool] | None:
    end = start + _LOCAL_HEADER.size
    if len(raw) < end:
        return None
    _, _, flags, method, _, _, _, size, _, name_size, extra_size = _LOCAL_HEADER.unpack_from(
        raw, start
    )
    name = raw[end : end + name_size].decode("utf-8", "replace")
    shown = (
        f"zip member {name!r}"
        if _SHOWN_NAME.fullmatch(name) and not detect_family(name)
        else "a zip member"
    )
    label = shown + where
    if flags & _ENCRYPTED or method not in (_STORED, _DEFLATED):
        if method in _UNREADABLE_METHODS and not flags & _ENCRYPTED:
            raise Unsearchable(
                f"{label} compressed with {_UNREADABLE_METHODS[method]}, which the search for "
                "secrets cannot read (zip it with deflate, or send the file uncompressed)"
            )
        return None
    data_start = end + name_size + extra_size
    known_size = not flags & _SIZES_AFTER and size != 0xFFFFFFFF
    data = raw[data_start : data_start + size] if known_size else raw[data_start:]
    if method == _STORED:
        _charge(budget, TRY_COST, label)
        return label, data, True
    return label, _inflate(zlib.decompressobj(-15), data, 0, label, budget), False


def _charge(budget: Budget, cost: int, label: str) -> None:
    """Take ``cost`` from ``budget``; :class:`Unsearchable` when it has not that much left."""
    if budget.left < cost:
        raise _over(label)
    budget.left -= cost


def _inflate(
    decompressor: _Decompressor,
    raw: bytes,
    start: int,
    label: str,
    budget: Budget,
) -> bytes:
    """What ``decompressor`` makes of ``raw`` from ``start`` until its stream ends or breaks
    (the output up to a damaged or cut part is kept); :class:`Unsearchable` beyond the
    budget. Each stream tried costs :data:`TRY_COST` of it."""
    _charge(budget, TRY_COST, label)
    limit = budget.left
    out = bytearray()
    for at in range(start, len(raw), _CHUNK):
        try:
            out += decompressor.decompress(raw[at : at + _CHUNK], limit - len(out) + 1)
        except (zlib.error, OSError, EOFError, lzma.LZMAError, ValueError):
            break
        if len(out) > limit:
            raise _over(label)
        if decompressor.eof:
            break
    budget.left -= len(out)
    return bytes(out)


def _over(label: str) -> Unsearchable:
    return Unsearchable(
        f"{label} over {MAX_EXPANDED // 2**20} MiB once decompressed, more than the search for "
        "secrets reads (record a smaller file, or send it uncompressed)"
    )


def _part(raw: bytes, start: int) -> str:
    """`` of multipart part 'file' (config.gz)`` when a multipart part's headers stand just
    before ``start``; names are shown only when short and plain."""
    found = list(_DISPOSITION.finditer(raw, max(0, start - 2048), start))
    if not found:
        return ""
    name, filename = ((value or b"").decode("utf-8", "replace") for value in found[-1].groups())
    shown = [
        text for text in (name, filename) if _SHOWN_NAME.fullmatch(text) and not detect_family(text)
    ]
    if not shown:
        return " of a multipart part"
    if len(shown) == 2:
        return f" of multipart part {shown[0]!r} ({shown[1]})"
    return f" of multipart part {shown[0]!r}"
