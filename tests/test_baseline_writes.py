"""``baseline update`` replaces the baseline in one step: a write that fails half way (a
full disk, a file size limit) leaves the old baseline whole, its history of reasons too."""

from __future__ import annotations

import json
import multiprocessing
import resource
import signal
import sys
import warnings
from dataclasses import replace
from multiprocessing.connection import Connection
from pathlib import Path

import pytest

from replaygate.evals import (
    EvalResults,
    load_eval_cases,
    load_eval_results,
    run_eval,
    update_baseline,
)
from replaygate.evals.errors import BaselineError
from replaygate.examples.research_copilot import copilot, shipped_eval_cases, shipped_fixtures
from replaygate.sampling.advice import SamplingWarning

pytestmark = [
    pytest.mark.slow,  # a process with a file size limit
    pytest.mark.filterwarnings("ignore::replaygate.sampling.advice.SamplingWarning"),
]


def _update_under_a_limit(baseline: Path, results: Path, said: Connection) -> None:
    """``baseline update`` in a process whose files may grow to 1024 bytes: exit status 3,
    the error's number and file name sent on ``said``, when the write fails (EFBIG)."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))
    try:
        update_baseline(baseline, load_eval_results(results), reason="second")
    except OSError as err:
        said.send((err.errno, err.filename))
        sys.exit(3)


def test_a_write_that_fails_half_way_leaves_the_old_baseline(tmp_path: Path) -> None:
    cases = [replace(case, samples=1, floor=1) for case in load_eval_cases(shipped_eval_cases())]
    results = run_eval(cases, shipped_fixtures(), agent=copilot).write(tmp_path / "results.json")
    baseline = tmp_path / "baseline.json"
    update_baseline(baseline, run_eval(cases, shipped_fixtures(), agent=copilot), reason="first")
    before = baseline.read_bytes()
    assert len(before) > 1024
    # the limit is the process's: a child forked from this one, which imported replaygate
    heard, said = multiprocessing.Pipe(duplex=False)
    limited = multiprocessing.get_context("fork").Process(
        target=_update_under_a_limit, args=(baseline, results, said)
    )
    limited.start()
    limited.join(60)
    assert limited.exitcode == 3
    assert str(heard.recv()[1]) == str(baseline)  # the error names the baseline
    assert baseline.read_bytes() == before
    assert [e["reason"] for e in json.loads(before)["history"]] == ["first"]
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


@pytest.fixture(scope="module")
def one_case_results() -> EvalResults:
    """The results of one shipped case sampled once."""
    cases = [replace(case, samples=1, floor=1) for case in load_eval_cases(shipped_eval_cases())]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SamplingWarning)  # one sample: told, not the point
        return run_eval(cases[:1], shipped_fixtures(), agent=copilot)


@pytest.mark.parametrize(
    ("model", "named"),
    [
        ("m\udcff", "source.model: holds \\udcff, half of a surrogate pair"),
        (float("nan"), "source.model: NaN is not a number JSON can hold"),
        ({1}, "source.model: Object of type set is not JSON serializable"),
    ],
)
def test_a_baseline_its_reader_would_refuse_is_not_written(
    tmp_path: Path, model: object, named: str, one_case_results: EvalResults
) -> None:
    # A run's model that is no JSON or not Unicode text (given to run_eval's agent by the
    # caller) made a baseline load_baseline refused, in place of the old one and its history
    results = one_case_results
    baseline = tmp_path / "baseline.json"
    update_baseline(baseline, results, reason="first")
    before = baseline.read_bytes()
    hostile = replace(results, info={**results.info, "model": model})
    with pytest.raises(BaselineError) as refused:
        update_baseline(baseline, hostile, reason="second")
    assert str(refused.value).startswith(f"{baseline}: not written: the baseline: ")
    assert named in str(refused.value)
    assert baseline.read_bytes() == before
