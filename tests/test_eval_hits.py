"""``replaygate eval`` logs the fixtures it replays, as a test session does: patrol counts
them played, and ``prune --unused`` leaves the eval's store, with ``--jobs`` too, and
however many test sessions ran since."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from replaygate.examples.research_copilot import shipped_eval_cases, shipped_fixtures
from replaygate.fixtures import hits
from run_cli import replaygate

PYPROJECT = """\
[tool.replaygate]
agent = "replaygate.examples.research_copilot:copilot"
cases = "evals/cases.jsonl"
fixtures = "evals/fixtures.jsonl"
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The quick start's project: the shipped cases and their fixtures, every sample."""
    (tmp_path / "evals").mkdir()
    shutil.copy(shipped_eval_cases(), tmp_path / "evals" / "cases.jsonl")
    shutil.copy(shipped_fixtures(), tmp_path / "evals" / "fixtures.jsonl")
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    return tmp_path


def later_test_sessions(project: Path, count: int) -> None:
    """``count`` test sessions that each replay one fixture of another store."""
    for n in range(count):
        log = hits.HitLog(project / hits.DEFAULT_DIR, f"29991231T00000{n}Z-aaaa", project)
        log.note(project / "tests" / "fixtures" / "other.jsonl", "0123456789ab")
        log.flush()


def unplayed(project: Path) -> int:
    done = replaygate("patrol", "evals", "--json", cwd=project)
    assert done.returncode == 0, done.stderr
    return int(json.loads(done.stdout)["summary"]["unplayed"])


@pytest.mark.parametrize("jobs", ["1", pytest.param("2", marks=pytest.mark.slow)])
def test_what_an_eval_replays_is_played_and_never_pruned(project: Path, jobs: str) -> None:
    store = project / "evals" / "fixtures.jsonl"
    before = store.read_bytes()
    done = replaygate("eval", "--no-history", "--jobs", jobs, cwd=project)
    assert done.returncode == 0, done.stderr
    logged = list(hits.read_hits(project / hits.DEFAULT_DIR))
    assert {h.runner for h in logged} == {"eval"} and len({h.run for h in logged}) == 1
    assert {h.store for h in logged} == {"evals/fixtures.jsonl"}
    assert unplayed(project) == 0
    later_test_sessions(project, 5)  # newer than the eval: the last 5 runs are all test sessions
    assert unplayed(project) == 0
    done = replaygate("prune", "--unused", "evals", "--yes", cwd=project)
    assert done.returncode == 0, done.stderr
    assert store.read_bytes() == before
    assert not (project / "evals" / "fixtures.jsonl.bak").exists()


@pytest.mark.slow  # the eval runner's whole flow
def test_an_eval_logs_to_the_folder_the_project_names(project: Path) -> None:
    # It wrote .replaygate/hits whatever the project said: a checkout that cannot be
    # written in failed every run, and patrol read another folder than the one it names.
    elsewhere = project.with_name(f"{project.name}-hits")  # absolute: taken as it is
    with (project / "pyproject.toml").open("a", encoding="utf-8") as config:
        config.write(f"hits = {json.dumps(str(elsewhere))}\n")
    done = replaygate("eval", "--no-history", cwd=project)
    assert done.returncode == 0, done.stderr
    assert {h.runner for h in hits.read_hits(elsewhere)} == {"eval"}
    assert not (project / ".replaygate" / "hits").exists()
    assert unplayed(project) == 0


def test_many_evals_leave_the_test_sessions_runs(tmp_path: Path) -> None:
    folder = tmp_path / hits.DEFAULT_DIR
    later_test_sessions(tmp_path, 3)
    for n in range(4):  # newer than the test sessions
        log = hits.HitLog(folder, f"29991231T00001{n}Z-bbbb", tmp_path, runner="eval")
        log.note(tmp_path / "evals" / "fixtures.jsonl", "0123456789ab")
        log.flush()
    assert hits.trim(folder, keep_runs=2) == 3
    kept = {(h.runner, h.run) for h in hits.read_hits(folder)}
    assert sorted(kept) == [
        ("eval", "29991231T000012Z-bbbb"),
        ("eval", "29991231T000013Z-bbbb"),
        ("pytest", "29991231T000001Z-aaaa"),
        ("pytest", "29991231T000002Z-aaaa"),
    ]


