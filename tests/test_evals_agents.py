"""Any agent, named ``module:function``, drives record, run, show and eval.

Nothing defaults to the shipped example: a command without an agent, a model or a
store stops with exit status 2 naming the flag and the ``[tool.replaygate]`` key.

Agents are recorded from the simulator and replayed through the command line and the
eval runner, whole flows: the module runs in ``make test``, not in the inner loop.
"""

from __future__ import annotations

import json
import re
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from replaygate.cli import main
from replaygate.evals import AgentEntry, RecordPlan, load_agent, load_eval_results, run_eval
from replaygate.evals.cases import EvalCase
from replaygate.evals.errors import AgentLoadError, AgentRunError
from replaygate.fixtures.store import FixtureStore
from replaygate.models.fakes import FunctionModel
from replaygate.models.replay import RequestSettings
from replaygate.models.types import ModelResponse

pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::replaygate.sampling.advice.SamplingWarning"),
]

MODULE = """
from dataclasses import dataclass

from replaygate.models.types import Message, Usage


@dataclass(frozen=True)
class Answer:
    final: str
    usage: Usage
    steps: tuple = ()


def answer(model, question):
    response = model.complete([Message.user(question)], [])
    return Answer(response.text, response.usage)


def crash(model, question):
    raise RuntimeError("the agent crashed")


def returns_text(model, question):
    return model.complete([Message.user(question)], []).text


def exits(model, question):
    raise SystemExit(0)


def responses_as_steps(model, question):
    response = model.complete([Message.user(question)], [])
    return Answer(response.text, response.usage, (response,))


def forgiving(model, question):
    try:
        return answer(model, question + " Briefly.")
    except Exception:
        return answer(model, question)


def of_the_question(question):
    return Answer(question, Usage())


def text_as_messages(model, question):
    response = model.complete(question, [])
    return Answer(response.text, response.usage)
"""
AGENT = "plain_agent:answer"
SETTINGS = ["--model", "sim-model", "--max-tokens", "64"]
NOT_FOUND = "I could not find information about RAG in the corpus."
CASE = {"id": "rag", "question": "What is RAG?", "must_contain": ["RAG"], "samples": 1, "floor": 1}
RAG = EvalCase("rag", "What is RAG?", 1, 1, must_contain=("RAG",))


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder holding a plain agent module, importable and the working directory."""
    (tmp_path / "plain_agent.py").write_text(MODULE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    sys.modules.pop("plain_agent", None)


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def test_a_plain_agent_is_recorded_replayed_and_shown_by_module_and_function(
    project: Path,
) -> None:
    store = "agent.jsonl"
    ask = ["--agent", AGENT, *SETTINGS, "--fixtures", store, "What is RAG?"]
    recorded = invoke("record", *ask, "--approve-live", "--simulator")
    assert recorded.exit_code == 0, recorded.output
    assert f"recorded 1 new response(s) into {store}" in recorded.output
    replayed = invoke("run", *ask, "--check-determinism")
    assert replayed.exit_code == 0, replayed.output
    assert f"final: {NOT_FOUND}" in replayed.output
    assert "identical final: True; identical trace: True" in replayed.output
    (key,) = FixtureStore.open(project / store).keys()
    shown = invoke("show", key, "--fixtures", store)
    assert shown.exit_code == 0, shown.output
    assert '"model": "sim-model"' in shown.output and '"max_tokens": 64' in shown.output
    other = invoke("run", *[a if a != "sim-model" else "another-model" for a in ask])
    assert other.exit_code == 1
    assert "Error: no fixture recorded for this request" in other.output
    # an agent that catches the miss and asks the recorded question instead is stopped
    caught = invoke("run", *ask[:1], "plain_agent:forgiving", *ask[2:])
    assert caught.exit_code == 1, caught.output
    assert "Error: no fixture recorded for this request" in caught.output
    assert "What is RAG? Briefly." in caught.output
    assert "the code under test caught this error and went on" in caught.output
    assert NOT_FOUND not in caught.output


def test_the_agent_and_its_settings_come_from_the_config(project: Path) -> None:
    (project / "cases.jsonl").write_text(json.dumps(CASE) + "\n", encoding="utf-8")
    (project / "pyproject.toml").write_text(
        textwrap.dedent(
            f"""
            [tool.replaygate]
            agent = "{AGENT}"
            model = "sim-model"
            max_tokens = 64
            system = "Be brief."
            cases = "cases.jsonl"
            fixtures = "evals/fixtures.jsonl"

            [tool.replaygate.prices]
            "sim-model" = {{ input = 1.0, output = 2.0 }}
            """
        ),
        encoding="utf-8",
    )
    recorded = invoke("record", "--approve-live", "--simulator")
    assert recorded.exit_code == 0, recorded.output
    replayed = invoke("run")
    assert replayed.exit_code == 0, replayed.output
    assert f"final: {NOT_FOUND}" in replayed.output
    evaluated = invoke("eval", "--no-history", "--out", "results.json")
    assert evaluated.exit_code == 0, evaluated.output
    info = load_eval_results(project / "results.json").info
    assert (info["agent"], info["model"]) == (AGENT, "sim-model")
    assert " over " in info["prices"]["source"]
    # named from the project folder, as on any machine
    assert info["prices"]["source"].startswith("pyproject.toml [tool.replaygate.prices] over ")
    assert (info["fixtures"], info["cases_file"]) == ("evals/fixtures.jsonl", "cases.jsonl")
    fixture = next(iter(FixtureStore.open(project / "evals" / "fixtures.jsonl")))
    assert fixture.request["system"] == "Be brief."
    # an agent that catches a miss stops the eval, and the command says so
    caught = invoke("eval", "--no-history", "--agent", "plain_agent:forgiving")
    assert caught.exit_code == 2, caught.output
    assert "no fixture recorded for this request" in caught.output
    assert "the code under test caught this error and went on" in caught.output
    assert "raised in sample 0 of 1 of case rag" in caught.output


@pytest.mark.parametrize(
    ("args", "flag", "key"),
    [
        (["run", "--fixtures", "f.jsonl", "x"], "--agent", "agent"),
        (["record", "--fixtures", "f.jsonl", "x", "--approve-live"], "--agent", "agent"),
        (["eval", "--fixtures", "f.jsonl", "--cases", "c.jsonl"], "--agent", "agent"),
        (["eval", "--fixtures", "f.jsonl", "--agent", AGENT], "--cases", "cases"),
        (
            ["run", "--agent", AGENT, "--fixtures", "f.jsonl", "x"],
            "--model",
            "model and max_tokens",
        ),
        (["run", "--agent", AGENT, *SETTINGS, "x"], "--fixtures", "fixtures"),
        (["run", "--agent", AGENT, *SETTINGS, "--fixtures", "f.jsonl"], "QUESTION", "cases"),
        (["show", "abc"], "--fixtures", "fixtures"),
    ],
)
def test_what_is_missing_is_a_clean_exit_2_naming_the_flag_and_the_key(
    project: Path, args: list[str], flag: str, key: str
) -> None:
    (project / "c.jsonl").write_text(json.dumps(CASE) + "\n", encoding="utf-8")
    done = invoke(*args)
    assert done.exit_code == 2, done.output
    assert f"pass {flag}" in done.output
    assert f"set {key} in [tool.replaygate]" in done.output
    assert "Traceback" not in done.output
    assert not (project / "f.jsonl").exists()


def test_an_agent_that_cannot_be_loaded_is_a_clean_exit_2(project: Path) -> None:
    done = invoke("run", "--agent", "no_such_module_xyz:agent", *SETTINGS, "x")
    assert done.exit_code == 2
    assert "Error: --agent 'no_such_module_xyz:agent': cannot import" in done.output
    assert "AgentLoadError" not in done.output


def test_an_agent_whose_sdk_is_not_installed_is_told_the_extra_that_installs_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A plain install ran an agent that imports anthropic: "No module named 'anthropic'"
    (tmp_path / "sdk_agent_xyz.py").write_text("import anthropic\n", encoding="utf-8")
    monkeypatch.setitem(sys.modules, "anthropic", None)  # not installed
    monkeypatch.setattr(sys, "path", list(sys.path))  # the folder it puts first, undone
    with pytest.raises(AgentLoadError) as raised:
        load_agent("sdk_agent_xyz:agent", folder=tmp_path)
    assert str(raised.value).endswith(
        "cannot import 'sdk_agent_xyz': import of anthropic halted; None in sys.modules "
        "(pip install 'replaygate[anthropic]' installs it)"
    )


def test_an_agent_module_in_the_working_folder_is_found_as_python_m_finds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ``replaygate`` command does not put its working folder on the import path."""
    (tmp_path / "folder_agent.py").write_text(MODULE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    try:
        assert load_agent("folder_agent:answer").run.__module__ == "folder_agent"
        assert sys.path[0] == str(tmp_path)
    finally:
        sys.modules.pop("folder_agent", None)
    # a module that fails to import its own dependency says so, not retried
    (tmp_path / "broken_agent.py").write_text("import no_such_dependency_xyz\n", encoding="utf-8")
    with pytest.raises(AgentLoadError, match="No module named 'no_such_dependency_xyz'"):
        load_agent("broken_agent:answer")


def scripted_store(path: Path, agent: AgentEntry, settings: RequestSettings) -> Path:
    live = FunctionModel(lambda messages, tools: ModelResponse(text="RAG retrieves first."))
    plan = RecordPlan(live, approve_live=True, source="scripted")
    run_eval([RAG], path, agent=agent, settings=settings, recording=plan)
    return path


def test_run_eval_takes_settings_given_or_declared_never_a_default(project: Path) -> None:
    plain = load_agent(AGENT)
    settings = RequestSettings("scripted-model", 32)
    with pytest.raises(ValueError, match="no request settings"):
        run_eval([RAG], project / "none.jsonl", agent=plain)
    store = scripted_store(project / "f.jsonl", plain, settings)
    declared = AgentEntry(plain.run, settings=settings)
    results = run_eval([RAG], store, agent=declared)
    assert results.info["model"] == "scripted-model"
    assert results.cases[0].sampled.verdict == "pass"
    by_spec = run_eval([RAG], store, agent=AGENT, settings=settings)
    assert by_spec.to_json()["cases"] == results.to_json()["cases"]


def test_only_the_failures_an_agent_declares_fail_a_sample(project: Path) -> None:
    settings = RequestSettings("scripted-model", 32)
    crash = load_agent("plain_agent:crash")
    cases = [RAG]
    store = scripted_store(project / "f.jsonl", load_agent(AGENT), settings)
    with pytest.raises(RuntimeError, match="the agent crashed"):
        run_eval(cases, store, agent=crash, settings=settings)
    gives_up = AgentEntry(crash.run, failures=(RuntimeError,))
    results = run_eval(cases, store, agent=gives_up, settings=settings)
    (only,) = results.cases
    assert only.sampled.verdict == "block"
    assert only.sampled.samples[0].output["error"] == "RuntimeError: the agent crashed"


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("raise RuntimeError('no key')\n", r"raised RuntimeError: no key \(at .*failing\.py:1 in"),
        ("def f(:\n", r"raised SyntaxError: .*\(at .*failing\.py:1\)"),
        ("import sys\nsys.exit(3)\n", r"raised SystemExit: 3 \(at .*failing\.py:2 in"),
    ],
)
def test_an_agent_module_that_fails_as_it_is_imported_is_named_with_where(
    project: Path, source: str, message: str
) -> None:
    (project / "failing.py").write_text(source, encoding="utf-8")
    try:
        with pytest.raises(
            AgentLoadError, match=r"--agent 'failing:f': importing 'failing' " + message
        ):
            load_agent("failing:f")
    finally:
        sys.modules.pop("failing", None)
    for spec in ("../plain_agent:answer", "plain_agent:an-swer", ".plain_agent:answer"):
        with pytest.raises(AgentLoadError, match=r"expected 'package\.module:function'"):
            load_agent(spec)


