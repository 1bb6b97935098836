"""``ids = true`` over HTTP: stable ids are unique per answer and follow the id wherever a
later request names it.

Recorded through the official SDKs against the simulator, replayed with the network
blocked.
"""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path
from typing import Any, ClassVar

import httpx2
import pytest

from loopback import Handler, serving
from replaygate.errors import (
    FixtureMismatchError,
    LiveSendFailedWarning,
    ResponseLeftOpenWarning,
    UnservedRouteError,
    WireFormatError,
)
from replaygate.http import Exchange, block_network, httpx2_client, intercept
from replaygate.sanitize import IdMap, SanitizeConfig, Sanitizer
from replaygate.sim import Simulator
from sdks import anthropic, openai

IDS = Sanitizer(SanitizeConfig(ids=True))
URL = "https://api.openai.com"
TOOLS = [
    {
        "name": "search_corpus",
        "description": "Search",
        "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}},
    }
]


def recording(store: Path) -> Exchange:
    return Exchange(store, mode="record-missing", approve_live=True, sanitize=IDS)


ECHOES = {
    "json": lambda call_id: json.dumps({"call": call_id, "hits": [{"doc_id": "doc-rag"}]}),
    "sentence": lambda call_id: f"results for call {call_id}: doc-rag",
}
"""Tool results that name their call's id inside a longer string."""


