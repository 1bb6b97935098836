"""The example agent's corpus or cases, given in another encoding, are named as the
fixture store names such a file, with the line and what to do."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from replaygate.examples.research_copilot import DataFormatError, load_cases, load_corpus

FILES = {  # each holds a "Café" whose é is a byte 0xe9 in Latin-1, at the column given
    "corpus": (
        load_corpus,
        "".join(
            json.dumps({"doc_id": f"doc-{i}", "title": "Café", "text": "alpha"}, ensure_ascii=False)
            + "\n"
            for i in range(2)
        ),
        34,
    ),
    "cases": (
        load_cases,
        "".join(
            json.dumps(
                {"id": f"c-{i}", "question": "Café?", "expected_doc_ids": ["doc-1"],
                 "must_contain": ["alpha"]},
                ensure_ascii=False,
            ) + "\n"
            for i in range(2)
        ),
        31,
    ),
}  # fmt: skip


@pytest.mark.parametrize(("load", "text", "column"), FILES.values(), ids=FILES.keys())
@pytest.mark.parametrize(
    ("encode", "reason"),
    [  # each was line 0 "not UTF-8 text (...)" or "invalid JSON: Extra data"
        (lambda text: text.encode("latin-1"), "not UTF-8 text (byte 0xe9 at column {column})"),
        (
            lambda text: text.encode("utf-16"),
            "not UTF-8 text (it looks like UTF-16: re-save the file as",
        ),
        (
            lambda text: text.replace("\n", "\r").encode(),
            "lines end in a lone carriage return (CR)",
        ),
        (lambda text: text.encode("utf-8-sig"), "starts with a UTF-8 byte order mark (BOM)"),
    ],
    ids=["latin-1", "utf-16", "lone-cr", "bom"],
)
def test_a_data_file_in_another_encoding_is_named_with_its_line(
    tmp_path: Path,
    load: Callable[[Path], object],
    text: str,
    column: int,
    encode: Callable[[str], bytes],
    reason: str,
) -> None:
    path = tmp_path / "data.jsonl"
    path.write_bytes(encode(text))
    with pytest.raises(DataFormatError) as caught:
        load(path)
    assert str(caught.value).startswith(f"{path}:1: {reason.format(column=column)}")
