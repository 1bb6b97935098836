"""A process forked from the one a simulator runs in does not wait on the simulator's
thread, which it does not have, to learn what it replays (:mod:`replaygate.http.learners`)."""

from __future__ import annotations

import os

import pytest

from replaygate.http.learners import learner_at
from replaygate.sim import Simulator

pytestmark = pytest.mark.slow  # forks a process


def test_a_forked_child_tells_no_server_of_its_parent() -> None:
    with Simulator() as sim:
        assert learner_at(sim.host, sim.port) is not None
        pid = os.fork()
        if pid == 0:  # the child: 0 when it forgot the parent's simulator
            os._exit(0 if learner_at(sim.host, sim.port) is None else 1)
        _, status = os.waitpid(pid, 0)
        assert learner_at(sim.host, sim.port) is not None
    assert os.waitstatus_to_exitcode(status) == 0
