"""A case made easier through what its checks describe (an alias added, a term dropped,
a schema edited, ``"cost": false``) fails the gate, and ``baseline update`` names it;
replayed with the shipped agent and fixtures, gated through the command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from replaygate.cli import main
from replaygate.evals.expectations import contains_description, contains_weaker
from replaygate.examples.research_copilot import shipped_eval_cases, shipped_fixtures

pytestmark = pytest.mark.filterwarnings("ignore::replaygate.sampling.advice.SamplingWarning")

AGENT = "replaygate.examples.research_copilot:copilot"
FIRST = json.loads(shipped_eval_cases().read_text(encoding="utf-8").splitlines()[0])


JSON_AGENT = """
import dataclasses, json
from replaygate.evals import AgentEntry
from replaygate.examples.research_copilot import copilot

def _run(model, question):
    result = copilot.run(model, question)
    return dataclasses.replace(result, final=json.dumps({"answer": result.final}))

agent = AgentEntry(_run, settings=copilot.settings, failures=copilot.failures)
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "json_answers.py").write_text(JSON_AGENT)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CI", "1")
    return tmp_path


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def evaluate(name: str, *cases: dict[str, Any], agent: str = AGENT) -> str:
    """Replay ``cases`` (each sampled once) and write their results to ``name``."""
    Path(f"{name}.jsonl").write_text(
        "".join(json.dumps({**c, "samples": 1, "floor": 1}) + "\n" for c in cases)
    )
    fixtures = str(shipped_fixtures())
    args = ["--agent", agent, "--cases", f"{name}.jsonl", "--fixtures", fixtures]
    result = cli("eval", *args, "--no-history", "--out", f"{name}.json")
    assert result.exit_code == 0, result.output
    return f"{name}.json"


def baseline_of(results: str) -> str:
    result = cli(
        "baseline", "update", "--results", results, "--baseline", "b.json", "--reason", "b"
    )
    assert result.exit_code == 0, result.output
    return "b.json"


STRICT = {**FIRST, "id": "strict", "must_contain": [*FIRST["must_contain"], "vector database"]}


@pytest.mark.slow  # a real git repository
def test_an_alias_that_turns_a_blocked_case_to_pass_fails_the_gate(project: Path) -> None:
    baseline = baseline_of(evaluate("before", FIRST, STRICT))
    easier = {**STRICT, "aliases": {"vector database": ["RAG"]}}  # every answer says RAG
    after = evaluate("after", FIRST, easier)
    assert json.loads(Path(after).read_text())["cases"][1]["verdict"] == "pass"
    gated = cli("gate", "--baseline", baseline, "--results", after)
    assert gated.exit_code == 1, gated.output
    assert "FAIL case strict expects less than in the baseline (assertion contains" in gated.output
    assert "also accepted: {'vector database': ['RAG']}" in gated.output
    updated = cli("baseline", "update", "--results", after, "--baseline", baseline, "--reason", "x")
    assert "case strict: assertion contains changed" in updated.output
    assert "(expects less than before)" in updated.output
    entry = json.loads(Path(baseline).read_text())["history"][-1]
    assert entry["cases_changed"]["strict"]["weakened"] is True


@pytest.mark.slow  # a real git repository
def test_a_schema_edited_so_that_it_passes_more_often_fails_the_gate(project: Path) -> None:
    needs = {"type": "object", "required": ["answer", "sources"]}
    case = {"id": "json", "question": FIRST["question"], "schema": needs}
    baseline = baseline_of(evaluate("before", case, agent="json_answers:agent"))
    loose = {**case, "schema": {"type": "object", "required": ["answer"]}}
    after = evaluate("after", loose, agent="json_answers:agent")
    gated = cli("gate", "--baseline", baseline, "--results", after)
    assert gated.exit_code == 1, gated.output
    assert "FAIL case json expects less than in the baseline (assertion schema changed" in (
        gated.output
    )
    assert "and passes more often (0/1 -> 1/1)" in gated.output


@pytest.mark.slow  # a real git repository
def test_a_schema_edited_with_no_rise_is_noted(project: Path) -> None:
    case = {"id": "json", "question": FIRST["question"], "schema": {"type": "object"}}
    baseline = baseline_of(evaluate("before", case, agent="json_answers:agent"))
    stricter = {**case, "schema": {"type": "object", "required": ["answer"]}}
    after = evaluate("after", stricter, agent="json_answers:agent")
    gated = cli("gate", "--baseline", baseline, "--results", after)
    assert "note case json expects otherwise than in the baseline (assertion schema" in (
        gated.output
    )


@pytest.mark.slow  # a real git repository
def test_a_case_newly_opted_out_of_cost_fails_the_gate(project: Path) -> None:
    baseline = baseline_of(evaluate("before", FIRST))
    after = evaluate("after", {**FIRST, "cost": False})
    gated = cli("gate", "--baseline", baseline, "--results", after)
    assert gated.exit_code == 1, gated.output
    assert (
        "FAIL case rag-basics expects less than in the baseline (cost counted -> opted out "
        '("cost": false))' in gated.output
    )


@pytest.mark.parametrize(
    ("before", "after", "weaker"),
    [
        ((["a", "bee"], None), (["a", "bee"], {"bee": ["wasp"]}), True),  # a form added
        ((["a", "b"], None), (["a"], None), True),  # a term dropped
        ((["a", "bee"], {"bee": ["wasp"]}), (["a", "bee"], {"bee": ["wasp", "ant"]}), True),
        ((["a", "b"], None), (["a", "b"], {"b": ["B"]}), False),  # the same word, any case
        ((["external corpus"], None), (["External  Corpus"], None), False),  # the same
        ((["Paris, France"], None), (["Paris, France", "Paris"], None), False),  # implied
        ((["a", "retrieval"], {"retrieval": ["RAG"]}), (["a", "retrieval"], None), False),
        ((["external corpus", "retrieval"], None), (["corpus", "retrieval"], None), True),
        ((["Paris, France"], None), (["paris"], None), True),  # a part of it, any case
        ((["Paris"], None), (["Paris, France"], None), False),  # more of it: stricter
        ((["a"], {"a": ["the  Eiffel tower"]}), (["a"], {"a": ["eiffel"]}), True),
        ((["Paris", "Lyon"], None), (["Par"], None), True),
        ((["a"], None), (["a", "b"], {"b": ["B"]}), False),  # a term added
        ((["a"], None), (["c"], None), False),  # another term: otherwise, not less
        (
            (["a; also accepted: {}"], None),
            (["a; also accepted: {}"], {"a; also accepted: {}": ["x"]}),
            True,
        ),
    ],
)
def test_contains_weaker_reads_the_descriptions_it_wrote(
    before: tuple[list[str], dict[str, list[str]] | None],
    after: tuple[list[str], dict[str, list[str]] | None],
    weaker: bool,
) -> None:
    assert contains_weaker(contains_description(*before), contains_description(*after)) is weaker


def test_a_description_not_written_by_contains_description_is_never_weaker() -> None:
    assert not contains_weaker("the text mentions each of 'a'", "hand-written")
    assert not contains_weaker("the text mentions each of 'a', __import__('os')", "x")
