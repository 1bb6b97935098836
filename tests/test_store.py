"""FixtureStore: layouts, index, loud errors on bad stores, safe writes, samples, collisions."""

from __future__ import annotations

import difflib
import gc
import hashlib
import itertools
import json
import os
import threading
from pathlib import Path
from typing import Any

import orjson
import pytest
from filelock import FileLock
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replaygate import (
    CanonicalFormError,
    Fixture,
    FixtureFormatError,
    FixtureStore,
    Message,
    ReplayModel,
    SecretInFixtureError,
    fixture_key,
    to_anthropic_request,
)
from replaygate._version import __version__
from replaygate.errors import KeyTooShortError, StoreWriteError
from replaygate.fixtures import fingerprint
from replaygate.fixtures.store import (
    PartialTailError,
    reading,
    record_response,
    repair_partial_tail,
)
from replaygate.fixtures.store import fixture_store as fixture_store_module
from replaygate.fixtures.store import index as store_module
from replaygate.fixtures.store.writing import append_line as _append_line
from replaygate.hygiene.verify import verify_store
from unicode_text import unicode_text

META = {"interface": "anthropic.messages", "recorded_at": "2025-01-01T00:00:00Z", "source": "hand"}
SEED_LINE = {
    "key": "87be954b9b97",
    "request": {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "system": "你是严谨的研究助手。",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "什么是 RAG？"}]}],
        "tools": [{"name": "search_corpus", "description": "在本地语料里检索", "parameters": {}}],
    },
    "response": {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "toolu_01", "name": "search_corpus", "input": {"q": "RAG"}}
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 42, "output_tokens": 18},
    },
}


def request(question: str, *, model: str = "claude-sonnet-4-5") -> dict[str, Any]:
    return to_anthropic_request(
        [Message.user(question)], [], model=model, max_tokens=256, system="Be careful."
    )


def response(text: str) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def fixture(i: int, answer: str | None = None) -> Fixture:
    return Fixture.create(request(f"question {i}"), [response(answer or f"answer {i}")], META)


def line(obj: Any) -> bytes:
    return orjson.dumps(obj) + b"\n"


def write_lines(path: Path, *fixtures: Fixture) -> None:
    path.write_bytes(b"".join(f.to_line() for f in fixtures))


def open_error(path: Path) -> FixtureFormatError:
    with pytest.raises(FixtureFormatError) as caught:
        FixtureStore.open(path)
    return caught.value


# -- layouts -------------------------------------------------------------------------


def test_seed_fixture_line_loads_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "seed.jsonl"
    path.write_text(json.dumps(SEED_LINE, ensure_ascii=False) + "\n", encoding="utf-8")
    store = FixtureStore.open(path)
    assert len(store) == 1
    assert [f.key for _, f in store.get("87be954b9b97")] == ["87be954b9b97"]
    # The book's key was written by hand: serving it would hide an edited request.
    with pytest.raises(FixtureFormatError, match=r"seed.jsonl:1: key 87be954b9b97 does not match"):
        store.lookup(json.loads(json.dumps(SEED_LINE["request"])))


def test_seed_fixture_line_with_the_seed_key_function_replays(tmp_path: Path) -> None:
    request = SEED_LINE["request"]
    seed_key = hashlib.sha256(
        json.dumps(request, sort_keys=True, ensure_ascii=False).encode()
    ).hexdigest()[:12]
    path = tmp_path / "seed.jsonl"
    line = {"key": seed_key, "request": request, "response": SEED_LINE["response"]}
    path.write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    found = FixtureStore.open(path).lookup(json.loads(json.dumps(request)))
    assert found is not None
    assert found.response == SEED_LINE["response"] and found.meta is None


def test_an_edited_request_is_refused_at_lookup(tmp_path: Path) -> None:
    path = tmp_path / "edited.jsonl"
    FixtureStore.open(path).put(fixture(0))
    obj = orjson.loads(path.read_bytes())
    obj["request"]["max_tokens"] = 7
    path.write_bytes(orjson.dumps(obj) + b"\n")
    with pytest.raises(FixtureFormatError, match=r"edited.jsonl:1: key .* does not match"):
        FixtureStore.open(path).lookup(obj["request"])


def test_a_line_sorts_the_request_and_keeps_the_response_as_recorded() -> None:
    recorded = {"type": "message", "id": "msg_1", "content": [{"type": "text", "text": "hi"}]}
    fx = Fixture.create({"model": "m", "max_tokens": 8, "messages": []}, [recorded], META)
    raw = fx.to_line()
    assert raw.endswith(b"\n") and raw.count(b"\n") == 1
    assert b'"request":{"max_tokens":8,"messages":[],"model":"m"}' in raw
    assert orjson.dumps(recorded) in raw
    assert list(orjson.loads(raw)) == ["key", "request", "response", "meta"]


def test_jsonl_layout_appends_one_line_per_fixture(tmp_path: Path) -> None:
    path = tmp_path / "fixtures.jsonl"
    store = FixtureStore.open(path)
    assert len(store) == 0 and not store.is_folder
    locations = [store.put(fixture(i)) for i in range(3)]
    assert [loc.line for loc in locations] == [1, 2, 3]
    lines = path.read_bytes().splitlines()
    assert [orjson.loads(raw) for raw in lines] == [fixture(i).sealed().to_json() for i in range(3)]
    reopened = FixtureStore.open(path)
    assert len(reopened) == 3
    assert reopened.lookup(request("question 1")) == fixture(1)
    assert sorted(reopened.keys()) == sorted(fixture(i).key for i in range(3))
    assert sorted(f.key for f in reopened) == sorted(reopened.keys())
    assert store.lock_path == tmp_path / "fixtures.jsonl.lock"


