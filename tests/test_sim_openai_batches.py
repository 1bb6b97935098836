"""OpenAI's Files and Batch APIs from the simulator: a JSONL file of requests uploaded, a
batch made of it and polled until it ends, its output file fetched, recorded and replayed
offline byte for byte; the API's answers to a cancel, a list, an error and an unknown id."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import httpx2
import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from replaygate.errors import SimulatorRefusalError
from replaygate.http import httpx2_client
from replaygate.network import block_network
from replaygate.sim import Simulator
from replaygate.sim.app import SimApp
from replaygate.sim.behaviors import EchoBehavior
from sdks import openai


def _lines(url: str, bodies: list[dict[str, Any]]) -> bytes:
    """An input file: one request a line, to ``url``."""
    made = [
        {"custom_id": f"r{i}", "method": "POST", "url": url, "body": b}
        for i, b in enumerate(bodies)
    ]
    return "".join(json.dumps(m) + "\n" for m in made).encode()


CHAT = _lines(
    "/v1/chat/completions",
    [
        {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Hi"}]},
        {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "x"}], "temperature": 5},
    ],
)


def _client(base_url: str | None = None, http: Any = None) -> Any:
    return openai.OpenAI(api_key="t", base_url=base_url, http_client=http, max_retries=0)


def _made(client: Any, data: bytes, endpoint: str) -> Any:
    uploaded = client.files.create(file=("requests.jsonl", io.BytesIO(data)), purpose="batch")
    return client.batches.create(
        input_file_id=uploaded.id, endpoint=endpoint, completion_window="24h"
    )


def _polled(client: Any) -> tuple[list[str], bytes, bytes]:
    """Statuses seen making and polling a batch of two chat requests (the second refused),
    and its output and error files."""
    batch = _made(client, CHAT, "/v1/chat/completions")
    seen = [batch.status]
    while batch.status not in ("completed", "failed", "cancelled", "expired"):
        batch = client.batches.retrieve(batch.id)
        seen.append(batch.status)
    output = client.files.content(batch.output_file_id).content
    return seen, output, client.files.content(batch.error_file_id).content


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_batch_records_from_the_simulator_and_replays_byte_for_byte(
    sim: Simulator, tmp_path: Path
) -> None:
    store = tmp_path / "batches.jsonl"
    with httpx2_client(store, mode="record-missing", approve_live=True) as http:
        recorded = _polled(_client(sim.openai_base_url, http))
    seen, output, errors = recorded
    assert seen == ["validating", "completed"]
    answered = json.loads(output)
    assert answered["custom_id"] == "r0" and answered["response"]["status_code"] == 200
    assert answered["response"]["body"]["choices"][0]["message"]["content"] == "echo: Hi"
    refused = json.loads(errors)
    assert (refused["custom_id"], refused["response"]["status_code"]) == ("r1", 400)
    with block_network(), httpx2_client(store) as http:
        assert _polled(_client(http=http)) == recorded


def test_a_batch_of_responses_embeddings_or_moderations_is_answered_as_each_answers(
    sim: Simulator,
) -> None:
    client = _client(sim.openai_base_url)
    asked = _lines("/v1/responses", [{"model": "gpt-4o", "input": "Hello"}])
    done = client.batches.retrieve(_made(client, asked, "/v1/responses").id)
    line = json.loads(client.files.content(done.output_file_id).content)
    assert line["response"]["body"]["object"] == "response"
    asked = _lines("/v1/embeddings", [{"model": "text-embedding-3-small", "input": "a"}])
    done = client.batches.retrieve(_made(client, asked, "/v1/embeddings").id)
    line = json.loads(client.files.content(done.output_file_id).content)
    assert len(line["response"]["body"]["data"][0]["embedding"]) == 1536
    asked = _lines("/v1/moderations", [{"model": "omni-moderation-latest", "input": "a"}])
    done = client.batches.retrieve(_made(client, asked, "/v1/moderations").id)
    line = json.loads(client.files.content(done.output_file_id).content)
    assert line["response"]["body"]["results"][0]["flagged"] is False


def test_cancel_list_and_unknown_ids_answer_as_the_api_does(sim: Simulator) -> None:
    client = _client(sim.openai_base_url)
    batch = _made(client, CHAT, "/v1/chat/completions")
    assert client.batches.cancel(batch.id).status == "cancelling"
    assert client.batches.retrieve(batch.id).status == "cancelled"
    with pytest.raises(openai.BadRequestError, match="cancelled"):
        client.batches.cancel(batch.id)
    assert client.batches.list(limit=1).data[0].id == batch.id  # newest first
    with pytest.raises(openai.NotFoundError, match="batch_nope"):
        client.batches.retrieve("batch_nope")
    with pytest.raises(openai.NotFoundError, match="file-nope"):
        client.files.retrieve("file-nope")
    with pytest.raises(openai.BadRequestError, match="'1h'"):
        client.batches.create(
            input_file_id=batch.input_file_id, endpoint="/v1/responses", completion_window="1h"
        )
    auth = {"authorization": "Bearer t"}
    url = f"{sim.openai_base_url}/files/{batch.input_file_id}"
    assert httpx2.delete(f"{url}/content", headers=auth).status_code == 405  # was a download
    assert client.files.delete(batch.input_file_id).deleted


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_batch_a_replay_made_is_refused_not_recorded_as_missing(
    sim: Simulator, tmp_path: Path
) -> None:
    """Growing a recording of a batch job (a poll added after the replayed upload and
    batch), the simulator answered the poll with a 404 for a batch it had not made, and
    the 404 was recorded as the API's answer."""
    store = tmp_path / "grown.jsonl"
    with httpx2_client(store, mode="record-missing", approve_live=True) as http:
        _made(_client(sim.openai_base_url, http), CHAT, "/v1/chat/completions")
    recorded = store.read_bytes()
    with (
        Simulator(behavior="echo") as fresh,
        httpx2_client(store, mode="record-missing", approve_live=True) as http,
    ):
        client = _client(fresh.openai_base_url, http)
        batch = _made(client, CHAT, "/v1/chat/completions")  # replayed, learned
        with pytest.raises(SimulatorRefusalError, match="record the batch job anew"):
            client.batches.retrieve(batch.id)
    assert store.read_bytes() == recorded