def tool_loop(client: anthropic.Anthropic, echo: str) -> str:
    """Ask, run the tool, and answer with a result that names the call's id in its text."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "What is RAG?"}]
    first = client.messages.create(model="m", max_tokens=300, tools=TOOLS, messages=messages)
    use = next(block for block in first.content if block.type == "tool_use")
    messages.append({"role": "assistant", "content": [b.to_dict() for b in first.content]})
    result = ECHOES[echo](use.id)
    answer = {"type": "tool_result", "tool_use_id": use.id, "content": result}
    messages.append({"role": "user", "content": [answer]})
    second = client.messages.create(model="m", max_tokens=300, tools=TOOLS, messages=messages)
    return str(second.content[0].type)


@pytest.mark.parametrize("echo", sorted(ECHOES))
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_an_id_named_inside_a_later_string_replays(tmp_path: Path, echo: str) -> None:
    store = tmp_path / "loop.jsonl"
    with Simulator(behavior="research-copilot", seed=7) as sim:
        http = httpx2_client(recording(store))
        with anthropic.Anthropic(api_key="sk", base_url=sim.url, http_client=http) as client:
            recorded = tool_loop(client, echo)
    assert "toolu_sim" not in store.read_text()
    replay = httpx2_client(Exchange(store, sanitize=IDS))
    with block_network(), anthropic.Anthropic(api_key="t", http_client=replay) as client:
        assert tool_loop(client, echo) == recorded


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_two_conversations_recorded_from_the_simulator_keep_ids_of_their_own(
    tmp_path: Path,
) -> None:
    store = tmp_path / "two.jsonl"
    with Simulator(behavior="research-copilot", seed=7) as sim:
        http = httpx2_client(recording(store))
        with anthropic.Anthropic(api_key="sk", base_url=sim.url, http_client=http) as client:
            for question in ("What is RAG?", "What is an eval?"):
                said = [{"role": "user", "content": question}]
                client.messages.create(model="m", max_tokens=300, tools=TOOLS, messages=said)
    for line in store.read_text().splitlines():  # each names its own key, not the first's
        key = json.loads(line)["key"]
        assert set(re.findall(r"_rg_([0-9a-f]+)_", line)) == {key}


def test_an_id_is_replaced_only_as_a_whole_token() -> None:
    ids = IdMap()
    ids.add("toolu_01", "toolu_rg_abcdef123456_1")
    ids.add("g7Hq2LmN", "rg_abcdef123456_1")
    ids.add("b4", "rg_abcdef123456_2")
    out = ids.rewrite(
        {
            "a": "toolu_01",
            "b": "(toolu_01) and toolu_012, xtoolu_01",
            "c": "g7Hq2LmN!",
            "d": "b4 b4",
            "e": "b4",
        }
    )
    assert out == {
        "a": "toolu_rg_abcdef123456_1",
        "b": "(toolu_rg_abcdef123456_1) and toolu_012, xtoolu_01",
        "c": "rg_abcdef123456_1!",
        "d": "b4 b4",  # a short id with no prefix of its own is replaced only as a whole value
        "e": "rg_abcdef123456_2",
    }


def best_of_two(client: openai.OpenAI, pick: int) -> tuple[str, str, str]:
    """Ask twice, then continue the ``pick``-th answer."""
    answers = [client.responses.create(model="gpt-4o-mini", input="Tell me a joke") for _ in "ab"]
    chosen = answers[pick].id
    follow = client.responses.create(
        model="gpt-4o-mini", input="Explain it", previous_response_id=chosen
    )
    return answers[0].id, answers[1].id, follow.output_text


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_two_answers_to_one_request_get_their_own_ids(tmp_path: Path) -> None:
    store = tmp_path / "best.jsonl"
    with Simulator(behavior="research-copilot") as sim:
        http = httpx2_client(recording(store))
        with openai.OpenAI(api_key="sk", base_url=sim.openai_base_url, http_client=http) as c:
            best_of_two(c, 0)
    with block_network():
        replay = httpx2_client(Exchange(store, sanitize=IDS))
        with openai.OpenAI(api_key="t", http_client=replay) as client:
            first, second, _ = best_of_two(client, 0)
        assert first != second
        replay = httpx2_client(Exchange(store, sanitize=IDS))
        with (
            openai.OpenAI(api_key="t", http_client=replay) as client,
            pytest.raises(FixtureMismatchError) as caught,
        ):
            best_of_two(client, 1)  # the continuation of the other answer was never recorded
    assert any(line.startswith("body.previous_response_id") for line in caught.value.differences)


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_recording_error_names_the_path_as_sent(tmp_path: Path) -> None:
    store = tmp_path / "named.jsonl"
    with Simulator(behavior="echo") as sim:
        http = httpx2_client(recording(store))
        with openai.OpenAI(
            api_key="sk", base_url=sim.openai_base_url, http_client=http, max_retries=0
        ) as client:
            created = client.responses.create(model="gpt-4o", input="hello")
            with pytest.raises(UnservedRouteError) as caught:
                client.responses.input_items.list(created.id)  # a route it does not serve
    assert caught.value.path == f"/v1/responses/{created.id}/input_items"
    assert f"GET /v1/responses/{created.id}/input_items was answered 404" in str(caught.value)


class DropsFirst(Handler):
    """A Responses API that drops the connection of its first request unanswered and
    answers every other with a fresh id."""

    served: ClassVar[list[int]] = [0]

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        DropsFirst.served[0] += 1
        if DropsFirst.served[0] == 1:
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.answer_json({"id": f"resp_live{DropsFirst.served[0]}", "object": "response"})


def test_an_answer_stored_before_its_place_leaves_its_ids_to_no_later_answer(
    tmp_path: Path,
) -> None:
    store, joke = tmp_path / "retried.jsonl", {"model": "m", "input": "Tell me a joke"}
    DropsFirst.served[0] = 0
    with serving(DropsFirst) as base, httpx2_client(recording(store)) as client:
        with (
            pytest.warns(LiveSendFailedWarning, match="RemoteProtocolError"),
            pytest.raises(httpx2.TransportError),  # the first send gets no answer
        ):
            client.post(f"{base}/v1/responses", json=joke)
        client.post(f"{base}/v1/responses", json=joke)  # sent again: stored as answer 0
    with serving(DropsFirst) as base, httpx2_client(recording(store)) as client:
        for _ in "ab":  # answer 0 replayed, then a second answer recorded
            client.post(f"{base}/v1/responses", json=joke)
    with block_network(), httpx2_client(Exchange(store, sanitize=IDS)) as client:
        ids = [client.post(f"{URL}/v1/responses", json=joke).json()["id"] for _ in "ab"]
    assert ids[0] != ids[1]


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_response_left_unread_is_named_by_the_path_as_sent(tmp_path: Path) -> None:
    store, auth = tmp_path / "left.jsonl", {"authorization": "Bearer sk"}
    with (
        Simulator(behavior="echo") as sim,
        httpx2.Client(base_url=sim.openai_base_url, headers=auth) as http,
        pytest.warns(ResponseLeftOpenWarning) as caught,
    ):
        with intercept(store, "record-missing", approve_live=True, sanitize=IDS):
            live = http.post("/responses", json={"model": "gpt-4o", "input": "hi"}).json()["id"]
            left = http.send(http.build_request("GET", f"/responses/{live}"), stream=True)
        left.close()
    # caught holds every warning of the block: a collection there may add an earlier test's
    left_open = [w for w in caught if issubclass(w.category, ResponseLeftOpenWarning)]
    assert f"GET /v1/responses/{live} was not read" in str(left_open[0].message)


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_an_openai_batch_and_its_files_get_stable_ids(tmp_path: Path) -> None:
    """A file's id (``file-...``) and a batch's (``batch_...``) were stored as the API made
    them: each recording of the same batch job wrote other ids, into other paths."""
    store = tmp_path / "batch.jsonl"
    line = {"custom_id": "q", "method": "POST", "url": "/v1/embeddings"}
    data = json.dumps({**line, "body": {"model": "text-embedding-3-small", "input": "a"}})

    def job(client: Any) -> str:
        upload = client.files.create(file=("in.jsonl", data.encode()), purpose="batch")
        made = client.batches.create(
            input_file_id=upload.id, endpoint="/v1/embeddings", completion_window="24h"
        )
        done = client.batches.retrieve(made.id)
        return str(client.files.content(done.output_file_id).text)

    with Simulator(behavior="echo") as sim, httpx2_client(recording(store)) as http:
        live = job(openai.OpenAI(api_key="sk", base_url=sim.openai_base_url, http_client=http))
    stored = store.read_text("utf-8")
    assert "file-rg_" in stored and "batch_rg_" in stored
    assert "file-sim_" not in stored and '"batch_sim_' not in stored
    with block_network(), httpx2_client(Exchange(store, sanitize=IDS)) as http:
        assert job(openai.OpenAI(api_key="t", http_client=http)) == live


def test_a_request_beside_a_stream_no_fixture_can_keep_is_sent(tmp_path: Path) -> None:
    """A request sent while a stream was read whose headers no fixture can keep (a value
    that is not ASCII) raised that stream's refusal, as it looked for ids in it: the
    stream is refused where it ends, and the request beside it is recorded."""
    events = b'data: {"type":"response.created","response":{"id":"resp_live1"}}\n\n'

    def answer(request: httpx2.Request) -> httpx2.Response:
        if request.method == "GET":
            return httpx2.Response(200, json={"id": "resp_live1", "object": "response"})
        headers = {
            "content-type": "text/event-stream",
            "x-request-id": "req_\u00e9".encode("latin-1"),
        }
        return httpx2.Response(200, headers=headers, content=iter([events, b"data: [DONE]\n\n"]))

    store = tmp_path / "beside.jsonl"
    live = httpx2.MockTransport(answer)
    got: list[Any] = []
    http = httpx2_client(
        store, "record-missing", approve_live=True, sanitize=IDS.config, transport=live
    )
    sent = http.build_request("POST", f"{URL}/v1/responses", json={"model": "m", "stream": True})
    stream = http.send(sent, stream=True)
    read = stream.iter_bytes()
    next(read)  # the stream still open, its first event read
    got.append(http.get(f"{URL}/v1/responses/resp_live1").json())
    with pytest.raises(WireFormatError, match="x-request-id"):
        stream.close()
    assert got == [{"id": "resp_live1", "object": "response"}]
