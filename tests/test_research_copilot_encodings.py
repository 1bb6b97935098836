"""The example agent's corpus or cases, given in another encoding, are named as the
fixture store names such a file, with the line and what to do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replaygate.examples.research_copilot import DataFormatError, load_corpus

DOCS = "".join(
    json.dumps({"doc_id": f"doc-{i}", "title": "Café", "text": "alpha"}, ensure_ascii=False) + "\n"
    for i in range(2)
)


@pytest.mark.parametrize(
    ("data", "line", "reason"),
    [  # each was line 0 "not UTF-8 text (...)" or "invalid JSON: Extra data"
        (DOCS.encode("latin-1"), 1, "not UTF-8 text (byte 0xe9 at column 34)"),
        (DOCS.encode("utf-16"), 1, "not UTF-8 text (it looks like UTF-16: re-save the file as"),
        (DOCS.replace("\n", "\r").encode(), 1, "lines end in a lone carriage return (CR)"),
        (DOCS.encode("utf-8-sig"), 1, "starts with a UTF-8 byte order mark (BOM)"),
    ],
    ids=["latin-1", "utf-16", "lone-cr", "bom"],
)
def test_a_corpus_in_another_encoding_is_named_with_its_line(
    tmp_path: Path, data: bytes, line: int, reason: str
) -> None:
    path = tmp_path / "corpus.jsonl"
    path.write_bytes(data)
    with pytest.raises(DataFormatError) as caught:
        load_corpus(path)
    assert str(caught.value).startswith(f"{path}:{line}: {reason}")
