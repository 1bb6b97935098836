"""``ci plan``: each change class runs the right stages; a changed fixture runs only the
tests that played it (from the hits log); ``--base`` works on a real git repository;
the documented GitHub Actions workflow is well-formed."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from replaygate.ci import FixtureUsers, changed_keys, glob_match, make_plan
from replaygate.ci.fixture_users import node_to_run
from replaygate.cli import main
from replaygate.cli.ci_cmd import ci_group
from replaygate.evals import load_config
from replaygate.evals.errors import EvalError
from replaygate.hygiene.errors import HygieneError
from replaygate.hygiene.gitrev import Repo

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / "docs" / "examples" / "github-workflow.yml"

PYPROJECT = """\
[project]
name = "app"

[tool.replaygate.ci]
hits = ".replaygate/hits"
unclassified = ["full"]

[[tool.replaygate.ci.stages]]
name = "parse"
when = "every-commit"
targets = ["tests/parse"]
mock = "none"

[[tool.replaygate.ci.stages]]
name = "orchestration"
when = "every-commit"
targets = ["tests/orchestration"]
mock = "rule-based"

[[tool.replaygate.ci.stages]]
name = "semantic"
when = "pull-request"
targets = ["tests/semantic"]
markers = "sampled"
samples = 5

[[tool.replaygate.ci.stages]]
name = "model"
when = "every-commit"
targets = ["tests/model"]

[[tool.replaygate.ci.stages]]
name = "e2e-smoke"
when = "merge-to-main"
targets = ["tests/e2e"]
mock = "live"

[[tool.replaygate.ci.stages]]
name = "full"
when = "pull-request"
targets = ["tests"]

[[tool.replaygate.ci.changes]]
name = "parse"
paths = ["src/app/parse/**", "src/app/render/**"]
stages = ["parse", "orchestration"]

[[tool.replaygate.ci.changes]]
name = "orchestration"
paths = ["src/app/agent/**", "prompts/**"]
stages = ["orchestration", "semantic"]

[[tool.replaygate.ci.changes]]
name = "model-interface"
paths = ["src/app/client/**"]
stages = ["model", "e2e-smoke"]

[[tool.replaygate.ci.changes]]
name = "dependencies"
paths = ["pyproject.toml", "requirements*.txt", "uv.lock"]
stages = ["full", "e2e-smoke"]

[[tool.replaygate.ci.changes]]
name = "fixtures"
paths = ["tests/fixtures/**"]
stages = ["model"]

[[tool.replaygate.ci.changes]]
name = "docs"
paths = ["docs/**", "*.md"]
stages = []
"""


RUN = "20261201T000000Z-ab12"
"""A run's id, as the hits log names its files."""


def fixture_line(key: str, question: str, answer: str) -> str:
    request = {"messages": [{"content": question, "role": "user"}], "model": "m"}
    return json.dumps({"key": key, "request": request, "response": {"text": answer}})


