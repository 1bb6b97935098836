"""A results output named over a hits log or an observation queue is refused, and the
file kept.

``eval --out``, ``eval merge --out``, ``history export --out`` and ``baseline update``
replaced either with their document: the fixtures the plugin logged as replayed, which
``patrol`` reads, or the sampled cases waiting for review, were lost with exit status 0.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate.cli import main
from replaygate.sampling.queue import Observation, append_observation
from test_eval_outputs import assert_refused_before_running, project, run

pytestmark = pytest.mark.slow  # each test: a real git repository

__all__ = ["project"]  # the fixture, for pytest

HELD = {
    "hits.jsonl": "a hits log (the fixtures the pytest plugin replayed, which patrol reads)",
    "observe.jsonl": "an observation queue (the sampled cases waiting for review)",
}


@pytest.fixture
def line_files(project: Path) -> dict[Path, bytes]:
    """A hits log and an observation queue in the project, as their writers leave them."""
    (project / "hits.jsonl").write_text('{"run": "r1", "store": "rc.jsonl", "key": "abc"}\n')
    entry = Observation("rag-basics", 3, 5, 4, (), "2026-12-01T00:00:00Z")
    append_observation(project / "observe.jsonl", entry)
    return {project / name: (project / name).read_bytes() for name in HELD}


@pytest.mark.parametrize("name", list(HELD))
def test_eval_out_over_a_line_file_is_refused_before_the_eval(
    line_files: dict[Path, bytes], name: str
) -> None:
    for args in (["--no-history", "--out", name], ["--history", "h.db", "--out", name]):
        assert_refused_before_running(
            run(*args),
            f"{name}: holds {HELD[name]}: writing the output there would replace it; choose "
            "another file (nothing was written)",
        )
    assert {p: p.read_bytes() for p in line_files} == line_files


@pytest.mark.parametrize("name", list(HELD))
def test_the_other_results_outputs_over_a_line_file_are_refused(
    line_files: dict[Path, bytes], name: str
) -> None:
    assert run("--history", "h.db", "--out", "results.json").exit_code == 0
    assert run("--shard", "1/1", "--out", "shard.json").exit_code == 0
    for args in (
        ["eval", "merge", "shard.json", "--no-history", "--out", name],
        ["history", "export", "--history", "h.db", "--out", name],
        ["baseline", "update", "--results", "results.json", "--baseline", name, "--reason", "r"],
    ):
        done = CliRunner().invoke(main, args)
        assert done.exit_code == 2, done.output
        assert f"Error: {name}: holds {HELD[name]}: writing the output" in done.output, args
    assert {p: p.read_bytes() for p in line_files} == line_files
