"""A store path that is a symlink: writes and the lock go to the file it links to.

An atomic rewrite renames a new file onto its target: onto the link, it would replace
the link with a copy and leave the real store unchanged. Appends, rewrites (``put``
with ``replace``, ``compact``, ``prune --yes``, ``verify --repair``) and the lock all
follow the link, and the link stays a link.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from filelock import FileLock, Timeout

from replaygate import Fixture, FixtureStore
from replaygate.fixtures.store import record_response, repair_partial_tail
from replaygate.fixtures.store.leftovers import LeftoverTempWarning
from run_cli import replaygate
from test_patrol import play, put
from test_prune import prune, setup_store, stored_keys
from test_store import META, fixture, request, response, write_lines
from test_store_samples import add


@pytest.fixture
def linked(tmp_path: Path) -> tuple[Path, Path]:
    """``(link, real)``: ``<tmp>/s.jsonl`` links to ``<tmp>/real/store.jsonl``."""
    real = tmp_path / "real" / "store.jsonl"
    real.parent.mkdir()
    write_lines(real, fixture(0))
    link = tmp_path / "s.jsonl"
    link.symlink_to(Path("real") / "store.jsonl")
    return link, real


def still_linked(link: Path, real: Path) -> None:
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert not list(link.parent.glob(f"{link.name}.lock"))
    assert not [p for p in real.parent.iterdir() if p.name.endswith(".tmp")]


def test_the_lock_of_a_linked_store_is_the_real_files(linked: tuple[Path, Path]) -> None:
    link, real = linked
    store = FixtureStore.open(link)
    assert store.lock_path == FixtureStore(real).lock_path == real.with_name("store.jsonl.lock")
    with FileLock(str(real.with_name("store.jsonl.lock"))), pytest.raises(Timeout):
        store.lock().acquire(timeout=0.05)  # a writer on the real path excludes this one


def test_appends_and_rewrites_through_a_link_reach_the_real_file(
    linked: tuple[Path, Path],
) -> None:
    link, real = linked
    with FixtureStore.open(link) as store:
        store.put(fixture(1))
        record_response(store, request("question 1"), response("second"), sample=1, meta=META)
        store.put(Fixture.create(request("question 0"), [response("new")], META), replace=True)
    still_linked(link, real)
    found = FixtureStore.open(real).lookup(request("question 0"))
    assert found is not None and found.responses == (response("new"),)
    assert len(FixtureStore.open(real)) == 2


def test_compact_through_a_link_rewrites_the_real_file(linked: tuple[Path, Path]) -> None:
    link, real = linked
    add(link, "question 0", 1, "second")
    done = replaygate("compact", str(link))
    assert done.returncode == 0, done.stderr
    still_linked(link, real)
    assert len(real.read_bytes().splitlines()) == 1


def test_repair_through_a_link_cuts_the_real_files_partial_tail(
    linked: tuple[Path, Path],
) -> None:
    link, real = linked
    good = real.read_bytes()
    real.write_bytes(good + fixture(1).to_line()[:40])
    done = replaygate("verify", "--repair", "--allow-missing-meta", str(link))
    assert "removed a partial tail of 40 bytes" in done.stdout, done.stdout
    still_linked(link, real)
    assert real.read_bytes() == good
    assert repair_partial_tail(link) is None
    # the backup is beside the real file, where the rewrite went, not beside the link
    assert f"(backup: {real.resolve()}.bak)" in done.stdout, done.stdout
    assert real.with_name("store.jsonl.bak").read_bytes() == good + fixture(1).to_line()[:40]
    assert not link.with_name("s.jsonl.bak").exists()


def linked_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """An empty store ``real/rag.jsonl`` and ``tests/rag.jsonl`` linking to it, in the
    working folder ``tmp_path``: (the real file, the link)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tests").mkdir()
    real = tmp_path / "real" / "rag.jsonl"
    real.parent.mkdir()
    real.touch()
    link = tmp_path / "tests" / "rag.jsonl"
    link.symlink_to(real)
    return real, link


def test_prune_through_a_link_rewrites_the_real_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real, link = linked_store(tmp_path, monkeypatch)
    keys = setup_store(tmp_path, link)
    done = prune(str(link), "--unused", "--yes")
    assert done.exit_code == 0 and "deleted 2 fixture(s)" in done.output, done.output
    still_linked(link, real)
    assert stored_keys(real) == {keys["played"], keys["referenced"]}


