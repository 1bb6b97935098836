"""What a recording says of a live send that ended without its whole answer.

Here, in the HTTP layer, rather than beside the warning in :mod:`replaygate.errors`: the
error a send ended in can quote the request's key (h11's ``Illegal header value
b'Bearer sk-...'``), which is masked with the sanitize package's masker, and the errors
module is one every package imports.
"""

from __future__ import annotations

from replaygate.errors import send_remedy
from replaygate.sanitize.secret_mask import masked_texts


def failed_send(request: str, err: BaseException, how: str = "failed before any answer") -> str:
    """What :class:`~replaygate.errors.LiveSendFailedWarning` says of the live send of
    ``request`` (its method and path, ``POST /v1/messages``) that ``err`` ended (``how``:
    before any answer, or with its answer cut before its end). A key the error quotes is
    masked, as a miss's is: the warning reaches CI logs."""
    (reason,) = masked_texts([f"{type(err).__name__}: {err}" if str(err) else type(err).__name__])
    return (
        f"the live send of {request} {how} "
        f"({reason}), so nothing was recorded for it: its replay misses the request, or, "
        f"where a retry of it was answered, sends it once less than this recording did. "
        f"{send_remedy(err)}"
    )