def test_folder_layout_writes_one_pretty_file_per_fixture(tmp_path: Path) -> None:
    root = tmp_path / "fixtures"
    store = FixtureStore.open(root)
    assert store.is_folder
    fx = Fixture.create(request("什么是 RAG？"), [response("RAG 是检索增强生成 [doc-rag]。")], META)
    loc = store.put(fx)
    assert loc.file == root / "anthropic.messages" / f"{fx.key}.json"
    text = loc.file.read_text(encoding="utf-8")
    assert text.endswith("}\n") and not text.endswith("\n\n")
    assert "什么是 RAG？" in text and "\\u" not in text
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert text.splitlines()[1].startswith('  "key"')
    assert FixtureStore.open(root).lookup(request("什么是 RAG？")) == fx
    assert store.lock_path == root / ".replaygate.lock"


def test_a_changed_request_field_is_a_few_changed_lines_of_the_pretty_file() -> None:
    before = Fixture.create(request("What is RAG?"), [response("RAG.")], META).to_pretty()
    after = Fixture.create(request("What is RAG, briefly?"), [response("RAG.")], META).to_pretty()
    diff = [
        d
        for d in difflib.unified_diff(
            before.decode().splitlines(), after.decode().splitlines(), n=0
        )
        if d[:1] in "+-" and d[:3] not in ("+++", "---")
    ]
    assert len(before.splitlines()) > 30
    assert len(diff) == 4, diff  # the key line and the text line, each removed and added
    assert any('"text": "What is RAG, briefly?"' in d for d in diff)


def test_folder_reads_jsonl_and_json_files_at_any_depth(tmp_path: Path) -> None:
    root = tmp_path / "fixtures"
    (root / "a" / "b").mkdir(parents=True)
    write_lines(root / "a" / "old.jsonl", fixture(0), fixture(1))
    (root / "a" / "b" / "x.json").write_bytes(fixture(2).to_pretty())
    (root / "notes.txt").write_text("not a fixture")
    store = FixtureStore.open(root)
    assert len(store) == 3
    for i in range(3):
        assert store.lookup(request(f"question {i}")) == fixture(i)
    assert store.put(fixture(3)).file == root / "anthropic.messages" / f"{fixture(3).key}.json"


def test_a_missing_path_is_an_empty_store(tmp_path: Path) -> None:
    assert len(FixtureStore.open(tmp_path / "none.jsonl")) == 0
    assert len(FixtureStore.open(tmp_path / "none")) == 0
    assert FixtureStore.open(tmp_path / "none").nearest(request("q")) is None


def test_a_single_json_fixture_file_is_read_but_not_appended_to(tmp_path: Path) -> None:
    path = tmp_path / "one.json"
    path.write_bytes(fixture(0).to_pretty())
    store = FixtureStore.open(path)
    assert store.lookup(request("question 0")) == fixture(0)
    with pytest.raises(ValueError, match=r"one-fixture \.json file"):
        store.put(fixture(1))
    assert path.read_bytes() == fixture(0).to_pretty()


# -- lookup --------------------------------------------------------------------------


def test_lookup_is_one_read_whatever_the_store_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads: list[tuple[int, int]] = []
    real_pread = os.pread

    def counting_pread(fd: int, length: int, offset: int) -> bytes:
        reads.append((length, offset))
        return real_pread(fd, length, offset)

    for n in (3, 2000):
        path = tmp_path / f"s{n}.jsonl"
        write_lines(path, *(fixture(i) for i in range(n)))
        store = FixtureStore.open(path)
        third = next(loc for loc in store.locations() if loc.line == 3)
        monkeypatch.setattr(reading.os, "pread", counting_pread)
        reads.clear()
        assert store.lookup(request("question 2")) == fixture(2)
        assert reads == [(third.length, third.offset)]
        reads.clear()
        assert store.lookup(request("not recorded")) is None
        assert reads == []
        monkeypatch.undo()


def test_a_hit_needs_the_whole_request_equal_even_in_one_bucket(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "bucket_of", lambda form: 0)
    path = tmp_path / "s.jsonl"
    write_lines(path, *(fixture(i) for i in range(20)))
    store = FixtureStore.open(path)
    for i in range(20):
        assert store.lookup(request(f"question {i}")) == fixture(i)
    assert store.lookup(request("question 20")) is None
    assert store.lookup(request("question 1", model="other")) is None


def test_forced_short_key_collision_both_replay_their_own_response(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fingerprint, "KEY_LENGTH", 2)
    seen: dict[str, str] = {}
    for i in itertools.count():
        question = f"collide {i}"
        key = fixture_key(request(question))
        if key in seen:
            first, second = seen[key], question
            break
        seen[key] = question
    assert request(first) != request(second)
    assert fingerprint.digest(request(first)) != fingerprint.digest(request(second))
    path = tmp_path / "collide.jsonl"
    store = FixtureStore.open(path)
    store.put(Fixture.create(request(first), [response("first answer")], META))
    store.put(Fixture.create(request(second), [response("second answer")], META))
    reopened = FixtureStore.open(path)
    assert len(reopened.get(key)) == 2
    model = ReplayModel(reopened, model="claude-sonnet-4-5", max_tokens=256, system="Be careful.")
    assert model.complete([Message.user(first)], []).text == "first answer"
    assert model.complete([Message.user(second)], []).text == "second answer"


