"""A request of a library that is not ``httpx``-shaped, in the shape the envelope reads.

``aiohttp`` and ``requests`` requests are turned into a :class:`WireRequest` (method,
URL parts, headers, body bytes) so that :class:`~replaygate.http.exchange.Exchange`
fingerprints them exactly as an ``httpx`` request: a fixture recorded through one
library replays through any other. Their replayed responses take the standard
:func:`reason_phrase` of the recorded status.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any
from urllib.parse import unquote, urlsplit

from replaygate.errors import WireFormatError
from replaygate.jsondoc import shown


@dataclass(frozen=True, slots=True)
class WireURL:
    """The URL parts of the envelope: ``path`` decoded, ``raw_path`` and ``query`` as
    sent, ``port`` only when the URL names one (as ``httpx`` does); ``scheme`` names
    where it went in a miss."""

    scheme: str
    host: str
    port: int | None
    path: str
    query: bytes
    raw_path: bytes = b"/"


@dataclass(frozen=True, slots=True)
class WireHeaders:
    """Request headers as (name, value) pairs, in order, and as the bytes sent (``raw``)."""

    items: tuple[tuple[str, str], ...]
    raw: list[tuple[bytes, bytes]]

    @staticmethod
    def of(headers: Iterable[tuple[Any, Any]], encoding: str = "utf-8") -> WireHeaders:
        """The headers as the library sends them: a value given as bytes as it is, any
        other as its text encoded with ``encoding`` (aiohttp sends UTF-8, ``requests``
        Latin-1, as ``http.client`` does); :class:`~replaygate.errors.WireFormatError`
        names a header that text cannot be sent in."""
        items: list[tuple[str, str]] = []
        raw: list[tuple[bytes, bytes]] = []
        for name, value in headers:
            key = name.decode("latin-1") if isinstance(name, bytes) else str(name)
            if isinstance(value, bytes):
                sent, text = value, value.decode("latin-1")
            else:
                text = str(value)
                try:
                    sent = text.encode(encoding)
                except UnicodeEncodeError as err:
                    raise WireFormatError(
                        f"request.headers.{key.lower()}",
                        f"{shown(text)} cannot be sent: its character {text[err.start]!r} is "
                        f"not {encoding} text, which this client sends a header as",
                    ) from None
            items.append((key, text))
            raw.append((key.encode("latin-1", "replace"), sent))
        return WireHeaders(tuple(items), raw)

    def multi_items(self) -> list[tuple[str, str]]:
        """The pairs."""
        return list(self.items)


@dataclass(frozen=True, slots=True)
class WireRequest:
    """A request with its body read."""

    method: str
    url: WireURL
    headers: WireHeaders
    content: bytes


def wire_request(
    method: str,
    url: str,
    headers: Iterable[tuple[Any, Any]],
    content: bytes,
    encoding: str = "utf-8",
) -> WireRequest:
    """The :class:`WireRequest` of an absolute ``url`` (percent-encoded, as sent), its
    headers as sent with text values in ``encoding`` (:meth:`WireHeaders.of`)."""
    parts = urlsplit(url)
    sent = parts.path or "/"
    return WireRequest(
        method.upper(),
        WireURL(
            parts.scheme,
            parts.hostname or "",
            parts.port,
            unquote(sent),
            parts.query.encode(),
            sent.encode("utf-8", "surrogateescape"),
        ),
        WireHeaders.of(headers, encoding),
        content,
    )


def reason_phrase(status: int) -> str:
    """The standard reason phrase of ``status`` (``OK``), or ``""`` for an unknown one."""
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""