def hits_line(store: str, key: str, test: str) -> str:
    return json.dumps(
        {"run": "r1", "time": "2026-11-30T00:00:00Z", "store": store, "key": key, "test": test}
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    fixtures = tmp_path / "tests" / "fixtures"
    fixtures.mkdir(parents=True)
    (fixtures / "rag.jsonl").write_text(
        fixture_line("k1", "What is RAG?", "RAG is ...")
        + "\n"
        + fixture_line("k2", "What is a floor?", "A floor is ...")
        + "\n",
        encoding="utf-8",
    )
    (fixtures / "unused.jsonl").write_text(fixture_line("k9", "?", "!") + "\n", encoding="utf-8")
    (tmp_path / "tests" / "test_rag.py").write_text("def test_answer(): ...\n", "utf-8")
    floor = "@pytest.mark.parametrize('n', [5])\ndef test_floor(n): ...\n"
    (tmp_path / "tests" / "test_floor.py").write_text(f"import pytest\n{floor}", "utf-8")
    hits = tmp_path / ".replaygate" / "hits"
    hits.mkdir(parents=True)
    (hits / "r1-1.jsonl").write_text(
        hits_line("tests/fixtures/rag.jsonl", "k1", "tests/test_rag.py::test_answer")
        + "\n"
        + hits_line(str(fixtures / "rag.jsonl"), "k2", "tests/test_floor.py::test_floor[5]")
        + "\n",
        encoding="utf-8",
    )
    return tmp_path


def plan_for(project: Path, *changed: str, event: str = "merge-to-main") -> Any:
    config = load_config(project / "pyproject.toml")
    return make_plan([Path(c) for c in changed], config.ci, root=config.root, event=event)


@pytest.mark.parametrize(
    ("changed", "stages"),
    [
        ("src/app/parse/json_reply.py", ["parse", "orchestration"]),
        ("src/app/render/html.py", ["parse", "orchestration"]),
        ("src/app/agent/loop.py", ["orchestration", "semantic"]),
        ("prompts/system.txt", ["orchestration", "semantic"]),
        ("src/app/client/anthropic.py", ["model", "e2e-smoke"]),
        ("pyproject.toml", ["e2e-smoke", "full"]),
        ("requirements-dev.txt", ["e2e-smoke", "full"]),
        ("docs/guide.md", []),
        ("scripts/release.sh", ["full"]),
    ],
)
def test_each_change_class_runs_its_stages(project: Path, changed: str, stages: list[str]) -> None:
    plan = plan_for(project, changed)
    assert [s.name for s in plan.stages] == stages
    assert plan.skipped == ()
    for stage in plan.stages:
        assert any(changed in reason for reason in stage.reasons)


def test_the_stage_arguments_samples_and_mock_come_from_the_config(project: Path) -> None:
    (semantic,) = [s for s in plan_for(project, "prompts/x.txt").stages if s.name == "semantic"]
    assert semantic.pytest_args == ("tests/semantic", "-m", "sampled")
    assert (semantic.samples, semantic.mock, semantic.when) == (5, "replay", "pull-request")
    assert semantic.matrix_entry() == {
        "stage": "semantic",
        "pytest_args": "tests/semantic -m sampled",
        "samples": 5,
        "mock": "replay",
    }


def test_stages_rarer_than_the_event_are_skipped_with_a_reason(project: Path) -> None:
    changed = "src/app/client/anthropic.py"
    on_pr = plan_for(project, changed, event="pull-request")
    assert [s.name for s in on_pr.stages] == ["model"]
    assert on_pr.skipped == (("e2e-smoke", "runs on merge-to-main, not on pull-request"),)
    on_commit = plan_for(project, "prompts/x.txt", event="every-commit")
    assert [s.name for s in on_commit.stages] == ["orchestration"]
    assert on_commit.skipped == (("semantic", "runs on pull-request, not on every-commit"),)
    assert "skip semantic: runs on pull-request, not on every-commit" in on_commit.text()


def test_a_changed_fixture_runs_only_the_tests_that_played_it(project: Path) -> None:
    plan = plan_for(project, "tests/fixtures/rag.jsonl")
    (stage,) = plan.stages
    assert stage.name == "fixture-users"
    assert stage.pytest_args == (
        "tests/test_floor.py::test_floor[5]",
        "tests/test_rag.py::test_answer",
    )
    assert stage.reasons == ("fixtures: tests/fixtures/rag.jsonl is played by 2 test(s)",)


def test_a_fixture_no_test_played_falls_back_to_the_class_stages(project: Path) -> None:
    plan = plan_for(project, "tests/fixtures/unused.jsonl")
    assert [s.name for s in plan.stages] == ["model"]
    assert plan.stages[0].reasons == (
        "fixtures: no test in the hits log played the changed fixtures of "
        "tests/fixtures/unused.jsonl",
    )


def test_a_test_the_hits_log_names_that_is_gone_is_left_out_and_said(project: Path) -> None:
    # renamed or removed since it played the fixture: pytest would stop at it (exit 4)
    (project / "tests" / "test_rag.py").write_text("def test_answer_renamed(): ...\n", "utf-8")
    plan = plan_for(project, "tests/fixtures/rag.jsonl")
    (stage,) = plan.stages
    assert stage.pytest_args == ("tests/test_floor.py::test_floor[5]",)
    assert stage.reasons == ("fixtures: tests/fixtures/rag.jsonl is played by 1 test(s)",)
    note = (
        "left out 1 test(s) the hits log names that are no longer in the project (renamed "
        "or removed; pytest would stop at them): tests/test_rag.py::test_answer"
    )
    assert plan.notes == (note,)
    assert f"note {note}" in plan.text()
    assert plan.to_json()["notes"] == [note]
    assert "note" not in plan.github_output()
    (project / "tests" / "test_floor.py").unlink()  # every test that played it is gone:
    plan = plan_for(project, "tests/fixtures/rag.jsonl")  # the class's own stages run
    assert [s.name for s in plan.stages] == ["model"]
    assert plan.stages[0].reasons == (
        "fixtures: every test in the hits log that played the changed fixtures of "
        "tests/fixtures/rag.jsonl is gone",
    )
    assert "2 test(s)" in plan.notes[0] and "tests/test_floor.py::test_floor[5]" in plan.notes[0]


X = "tests/test_x.py"


@pytest.mark.parametrize(
    ("test", "source", "run"),
    [
        (f"{X}::test_a", "def test_a(): ...", f"{X}::test_a"),
        (f"{X}::test_a", "def test_a_renamed(): ...", None),
        (f"{X}::test_a", "def test_b(): ...\n# was test_a_old", None),
        (f"{X}::test_a[one-two]", "def test_a(case): ...", f"{X}::test_a[one-two]"),
        (f"{X}::test_a[x::y]", "def test_a(case): ...", f"{X}::test_a[x::y]"),
        # a method nowhere in its file: inherited, or renamed; its class runs
        (f"{X}::TestA::test_inherited", "class TestA(Base): ...", f"{X}::TestA"),
        (f"{X}::TestA::test_b", "class TestA:\n    def test_c(self): ...", f"{X}::TestA"),
        (
            f"{X}::TestA::test_b[1]",
            "class TestA:\n    def test_b(self, n): ...",
            f"{X}::TestA::test_b[1]",
        ),
        (
            f"{X}::TestA::TestIn::test_b",
            "class TestA:\n    class TestIn: ...",
            f"{X}::TestA::TestIn",
        ),
        (f"{X}::TestA::test_b", "class TestB: ...", None),
        (f"{X}::test_made", "test_made = build_test()", f"{X}::test_made"),
        (f"{X}::test_x.helper", "def helper(): ...", f"{X}::test_x.helper"),  # a doctest
        (X, "", X),
        ("tests/test_gone.py::test_a", None, None),
        ("tests/data.yaml::case", None, None),
    ],
)
def test_a_test_runs_as_named_through_its_class_or_not_when_gone(
    tmp_path: Path, test: str, source: str | None, run: str | None
) -> None:
    (tmp_path / "tests").mkdir()
    if source is not None:
        (tmp_path / "tests" / "test_x.py").write_text(source, "utf-8")
    assert node_to_run(test, tmp_path) == run


def test_a_method_nowhere_in_its_file_runs_through_its_class_once_and_is_said(
    project: Path,
) -> None:
    # test_answer moved to a base class of another file (or renamed): pytest would stop
    # at TestRag::test_answer, and running TestRag runs what it collects now
    users = FixtureUsers(project)
    for test in ("TestRag::test_answer", "TestRag::test_cite", "test_plain"):
        users.add(Path("tests/fixtures/rag.jsonl"), "k1", f"tests/test_rag.py::{test}")
    (project / "tests" / "test_rag.py").write_text(
        "class TestRag(Base):\n    def test_cite(self): ...\ndef test_plain(): ...\n", "utf-8"
    )
    config = load_config(project / "pyproject.toml")
    plan = make_plan(
        [Path("tests/fixtures/rag.jsonl")], config.ci, root=config.root,
        event="pull-request", users=users,
    )  # fmt: skip
    (stage,) = plan.stages
    assert stage.pytest_args == ("tests/test_rag.py::TestRag", "tests/test_rag.py::test_plain")
    assert stage.reasons == ("fixtures: tests/fixtures/rag.jsonl is played by 3 test(s)",)
    assert plan.notes == (
        "ran 1 test(s) the hits log names through their class, their own name being nowhere "
        "in their file (inherited, or renamed; pytest would stop at them): "
        "tests/test_rag.py::TestRag::test_answer as tests/test_rag.py::TestRag",
    )


def test_a_removed_fixture_store_named_with_changed_runs_the_tests_that_played_it(
    project: Path,
) -> None:
    store = project / "tests" / "fixtures" / "rag.jsonl"
    store.unlink()
    plan = plan_for(project, "tests/fixtures/rag.jsonl", event="pull-request")
    assert [stage.name for stage in plan.stages] == ["fixture-users"]
    assert plan.stages[0].pytest_args == (
        "tests/test_floor.py::test_floor[5]",
        "tests/test_rag.py::test_answer",
    )


def test_a_changed_folder_runs_the_tests_that_played_any_store_under_it(project: Path) -> None:
    # a git submodule's path, as `git diff` names it, or a folder given with --changed
    vendor = project / "tests" / "fixtures" / "vendor"
    (vendor / "sp").mkdir(parents=True)
    log = project / ".replaygate" / "hits" / "r2-1.jsonl"
    log.write_text(
        hits_line("tests/fixtures/vendor/vend.jsonl", "k5", "tests/test_rag.py::test_answer")
        + "\n"
        + hits_line("tests/fixtures/vendor/sp", "k6", "tests/test_floor.py::test_floor[5]")
        + "\n",
        encoding="utf-8",
    )
    plan = plan_for(project, "tests/fixtures/vendor", event="pull-request")
    (stage,) = plan.stages
    assert stage.name == "fixture-users"
    assert stage.pytest_args == (
        "tests/test_floor.py::test_floor[5]",
        "tests/test_rag.py::test_answer",
    )
    assert stage.reasons == ("fixtures: tests/fixtures/vendor is played by 2 test(s)",)


def test_a_stored_key_longer_than_twelve_digits_finds_the_tests_that_played_it(
    project: Path,
) -> None:
    # verify takes a key of at least 12 digits; the hits log keeps it whole
    key = "0123456789abcdef"
    (project / "tests" / "fixtures" / "long.jsonl").write_text(
        fixture_line(key, "Why?", "Now.") + "\n", encoding="utf-8"
    )
    log = project / ".replaygate" / "hits" / "r2-1.jsonl"
    log.write_text(
        hits_line("tests/fixtures/long.jsonl", key, "tests/test_rag.py::test_answer") + "\n",
        encoding="utf-8",
    )
    config = load_config(project / "pyproject.toml")
    plan = make_plan(
        [Path("tests/fixtures/long.jsonl")], config.ci, root=config.root, event="pull-request",
        old_text=lambda path: fixture_line(key, "Why?", "Then.") + "\n",
    )  # fmt: skip
    (stage,) = plan.stages
    assert stage.name == "fixture-users"
    assert stage.pytest_args == ("tests/test_rag.py::test_answer",)
    users = FixtureUsers.from_log(project / ".replaygate" / "hits", project)
    store = project / "tests" / "fixtures" / "long.jsonl"
    assert users.tests_for(store, {key}) == users.tests_for(store, {key[:12]}) != set()


def test_changed_keys_are_the_lines_that_changed(tmp_path: Path) -> None:
    store = tmp_path / "s.jsonl"
    old = fixture_line("k1", "a", "x") + "\n" + fixture_line("k2", "b", "y") + "\n"
    store.write_text(fixture_line("k1", "a", "x") + "\n" + fixture_line("k2", "b", "z") + "\n")
    assert changed_keys(store, old) == {"k2"}
    assert changed_keys(store, None) == {"k1", "k2"}
    store.write_text("not json\n")
    assert changed_keys(store, old) is None
    pretty = tmp_path / "f.json"
    pretty.write_text(json.dumps({"key": "k3", "request": {}}, indent=2))
    assert changed_keys(pretty, json.dumps({"key": "k3", "request": {"a": 1}})) == {"k3"}
    users = FixtureUsers(tmp_path)
    users.add(Path("folder"), "k3", "t::a")
    assert users.tests_for(tmp_path / "folder" / "f.json", {"k3"}) == {"t::a"}
    assert users.tests_for(tmp_path / "folder" / "f.json", {"k4"}) == set()


def test_a_changed_store_that_cannot_be_parsed_counts_as_wholly_changed(tmp_path: Path) -> None:
    store = tmp_path / "s.jsonl"
    old = fixture_line("k1", "a", "x") + "\n"
    for damaged in (
        b"[" * 100_000 + b"]" * 100_000 + b"\n",
        b'{"key": ' + b"9" * 5000 + b"}\n",
    ):
        store.write_bytes(damaged)
        assert changed_keys(store, old) is None


@pytest.mark.slow  # a real git repository
def test_plan_with_base_reads_a_committed_store_that_is_not_utf8(project: Path) -> None:
    git(project, "init", "-q", "-b", "main")
    store = project / "tests" / "fixtures" / "rag.jsonl"
    store.write_bytes(b'{"key": "k1", "note": "caf\xe9"}\n')
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "first")
    store.write_bytes(b'{"key": "k1", "note": "caf\xe9"}\n{"key": "k2", "note": "caf\xe9"}\n')
    args = ["plan", "--base", "main", "--config", str(project / "pyproject.toml")]
    result = CliRunner().invoke(ci_group, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    (stage,) = json.loads(result.output)["stages"]
    assert stage["stage"] == "fixture-users"
    assert stage["pytest_args"] == "'tests/test_floor.py::test_floor[5]'"  # k2 only


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=T", "-c", "user.email=t@example.com", *args],
        cwd=repo, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout.strip()


@pytest.mark.slow
def test_plan_with_base_on_a_real_git_repository(project: Path) -> None:
    git(project, "init", "-q", "-b", "main")
    (project / "src" / "app" / "parse").mkdir(parents=True)
    (project / "src" / "app" / "parse" / "reply.py").write_text("X = 1\n")
    (project / "README.md").write_text("app\n")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "first")
    git(project, "checkout", "-q", "-b", "change")
    (project / "src" / "app" / "parse" / "reply.py").write_text("X = 2\n")
    store = project / "tests" / "fixtures" / "rag.jsonl"
    lines = store.read_text().splitlines()
    store.write_text(lines[0] + "\n" + fixture_line("k2", "What is a floor?", "Changed.") + "\n")
    git(project, "commit", "-q", "-am", "change")
    (project / "docs").mkdir()
    (project / "docs" / "new.md").write_text("untracked and new\n")
    runner = CliRunner()
    args = ["plan", "--base", "main", "--config", str(project / "pyproject.toml")]
    result = runner.invoke(ci_group, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert {c["path"]: c["class"] for c in document["changes"]} == {
        "docs/new.md": "docs",
        "src/app/parse/reply.py": "parse",
        "tests/fixtures/rag.jsonl": "fixtures",
    }
    assert [s["stage"] for s in document["stages"]] == ["parse", "orchestration", "fixture-users"]
    users = document["stages"][-1]
    assert users["pytest_args"] == "'tests/test_floor.py::test_floor[5]'"  # k2 only, not k1
    assert document["matrix"]["include"][0] == {
        "stage": "parse",
        "pytest_args": "tests/parse",
        "samples": 1,
        "mock": "none",
    }
    table = runner.invoke(ci_group, args)
    assert table.exit_code == 0
    assert re.search(r"^parse +every-commit +tests/parse +1 +none +parse: ", table.output, re.M)
    github = runner.invoke(ci_group, [*args, "--format", "github"])
    matrix_line, has_stages = github.output.strip().splitlines()
    assert json.loads(matrix_line.removeprefix("matrix="))["include"][1]["stage"] == "orchestration"
    assert has_stages == "has_stages=true"
    bad = runner.invoke(
        ci_group, ["plan", "--base", "no-such-rev", "--config", str(project / "pyproject.toml")]
    )
    assert bad.exit_code == 2
    assert "--base 'no-such-rev': no such commit in the repository" in bad.output
    as_option = runner.invoke(
        ci_group, ["plan", "--base=--all", "--config", str(project / "pyproject.toml")]
    )
    assert as_option.exit_code == 2  # a revision, never an option of git
    assert "--base '--all': no such commit in the repository" in as_option.output


@pytest.mark.slow  # a real git repository
def test_plan_with_base_takes_file_names_as_they_are(project: Path) -> None:
    git(project, "init", "-q", "-b", "main")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "first")
    for name in ("docs/résumé.md", "src/app/parse/ü.py", 'src/"quoted".py', "src/new\nline.py"):
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text("x\n", encoding="utf-8")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "second")
    (project / "docs" / "été.md").write_text("untracked\n", encoding="utf-8")
    args = ["plan", "--base", "main~1", "--config", str(project / "pyproject.toml")]
    result = CliRunner().invoke(ci_group, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    assert {c["path"]: c["class"] for c in json.loads(result.output)["changes"]} == {
        "docs/résumé.md": "docs",
        "docs/été.md": "docs",
        "src/app/parse/ü.py": "parse",
        'src/"quoted".py': None,
        "src/new\nline.py": None,
    }
    table = CliRunner().invoke(ci_group, args).output
    assert 'unclassified: src/"quoted".py, "src/new\\nline.py"' in table


@pytest.mark.slow  # a real git repository
def test_replaygates_own_working_files_are_not_changes_since_base(project: Path) -> None:
    git(project, "init", "-q", "-b", "main")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "first")
    hits = project / ".replaygate" / "hits" / "2026-12-01.jsonl"
    hits.write_text(hits_line("tests/fixtures/rag.jsonl", "k1", "t.py::t") + "\n")
    (project / ".replaygate" / "history.db").write_bytes(b"")
    (project / "tests" / "fixtures" / "rag.jsonl.lock").write_bytes(b"")
    (project / "tests" / "fixtures" / "rag.jsonl.bak1").write_text("{not a store any more\n")
    (project / "tests" / "fixtures" / "folder").mkdir()
    (project / "tests" / "fixtures" / "folder" / ".replaygate.lock").write_bytes(b"")
    (project / "tests" / "fixtures" / "folder" / "265288aeb827.json.bak").write_text("{}\n")
    # the temporary file of a write the run is making (or was interrupted in)
    (project / "tests" / "fixtures" / ".rag.jsonl.4242.tmp").write_text("{}\n")
    args = ["plan", "--base", "HEAD", "--config", str(project / "pyproject.toml")]
    result = CliRunner().invoke(ci_group, args)
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "no changed files: nothing to run (pull-request)"
    (project / "uv.lock").write_text("# a dependency change, not a store's lock\n")
    document = json.loads(CliRunner().invoke(ci_group, [*args, "--format", "json"]).output)
    assert document["changes"] == [{"path": "uv.lock", "class": "dependencies"}]


