"""What a recording says of a live send that ended without its whole answer.

Here, in the HTTP layer, rather than beside the warning in :mod:`replaygate.errors`: the
error a send ended in can quote the request's key (h11's ``Illegal header value
b'Bearer sk-...'``), which is masked with the sanitize package's masker, and the errors
module is one every package imports.
"""

from __future__ import annotations

import warnings

from replaygate.errors import LiveSendFailedWarning, group_leaves, send_remedy
from replaygate.sanitize.secret_mask import masked_texts


def _named(err: BaseException) -> str:
    """``err`` as the warning names it: its class and message; an exception group by the
    errors it holds (anyio's ``unhandled errors in a TaskGroup`` names none of them)."""
    if isinstance(err, BaseExceptionGroup):
        return f"{type(err).__name__} of " + "; ".join(_named(e) for e in group_leaves(err))
    return f"{type(err).__name__}: {err}" if str(err) else type(err).__name__


def failed_send(request: str, err: BaseException, how: str = "failed before any answer") -> str:
    """What :class:`~replaygate.errors.LiveSendFailedWarning` says of the live send of
    ``request`` (its method and path, ``POST /v1/messages``) that ``err`` ended (``how``:
    before any answer, or with its answer cut before its end). A key the error quotes is
    masked, as a miss's is: the warning reaches CI logs."""
    (reason,) = masked_texts([_named(err)])
    return (
        f"the live send of {request} {how} "
        f"({reason}), so nothing was recorded for it: its replay misses the request, or, "
        f"where a retry of it was answered, sends it once less than this recording did. "
        f"{send_remedy(err)}"
    )


def warn_failed_send(message: str, err: BaseException, stacklevel: int) -> None:
    """Warn :class:`~replaygate.errors.LiveSendFailedWarning` ``message`` of the live send
    ``err`` ended, at ``stacklevel`` of the caller. Where a filter makes the warning an
    error (``-W error``, pytest's ``filterwarnings = ["error"]``), the message becomes a
    note of ``err`` instead, which the client gets as live: raised in its place, the
    warning would be the client's error, which an SDK takes for another (a timeout's
    ``APITimeoutError`` becomes ``APIConnectionError: Connection error.``), so recording
    would change the branch the code under test takes."""
    try:
        warnings.warn(message, LiveSendFailedWarning, stacklevel=stacklevel + 1)
    except LiveSendFailedWarning:
        err.add_note(f"replaygate: {message}")
