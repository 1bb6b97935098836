"""``finishes(call)``: run ``call`` on a thread with a deadline, so that code that would
block for ever (on a FIFO, say) fails the test instead of hanging the suite."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


def finishes(call: Callable[[], Any], seconds: float = 10.0) -> Any:
    """What ``call()`` returned or raised; fails the test if it still runs after ``seconds``."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(call())
        except BaseException as err:  # handed to the test to check
            outcome.append(err)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"still running after {seconds} s: it blocks"
    return outcome[0]
