"""Recording from the live API sends each paid call once: a failed call is reported, not re-sent."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate.cli import main
from replaygate.examples.research_copilot import shipped_eval_cases
from replaygate.sim import FaultPlan, Simulator

pytestmark = pytest.mark.slow  # each test: the eval runner's whole flow

# Its tests import the provider SDKs through replaygate (the example agent).

AGENT = ["--agent", "replaygate.examples.research_copilot:copilot"]
COMMANDS = {
    "record": ["record", *AGENT, "--approve-live", "What is RAG?"],
    "eval-record-mode": [
        "eval", *AGENT, "--cases", str(shipped_eval_cases()), "--record-mode", "record-missing",
        "--approve-live", "--no-history",
    ],
}  # fmt: skip


@pytest.mark.parametrize("command", list(COMMANDS))
def test_an_overloaded_live_api_is_called_once_and_the_command_fails(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    store = tmp_path / "new.jsonl"
    with Simulator(behavior="research-copilot", faults=FaultPlan.sequence(["529"])) as sim:
        env = {"ANTHROPIC_API_KEY": "sk-ant-fake", "ANTHROPIC_BASE_URL": sim.url}
        done = CliRunner().invoke(main, [*COMMANDS[command], "--fixtures", str(store)], env=env)
        received = len(sim.requests)
    assert done.exit_code == 2, done.output
    assert "answered 529" in done.output, done.output
    assert received == 1