def test_get_by_stored_or_full_key_and_never_a_short_one(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write_lines(path, fixture(0), fixture(1))
    store = FixtureStore.open(path)
    key = fixture(1).key
    assert [f for _, f in store.get(key)] == [fixture(1)]
    assert [f for _, f in store.get(fingerprint.digest(request("question 1")))] == [fixture(1)]
    with pytest.raises(KeyTooShortError):
        store.get(key[:3])
    assert store.get("ffffffffffff") == []
    # a longer key that the digest does not start with names no fixture (it named fixture 1)
    full = fingerprint.digest(request("question 1"))
    assert [f for _, f in store.get(full[:20])] == [fixture(1)]
    assert store.get(full[:-1] + ("0" if full[-1] != "0" else "1")) == []


def test_a_lookup_compares_the_stored_request_bytes_in_any_line_layout(tmp_path: Path) -> None:
    copied = Fixture.create(request("copied"), [response("c")], {"request": request("copied")})
    meta_first = orjson.dumps(copied.to_json(), option=orjson.OPT_SORT_KEYS)  # meta first
    path = tmp_path / "s.jsonl"
    path.write_bytes(
        fixture(0).to_line()  # as replaygate writes it: the request's match form verbatim
        + (json.dumps(fixture(1).to_json(), ensure_ascii=False) + "\n").encode()  # seed style
        + meta_first  # the first "request" key in the line is a copy inside meta
        + b"\n"
    )
    store = FixtureStore.open(path)
    at = {loc.line: loc.request_at for loc in store.locations()}
    assert at[1] > 0 and at[2] == -1 and 0 < at[3] < meta_first.rindex(b'"request":')
    for question, expected in (
        ("question 0", fixture(0)),
        ("question 1", fixture(1)),
        ("copied", copied),
    ):
        for _ in range(2):  # the first read opens the file, the second takes the fast path
            found = store.find(request(question))
            assert found is not None and found[1] == expected
    assert store.lookup(request("question 2")) is None


def test_a_line_changed_in_place_after_indexing_is_never_served(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write_lines(path, fixture(0), fixture(1))
    store = FixtureStore.open(path)
    assert store.lookup(request("question 1")) == fixture(1)
    data = path.read_bytes()
    with path.open("r+b") as handle:  # same size, same inode: an in-place edit
        handle.write(data.replace(b"question 1", b"question 9"))
    assert store.lookup(request("question 1")) is None
    assert store.lookup(request("question 0")) == fixture(0)


# -- bad stores ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        (b"{not json\n", "malformed JSON"),
        (b"[1, 2]\n", "expected a JSON object, got a list"),
        (b'"text"\n', "expected a JSON object, got text"),
        (b"null\n", "expected a JSON object, got null"),
        (b"<<<<<<< HEAD\n", "a git merge conflict marker"),  # was: malformed JSON
        (b"=======\r\n", "a git merge conflict marker"),
        (b">>>>>>> feature/record-rag\n", "a git merge conflict marker"),
        (b"=======x\n", "malformed JSON"),
        (line({"request": {}, "response": {}}), "field 'key' is missing"),
        (line({"key": "", "request": {}, "response": {}}), "field 'key' is missing"),
        (line({"key": "k" * 12, "response": {}}), "field 'request' is missing or not an object"),
        (line({"key": "k" * 12, "request": [], "response": {}}), "field 'request' is missing"),
        (line({"key": "k" * 12, "request": {}}), "exactly one of 'response' and 'responses'"),
        (
            line({"key": "k" * 12, "request": {}, "response": {}, "responses": [{}]}),
            "exactly one of 'response' and 'responses'",
        ),
        (
            line({"key": "k" * 12, "request": {}, "responses": []}),
            "'responses' must be a non-empty",
        ),
        (
            line({"key": "k" * 12, "request": {}, "responses": {}}),
            "'responses' must be a non-empty",
        ),
        (
            line({"key": "k" * 12, "request": {}, "response": {}, "meta": "x"}),
            "'meta' must be an object",
        ),
        (
            line({"key": "k" * 12, "request": {}, "response": {}, "note": "x", "tags": []}),
            "unknown field(s) 'note', 'tags'",
        ),
        (  # coverage.py's coverage.json: a `meta` of its own, no field only a fixture has
            line({"meta": {"version": "7.6"}, "files": {}, "totals": {}}),
            "not a fixture: none of its fields ('files', 'meta', 'totals') is a fixture's "
            "(key, request, response)",
        ),
        (
            line({**fixture(2).to_json(), "trace": {}, "meta": {"replaygate_version": "0.10.0"}}),
            "unknown field(s) 'trace': this line was written by replaygate 0.10.0 "
            f"(meta.replaygate_version), and this replaygate is {__version__}: upgrade "
            "replaygate to read it",
        ),
        (
            line({**fixture(2).to_json(), "trace": {}, "meta": {"replaygate_version": "0.0.9"}}),
            "unknown field(s) 'trace'\n",
        ),
    ],
)
def test_a_bad_line_fails_naming_file_line_and_reason(
    tmp_path: Path, bad: bytes, reason: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(fixture(0).to_line() + b"\n" + bad + fixture(1).to_line())
    err = open_error(path)
    assert not isinstance(err, PartialTailError)
    assert (err.file, err.line) == (str(path), 3)
    assert reason in err.reason + "\n"
    assert str(err).startswith(f"{path}:3: ")


def test_same_request_twice_with_different_responses_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "dup.jsonl"
    write_lines(path, fixture(0), fixture(1), fixture(0, answer="another answer"))
    err = open_error(path)
    assert (err.file, err.line) == (str(path), 3)
    assert f"key {fixture(0).key}" in err.reason
    assert "recorded twice with different responses" in err.reason
    assert f"also at {path}:1" in err.reason


def test_same_request_twice_with_the_same_response_is_kept_once_for_lookup(tmp_path: Path) -> None:
    path = tmp_path / "dup.jsonl"
    write_lines(path, fixture(0), fixture(0))
    store = FixtureStore.open(path)
    assert len(store) == 2
    found = store.find(request("question 0"))
    assert found is not None and found[0].line == 1


def test_truncated_last_line_is_reported_as_a_partial_tail(tmp_path: Path) -> None:
    path = tmp_path / "crash.jsonl"
    data = fixture(0).to_line() + fixture(1).to_line()
    path.write_bytes(data + fixture(2).to_line()[:50])
    err = open_error(path)
    assert isinstance(err, PartialTailError)
    assert (err.file, err.line, err.offset) == (str(path), 3, len(data))
    assert "truncated last line" in err.reason
    assert f"replaygate verify --repair {path}" in err.reason
    spaced = tmp_path / "my fixtures" / "crash.jsonl"
    spaced.parent.mkdir()
    spaced.write_bytes(path.read_bytes())
    err = open_error(spaced)
    assert f"replaygate verify --repair '{spaced}'" in err.reason  # a command that runs as shown


def test_a_truncated_line_that_is_not_last_is_malformed(tmp_path: Path) -> None:
    path = tmp_path / "mid.jsonl"
    path.write_bytes(fixture(0).to_line()[:50] + b"\n" + fixture(1).to_line())
    err = open_error(path)
    assert not isinstance(err, PartialTailError)
    assert err.line == 1 and "malformed JSON" in err.reason


def test_blank_lines_are_not_fixtures_but_count_as_lines(tmp_path: Path) -> None:
    path = tmp_path / "blank.jsonl"
    path.write_bytes(b"\n" + fixture(0).to_line() + b"  \n\r\n" + b"{oops\n")
    err = open_error(path)
    assert err.line == 5
    path.write_bytes(b"\n" + fixture(0).to_line() + b"  \n" + fixture(1).to_line())
    store = FixtureStore.open(path)
    assert len(store) == 2
    assert [loc.line for loc in store.locations()] == [2, 4]


def test_a_line_of_white_space_json_refuses_is_named_not_passed_over(tmp_path: Path) -> None:
    # bytes.isspace() counts a form feed and a vertical tab as white space; JSON does not
    path = tmp_path / "feed.jsonl"
    path.write_bytes(fixture(0).to_line() + b"\x0c\n" + fixture(1).to_line())
    err = open_error(path)
    assert err.line == 2
    assert "white space that JSON does not allow" in err.reason
    count, problems = verify_store(path, require_meta=False)
    assert [(p.line, p.reason) for p in problems if p.line == 2] == [(2, err.reason)]
    assert count == 2


def test_a_bad_json_file_in_a_folder_names_the_file(tmp_path: Path) -> None:
    root = tmp_path / "fixtures"
    root.mkdir()
    (root / "good.json").write_bytes(fixture(0).to_pretty())
    (root / "bad.json").write_text('{"key": "k", "request": {}')
    err = open_error(root)
    assert (err.file, err.line) == (str(root / "bad.json"), 0)
    assert str(err).startswith(f"{root / 'bad.json'}: malformed JSON")


# -- repair --------------------------------------------------------------------------


def test_repair_removes_only_the_partial_tail_after_a_backup(tmp_path: Path) -> None:
    path = tmp_path / "crash.jsonl"
    good = fixture(0).to_line() + fixture(1).to_line()
    damaged = good + fixture(2).to_line()[:-30]
    path.write_bytes(damaged)
    repaired = repair_partial_tail(path)
    assert repaired is not None
    backup, removed = repaired
    assert backup == tmp_path / "crash.jsonl.bak"
    assert backup.read_bytes() == damaged
    assert removed == len(damaged) - len(good)
    assert path.read_bytes() == good
    assert len(FixtureStore.open(path)) == 2
    assert repair_partial_tail(path) is None


def test_repair_leaves_healthy_files_alone(tmp_path: Path) -> None:
    path = tmp_path / "ok.jsonl"
    write_lines(path, fixture(0))
    assert repair_partial_tail(path) is None
    path.write_bytes(fixture(0).to_line() + fixture(1).to_line().rstrip(b"\n"))
    assert repair_partial_tail(path) is None  # a complete last line without its newline
    assert not list(tmp_path.glob("*.bak*"))


def test_repair_never_overwrites_an_earlier_backup(tmp_path: Path) -> None:
    path = tmp_path / "crash.jsonl"
    for n in range(2):
        path.write_bytes(fixture(0).to_line() + b'{"key": "trunc')
        result = repair_partial_tail(path)
        assert result is not None
        assert result[0].name == ("crash.jsonl.bak" if n == 0 else "crash.jsonl.bak1")


def test_an_open_store_keeps_its_index_when_a_refresh_meets_a_partial_tail(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write_lines(path, fixture(0), fixture(1))
    store = FixtureStore.open(path)
    with path.open("ab") as handle:  # another writer: one good line, then a crash
        handle.write(fixture(2).to_line() + fixture(3).to_line()[:40])
    with pytest.raises(PartialTailError):
        store.refresh()
    assert len(store) == 2
    assert store.lookup(request("question 1")) == fixture(1)
    with pytest.raises(PartialTailError):
        store.refresh()
    assert len(store) == 2
    assert repair_partial_tail(path) is not None
    store.refresh()
    assert len(store) == 3
    assert store.lookup(request("question 2")) == fixture(2)


def test_a_refresh_waits_for_a_writer_half_way_through_its_append(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.jsonl"
    write_lines(path, fixture(0))
    reader = FixtureStore.open(path)
    writer_lock = FileLock(str(tmp_path / "s.jsonl.lock"))
    writer_lock.acquire()
    new_line = fixture(1).to_line()
    with path.open("ab") as handle:
        handle.write(new_line[:30])
    errors: list[BaseException] = []
    asked = threading.Event()  # the refresh went for the store's lock
    released = threading.Event()  # set by the writer just before it lets go
    got_it_after_the_writer: list[bool] = []
    real_lock = reader.lock()

    class WatchedLock:
        def acquire_if_made(self) -> bool:
            asked.set()
            taken = real_lock.acquire_if_made()
            got_it_after_the_writer.append(released.is_set())
            return taken

        def release(self) -> None:
            real_lock.release()

    def watched(file: Path) -> WatchedLock:
        assert file == path  # the lock of the file whose append is under way
        return WatchedLock()

    monkeypatch.setattr(fixture_store_module, "own_lock", watched)

    def refresh() -> None:
        try:
            reader.refresh()
        except BaseException as err:  # pragma: no cover - reported below
            errors.append(err)

    thread = threading.Thread(target=refresh)
    thread.start()
    assert asked.wait(timeout=10)  # the partial tail sent it to the lock: it did not fail
    assert thread.is_alive()  # waiting for the writer's lock
    with path.open("ab") as handle:
        handle.write(new_line[30:])
    released.set()
    writer_lock.release()
    thread.join(timeout=10)
    assert errors == []
    assert got_it_after_the_writer == [True]  # it waited for the writer, however long
    assert len(reader) == 2


def test_find_takes_the_match_form_a_caller_already_has(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    envelope = {"method": "POST", "path": "/v1/messages", "body": {**request("q"), "stop": None}}
    FixtureStore.open(path).put(Fixture.create(envelope, [response("a")]))
    store = FixtureStore.open(path)
    found = store.find(envelope, form=fingerprint.match_form(envelope))
    assert found is not None and found[1].response == response("a")
    assert store.find(envelope) == found
    with pytest.raises(CanonicalFormError):
        store.find({**envelope, "body": {**envelope["body"], "stop": float("nan")}})


def test_a_line_that_no_longer_parses_is_reported_not_skipped(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write_lines(path, fixture(0), fixture(1))
    store = FixtureStore.open(path)
    assert store.lookup(request("question 1")) == fixture(1)  # the file is open now
    data = path.read_bytes()
    second = data.index(b"\n") + 1
    with path.open("r+b") as handle:  # break the end of both lines, in place
        handle.write(data[: second - 3] + b"###" + data[second:-3] + b"###")
    for question in ("question 0", "question 1"):
        with pytest.raises(FixtureFormatError) as caught:
            store.lookup(request(question))
        assert "changed on disk since it was indexed" in caught.value.reason
    assert caught.value.line == 2


def test_a_partial_tail_is_reported_when_the_lock_cannot_be_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "crash.jsonl"
    path.write_bytes(fixture(0).to_line() + b'{"key": "trunc')

    def no_lock(self: FixtureStore) -> FileLock:
        raise PermissionError("read-only checkout")

    monkeypatch.setattr(FixtureStore, "lock", no_lock)
    with pytest.raises(PartialTailError) as caught:
        FixtureStore.open(path)
    assert caught.value.line == 2


# -- fuzzed lines --------------------------------------------------------------------

VALID = fixture(0).to_line().rstrip(b"\n")
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | unicode_text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["key", "request", "response", "responses", "meta", "messages", "x"]),
            inner,
            max_size=5,
        )
    ),
    max_leaves=12,
)


@st.composite
def mutated_lines(draw: st.DrawFn) -> bytes:
    data = bytearray(VALID)
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        op = draw(st.sampled_from(["flip", "delete", "insert", "truncate"]))
        at = draw(st.integers(min_value=0, max_value=max(len(data) - 1, 0)))
        if op == "flip" and data:
            data[at] = draw(st.integers(min_value=0, max_value=255))
        elif op == "delete":
            del data[at : at + draw(st.integers(min_value=1, max_value=20))]
        elif op == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=8))
        else:
            del data[at:]
    return bytes(data)