def test_prune_of_every_fixture_through_a_link_empties_the_real_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Removing the file removed the link and left every fixture in the real file.
    real, link = linked_store(tmp_path, monkeypatch)
    put(link, "unused", "2026-01-01T00:00:00Z")
    other = tmp_path / "tests" / "other.jsonl"
    put(other, "played", "2026-01-01T00:00:00Z")
    play(other, "played", tmp_path / ".replaygate" / "hits", "20261130T000000Z-0001", tmp_path)
    (tmp_path / "tests" / "conftest.py").write_text("", encoding="utf-8")  # code, searched
    before = real.read_bytes()
    done = prune(str(link), "--unused", "--yes")
    assert done.exit_code == 0 and "deleted 1 fixture(s)" in done.output, done.output
    still_linked(link, real)
    assert real.read_bytes() == b""
    assert real.with_name("rag.jsonl.bak").read_bytes() == before


def test_a_leftover_beside_the_real_file_is_removed_through_the_link(
    linked: tuple[Path, Path],
) -> None:
    link, real = linked
    leftover = real.with_name(".store.jsonl.999.tmp")
    leftover.write_bytes(b"half a rewrite")
    with pytest.warns(LeftoverTempWarning, match="removed 1 temporary file"):
        FixtureStore.open(link)
    assert not leftover.exists()


@pytest.fixture
def renamed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, dict[str, str]]:
    """A store folder holding ``a.jsonl`` and ``b.jsonl``, an old name of it kept as a
    link, with the fixtures of :func:`~test_prune.setup_store`: (the folder, their keys)."""
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "tests" / "fixtures" / "st"
    folder.mkdir(parents=True)
    keys = setup_store(tmp_path, folder / "a.jsonl")
    (folder / "b.jsonl").symlink_to("a.jsonl")
    return folder, keys


def test_prune_of_a_file_named_twice_locks_and_rewrites_it_once(
    renamed: tuple[Path, dict[str, str]],
) -> None:
    # the second name's lock object met the first's: filelock refused it (Deadlock)
    folder, keys = renamed
    real, link = folder / "a.jsonl", folder / "b.jsonl"
    original = real.read_bytes()
    done = prune(str(folder), "--unused", "--yes")
    assert done.exit_code == 0, done.output
    assert "deleted 2 fixture(s)" in done.output
    assert "st/b.jsonl" not in done.output  # listed under the name that is not a link
    assert stored_keys(real) == {keys["played"], keys["referenced"]}
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert folder.joinpath("a.jsonl.bak").read_bytes() == original
    assert (
        not folder.joinpath("b.jsonl.bak").exists() and not folder.joinpath("a.jsonl.bak1").exists()
    )


def test_a_fixture_referenced_under_the_links_name_only_is_kept(
    renamed: tuple[Path, dict[str, str]],
) -> None:
    folder, keys = renamed
    Path("tests/test_old.py").write_text('STORE = "fixtures/st/b.jsonl"\n', encoding="utf-8")
    done = prune(str(folder), "--unused", "--yes")
    assert done.exit_code == 0 and "nothing to prune" in done.output, done.output
    assert stored_keys(folder / "a.jsonl") == set(keys.values())


def test_a_file_named_twice_left_without_fixtures_is_emptied_not_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "tests" / "fixtures"
    put(folder / "a.jsonl", "unused", "2026-01-01T00:00:00Z")
    (folder / "b.jsonl").symlink_to("a.jsonl")
    other = folder / "other.jsonl"
    put(other, "played", "2026-01-01T00:00:00Z")
    play(other, "played", tmp_path / ".replaygate" / "hits", "20261130T000000Z-0001", tmp_path)
    (tmp_path / "tests" / "conftest.py").write_text("", encoding="utf-8")  # code, searched
    done = prune(str(folder), "--unused", "--yes")
    assert done.exit_code == 0 and "deleted 1 fixture(s)" in done.output, done.output
    assert (folder / "a.jsonl").read_bytes() == b""  # the link to it still leads to a store
    assert replaygate("checksum", str(folder)).returncode == 0


