"""``aiobotocore.httpsession.AIOHTTPSession.send``: a replay error let through unwrapped.

aiobotocore's async clients send through aiohttp, whose seam
(:mod:`.aiohttp_session`) records and replays them. Its send wraps any error it does
not know, a miss raised in aiohttp's seam among them, as botocore's ``HTTPClientError``,
which botocore's retry handler retries as a connection error: the miss was sent four
times before it reached the test; a connection the network block refused (an agent's
tool calling S3 while recording from the simulator) it wraps as ``EndpointConnectionError``,
retried alike. Here the replay error is raised as itself, which botocore retries no more
than boto3's (:mod:`.botocore_session`): it reaches the test once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiobotocore.httpsession import AIOHTTPSession

from replaygate.http.seams import Patch
from replaygate.http.seams.botocore_session import BOTOCORE_WRAPPERS, carried


def _make(original: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    async def send(http: AIOHTTPSession, request: Any) -> Any:
        __tracebackhide__ = True
        try:
            return await original(http, request)
        except BOTOCORE_WRAPPERS as err:
            error = carried(err)
            if error is None:
                raise
            raise error from None

    return send


def patches(name: str) -> list[Patch]:
    """``aiobotocore.httpsession.AIOHTTPSession.send``."""
    return [(AIOHTTPSession, "send", _make)]