def test_an_agent_that_returns_no_run_or_exits_stops_the_eval_with_an_error(
    project: Path,
) -> None:
    settings = RequestSettings("scripted-model", 32)
    store = scripted_store(project / "f.jsonl", load_agent(AGENT), settings)
    with pytest.raises(AgentRunError, match=r"the agent returned a str \('RAG retrieves"):
        run_eval([RAG], store, agent="plain_agent:returns_text", settings=settings)
    with pytest.raises(AgentRunError, match=r"ended the process \(SystemExit\(0\) at .*in exits"):
        run_eval([RAG], store, agent="plain_agent:exits", settings=settings)


def test_the_eval_command_names_what_the_agent_raised_and_where(project: Path) -> None:
    scripted_store(project / "f.jsonl", load_agent(AGENT), RequestSettings("sim-model", 64))
    unpriced = {**CASE, "cost": False}
    (project / "cases.jsonl").write_text(json.dumps(unpriced) + "\n", encoding="utf-8")
    args = ["eval", "--cases", "cases.jsonl", "--fixtures", "f.jsonl", "--no-history", *SETTINGS]
    crashed = invoke(*args, "--agent", "plain_agent:crash")
    assert crashed.exit_code == 2, crashed.output
    assert isinstance(crashed.exception, SystemExit)  # an error message, not a traceback
    assert re.search(
        r"Error: RuntimeError: the agent crashed \(raised by the agent at .*plain_agent\.py:\d+ "
        r"in crash\) \(raised in sample 0 of 1 of case rag\)",
        crashed.output,
    )
    exited = invoke(*args, "--agent", "plain_agent:exits")
    assert exited.exit_code == 2, exited.output
    assert "Error: the agent ended the process" in exited.output


