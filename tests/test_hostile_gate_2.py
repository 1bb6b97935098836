"""The gate refuses to compare the baseline with itself.

``gate --results evals/baseline.json`` (the baseline where the run's results belong), or
``--results`` and ``--baseline`` naming one file, compared a file with itself and
passed, whatever the run gave: a CI step with that slip was green for ever. ``report
--results`` drew the same gate.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from replaygate.evals import History, update_baseline
from run_cli import replaygate
from test_history import run


@pytest.fixture
def project(tmp_path: Path) -> Path:
    update_baseline(tmp_path / "baseline.json", run("2026-11-30T00:00:00Z", 5), reason="first")
    run("2026-12-01T00:00:00Z", 0).write(tmp_path / "results.json")  # every sample failed
    with History.open(tmp_path / "history.db") as history:
        history.append(run("2026-12-01T00:00:00Z", 0))
    return tmp_path


GATE = ("gate", "--baseline", "baseline.json", "--results")
REPORT = ("report", "--history", "history.db", "--baseline", "baseline.json", "--results")


@pytest.mark.parametrize("command", [GATE, REPORT], ids=["gate", "report"])
def test_the_baseline_given_as_the_results_is_refused(project: Path, command: tuple[str]) -> None:
    done = replaygate(*command, "baseline.json", cwd=project)
    assert done.returncode == 2, done
    assert done.stderr.startswith("Error: baseline.json: is a baseline, not the results of a run")


def test_one_results_file_as_both_sides_is_refused(project: Path) -> None:
    done = replaygate(
        "gate", "--baseline", "results.json", "--results", "results.json", cwd=project
    )
    assert done.returncode == 2, done
    assert done.stderr.startswith(
        "Error: results.json: is also the baseline: a file compared with itself passes"
    )


def test_the_run_against_its_baseline_still_fails_as_it_should(project: Path) -> None:
    done = replaygate(*GATE, "results.json", cwd=project)
    assert done.returncode == 1, done
    assert "gate: FAIL" in done.stdout
