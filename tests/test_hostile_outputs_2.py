"""A report's output named over a file replaygate keeps is refused, before anything is sent.

``drift --report`` and ``--json-out`` wrote wherever they were told: over the fixture
store being compared (``drift rc.jsonl --against old.jsonl --report rc.jsonl``), the
baseline, the eval cases. ``report --out results.json``, a slip for ``--results``,
replaced the eval results with the HTML page.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from replaygate.examples.research_copilot import shipped_fixtures
from replaygate.sampling.results import FORMAT
from run_cli import replaygate
from test_hostile_outputs import BASELINE, CASE

RESULTS = f'{{\n  "format": "{FORMAT}",\n  "version": 1,\n  "cases": []\n}}\n'
HITS = '{"run": "r1", "store": "rc.jsonl", "key": "abc"}\n'
KEPT = {
    "rc.jsonl": "is the fixture set compared",
    "old.jsonl": "is the other fixture set",
    "evals/baseline.json": "holds a baseline",
    "evals/cases.jsonl": "holds eval cases",
    "results.json": "holds eval results",
    ".replaygate/hits/r1.jsonl": "holds a hits log",
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copy(shipped_fixtures(), tmp_path / "rc.jsonl")
    shutil.copy(shipped_fixtures(), tmp_path / "old.jsonl")
    for name, text in [
        ("evals/baseline.json", BASELINE),
        ("evals/cases.jsonl", CASE),
        ("results.json", RESULTS),
        (".replaygate/hits/r1.jsonl", HITS),
    ]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def _files(folder: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize("option", ["--report", "--json-out"])
@pytest.mark.parametrize("name", list(KEPT))
def test_a_drift_report_over_a_kept_file_is_refused(project: Path, option: str, name: str) -> None:
    before = _files(project)
    done = replaygate("drift", "rc.jsonl", "--against", "old.jsonl", option, name, cwd=project)
    assert done.returncode == 2, done
    assert done.stderr.startswith(f"Error: {name}: {KEPT[name]}"), done.stderr
    assert "writing the output there would replace it" in done.stderr
    assert done.stdout == ""  # refused before the comparison
    assert _files(project) == before


def test_a_drift_report_is_written_and_written_again(project: Path) -> None:
    for _ in range(2):
        done = replaygate(
            "drift", "rc.jsonl", "--against", "old.jsonl", "--report", "drift.txt",
            "--json-out", "drift.json", cwd=project,
        )  # fmt: skip
        assert done.returncode == 0, done
    assert (project / "drift.txt").read_text().startswith("drift: rc.jsonl vs old.jsonl")


@pytest.mark.parametrize(("name", "what"), [("results.json", "eval results")])
def test_the_html_report_over_eval_results_is_refused(project: Path, name: str, what: str) -> None:
    before = _files(project)
    done = replaygate("report", "--out", name, "--history", "none.db", cwd=project)
    assert done.returncode == 2, done
    assert f"Error: {name}: holds {what}: writing the output there would replace it" in (
        done.stderr
    )
    assert _files(project) == before