def test_a_batch_request_asking_for_a_stream_is_refused_not_a_crash(sim: Simulator) -> None:
    """A line of the input file with ``stream: true`` broke the simulator (a traceback, the
    connection closed): the answer it made was a stream, not the JSON a batch holds."""
    client = _client(sim.openai_base_url)
    body = {"model": "gpt-4o-mini", "stream": True, "messages": [{"role": "user", "content": "x"}]}
    batch = _made(client, _lines("/v1/chat/completions", [body]), "/v1/chat/completions")
    with pytest.raises(openai.BadRequestError, match="stream"):
        client.batches.retrieve(batch.id)


def test_the_files_list_takes_its_purpose_limit_order_and_after(sim: Simulator) -> None:
    """The files list answered every file held whatever its query asked: a purpose, a
    limit (one out of range too), an order and a cursor were left unread."""
    client = _client(sim.openai_base_url)
    kept = client.files.create(file=("kept.txt", io.BytesIO(b"k")), purpose="user_data")
    batched = client.files.create(file=("in.jsonl", io.BytesIO(CHAT)), purpose="batch")
    listed = client.files.list(purpose="user_data").data
    assert kept.id in {f.id for f in listed} and {f.purpose for f in listed} == {"user_data"}
    page = client.files.list(limit=1)
    assert [f.id for f in page.data] == [batched.id] and page.has_more  # newest first
    assert client.files.list(limit=1, after=batched.id).data[0].id == kept.id
    oldest = client.files.list(order="asc", limit=1).data[0]
    assert oldest.id != batched.id
    with pytest.raises(openai.BadRequestError, match="limit"):
        client.files.list(limit=0)


_FORM = (
    b'--b\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n--b\r\n'
    b'Content-Disposition: form-data; name="file"; filename="in.jsonl"\r\n\r\n'
    + CHAT
    + b"\r\n--b--\r\n"
)
_CREDENTIALS = {
    "openai": {"authorization": "Bearer t"},
    "anthropic": {"x-api-key": "t", "anthropic-version": "2023-06-01"},
}


@given(cut=st.integers(1, _FORM.index(b"--b--") + 4), api=st.sampled_from(sorted(_CREDENTIALS)))
def test_an_upload_cut_short_is_refused_not_kept(cut: int, api: str) -> None:
    """A multipart upload cut short (its closing boundary never came) was kept as a file of
    the bytes that came, and one with no boundary was answered as if it had no file: the
    simulator refuses either as its own, not knowing the API's words."""
    app = SimApp(EchoBehavior())
    headers = {**_CREDENTIALS[api], "content-type": "multipart/form-data; boundary=b"}
    for sent, typed in (
        (_FORM[:cut], headers),
        (_FORM, {**headers, "content-type": "multipart/form-data"}),
    ):
        reply = app.handle("POST", "/v1/files", typed, sent)
        assert (reply.status, reply.refused) == (400, True), reply.body
        assert b"multipart/form-data body is broken" in reply.body
    assert app.handle("POST", "/v1/files", headers, _FORM).status == 200


