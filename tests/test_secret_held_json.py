"""JSON held as text is read with its own field rules, as a JSON body is: a batch or
fine-tuning JSONL uploaded through ``client.files.create`` holding an image data URL or
a reasoning item's ``encrypted_content`` records, replays and passes ``verify``, and so
does a data URL inside prose; a key in such a file or next to such a data URL is still
refused before it is sent (law 4)."""

from __future__ import annotations

import base64
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest
from click.testing import CliRunner

from replaygate.cli import main
from replaygate.errors import SecretInFixtureError
from replaygate.http import httpx2_client
from replaygate.sanitize.secret_scan import find_fixture_secrets
from sdks import openai

BLOB = base64.b64encode(random.Random(9).randbytes(600)).decode()
IMAGE = f"data:image/png;base64,{BLOB}"
FREE_KEY = "q8Zr2LxV9mT4wK7pB1nC6dH3Yw5Ej0Fs"
PREFIXED_KEY = "sk-ant-api03-" + "Xy7Qa9Lm2Pz8Rt4Vn6Bc1Dk5Fg3Hj0Ws" * 2
UPLOADED = {"id": "file-1", "object": "file", "bytes": 1, "created_at": 1}
UPLOADED.update(filename="batch.jsonl", purpose="batch")


def _line(body: dict[str, Any]) -> str:
    return json.dumps({"custom_id": "r0", "method": "POST", "url": "/v1/responses", "body": body})


def _asking(content: list[dict[str, Any]]) -> dict[str, Any]:
    return {"model": "gpt-5", "input": [{"role": "user", "content": content}]}


SEEN = {"type": "input_image", "image_url": IMAGE}
REASONED = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": BLOB}
BATCH = "\n".join(
    [
        _line(_asking([{"type": "input_text", "text": "What is in it?"}, SEEN])),
        _line({"model": "gpt-5", "input": [REASONED, {"role": "user", "content": "Go on."}]}),
    ]
)


def _openai(store: Path, mode: str, **answer: Any) -> Any:
    """An openai client recording into ``store`` a server's answer of ``answer``."""
    live = httpx2.MockTransport(lambda _: httpx2.Response(200, **answer))
    http = httpx2_client(store, mode, approve_live=mode != "replay", transport=live)
    return openai.OpenAI(api_key="k", http_client=http, max_retries=0)


def _upload(store: Path, mode: str, content: str) -> str:
    with _openai(store, mode, json=UPLOADED) as client:
        batch = ("batch.jsonl", f"{content}\n".encode())
        return str(client.files.create(file=batch, purpose="batch").id)


def _records(store: Path, send: Callable[[Path, str, str], str], content: str) -> None:
    """``send`` of ``content`` records, replays the answer it got, and the store verifies."""
    answer = send(store, "record-missing", content)
    assert send(store, "replay", content) == answer
    done = CliRunner().invoke(main, ["verify", str(store)])
    assert done.exit_code == 0, done.output
    assert "0 problem(s)" in done.output


def test_a_batch_file_holding_an_image_and_encrypted_reasoning_records(tmp_path: Path) -> None:
    _records(tmp_path / "batch.jsonl", _upload, BATCH)


@pytest.mark.parametrize(
    "line",
    [
        _line(_asking([{"type": "input_text", "text": f"my key is {FREE_KEY}"}, SEEN])),
        _line(_asking([{"type": "input_text", "text": "What is in it?", FREE_KEY: 1}])),
        _line({"model": "gpt-5", "input": [{**REASONED, "encrypted_content": PREFIXED_KEY}]}),
        f'{{"custom_id": "r1", "body": {{"note": "{FREE_KEY}", "note": "ok"}}}}',
    ],
)
def test_a_key_in_a_batch_file_is_refused_before_it_is_sent(tmp_path: Path, line: str) -> None:
    store = tmp_path / "batch.jsonl"
    with pytest.raises(SecretInFixtureError, match=r"found at request\.text; nothing was sent"):
        _upload(store, "record-missing", f"{BATCH}\n{line}")
    assert not store.exists()


def _found(text: str) -> list[str]:
    fixture = {"request": {"body": {"content": text}}, "response": {"status": 200}}
    return [finding.detector for finding in find_fixture_secrets(fixture)]


def test_a_data_url_in_prose_is_encoded_data_but_what_stands_beside_it_is_not() -> None:
    assert _found(f"Here: {IMAGE} is the chart.") == []
    assert _found(f"Here: {IMAGE} {FREE_KEY}") == ["high-entropy token"]
    assert _found(f"Here: {IMAGE}\n{FREE_KEY}") == ["high-entropy token"]
    named = IMAGE.replace(";base64,", f";name={FREE_KEY};base64,")
    assert _found(f"Here: {named} is the chart.") == ["high-entropy token"]
    assert _found(f"Here: {IMAGE.replace('image', FREE_KEY)}") == ["high-entropy token"]
    assert _found(f"Here: {IMAGE}-{FREE_KEY}") == ["high-entropy token"]


def test_json_held_as_text_is_read_with_its_field_rules() -> None:
    arguments = json.dumps({"image": {"mime_type": "image/png", "data": BLOB}, "n": 2})
    assert _found(arguments) == []
    assert _found(json.dumps({"data": BLOB})) == ["high-entropy token"]
    assert _found(json.dumps({"image": {"mime_type": "image/png", "data": BLOB}, "x": FREE_KEY}))
    assert _found("\n".join([arguments, "{not json", FREE_KEY])) == ["high-entropy token"]


def test_every_value_of_a_repeated_field_name_is_read() -> None:
    arguments = f'{{"city": "Paris", "note": "{FREE_KEY}", "note": "ok"}}'
    assert _found(arguments) == ["high-entropy token"]
    assert _found(f'{{"image": {{"data": "{BLOB}", "data": "{FREE_KEY}"}}}}') != []


