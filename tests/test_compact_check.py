"""``compact`` checks what it writes as it writes it, then the file written, before the swap.

A line kept is the bytes the store read; a folded line must read back as the fixture the
store serves; the file on disk must hold exactly the bytes meant (SHA-256). A file that
would not read back the same never takes the old one's place: the old file is kept.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import orjson
import pytest

from replaygate import Fixture, FixtureFormatError, FixtureStore
from replaygate.fixtures.store import compact as compacting
from replaygate.fixtures.store.compact import compact
from replaygate.outputs import atomic_write
from run_cli import replaygate
from test_store import fixture, request, response, write_lines
from test_store_samples import add

REFUSED = "compacting it would write a file that does not replay as it does"
DAMAGED = "it changed on disk between its writing and its taking the file's place"


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """Three fixtures, the middle one with a sample line appended."""
    path = tmp_path / "s.jsonl"
    write_lines(path, fixture(0), fixture(1), fixture(2))
    add(path, "question 1", 1, "second")
    return path


def before_swap(monkeypatch: pytest.MonkeyPatch, act: Callable[[Path, Path], None]) -> None:
    """Make ``act(target, written)`` happen in ``compact``'s atomic write once the compacted
    file is written, before its check and its taking the target's place."""

    def written_then_acted(
        target: Path, data: Iterable[bytes], *, check: Callable[[Path], None]
    ) -> None:
        def acted(written: Path) -> None:
            act(target, written)
            check(written)

        atomic_write(target, data, check=acted)

    monkeypatch.setattr(compacting, "atomic_write", written_then_acted)


def damage_before_swap(monkeypatch: pytest.MonkeyPatch, damage: Callable[[Path], None]) -> None:
    """Make ``compact``'s atomic write apply ``damage`` to the file it wrote, before its check."""
    before_swap(monkeypatch, lambda target, written: damage(written))


def replace_bytes(old: bytes, new: bytes) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        data = path.read_bytes()
        assert old in data
        path.write_bytes(data.replace(old, new, 1))

    return damage


def cut(path: Path) -> None:
    os.truncate(path, path.stat().st_size - 10)


def zeroed(path: Path) -> None:
    path.write_bytes(b"\0" * path.stat().st_size)


def line_more(path: Path) -> None:
    with path.open("ab") as handle:
        handle.write(fixture(3).to_line())


def assert_kept(path: Path, before: bytes, refused: FixtureFormatError) -> None:
    assert refused.file == str(path)
    assert REFUSED in str(refused) and "the file is left as it is" in str(refused)
    assert path.read_bytes() == before
    assert not [p for p in os.listdir(path.parent) if p.endswith(".tmp")]
    found = FixtureStore.open(path).lookup(request("question 1"))  # its sample still there
    assert found is not None and found.responses == (response("answer 1"), response("second"))


@pytest.mark.parametrize(
    "damage",
    [
        replace_bytes(b"answer 0", b"answer 9"),  # a kept line, still a fixture
        replace_bytes(b'"second"', b'"secand"'),  # the folded line, still a fixture
        cut,
        zeroed,
        line_more,
    ],
    ids=["kept-line", "folded-line", "cut", "zeroed", "line-more"],
)
def test_a_write_damaged_before_the_swap_is_refused_and_the_file_kept(
    store: Path, monkeypatch: pytest.MonkeyPatch, damage: Callable[[Path], None]
) -> None:
    before = store.read_bytes()
    damage_before_swap(monkeypatch, damage)
    with pytest.raises(FixtureFormatError) as refused:
        compact(store)
    assert DAMAGED in str(refused.value) and refused.value.line == 0
    assert_kept(store, before, refused.value)


