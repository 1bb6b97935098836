"""The store reader under random byte edits of a valid store: a clear error or a correct read.

Every damaged store either opens and serves each fixture exactly as its line now
says (read again by an independent parser), or fails with
:class:`FixtureFormatError` naming the file and a line; and ``verify`` reports it
without raising. Nothing else, ever.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replaygate import Fixture, FixtureFormatError, FixtureStore
from replaygate.fixtures.fixture import from_json, make_meta
from replaygate.hygiene.verify import verify_store

META = make_meta("anthropic.messages", "2023-06-01", "hand", recorded_at="2025-01-01T00:00:00Z")
FIXTURES = [
    Fixture.create(
        {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "héllo 你好"}]},
        [{"type": "message", "content": [{"type": "text", "text": "hi"}], "stop_reason": "end"}],
        META,
    ),
    Fixture.create(
        {"model": "m", "max_tokens": 16, "tools": [{"name": "t", "input_schema": {}}]},
        [{"id": 1, "n": [1.5, -2, None, True]}, {"id": 2, "big": 2**53 + 1}],
        META,
    ),
    Fixture.create({"method": "POST", "path": "/v1", "body": {"q": 'a\nb"c'}}, [None], None),
]
STORE = b"".join(fixture.to_line() for fixture in FIXTURES)
BYTES = st.sampled_from(list(b'{}[]",:\\\n 0123456789aeflnrstu.-+E\x00\xff\xc3'))


def _edits(data: bytes) -> st.SearchStrategy[list[tuple[str, int, int]]]:
    """One to four byte edits of ``data``: set a byte, insert one, delete a run."""
    edit = st.one_of(
        st.tuples(st.just("set"), st.integers(0, len(data) - 1), BYTES),
        st.tuples(st.just("insert"), st.integers(0, len(data)), BYTES),
        st.tuples(st.just("delete"), st.integers(0, len(data) - 1), st.integers(1, 40)),
    )
    return st.lists(edit, min_size=1, max_size=4)


def _damage(data: bytes, edits: list[tuple[str, int, int]]) -> bytes:
    buf = bytearray(data)
    for kind, at, value in edits:
        at = min(at, len(buf))
        if kind == "set" and at < len(buf):
            buf[at] = value
        elif kind == "insert":
            buf[at:at] = bytes([value])
        else:
            del buf[at : at + value]
    return bytes(buf)


def _check_located(err: FixtureFormatError, path: Path) -> None:
    assert err.file == str(path) and err.line >= 1, err
    assert err.reason


def _read_all(path: Path) -> None:
    """Every fixture served is exactly what its line says, read by an independent parser."""
    store = FixtureStore.open(path)
    lines = path.read_bytes().split(b"\n")
    try:
        for loc in list(store.locations()):
            expected = from_json(json.loads(lines[loc.line - 1]), str(path), loc.line)
            assert store.read(loc) == expected
            found = store.find(expected.request)
            assert found is not None and found[1] == expected
    finally:
        store.close()


@pytest.fixture(scope="module")
def new_folder(tmp_path_factory: pytest.TempPathFactory) -> Callable[[], Path]:
    """A maker of an empty folder, a new one each call: one per example, all removed with
    pytest's temporary folders (a temporary folder made and removed per example cost
    more than the reading the example checks)."""
    root = tmp_path_factory.mktemp("fuzz")
    numbers = itertools.count()

    def made() -> Path:
        folder = root / str(next(numbers))
        folder.mkdir()
        return folder

    return made


def fuzz_examples(times: int) -> int:
    """``times`` the examples of the profile loaded (``make test``: 300 and 100 below;
    ``make test-fast``: 120 and 40; ``thorough``: 6,000 and 2,000)."""
    return times * settings.default.max_examples


@settings(
    max_examples=fuzz_examples(12), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(_edits(STORE))
def test_a_damaged_store_is_read_correctly_or_refused_with_file_and_line(
    new_folder: Callable[[], Path], edits: list[tuple[str, int, int]]
) -> None:
    damaged = _damage(STORE, edits)
    path = new_folder() / "store.jsonl"
    path.write_bytes(damaged)
    try:
        _read_all(path)
    except FixtureFormatError as err:
        _check_located(err, path)
    _, problems = verify_store(path, require_meta=False)
    assert all(p.file == str(path) and p.line >= 0 for p in problems)


PRETTY = FIXTURES[0].to_pretty()


@settings(
    max_examples=fuzz_examples(4), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(_edits(PRETTY))
def test_a_damaged_one_fixture_file_is_read_correctly_or_refused_naming_it(
    new_folder: Callable[[], Path], edits: list[tuple[str, int, int]]
) -> None:
    tmp = new_folder()
    file = tmp / "anthropic.messages@2023-06-01" / "a.json"
    file.parent.mkdir()
    file.write_bytes(_damage(PRETTY, edits))
    try:
        store = FixtureStore.open(tmp)
        expected = from_json(json.loads(file.read_bytes()), str(file), 0)
        found = store.find(expected.request)
        assert found is not None and found[1] == expected
    except FixtureFormatError as err:
        assert err.file == str(file) and err.reason
    verify_store(tmp, require_meta=False)
