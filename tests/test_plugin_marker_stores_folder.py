"""A marker's ``fixtures`` is read under the stores folder: one written from the project's
folder (``"tests/fixtures/shared.jsonl"``) would name a store in a second copy of the
stores folder, where replay misses and a recording writes a store nobody looks for. It
is refused naming the path to give, unless a store was recorded there already."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from replaygate.pytest_plugin.store_paths import chosen_problem


def _config(rootdir: Path, stores: str | None = None) -> pytest.Config:
    """A config with ``rootdir`` and ``--replaygate-dir`` ``stores`` (None: the default)."""
    config: Any = SimpleNamespace(rootpath=rootdir, getoption=lambda name, default=None: stores)
    return cast(pytest.Config, config)


def test_a_store_named_from_the_project_folder_is_refused_naming_the_one_to_give(
    tmp_path: Path,
) -> None:
    problem = chosen_problem(_config(tmp_path), "tests/fixtures/shared.jsonl")
    assert problem is not None
    doubled = tmp_path / "tests" / "fixtures" / "tests" / "fixtures" / "shared.jsonl"
    assert f"names {doubled}, with the stores folder twice" in problem
    assert f"give fixtures='shared.jsonl' for {tmp_path / 'tests/fixtures/shared.jsonl'}" in problem
    given_dir = chosen_problem(_config(tmp_path, "fx"), "./fx/shared/")
    assert given_dir is not None and "give fixtures='shared'" in given_dir


def test_a_store_recorded_there_already_or_named_under_the_stores_folder_is_used(
    tmp_path: Path,
) -> None:
    config = _config(tmp_path)
    assert chosen_problem(config, "shared.jsonl") is None
    assert chosen_problem(config, "tests/shared.jsonl") is None  # not the whole folder
    assert chosen_problem(config, tmp_path / "tests/fixtures/shared.jsonl") is None  # absolute
    above = _config(tmp_path, "../shared")  # the stores folder again: the same folder
    assert chosen_problem(above, "../shared/answers.jsonl") is None
    doubled = tmp_path / "tests" / "fixtures" / "tests" / "fixtures" / "shared.jsonl"
    doubled.parent.mkdir(parents=True)
    doubled.write_text("")
    assert chosen_problem(config, "tests/fixtures/shared.jsonl") is None