def test_the_command_exits_2_naming_the_file_when_its_write_was_damaged(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = store.read_bytes()
    damage_before_swap(monkeypatch, cut)
    done = replaygate("compact", str(store))
    assert done.returncode == 2, done
    assert done.stderr.startswith(f"Error: {store}: {REFUSED}") and DAMAGED in done.stderr
    assert store.read_bytes() == before


def written_instead(monkeypatch: pytest.MonkeyPatch, rewrite: Callable[[bytes], bytes]) -> None:
    """Make ``compact`` write each line it means to write as ``rewrite`` gives it."""
    folded_lines = compacting._folded_lines

    def rewritten(*args: object) -> Iterable[bytes]:
        return map(rewrite, folded_lines(*args))

    monkeypatch.setattr(compacting, "_folded_lines", rewritten)


def test_a_kept_line_written_as_other_bytes_of_the_same_fixture_is_refused(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = store.read_bytes()
    written_instead(monkeypatch, lambda line: line.replace(b'{"key":', b'{ "key":', 1))
    with pytest.raises(FixtureFormatError) as refused:
        compact(store)
    assert refused.value.line == 1  # the first fixture of the file, a kept line
    key = fixture(0).key
    assert f"key {key} would be written otherwise than the store read it" in str(refused.value)
    assert_kept(store, before, refused.value)


def test_a_result_missing_its_last_fixture_is_refused(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = store.read_bytes()
    folded_lines = compacting._folded_lines
    monkeypatch.setattr(compacting, "_folded_lines", lambda *args: list(folded_lines(*args))[:-1])
    with pytest.raises(FixtureFormatError, match=r"\(2 fixture\(s\) where it holds 3\)") as refused:
        compact(store)
    assert_kept(store, before, refused.value)


def test_a_folded_line_that_does_not_read_back_is_refused(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = store.read_bytes()
    to_line = Fixture.to_line

    def twice(self: Fixture) -> bytes:  # a key twice: orjson reads it, the store refuses it
        return to_line(self).replace(b'{"key":', b'{"key":"x","key":', 1)

    monkeypatch.setattr(Fixture, "to_line", twice)
    with pytest.raises(FixtureFormatError) as refused:
        compact(store)
    assert "(line 2 of the result: duplicate key key: " in str(refused.value)
    assert_kept(store, before, refused.value)


def test_a_folded_line_that_reads_back_as_another_fixture_is_refused(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = store.read_bytes()
    to_line = Fixture.to_line

    def marked(self: Fixture) -> bytes:  # read back and written again, a line gains a mark
        return to_line(self).replace(b"second", b"second!", 1)

    monkeypatch.setattr(Fixture, "to_line", marked)
    with pytest.raises(FixtureFormatError) as refused:
        compact(store)
    assert refused.value.line == 2
    assert f"key {fixture(1).key} would be with other responses" in str(refused.value)
    assert_kept(store, before, refused.value)


def test_what_reads_cleanly_is_compacted_without_a_false_refusal(tmp_path: Path) -> None:
    # CRLF line ends, blank lines, a request recorded twice (the sample goes to both
    # copies), non-ASCII text, a hand-staled key and a last line without its newline
    path = tmp_path / "s.jsonl"
    twice = fixture(1)
    stale = orjson.loads(fixture(4, "答案 4").to_line())
    stale["key"] = "0123456789ab"
    path.write_bytes(
        fixture(0).to_line().replace(b"\n", b"\r\n")
        + b"\n"
        + twice.to_line()
        + twice.to_line()
        + orjson.dumps(stale)
        + b"\n"
    )
    add(path, "question 1", 1, "second")
    with path.open("ab") as handle:
        handle.write(fixture(2).to_line().rstrip(b"\n"))
    with FixtureStore.open(path) as opened:
        before = sorted(orjson.dumps(f.to_json()) for f in opened)
    assert [(c.fixtures, c.sample_lines) for c in compact(path)] == [(2, 1)]
    lines = path.read_bytes().splitlines(keepends=True)
    assert len(lines) == 5 and lines[0].endswith(b"\r\n") and lines[-1].endswith(b"\n")
    with FixtureStore.open(path) as opened:
        assert sorted(orjson.dumps(f.to_json()) for f in opened) == before
        assert opened.sample_lines() == {}


CHANGED = (
    "changed on disk while compact read it (edited, cut, appended to or replaced by another "
    "program); the file is left as it stands: run compact again"
)


def moved_over(path: Path) -> None:
    """Another file moved over ``path`` (``mv``, ``git checkout``, an editor's save)."""
    other = path.with_name("other.jsonl")
    write_lines(other, fixture(7))
    other.replace(path)


def edited_in_place(path: Path) -> None:
    """``sed -i``: a new file with the edit, renamed over the old one."""
    data = path.read_bytes().replace(b"answer 0", b"answer 0 edited", 1)
    moved = path.with_name(".sed.tmp")
    moved.write_bytes(data)
    moved.replace(path)


@pytest.mark.parametrize(
    "change",
    [moved_over, edited_in_place, cut, line_more],
    ids=["moved-over", "edited-in-place", "cut", "appended"],
)
def test_a_file_another_program_changed_before_the_swap_is_left_as_it_stands(
    store: Path, monkeypatch: pytest.MonkeyPatch, change: Callable[[Path], None]
) -> None:
    # the compacted file took the changed one's place and compact passed: the change lost
    expected = store.with_name("expected.jsonl")
    expected.write_bytes(store.read_bytes())
    change(expected)  # what the other program leaves
    before_swap(monkeypatch, lambda target, written: change(target))  # another program
    done = replaygate("compact", str(store))
    assert done.returncode == 2, done
    assert done.stderr == f"Error: {store}: {CHANGED}\n"
    assert store.read_bytes() == expected.read_bytes()
    assert not [p for p in os.listdir(store.parent) if p.endswith(".tmp")]


class _CutWhileRead(FixtureStore):
    """A store whose file another program cuts short as soon as it has been indexed."""

    def sample_lines(self) -> Any:
        found = super().sample_lines()
        os.truncate(self.path, 10)
        return found


@pytest.mark.parametrize("write", [False, True], ids=["check", "write"])
def test_a_file_cut_while_compact_reads_it_is_no_pass(
    store: Path, monkeypatch: pytest.MonkeyPatch, write: bool
) -> None:
    # compact --check said "nothing to compact" (exit 0) of a file it no longer held
    untouched = store.with_name("plain.jsonl")
    write_lines(untouched, fixture(0))
    monkeypatch.setattr(compacting, "FixtureStore", _CutWhileRead)
    with pytest.raises(FixtureFormatError) as refused:
        compact(untouched, write=write)
    assert refused.value.file == str(untouched)
    if write:  # changed while read unlocked: read again under its lock, as it now stands
        assert refused.value.reason.startswith("truncated last line"), refused.value.reason
    else:
        assert refused.value.reason == CHANGED
    with pytest.raises(FixtureFormatError) as refused:
        compact(store, write=write)  # its sample lines are read again: found changed there
    assert refused.value.reason.startswith("changed on disk since it was indexed: ")


class _AppendedWhileRead(FixtureStore):
    """A store whose file a recording appends a fixture to once it has been indexed."""

    def sample_lines(self) -> Any:
        found = super().sample_lines()
        if not self.path.with_name("appended").exists():
            self.path.with_name("appended").touch()
            with open(self.path, "ab") as file:
                file.write(fixture(5).to_line())
        return found


def test_a_file_a_recording_appends_to_while_compact_reads_it_is_read_again(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # read without the lock, a file with nothing to fold that a recorder appended to
    # failed compact ("changed on disk"), beside two recordings at once
    plain = store.with_name("plain.jsonl")
    write_lines(plain, fixture(0))
    monkeypatch.setattr(compacting, "FixtureStore", _AppendedWhileRead)
    assert compact(plain, write=True) == []  # read again under the lock: nothing to fold
    assert [f.key for f in FixtureStore.open(plain)] == [fixture(0).key, fixture(5).key]


def test_a_damaged_fixture_file_of_a_folder_store_fails_compact_and_its_check(
    tmp_path: Path,
) -> None:
    # the .json files were only stat'ed: compact --check passed a store verify refuses
    folder = tmp_path / "fixtures"
    with FixtureStore.open(folder) as opened:
        opened.put(fixture(0))
    (stored,) = folder.rglob("*.json")
    stored.write_bytes(stored.read_bytes()[:50])
    before = stored.read_bytes()
    for args in (("compact", "--check", str(folder)), ("compact", str(folder))):
        done = replaygate(*args)
        assert done.returncode == 2, done
        assert (
            done.stderr.startswith(f"Error: {stored}") and "nothing to compact" not in done.stdout
        )
    assert stored.read_bytes() == before


class _ReRecordedWhileRead(FixtureStore):
    """A store whose file a re-recording rewrites (a new file in its place, under the
    file's lock) once it has been indexed, before compact reads its lines."""

    def sample_lines(self) -> Any:
        found = super().sample_lines()
        if not self.path.with_name("re-recorded").exists():
            self.path.with_name("re-recorded").touch()
            with FixtureStore.open(self.path) as recorder:
                recorder.put(fixture(0, "fresh"), replace=True)
        return found


@pytest.mark.parametrize("write", [False, True], ids=["check", "write"])
def test_a_file_a_re_recording_rewrites_while_compact_reads_it_is_read_again(
    store: Path, monkeypatch: pytest.MonkeyPatch, write: bool
) -> None:
    # compact failed: "rewritten on disk since the store was indexed; open the store
    # again", an advice for the library, beside a test session re-recording the store
    monkeypatch.setattr(compacting, "FixtureStore", _ReRecordedWhileRead)
    if not write:
        with pytest.raises(FixtureFormatError) as refused:
            compact(store, write=False)
        assert refused.value.reason == CHANGED
        return
    assert [c.fixtures for c in compact(store, write=True)] == [1]
    with FixtureStore.open(store) as opened:
        answers = [[r["content"][0]["text"] for r in f.responses] for f in opened]
    assert answers == [["fresh"], ["answer 1", "second"], ["answer 2"]]
