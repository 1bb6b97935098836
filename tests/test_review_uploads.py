"""``replaygate diff`` of fixtures that are no chat conversation: a re-recorded request
that holds none (an audio upload, a batch) paired with the one it replaced, as a chat
request is; a poll's answers compared answer by answer, a binary answer byte by byte."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from click.testing import CliRunner

from replaygate.cli import diff_cmd, main
from replaygate.fixtures.diff import MISSING
from replaygate.fixtures.fingerprint import digest
from replaygate.fixtures.fixture import Fixture
from replaygate.hygiene.review import pair_up, review
from replaygate.hygiene.review_report import diff_lines
from replaygate.hygiene.snapshot import Entry, Side

ANSWER = {"status": 200, "headers": {}, "body": {"text": "heard"}}


def _upload(clip: str, path: str = "/v1/audio/transcriptions") -> dict[str, Any]:
    parts = [
        'Content-Disposition: form-data; name="model"\r\n\r\nwhisper-1\r\n',
        'Content-Disposition: form-data; name="file"; filename="a.wav"\r\n'
        f"Content-Type: audio/wav\r\n\r\n{clip}\r\n",
    ]
    text = "".join(f"--replaygate-boundary\r\n{part}" for part in parts)
    return {
        "method": "POST",
        "path": path,
        "headers": {},
        "text": text + "--replaygate-boundary--\r\n",
    }


def _entry(request: dict[str, Any], line: int = 1) -> Entry:
    return Entry("tests/fixtures/audio.jsonl", line, Fixture.create(request, [ANSWER]))


def test_an_upload_recorded_again_with_another_file_is_paired() -> None:
    pairs, added, removed = pair_up([_entry(_upload("RIFF one"))], [_entry(_upload("RIFF two"))])
    assert not added and not removed
    [pair] = pairs
    assert [d.path for d in pair.differences] == ["text (multipart file, a.wav)"]
    assert pair.summary == "multipart file"


def test_a_batch_recorded_again_with_another_file_is_paired() -> None:
    def batch(file_id: str) -> dict[str, Any]:
        body = {"input_file_id": file_id, "endpoint": "/v1/embeddings"}
        return {"method": "POST", "path": "/v1/batches", "headers": {}, "body": body}

    pairs, _, _ = pair_up([_entry(batch("file-1"))], [_entry(batch("file-2"))])
    assert [d.path for d in pairs[0].differences] == ["body.input_file_id"]


def test_requests_that_share_only_method_and_headers_are_not_paired() -> None:
    def get(path: str) -> dict[str, Any]:
        return {"method": "GET", "path": path, "headers": {}, "body": None}

    batch_input = _upload("{}", path="/v1/files")  # another file, another part beside it
    batch_input["text"] = (
        batch_input["text"]
        .replace('name="model"\r\n\r\nwhisper-1', 'name="purpose"\r\n\r\nbatch')
        .replace("a.wav", "b.jsonl")
        .replace("audio/wav", "application/jsonl")
    )
    removed = [_entry(get("/v1/models")), _entry(_upload("RIFF two"), 2)]
    pairs, added, left = pair_up(removed, [_entry(get("/v1/files/file-9")), _entry(batch_input, 2)])
    assert not pairs and len(added) == len(left) == 2


def _side(label: str, fixture: Fixture) -> Side:
    data = {"tests/fixtures/poll.jsonl": fixture.to_line()}
    return Side(label, {name: str(hash(text)) for name, text in data.items()}, lambda _: data)


def test_a_poll_answered_once_more_shows_the_answer_added() -> None:
    # One answer became two: each side's answers were shown whole, under "response" and
    # "responses", and the reviewer could not tell which answer was new.
    poll = {"method": "GET", "path": "/v1/responses/resp_1", "headers": {}, "body": None}
    done = {**ANSWER, "body": {"status": "completed"}}
    waiting = {**ANSWER, "body": {"status": "in_progress"}}
    base = _side("HEAD", Fixture.create(poll, [done]))
    head = _side("working tree", Fixture.create(poll, [waiting, done]))
    [alarm] = review(base, head, "tests/fixtures").response_alarms
    assert [(d.path, d.left, d.right) for d in alarm.differences] == [
        ("responses[0]", MISSING, waiting)
    ]


def test_a_binary_answer_edited_shows_the_byte_where_it_changed() -> None:
    # A speech answer (kept as base64) edited at one byte showed a window of base64 text
    # at a character offset: no size, nothing a reviewer could place in the audio.
    speech = {"method": "POST", "path": "/v1/audio/speech", "headers": {}, "body": {"input": "hi"}}
    audio = bytes(range(256))
    edited = audio[:100] + b"\x00" + audio[101:]

    def answer(data: bytes) -> dict[str, Any]:
        return {"status": 200, "headers": {}, "base64": base64.b64encode(data).decode()}

    base = _side("HEAD", Fixture.create(speech, [answer(audio)]))
    head = _side("working tree", Fixture.create(speech, [answer(edited)]))
    [alarm] = review(base, head, "tests/fixtures").response_alarms
    [line] = diff_lines(alarm.differences)
    assert line.startswith("response.base64: at byte 100 (lengths 256, 256): ...b'")
    assert "\\x00" in line


def test_format_json_is_the_json_option(monkeypatch: pytest.MonkeyPatch) -> None:
    # docs/cli.md: --json is --format json, for diff as for gate and upgrade; diff refused
    # --format json as no choice of its own.
    speech = {"method": "POST", "path": "/v1/audio/speech", "headers": {}, "body": {"input": "hi"}}
    base = _side("HEAD", Fixture.create(speech, [ANSWER]))
    head = _side("working tree", Fixture.create(speech, [{**ANSWER, "body": {"text": "edited"}}]))
    result = review(base, head, "tests/fixtures")
    monkeypatch.setattr(diff_cmd, "review_store", lambda *args: result)
    by_format = CliRunner().invoke(main, ["diff", "--format", "json"])
    assert by_format.exit_code == 1, by_format.output
    assert json.loads(by_format.output) == json.loads(
        CliRunner().invoke(main, ["diff", "--json"]).output
    )


def test_a_poll_recorded_again_by_a_union_merge_is_an_alarm_not_a_copy() -> None:
    # Two branches recorded the poll, with 2 and 3 answers; a merge=union kept the lines
    # of both. Each sample line was applied to both copies of the request, which then
    # read alike: a "copy", exit 0 with --allow-response-change, while verify and the
    # replay refuse the store.
    poll = {"method": "GET", "path": "/v1/responses/resp_1", "headers": {}, "body": None}
    done = {**ANSWER, "body": {"status": "completed"}}
    waiting = {**ANSWER, "body": {"status": "in_progress"}}

    def sample(index: int, answer: dict[str, Any]) -> bytes:
        return json.dumps({"key": digest(poll), "sample": index, "response": answer}).encode()

    ours = [Fixture.create(poll, [waiting]).to_line().rstrip(b"\n"), sample(1, done)]
    theirs = [ours[0], sample(1, waiting), sample(2, done)]
    name = "tests/fixtures/poll.jsonl"
    files = {"HEAD": b"\n".join(ours) + b"\n", "working tree": b"\n".join(ours + theirs) + b"\n"}
    base, head = (
        Side(label, {name: label}, lambda _, d=data: {name: d}) for label, data in files.items()
    )
    result = review(base, head, "tests/fixtures")
    [twice] = result.twice_alarms
    assert (twice.new.line, twice.old.line) == (3, 1)
    assert not result.copied and result.refused
