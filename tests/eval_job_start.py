"""The agent of :mod:`eval_job_agents`, from a module whose import holds the start of
``replaygate eval --jobs`` in the fork server (which imports it again before it starts
any process) until the test says go on.

With ``EVAL_JOB_HOLD`` naming a folder: the first import (the command's own, which
reads the agent's settings) writes ``command`` there; a later one writes ``held`` and
waits for ``go`` (a minute at most).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from eval_job_agents import troubled


def _hold(folder: Path) -> None:
    if not (folder / "command").exists():
        (folder / "command").write_text(str(os.getpid()), encoding="utf-8")
        return
    (folder / "held").write_text(str(os.getpid()), encoding="utf-8")
    deadline = time.monotonic() + 60
    while not (folder / "go").exists() and time.monotonic() < deadline:
        time.sleep(0.02)


if "EVAL_JOB_HOLD" in os.environ:
    _hold(Path(os.environ["EVAL_JOB_HOLD"]))

__all__ = ["troubled"]
