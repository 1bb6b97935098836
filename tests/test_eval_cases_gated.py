"""An eval case that could never fail is refused before any call, naming the case.

A case whose every expectation is a signal passed every sample whatever the agent
answered (and counted as a success), as a check list left empty would; a signal naming
an expectation the case does not give observed nothing.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from replaygate.evals import load_eval_cases, run_eval
from replaygate.evals.cases import EvalCase
from replaygate.evals.errors import CaseFormatError
from replaygate.examples.research_copilot import copilot
from replaygate.examples.research_copilot.defaults import shipped_fixtures

pytestmark = pytest.mark.filterwarnings("ignore::replaygate.sampling.SamplingWarning")

OK = {"id": "ok", "question": "What is RAG?", "must_contain": ["RAG"], "samples": 1, "floor": 1}


def _cases(tmp_path: Path, odd: dict[str, object]) -> Path:
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in (OK, odd)), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        (
            {"must_contain": ["zzz"], "signals": ["contains"]},
            "every expectation is a signal (contains), so no sample can fail",
        ),
        (
            {"must_contain": ["zzz"], "expected_doc_ids": ["doc-x"],
             "signals": ["citations", "contains"]},
            "every expectation is a signal (contains, citations)",
        ),
        (
            {"must_contain": ["RAG"], "signals": ["citations"]},
            "signals names 'citations', but the case gives no expected_doc_ids",
        ),
        (
            {"expected_doc_ids": ["doc-rag"], "signals": ["schema"]},
            "signals names 'schema', but the case gives no schema",
        ),
    ],
)  # fmt: skip
def test_a_case_that_cannot_fail_is_refused_with_its_file_and_line(
    tmp_path: Path, fields: dict[str, object], reason: str
) -> None:
    path = _cases(tmp_path, {**OK, "id": "odd", **fields})
    store = tmp_path / "fixtures.jsonl"
    store.write_bytes(shipped_fixtures().read_bytes())
    with pytest.raises(CaseFormatError, match=re.escape(f"{path}:2: case 'odd': {reason}")):
        run_eval(load_eval_cases(path), store, agent=copilot)
    assert store.read_bytes() == shipped_fixtures().read_bytes()


def test_a_case_made_in_code_is_refused_by_its_id(tmp_path: Path) -> None:
    case = EvalCase("odd", "What is RAG?", 1, 1, must_contain=("zzz",), signals=("contains",))
    with pytest.raises(ValueError, match=r"^case 'odd': every expectation is a signal"):
        run_eval([case], shipped_fixtures(), agent=copilot)


def test_a_case_made_in_code_without_expectations_is_refused_saying_so() -> None:
    case = EvalCase("bare", "What is RAG?", 1, 1)
    with pytest.raises(
        ValueError,
        match=r"^case 'bare': gives no expectation: give must_contain, expected_doc_ids or schema$",
    ):
        run_eval([case], shipped_fixtures(), agent=copilot)


def test_a_case_made_in_code_with_an_unknown_signal_name_is_refused_by_its_id() -> None:
    case = EvalCase("typo", "What is RAG?", 1, 1, must_contain=("a",), signals=("contain",))
    with pytest.raises(
        ValueError,
        match=re.escape(
            "case 'typo': signals names 'contain', which is no expectation (contains, "
            "citations, schema)"
        ),
    ):
        run_eval([case], shipped_fixtures(), agent=copilot)


@pytest.mark.slow  # the eval runner's whole flow
def test_a_case_with_a_gate_beside_its_signals_runs(tmp_path: Path) -> None:
    case = EvalCase(
        "mixed", "What is RAG?", 1, 1, must_contain=("zzz",), expected_doc_ids=("doc-rag",),
        signals=("contains",),
    )  # fmt: skip
    (result,) = run_eval([case], shipped_fixtures(), agent=copilot).cases
    assert [(o.name, o.kind) for o in result.sampled.samples[0].outcomes] == [
        ("contains", "signal"), ("citations", "gate"),
    ]  # fmt: skip