fuzz_lines = (
    st.binary(max_size=60)
    | json_values.map(lambda v: json.dumps(v).encode())
    | st.fixed_dictionaries(
        {"key": unicode_text(max_size=4), "request": json_values, "response": json_values}
    ).map(lambda v: json.dumps(v).encode())
    | mutated_lines()
).map(lambda raw: raw.replace(b"\n", b" "))


def _check_fuzzed(path: Path, raw: bytes, expected_if_valid: int) -> None:
    try:
        store = FixtureStore.open(path)
    except FixtureFormatError:
        return
    except Exception as err:  # pragma: no cover - the failure this test looks for
        raise AssertionError(f"{type(err).__name__} for line {raw!r}: {err}") from err
    blank = not raw.strip(b" \t\r")
    assert len(store) == (expected_if_valid - 1 if blank else expected_if_valid), raw
    store.close()


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=fuzz_lines)
def test_fuzzed_lines_raise_only_fixture_format_errors_never_skip(
    tmp_path: Path, raw: bytes
) -> None:
    middle = tmp_path / "middle.jsonl"
    middle.write_bytes(fixture(1).to_line() + raw + b"\n" + fixture(2).to_line())
    _check_fuzzed(middle, raw, 3)
    tail = tmp_path / "tail.jsonl"
    tail.write_bytes(fixture(1).to_line() + raw)
    _check_fuzzed(tail, raw, 2)
    folder = tmp_path / "folder"
    folder.mkdir(exist_ok=True)
    (folder / "f.json").write_bytes(raw)
    try:
        FixtureStore.open(folder)
    except FixtureFormatError as err:
        assert err.file == str(folder / "f.json")


