"""Replaygate's own files kept in a fixture folder are told apart after ordinary edits:
a baseline re-saved with sorted keys, a cases file whose first line is long."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from replaygate import Fixture, FixtureStore, Message, ModelResponse
from replaygate.examples.research_copilot import shipped_eval_cases
from replaygate.fixtures.fixture import make_meta
from replaygate.fixtures.store.folder import PEEK_BYTES, other_kind
from replaygate.models.providers import to_anthropic_request, to_anthropic_response
from run_cli import replaygate

BASELINE = {
    "format": "replaygate.eval.baseline",
    "version": 1,
    "source": "results.json",
    "cases": {f"case-{n}": {"pass_rate": 1.0, "notes": "x" * 2000} for n in range(40)},
    "metrics": {},
    "history": [],
}


def fixture(question: str) -> Fixture:
    request = to_anthropic_request([Message.user(question)], [], model="m", max_tokens=8)
    response = to_anthropic_response(ModelResponse(text="a"), model="m")
    return Fixture.create(request, [response], make_meta("anthropic.messages", "1", "hand"))


def evals_folder(root: Path) -> Path:
    root.mkdir()
    with FixtureStore.open(root / "fixtures.jsonl") as store:
        store.put(fixture("one"))
    # what pre-commit's pretty-format-json, `jq -S .` or json.dump(sort_keys=True) writes
    (root / "baseline.json").write_text(json.dumps(BASELINE, indent=4, sort_keys=True))
    (root / "results.json").write_text(json.dumps(BASELINE | {"format": "replaygate.x"}))
    lines = shipped_eval_cases().read_text(encoding="utf-8").splitlines()
    case = json.loads(lines[0])
    case["tags"] = [*case.get("tags", []), "x" * 70_000]  # a long context: over 64 KiB
    lines[0] = json.dumps(case)
    (root / "cases.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def test_a_sorted_baseline_and_a_long_first_case_are_still_told_apart(tmp_path: Path) -> None:
    root = evals_folder(tmp_path / "evals")
    assert (root / "baseline.json").stat().st_size > PEEK_BYTES
    assert other_kind(root / "baseline.json") == "replaygate.eval.baseline"
    assert other_kind(root / "results.json") == "replaygate.x"  # one line, over 64 KiB
    assert other_kind(root / "cases.jsonl") == "eval cases"
    assert other_kind(root / "fixtures.jsonl") is None
    done = replaygate("verify", str(root))
    assert done.returncode == 0, done.stdout
    assert "1 fixture(s) checked, 0 problem(s)" in done.stdout
    assert f"{root / 'baseline.json'} (replaygate.eval.baseline)" in done.stderr
    assert f"{root / 'cases.jsonl'} (eval cases)" in done.stderr
    with FixtureStore.open(root) as store:
        assert len(store) == 1


def test_a_pretty_fixture_file_or_a_damaged_document_is_still_a_fixture_file(
    tmp_path: Path,
) -> None:
    root = tmp_path / "store"
    root.mkdir()
    (root / "cafe.json").write_bytes(fixture("café " + "x" * 70_000).to_pretty())
    broken = '{\n  "cases": {},\n  "format": "replaygate.eval.baseline",\n  "history": [\n'
    (root / "broken.json").write_text(broken)
    assert other_kind(root / "cafe.json") is None
    assert other_kind(root / "broken.json") is None
    done = replaygate("verify", str(root))
    assert f"{root / 'broken.json'}: malformed JSON" in done.stdout


def test_a_simulator_script_beside_a_store_is_passed_over(tmp_path: Path) -> None:
    from replaygate.fixtures.store.folder import SCRIPT_FIELDS
    from replaygate.sim.behaviors import SCRIPT_FIELDS as READ

    assert frozenset(READ) == SCRIPT_FIELDS
    with FixtureStore.open(tmp_path / "rc.jsonl") as store:
        store.put(fixture("one"))
    script = tmp_path / "answers.jsonl"
    script.write_text(
        '{"tool_calls": [{"id": "t1", "name": "search", "arguments": {"q": "rag"}}]}\n'
        '{"text": "RAG is retrieval-augmented generation.", "stop_reason": "end_turn"}\n'
    )
    assert other_kind(script) == "simulator script"
    done = replaygate("verify", str(tmp_path))
    assert done.returncode == 0, done.stdout
    assert f"{script} (simulator script)" in done.stderr
    assert "1 fixture(s) checked, 0 problem(s)" in done.stdout


def test_a_store_with_a_long_first_line_is_told_from_its_first_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from replaygate.fixtures.store import folder

    store = tmp_path / "rc.jsonl"
    store.write_bytes(fixture("x" * 200_000).to_line() * 3)
    read: list[int] = []
    opened = folder.open_binary

    def counting(path: Path) -> Any:
        handle = opened(path)
        for name in ("read", "readline"):
            method = getattr(handle, name)

            def counted(*args: Any, _method: Any = method) -> bytes:
                data: bytes = _method(*args)
                read.append(len(data))
                return data

            setattr(handle, name, counted)
        return handle

    monkeypatch.setattr(folder, "open_binary", counting)
    assert other_kind(store) is None
    assert sum(read) == PEEK_BYTES
