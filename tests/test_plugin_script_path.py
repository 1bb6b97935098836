"""A simulator script is read from the rootdir, whatever folder pytest runs in: one
written from the folder pytest runs in (``cd tests``, ``script:../answers.jsonl``) is
refused naming the path to give, where only its absence was said."""

from __future__ import annotations

from pathlib import Path

from replaygate.pytest_plugin.recording_run import _from_here


def test_a_script_named_from_the_folder_pytest_runs_in_names_the_path_to_give(
    tmp_path: Path,
) -> None:
    (tmp_path / "answers.jsonl").write_text('{"text": "hi"}\n', encoding="utf-8")
    (tmp_path / "tests").mkdir()
    said = _from_here("script:../answers.jsonl", tmp_path, tmp_path / "tests")
    assert said.endswith("is there, from the folder pytest runs in; give script:answers.jsonl")


def test_nothing_is_added_where_no_such_file_is_there_either_or_the_rootdir_has_it(
    tmp_path: Path,
) -> None:
    (tmp_path / "tests").mkdir()
    assert _from_here("script:../answers.jsonl", tmp_path, tmp_path / "tests") == ""
    assert _from_here("echo", tmp_path, tmp_path / "tests") == ""
    (tmp_path / "answers.jsonl").write_text("{}\n", encoding="utf-8")  # an error of its own
    assert _from_here("script:answers.jsonl", tmp_path, tmp_path) == ""
