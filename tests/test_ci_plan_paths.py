"""``ci plan``: a change is classified by its own path (a symlink as the link, a name
holding a newline as any other), new files of a project below the repository top are
found at their paths, and the stages the plan cannot take are refused at their line."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from forked_cli import ASCII_LOCALE, Forker
from replaygate.ci import make_plan
from replaygate.cli.ci_cmd import ci_group
from replaygate.evals import load_config

CONFIG = """\
[tool.replaygate.ci]
unclassified = []

[[tool.replaygate.ci.stages]]
name = "orchestration"
when = "every-commit"
targets = ["tests/orchestration"]

[[tool.replaygate.ci.stages]]
name = "parse"
when = "every-commit"
targets = ["tests/parse"]

[[tool.replaygate.ci.changes]]
name = "orchestration"
paths = ["prompts/**"]
stages = ["orchestration"]

[[tool.replaygate.ci.changes]]
name = "parse"
paths = ["src/app/parse/**"]
stages = ["parse"]

[[tool.replaygate.ci.changes]]
name = "docs"
paths = ["docs/**"]
stages = []
"""


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=T", "-c", "user.email=t@example.com", *args],
        cwd=repo, capture_output=True, check=True,
    )  # fmt: skip


def plan(config: Path, *args: str) -> dict[str, Any]:
    """``ci plan ARGS --format json`` of the project of ``config``, as a document."""
    done = CliRunner().invoke(
        ci_group, ["plan", *args, "--config", str(config), "--format", "json"]
    )
    assert done.exit_code == 0, done.output
    document: dict[str, Any] = json.loads(done.output)
    return document


def classes(document: dict[str, Any]) -> dict[str, str | None]:
    return {change["path"]: change["class"] for change in document["changes"]}


@pytest.fixture
def prompt_link(tmp_path: Path) -> Path:
    """A committed project whose prompt is a symlink to a document, then pointed at another."""
    (tmp_path / "pyproject.toml").write_text(CONFIG, encoding="utf-8")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "v1.md").write_text("v1\n", encoding="utf-8")
    (tmp_path / "docs" / "v2.md").write_text("v2\n", encoding="utf-8")
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "system.txt").symlink_to("../docs/v1.md")
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "first")
    (tmp_path / "prompts" / "system.txt").unlink()
    (tmp_path / "prompts" / "system.txt").symlink_to("../docs/v2.md")
    return tmp_path


@pytest.mark.slow  # a real git repository
def test_a_retargeted_symlink_is_classified_as_the_link_since_base(prompt_link: Path) -> None:
    document = plan(prompt_link / "pyproject.toml", "--base", "HEAD")
    assert classes(document) == {"prompts/system.txt": "orchestration"}
    assert [stage["stage"] for stage in document["stages"]] == ["orchestration"]


@pytest.mark.slow  # a real git repository
def test_a_symlink_named_with_changed_is_classified_as_the_link(prompt_link: Path) -> None:
    changed = str(prompt_link / "prompts" / "system.txt")
    document = plan(prompt_link / "pyproject.toml", "--changed", changed)
    assert classes(document) == {"prompts/system.txt": "orchestration"}


def test_a_link_in_a_linked_folder_is_named_under_the_project(tmp_path: Path) -> None:
    """The folders of a path are resolved (a project reached through a symlink), its own
    name is not."""
    real = tmp_path / "real"
    real.mkdir()
    (real / "pyproject.toml").write_text(CONFIG, encoding="utf-8")
    (real / "docs").mkdir()
    (real / "docs" / "v2.md").write_text("v2\n", encoding="utf-8")
    (real / "prompts").mkdir()
    (real / "prompts" / "system.txt").symlink_to("../docs/v2.md")
    (tmp_path / "link").symlink_to(real)
    config = load_config(real / "pyproject.toml")
    changed = [tmp_path / "link" / "prompts" / "system.txt"]
    made = make_plan(changed, config.ci, root=config.root, event="pull-request")
    assert [(c.path, c.change_class) for c in made.changes] == [
        ("prompts/system.txt", "orchestration")
    ]


@pytest.mark.slow  # a real git repository
def test_new_files_of_a_project_below_the_repository_top_are_found(tmp_path: Path) -> None:
    service = tmp_path / "service"
    (service / "src" / "app" / "parse").mkdir(parents=True)
    (service / "pyproject.toml").write_text(CONFIG, encoding="utf-8")
    (service / "src" / "app" / "parse" / "reply.py").write_text("X = 1\n", encoding="utf-8")
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "first")
    (service / "src" / "app" / "parse" / "new.py").write_text("new\n", encoding="utf-8")
    (service / "docs").mkdir()
    (service / "docs" / "guide.md").write_text("new\n", encoding="utf-8")
    (service / "src" / "app" / "parse" / "reply.py").write_text("X = 2\n", encoding="utf-8")
    document = plan(service / "pyproject.toml", "--base", "HEAD")
    assert classes(document) == {
        "docs/guide.md": "docs",
        "src/app/parse/new.py": "parse",
        "src/app/parse/reply.py": "parse",
    }
    assert [stage["stage"] for stage in document["stages"]] == ["parse"]


def test_a_name_holding_a_newline_matches_a_folder_glob(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(CONFIG, encoding="utf-8")
    config = load_config(tmp_path / "pyproject.toml")
    changed = [Path("src/app/parse/new\nline.py")]
    made = make_plan(changed, config.ci, root=config.root, event="pull-request")
    assert [c.change_class for c in made.changes] == ["parse"]
    assert [s.name for s in made.stages] == ["parse"]


def refused(tmp_path: Path, stage: str) -> str:
    """The error of ``ci plan`` for a project whose first stage ends with ``stage``."""
    config = tmp_path / "pyproject.toml"
    config.write_text(
        f'[[tool.replaygate.ci.stages]]\nwhen = "every-commit"\ntargets = ["tests"]\n{stage}\n',
        encoding="utf-8",
    )
    done = CliRunner().invoke(ci_group, ["plan", "--changed", "x.py", "--config", str(config)])
    assert done.exit_code == 2, done.output
    return done.output


def test_a_mock_not_documented_is_refused_at_its_line_and_each_documented_one_taken(
    tmp_path: Path,
) -> None:
    output = refused(tmp_path, 'name = "e2e"\nmock = "lvie"')
    assert f"{tmp_path / 'pyproject.toml'}:5: tool.replaygate.ci.stages[0].mock:" in output
    assert "expected one of none, rule-based, replay, live, got 'lvie'" in output
    typo = (tmp_path / "pyproject.toml").read_text(encoding="utf-8")
    for mock in ("none", "rule-based", "replay", "live"):
        config = tmp_path / f"{mock}.toml"
        config.write_text(typo.replace('"lvie"', f'"{mock}"'), encoding="utf-8")
        (entry,) = plan(config, "--changed", "x.py")["matrix"]["include"]
        assert entry["mock"] == mock


def test_a_stage_named_as_the_plans_own_fixture_stage_is_refused(tmp_path: Path) -> None:
    output = refused(tmp_path, 'name = "fixture-users"')
    assert f"{tmp_path / 'pyproject.toml'}:4: tool.replaygate.ci.stages[0].name:" in output
    assert "'fixture-users' is reserved" in output


ASCII_LOCALE_ROOTS = """\
from pathlib import Path
from replaygate.evals.git import changed_files, repo_root
from replaygate.hygiene.gitrev import Repo
here = Path.cwd()
print(repo_root(here) == here, Repo.containing(here / "fixtures").root == here.resolve())
print(*[path.exists() for path in changed_files("HEAD", here)])
"""


@pytest.mark.slow
def test_a_repository_in_a_non_ascii_folder_is_found_in_an_ascii_locale(
    tmp_path: Path, ascii_forker: Forker
) -> None:
    """``ci plan --base`` and ``diff`` find the repository in a folder named ``café``
    under ``LC_ALL=C``, where its root was decoded as UTF-8, a name the ASCII file system
    encoding cannot encode, and both ended in a UnicodeEncodeError traceback; so does a
    changed file named ``ü.jsonl``, which ``ci plan --base`` read the fixtures of."""
    repo = tmp_path / "café"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "ü.jsonl").write_text("{}\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "store")
    (repo / "ü.jsonl").write_text("{}\n{}\n", encoding="utf-8")  # changed since HEAD
    env = {**os.environ, **ASCII_LOCALE}
    done = ascii_forker.capture([], cwd=repo, env=env, code=ASCII_LOCALE_ROOTS)
    assert done.stdout.split() == [b"True", b"True", b"True"], done.stderr.decode()


def test_a_changed_name_an_ascii_locale_holds_as_bytes_is_planned_as_its_text(
    tmp_path: Path,
) -> None:
    # LC_ALL=C holds docs/ü.md as the surrogates of its bytes: the plan named it
    # "docs/\udcc3\udcbc.md", quoted in the table, where a UTF-8 locale says docs/ü.md
    (tmp_path / "pyproject.toml").write_text(CONFIG, encoding="utf-8")
    held = str(tmp_path) + os.fsencode("/docs/ü.md").decode("ascii", "surrogateescape")
    assert classes(plan(tmp_path / "pyproject.toml", "--changed", held)) == {"docs/ü.md": "docs"}
