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
from urllib.parse import unquote, urlsplit


@dataclass(frozen=True, slots=True)
class WireURL:
    """The URL parts of the envelope: ``path`` decoded, ``raw_path`` and ``query`` as
    sent, ``port`` only when the URL names one (as ``httpx`` does)."""

    host: str
    port: int | None
    path: str
    query: bytes
    raw_path: bytes = b"/"


@dataclass(frozen=True, slots=True)
class WireHeaders:
    """Request headers as (name, value) pairs, in order, and as UTF-8 bytes (``raw``)."""

    items: tuple[tuple[str, str], ...]
    raw: list[tuple[bytes, bytes]]

    @staticmethod
    def of(items: tuple[tuple[str, str], ...]) -> WireHeaders:
        """The headers ``items``, encoded once."""
        return WireHeaders(items, [(k.encode("utf-8"), v.encode("utf-8")) for k, v in items])

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
    method: str, url: str, headers: Iterable[tuple[str, str]], content: bytes
) -> WireRequest:
    """The :class:`WireRequest` of an absolute ``url`` (percent-encoded, as sent)."""
    parts = urlsplit(url)
    sent = parts.path or "/"
    return WireRequest(
        method.upper(),
        WireURL(
            parts.hostname or "",
            parts.port,
            unquote(sent),
            parts.query.encode(),
            sent.encode("utf-8", "surrogateescape"),
        ),
        WireHeaders.of(tuple((str(k), str(v)) for k, v in headers)),
        content,
    )


def reason_phrase(status: int) -> str:
    """The standard reason phrase of ``status`` (``OK``), or ``""`` for an unknown one."""
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""
