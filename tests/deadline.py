"""``finishes(call)``: run ``call`` on a thread with a deadline, so that code that would
block for ever (on a FIFO, say) fails the test instead of hanging the suite;
``started(call)`` to check on it later."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


def started(call: Callable[[], Any]) -> tuple[threading.Thread, list[Any]]:
    """``call()`` running on a thread of its own, and the list that receives what it
    returns or raises once it ends."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(call())
        except BaseException as err:  # handed to the test to check
            outcome.append(err)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    return worker, outcome


def finishes(call: Callable[[], Any], seconds: float = 10.0) -> Any:
    """What ``call()`` returned or raised; fails the test if it still runs after ``seconds``."""
    worker, outcome = started(call)
    worker.join(seconds)
    assert not worker.is_alive(), f"still running after {seconds} s: it blocks"
    return outcome[0]