def test_the_agent_is_named_at_its_own_line_or_by_its_definition(project: Path) -> None:
    """Not at the line of replaygate that called the agent or found its call wrong."""
    scripted_store(project / "f.jsonl", load_agent(AGENT), RequestSettings("sim-model", 64))
    unpriced = {**CASE, "cost": False}
    (project / "cases.jsonl").write_text(json.dumps(unpriced) + "\n", encoding="utf-8")
    lines = MODULE.splitlines()
    defined = lines.index("def of_the_question(question):") + 1
    called = lines.index("    response = model.complete(question, [])") + 1
    args = ["eval", "--cases", "cases.jsonl", "--fixtures", "f.jsonl", "--no-history", *SETTINGS]
    for jobs in ("1", "2"):
        wrong = invoke(*args, "--jobs", jobs, "--agent", "plain_agent:of_the_question")
        assert wrong.exit_code == 2, wrong.output
        assert (
            "(the agent's signature is wrong: plain_agent:of_the_question(question), defined at "
            f"{project / 'plain_agent.py'}:{defined}, is called as agent(model, question), with "
            "the Model to ask and the case's question (a str))" in wrong.output
        ), wrong.output
        misused = invoke(*args, "--jobs", jobs, "--agent", "plain_agent:text_as_messages")
        assert misused.exit_code == 2, misused.output
        assert (
            "TypeError: messages: expected a list of Message, got str (raised by the agent at "
            f"{project / 'plain_agent.py'}:{called} in text_as_messages)" in misused.output
        ), misused.output
    ran = invoke(
        "run", "--agent", "plain_agent:of_the_question", *SETTINGS, "--fixtures", "f.jsonl", "x"
    )
    assert ran.exit_code == 2, ran.output
    assert "the agent's signature is wrong: plain_agent:of_the_question(question)" in ran.output