def test_an_upload_or_batch_missing_or_mistyping_a_field_is_named_as_the_api_does() -> None:
    """An upload without ``purpose`` was refused for an invalid purpose; a batch's
    ``input_file_id`` of another type for a missing one; its ``metadata`` not an object was
    dropped."""
    app = SimApp(EchoBehavior())
    headers = {**_CREDENTIALS["openai"], "content-type": "multipart/form-data; boundary=b"}
    unnamed = _FORM[_FORM.index(b'--b\r\nContent-Disposition: form-data; name="file"') :]
    reply = app.handle("POST", "/v1/files", headers, unnamed)
    assert b"Missing required parameter: 'purpose'." in reply.body
    asked = {
        "input_file_id": "file-x",
        "endpoint": "/v1/chat/completions",
        "completion_window": "24h",
    }
    for field, value, said in (
        ("input_file_id", 1, b"Invalid type for 'input_file_id': expected a string"),
        ("metadata", "x", b"Invalid type for 'metadata': expected an object"),
    ):
        sent = orjson.dumps({**asked, field: value})
        reply = app.handle("POST", "/v1/batches", _CREDENTIALS["openai"], sent)
        assert reply.status == 400 and said in reply.body, reply.body


def _line(custom_id: Any) -> bytes:
    body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Hi"}]}
    line = {"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions", "body": body}
    return orjson.dumps(line)


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (
            b"\xef\xbb\xbf" + _line("a"),
            "line 1 of the input file is not JSON (it begins with a byte",
        ),
        (b"[1]", "line 1 of the input file is not a JSON object"),
        (_line(7), "line 1: a custom_id, a string, is required"),
        (_line("a") + b"\r\n\r\n" + _line("a"), "line 3: custom_id 'a' is line 1's too"),
    ],
)
def test_an_input_file_s_line_refused_is_said_why(data: bytes, said: str) -> None:
    """A line beginning with a byte order mark was refused as not JSON, a line not an
    object, a custom_id not a string and one given twice all as wanting a custom_id of its
    own."""
    app = SimApp(EchoBehavior())
    headers = {**_CREDENTIALS["openai"], "content-type": "multipart/form-data; boundary=b"}
    sent = _FORM.replace(CHAT, data)
    uploaded = orjson.loads(app.handle("POST", "/v1/files", headers, sent).body)
    asked = {"input_file_id": uploaded["id"], "endpoint": "/v1/chat/completions"}
    body = orjson.dumps({**asked, "completion_window": "24h"})
    reply = app.handle("POST", "/v1/batches", _CREDENTIALS["openai"], body)
    assert reply.refused and said in orjson.loads(reply.body)["error"]["message"]


def test_a_line_the_simulator_refuses_is_named_when_the_batch_is_polled() -> None:
    """A poll of a batch one of whose lines the simulator refuses as its own was refused
    with that line's refusal alone, naming no line of the input file."""
    app = SimApp(EchoBehavior())
    hi = [{"role": "user", "content": "Hi"}]
    audio = {"model": "gpt-4o-mini", "modalities": ["audio"], "messages": hi}  # no audio made
    data = CHAT + _lines("/v1/chat/completions", [audio]).replace(b'"r0"', b'"r2"')
    headers = {**_CREDENTIALS["openai"], "content-type": "multipart/form-data; boundary=b"}
    uploaded = orjson.loads(
        app.handle("POST", "/v1/files", headers, _FORM.replace(CHAT, data)).body
    )
    asked = {"input_file_id": uploaded["id"], "endpoint": "/v1/chat/completions"}
    body = orjson.dumps({**asked, "completion_window": "24h"})
    made = orjson.loads(app.handle("POST", "/v1/batches", _CREDENTIALS["openai"], body).body)
    reply = app.handle("GET", f"/v1/batches/{made['id']}", _CREDENTIALS["openai"], b"")
    message = orjson.loads(reply.body)["error"]["message"]
    assert reply.refused and message.startswith("line 3 of the input file (custom_id 'r2'): ")