def test_the_project_s_hits_folder_is_read_where_ci_names_none(project: Path) -> None:
    # [tool.replaygate] hits sends the log of the tests and of eval elsewhere: the plan
    # reads it there unless [tool.replaygate.ci] hits names a folder of its own.
    config = project / "pyproject.toml"
    setting = '[tool.replaygate]\nhits = "build/hits"\n\n[tool.replaygate.ci]\n'
    text = config.read_text().replace('[tool.replaygate.ci]\nhits = ".replaygate/hits"\n', setting)
    config.write_text(text)
    (project / "build").mkdir()
    (project / ".replaygate" / "hits").rename(project / "build" / "hits")
    assert plan_for(project, "tests/fixtures/rag.jsonl").stages[0].pytest_args == (
        "tests/test_floor.py::test_floor[5]",
        "tests/test_rag.py::test_answer",
    )
    logs = [
        f"build/hits/{RUN}-7.jsonl",
        f"build/hits/{RUN}-7.outcomes",
        f"build/hits/{RUN}.rerecorded",
    ]
    assert plan_for(project, *logs).changes == ()
    own = '[tool.replaygate.ci]\nhits = "ci-cache/hits"\n'
    config.write_text(text.replace("[tool.replaygate.ci]\n", own))
    (note,) = plan_for(project, "tests/fixtures/rag.jsonl").notes
    assert "write the log to build/hits ([tool.replaygate] hits), which ci plan" in note


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ('"."', "'.' is the project folder (or holds it)"),
        ('".."', "'..' is the project folder (or holds it)"),
        ('"pyproject.toml"', "pyproject.toml is not a folder: the hits log is the folder"),
        ('""', "'' names no folder: name the hits log's folder, or leave hits out for"),
    ],
)
def test_the_project_s_hits_setting_is_refused_at_its_line_by_each_reader(
    project: Path, value: str, reason: str
) -> None:
    from replaygate.evals.config import hits_folder
    from replaygate.pytest_plugin.recording import _hits_folder

    config = project / "pyproject.toml"
    config.write_text(f"[tool.replaygate]\nhits = {value}\n\n{config.read_text()}")
    where = f"{config}:2: tool.replaygate.hits: "
    with pytest.raises(EvalError) as refused:
        load_config(config)
    messages = [str(refused.value)]
    with pytest.raises(EvalError) as refused:
        hits_folder(config, project)
    messages.append(str(refused.value))
    with pytest.raises(pytest.UsageError) as plugin:  # the pytest plugin's: a usage error
        _hits_folder(project)
    messages.append(str(plugin.value))
    done = CliRunner().invoke(main, ["prune", "--unused", str(project / "tests" / "fixtures")])
    assert done.exit_code == 2, done.output
    messages.append(" ".join(done.output.split()))
    for message in messages:
        assert where in message and reason in message, message