def test_prune_leaves_the_fixtures_of_a_linked_interface_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # another repository's fixtures were deleted, judged by this repository's runs alone
    monkeypatch.chdir(tmp_path)
    theirs = put(tmp_path / "other" / "fixtures", "their question", "2026-01-01T00:00:00Z")
    shared = next((tmp_path / "other" / "fixtures").iterdir())
    folder = tmp_path / "tests" / "fixtures"
    folder.mkdir(parents=True)
    (folder / shared.name).symlink_to(Path("..", "..", "other", "fixtures", shared.name))
    ours = folder / "own.jsonl"
    put(ours, "played", "2026-01-01T00:00:00Z")
    play(ours, "played", tmp_path / ".replaygate" / "hits", "20261130T000000Z-0001", tmp_path)
    (tmp_path / "tests" / "conftest.py").write_text("", encoding="utf-8")  # code, searched
    linked = f"tests/fixtures/{shared.name}/{theirs[:12]}.json"
    dry = prune("tests/fixtures", "--unused")
    assert f"  {linked}  key {theirs[:12]}" in dry.output, dry.output
    before = {p.name: p.read_bytes() for p in shared.iterdir()}
    done = prune("tests/fixtures", "--unused", "--yes")
    assert done.exit_code == 0, done.output
    assert "deleted 0 fixture(s)" in done.output
    assert (
        f"  {linked}: reached through a symlink: not pruned; prune the store it belongs to"
        in done.output
    )
    assert {p.name: p.read_bytes() for p in shared.iterdir()} == before


LINKS_UNDER_THE_REFS = {  # the link, where it leads, the store, the code that names the link
    "to a store file": (
        "tests/fixtures/rc.jsonl",
        "../../shared/copilot.jsonl",
        "shared/copilot.jsonl",
        ("tests/test_rag.py", 'STORE = HERE / "fixtures" / "rc.jsonl"\n'),
    ),
    "to a folder store": (
        "tests/fixtures/chat",
        "../../shared/conversations",
        "shared/conversations",
        ("tests/test_chat.py", 'STORE = HERE / "fixtures" / "chat"\n'),
    ),
    "to the folder of a test's stores": (
        "tests/fixtures/test_api",
        "../../shared/api",
        "shared/api/test_ask.jsonl",
        ("tests/test_api.py", "@pytest.mark.skip\ndef test_ask(anthropic_client):\n    ...\n"),
    ),
}


@pytest.mark.parametrize("way", LINKS_UNDER_THE_REFS)
def test_a_fixture_referenced_through_a_link_under_the_refs_is_kept_where_it_is_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, way: str
) -> None:
    """The store a link leads to is pruned from its own folder, as the links' section of
    docs/fixtures.md says: the code naming the link references it (the test is skipped:
    none of its fixtures is played)."""
    monkeypatch.chdir(tmp_path)
    link, target, store, (code, text) = LINKS_UNDER_THE_REFS[way]
    Path(link).parent.mkdir(parents=True)
    keys = {put(Path(store), q, "2026-01-01T00:00:00Z") for q in ("one", "two")}
    other = tmp_path / "tests" / "other.jsonl"
    put(other, "played", "2026-01-01T00:00:00Z")
    play(other, "played", tmp_path / ".replaygate" / "hits", "20261130T000000Z-0001", tmp_path)
    Path(link).symlink_to(target)
    Path(code).write_text(text, encoding="utf-8")
    for pruned in (link, store):  # through the link, and where the fixtures are
        done = prune(pruned, "--unused", "--refs", "tests", "--yes")
        assert done.exit_code == 0 and "nothing to prune" in done.output, done.output
        assert "kept: 0 played, 2 referenced only" in done.output
    assert stored_keys(Path(store)) == keys


def test_a_fixture_referenced_by_the_name_of_the_file_its_store_links_to_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tests" / "fixtures").mkdir(parents=True)
    keys = setup_store(tmp_path, tmp_path / "shared" / "copilot.jsonl")
    (tmp_path / "tests" / "fixtures" / "rc.jsonl").symlink_to("../../shared/copilot.jsonl")
    Path("tests/test_rag.py").write_text('STORE = ROOT / "shared" / "copilot.jsonl"\n')
    done = prune("tests/fixtures", "--unused", "--yes")
    assert done.exit_code == 0 and "nothing to prune" in done.output, done.output
    assert stored_keys(tmp_path / "shared" / "copilot.jsonl") == set(keys.values())
