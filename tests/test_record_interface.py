"""The recording commands record through the anthropic SDK: an agent whose settings
declare another interface is refused before anything is sent, naming the interface,
where the SDK was handed the other interface's request and raised a TypeError of its
own arguments."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate.cli import main

AGENT = """
from replaygate.evals.agents import AgentEntry
from replaygate.examples.research_copilot import answer
from replaygate.models.replay import RequestSettings

copilot = AgentEntry(
    answer, settings=RequestSettings("gpt-4o-mini", 256, interface="openai.chat.completions")
)
"""


@pytest.mark.parametrize(
    "command",
    [
        ["record", "--simulator"],
        ["eval", "--record-mode", "record-missing", "--simulator", "--no-history", "--jobs", "2"],
    ],
)
def test_an_agent_of_another_interface_is_refused_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    (tmp_path / "openai_agent.py").write_text(AGENT, encoding="utf-8")
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        '{"id": "rag", "question": "What is RAG?", "must_contain": ["RAG"], '
        '"samples": 1, "floor": 1}\n',
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    store = tmp_path / "fx.jsonl"
    args = [*command, "--agent", "openai_agent:copilot", "--fixtures", str(store)]
    done = CliRunner().invoke(main, [*args, "--approve-live", "--cases", str(cases)])
    assert done.exit_code == 2, done.output
    assert done.stderr.startswith(
        "Error: the agent declares interface 'openai.chat.completions'"
    ), done.output
    assert not store.exists()
