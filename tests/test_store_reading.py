"""Opening a store reads its lines as :func:`~replaygate.fixtures.store.jsonl.read_line`
reads each of them, whatever the chunks the file is read in.

A store of up to a couple of hundred lines, some of them bad in one of the ways a reader
refuses (not JSON, not an object, a key named twice, nested too deeply, a last line cut
short) and some blank, opens exactly when no line is bad, with every fixture at its own line;
otherwise it is refused naming the first bad line, as reading each line on its own
with :func:`~replaygate.fixtures.store.jsonl.read_line` names it.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replaygate import Fixture, FixtureFormatError, FixtureStore
from replaygate.errors import UnstorableValueError
from replaygate.fixtures.store import files, scan
from replaygate.fixtures.store.jsonl import TOO_DEEP, PartialTailError, read_line


def _fixture_line(i: int) -> bytes:
    request = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": f"q{i}"}]}
    return Fixture.create(request, [{"content": [{"type": "text", "text": f"a{i}"}]}]).to_line()


def _nested(depth: int) -> str:
    return '{"n":' * depth + "1" + "}" * depth


def _damaged(line: bytes, kind: str) -> bytes:
    """``line`` (newline included) made bad in one way, or blank."""
    if kind == "blank":
        return b"\n"
    if kind == "spaces":
        return b"   \t\n"
    if kind == "form feed":  # white space to bytes.isspace, not to JSON: not a blank line
        return b" \x0c\x0b\n"
    if kind == "null":  # JSON, but no fixture (not a blank line)
        return b"null\n"
    if kind == "not json":
        return line[: len(line) // 2] + b"\n"
    if kind == "key twice":
        return line.replace(b'"request":{', b'"request":{"model":"x",', 1)
    if kind == "short key last":  # named twice, the one read too short to be a key
        return line.replace(b'","request":', b'","key":"x","request":', 1)
    assert kind == "too deep"
    return line.replace(b'"request":{', b'"request":{"deep":' + _nested(300).encode() + b",", 1)


KINDS = [
    "blank",
    "spaces",
    "form feed",
    "null",
    "not json",
    "key twice",
    "short key last",
    "too deep",
]


@pytest.fixture(scope="module")
def new_store(tmp_path_factory: pytest.TempPathFactory) -> Callable[[bytes], Path]:
    """A maker of a store file holding the bytes given, a new file each call."""
    root = tmp_path_factory.mktemp("lines")
    numbers = itertools.count()

    def made(data: bytes) -> Path:
        path = root / f"{next(numbers)}.jsonl"
        path.write_bytes(data)
        return path

    return made


def _first_refusal(data: bytes, name: str) -> FixtureFormatError | None:
    """The error of the first line that reading the lines one by one refuses."""
    lines = data.split(b"\n")
    for number, raw in enumerate(lines, start=1):
        complete = number < len(lines)
        if not raw.strip(b" \t\r"):
            continue
        try:
            read_line(raw, name, number, complete=complete)
        except FixtureFormatError as err:
            return err
    return None


@settings(
    max_examples=2 * settings.default.max_examples,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    count=st.integers(1, 200),
    damage=st.lists(st.tuples(st.integers(0, 199), st.sampled_from(KINDS)), max_size=4),
    cut_last=st.booleans(),
    small_chunks=st.booleans(),
)
def test_a_store_reads_as_its_lines_read_one_by_one(
    new_store: Callable[[bytes], Path],
    count: int,
    damage: list[tuple[int, str]],
    cut_last: bool,
    small_chunks: bool,
) -> None:
    lines = [_fixture_line(i) for i in range(count)]
    for at, kind in damage:
        lines[at % count] = _damaged(lines[at % count], kind)
    data = b"".join(lines)
    if cut_last and lines[-1].strip():
        data = data[:-10]  # an append cut short: no newline, half a line
    path = new_store(data)
    expected = _first_refusal(data, str(path))
    with pytest.MonkeyPatch.context() as patch:
        if small_chunks:  # the file read in pieces that end inside lines
            patch.setattr(scan, "_CHUNK", 1000)
        try:
            store = FixtureStore.open(path)
        except FixtureFormatError as err:
            assert expected is not None, err
            assert (type(err), err.file, err.line, err.reason) == (
                type(expected),
                expected.file,
                expected.line,
                expected.reason,
            )
            return
    assert expected is None
    numbers = [n for n, line in enumerate(data.split(b"\n"), start=1) if line.strip(b" \t\r")]
    assert sorted(loc.line for loc in store.locations()) == numbers
    for loc in store.locations():
        fixture, _ = read_line(data.split(b"\n")[loc.line - 1], str(path), loc.line)
        assert store.read(loc) == fixture
    store.close()


def test_lines_longer_than_a_read_are_read_whole_first_and_after_an_append(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # reads of 64 bytes, lines of about 200: each read is made larger until a line ends in
    # it, and the next read starts at the first line not read whole
    monkeypatch.setattr(scan, "_CHUNK", 64)
    path = tmp_path / "store.jsonl"
    lines = [_fixture_line(i) for i in range(5)]
    assert all(len(line) > 128 for line in lines)
    path.write_bytes(b"".join(lines[:3]) + lines[3][:50])  # the last append cut short
    with pytest.raises(PartialTailError) as cut:
        FixtureStore.open(path)
    assert (cut.value.line, cut.value.offset) == (4, sum(map(len, lines[:3])))
    path.write_bytes(b"".join(lines[:3]))
    store = FixtureStore.open(path)
    with path.open("ab") as handle:
        handle.write(lines[3] + lines[4].rstrip(b"\n"))  # the last line without its newline
    store.refresh()
    found = {loc.line: store.read(loc) for loc in store.locations()}
    assert found == {
        i + 1: read_line(line.rstrip(b"\n"), "", i + 1)[0] for i, line in enumerate(lines)
    }
    store.close()


def test_a_line_nested_too_deeply_is_refused_naming_it(tmp_path: Path) -> None:
    # orjson reads 1,024 levels but writes 254: such a line ended in a TypeError traceback
    path = tmp_path / "deep.jsonl"
    deep = _damaged(_fixture_line(1), "too deep")
    path.write_bytes(_fixture_line(0) + deep)
    with pytest.raises(FixtureFormatError) as caught:
        FixtureStore.open(path)
    assert (caught.value.file, caught.value.line, caught.value.reason) == (str(path), 2, TOO_DEEP)
    with pytest.raises(FixtureFormatError, match="nested too deeply"):
        read_line(deep.rstrip(b"\n"), str(path), 2)


def _pretty_damaged(i: int, kind: str) -> bytes:
    """The one-fixture ``.json`` form of fixture ``i``, made bad in one way."""
    request = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": f"q{i}"}]}
    pretty = Fixture.create(request, [{"content": [{"type": "text", "text": f"a{i}"}]}])
    text = pretty.to_pretty()
    if kind == "key twice":
        return text.replace(b'"request": {', b'"request": {\n    "model": "x",', 1)
    assert kind == "too deep"
    return text.replace(b'"request": {', b'"request": {"deep": ' + _nested(300).encode() + b",", 1)


@pytest.mark.parametrize(
    ("kind", "reason"), [("too deep", TOO_DEEP), ("key twice", "duplicate key request.model")]
)
def test_a_json_fixture_file_nested_too_deeply_or_naming_a_key_twice_is_refused(
    tmp_path: Path, kind: str, reason: str
) -> None:
    # a folder store's .json file nested past orjson's writing depth ended in a TypeError
    store = tmp_path / "store"
    store.mkdir()
    (store / "a.json").write_bytes(_pretty_damaged(0, kind))
    with pytest.raises(FixtureFormatError) as caught:
        FixtureStore.open(store)
    assert caught.value.file == str(store / "a.json")
    assert reason in caught.value.reason


def test_a_line_too_long_is_named_after_the_lines_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files, "MAX_LINE_BYTES", 400)
    path = tmp_path / "long.jsonl"
    long = _fixture_line(3).replace(b'"q3"', b'"' + b"x" * 500 + b'"')
    path.write_bytes(_fixture_line(0) + _damaged(_fixture_line(1), "key twice") + long)
    with pytest.raises(FixtureFormatError) as caught:
        FixtureStore.open(path)
    assert caught.value.line == 2 and "duplicate key" in caught.value.reason  # not the long one
    path.write_bytes(_fixture_line(0) + b"\n" + long)
    with pytest.raises(FixtureFormatError) as caught:
        FixtureStore.open(path)
    assert caught.value.line == 3 and "longer than the maximum" in caught.value.reason


def test_a_last_line_cut_short_is_a_partial_tail(tmp_path: Path) -> None:
    path = tmp_path / "cut.jsonl"
    path.write_bytes(b"".join(_fixture_line(i) for i in range(100)) + b'{"key": "ab')
    with pytest.raises(PartialTailError) as caught:
        FixtureStore.open(path)
    assert caught.value.line == 101


def test_a_request_nested_too_deeply_is_not_written(tmp_path: Path) -> None:
    path = tmp_path / "store.jsonl"
    store = FixtureStore.open(path)
    store.put(Fixture.create({"model": "m", "q": 1}, [{"content": []}]))
    before = path.read_bytes()
    request = orjson.loads(b'{"model":"m","deep":' + _nested(300).encode() + b"}")
    with pytest.raises(UnstorableValueError) as caught:
        store.put(Fixture.create(request, [{"content": []}]))
    assert "nested more than 254 levels" in str(caught.value)
    assert caught.value.path.startswith("request.deep.n.n") and len(caught.value.path) < 90
    assert path.read_bytes() == before