def test_a_custom_hits_log_folder_is_not_a_change(project: Path) -> None:
    config = project / "pyproject.toml"
    text = config.read_text().replace('hits = ".replaygate/hits"', 'hits = "ci-cache/hits"')
    config.write_text(text)
    assert plan_for(project, f"ci-cache/hits/{RUN}-7.jsonl").changes == ()
    assert plan_for(project, "ci-cache/notes.txt").changes != ()


@pytest.mark.parametrize(
    ("hits", "state", "advice"),
    [
        (
            "ci-cache/hits",
            "is not there",
            "write the log to .replaygate/hits ([tool.replaygate] hits), which ci plan does "
            "not read while [tool.replaygate.ci] hits is set",
        ),
        (".replaygate/hits", "holds no hit", "the pytest plugin writes it as the tests replay"),
    ],
)
def test_a_hits_log_folder_with_no_run_is_named_with_what_to_do(
    project: Path, hits: str, state: str, advice: str
) -> None:
    # The plan said only that no test in the hits log played the fixtures: a folder the
    # plugin never writes to (it writes .replaygate/hits) turned the narrowing off unseen.
    config = project / "pyproject.toml"
    config.write_text(config.read_text().replace('hits = ".replaygate/hits"', f'hits = "{hits}"'))
    if hits == ".replaygate/hits":
        for log in (project / ".replaygate" / "hits").glob("*.jsonl"):
            log.unlink()
    plan = plan_for(project, "tests/fixtures/rag.jsonl")
    assert [s.name for s in plan.stages] == ["model"]
    assert plan.stages[0].reasons == (
        f"fixtures: no run in the hits log at {hits}, so no test is known to play the "
        "changed fixtures of tests/fixtures/rag.jsonl",
    )
    (note,) = plan.notes
    assert note.startswith(f"no run in the hits log at {hits} (the folder {state})")
    assert advice in note
    assert plan.text().splitlines()[-1] == f"note {note}"


