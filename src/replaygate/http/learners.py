"""Servers in this process told of each answer a recording session replays to them.

A session recording what it has not recorded yet (``record-missing``) sends a server the
later turns of a conversation whose earlier turns it answered from fixtures. A real API
holds those earlier turns: the response a ``previous_response_id`` names, a
conversation, a thread. A server started afresh for the run, the simulator, does not,
and would refuse the later turn. Such a server registers here under its host and port,
and :class:`~replaygate.http.exchange.Exchange` tells it of each answer it replays to a
request addressed to it (or sent there as the session's ``live_origin``), as if it had
served that answer itself.

A process forked from the one a server runs in (a ``multiprocessing`` pool's worker)
inherits none of its threads: the server, still serving its parent, learns only what the
parent replays, so the child forgets the servers registered before the fork instead of
waiting on a thread it does not have.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

Learner = Callable[[dict[str, Any], Any], None]
"""Told a request's envelope (as the client sent it) and the response replayed to it."""

_learners: dict[tuple[str, int], Learner] = {}


def register(host: str, port: int, learner: Learner) -> None:
    """Tell ``learner`` of each answer replayed to a request addressed to ``host:port``."""
    _learners[(host, port)] = learner


def unregister(host: str, port: int) -> None:
    """Stop telling the server at ``host:port`` (it stopped)."""
    _learners.pop((host, port), None)


def learner_at(host: str | None, port: int | None) -> Learner | None:
    """The learner registered at ``host:port``, if any (none without a port)."""
    if not _learners or host is None or port is None:
        return None
    return _learners.get((host, port))


def _forget_inherited() -> None:
    """In a forked child: no server registered in the parent learns here (its thread is
    the parent's)."""
    _learners.clear()


os.register_at_fork(after_in_child=_forget_inherited)