def test_a_file_where_the_hits_log_goes_is_named_before_the_eval_runs(project: Path) -> None:
    (project / "pyproject.toml").unlink()  # whose [tool.replaygate] would refuse it as read
    (project / hits.DEFAULT_DIR).parent.mkdir()
    (project / hits.DEFAULT_DIR).write_text("")
    done = replaygate("eval", "--agent", "replaygate.examples.research_copilot:copilot",
                      "--cases", "evals/cases.jsonl", "--fixtures", "evals/fixtures.jsonl",
                      "--no-history", "--out", "results.json", cwd=project)  # fmt: skip
    assert done.returncode == 2
    assert done.stderr == (
        f"Error: {project / hits.DEFAULT_DIR}: is not a folder, where replaygate logs the "
        "fixtures each run replays (patrol and prune read them): move it aside, or set hits "
        "in [tool.replaygate] of pyproject.toml to a folder that can be written\n"
    )
    assert not (project / "results.json").exists()


@pytest.mark.slow  # the eval runner's whole flow
def test_a_hits_log_that_cannot_be_written_leaves_the_run_s_results(project: Path) -> None:
    (project / "pyproject.toml").unlink()  # whose [tool.replaygate] would refuse it as read
    (project / hits.DEFAULT_DIR).parent.write_text("")  # .replaygate: a file, no folder in it
    done = replaygate("eval", "--agent", "replaygate.examples.research_copilot:copilot",
                      "--cases", "evals/cases.jsonl", "--fixtures", "evals/fixtures.jsonl",
                      "--out", "results.json", "--history", "history.db", cwd=project)  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert json.loads((project / "results.json").read_text())["cases"]
    assert "history: run " in done.stdout
    assert "results: results.json" in done.stdout
    assert done.stderr.endswith(
        f"Error: cannot write the hits log ({project / hits.DEFAULT_DIR}: not a directory): "
        "the run's results stand; patrol and prune would take what it played for unused "
        "(set hits in [tool.replaygate] of pyproject.toml to a folder that can be written)\n"
    ), done.stderr


@pytest.mark.slow  # the eval runner's whole flow
def test_the_eval_s_store_is_not_pruned_while_no_eval_run_is_logged(project: Path) -> None:
    # test sessions only: the eval's store was offered whole, and --yes deleted it
    store = project / "evals" / "fixtures.jsonl"
    before = store.read_bytes()
    later_test_sessions(project, 2)
    done = replaygate("prune", "--unused", "evals", "--yes", cwd=project)
    assert done.returncode == 2, done.stdout
    assert "no eval run in the hits log at .replaygate/hits, only 2 test session(s)" in (
        done.stderr
    )
    assert "of the eval's store evals/fixtures.jsonl ([tool.replaygate] fixtures)" in done.stderr
    assert store.read_bytes() == before
    assert replaygate("eval", "--no-history", cwd=project).returncode == 0
    assert replaygate("prune", "--unused", "evals", cwd=project).returncode == 0


@pytest.mark.slow  # the eval runner's whole flow
def test_prune_reads_the_eval_settings_only_for_a_store_no_logged_eval_run_played(
    project: Path,
) -> None:
    # an eval setting prune has no use for (a cap that is no number) failed every prune;
    # prune reads the settings to find the eval's stores, which it protects only while no
    # logged eval run played them: here the logged eval played its store, so none are read
    assert replaygate("eval", "--no-history", cwd=project).returncode == 0
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + 'max_cost = "lots"\n')
    done = replaygate("prune", "--unused", "evals", cwd=project)
    assert done.returncode == 0, done.stderr
    assert "nothing to prune" in done.stdout
