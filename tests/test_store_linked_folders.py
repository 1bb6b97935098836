"""A folder store follows a symlink to a folder (an interface folder shared between
repositories): what is recorded through it is found again, each real folder is walked
once, and a loop or a link to nothing is named instead of hanging or passing unseen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from replaygate.fixtures import hits
from replaygate.fixtures.fixture import Fixture, make_meta
from replaygate.fixtures.store import FixtureStore, record_response, store_files
from replaygate.fixtures.store.compact import compact
from replaygate.fixtures.store.folder import store_tree
from replaygate.hygiene.patrol import patrol
from replaygate.hygiene.prune import delete
from replaygate.hygiene.verify import verify_store
from run_cli import replaygate

# Its tests import the provider SDKs through replaygate (the example agent).

INTERFACE = "anthropic.messages@2023-06-01"
AGENT = "replaygate.examples.research_copilot:copilot"


def _request(n: int) -> dict[str, Any]:
    return {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": f"q{n}"}]}


def _fixture(n: int, answer: str = "a") -> Fixture:
    response = {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "m",
        "content": [{"type": "text", "text": answer}], "stop_reason": "end_turn",
        "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1},
    }  # fmt: skip
    meta = make_meta("anthropic.messages", "2023-06-01", "sim")
    meta["recorded_at"] = "2026-01-01T00:00:00Z"
    return Fixture.create(_request(n), [response], meta)


@pytest.fixture
def linked(tmp_path: Path) -> tuple[Path, Path]:
    """A store whose interface folder is a symlink to a folder shared with another one."""
    shared = tmp_path / "shared" / INTERFACE
    shared.mkdir(parents=True)
    root = tmp_path / "store"
    root.mkdir()
    (root / INTERFACE).symlink_to(shared)
    return root, shared


def test_a_fixture_recorded_through_the_link_is_found_again(linked: tuple[Path, Path]) -> None:
    # The walk did not follow the link: each run recorded the request again, as <key>-1.json...
    root, shared = linked
    with FixtureStore.open(root) as store:
        written = store.put(_fixture(1)).file
    assert written.parent == root / INTERFACE and written.resolve().parent == shared.resolve()
    with FixtureStore.open(root) as store:
        found = store.find(_request(1))
        assert found is not None and found[0].file == written
        assert store.put(_fixture(1)).file == written  # already recorded: nothing written
    assert [p.name for p in shared.iterdir()] == [written.name]
    assert verify_store(root) == (1, [])


@pytest.mark.slow
def test_recording_and_replaying_through_a_linked_interface_folder(
    linked: tuple[Path, Path],
) -> None:
    root, shared = linked
    record = ["record", "--agent", AGENT, "--fixtures", str(root), "--approve-live", "--simulator"]
    done = replaygate(*record, "What is RAG?")
    assert done.returncode == 0, done.stderr
    recorded = sorted(p.name for p in shared.iterdir())
    assert recorded
    done = replaygate("run", "--agent", AGENT, "--fixtures", str(root), "What is RAG?")
    assert done.returncode == 0, done.stderr  # replayed: found through the link
    assert sorted(p.name for p in shared.iterdir()) == recorded


def test_refresh_sees_files_added_inside_the_linked_folder(linked: tuple[Path, Path]) -> None:
    root, shared = linked
    reader = FixtureStore.open(root)
    assert len(reader) == 0
    with FixtureStore.open(shared.parent) as other:  # the other repository's store
        other.put(_fixture(2))
    reader.refresh()
    assert reader.lookup(_request(2)) is not None and len(reader) == 1


def test_a_loop_and_a_second_link_are_named_and_each_fixture_read_once(
    linked: tuple[Path, Path],
) -> None:
    root, shared = linked
    with FixtureStore.open(root) as store:
        store.put(_fixture(1))
    (root / "up").symlink_to(root)  # a walk following it would never end
    (root / "copy").symlink_to(shared)
    with FixtureStore.open(root) as store:
        assert len(store) == 1
    tree = store_tree(root)
    assert [len(files) for files in tree.stores.values()] == [1]
    assert tree.unread == [
        (
            root / "copy",
            f"the folder also reached as {root / INTERFACE}, through a symlink: not walked "
            f"again (the fixtures there are read once, from {root / INTERFACE}); keep one "
            "way to it",
        ),
        (
            root / "up",
            f"a symlink back up to {root}, which holds it: a loop, not followed (the "
            f"fixtures there are read once, from {root}); remove the link",
        ),
    ]
    count, problems = verify_store(root)
    assert count == 1 and [p.file for p in problems] == [str(root / "copy"), str(root / "up")]


def test_the_stores_own_folder_is_walked_before_a_link_to_it(tmp_path: Path) -> None:
    root = tmp_path / "store"
    with FixtureStore.open(root) as store:
        store.put(_fixture(1))
    (root / "a-link").symlink_to(root / INTERFACE)  # sorts before the folder it links to
    (written,) = store_files(root)
    assert written.parent == root / INTERFACE
    with FixtureStore.open(root) as store:
        assert [loc.file for loc in store.locations()] == [written]
    assert [file for file, _ in store_tree(root).unread] == [root / "a-link"]


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (
            lambda link: link.symlink_to("../gone"),
            "is a symlink to '../gone', which does not exist",
        ),
        (lambda link: link.symlink_to(link.name), "is a symlink loop"),
    ],
    ids=["to nothing", "to itself"],
)
def test_a_link_to_nothing_is_reported(tmp_path: Path, make: Any, reason: str) -> None:
    root = tmp_path / "store"
    root.mkdir()
    make(root / INTERFACE)
    count, problems = verify_store(root)
    assert count == 0
    assert [(p.file, p.reason) for p in problems] == [
        (str(root / INTERFACE), f"{reason}, where a folder is expected")
    ]
    with FixtureStore.open(root) as store:
        assert len(store) == 0


def test_compact_prune_and_patrol_see_a_linked_fixture_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    shared = tmp_path / "shared"
    shared.mkdir()
    root = tmp_path / "store"
    root.mkdir()
    (root / "shared").symlink_to(shared)
    (root / "again").symlink_to(shared)
    with FixtureStore.open(shared / "grown.jsonl") as store:
        store.put(_fixture(1))
        record_response(store, _request(1), _fixture(1, "b").responses[0], sample=1)
    with FixtureStore.open(root) as store:
        store.put(_fixture(2))
    (folded,) = compact(root, write=False)
    assert folded.file == root / "again" / "grown.jsonl"  # "again" sorts first
    session = hits.HitLog(tmp_path / "hits", "20261205T000000Z-0001", tmp_path)
    session.note(tmp_path / "other.jsonl", "0" * 12)  # a test session that played neither
    session.flush()
    found = patrol(root, runs=1, refs=[], hits_dir=tmp_path / "hits")
    assert sorted(row.key for row in found.rows) == sorted([_fixture(1).key, _fixture(2).key])
    result = delete(root, found.unused)
    own = next(f for f in result.files_removed if f.suffix == ".json")  # kept as its backup
    assert len(result.deleted) == 2
    assert result.backups == (root / "again" / "grown.jsonl.bak", Path(f"{own}.bak"))
    assert (root / "again").is_symlink() and (shared / "grown.jsonl.bak").is_file()
    with FixtureStore.open(root) as store:
        assert len(store) == 0
