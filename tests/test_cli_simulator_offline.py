"""``record --simulator`` and ``eval --record-mode ... --simulator`` keep the process
offline beyond loopback, as the pytest plugin does when it records from the simulator.

Recording from the loopback simulator approves no other call: an agent (or a library
it uses) that sent anything elsewhere while the commands recorded was let through.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from network_escapes import TIMEOUT, V4
from replaygate.errors import NetworkBlockedError
from replaygate.evals import jobs as eval_jobs
from replaygate.evals.agents import AgentEntry
from replaygate.evals.output import RunLike
from replaygate.examples.research_copilot import SETTINGS, copilot, shipped_eval_cases
from replaygate.models.types import Model
from replaygate.network import BLOCK_IMPORTS, SIMULATOR_BLOCK
from run_cli import replaygate

# Its tests import the provider SDKs through replaygate (the example agent).

pytestmark = pytest.mark.filterwarnings("ignore::replaygate.sampling.advice.SamplingWarning")


def _reaches_out(model: Model, question: str) -> RunLike:
    """ResearchCopilot, after trying a TEST-NET address (never routed): an error unless
    the attempt was refused as the network block refuses it while recording from the
    simulator (not telling the user to record with approval, as they do)."""
    try:
        socket.create_connection(V4, timeout=TIMEOUT).close()
    except NetworkBlockedError as err:
        if not str(err).endswith(SIMULATOR_BLOCK):
            raise RuntimeError(f"refused with another remedy: {err}") from None
        return copilot(model, question)
    except OSError as err:
        raise RuntimeError(f"a connection beyond loopback was tried, not refused: {err}") from None
    raise RuntimeError("a connection beyond loopback was made")


reaches_out = AgentEntry(_reaches_out, settings=SETTINGS)
AGENT = f"{__name__}:reaches_out"


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_record_from_the_simulator_refuses_a_connection_beyond_loopback(tmp_path: Path) -> None:
    done = replaygate(
        "record", "--agent", AGENT, "--fixtures", str(tmp_path / "rc.jsonl"), "--approve-live",
        "--simulator", "What is RAG?",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert " new response(s) into " in done.stdout


@pytest.mark.parametrize("jobs", ["1", pytest.param("2", marks=pytest.mark.slow)])
def test_eval_recording_from_the_simulator_refuses_a_connection_beyond_loopback(
    tmp_path: Path, jobs: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    preloads: list[tuple[str, ...]] = []
    context = eval_jobs.workers_context

    def noted(preload: Sequence[str]) -> Any:
        preloads.append(tuple(preload))
        return context(preload)

    monkeypatch.setattr(eval_jobs, "workers_context", noted)
    lines = shipped_eval_cases().read_text(encoding="utf-8").splitlines()[:2]
    cases = [{**json.loads(line), "samples": 1, "floor": 1} for line in lines]
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    done = replaygate(
        "eval", "--agent", AGENT, "--cases", str(tmp_path / "cases.jsonl"), "--fixtures",
        str(tmp_path / "rc.jsonl"), "--record-mode", "record-missing", "--approve-live",
        "--simulator", "--no-history", "--jobs", jobs,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    # the processes' fork server loads the SDK once, not each process for itself
    # (after the runner's module, what its network block imports, and the agent's)
    assert preloads == (
        [(eval_jobs.__name__, *BLOCK_IMPORTS, AGENT.partition(":")[0], "anthropic")]
        if jobs == "2"
        else []
    )