def test_a_changed_path_of_the_project_given_from_a_folder_below_is_refused(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # from tests/, src/app/parse/reply.py was classified as tests/src/app/parse/reply.py:
    # no class claimed it, and the parser's stages were not planned
    reply = project / "src" / "app" / "parse" / "reply.py"
    reply.parent.mkdir(parents=True)
    reply.write_text("x = 1\n", encoding="utf-8")
    monkeypatch.chdir(project / "tests")
    wrong = CliRunner().invoke(ci_group, ["plan", "--changed", "src/app/parse/reply.py"])
    assert wrong.exit_code == 2
    assert "give --changed ../src/app/parse/reply.py, or run ci plan from" in wrong.output
    right = CliRunner().invoke(ci_group, ["plan", "--changed", "../src/app/parse/reply.py"])
    assert right.exit_code == 0 and "parse: src/app/parse/reply.py" in right.output
    removed = CliRunner().invoke(ci_group, ["plan", "--changed", "test_gone.py"])
    assert removed.exit_code == 0 and "tests/test_gone.py" in removed.output


def test_changed_files_can_be_given_and_nothing_changed_runs_nothing(project: Path) -> None:
    runner = CliRunner()
    config = str(project / "pyproject.toml")
    only_docs = runner.invoke(
        ci_group,
        ["plan", "--changed", str(project / "docs/a.md"), "--config", config, "--format", "github"],
    )
    assert only_docs.output.splitlines() == ['matrix={"include":[]}', "has_stages=false"]
    for args, message in [
        ([], "give --base REV or --changed FILE"),
        (["--base", "main", "--changed", "x"], "give --base REV or --changed FILE"),
    ]:
        result = runner.invoke(ci_group, ["plan", *args, "--config", config])
        assert result.exit_code == 2
        assert message in result.output
    assert plan_for(project).text() == "no changed files: nothing to run (merge-to-main)"


def test_a_damaged_hits_log_is_named_not_a_traceback(project: Path) -> None:
    log = project / ".replaygate" / "hits" / "r1-1.jsonl"
    log.write_text("{not json\n", encoding="utf-8")
    with pytest.raises(EvalError, match="damaged hits log"):
        plan_for(project, "tests/fixtures/rag.jsonl")
    args = ["plan", "--changed", str(project / "tests" / "fixtures" / "rag.jsonl")]
    result = CliRunner().invoke(ci_group, [*args, "--config", str(project / "pyproject.toml")])
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    assert f"damaged hits log: {log}:1: not a hits log line" in result.output


def test_a_hits_setting_naming_a_file_is_refused_at_its_line(project: Path) -> None:
    config = project / "pyproject.toml"
    config.write_text(config.read_text().replace('".replaygate/hits"', '"hits.jsonl"'))
    (project / "hits.jsonl").write_text(
        hits_line("tests/fixtures/rag.jsonl", "k1", "tests/test_rag.py::test_answer") + "\n"
    )
    args = ["plan", "--changed", str(project / "tests" / "fixtures" / "rag.jsonl")]
    result = CliRunner().invoke(ci_group, [*args, "--config", str(config)])
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    line = config.read_text().splitlines().index('hits = "hits.jsonl"') + 1
    where = f"{config}:{line}: tool.replaygate.ci.hits: {project / 'hits.jsonl'}"
    assert where in result.output
    assert "is not a folder: the hits log is the folder" in result.output


@pytest.mark.parametrize("target", ["loop", "gone"])
def test_a_hits_setting_naming_a_broken_link_is_refused_at_its_line(
    project: Path, target: str
) -> None:
    config = project / "pyproject.toml"
    config.write_text(config.read_text().replace('".replaygate/hits"', '"hits"'))
    (project / "loop").symlink_to("loop")
    (project / "hits").symlink_to(target)
    args = ["plan", "--changed", str(project / "tests" / "fixtures" / "rag.jsonl")]
    result = CliRunner().invoke(ci_group, [*args, "--config", str(config)])
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    line = config.read_text().splitlines().index('hits = "hits"') + 1
    assert f"{config}:{line}: tool.replaygate.ci.hits: {project / 'hits'} is a symlink" in (
        result.output
    )


@pytest.mark.parametrize("hits", [".", "..", "./"])
def test_a_hits_setting_naming_the_project_folder_is_refused(project: Path, hits: str) -> None:
    config = project / "pyproject.toml"
    config.write_text(config.read_text().replace('".replaygate/hits"', f'"{hits}"'))
    with pytest.raises(EvalError, match=f"tool.replaygate.ci.hits: '{re.escape(hits)}' is the"):
        load_config(config)


@pytest.mark.parametrize(
    ("hits", "reason"),
    [
        ('"."', "'.' is the project folder (or holds it)"),
        ('"pyproject.toml"', "pyproject.toml is not a folder"),
        ('""', "'' names no folder: name the hits log's folder, or leave hits out for the"),
    ],
)
def test_a_bad_ci_hits_setting_names_the_folder_read_without_it(
    project: Path, hits: str, reason: str
) -> None:
    # The refusal said "(default .replaygate/hits)" where [tool.replaygate] hits sends the
    # log elsewhere, and hits = "" was taken for .replaygate/hits, a folder the tests never
    # write to.
    config = project / "pyproject.toml"
    text = config.read_text().replace('hits = ".replaygate/hits"', f"hits = {hits}")
    config.write_text(f'[tool.replaygate]\nhits = "build/hits"\n\n{text}')
    with pytest.raises(EvalError) as refused:
        load_config(config)
    assert "tool.replaygate.ci.hits: " in str(refused.value)
    assert reason in str(refused.value)
    assert "build/hits, which [tool.replaygate] hits names)" in str(refused.value)


def test_only_the_logs_of_the_hits_folder_are_not_changes(project: Path) -> None:
    config = project / "pyproject.toml"
    config.write_text(config.read_text().replace('".replaygate/hits"', '"src/app"'))
    assert plan_for(project, f"src/app/{RUN}-7.jsonl").changes == ()
    changed = plan_for(project, "src/app/parse/json_reply.py", "src/app/main.py").changes
    assert [change.change_class for change in changed] == ["parse", None]


def test_a_store_in_the_folder_the_hits_log_is_written_to_is_a_change(project: Path) -> None:
    # [tool.replaygate] hits = "tests/fixtures": every .jsonl there was taken for the
    # log's, so a changed fixture store planned no stage
    config = project / "pyproject.toml"
    config.write_text(config.read_text().replace("[tool.replaygate.ci]\n", SETTING + "\n", 1))
    assert plan_for(project, f"tests/fixtures/{RUN}-7.jsonl").changes == ()
    (changed,) = plan_for(project, "tests/fixtures/rag.jsonl").changes
    assert changed.change_class == "fixtures"


SETTING = '[tool.replaygate]\nhits = "tests/fixtures"\n\n[tool.replaygate.ci]'


def test_planning_with_no_pyproject_says_none_was_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a monorepo's top, above its projects: it said to add stages "to pyproject.toml"
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(ci_group, ["plan", "--changed", "a.py"])
    assert result.exit_code == 2
    assert f"no pyproject.toml in {tmp_path} or a folder above it" in result.output
    assert "run ci plan from the project's folder" in result.output


def test_planning_without_stages_says_where_to_configure_them(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    result = CliRunner().invoke(
        ci_group, ["plan", "--changed", "a.py", "--config", str(tmp_path / "pyproject.toml")]
    )
    assert result.exit_code == 2
    assert "no CI stages configured: add [[tool.replaygate.ci.stages]]" in result.output
    assert f"{tmp_path / 'pyproject.toml'}: no CI stages" in result.output
    config = load_config(tmp_path / "pyproject.toml")
    with pytest.raises(EvalError, match="unknown event 'nightly'"):
        make_plan([Path("a.py")], config.ci, root=tmp_path, event="nightly")


@pytest.mark.parametrize(
    ("path", "pattern", "matches"),
    [
        ("src/app/parse/x.py", "src/*/parse/**", True),
        ("src/app/parse/deep/x.py", "src/*/parse/**", True),
        ("src/app/other/x.py", "src/*/parse/**", False),
        ("a/b", "a/**/b", True),
        ("a/x/y/b", "a/**/b", True),
        ("tests/fixtures/x.jsonl", "**/*.jsonl", True),
        ("x.jsonl", "**/*.jsonl", True),
        ("docs/a.md", "*.md", False),
        ("README.md", "*.md", True),
        ("requirements-dev.txt", "requirements?dev.txt", True),
        ("prompts/a.txt", "prompts/", True),
    ],
)
def test_globs(path: str, pattern: str, matches: bool) -> None:
    assert glob_match(path, pattern) is matches


def load_workflow() -> dict[Any, Any]:
    yaml = pytest.importorskip("yaml", reason="PyYAML is not installed; the text checks still run")
    document = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert isinstance(document, dict)
    return document


def test_the_documented_workflow_is_well_formed_as_text() -> None:
    """Checks that need no YAML parser: indentation, top-level keys, jobs, commands."""
    lines = WORKFLOW.read_text(encoding="utf-8").splitlines()
    assert not any("\t" in line for line in lines)
    content = [line for line in lines if line.strip() and not line.lstrip().startswith("#")]
    for line in content:
        indent = len(line) - len(line.lstrip(" "))
        assert indent % 2 == 0, line
    top = [line.split(":")[0] for line in content if not line.startswith(" ")]
    assert top == ["name", "on", "permissions", "jobs"]
    jobs = [line.strip().rstrip(":") for line in content if re.fullmatch(r"  [a-z]+:", line)]
    assert {"plan", "test", "eval"} <= set(jobs)
    text = "\n".join(content)
    for needed in (
        "replaygate ci plan --base",
        "fromJSON(needs.plan.outputs.matrix)",
        "replaygate eval --out .replaygate/results.json",
        "replaygate gate --baseline",
        "replaygate report --out report.html",
        "actions/upload-artifact@",
    ):
        assert needed in text, needed
    assert text.count("${{") == text.count("}}")


def test_the_documented_workflow_parses_and_wires_the_loop() -> None:
    workflow = load_workflow()
    assert set(workflow[True]) == {"pull_request", "push"}  # YAML 1.1 reads `on` as true
    jobs = workflow["jobs"]
    plan_steps = jobs["plan"]["steps"]
    plan_run = next(s["run"] for s in plan_steps if s.get("id") == "plan")
    assert 'replaygate ci plan --base "$BASE"' in plan_run
    assert '--format github >> "$GITHUB_OUTPUT"' in plan_run
    assert jobs["plan"]["outputs"]["matrix"] == "${{ steps.plan.outputs.matrix }}"
    test = jobs["test"]
    assert test["strategy"]["matrix"] == "${{ fromJSON(needs.plan.outputs.matrix) }}"
    assert test["if"] == "needs.plan.outputs.has_stages == 'true'"
    assert any("${{ matrix.pytest_args }}" in s.get("run", "") for s in test["steps"])
    # the hits log kept for the next plans is written by a run of the whole suite: a
    # stage's log names only its tests, and a fixture played by another stage's test
    # ran the fixtures class's stages, not that test
    for name, job in jobs.items():
        saves = [s for s in job["steps"] if "actions/cache/save" in s.get("uses", "")]
        if any(".replaygate/hits" in str(s["with"]["path"]) for s in saves):
            runs = [s["run"].strip() for s in job["steps"] if "pytest" in s.get("run", "")]
            assert runs == ["python -m pytest"], (name, runs)
    # a branch's first push (github.event.before all zeros) or a force-push plans every
    # stage, where ci plan failed on a base git does not know
    assert 'git cat-file -e "$BASE^{commit}"' in plan_run
    assert "BASE=" + "0" * 40 in plan_run
    steps = jobs["eval"]["steps"]
    runs = "\n".join(s.get("run", "") for s in steps)
    # the eval replays on every run: results restored from a cache whose key missed the
    # agent's code (outside src/, say) were gated in place of the change's own
    (replay,) = [s for s in steps if "replaygate eval " in s.get("run", "")]
    assert "if" not in replay
    cached = [str(s["with"]["path"]) for s in steps if "actions/cache" in s.get("uses", "")]
    assert cached and not any("results" in path for path in cached), cached
    assert "replaygate gate --baseline evals/baseline.json" in runs
    assert "replaygate report --out report.html" in runs
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert "report.html" in upload["with"]["path"]
    assert upload["if"] == "always()"


def test_docs_ci_shows_the_same_workflow() -> None:
    page = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", page, re.DOTALL)
    assert WORKFLOW.read_text(encoding="utf-8") in blocks


def test_docs_workflow_says_to_ignore_what_its_install_writes_before_the_plan() -> None:
    # pip install -e writes <name>.egg-info/ in the checkout, and ci plan --base counts
    # an untracked file as an unclassified change: every pull request ran every stage
    plan = load_workflow()["jobs"]["plan"]["steps"]
    installs = [i for i, s in enumerate(plan) if "pip install -e" in s.get("run", "")]
    (planned,) = [i for i, s in enumerate(plan) if s.get("id") == "plan"]
    assert installs and installs[0] < planned
    assert "*.egg-info/" in WORKFLOW.read_text(encoding="utf-8")
    page = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    assert "`*.egg-info/` to the `.gitignore`" in page
    assert 'packages = ["trip_agent"]' in page  # setuptools stops at evals/ beside a package


def test_docs_one_stage_config_runs_its_tests_for_all_but_the_docs(tmp_path: Path) -> None:
    # the page's stages name tests/parse and the like: copied into a project of one
    # tests/ folder, every stage's job stopped at "file or directory not found"
    page = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    (block,) = re.findall(r"starts from one stage.*?```toml\n(.*?)```", page, re.DOTALL)
    (tmp_path / "pyproject.toml").write_text(block, encoding="utf-8")
    (tmp_path / "tests").mkdir()
    for stage in load_config(tmp_path / "pyproject.toml").ci.stages:
        assert all((tmp_path / target).is_dir() for target in stage.targets)
    code = plan_for(tmp_path, str(tmp_path / "trip_agent" / "__init__.py"))
    assert [stage.name for stage in code.stages] == ["tests"]
    assert plan_for(tmp_path, str(tmp_path / "README.md")).stages == ()


def test_docs_sharded_workflow_keeps_the_merged_run_in_the_history() -> None:
    # the merge appends the run to .replaygate/history.db: on a runner of its own, that
    # history was lost with the job unless restored before and saved after
    yaml = pytest.importorskip("yaml", reason="PyYAML is not installed")
    page = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"```yaml\n(.*?)```", page, re.DOTALL) if "--shard" in b]
    steps = yaml.safe_load(block)["jobs"]["gate"]["steps"]
    (merge,) = [i for i, s in enumerate(steps) if "replaygate eval merge" in s.get("run", "")]
    cached = {
        s["uses"].split("@")[0]: i
        for i, s in enumerate(steps)
        if s.get("with", {}).get("path") == ".replaygate/history.db"
    }
    assert cached.get("actions/cache/restore", merge) < merge < cached.get("actions/cache/save", 0)
    report = next(s for s in steps if "replaygate report" in s.get("run", ""))
    assert "--results results.json" in report["run"] and "always()" in report["if"]


