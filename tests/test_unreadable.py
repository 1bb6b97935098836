"""A fixture file that cannot be read is worded by one function (regular.unreadable),
whichever check finds it."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from replaygate.errors import FixtureFormatError
from replaygate.fixtures.store.files import regular_stat
from replaygate.regular import unreadable


@pytest.mark.parametrize("target", ["gone.jsonl", "loop.jsonl"])
def test_a_symlink_to_nothing_or_a_loop_is_worded_as_regular_unreadable(
    tmp_path: Path, target: str
) -> None:
    link = tmp_path / "fixtures.jsonl"
    os.symlink(target, link)
    if target == "loop.jsonl":
        os.symlink("fixtures.jsonl", tmp_path / target)
    with pytest.raises(FixtureFormatError) as caught:
        regular_stat(link)
    code = errno.ELOOP if target == "loop.jsonl" else errno.ENOENT
    err = (FileNotFoundError if code == errno.ENOENT else OSError)(code, os.strerror(code))
    assert caught.value.reason == unreadable(link, err, "fixture file")
    assert caught.value.reason.startswith("is a symlink ")


def test_a_file_that_is_not_there_is_left_to_the_caller(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        regular_stat(tmp_path / "none.jsonl")
