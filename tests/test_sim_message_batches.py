"""Anthropic's Message Batches from the simulator: a batch made, polled until it ends, its
JSONL results fetched, recorded and replayed offline; the API's answers to a cancel, a
deletion, a list and an id it does not hold."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2
import orjson
import pytest

from replaygate.http import httpx2_client
from replaygate.http.adapter import point_at
from replaygate.network import block_network
from replaygate.sim import Simulator
from replaygate.sim.app import SimApp
from replaygate.sim.behaviors import EchoBehavior
from sdks import anthropic

MODEL = "claude-sonnet-4-6"
BATCHES = "/v1/messages/batches"


def _request(custom_id: str, text: str) -> dict[str, Any]:
    params = {"model": MODEL, "max_tokens": 64, "messages": [{"role": "user", "content": text}]}
    return {"custom_id": custom_id, "params": params}


def _client(sim: Simulator) -> Any:
    return anthropic.Anthropic(api_key="test", base_url=sim.url, max_retries=0)


def _polled(client: Any) -> tuple[list[str], list[tuple[str, str]]]:
    """Statuses seen making and polling a batch of two requests (one the API refuses), and
    each result's custom id and what it holds."""
    asked = [_request("a", "Hi"), _request("b", "Bye")]
    asked[1]["params"]["max_tokens"] = 0  # refused: an errored result
    batch = client.messages.batches.create(requests=asked)
    seen = [batch.processing_status]
    while batch.processing_status != "ended":
        batch = client.messages.batches.retrieve(batch.id)
        seen.append(batch.processing_status)
    results = []
    for line in client.messages.batches.results(batch.id):
        said = line.result.message.content[0] if line.result.type == "succeeded" else None
        results.append((line.custom_id, getattr(said, "text", line.result.type)))
    return seen, results


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_batch_records_from_the_simulator_and_replays_offline(
    sim: Simulator, tmp_path: Path
) -> None:
    store = tmp_path / "batches.jsonl"
    with httpx2_client(store, mode="record-missing", approve_live=True) as http:
        recorded = _polled(anthropic.Anthropic(api_key="t", base_url=sim.url, http_client=http))
    assert recorded == (["in_progress", "ended"], [("a", "echo: Hi"), ("b", "errored")])
    with block_network(), httpx2_client(store) as http:
        assert _polled(anthropic.Anthropic(api_key="t", http_client=http)) == recorded


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_the_results_replay_byte_for_byte(sim: Simulator, tmp_path: Path) -> None:
    store = tmp_path / "results.jsonl"
    client = _client(sim)
    batch = client.messages.batches.create(requests=[_request("only", "Hello")])
    url = client.messages.batches.retrieve(batch.id).results_url
    assert url == f"{sim.url}/v1/messages/batches/{batch.id}/results"
    headers = {"x-api-key": "t", "anthropic-version": "2023-06-01"}
    with httpx2_client(store, mode="record-missing", approve_live=True) as http:
        live = http.get(url, headers=headers)
    assert live.headers["content-type"] == "application/binary"
    assert live.content.endswith(b"}\n") and live.content.count(b"\n") == 1
    with block_network(), httpx2_client(store) as http:
        assert http.get(url, headers=headers).content == live.content


def test_cancel_delete_list_and_an_unknown_id_answer_as_the_api_does(sim: Simulator) -> None:
    client = _client(sim)
    batch = client.messages.batches.create(requests=[_request("c", "Stop")])
    with pytest.raises(anthropic.BadRequestError, match="finished processing"):
        client.messages.batches.delete(batch.id)
    canceling = client.messages.batches.cancel(batch.id)
    assert (canceling.processing_status, canceling.cancel_initiated_at is not None) == (
        "canceling",
        True,
    )
    ended = client.messages.batches.retrieve(batch.id)
    assert (ended.processing_status, ended.request_counts.canceled) == ("ended", 1)
    assert [r.result.type for r in client.messages.batches.results(batch.id)] == ["canceled"]
    assert client.messages.batches.list(limit=1).data[0].id == batch.id  # newest first
    assert client.messages.batches.delete(batch.id).type == "message_batch_deleted"
    with pytest.raises(anthropic.NotFoundError):
        client.messages.batches.retrieve(batch.id)
    with pytest.raises(anthropic.BadRequestError, match="custom_id"):
        client.messages.batches.create(requests=[_request("c", "x"), _request("c", "y")])


