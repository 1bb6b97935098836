"""``--config`` with a sanitize table, for a store outside that project, is refused.

A store is sanitized and matched with the config of the project it is in, from every
command, so ``record --config app/pyproject.toml --fixtures /tmp/rc.jsonl`` recorded
with no rule at all: the addresses and names ``app``'s rules redact were written to
disk as they were, and nothing said so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from run_cli import replaygate

# Each test runs replaygate record in a process of its own, from its simulator: end to end.
pytestmark = pytest.mark.slow

CONFIG = """\
[tool.replaygate]
agent = "replaygate.examples.research_copilot:copilot"

[tool.replaygate.sanitize]
personal_data = ["email"]
"""
QUESTION = "What is RAG? Mail bob@corp.com"


@pytest.mark.parametrize("where", ["out/rc.jsonl", "other/rc.jsonl"])
def test_a_store_the_given_sanitize_table_does_not_cover_is_refused(
    tmp_path: Path, where: str
) -> None:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "pyproject.toml").write_text(CONFIG)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "pyproject.toml").write_text("[project]\nname = 'other'\n")
    done = replaygate(
        "record", "--config", "app/pyproject.toml", "--fixtures", where, "--approve-live",
        "--simulator", QUESTION, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2, done
    assert done.stderr.startswith(
        f"Error: app/pyproject.toml: its [tool.replaygate.sanitize] does not apply to the "
        f"store {where}, which is in "
    )
    assert not (tmp_path / where).exists()


def test_a_store_in_the_given_project_is_recorded_with_its_rules(tmp_path: Path) -> None:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "pyproject.toml").write_text(CONFIG)
    done = replaygate(
        "record", "--config", "app/pyproject.toml", "--fixtures", "app/rc.jsonl",
        "--approve-live", "--simulator", QUESTION, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done
    assert "bob@corp.com" not in (tmp_path / "app" / "rc.jsonl").read_text()


def test_a_config_file_not_named_pyproject_says_only_a_pyproject_applies(
    tmp_path: Path,
) -> None:
    # it said "put the store under ." where the store already was
    (tmp_path / "cfg.toml").write_text(CONFIG)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'app'\n")
    done = replaygate(
        "record", "--config", "cfg.toml", "--fixtures", "rc.jsonl", "--approve-live",
        "--simulator", QUESTION, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2, done
    assert "Put the sanitize table in a pyproject.toml above the store" in done.stderr
    assert "Put the store under" not in done.stderr