# -- writing -------------------------------------------------------------------------


def test_put_refuses_a_secret_naming_the_field_and_writes_nothing(tmp_path: Path) -> None:
    leaky = Fixture.create(request("q"), [response("key: AKIAIOSFODNN7EXAMPLE")], META)
    path = tmp_path / "s.jsonl"
    write_lines(path, fixture(0))
    before = path.read_bytes()
    with pytest.raises(SecretInFixtureError) as caught:
        FixtureStore.open(path).put(leaky)
    assert caught.value.path == "response.content[0].text"
    assert caught.value.detector == "AWS access key id"
    assert "response.content[0].text" in str(caught.value)
    assert "nothing was written" in str(caught.value)
    assert path.read_bytes() == before
    folder = tmp_path / "folder"
    with pytest.raises(SecretInFixtureError):
        FixtureStore.open(folder).put(leaky)
    assert not folder.exists() or not list(folder.rglob("*.json"))


def test_put_refuses_a_secret_in_the_request_or_meta(tmp_path: Path) -> None:
    store = FixtureStore.open(tmp_path / "s.jsonl")
    bearer = Fixture.create(
        {**request("q"), "metadata": {"user_id": "Bearer abcdefghijklmnopqrstuvwxyz"}},
        [response("a")],
    )
    with pytest.raises(SecretInFixtureError, match=r"request\.metadata\.user_id"):
        store.put(bearer)
    meta = Fixture.create(request("q"), [response("a")], {**META, "note": "sk-ant-" + "x1" * 15})
    with pytest.raises(SecretInFixtureError, match=r"meta\.note"):
        store.put(meta)
    assert not (tmp_path / "s.jsonl").exists()


