"""``--json``: each data command prints one JSON document on stdout and nothing else."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from replaygate.examples.research_copilot import shipped_eval_cases
from replaygate.fixtures.store import FixtureStore
from replaygate.fixtures.store.compact import compact_file
from run_cli import Done, replaygate

# Its tests import the provider SDKs through replaygate (the example agent).

AGENT = "replaygate.examples.research_copilot:copilot"
SHIPPED = shipped_eval_cases().read_text(encoding="utf-8").splitlines()[:2]
CASES = [{**json.loads(line), "samples": 3, "floor": 2} for line in SHIPPED]
"""Two of the shipped eval cases, with fewer samples."""


def data(done: Done) -> Any:
    """The JSON document a command printed: the whole of stdout."""
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two eval cases recorded from the simulator, and their replayed results."""
    root = tmp_path_factory.mktemp("json")
    cases = root / "cases.jsonl"
    cases.write_text("".join(json.dumps(c) + "\n" for c in CASES), encoding="utf-8")
    common = ("eval", "--agent", AGENT, "--cases", str(cases), "--fixtures", str(root / "f.jsonl"))
    history = ("--history", str(root / "history.db"))
    recorded = replaygate(*common, *history, "--record-mode", "record-missing", "--approve-live",
                          "--simulator", "--out", str(root / "recorded.json"))  # fmt: skip
    assert recorded.returncode == 0, recorded.stderr
    replayed = replaygate(*common, *history, "--json", "--out", str(root / "results.json"))
    assert replayed.returncode == 0, replayed.stderr
    (root / "replayed.out").write_text(replayed.stdout, encoding="utf-8")
    (root / "replayed.err").write_text(replayed.stderr, encoding="utf-8")
    return root


def test_eval_prints_the_results_document_and_its_notes_on_stderr(project: Path) -> None:
    printed = json.loads((project / "replayed.out").read_text(encoding="utf-8"))
    written = json.loads((project / "results.json").read_text(encoding="utf-8"))
    assert printed["cases"] == written["cases"] and printed["format"] == written["format"]
    assert [c["case"] for c in printed["cases"]] == ["rag-basics", "rag-chinese"]
    notes = (project / "replayed.err").read_text(encoding="utf-8")
    assert "results: " in notes and "history: run " in notes


def test_gate_upgrade_and_baseline_update_print_json(project: Path) -> None:
    results, baseline = project / "results.json", project / "baseline.json"
    updated = data(replaygate("baseline", "update", "--results", str(results), "--baseline",
                              str(baseline), "--reason", "first baseline", "--json"))  # fmt: skip
    assert updated["baseline"] == str(baseline) and updated["reason"] == "first baseline"
    assert sorted(updated) == sorted(  # the shape docs/cli.md gives
        ["baseline", "created", "date", "reason", "commit", "dirty", "results", "changes",
         "cases_added", "cases_removed", "cases_changed", "digest"]
    )  # fmt: skip
    assert "success" in updated["changes"]
    gate = data(
        replaygate("gate", "--results", str(results), "--baseline", str(baseline), "--json")
    )
    assert gate["passed"] is True
    assert {row["metric"] for row in gate["rows"]} >= {"success"}
    upgrade = data(replaygate("upgrade", "--baseline", str(baseline), "--candidate", str(results),
                              "--json"))  # fmt: skip
    assert upgrade["failures"] == [] or all("case" in f for f in upgrade["failures"])


def test_history_export_prints_the_export_or_needs_a_destination(project: Path) -> None:
    exported = data(replaygate("history", "export", "--history", str(project / "history.db"),
                               "--json", "--last", "1"))  # fmt: skip
    assert exported["format"] == "replaygate.history" and len(exported["runs"]) == 1
    assert exported["runs"][0]["cases"]["rag-basics"]["answers"]
    for args in ((), ("--json", "--out", str(project / "x.json"))):
        done = replaygate("history", "export", "--history", str(project / "history.db"), *args)
        assert done.returncode == 2
        assert "give --out FILE or --json (one of them)" in done.stderr


def test_verify_checksum_and_drift_print_json(project: Path, tmp_path: Path) -> None:
    store = project / "f.jsonl"
    verified = data(replaygate("verify", str(store), "--json"))
    assert verified == {"path": str(store), "fixtures": len(FixtureStore.open(store)),
                        "problems": []}  # fmt: skip
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text(store.read_text(encoding="utf-8") + "{not json\n", encoding="utf-8")
    found = replaygate("verify", str(damaged), "--json")
    assert found.returncode == 1
    (problem,) = json.loads(found.stdout)["problems"]
    assert problem["file"] == str(damaged) and problem["line"] > 1 and not problem["refused"]
    digest = data(replaygate("checksum", str(store), "--json"))
    assert digest == {
        "path": str(store),
        "checksum": replaygate("checksum", str(store)).stdout.strip(),
    }
    drift = data(replaygate("drift", str(store), "--against", str(store), "--json"))
    assert drift["mode"] == "against" and drift["drift"] is False


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


@pytest.mark.slow  # a real git repository
def test_diff_prints_the_review_as_json(project: Path, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "tests" / "fixtures").mkdir(parents=True)
    store = repo / "tests" / "fixtures" / "f.jsonl"
    shutil.copyfile(project / "f.jsonl", store)
    compact_file(store)  # one line per fixture: the last line is a whole fixture
    lines = store.read_text(encoding="utf-8").splitlines(keepends=True)
    store.write_text("".join(lines[:-1]), encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "first")
    store.write_text("".join(lines), encoding="utf-8")
    review = data(replaygate("diff", "tests/fixtures", "--json", cwd=repo))
    assert review["base"].startswith("HEAD") and review["alarms"] == review["removed"] == []
    (added,) = review["added"]
    assert added["file"] == "tests/fixtures/f.jsonl" and added["line"] == len(lines)
