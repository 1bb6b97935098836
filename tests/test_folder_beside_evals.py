"""Folder commands on a folder keeping the eval files beside its store (docs/evals.md).

The cases, the baseline, results and a history export are replaygate's files but not
fixtures: ``verify``, ``patrol`` and ``compact`` pass over them and name them in one
note. A damaged fixture file beside them is still reported (by compact too, for a
``.jsonl`` file: it folds nothing else), as is an eval file named as the store itself.
The eval quick start is recorded and run through the command line first: a whole flow,
so the module runs in ``make test``, not in the inner loop.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from replaygate.examples.research_copilot import shipped_eval_cases
from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.store import FixtureStore
from run_cli import replaygate

pytestmark = pytest.mark.slow

CONFIG = """\
[tool.replaygate]
agent = "replaygate.examples.research_copilot:copilot"
cases = "evals/cases.jsonl"
fixtures = "evals/fixtures.jsonl"
"""
NOTE = (
    "note: not fixture files, passed over: evals/baseline.json (replaygate.eval.baseline), "
    "evals/cases.jsonl (eval cases), evals/history.json (replaygate.history), "
    "evals/results.json (replaygate.sampling.results)\n"
)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The quick start of docs/evals.md, its results and history export kept in evals/."""
    root = tmp_path_factory.mktemp("quick-start")
    (root / "pyproject.toml").write_text(CONFIG, encoding="utf-8")
    (root / "evals").mkdir()
    lines = shipped_eval_cases().read_text(encoding="utf-8").splitlines(keepends=True)
    (root / "evals" / "cases.jsonl").write_text("".join(lines[:2]), encoding="utf-8")
    history = ("--history", ".replaygate/history.db")
    for args in [
        ("eval", "--record-mode", "record-missing", "--approve-live", "--simulator",
         "--no-history", "--no-progress"),
        ("eval", "--out", "evals/results.json", "--no-progress", *history),
        ("baseline", "update", "--results", "evals/results.json",
         "--baseline", "evals/baseline.json", "--reason", "first baseline"),
        ("history", "export", "--out", "evals/history.json", *history),
    ]:  # fmt: skip
        done = replaygate(*args, cwd=root)
        assert done.returncode == 0, done.stderr
    return root


@pytest.fixture
def project(recorded: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(recorded, tmp_path / "project"))


def test_verify_checks_the_store_and_names_the_eval_files_it_passed_over(project: Path) -> None:
    alone = replaygate("verify", "evals/fixtures.jsonl", cwd=project)
    assert alone.returncode == 0, alone.stdout
    done = replaygate("verify", "evals", cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout == alone.stdout  # the same fixtures, 0 problem(s)
    assert done.stderr == NOTE


def test_patrol_lists_only_the_stores_fixtures(project: Path) -> None:
    done = replaygate("patrol", "evals", "--json", cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stderr == NOTE
    files = {row["fixture"].rsplit(":", 1)[0] for row in json.loads(done.stdout)["fixtures"]}
    assert files == {"evals/fixtures.jsonl"}


def test_compact_folds_the_store_and_leaves_the_eval_files_alone(project: Path) -> None:
    evals = project / "evals"
    before = {f.name: f.read_bytes() for f in evals.iterdir() if f.name != "fixtures.jsonl"}
    done = replaygate("compact", "evals", cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stderr == NOTE
    assert done.stdout.startswith("evals/fixtures.jsonl: folded ")
    assert {f.name: f.read_bytes() for f in evals.iterdir() if f.name in before} == before
    assert replaygate("verify", "evals", cwd=project).returncode == 0


@pytest.mark.parametrize(
    ("name", "content", "problem"),
    [
        ("extra.jsonl", '{"key": "abc", "request": \n', "evals/extra.jsonl:1: malformed JSON"),
        ("extra.jsonl", '{"id": "x", "question": "q?"}\n', "evals/extra.jsonl:1: not a fixture"),
        ("extra.json", '{"format": "other", "version": 1}\n', "evals/extra.json: not a fixture"),
    ],
)
def test_a_damaged_fixture_file_beside_them_is_still_reported(
    project: Path, name: str, content: str, problem: str
) -> None:
    (project / "evals" / name).write_text(content, encoding="utf-8")
    verified = replaygate("verify", "evals", cwd=project)
    assert verified.returncode == 1, verified.stdout
    assert problem in verified.stdout
    assert verified.stderr == NOTE
    for command in ("patrol", "compact") if name.endswith(".jsonl") else ("patrol",):
        done = replaygate(command, "evals", cwd=project)
        assert done.returncode == 2, (command, done.stdout)
        assert f"evals/{name}" in done.stderr


def test_an_eval_file_named_as_the_store_is_still_read_as_one(project: Path) -> None:
    done = replaygate("verify", "evals/cases.jsonl", cwd=project)
    assert done.returncode == 1
    assert (
        "evals/cases.jsonl:1: not a fixture: none of its fields ('expected_doc_ids'" in done.stdout
    )
    assert done.stderr == ""


def test_a_folder_store_replays_with_a_baseline_kept_in_it(project: Path, tmp_path: Path) -> None:
    folder = tmp_path / "store"
    request = {"model": "m", "max_tokens": 9, "messages": [{"role": "user", "content": "hi"}]}
    fixture = Fixture.create(request, [{"text": "hello"}], {"source": "hand"})
    with FixtureStore.open(folder) as store:
        store.put(fixture)
        shutil.copy(project / "evals" / "baseline.json", folder)
        shutil.copy(project / "evals" / "cases.jsonl", folder)
        store.refresh()  # the files that appeared since the last scan
        assert [store.read(loc).key for loc in store.locations()] == [fixture.key]
    with FixtureStore.open(folder) as reopened:
        found = reopened.lookup(request)
        assert found is not None and found.key == fixture.key


def test_a_new_baseline_changes_neither_the_checksum_nor_the_diff(project: Path) -> None:
    for args in [("init", "-q"), ("add", "evals"), ("commit", "-q", "-m", "evals")]:
        subprocess.run(
            ["git", "-c", "user.name=T", "-c", "user.email=t@example.com", *args],
            cwd=project, check=True, capture_output=True,
        )  # fmt: skip
    before = replaygate("checksum", "evals", cwd=project)
    assert before.returncode == 0 and before.stderr == NOTE
    cases = project / "evals" / "cases.jsonl"
    cases.write_text(cases.read_text(encoding="utf-8").replace('"floor": 4', '"floor": 3'))
    update = ["baseline", "update", "--results", "evals/results.json", "--reason", "floor 3"]
    updated = replaygate(*update, "--baseline", "evals/baseline.json", cwd=project)
    assert updated.returncode == 0, updated.stderr
    assert replaygate("checksum", "evals", cwd=project).stdout == before.stdout
    reviewed = replaygate("diff", "evals", "--json", cwd=project)
    assert reviewed.returncode == 0, reviewed.stderr
    document = json.loads(reviewed.stdout)
    assert (document["added"], document["removed"]) == ([], [])
