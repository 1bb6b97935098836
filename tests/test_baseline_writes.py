"""``baseline update`` replaces the baseline in one step: a write that fails half way (a
full disk, a file size limit) leaves the old baseline whole, its history of reasons too."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from replaygate.evals import load_eval_cases, run_eval, update_baseline
from replaygate.examples.research_copilot import copilot, shipped_eval_cases, shipped_fixtures

pytestmark = [
    pytest.mark.slow,  # a process with a file size limit
    pytest.mark.filterwarnings("ignore::replaygate.sampling.advice.SamplingWarning"),
]

UPDATE_UNDER_A_LIMIT = """
import resource, signal, sys
from replaygate.evals import load_eval_results, update_baseline
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG)
resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))
try:
    update_baseline(sys.argv[1], load_eval_results(sys.argv[2]), reason="second")
except OSError as err:
    print(err.errno, err.filename)
    sys.exit(3)
"""


def test_a_write_that_fails_half_way_leaves_the_old_baseline(tmp_path: Path) -> None:
    cases = [replace(case, samples=1, floor=1) for case in load_eval_cases(shipped_eval_cases())]
    results = run_eval(cases, shipped_fixtures(), agent=copilot).write(tmp_path / "results.json")
    baseline = tmp_path / "baseline.json"
    update_baseline(baseline, run_eval(cases, shipped_fixtures(), agent=copilot), reason="first")
    before = baseline.read_bytes()
    assert len(before) > 1024
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(UPDATE_UNDER_A_LIMIT), str(baseline), str(results)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 3, done.stdout + done.stderr
    assert done.stdout.split()[1] == str(baseline)  # the error names the baseline
    assert baseline.read_bytes() == before
    assert [e["reason"] for e in json.loads(before)["history"]] == ["first"]
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
