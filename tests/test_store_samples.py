"""Sample lines: a sample of a stored request is appended, not rewritten; `compact` folds them."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import orjson
import pytest

from replaygate import Fixture, FixtureFormatError, FixtureStore
from replaygate.fixtures import fingerprint
from replaygate.fixtures.store import iter_jsonl, record_response
from replaygate.fixtures.store.added import MAX_SAMPLE, answer_digest
from replaygate.fixtures.store.compact import compact
from replaygate.hygiene import stored
from run_cli import replaygate
from test_store import META, fixture, request, response, write_lines

DIGEST_1 = fingerprint.digest(request("question 1"))


def sample_line(digest: str, sample: Any, text: str, **extra: Any) -> bytes:
    obj = {"key": digest, "sample": sample, "response": response(text), **extra}
    return orjson.dumps(obj) + b"\n"


def add(path: Path, question: str, sample: int, text: str) -> Fixture:
    with FixtureStore.open(path) as store:
        return record_response(store, request(question), response(text), sample=sample, meta=META)


def test_a_sample_is_appended_and_the_lines_before_stay_as_they_were(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write_lines(path, fixture(0), fixture(1), fixture(2))
    before, inode = path.read_bytes(), path.stat().st_ino
    assert add(path, "question 1", 1, "second").responses == (
        response("answer 1"),
        response("second"),
    )
    add(path, "question 1", 3, "fourth")
    data = path.read_bytes()
    assert data.startswith(before) and path.stat().st_ino == inode
    added = [orjson.loads(raw) for raw in data[len(before) :].splitlines()]
    assert [(a["key"], a["sample"]) for a in added] == [(DIGEST_1, 1), (DIGEST_1, 3)]
    found = FixtureStore.open(path).lookup(request("question 1"))
    assert found is not None
    assert found.responses == (response("answer 1"), response("second"), None, response("fourth"))
    assert FixtureStore.open(path).lookup(request("question 2")) == fixture(2)


def test_a_later_sample_line_wins_and_meta_follows_it(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write_lines(path, fixture(1))
    with FixtureStore.open(path) as store:
        req = request("question 1")
        record_response(store, req, response("re-recorded"), sample=0, meta={**META, "note": "new"})
    found = FixtureStore.open(path).lookup(request("question 1"))
    assert found is not None and found.responses == (response("re-recorded"),)
    assert found.meta is not None and found.meta["note"] == "new"
    assert len(path.read_bytes().splitlines()) == 2


def test_an_open_store_sees_a_sample_another_writer_appended(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write_lines(path, fixture(1))
    reader = FixtureStore.open(path)
    assert reader.lookup(request("question 1")) == fixture(1)
    add(path, "question 1", 1, "second")
    reader.refresh()
    found = reader.lookup(request("question 1"))
    assert found is not None and found.samples == 2


def test_replacing_a_fixture_drops_its_sample_lines(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write_lines(path, fixture(0), fixture(1))
    add(path, "question 1", 1, "second")
    FixtureStore.open(path).put(fixture(1, answer="replaced"), replace=True)
    assert FixtureStore.open(path).lookup(request("question 1")) == fixture(1, answer="replaced")
    assert DIGEST_1.encode() not in path.read_bytes()


@pytest.mark.slow
def test_threads_adding_samples_to_one_fixture_lose_none(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write_lines(path, fixture(1))

    def worker(start: int) -> None:
        for sample in range(start, 40, 4):
            add(path, "question 1", sample, f"sample {sample}")

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(1, 5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    found = FixtureStore.open(path).lookup(request("question 1"))
    assert found is not None
    assert found.responses[1:] == tuple(response(f"sample {i}") for i in range(1, 40))


def test_samples_of_two_requests_sharing_a_short_key_stay_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fingerprint, "KEY_LENGTH", 1)
    seen: dict[str, str] = {}
    for i in range(200):
        key = fingerprint.fixture_key(request(f"q{i}"))
        if key in seen:
            first, second = seen[key], f"q{i}"
            break
        seen[key] = f"q{i}"
    path = tmp_path / "s.jsonl"
    with FixtureStore.open(path) as store:
        for question in (first, second):
            store.put(Fixture.create(request(question), [response(question)], META))
    add(path, second, 1, f"{second}'s sample")
    add(path, first, 1, f"{first}'s sample")
    store = FixtureStore.open(path)
    for question in (first, second):
        found = store.lookup(request(question))
        assert found is not None
        assert found.responses == (response(question), response(f"{question}'s sample"))


def test_a_stale_key_is_put_right_by_a_rewrite_not_an_append(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    stale = Fixture("0123456789ab", request("question 1"), (response("answer 1"),), META)
    path.write_bytes(orjson.dumps(stale.to_json()) + b"\n")
    add(path, "question 1", 1, "second")
    (stored,) = path.read_bytes().splitlines()
    assert orjson.loads(stored)["key"] == fixture(1).key
    found = FixtureStore.open(path).lookup(request("question 1"))
    assert found is not None and found.samples == 2


@pytest.mark.parametrize(
    ("added", "reason"),
    [
        (sample_line("f" * 64, 1, "x"), r"s.jsonl:2: sample line for key ffffffffffff: no fixture"),
        (sample_line(DIGEST_1[:12], 1, "x"), r"s.jsonl:2: sample line: field 'key' must be"),
        (sample_line(DIGEST_1, MAX_SAMPLE + 1, "x"), r"s.jsonl:2: sample line: field 'sample'"),
        (sample_line(DIGEST_1, True, "x"), r"s.jsonl:2: sample line: field 'sample'"),
        (sample_line(DIGEST_1, 1, "x", note="?"), r"s.jsonl:2: sample line: unknown field"),
        (
            sample_line(DIGEST_1, 1, "x", note="?", meta={"replaygate_version": "9.0"}),
            r"s.jsonl:2: sample line: unknown field\(s\) 'note': this line was written by "
            r"replaygate 9.0 \(meta.replaygate_version\), .*: upgrade replaygate to read it$",
        ),
        (
            orjson.dumps({"key": DIGEST_1, "sample": 1}) + b"\n",
            r"s.jsonl:2: sample line: field 'response' is missing",
        ),
        (
            b'{"key":"%s","sample":1,"sample":2,"response":null}\n' % DIGEST_1.encode(),
            r"s.jsonl:2: duplicate key sample",
        ),
    ],
)
def test_a_bad_sample_line_is_refused_by_file_and_line(
    tmp_path: Path, added: bytes, reason: str
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(fixture(1).to_line() + added)
    with pytest.raises(FixtureFormatError, match=reason):
        FixtureStore.open(path)
    with pytest.raises(FixtureFormatError, match=reason):
        list(iter_jsonl(path, path.read_bytes()))


def test_a_sample_line_above_its_fixture_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(sample_line(DIGEST_1, 1, "x") + fixture(1).to_line())
    with pytest.raises(FixtureFormatError, match=r"s.jsonl:1: sample line for key"):
        FixtureStore.open(path)


# -- compact ---------------------------------------------------------------------------


def test_compact_folds_sample_lines_and_keeps_other_lines_byte_for_byte(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    untouched = fixture(0).to_line()
    path.write_bytes(untouched + b" " + fixture(2).to_line() + fixture(1).to_line())
    add(path, "question 1", 1, "second")
    add(path, "question 1", 2, "third")
    expected = FixtureStore.open(path).lookup(request("question 1"))
    done = replaygate("compact", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert f"{path}: folded 2 sample line(s) into 1 fixture(s)" in done.stdout
    lines = path.read_bytes().splitlines(keepends=True)
    assert lines[0] == untouched and lines[1] == b" " + fixture(2).to_line()
    assert expected is not None and lines[2] == expected.to_line()
    assert FixtureStore.open(path).lookup(request("question 1")) == expected
    again = replaygate("compact", str(tmp_path))
    assert again.returncode == 0 and f"nothing to compact under {tmp_path}" in again.stdout
    # it said "written": true of a run that rewrote no file
    nothing = orjson.loads(replaygate("compact", "--json", str(tmp_path)).stdout)
    assert nothing == {"path": str(tmp_path), "written": False, "files": []}


def test_compact_check_writes_nothing_and_exits_1(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write_lines(path, fixture(1))
    add(path, "question 1", 1, "second")
    before = path.read_bytes()
    done = replaygate("compact", "--check", "--json", str(path))
    assert done.returncode == 1
    assert orjson.loads(done.stdout) == {
        "path": str(path),
        "written": False,
        "files": [{"file": str(path), "fixtures": 1, "sample_lines": 1}],
    }
    assert path.read_bytes() == before


def test_compact_check_takes_no_lock_and_creates_no_lock_file(tmp_path: Path) -> None:
    # It took the write lock: on a read-only checkout (no lock file, as lock files are
    # git-ignored) it ended with exit 2 "cannot write a fixture", and elsewhere it left
    # a new lock file behind. A folder where a lock would be stands for a lock that
    # cannot be made (chmod stops no one when tests run as root).
    store, blocked = tmp_path / "s.jsonl", tmp_path / "store"
    write_lines(store, fixture(1))
    add(store, "question 1", 1, "second")
    (tmp_path / "s.jsonl.lock").unlink()
    (blocked / ".replaygate.lock").mkdir(parents=True)
    write_lines(blocked / "t.jsonl", fixture(2))
    (blocked / "t.jsonl.lock").mkdir()
    before = sorted(tmp_path.rglob("*"))
    done = replaygate("compact", "--check", str(store))
    assert done.returncode == 1, done.stderr
    assert f"{store}: would fold 1 sample line(s) into 1 fixture(s)" in done.stdout
    done = replaygate("compact", "--check", str(blocked))
    assert done.returncode == 0, done.stderr
    assert f"nothing to compact under {blocked}" in done.stdout
    assert sorted(tmp_path.rglob("*")) == before


def test_compact_of_one_fixture_json_files_makes_no_lock_file(tmp_path: Path) -> None:
    # compact of a folder store's <key>.json file named alone left <key>.json.lock in its
    # interface folder: a file no store reads, which verify of the store then reported
    store = tmp_path / "store"
    with FixtureStore.open(store) as opened:
        opened.put(fixture(1))
    (named,) = store.rglob("*.json")
    before = sorted(tmp_path.rglob("*"))
    for path in (named, store):
        done = replaygate("compact", str(path))
        assert (done.returncode, done.stdout) == (0, f"nothing to compact under {path}\n")
    assert sorted(tmp_path.rglob("*")) == before
    assert "no store reads it" not in replaygate("verify", str(store)).stdout


def test_compact_leaves_a_damaged_file_as_it_was(tmp_path: Path) -> None:
    good, bad = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    write_lines(good, fixture(1))
    add(good, "question 1", 1, "second")
    bad.write_bytes(fixture(2).to_line() + sample_line("e" * 64, 1, "x"))
    before = bad.read_bytes()
    done = replaygate("compact", str(tmp_path))
    assert done.returncode == 2
    assert "b.jsonl:2: sample line for key eeeeeeeeeeee: no fixture" in done.stderr
    assert "Traceback" not in done.stderr
    assert bad.read_bytes() == before
    assert len(good.read_bytes().splitlines()) == 1  # the file before it was compacted
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


def test_compact_names_a_missing_path(tmp_path: Path) -> None:
    done = replaygate("compact", str(tmp_path / "nowhere"))
    assert done.returncode == 2
    assert f"Error: {tmp_path / 'nowhere'}: no such file or folder" in done.stderr


def test_compact_api_on_a_folder_store(tmp_path: Path) -> None:
    inner = tmp_path / "tests" / "fixtures" / "mod" / "t.jsonl"
    inner.parent.mkdir(parents=True)
    write_lines(inner, fixture(1))
    add(inner, "question 1", 1, "second")
    (done,) = compact(tmp_path / "tests" / "fixtures")
    assert (done.file, done.fixtures, done.sample_lines) == (inner, 1, 1)
    assert len(inner.read_bytes().splitlines()) == 1


def test_compact_stops_at_a_partial_last_line_and_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write_lines(path, fixture(1))
    add(path, "question 1", 1, "second")
    path.write_bytes(path.read_bytes() + b'{"key":"ab')
    before = path.read_bytes()
    done = replaygate("compact", str(path))
    assert done.returncode == 2
    assert "s.jsonl:3: truncated last line" in done.stderr and "verify --repair" in done.stderr
    assert path.read_bytes() == before


def test_a_sample_line_below_two_copies_of_a_fixture_goes_to_both(tmp_path: Path) -> None:
    # A merge=union of two branches keeps a fixture line twice; a sample line after both
    # went to the last copy only, so the store served the first copy without the sample
    # and compact wrote two lines that disagree, which every replay then refused.
    path = tmp_path / "s.jsonl"
    write_lines(path, fixture(1))
    add(path, "question 1", 1, "second")
    first, added = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(first + first + added)
    both = (response("answer 1"), response("second"))
    with FixtureStore.open(path) as store:
        assert [store.read(loc).responses for loc in store.locations()] == [both, both]
        found = store.lookup(request("question 1"))
        assert found is not None and found.responses == both
    done = replaygate("compact", str(path))
    assert done.returncode == 0, done.stderr
    assert f"{path}: folded 1 sample line(s) into 2 fixture(s)" in done.stdout
    assert len(path.read_bytes().splitlines()) == 2
    checked = replaygate("verify", str(path))  # META here lacks versions: those are all
    assert "recorded twice" not in checked.stdout and "2 fixture(s) checked" in checked.stdout
    with FixtureStore.open(path) as store:
        found = store.lookup(request("question 1"))
        assert found is not None and found.responses == both


def _compact_writing(monkeypatch: pytest.MonkeyPatch, lines: list[bytes]) -> None:
    from replaygate.fixtures.store import compact as compacting

    monkeypatch.setattr(compacting, "_folded_lines", lambda *_: iter(lines))


@pytest.mark.parametrize(
    ("written", "why"),
    [
        ([b"{not json\n"], "line 1 of the result: malformed JSON"),
        ([fixture(2).to_line()], "would be lost"),  # the fixture of question 1 is gone
        ([fixture(1).to_line()], "with other responses"),  # its sample is gone
    ],
    ids=["unreadable", "lost", "changed"],
)
def test_compact_refuses_to_replace_a_file_with_one_that_replays_otherwise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, written: list[bytes], why: str
) -> None:
    path = tmp_path / "s.jsonl"
    write_lines(path, fixture(1))
    add(path, "question 1", 1, "second")
    before = path.read_bytes()
    _compact_writing(monkeypatch, written)
    with pytest.raises(FixtureFormatError) as refused:
        compact(path)
    assert refused.value.file == str(path)
    assert "compacting it would write a file that does not replay as it does" in str(refused.value)
    assert why in str(refused.value) and "the file is left as it is" in str(refused.value)
    assert path.read_bytes() == before
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


def test_compact_refuses_a_result_holding_a_fixture_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.jsonl"
    write_lines(path, fixture(1))
    add(path, "question 1", 1, "second")
    before = path.read_bytes()
    with FixtureStore.open(path) as store:
        folded = store.lookup(request("question 1"))
    assert folded is not None
    _compact_writing(monkeypatch, [folded.to_line(), fixture(2).to_line()])
    with pytest.raises(FixtureFormatError, match=r"\(2 fixture\(s\) where it holds 1\)"):
        compact(path)
    assert path.read_bytes() == before


def test_a_file_compacted_after_a_hygiene_command_indexed_it_is_read_compacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # patrol, drift and prune (patrol's reading) ended "rewritten on disk since the store
    # was indexed; open the store again" when compact ran meanwhile
    path, compacted = tmp_path / "s.jsonl", tmp_path / "compacted.jsonl"
    write_lines(path, fixture(0), fixture(1))
    add(path, "question 1", 1, "second")
    compacted.write_bytes(path.read_bytes())
    compact(compacted)
    real = FixtureStore.open

    class IndexedThenCompacted:
        @staticmethod
        def open(root: Path) -> FixtureStore:
            store = real(root)
            compacted.replace(path)
            return store

    monkeypatch.setattr(stored, "FixtureStore", IndexedThenCompacted)
    read = {fixture.key: len(fixture.responses) for _, fixture in stored.each_fixture(path)}
    assert read == {fixture(0).key: 1, fixture(1).key: 2}


def test_a_fixture_looked_up_by_key_in_a_file_compacted_since_it_was_indexed_is_found(
    tmp_path: Path,
) -> None:
    # `replaygate show KEY` ended "rewritten on disk since the store was indexed; open
    # the store again" when compact ran between opening the store and reading it
    path, compacted = tmp_path / "s.jsonl", tmp_path / "compacted.jsonl"
    write_lines(path, fixture(0), fixture(1))
    add(path, "question 1", 1, "second")
    compacted.write_bytes(path.read_bytes())
    compact(compacted)
    with FixtureStore.open(path) as store:
        compacted.replace(path)
        ((loc, found),) = store.get(fixture(1).key)
    assert (loc.line, len(found.responses)) == (2, 2)
    with FixtureStore.open(path) as store:  # each fixture in turn (report's fixture ages)
        compacted.write_bytes(b"".join(f.to_line() for f in (fixture(2), found, fixture(0))))
        compacted.replace(path)
        assert sorted(f.key for f in store) == sorted(fixture(k).key for k in (0, 1, 2))


@pytest.mark.parametrize("layout", ["s.jsonl", "folder"])
def test_a_sample_added_later_keeps_the_fixture_dated_by_its_oldest_answer(
    tmp_path: Path, layout: str
) -> None:
    # compact folded the new sample's meta in, dating a stale answer 0 by today's sample
    path = tmp_path / layout
    with FixtureStore.open(path) as store:
        store.put(fixture(1))  # answer 0 recorded 2025-01-01
        today = {**META, "recorded_at": "2026-12-05T10:00:00Z", "source": "live"}
        record_response(store, request("question 1"), response("second"), sample=1, meta=today)
    compact(path)
    (kept,) = FixtureStore.open(path)
    assert kept.meta == {**today, "recorded_at": "2025-01-01T00:00:00Z"}
    # an answer replacing the only one the fixture held dates it anew
    with FixtureStore.open(path) as store:
        store.put(fixture(2))
        record_response(store, request("question 2"), response("again"), meta=today)
    compact(path)
    again = FixtureStore.open(path).lookup(request("question 2"))
    assert again is not None and again.meta == today


# -- two branches that each recorded one sample, joined by merge=union ------------------


def branches(tmp_path: Path, first: str, second: str) -> tuple[Path, bytes]:
    """A store of fixture 1 and the lines two branches each appended to its copy (sample 1
    recorded as ``first`` in one, ``second`` in the other), joined as ``merge=union`` joins
    them: the shared lines, then one side's, then the other's; and the shared lines."""
    base = tmp_path / "base.jsonl"
    write_lines(base, fixture(1))
    shared = base.read_bytes()
    tails = []
    for side, text in (("ours", first), ("theirs", second)):
        copy = tmp_path / f"{side}.jsonl"
        copy.write_bytes(shared)
        add(copy, "question 1", 1, text)
        tails.append(copy.read_bytes()[len(shared) :])
    merged = tmp_path / "merged" / "s.jsonl"
    merged.parent.mkdir()
    merged.write_bytes(shared + b"".join(tails))
    return merged, shared


def test_a_sample_two_branches_recorded_with_other_answers_is_refused_naming_both_lines(
    tmp_path: Path,
) -> None:
    path, _ = branches(tmp_path, "ours", "theirs")
    store = FixtureStore.open(path)  # its lines are each well formed
    reason = (
        r"s.jsonl:3: sample line for key [0-9a-f]{12}: sample 1 holds another answer above it "
        r"\(given at line 2\) than the one this line was recorded over \(field 'over'\): two "
        r"branches each recorded this sample, and a merge \(merge=union\) kept both lines"
    )
    with pytest.raises(FixtureFormatError, match=reason):
        store.lookup(request("question 1"))
    with pytest.raises(FixtureFormatError, match=reason):
        list(iter_jsonl(path, path.read_bytes()))
    before = path.read_bytes()
    done = replaygate("compact", str(path.parent))
    assert done.returncode == 2 and "s.jsonl:3: sample line for key" in done.stderr
    assert path.read_bytes() == before


def test_the_sample_line_left_after_the_other_is_deleted_replays(tmp_path: Path) -> None:
    path, shared = branches(tmp_path, "ours", "theirs")
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(shared + lines[2])  # the reviewer keeps their side's answer
    found = FixtureStore.open(path).lookup(request("question 1"))
    assert found is not None and found.responses[1] == response("theirs")


def test_a_sample_both_branches_recorded_with_one_answer_is_a_copy(tmp_path: Path) -> None:
    path, _ = branches(tmp_path, "same", "same")
    found = FixtureStore.open(path).lookup(request("question 1"))
    assert found is not None and found.responses[1] == response("same")


def test_a_sample_recorded_again_after_another_follows_it(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write_lines(path, fixture(1))
    for text in ("first", "second", "third"):
        add(path, "question 1", 1, text)
    overs = [orjson.loads(raw)["over"] for raw in path.read_bytes().splitlines()[1:]]
    assert overs == [answer_digest(None), answer_digest(response("first")),
                     answer_digest(response("second"))]  # fmt: skip
    found = FixtureStore.open(path).lookup(request("question 1"))
    assert found is not None and found.responses[1] == response("third")


def test_sample_lines_that_name_no_earlier_answer_are_taken_later_line_first(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(
        fixture(1).to_line() + sample_line(DIGEST_1, 1, "older") + sample_line(DIGEST_1, 1, "x")
    )
    found = FixtureStore.open(path).lookup(request("question 1"))
    assert found is not None and found.responses[1] == response("x")


@pytest.mark.parametrize("over", ["ABCDEF0123456789", "abc", 7, None])
def test_an_over_that_names_no_answer_is_refused_at_its_field(tmp_path: Path, over: Any) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(fixture(1).to_line() + sample_line(DIGEST_1, 1, "x", over=over))
    with pytest.raises(FixtureFormatError, match=r"s.jsonl:2: sample line: field 'over' must"):
        FixtureStore.open(path)


def test_a_sampled_fixture_s_lines_are_checked_once_and_a_conflict_on_every_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from replaygate.fixtures.store import added as added_module

    path = tmp_path / "s.jsonl"
    write_lines(path, fixture(1))
    for text in ("first", "second"):
        add(path, "question 1", 1, text)
    store = FixtureStore.open(path)
    assert store.lookup(request("question 1")) is not None  # checked here
    calls: list[object] = []
    real = added_module.answer_digest
    monkeypatch.setattr(added_module, "answer_digest", lambda a: calls.append(a) or real(a))
    found = store.lookup(request("question 1"))  # each send of it reads it again
    assert found is not None and found.responses[1] == response("second") and calls == []
    (tmp_path / "b").mkdir()
    merged, _ = branches(tmp_path / "b", "ours", "theirs")
    conflicted = FixtureStore.open(merged)
    for _ in range(2):
        with pytest.raises(FixtureFormatError, match="sample 1 holds another answer"):
            conflicted.lookup(request("question 1"))
