"""Identical requests recorded while sent at once: a replay may answer them crosswise.

The sends of one request are answered on replay in the order they are sent (law 1: the
n-th identical request gets the n-th recorded answer). Senders that run at once (the
parallel branches of a LangGraph graph, a ``batch``, an ``asyncio.gather``, a thread pool)
send in an order that changes from run to run, so where they send the same request, a
replay may give one of them the answer another got when it was recorded. A recording
sees it happen, a live send of a request starting while another of the same request is
still under way, and warns once per request (:class:`~replaygate.errors.SentAtOnceWarning`).
"""

from __future__ import annotations

import contextlib
import warnings
from types import FrameType

from replaygate.errors import SentAtOnceWarning

SENT_AT_ONCE = (
    "identical requests ({request}, key {key}) were sent at once while recording: their "
    "answers are stored in the order they were sent, and a replay gives them out in the "
    "order they are sent then, which senders running at once (the parallel branches of a "
    "LangGraph graph, a batch, an asyncio.gather, a thread pool) change from run to run, so "
    "one may get the answer another was given. Make each request its own (the item it "
    "works on in its prompt), or send them one after another (docs/frameworks.md#langchain)."
)
"""What :func:`warn_sent_at_once` says."""


def warn_sent_at_once(request: str, key: str, stacklevel: int, at: FrameType | None = None) -> None:
    """Warn :class:`~replaygate.errors.SentAtOnceWarning` of ``request`` (``POST
    /v1/messages``, its fixture's ``key``), at ``stacklevel`` of the caller, or at the line
    frame ``at`` runs (of another thread: the one waiting for the sender's). Where a filter
    makes the warning an error (``-W error``), it is not raised: raised in a send, it would
    be the client's error, which an SDK takes for a failed connection and retries."""
    message = SENT_AT_ONCE.format(request=request, key=key)
    with contextlib.suppress(SentAtOnceWarning):
        if at is None:
            warnings.warn(message, SentAtOnceWarning, stacklevel=stacklevel + 1)
            return
        code, names = at.f_code, at.f_globals
        warnings.warn_explicit(
            message,
            SentAtOnceWarning,
            code.co_filename,
            at.f_lineno,
            module=names.get("__name__") or code.co_filename,
            registry=names.setdefault("__warningregistry__", {}),
        )