def test_a_batch_brought_from_the_api_s_host_names_its_results_there(sim: Simulator) -> None:
    """Recorded under ``--replaygate-simulator``, a batch's ``results_url`` named the
    simulator's port of that run, not the API's host the client addressed: a fixture that
    changed on each recording, and a later fetch sent to a port no longer served."""
    request = httpx2.Request("POST", "https://api.anthropic.com/v1/messages/batches")
    point_at(request, f"{sim.url}/v1/messages/batches")
    assert request.headers["x-forwarded-host"] == "api.anthropic.com"
    forwarded = {"x-forwarded-host": request.headers["x-forwarded-host"]}
    headers = {"x-api-key": "t", "anthropic-version": "2023-06-01", **forwarded}
    made = httpx2.post(request.url, json={"requests": [_request("f", "Far")]}, headers=headers)
    polled = httpx2.get(f"{request.url}/{made.json()['id']}", headers=headers).json()
    assert polled["results_url"].startswith("https://api.anthropic.com/v1/messages/batches/")


def test_the_list_pages_newest_first_either_way() -> None:
    with Simulator(behavior="echo") as fresh:
        client = _client(fresh)
        made = [client.messages.batches.create(requests=[_request("p", str(i))]).id for i in "abc"]
        newest = made[::-1]
        assert [b.id for b in client.messages.batches.list(limit=2)] == newest  # every page
        before = client.messages.batches.list(limit=1, before_id=newest[2])
        assert ([b.id for b in before.data], before.has_more) == ([newest[1]], True)


ANTHROPIC = {"x-api-key": "t", "anthropic-version": "2023-06-01", "host": "127.0.0.1"}
OPENAI = {"authorization": "Bearer t", "host": "127.0.0.1"}


def _seen(app: SimApp, method: str, path: str, headers: dict[str, str], body: bytes) -> Any:
    reply = app.handle(method, path, headers, body)
    assert reply.status == 200, reply.body
    return orjson.loads(reply.body)


def test_batch_polls_keep_either_api_s_batch_in_progress_for_that_many_polls() -> None:
    """A batch ended at its first poll, so a polling loop's waiting branch (log, sleep,
    poll again) was never recorded: ``batch_polls`` keeps it in progress that long."""
    app = SimApp(EchoBehavior(), batch_polls=2)
    made = _seen(app, "POST", BATCHES, ANTHROPIC, orjson.dumps({"requests": [_request("a", "Hi")]}))
    polled = [_seen(app, "GET", f"{BATCHES}/{made['id']}", ANTHROPIC, b"") for _ in range(3)]
    statuses = [p["processing_status"] for p in polled]
    assert statuses == ["in_progress", "in_progress", "ended"]
    assert polled[0]["results_url"] is None and polled[2]["request_counts"]["succeeded"] == 1
    line = {"custom_id": "q", "method": "POST", "url": "/v1/chat/completions"}
    line["body"] = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Hi"}]}
    form = (
        b'--b\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n--b\r\n'
        b'Content-Disposition: form-data; name="file"; filename="in.jsonl"\r\n\r\n'
        + orjson.dumps(line)
        + b"\n\r\n--b--\r\n"
    )
    upload = {**OPENAI, "content-type": "multipart/form-data; boundary=b"}
    uploaded = _seen(app, "POST", "/v1/files", upload, form)
    asked = {"input_file_id": uploaded["id"], "endpoint": line["url"], "completion_window": "24h"}
    batch = _seen(app, "POST", "/v1/batches", OPENAI, orjson.dumps(asked))
    polled = [_seen(app, "GET", f"/v1/batches/{batch['id']}", OPENAI, b"") for _ in range(3)]
    assert [p["status"] for p in polled] == ["in_progress", "in_progress", "completed"]
    assert polled[0]["output_file_id"] is None and polled[2]["output_file_id"]


@pytest.mark.parametrize("polls", [-1, 1001, True])
def test_batch_polls_out_of_range_are_refused(polls: Any) -> None:
    with pytest.raises(ValueError, match="batch_polls: expected how many polls"):
        Simulator(behavior="echo", batch_polls=polls)


POLLING_TEST = """
def test_waits(anthropic_client):
    client = anthropic_client()
    params = {"model": "claude-sonnet-4-6", "max_tokens": 64,
              "messages": [{"role": "user", "content": "Hi"}]}
    batch = client.messages.batches.create(requests=[{"custom_id": "a", "params": params}])
    waited = 0
    while batch.processing_status != "ended":
        waited += 1
        batch = client.messages.batches.retrieve(batch.id)
    assert waited == 2
"""


@pytest.mark.slow  # runs a pytest session of its own
def test_the_plugin_s_ini_setting_keeps_a_batch_in_progress(pytester: pytest.Pytester) -> None:
    """The waiting branch of a polling loop recorded under the plugin, and replayed."""
    pytester.makeini("[pytest]\nreplaygate_sim_batch_polls = 1\n")
    pytester.makepyfile(POLLING_TEST)
    recording = ("--replaygate-record-mode=record-missing", "--replaygate-approve-live")
    pytester.runpytest(*recording, "--replaygate-simulator=echo").assert_outcomes(passed=1)
    pytester.runpytest().assert_outcomes(passed=1)
    refused = pytester.runpytest(
        *recording, "--replaygate-simulator=echo", "--replaygate-sim-batch-polls=1001"
    )
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    refused.stderr.fnmatch_lines(
        ["*--replaygate-sim-batch-polls / ini replaygate_sim_batch_polls: *1001"]
    )


