"""urllib3's response over a replayed or recorded body stream, and a prepared body's
bytes: what the seams of the libraries that send through urllib3 (``requests``,
``botocore``) hand their callers and read from them."""

from __future__ import annotations

import io
from collections.abc import Callable, Generator, Iterator
from typing import Any, cast

from urllib3._collections import HTTPHeaderDict  # urllib3 1.26 has it only here
from urllib3.response import HTTPResponse

from replaygate.http.streams import ReplayByteStream, TeeByteStream
from replaygate.http.wire import reason_phrase


class _BodyFile(io.RawIOBase):
    """The chunks of a body stream read as a file that closes itself at its end, as the
    socket file of a live response does (so urllib3 knows the body is over), and closes
    the stream with it."""

    def __init__(self, chunks: Iterator[bytes], close: Callable[[], None]) -> None:
        super().__init__()
        self._chunks = chunks
        self._on_close = close
        self._left = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._left:
            chunk = next(self._chunks, None)
            if chunk is None:
                self.close()
                return 0
            self._left = chunk
        size = min(len(buffer), len(self._left))
        buffer[:size] = self._left[:size]
        self._left = self._left[size:]
        return size

    def close(self) -> None:
        if not self.closed:
            self._on_close()
        super().close()

    def chunks(self) -> Iterator[bytes]:
        """The chunks not read yet, each as it comes (what a read left of one first)."""
        if self._left:
            left, self._left = self._left, b""
            yield left
        while (chunk := next(self._chunks, None)) is not None:
            yield chunk
        self.close()


def _pieces(chunk: bytes, size: int | None) -> Iterator[bytes]:
    """A chunk in pieces of ``size`` bytes at most (whole if none)."""
    step = size if size and size > 0 else max(len(chunk), 1)
    for at in range(0, len(chunk), step):
        yield chunk[at : at + step]


class _ChunkedResponse(HTTPResponse):
    """urllib3's response over a body stream, read as a chunked live body is read:
    ``stream()`` (requests' ``iter_content``, ``iter_lines``) hands over each chunk as it
    comes, a piece of one at most ``amt`` long, never waiting for the next chunk to fill a
    read, so what came before a cut reaches the caller before the cut's error."""

    def supports_chunked_reads(self) -> bool:
        return True

    def read_chunked(
        self, amt: int | None = None, decode_content: bool | None = None
    ) -> Generator[bytes]:
        body = cast(_BodyFile, self._fp)
        with self._error_catcher():  # an error of the body as urllib3 raises it live
            for chunk in body.chunks():
                yield from _pieces(chunk, amt)


def chunked_raw(
    method: str,
    url: str,
    status: int,
    headers: list[tuple[str, str]],
    stream: ReplayByteStream | TeeByteStream,
) -> HTTPResponse:
    """urllib3's response over the body ``stream`` of the ``method`` request to ``url``
    (``read``, ``stream``, ``decode_content``, ``status``, ``headers``), read as a chunked
    live body is read."""
    raw = _ChunkedResponse(
        body=_BodyFile(iter(stream), stream.close),
        headers=HTTPHeaderDict(headers),
        status=status,
        reason=reason_phrase(status),
        preload_content=False,
        decode_content=False,
        request_method=method,
        request_url=url,
    )
    raw.chunked = True
    return raw


def body_bytes(body: Any) -> bytes:
    """The bytes of a prepared body: bytes, text, a file or an iterable of chunks."""
    if body is None:
        return b""
    if isinstance(body, str):
        return body.encode("utf-8")
    if isinstance(body, bytes | bytearray):
        return bytes(body)
    chunks = body.read() if hasattr(body, "read") else b"".join(body_bytes(c) for c in body)
    return body_bytes(chunks)
