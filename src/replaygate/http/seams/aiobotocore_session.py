"""``aiobotocore.httpsession.AIOHTTPSession.send``: a replay error let through unwrapped.

aiobotocore's async clients send through aiohttp, whose seam
(:mod:`.aiohttp_session`) records and replays them. Its send wraps any error it does
not know, a miss raised in aiohttp's seam among them, as botocore's ``HTTPClientError``,
which botocore's retry handler retries as a connection error: the miss was sent four
times before it reached the test. Here the replay error is raised as itself, which
botocore retries no more than boto3's (:mod:`.botocore_session`): it reaches the test
once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiobotocore.httpsession import AIOHTTPSession
from botocore.exceptions import HTTPClientError

from replaygate.errors import ReplaygateError
from replaygate.http.seams import Patch


def _make(original: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    async def send(http: AIOHTTPSession, request: Any) -> Any:
        __tracebackhide__ = True
        try:
            return await original(http, request)
        except HTTPClientError as err:
            error = err.kwargs.get("error")
            if isinstance(error, ReplaygateError):
                raise error from None
            raise

    return send


def patches(name: str) -> list[Patch]:
    """``aiobotocore.httpsession.AIOHTTPSession.send``."""
    return [(AIOHTTPSession, "send", _make)]
