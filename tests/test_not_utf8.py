"""Bytes that are not UTF-8 text are worded alike by every reader: ``not UTF-8 text
(<reason> at byte <N>)``, its reason alone where an offset means nothing to the reader,
and a file a person edits as the fixture store words it: ``(byte 0xe9 at column <N>)``."""

from __future__ import annotations

from pathlib import Path

import pytest

from replaygate.config import read_toml
from replaygate.errors import ReplaygateError, WireFormatError, not_utf8_text
from replaygate.evals.cases import load_eval_cases
from replaygate.http.sse import SSEParser
from replaygate.jsondoc import read_json
from replaygate.sampling.queue import read_queue

LATIN1 = b'{"question": "caf\xe9"}\n'  # 0xe9 at byte 17 starts a sequence cut short


def decode_error(data: bytes = LATIN1) -> UnicodeDecodeError:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as err:
        return err
    raise AssertionError("valid UTF-8")


def test_the_wording_names_the_reason_and_where() -> None:
    err = decode_error()
    assert not_utf8_text(err) == "not UTF-8 text (invalid continuation byte at byte 17)"
    assert not_utf8_text(err, byte=False) == "not UTF-8 text (invalid continuation byte)"
    assert not_utf8_text("it looks like UTF-16") == "not UTF-8 text (it looks like UTF-16)"


def test_the_readers_word_it_alike(tmp_path: Path) -> None:
    path = tmp_path / "latin1.txt"
    path.write_bytes(LATIN1)
    with pytest.raises(ReplaygateError) as toml:
        read_toml(path)
    with pytest.raises(ValueError) as document:
        read_json(path, "a document", ValueError)
    with pytest.raises(ReplaygateError) as cases:
        load_eval_cases(path)
    with pytest.raises(ValueError) as queue:
        read_queue(path)
    with pytest.raises(WireFormatError) as stream:
        list(SSEParser().feed(b"data: caf\xe9\n\n"))
    at_column = "not UTF-8 text (byte 0xe9 at column 18)"
    assert str(toml.value) == f"{path}:1: {at_column}"
    assert str(document.value) == f"{path}: {at_column}"
    assert str(cases.value) == f"{path}:1: {at_column}"
    assert str(queue.value).endswith(f": {not_utf8_text(decode_error(), byte=False)}")
    assert str(stream.value) == "stream event 0: not UTF-8 text (unexpected end of data)"
