"""A store path not there yet, named like a file of another kind (``rc.josnl``, ``rc.txt``),
is refused naming it, where it was made a folder store the right name then never found; a
folder store already there under such a name is read as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from replaygate.errors import FixtureFormatError
from replaygate.fixtures.store import FixtureStore
from run_cli import replaygate

RECORD = ["record", "--agent", "replaygate.examples.research_copilot:copilot", "--approve-live",
          "--simulator", "What is RAG?"]  # fmt: skip


@pytest.mark.parametrize("name", ["rc.josnl", "rc.jsnol", "rc.txt"])
def test_a_mistyped_store_name_is_refused_before_anything_is_made(
    tmp_path: Path, name: str
) -> None:
    done = replaygate(*RECORD, "--fixtures", name, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"Error: {name}: is named {Path(name).suffix}, and no such file or folder is there: "
        "a new store is a .jsonl file, a .json fixture or a folder named without a suffix "
        "like a file's; did you mean rc.jsonl?"
    )
    assert list(tmp_path.iterdir()) == []


def test_a_folder_store_named_with_a_suffix_is_still_read(tmp_path: Path) -> None:
    (tmp_path / "old.store").mkdir()
    with FixtureStore.open(tmp_path / "old.store") as store:
        assert len(store) == 0
    for fine in ("new.jsonl", "new", "v1.2"):
        FixtureStore.open(tmp_path / fine).close()
    with pytest.raises(FixtureFormatError, match=r"is named \.store, and no such file"):
        FixtureStore.open(tmp_path / "new.store")


def test_a_store_file_name_with_white_space_around_it_is_refused_naming_the_one_meant(
    tmp_path: Path,
) -> None:
    # "rc.jsonl " pasted with its space was made a folder store of that name.
    with pytest.raises(FixtureFormatError) as caught:
        FixtureStore.open(tmp_path / "rc.jsonl ")
    assert str(caught.value) == (
        f"{tmp_path / 'rc.jsonl '}: is named 'rc.jsonl ', with white space around it, and no "
        f"such file or folder is there: did you mean {tmp_path / 'rc.jsonl'}?"
    )
    assert list(tmp_path.iterdir()) == []
    (tmp_path / " rc.jsonl").write_bytes(b"")
    with pytest.raises(
        FixtureFormatError, match=r"is named ' rc.jsonl', .*: rename it to rc\.jsonl$"
    ):
        FixtureStore.open(tmp_path / " rc.jsonl")