def test_put_refuses_nan_in_a_response_and_a_key_that_does_not_match(tmp_path: Path) -> None:
    store = FixtureStore.open(tmp_path / "s.jsonl")
    with pytest.raises(CanonicalFormError) as caught:
        store.put(Fixture.create(request("q"), [{"score": float("nan")}]))
    assert caught.value.path == "response.score"
    stale = Fixture("0123456789ab", request("q"), (response("a"),))
    with pytest.raises(ValueError, match="does not match its request"):
        store.put(stale)
    assert not (tmp_path / "s.jsonl").exists()


def test_appends_after_a_partial_tail_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "crash.jsonl"
    damaged = fixture(0).to_line() + fixture(1).to_line()[:40]
    path.write_bytes(damaged)
    with pytest.raises(PartialTailError):
        FixtureStore(path).put(fixture(2))
    assert path.read_bytes() == damaged
    with pytest.raises(PartialTailError) as caught:
        _append_line(path, fixture(2).to_line())  # the last check, right before writing
    assert caught.value.line == 2
    assert path.read_bytes() == damaged


def test_a_complete_last_line_without_newline_gets_one(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(fixture(0).to_line().rstrip(b"\n"))
    store = FixtureStore.open(path)
    assert len(store) == 1
    store.put(fixture(1))
    assert path.read_bytes() == fixture(0).to_line() + fixture(1).sealed().to_line()
    assert len(FixtureStore.open(path)) == 2


def test_put_keeps_a_fixture_already_recorded(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    store = FixtureStore.open(path)
    first = store.put(fixture(0))
    again = FixtureStore.open(path).put(fixture(0, answer="different"))
    assert again == first
    assert path.read_bytes() == fixture(0).sealed().to_line()


def test_replace_rewrites_in_place_and_leaves_other_lines_byte_identical(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write_lines(path, fixture(0), fixture(1), fixture(2))
    before = path.read_bytes().splitlines()
    store = FixtureStore.open(path)
    loc = store.put(fixture(1, answer="new"), replace=True)
    assert loc.line == 2
    after = path.read_bytes().splitlines()
    assert len(after) == 3
    assert (after[0], after[2]) == (before[0], before[2])
    assert orjson.loads(after[1])["response"] == response("new")
    assert FixtureStore.open(path).lookup(request("question 1")) == fixture(1, answer="new")


def test_replace_in_a_folder_rewrites_the_same_file(tmp_path: Path) -> None:
    root = tmp_path / "fixtures"
    store = FixtureStore.open(root)
    loc = store.put(fixture(0))
    again = store.put(fixture(0, answer="new"), replace=True)
    assert again.file == loc.file
    assert len(list(root.rglob("*.json"))) == 1
    assert FixtureStore.open(root).lookup(request("question 0")) == fixture(0, answer="new")


def test_replace_drops_duplicate_lines_of_the_same_request(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write_lines(path, fixture(0), fixture(1), fixture(0))
    FixtureStore.open(path).put(fixture(0, answer="new"), replace=True)
    store = FixtureStore.open(path)
    assert len(store) == 2
    assert store.lookup(request("question 0")) == fixture(0, answer="new")


def test_record_response_records_samples_in_order(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    store = FixtureStore.open(path)
    req = request("sampled")
    for i in range(3):
        recorded = record_response(store, req, response(f"sample {i}"), sample=i, meta=META)
        assert recorded.samples == i + 1
    assert FixtureStore.open(path).lookup(req) == Fixture.create(
        req, [response(f"sample {i}") for i in range(3)], META
    )


def test_re_recording_puts_a_stale_key_right(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    stale = {**fixture(0).to_json(), "key": "0123456789ab"}  # a hand-edited request
    path.write_bytes(line(stale))
    store = FixtureStore.open(path)
    with pytest.raises(FixtureFormatError, match="does not match its request"):
        store.lookup(request("question 0"))  # found by its request, refused by its key
    record_response(store, request("question 0"), response("again"))
    stored = orjson.loads(path.read_bytes())
    assert stored["key"] == fixture(0).key
    assert stored["response"] == response("again")


def test_record_response_pads_samples_a_request_was_never_sent_by(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    store = FixtureStore.open(path)
    padded = record_response(store, request("q"), response("a"), sample=1)
    assert padded.responses == (None, response("a"))
    assert orjson.loads(path.read_bytes())["responses"] == [None, response("a")]
    filled = record_response(store, request("q"), response("b"), sample=0)
    assert filled.responses == (response("b"), response("a"))
    kept = record_response(store, request("q"), response("c"), sample=0, overwrite=False)
    assert kept.responses == (response("b"), response("a"))
    assert len(FixtureStore.open(path)) == 1


def test_record_response_without_overwrite_keeps_a_recorded_sample(tmp_path: Path) -> None:
    store = FixtureStore.open(tmp_path / "s.jsonl")
    record_response(store, request("q"), response("first"))
    kept = record_response(store, request("q"), response("second"), overwrite=False)
    assert kept.response == response("first")
    assert store.lookup(request("q")).response == response("first")


def test_refresh_sees_what_another_writer_appended_or_rewrote(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    reader = FixtureStore.open(path)
    writer = FixtureStore.open(path)
    writer.put(fixture(0))
    writer.put(fixture(1))
    assert len(reader) == 0
    reader.refresh()
    assert len(reader) == 2
    writer.put(fixture(1, answer="rewritten"), replace=True)
    reader.refresh()
    assert len(reader) == 2
    assert reader.lookup(request("question 1")) == fixture(1, answer="rewritten")
    path.unlink()
    reader.refresh()
    assert len(reader) == 0


def test_threads_writing_through_one_store_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    store = FixtureStore.open(path)

    def record(t: int) -> None:
        for i in range(15):
            store.put(fixture(t * 100 + i))

    threads = [threading.Thread(target=record, args=(t,)) for t in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    reopened = FixtureStore.open(path)
    assert len(reopened) == 60
    assert all(
        reopened.lookup(request(f"question {t * 100 + i}")) for t in range(4) for i in range(15)
    )


def test_close_releases_file_handles(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write_lines(path, fixture(0))
    with FixtureStore.open(path) as store:
        assert store.lookup(request("question 0")) is not None
        assert store._fds
    assert not store._fds
    assert os.path.exists(path)


def test_a_store_dropped_without_close_releases_its_file_handles(tmp_path: Path) -> None:
    # a long session (pytest, a notebook) that opens stores and forgets them ran out of
    # file descriptors: each kept its files open to the end of the process
    path = tmp_path / "s.jsonl"
    write_lines(path, fixture(0))
    store = FixtureStore.open(path)
    assert store.lookup(request("question 0")) is not None
    (fd,) = store._fds._fds.values()
    inode = os.fstat(fd).st_ino
    del store
    gc.collect()
    try:
        still_open = os.fstat(fd).st_ino == inode  # else reused for another file
    except OSError:
        still_open = False
    assert not still_open


def test_refresh_rescans_a_file_rewritten_in_place_that_grew(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    reader = FixtureStore.open(path)
    writer = FixtureStore.open(path)
    writer.put(fixture(0))
    reader.refresh()
    assert reader.lookup(request("question 0")) is not None
    # Same inode, more bytes, but the first line changed: not an append.
    rewritten = line(fixture(1).to_json()) + line(fixture(2).to_json())
    with path.open("r+b") as handle:
        handle.write(rewritten)
    reader.refresh()
    assert reader.lookup(request("question 0")) is None
    assert reader.lookup(request("question 1")) is not None
    assert len(reader) == 2


def test_a_file_replaced_again_while_it_is_indexed_anew_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # pytest-xdist workers in rerecord replace a shared store once per fixture: a lookup
    # ended "rewritten on disk since the store was indexed" when another worker replaced
    # it again between the lookup's new index and its read
    path, copy = tmp_path / "s.jsonl", tmp_path / "copy.jsonl"
    write_lines(path, fixture(0), fixture(1))
    store = FixtureStore.open(path)

    def replace() -> None:
        copy.write_bytes(path.read_bytes())
        copy.replace(path)

    refresh, replaced = FixtureStore.refresh, []

    def refresh_then_replace(self: FixtureStore) -> None:
        refresh(self)
        if len(replaced) < 3:
            replaced.append(1)
            replace()

    replace()
    monkeypatch.setattr(FixtureStore, "refresh", refresh_then_replace)
    assert store.lookup(request("question 1")) is not None
    replaced.clear()
    store.close()  # reads by key open the file anew: the same race
    replace()
    assert [loc.line for loc, _ in store.get(fixture(0).key)] == [1]


def test_refresh_sees_a_same_size_edit_of_a_json_fixture(tmp_path: Path) -> None:
    folder = tmp_path / "store"
    store = FixtureStore.open(folder)
    loc = store.put(fixture(0))
    before = loc.file.read_bytes()
    edited = before.replace(b"answer", b"ANSWER", 1)
    assert edited != before and len(edited) == len(before)
    loc.file.write_bytes(edited)
    os.utime(loc.file, ns=(loc.file.stat().st_atime_ns, loc.file.stat().st_mtime_ns + 1_000_000))
    store.refresh()
    found = store.lookup(request("question 0"))
    assert found is not None and b"ANSWER" in orjson.dumps(found.response)


def test_put_refuses_a_secret_split_across_stream_events(tmp_path: Path) -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0" * 2
    events = [
        {
            "event": "content_block_delta",
            "data": orjson.dumps(
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": part},
                }
            ).decode(),
        }
        for part in (token[:10], token[10:25], token[25:])
    ]
    recorded = {"status": 200, "headers": {}, "events": events, "stream_end": "complete"}
    path = tmp_path / "s.jsonl"
    with pytest.raises(SecretInFixtureError, match=r"GitHub token .*response\.events"):
        FixtureStore.open(path).put(Fixture.create(request("q"), [recorded], META))
    assert not path.exists()


@pytest.mark.parametrize(
    ("response", "meta", "path"),
    [
        ({"body": {"score": float("nan")}}, None, "response.body.score"),
        ({"body": [1, float("inf")]}, None, "response.body[1]"),
        ({"body": "ok"}, {"note": "half \ud800 a pair"}, "meta.note"),
    ],
    ids=["NaN in the response", "infinity in a list", "lone surrogate in meta"],
)
def test_a_fixture_with_no_canonical_form_outside_its_request_is_refused_naming_the_field(
    tmp_path: Path, response: dict[str, Any], meta: dict[str, Any] | None, path: str
) -> None:
    store = FixtureStore.open(tmp_path / "s.jsonl")
    store.put(Fixture.create({"q": 0}, [{"body": "kept"}]))
    before = (tmp_path / "s.jsonl").read_bytes()
    with pytest.raises(CanonicalFormError) as caught:
        store.put(Fixture.create({"q": 1}, [response], meta))
    assert caught.value.path == path
    assert str(caught.value).endswith("nothing was written")
    assert (tmp_path / "s.jsonl").read_bytes() == before


@pytest.mark.parametrize("layout", ["s.jsonl", "folder"])
def test_a_store_removed_while_a_fixture_is_written_is_named_not_asserted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str
) -> None:
    # `rm` of the store while a recording ran (its threads writing) raised a bare
    # AssertionError from put: the line was written, then the file was gone before it
    # was indexed.
    path = tmp_path / layout
    store = FixtureStore.open(path)
    store.put(fixture(0))
    writer = "append_line" if layout.endswith(".jsonl") else "write_json_file"
    write = getattr(fixture_store_module, writer)

    def write_then_removed(*args: Any) -> Any:
        written = write(*args)
        for file in [path] if path.is_file() else path.rglob("*.json"):
            file.unlink()
        return written

    monkeypatch.setattr(fixture_store_module, writer, write_then_removed)
    with pytest.raises(StoreWriteError, match="the fixture just written is no longer there"):
        store.put(fixture(1))


def test_a_folder_of_more_jsonl_files_than_the_open_files_limit_replays(tmp_path: Path) -> None:
    # Under macOS's default `ulimit -n 256`, replaying from a folder of 300 stores (one a
    # test) failed at the 250th: 'cannot read this fixture file: Too many open files', as
    # the store kept every file it read open.
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    fds = "/proc/self/fd"
    if not os.path.isdir(fds) or len(os.listdir(fds)) > 100 or 0 <= soft < 256:
        pytest.skip("this process holds too many descriptors, or may not hold 256")
    for i in range(300):
        write_lines(tmp_path / f"test_{i}.jsonl", fixture(i))
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
    try:
        with FixtureStore.open(tmp_path) as store:
            for i in range(300):
                assert store.lookup(request(f"question {i}")) is not None
            assert len(store._fds) == 64  # a quarter of the limit
            assert store.lookup(request("question 0")) is not None  # closed, opened again
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
