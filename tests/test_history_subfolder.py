"""A relative --history given in a subfolder of the project is the working folder's: a
new one made there is noted, and one missing there names the project's of that name,
where the run went to a history of its own printed with the project's name."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate.cli.history_cmds import history_group, report_cmd
from replaygate.evals import History
from test_history import run

PROJECT_HISTORY = ".replaygate/history.db"


@pytest.fixture
def subfolder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with a history of one run, the command run from its ``evals`` folder."""
    (tmp_path / "pyproject.toml").write_text("[tool.replaygate]\n", encoding="utf-8")
    with History.open(tmp_path / PROJECT_HISTORY) as history:
        history.append(run("2026-11-01T10:00:00Z", 5))
        history.export_to(tmp_path / "runs.json")
    (tmp_path / "evals").mkdir()
    monkeypatch.chdir(tmp_path / "evals")
    return tmp_path


def test_reading_a_history_the_working_folder_lacks_names_the_projects(subfolder: Path) -> None:
    hint = (
        f"no history at {PROJECT_HISTORY}: it is read from the working folder, "
        f"{subfolder / 'evals'}; the project folder {subfolder} (of its pyproject.toml) has "
        f"{PROJECT_HISTORY} (to name it, give --history ../{PROJECT_HISTORY}"
    )
    export = ["export", "--json", "--history", PROJECT_HISTORY]
    for command, args in (
        (history_group, export),
        (report_cmd, ["--out", "r.html", "--history", PROJECT_HISTORY]),
    ):
        done = CliRunner().invoke(command, args)
        assert done.exit_code == 2 and hint in done.output, done.output


def test_a_new_history_made_in_the_working_folder_is_noted(subfolder: Path) -> None:
    # it was "merged into .replaygate/history.db", read as the project's history
    merge = ["merge", str(subfolder / "runs.json"), "--history", PROJECT_HISTORY]
    done = CliRunner().invoke(history_group, merge)
    assert done.exit_code == 0, done.output
    assert (
        f"note: {PROJECT_HISTORY} is not in the working folder, {subfolder / 'evals'}, so a "
        "new history is made there, apart from the project's runs; the project folder"
    ) in done.stderr
    again = CliRunner().invoke(history_group, merge)  # now there: nothing to note
    assert again.exit_code == 0 and "note:" not in again.stderr