def test_a_base_of_zeros_plans_every_stage_of_the_event_with_a_note(project: Path) -> None:
    # github.event.before on a branch's first push: no commit, where git failed (exit 2)
    config = ["--config", str(project / "pyproject.toml")]
    zeros = "0" * 40
    result = CliRunner().invoke(
        ci_group, ["plan", "--base", zeros, "--event", "pull-request", "--format", "json", *config]
    )
    assert result.exit_code == 0, result.output
    plan = json.loads(result.output)
    names = [s["stage"] for s in plan["stages"]]
    assert names == ["parse", "orchestration", "semantic", "model", "full"]
    assert plan["skipped"] == [{"stage": "e2e-smoke", "why": "runs on merge-to-main, not on "
                                "pull-request"}]  # fmt: skip
    why = "no base: --base is zeros only (a branch's first push)"
    assert all(s["reasons"] == [why] for s in plan["stages"])
    assert plan["notes"] == [f"{why}: every stage runs"]
    table = CliRunner().invoke(ci_group, ["plan", "--base", "0" * 64, *config])
    assert table.exit_code == 0, table.output
    assert f"note {why}: every stage runs" in table.output
    github = CliRunner().invoke(ci_group, ["plan", "--base", zeros, "--format", "github", *config])
    assert github.output.endswith("has_stages=true\n") and "note" not in github.output