@pytest.mark.parametrize(
    ("endpoint", "own"),
    [("/v1/bogus", False), ("/v1/videos", False), ("/v1/images/edits", True)],
)
def test_a_batch_of_an_endpoint_the_api_does_not_take_is_its_400(endpoint: str, own: bool) -> None:
    """A batch of an endpoint the API takes for none was refused as the simulator's own, as
    if the API took it: it is the API's 400 naming ``endpoint``, and one the API takes
    but the simulator does not answer stays its own refusal."""
    app = SimApp(EchoBehavior())
    asked = {"input_file_id": "file-x", "endpoint": endpoint, "completion_window": "24h"}
    reply = app.handle("POST", "/v1/batches", _CREDENTIALS["openai"], orjson.dumps(asked))
    error = orjson.loads(reply.body)["error"]
    assert (reply.status, reply.refused, error["param"]) == (400, own, None if own else "endpoint")


def test_a_file_expires_as_its_upload_asks_and_a_batch_file_in_30_days(sim: Simulator) -> None:
    """An upload's expires_after was not read (its expires_at null, one out of range
    taken), and a batch file, which the API expires after 30 days, never expired."""
    client = _client(sim.openai_base_url)
    asked = client.files.create(
        file=("a.txt", io.BytesIO(b"a")),
        purpose="user_data",
        expires_after={"anchor": "created_at", "seconds": 3600},
    )
    assert asked.expires_at == asked.created_at + 3600
    batch = client.files.create(file=("in.jsonl", io.BytesIO(CHAT)), purpose="batch")
    assert batch.expires_at == batch.created_at + 30 * 24 * 60 * 60
    kept = client.files.create(file=("k.txt", io.BytesIO(b"k")), purpose="user_data")
    assert kept.expires_at is None
    with pytest.raises(openai.BadRequestError, match=r"expires_after\.seconds"):
        client.files.create(
            file=("a.txt", io.BytesIO(b"a")),
            purpose="user_data",
            expires_after={"anchor": "created_at", "seconds": 60},
        )


def test_a_batch_of_a_file_not_uploaded_for_batch_is_refused(sim: Simulator) -> None:
    """A batch was made of a file uploaded for another purpose than ``batch``, which the API
    refuses: a job passing against the simulator failed live."""
    client = _client(sim.openai_base_url)
    uploaded = client.files.create(file=("in.jsonl", io.BytesIO(CHAT)), purpose="user_data")
    with pytest.raises(openai.BadRequestError, match="'user_data'") as refused:
        client.batches.create(
            input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
        )
    assert refused.value.param == "input_file_id"


def test_a_batch_s_output_files_expire_as_its_output_expires_after_asks(sim: Simulator) -> None:
    """A batch's output_expires_after was left unread: its output and error files never
    expired, and one out of range was taken."""
    client = _client(sim.openai_base_url)
    uploaded = client.files.create(file=("in.jsonl", io.BytesIO(CHAT)), purpose="batch")
    asked = {"input_file_id": uploaded.id, "endpoint": "/v1/chat/completions"}
    made = client.batches.create(
        **asked,
        completion_window="24h",
        output_expires_after={"anchor": "created_at", "seconds": 7200},
    )
    done = client.batches.retrieve(made.id)
    for file_id in (done.output_file_id, done.error_file_id):
        held = client.files.retrieve(file_id)
        assert held.expires_at == held.created_at + 7200
    for wrong, param in (({"anchor": "created_at", "seconds": 5}, "seconds"), ({}, "anchor")):
        with pytest.raises(openai.BadRequestError) as refused:
            client.batches.create(**asked, completion_window="24h", output_expires_after=wrong)
        assert refused.value.param == f"output_expires_after.{param}"


def test_a_batch_names_its_model_and_sums_its_answers_usage(sim: Simulator) -> None:
    """A batch had no model nor usage, which the API gives (``batch.usage.output_tokens``
    raised against the simulator); an input file naming two models, which the API fails,
    was answered."""
    client = _client(sim.openai_base_url)
    done = client.batches.retrieve(_made(client, CHAT, "/v1/chat/completions").id)
    assert done.model == "gpt-4o-mini"
    line = json.loads(client.files.content(done.output_file_id).content)
    answered = line["response"]["body"]["usage"]  # the second request was refused
    assert done.usage is not None
    assert (done.usage.input_tokens, done.usage.output_tokens, done.usage.total_tokens) == (
        answered["prompt_tokens"],
        answered["completion_tokens"],
        answered["total_tokens"],
    )
    hi = [{"role": "user", "content": "Hi"}]
    two = _lines("/v1/chat/completions", [{"model": m, "messages": hi} for m in ("a", "b")])
    with pytest.raises(openai.BadRequestError, match="line 2: model 'b', where line 1's is 'a'"):
        _made(client, two, "/v1/chat/completions")