def test_an_agent_whose_steps_are_no_trace_steps_is_named_with_what_a_step_is(
    project: Path,
) -> None:
    scripted_store(project / "f.jsonl", load_agent(AGENT), RequestSettings("sim-model", 64))
    unpriced = {**CASE, "cost": False}
    (project / "cases.jsonl").write_text(json.dumps(unpriced) + "\n", encoding="utf-8")
    agent = ["--agent", "plain_agent:responses_as_steps", *SETTINGS, "--fixtures", "f.jsonl"]
    said = (
        "Error: the agent plain_agent:responses_as_steps returned a run result whose steps[0] "
        "is a ModelResponse (ModelResponse(text='RAG retrieves first.'"
    )
    step = (
        "not a trace step (it has no kind, no tool_call, no result, no is_error): a trace "
        "step is an object with kind ('tool' or 'answer'), tool_call (the ToolCall of a tool "
        "step, else None), result (the tool's result text, else None) and is_error"
    )
    for jobs in ("1", "2"):
        done = invoke("eval", "--cases", "cases.jsonl", "--no-history", "--jobs", jobs, *agent)
        assert done.exit_code == 2, done.output
        assert isinstance(done.exception, SystemExit)  # an error message, not a traceback
        assert said in done.output and step in done.output, done.output
    ran = invoke("run", *agent, "What is RAG?")
    assert ran.exit_code == 2, ran.output
    assert said in ran.output and step in ran.output, ran.output