@pytest.mark.slow  # a real git repository
def test_a_base_that_names_no_commit_says_what_to_do(project: Path) -> None:
    git(project, "init", "-q", "-b", "main")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "first")
    args = ["plan", "--config", str(project / "pyproject.toml"), "--base"]
    result = CliRunner().invoke(ci_group, [*args, "1234567890abcdef1234567890abcdef12345678"])
    assert result.exit_code == 2
    assert "--base '1234567890abcdef1234567890abcdef12345678': no such commit in the " in (
        result.output
    )
    assert CliRunner().invoke(ci_group, [*args, "main"]).exit_code == 0
    # zeros that are not 40 are no base: the base the message names plans every stage
    short = CliRunner().invoke(ci_group, [*args, "0000000"])
    assert short.exit_code == 2
    named = re.search(r"To plan every stage instead, pass --base (\S+) \(40 zeros", short.output)
    assert named, short.output
    every = CliRunner().invoke(ci_group, [*args, named.group(1)])
    assert every.exit_code == 0 and "every stage runs" in every.output


@pytest.mark.slow  # real git repositories: a submodule's
def test_plan_with_base_counts_a_changed_submodule_as_changed_stores(
    project: Path, tmp_path: Path
) -> None:
    vendor = tmp_path / "vendor"
    vendor.mkdir()
    git(vendor, "init", "-q", "-b", "main")
    (vendor / "vend.jsonl").write_text(fixture_line("k5", "Why?", "Now.") + "\n")
    git(vendor, "add", "-A")
    git(vendor, "commit", "-q", "-m", "first")
    git(project, "init", "-q", "-b", "main")
    add = ["-c", "protocol.file.allow=always", "submodule", "add", "-q", str(vendor)]
    git(project, *add, "tests/fixtures/vendor")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "first")
    log = project / ".replaygate" / "hits" / "r2-1.jsonl"
    log.write_text(
        hits_line("tests/fixtures/vendor/vend.jsonl", "k5", "tests/test_rag.py::test_answer")
        + "\n",
        encoding="utf-8",
    )
    module = project / "tests" / "fixtures" / "vendor"
    (module / "vend.jsonl").write_text(fixture_line("k5", "Why?", "Changed.") + "\n")
    git(module, "commit", "-q", "-am", "a hand edit")
    git(project, "commit", "-q", "-am", "bump the submodule")
    args = ["plan", "--base", "HEAD~1", "--config", str(project / "pyproject.toml")]
    result = CliRunner().invoke(ci_group, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert document["changes"] == [{"path": "tests/fixtures/vendor", "class": "fixtures"}]
    (stage,) = document["stages"]
    assert stage["stage"] == "fixture-users"
    assert stage["pytest_args"] == "tests/test_rag.py::test_answer"


@pytest.mark.slow  # real git repositories: a clone of depth 1
def test_a_shallow_clone_without_the_merge_base_says_to_fetch_the_history(
    project: Path, tmp_path: Path
) -> None:
    git(project, "init", "-q", "-b", "main")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "first")
    git(project, "checkout", "-q", "-b", "feature")
    (project / "README.md").write_text("app\n")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "second")
    clone = tmp_path / "clone"
    depth_1 = ["clone", "-q", "--depth", "1", "--no-single-branch", "-b", "feature"]
    git(tmp_path, *depth_1, project.as_uri(), str(clone))
    git(clone, "cat-file", "-e", "origin/main^{commit}")  # the base is there, not the history
    args = ["plan", "--base", "origin/main", "--config", str(clone / "pyproject.toml")]
    result = CliRunner().invoke(ci_group, args)
    assert result.exit_code == 2
    assert "Error: --base 'origin/main': no merge base of 'origin/main' and HEAD in " in (
        result.output
    )
    assert "it is a shallow clone, with no history beyond the commits fetched (fetch the " in (
        result.output
    )
    assert "fetch-depth: 0 in actions/checkout" in result.output
    assert "To plan every stage instead, pass --base 0000" in result.output