@pytest.mark.parametrize(
    ("requests", "said"),
    [
        ("x", "requests: Input should be a valid list"),
        ([1], "requests.0: Input should be a valid dictionary"),
        ([{"params": {}}], "requests.0.custom_id: Field required"),
        ([{"custom_id": 7, "params": {}}], "requests.0.custom_id: Input should be a valid string"),
        ([{"custom_id": "a", "params": []}], "requests.0.params: Input should be a valid dict"),
    ],
)
def test_requests_of_another_type_are_named_as_the_api_names_them(requests: Any, said: str) -> None:
    """A list of requests not a list was answered as missing, a request not an object or a
    custom_id not a string as one not matching its pattern, and params not an object as
    missing."""
    app = SimApp(EchoBehavior())
    reply = app.handle("POST", BATCHES, ANTHROPIC, orjson.dumps({"requests": requests}))
    assert reply.status == 400 and said in orjson.loads(reply.body)["error"]["message"]


def _upload(n: int) -> bytes:
    """A multipart upload of a text file, with the purpose OpenAI's Files API asks for."""
    return (
        b'--b\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nuser_data\r\n--b\r\n'
        b'Content-Disposition: form-data; name="file"; filename="%d.txt"\r\n'
        b"Content-Type: text/plain\r\n\r\nx\r\n--b--\r\n" % n
    )


_FORM = "multipart/form-data; boundary=b"


@pytest.mark.parametrize(
    ("route", "headers", "cursor"),
    [
        (BATCHES, ANTHROPIC, "after_id="),
        ("/v1/files", {**ANTHROPIC, "content-type": _FORM}, "page=page_"),
        ("/v1/files", {**OPENAI, "content-type": _FORM}, "after="),
    ],
)
def test_a_list_deleted_page_by_page_pages_on_after_its_deleted_last(
    route: str, headers: dict[str, str], cursor: str
) -> None:
    """A loop deleting each item of a page before asking for the next (the SDKs' pagers ask
    after the page's last id) got no next page of batches or OpenAI's files, and a refusal
    of the next page of Anthropic's files: the items after the deleted one were left."""
    app = SimApp(EchoBehavior())
    made = []
    for i in range(5):
        sent = orjson.dumps({"requests": [_request("a", str(i))]})
        made.append(_seen(app, "POST", route, headers, sent if route == BATCHES else _upload(i)))
    seen: list[str] = []
    query = "limit=2"
    while page := _seen(app, "GET", f"{route}?{query}", headers, b"")["data"]:
        for item in page:
            seen.append(item["id"])
            if route == BATCHES:
                _seen(app, "GET", f"{route}/{item['id']}", headers, b"")  # ended
            _seen(app, "DELETE", f"{route}/{item['id']}", headers, b"")
        query = f"limit=2&{cursor}{page[-1]['id']}"
    assert seen == [m["id"] for m in reversed(made)]


def test_a_request_of_a_batch_the_simulator_refuses_is_named() -> None:
    """A batch of many requests, one of which the simulator refuses as its own, was refused
    with that request's refusal alone, naming none of them."""
    app = SimApp(EchoBehavior())
    asked = [_request(f"q{i}", "Hi") for i in range(3)]
    asked[1]["params"]["temperature"] = 3  # the simulator's own refusal
    reply = app.handle("POST", BATCHES, ANTHROPIC, orjson.dumps({"requests": asked}))
    message = orjson.loads(reply.body)["error"]["message"]
    assert reply.refused and message.startswith("requests.1.params (custom_id 'q1'): temperature")


@pytest.mark.parametrize(
    ("route", "headers", "answer"),
    [
        (BATCHES, ANTHROPIC, {"id": "msgbatch_x", "type": "message_batch"}),
        ("/v1/batches", OPENAI, {"id": "batch_x", "object": "batch"}),
    ],
)
def test_a_replayed_batch_missing_its_status_is_not_held(
    route: str, headers: dict[str, str], answer: dict[str, Any]
) -> None:
    """A replayed answer of a batch without its status (a fixture written by hand) was
    held, and a cancel or poll of it broke the simulator (a KeyError, the connection
    closed): it is no batch the simulator holds, a 404."""
    app = SimApp(EchoBehavior())
    app.learn("POST", route, {"requests": [_request("a", "Hi")]}, {"status": 200, "body": answer})
    for method, path in (("POST", f"/{answer['id']}/cancel"), ("GET", f"/{answer['id']}")):
        assert app.handle(method, route + path, headers, b"").status == 404
