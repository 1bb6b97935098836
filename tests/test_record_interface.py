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


CASES = (
    '{"id": "rag", "question": "What is RAG?", "must_contain": ["RAG"], "samples": 1, "floor": 1}\n'
)


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """The agent of another interface, its cases file and the path of its store."""
    (tmp_path / "openai_agent.py").write_text(AGENT, encoding="utf-8")
    (tmp_path / "cases.jsonl").write_text(CASES, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path / "cases.jsonl", tmp_path / "fx.jsonl"


REPLAYS = [
    ["eval", "--no-history", "--out", "results.json"],
    ["run", "What is RAG?"],
]


@pytest.mark.parametrize("command", REPLAYS)
def test_a_replay_of_another_interface_never_recorded_says_to_record_it_from_python(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    """Where it named the command that refuses to record it."""
    cases, store = _project(tmp_path, monkeypatch)
    args = [*command, "--agent", "openai_agent:copilot", "--fixtures", str(store)]
    done = CliRunner().invoke(main, [*args, "--cases", str(cases)] if "eval" in args else args)
    assert done.exit_code == 2, done.output
    assert f"no fixtures at {store}: record them first from Python: a RecordingModel(" in (
        done.stderr
    ), done.output
    assert "over the live model of interface 'openai.chat.completions'" in done.stderr
    assert "--record-mode" not in done.stderr and "--simulator" not in done.stderr


@pytest.mark.parametrize("command", REPLAYS)
@pytest.mark.slow  # the eval runner's whole flow
def test_a_miss_of_another_interface_says_to_re_record_it_from_python(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    """Where it named the command that refuses to record it, and said to give it
    --simulator, for a fixture recorded from the simulator."""
    from replaygate import Message, ModelResponse, RecordingModel
    from replaygate.models.fakes import ScriptedModel

    cases, store = _project(tmp_path, monkeypatch)
    recorder = RecordingModel(
        ScriptedModel([ModelResponse(text="RAG retrieves.")]),
        store,
        approve_live=True,
        model="gpt-4o-mini",
        max_tokens=256,
        system="An older prompt.",
        interface="openai.chat.completions",
        source="sim",
    )
    recorder.complete([Message.user("What is RAG?")], [])
    args = [*command, "--agent", "openai_agent:copilot", "--fixtures", str(store)]
    done = CliRunner().invoke(main, [*args, "--cases", str(cases)] if "eval" in args else args)
    assert done.exit_code == (2 if "eval" in args else 1), done.output  # run: a miss
    assert "If the change was meant, re-record: from Python: a RecordingModel(" in done.stderr
    assert "replaygate.sim.Simulator's URL to record from the simulator" in done.stderr
    assert "--record-mode" not in done.stderr and "--simulator" not in done.stderr
    assert "replaygate record --approve-live" not in done.stderr
