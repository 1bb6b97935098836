"""An eval of a fixture store whose file name is not UTF-8: the results file and the history
keep the name as its JSON escapes (``caf\\udce9.jsonl``) and give back the same name; a run
the history refuses is refused before the results file is written."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from replaygate.evals import EvalResults
from replaygate.evals.errors import HistoryError
from replaygate.evals.history import History
from replaygate.examples.research_copilot import shipped_eval_cases
from run_cli import Done, replaygate
from unplotted_reports import unplot

# Records an eval from the simulator into a store named in Latin-1, and runs it: end to end.
pytestmark = pytest.mark.slow

NAME = os.fsdecode(b"caf\xe9.jsonl")
CASES = os.fsdecode(b"cas\xe9s.jsonl")
ESCAPED = b'"fixtures": "caf\\udce9.jsonl"'
AGENT = ["--agent", "replaygate.examples.research_copilot:copilot"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two of the shipped cases, in a file named in Latin-1, recorded from the simulator into
    a store named in Latin-1."""
    here = tmp_path_factory.mktemp("latin1")
    lines = shipped_eval_cases().read_text(encoding="utf-8").splitlines(keepends=True)
    (here / CASES).write_text("".join(lines[:2]), encoding="utf-8")
    recorded = _eval(here, "--record-mode", "record-missing", "--approve-live", "--simulator",
                     "--no-history")  # fmt: skip
    assert recorded.returncode == 0, recorded.stderr
    assert os.listdir(os.fsencode(here)).count(b"caf\xe9.jsonl") == 1
    return here


def _eval_args() -> list[str]:
    return ["eval", *AGENT, "--cases", CASES, "--fixtures", NAME]


def _eval(folder: Path, *args: str) -> Done:
    return replaygate(*_eval_args(), *args, cwd=folder)


def _run(folder: Path, *args: str) -> Done:
    done = replaygate(*args, cwd=folder)
    assert done.returncode == 0, done.stderr
    return done


def _runs(history: Path) -> list[dict[str, Any]]:
    with History.open(history, read_only=True) as opened:
        return [run.to_json() for run in opened.runs()]


def test_the_run_is_stored_with_the_name_results_hold(folder: Path) -> None:
    # The history refused the run (info.fixtures: holds \udce9 ...) after --out was written
    done = _eval(folder, "--out", "results.json", "--history", "history.db")
    assert done.returncode == 0, done.stderr

    results = (folder / "results.json").read_bytes()
    assert ESCAPED in results
    [run] = _runs(folder / "history.db")
    assert os.fsencode(run["info"]["fixtures"]) == b"caf\xe9.jsonl"
    assert run["info"]["fixtures"] == json.loads(results)["eval"]["fixtures"]

    _run(folder, "history", "export", "--history", "history.db", "--out", "runs.json")
    assert ESCAPED in (folder / "runs.json").read_bytes()
    _run(folder, "history", "merge", "runs.json", "--history", "merged.db")
    assert _runs(folder / "merged.db") == [run]


def test_the_results_are_gated_and_reported(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    unplot(monkeypatch)  # the page's words are checked
    _run(folder, *_eval_args(), "--out", "gated.json", "--history", "report.db")
    _run(folder, "baseline", "update", "--results", "gated.json", "--baseline", "base.json",
         "--reason", "first")  # fmt: skip
    assert os.fsencode(json.loads((folder / "base.json").read_bytes())["source"]["fixtures"]) == (
        b"caf\xe9.jsonl"
    )
    gate = _run(folder, "gate", "--results", "gated.json", "--baseline", "base.json")
    assert "PASS" in gate.stdout
    _run(folder, "report", "--history", "report.db", "--results", "gated.json",
         "--baseline", "base.json", "--fixtures", NAME, "--out", "report.html")  # fmt: skip
    [run] = _runs(folder / "report.db")
    assert f"run {run['id']} of the history" in (folder / "report.html").read_text("utf-8")


def test_shards_of_the_store_merge_into_the_history(folder: Path) -> None:
    # eval merge refused each shard: s1.json: eval.fixtures: holds \udce9 ...
    shards = [os.fsdecode(b"s\xe9%d.json" % index) for index in (1, 2)]
    for index, shard in enumerate(shards, 1):
        _run(folder, *_eval_args(), "--shard", f"{index}/2", "--out", shard)
    _run(folder, "eval", "merge", *shards, "--out", "merged.json", "--history", "shards.db")
    assert ESCAPED in (folder / "merged.json").read_bytes()
    [run] = _runs(folder / "shards.db")
    assert os.fsencode(run["info"]["fixtures"]) == b"caf\xe9.jsonl"
    assert os.fsencode(run["info"]["cases_file"]) == b"cas\xe9s.jsonl"
    assert [os.fsencode(s["file"]) for s in run["info"]["shards"]] == [
        b"s\xe91.json",
        b"s\xe92.json",
    ]


def test_a_run_the_history_refuses_writes_no_results(folder: Path) -> None:
    # Shards made where the clock was wrong: the merged run is later than now, which the
    # history refuses; --out was written all the same (a results file with no history
    # run) and --json printed the results of a run that was refused.
    for index in (1, 2):
        part = folder / f"late{index}.json"
        _run(folder, *_eval_args(), "--shard", f"{index}/2", "--out", part.name)
        document = json.loads(part.read_bytes())
        document["eval"]["time"] = "2099-01-01T00:00:00Z"
        part.write_text(json.dumps(document), encoding="utf-8")
    done = replaygate("eval", "merge", "late1.json", "late2.json", "--out", "late.json",
                      "--history", "late.db", "--json", cwd=folder)  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert "time: 2099-01-01T00:00:00Z is later than now" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (folder / "late.json").exists()
    assert not (folder / "late.db").exists() or _runs(folder / "late.db") == []


@pytest.mark.parametrize(
    ("info", "refused"),
    [
        ({"fixtures": "\ud800.jsonl"}, "info.fixtures: holds \\ud800"),  # no byte of a name
        ({"model": NAME}, "info.model: holds \\udce9"),  # no file name
    ],
    ids=["half a pair in a name", "a byte in another field"],
)
def test_half_a_pair_elsewhere_is_still_refused(
    tmp_path: Path, info: dict[str, str], refused: str
) -> None:
    with History.open(tmp_path / "h.db") as history, pytest.raises(HistoryError) as err:
        history.append(EvalResults((), info))
    assert refused in str(err.value)
    assert _runs(tmp_path / "h.db") == []