@pytest.mark.slow  # a real git repository
def test_without_git_the_error_says_so(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(project / "no-bin"))
    result = CliRunner().invoke(
        ci_group, ["plan", "--base", "main", "--config", str(project / "pyproject.toml")]
    )
    assert result.exit_code == 2
    assert "git is not installed" in result.output


def _german_git(monkeypatch: pytest.MonkeyPatch) -> None:
    """Git speaking German, as a user's locale makes it (skipped where git has no German)."""
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    monkeypatch.setenv("LANGUAGE", "de")
    said = subprocess.run(["git", "rev-parse"], cwd="/", capture_output=True, text=True)
    if "Kein Git-Repository" not in said.stderr:
        pytest.skip("git has no German messages here")


@pytest.mark.parametrize("german", [False, True], ids=["english", "german"])
@pytest.mark.slow  # a real git repository
def test_base_outside_a_repository_says_to_name_the_changed_files(
    project: Path, monkeypatch: pytest.MonkeyPatch, german: bool
) -> None:
    # A tarball of the project: git's own "fatal: not a git repository" said nothing to do;
    # in a German locale, git's "Kein Git-Repository" was shown as it was.
    if german:
        _german_git(monkeypatch)
    args = ["plan", "--base", "origin/main", "--config", str(project / "pyproject.toml")]
    result = CliRunner().invoke(ci_group, args)
    assert result.exit_code == 2
    assert f"--base needs a git repository, and {project} is in none" in result.output
    assert "name the changed files with --changed FILE instead" in result.output


@pytest.mark.slow  # a real git repository
def test_diff_outside_a_repository_says_so_in_any_locale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # replaygate diff showed git's "Schwerwiegend: Kein Git-Repository" in a German locale.
    _german_git(monkeypatch)
    with pytest.raises(HygieneError, match="is not inside a git repository"):
        Repo.containing(tmp_path / "fixtures")


def unreadable_repository(folder: Path) -> None:
    """Make ``folder`` a git repository git will not read (a format newer than it knows),
    as it will not read another user's in a CI container (dubious ownership)."""
    dot_git = folder / ".git"
    for part in ("objects", "refs"):
        (dot_git / part).mkdir(parents=True)
    (dot_git / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    (dot_git / "config").write_text("[core]\n\trepositoryformatversion = 99\n", "utf-8")


@pytest.mark.slow  # a real git repository
def test_base_in_a_repository_git_will_not_read_keeps_git_s_reason(project: Path) -> None:
    # It said the project was in no repository (a tarball), of one whose owner git refused.
    unreadable_repository(project)
    args = ["plan", "--base", "origin/main", "--config", str(project / "pyproject.toml")]
    result = CliRunner().invoke(ci_group, args)
    assert result.exit_code == 2
    assert "Expected git repo version <= 1, found 99" in result.output
    assert "is in none" not in result.output


def test_a_monorepo_package_s_test_keeps_the_project_s_rootdir(project: Path) -> None:
    # named alone from the top, the package's test took the package's config and rootdir,
    # and missed the store the top's run had played
    users = FixtureUsers(project)
    users.add(Path("tests/fixtures/test_a/test_ask.jsonl"), "k1", "services/a/test_a.py::test_ask")
    package = project / "services" / "a"
    package.mkdir(parents=True)
    (package / "test_a.py").write_text("def test_ask(): ...\n", "utf-8")
    config = load_config(project / "pyproject.toml")

    def args() -> tuple[str, ...]:
        plan = make_plan(
            [Path("tests/fixtures/test_a/test_ask.jsonl")], config.ci, root=config.root,
            event="pull-request", users=users,
        )  # fmt: skip
        return plan.stages[0].pytest_args

    assert args() == ("services/a/test_a.py::test_ask",)
    (package / "pyproject.toml").write_text("[tool.pytest.ini_options]\n", "utf-8")
    assert args() == ("--rootdir=.", "services/a/test_a.py::test_ask")
