"""A folder store sees what other writers did from its folders' listings."""

from __future__ import annotations

import shutil
from pathlib import Path

from replaygate.fixtures.fixture import Fixture, make_meta
from replaygate.fixtures.store import FixtureStore


def _fixture(n: int, answer: str = "a", interface: str = "anthropic.messages") -> Fixture:
    meta = make_meta(interface, "2023-06-01" if interface.startswith("anthropic") else "v1", "sim")
    return Fixture.create({"model": "m", "n": n}, [{"text": answer}], meta)


def test_additions_replacements_removals_and_new_folders_are_seen(tmp_path: Path) -> None:
    root = tmp_path / "store"
    reader, writer = FixtureStore.open(root), FixtureStore.open(root)
    for n in range(3):
        writer.put(_fixture(n))
    reader.refresh()
    assert sorted(f.request["n"] for f in reader) == [0, 1, 2]

    writer.put(_fixture(1, "b"), replace=True)
    reader.refresh()
    replaced = reader.lookup({"model": "m", "n": 1})
    assert replaced is not None and replaced.responses == ({"text": "b"},)

    (gone,) = [p for p in root.rglob("*.json") if FixtureStore.open(p).keys()[0] == _fixture(0).key]
    gone.unlink()
    reader.refresh()
    assert reader.lookup({"model": "m", "n": 0}) is None

    writer.put(_fixture(7, interface="openai.chat.completions"))
    reader.refresh()
    assert reader.lookup({"model": "m", "n": 7}) is not None
    assert len(reader) == len(FixtureStore.open(root)) == 3


def test_a_jsonl_file_inside_a_folder_store_is_read_as_it_grows(tmp_path: Path) -> None:
    root = tmp_path / "store"
    root.mkdir()
    (root / "extra.jsonl").write_bytes(_fixture(1).to_line())
    reader = FixtureStore.open(root)
    assert len(reader) == 1
    with (root / "extra.jsonl").open("ab") as out:
        out.write(_fixture(2).to_line())
    reader.refresh()
    assert len(reader) == 2


def test_a_folder_removed_while_the_store_is_open_is_forgotten(tmp_path: Path) -> None:
    # Forgetting its files took each out of the listing being iterated: RuntimeError.
    root = tmp_path / "store"
    reader = FixtureStore.open(root)
    with FixtureStore.open(root) as writer:
        writer.put(_fixture(1))
        writer.put(_fixture(2, interface="openai.chat.completions"))
    reader.refresh()
    assert len(reader) == 2
    shutil.rmtree(root / "anthropic.messages@2023-06-01")
    reader.refresh()
    assert len(reader) == 1 and reader.lookup({"model": "m", "n": 1}) is None


def test_a_jsonl_file_that_appeared_after_the_first_listing_is_read_as_it_grows(
    tmp_path: Path,
) -> None:
    """A refresh looks name by name at new names only: a ``.jsonl`` file is kept among
    the files that grow in place from the listing that first saw it."""
    root = tmp_path / "store"
    reader = FixtureStore.open(root)
    with FixtureStore.open(root) as writer:
        writer.put(_fixture(0))
    (root / "extra.jsonl").write_bytes(_fixture(1).to_line())
    reader.refresh()
    for n in (2, 3):
        with (root / "extra.jsonl").open("ab") as out:
            out.write(_fixture(n).to_line())
        reader.refresh()
        assert len(reader) == n + 1


def test_a_leftover_is_listed_while_it_is_there_and_only_then(tmp_path: Path) -> None:
    """(Opening a store removes the leftovers it finds: both stores are opened first.)"""
    root = tmp_path / "store"
    reader, writer = FixtureStore.open(root), FixtureStore.open(root)
    writer.put(_fixture(0))
    (folder,) = {p.parent for p in root.rglob("*.json")}
    leftover = folder / f".{_fixture(5).key[:12]}.json.4242.tmp"
    leftover.write_bytes(b"{")
    for n in (1, 2):  # seen when it appears, and kept while it stays, other files coming
        reader.refresh()
        assert reader._scanner.leftovers == [leftover]
        writer.put(_fixture(n))
    leftover.unlink()
    reader.refresh()
    assert reader._scanner.leftovers == [] and len(reader) == 3
