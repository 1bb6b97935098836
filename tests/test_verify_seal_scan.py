"""``replaygate verify`` scans a fixture as the store's writer does: without the seal it stamps."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import orjson
import pytest

from replaygate import Fixture, Message, ModelResponse
from replaygate.fixtures.fingerprint import match_form
from replaygate.fixtures.fixture import make_meta
from replaygate.hygiene import verify_checks
from replaygate.hygiene.verify import verify_store
from replaygate.models.providers import to_anthropic_request, to_anthropic_response

AWS = "AKIAIOSFODNN7EXAMPLE"


def _fixture(answer: str = "an answer") -> Fixture:
    request = to_anthropic_request(
        [Message.user("a question")], [], model="claude-x", max_tokens=64
    )
    response = to_anthropic_response(ModelResponse(text=answer), model="claude-x")
    meta = make_meta("anthropic.messages", "2023-06-01", "hand")
    return Fixture.create(request, [response], meta).sealed()


@pytest.fixture
def scanned(monkeypatch: pytest.MonkeyPatch) -> list[bytes | None]:
    """The lines verify's secret scan is given."""
    seen: list[bytes | None] = []
    scan = verify_checks.clean_lines

    def spy(lines: Sequence[bytes | None]) -> list[bool | None]:
        seen.extend(lines)
        return scan(lines)

    monkeypatch.setattr(verify_checks, "clean_lines", spy)
    return seen


def _store(tmp_path: Path, line: bytes) -> Path:
    path = tmp_path / "store.jsonl"
    path.write_bytes(line)
    return path


def test_the_seal_the_writer_stamps_is_left_out_of_the_scan(
    tmp_path: Path, scanned: list[bytes | None]
) -> None:
    fixture = _fixture()
    assert fixture.seal is not None
    assert verify_store(_store(tmp_path, fixture.to_line())) == (1, [])
    assert scanned == [replace(fixture, seal=None).to_line()[:-1]]


def test_a_seal_edited_by_hand_is_scanned_with_its_line(
    tmp_path: Path, scanned: list[bytes | None]
) -> None:
    fixture = replace(_fixture(), seal="0123456789abcdef" * 2)
    line = fixture.to_line()
    assert verify_store(_store(tmp_path, line)) == (1, [])
    assert scanned == [line[:-1]]


def test_a_seal_field_closing_the_meta_is_scanned(
    tmp_path: Path, scanned: list[bytes | None]
) -> None:
    """The line ends with a field named ``seal`` holding the fixture's own seal, in its
    meta: only the seal the line ends with, the fixture's own, is left out."""
    fixture = _fixture()
    obj = fixture.to_json()
    obj["request"] = orjson.Fragment(match_form(fixture.request))  # as a line holds it
    meta = obj.pop("meta")
    obj["meta"] = {**meta, "seal": fixture.seal}  # after the fixture's own seal
    line = orjson.dumps(obj)
    assert line.endswith(f'"seal":"{fixture.seal}"}}}}'.encode())
    assert verify_store(_store(tmp_path, line + b"\n")) == (1, [])
    assert scanned == [line]


def test_a_secret_in_a_sealed_fixture_is_reported(
    tmp_path: Path, scanned: list[bytes | None]
) -> None:
    path = _store(tmp_path, _fixture(f"the key is {AWS}").to_line())
    count, problems = verify_store(path)
    assert count == 1
    assert [problem.reason for problem in problems] == [
        "AWS access key id at response.content[0].text"
    ]
    assert len(scanned) == 1 and b'"seal"' not in (scanned[0] or b"")