PRETTY = json.dumps({"messages": [{"role": "user", "content": [SEEN]}, REASONED]}, indent=2)
"""A JSON file as an editor saves it: pretty-printed over many lines."""


def _upload_json(store: Path, mode: str, content: str) -> str:
    with _openai(store, mode, json=UPLOADED) as client:
        sent = ("notes.json", content.encode(), "application/json")
        return str(client.files.create(file=sent, purpose="user_data").id)


def test_a_pretty_printed_json_file_uploaded_is_read_with_its_field_names(tmp_path: Path) -> None:
    shown = json.dumps({"messages": [{"role": "user", "content": [SEEN]}]}, indent=2)
    _records(tmp_path / "upload.jsonl", _upload_json, shown)


@pytest.mark.parametrize(
    "held",
    [
        REASONED,
        {"notes": [{"encrypted_content": FREE_KEY}]},
        {"type": "thinking", "thinking": "x", "signature": FREE_KEY},
    ],
    ids=["reasoning item", "encrypted_content", "thinking block"],
)
@pytest.mark.parametrize("indent", [2, None], ids=["pretty-printed", "one line"])
def test_a_json_file_uploaded_holds_no_encoded_data_by_its_field_names(
    tmp_path: Path, held: dict[str, Any], indent: int | None
) -> None:
    """The fields a provider's answer holds encoded data in are text in a user's file,
    whatever its layout (one line is what ``json.dumps`` writes)."""
    store = tmp_path / "upload.jsonl"
    with pytest.raises(SecretInFixtureError, match=r"high-entropy token found at request\.text"):
        _upload_json(store, "record-missing", json.dumps(held, indent=indent))
    assert not store.exists()


@pytest.mark.parametrize(
    "content",
    [
        PRETTY.replace('"summary": []', f'"summary": ["{FREE_KEY}"]'),
        PRETTY.replace('"summary"', f'"{FREE_KEY}"'),
        PRETTY.replace(BLOB, PREFIXED_KEY, 1),
        PRETTY + f"\n{FREE_KEY}",
    ],
    ids=["value", "field name", "encoded data", "after the JSON"],
)
def test_a_key_in_a_pretty_printed_json_file_is_refused(tmp_path: Path, content: str) -> None:
    store = tmp_path / "upload.jsonl"
    with pytest.raises(SecretInFixtureError, match=r"found at request\.text; nothing was sent"):
        _upload_json(store, "record-missing", content)
    assert not store.exists()


EMBEDDING = base64.b64encode(random.Random(4).randbytes(1024)).decode()
"""256 vectors' floats in base64, as the openai SDK asks for them."""


def _result(n: int, body: dict[str, Any]) -> str:
    answer = {"status_code": 200, "request_id": f"req_{n}", "body": body}
    return json.dumps({"id": f"batch_req_{n}", "custom_id": f"r{n}", "response": answer})


RESULTS = "\n".join(
    [
        _result(0, {"object": "list", "data": [{"object": "embedding", "embedding": EMBEDDING}]}),
        _result(1, {"created": 1, "data": [{"b64_json": BLOB}, {"b64_json": BLOB[::-1]}]}),
    ]
)
"""A batch's results: an embeddings answer and an images answer, one a line."""


def _download(store: Path, mode: str, content: str) -> str:
    with _openai(store, mode, text=content) as client:
        return str(client.files.content("file-1").text)


def test_batch_results_holding_embeddings_and_images_download_upload_and_record(
    tmp_path: Path,
) -> None:
    _records(tmp_path / "results.jsonl", _download, RESULTS)
    _records(tmp_path / "uploaded.jsonl", _upload, RESULTS)


def test_a_key_in_batch_results_is_refused(tmp_path: Path) -> None:
    store = tmp_path / "results.jsonl"
    with pytest.raises(SecretInFixtureError, match=r"found at response\.text"):
        _download(store, "record-missing", RESULTS.replace('"r1"', f'"{FREE_KEY}"'))
    assert not store.exists() or store.read_bytes() == b""


@pytest.mark.parametrize(
    "held",
    [
        {"base64": FREE_KEY},
        {"response": {"base64": FREE_KEY}},
        {"body": {"data": [{"embedding": FREE_KEY}]}},
        {"request": {"body": {"data": [{"b64_json": FREE_KEY}]}}},
        {"answer": {"response": {"body": {"data": [{"b64_json": FREE_KEY}]}}}},
    ],
)
def test_only_an_answer_of_a_batch_result_holds_encoded_data_by_its_path(
    held: dict[str, Any],
) -> None:
    assert _downloaded(json.dumps({"response": {"body": {"data": [{"embedding": BLOB}]}}})) == []
    assert _downloaded(json.dumps(held)) == ["high-entropy token"]


def _downloaded(text: str) -> list[str]:
    """What the scan finds in ``text`` downloaded as a file (``client.files.content``)."""
    fixture = {"request": {"method": "GET", "path": "/v1/files/file-1/content"}}
    fixture["response"] = {"status": 200, "text": text}
    return [finding.detector for finding in find_fixture_secrets(fixture)]


@pytest.mark.parametrize("name", ["embedding", "b64_json"])
def test_a_batch_result_written_in_a_message_holds_no_encoded_data(name: str) -> None:
    held = json.dumps({"custom_id": "a", "response": {"body": {"data": [{name: FREE_KEY}]}}})
    assert _downloaded(held) == []
    assert _found(held) == ["high-entropy token"]
    assert _found(f"Is this right?\n{held}") == ["high-entropy token"]
