"""A fixture too big for a store line is refused before it is written, never stored unreadable.

A store line (or one-fixture ``.json`` file) is at most ``MAX_LINE_BYTES``; the readers
refuse a longer one. A writer that let one through left a store that no command could
open again: everything in it was as good as lost. Each way a line grows is checked:
a new fixture, a sample added to one (which ``compact`` would fold into one line), a
folder store's pretty file, ``compact`` of samples appended by hand, and a cassette
whose compressed body decodes to more than a line can hold.
"""

from __future__ import annotations

import functools
import gzip
import json
import sys
import tracemalloc
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from replaygate import Fixture, FixtureStore
from replaygate.cli import main
from replaygate.errors import UnstorableValueError
from replaygate.fixtures.fingerprint import digest
from replaygate.fixtures.fixture import make_meta
from replaygate.fixtures.store import compact, files, record_response, writing
from replaygate.fixtures.store.files import MAX_LINE_BYTES
from replaygate.migrate import cassettes

REQUEST = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}
META = make_meta("anthropic.messages", "2023-06-01", "hand", recorded_at="2025-01-01T00:00:00Z")


def _answer(text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


SMALL = Fixture.create(REQUEST, [_answer("small")], META)


def _files(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


SMALLER_LINE = MAX_LINE_BYTES >> 5
"""The maximum of a line where a test lowers it (1 MiB): a fixture over it is refused as
one over the 32 MiB is, at a thirty-second of the bytes."""


@pytest.fixture
def smaller_lines(monkeypatch: pytest.MonkeyPatch) -> int:
    """:data:`SMALLER_LINE` as the maximum of a line for every reader and writer of the
    stores (each module of replaygate that holds ``MAX_LINE_BYTES``): lines over it are
    written and read as lines over the 32 MiB are, at a thirty-second of the bytes."""
    lowered = [
        module
        for name, module in list(sys.modules.items())
        if name.startswith("replaygate.") and getattr(module, "MAX_LINE_BYTES", None) is not None
    ]
    assert files in lowered and writing in lowered and compact in lowered
    for module in lowered:
        monkeypatch.setattr(module, "MAX_LINE_BYTES", SMALLER_LINE)
    return SMALLER_LINE


def _third(maximum: int) -> dict[str, Any]:
    """An answer of a third of a line of at most ``maximum`` bytes."""
    return _answer("b" * (maximum // 3))


@pytest.mark.parametrize("layout", ["store.jsonl", "store"])
def test_a_fixture_over_the_line_maximum_is_refused_and_the_store_still_opens(
    tmp_path: Path, layout: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writing, "MAX_LINE_BYTES", SMALLER_LINE)
    path = tmp_path / layout
    with FixtureStore.open(path) as store:
        store.put(SMALL)
    before = _files(tmp_path)
    other = {**REQUEST, "max_tokens": 9}
    huge = _answer("a" * (SMALLER_LINE + 1))
    with FixtureStore.open(path) as store, pytest.raises(UnstorableValueError) as caught:
        store.put(Fixture.create(other, [huge], META))
    assert caught.value.path == "response"
    assert f"maximum of {SMALLER_LINE:,} bytes" in str(caught.value)
    assert "have the test ask for a smaller one" in str(caught.value)  # what to do
    assert "nothing was written" in str(caught.value)
    assert _files(tmp_path) == before
    with FixtureStore.open(path) as store:
        assert store.lookup(REQUEST) == SMALL and store.lookup(other) is None
    done = CliRunner().invoke(main, ["verify", str(path)])
    assert done.exit_code == 0, done.output


def test_a_folder_fixture_whose_pretty_file_would_be_over_the_maximum_is_refused(
    tmp_path: Path, smaller_lines: int
) -> None:
    # Compact, the line fits; indented two spaces a level, the .json file would not.
    deep: Any = "x" * 64
    for _ in range(60):
        deep = [deep]
    bulky = {"type": "message", "content": [deep] * (smaller_lines // 4_000)}
    fixture = Fixture.create(REQUEST, [bulky], META)
    assert len(fixture.to_line()) < smaller_lines < len(fixture.to_pretty())
    store = tmp_path / "store"
    with FixtureStore.open(store) as opened, pytest.raises(UnstorableValueError):
        opened.put(fixture)
    assert [p.name for p in tmp_path.rglob("*.json")] == []


def test_a_sample_that_would_make_its_fixture_too_big_for_a_line_is_refused(
    tmp_path: Path, smaller_lines: int
) -> None:
    # Appended, each sample line fits; compact would fold them into one line no reader
    # takes, so the sample that passes the maximum is refused when recorded.
    third = _third(smaller_lines)
    path = tmp_path / "store.jsonl"
    path.write_bytes(Fixture.create(REQUEST, [third, third], META).to_line())
    before = path.read_bytes()
    with FixtureStore.open(path) as store, pytest.raises(UnstorableValueError) as caught:
        record_response(store, REQUEST, third, sample=2, meta=META)
    assert caught.value.path == "responses[0]"
    assert path.read_bytes() == before
    with FixtureStore.open(path) as store:
        found = store.lookup(REQUEST)
        assert found is not None and len(found.responses) == 2


def test_compact_leaves_a_file_whose_folded_line_would_be_too_long_as_it_was(
    tmp_path: Path, smaller_lines: int
) -> None:
    third = _third(smaller_lines)
    path = tmp_path / "store.jsonl"
    full = digest(REQUEST)
    sample = [
        json.dumps({"key": full, "sample": i, "response": third}).encode() + b"\n" for i in (1, 2)
    ]
    path.write_bytes(Fixture.create(REQUEST, [third], META).to_line() + b"".join(sample))
    before = path.read_bytes()
    for args in (["compact", str(path)], ["compact", "--check", str(path)]):
        done = CliRunner().invoke(main, args)
        assert done.exit_code == 2 and isinstance(done.exception, SystemExit), done.output
        assert f"Error: {path}:1: " in done.output, done.output
        assert f"maximum of {smaller_lines:,} bytes" in done.output
    assert path.read_bytes() == before


def _cassette(path: Path, body: bytes, encoding: str) -> Path:
    import yaml

    interaction = {
        "request": {
            "method": "POST",
            "uri": "https://api.anthropic.com/v1/messages",
            "headers": {"content-type": ["application/json"]},
            "body": json.dumps(REQUEST),
        },
        "response": {
            "status": {"code": 200, "message": "OK"},
            "headers": {"content-type": ["application/json"], "content-encoding": [encoding]},
            "body": {"string": body},
        },
    }
    path.write_text(yaml.safe_dump({"version": 1, "interactions": [interaction]}))
    return path


BOMB = b" " * (MAX_LINE_BYTES + 1) + b"[]"  # a body that decodes past what a line holds


def members(data: bytes) -> bytes:
    """Gzip members decoded one after another past what a line holds (made when a test
    asks: compressing at import cost every process collecting the module)."""
    return gzip.compress(b" " * (MAX_LINE_BYTES // 2), 1) * 8


@functools.cache
def deflated(data: bytes) -> bytes:
    """``data`` deflated (zlib), once for both tests of it."""
    return zlib.compress(data, 1)


@pytest.mark.parametrize(
    ("encoding", "compress"),
    [
        ("gzip", members),
        ("deflate", lambda data: deflated(data)),
        ("deflate", lambda data: deflated(data)[2:-4]),  # raw, as some servers send
    ],
    ids=["gzip", "deflate", "raw deflate"],
)
def test_a_compressed_cassette_body_is_decoded_only_as_far_as_a_line_holds(
    tmp_path: Path, encoding: str, compress: Callable[[bytes], bytes]
) -> None:
    # A 100 KB body that decodes to 100 MB was decoded whole (the import's memory grew
    # with it) and then refused naming the importer's scratch file.
    from replaygate.migrate.cassettes import CassetteError, _Fields

    packed = compress(BOMB)
    tracemalloc.start()
    try:
        with pytest.raises(CassetteError) as caught:
            _Fields(tmp_path / "c.yaml", 0).decoded(packed, (("content-encoding", encoding),))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * MAX_LINE_BYTES, peak
    assert f"decodes to more than {MAX_LINE_BYTES:,} bytes" in str(caught.value)


def test_import_names_the_cassette_and_field_of_a_body_too_big_to_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cassettes, "MAX_LINE_BYTES", SMALLER_LINE)
    bomb = b" " * (SMALLER_LINE + 1) + b"[]"
    cassette = _cassette(tmp_path / "c.yaml", gzip.compress(bomb, 1), "gzip")
    done = CliRunner().invoke(main, ["import-cassettes", str(cassette), "--out", "out"])
    assert done.exit_code == 2 and isinstance(done.exception, SystemExit), done.output
    assert f"{cassette}: interaction 0: response.body: decodes to more than" in done.output
    assert "replaygate-import" not in done.output  # the scratch store is not the user's
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("cassettes", "out"), [("in", "."), ("in", "in"), ("in/c.yaml", "in")])
def test_cassettes_inside_the_out_folder_are_named_as_such(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cassettes: str, out: str
) -> None:
    # Every cassette under --out was passed over as one of the stores' files, and the
    # command said "no cassette under in", with one there.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in").mkdir()
    _cassette(tmp_path / "in" / "c.yaml", b"{}", "identity")
    before = sorted(p.name for p in tmp_path.rglob("*"))
    done = CliRunner().invoke(main, ["import-cassettes", cassettes, "--out", out])
    assert done.exit_code == 2 and isinstance(done.exception, SystemExit), done.output
    assert f"Error: {cassettes}: is inside --out {out}," in done.stderr, done.stderr
    assert sorted(p.name for p in tmp_path.rglob("*")) == before
