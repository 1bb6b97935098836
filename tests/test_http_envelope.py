"""The HTTP envelope and the recorded response form (pure functions)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from replaygate.errors import WireFormatError
from replaygate.fixtures.fingerprint import fixture_key
from replaygate.http.envelope import canonical_path, envelope, interface_of, is_model_api
from replaygate.http.recorded import (
    kept_headers,
    plain_response,
    replayed,
    stream_response,
)
from replaygate.http.sse import SSEEvent, parse_events
from replaygate.sim.endpoints import endpoints

NOISE = [
    ("x-api-key", "sk-ant-api03-secret"),
    ("Authorization", "Bearer sk-proj-secret"),
    ("api-key", "azure-secret"),
    ("cookie", "session=1"),
    ("x-stainless-retry-count", "1"),
    ("x-stainless-os", "Linux"),
    ("user-agent", "Anthropic/Python 2.14.0"),
    ("content-length", "72"),
    ("accept-encoding", "gzip"),
    ("idempotency-key", "stainless-python-retry-1"),
    ("host", "api.anthropic.com"),
]
BODY = b'{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"\xc3\xa9t\xc3\xa9"}]}'


def test_envelope_keeps_only_meaningful_headers_and_the_parsed_body() -> None:
    headers = [
        *NOISE,
        ("anthropic-version", "2023-06-01"),
        ("Anthropic-Beta", "a"),
        ("anthropic-beta", "b"),
    ]
    env = envelope("post", "/v1/messages", b"", headers, BODY)
    assert env == {
        "method": "POST",
        "path": "/v1/messages",
        "headers": {"anthropic-version": "2023-06-01", "anthropic-beta": "a,b"},
        "body": {
            "model": "m",
            "max_tokens": 8,
            "messages": [{"role": "user", "content": "été"}],
        },
    }


def test_noise_headers_do_not_change_the_key() -> None:
    quiet = envelope("POST", "/v1/messages", b"", [], BODY)
    noisy = envelope("POST", "/v1/messages", b"", NOISE, BODY)
    assert fixture_key(quiet) == fixture_key(noisy)
    assert fixture_key(quiet) != fixture_key(
        envelope("POST", "/v1/messages", b"", [("openai-beta", "assistants=v2")], BODY)
    )


def _connector(token: str) -> bytes:
    server = {"type": "url", "url": "https://mcp.example.com/sse", "name": "x"}
    return json.dumps(
        {"model": "m", "mcp_servers": [{**server, "authorization_token": token}]}
    ).encode()


def _remote_mcp(token: str) -> bytes:
    headers = {"Authorization": f"Bearer {token}", "X-Tenant": "acme"}
    tool = {"type": "mcp", "server_label": "x", "authorization": token, "headers": headers}
    return json.dumps({"model": "m", "tools": [tool, {"type": "function", "name": "f"}]}).encode()


@pytest.mark.parametrize(
    ("path", "body", "kept"),
    [  # the MCP server's token was stored in the fixture and matched: a replay with another missed
        (
            "/v1/messages",
            _connector,
            {"type": "url", "url": "https://mcp.example.com/sse", "name": "x"},
        ),
        (
            "/v1/responses",
            _remote_mcp,
            {"type": "mcp", "server_label": "x", "headers": {"X-Tenant": "acme"}},
        ),
    ],
)
def test_the_token_given_to_an_mcp_server_the_api_calls_is_neither_stored_nor_matched(
    path: str, body: Callable[[str], bytes], kept: dict[str, object]
) -> None:
    recorded = envelope("POST", path, b"", [], body("dev-token-1234"))
    assert "dev-token" not in json.dumps(recorded)
    assert (recorded["body"].get("mcp_servers") or recorded["body"]["tools"])[0] == kept
    assert fixture_key(recorded) == fixture_key(envelope("POST", path, b"", [], body("test")))


def test_body_forms_never_collide() -> None:
    json_string = envelope("POST", "/p", b"", [], b'"hi"')
    text = envelope("POST", "/p", b"", [], b"hi")
    binary = envelope("POST", "/p", b"", [], b"\xff\x00")
    empty = envelope("GET", "/p", b"", [], b"")
    assert json_string["body"] == "hi" and text == {**text, "text": "hi"} and "body" not in text
    assert binary["base64"] == "/wA="
    assert empty["body"] is None
    assert len({fixture_key(e) for e in (json_string, text, binary)}) == 3


def test_host_is_added_only_when_asked() -> None:
    assert "host" not in envelope("GET", "/p", b"", [], b"")
    assert envelope("GET", "/p", b"", [], b"", host="proxy:8080")["host"] == "proxy:8080"


def test_canonical_path() -> None:
    assert canonical_path("/v1/messages", b"") == "/v1/messages"
    assert canonical_path("/v1/messages", b"beta=true&a=") == "/v1/messages?a=&beta=true"


@pytest.mark.parametrize(
    ("path", "interface"),
    [
        ("/v1/messages", "anthropic.messages"),
        ("/v1/messages?beta=true", "anthropic.messages"),
        ("/proxy/anthropic/v1/messages", "anthropic.messages"),
        ("/v1/chat/completions", "openai.chat.completions"),
        ("/openai/deployments/x/chat/completions", "openai.chat.completions"),
        ("/v1/models", "http"),
        ("/v1/messages/count_tokens", "http"),
    ],
)
def test_interface_of(path: str, interface: str) -> None:
    assert interface_of(path) == interface


def test_response_keeps_the_headers_the_sdks_read() -> None:
    headers = [
        ("Content-Type", "application/json"),
        ("request-id", "req_1"),
        ("retry-after", "3"),
        ("x-should-retry", "true"),
        ("content-encoding", "gzip"),
        ("set-cookie", "a=b"),
        ("anthropic-ratelimit-requests-remaining", "9"),
        ("date", "today"),
    ]
    assert kept_headers(headers) == {
        "content-type": "application/json",
        "request-id": "req_1",
        "retry-after": "3",
        "x-should-retry": "true",
    }


def test_replayed_plain_response_shortens_retry_timing() -> None:
    record = plain_response(
        429, [("content-type", "application/json"), ("retry-after", "30")], b'{"type":"error"}'
    )
    answer = replayed(record)
    headers = dict(answer.headers)
    assert answer.status == 429
    assert headers["retry-after"] == "0"
    assert headers["retry-after-ms"] == "1"
    assert answer.chunks == (b'{"type":"error"}',)
    assert dict(replayed(plain_response(500, [], b"")).headers)["retry-after-ms"] == "1"
    assert "retry-after-ms" not in dict(replayed(plain_response(200, [], b"{}")).headers)


def test_replayed_stream_hands_over_the_recorded_events_whole() -> None:
    events = [
        SSEEvent('{"type":"message_start"}', "message_start"),
        SSEEvent("two\nlines, ünïcode"),
        SSEEvent("[DONE]"),
    ]
    record = stream_response(200, [("content-type", "text/event-stream")], events, "complete")
    answer = replayed(record)
    assert answer.chunks == (b"".join(e.encode() for e in events),)
    assert parse_events(answer.body) == events
    assert (answer.events, answer.end, answer.streamed) == (3, "complete", True)
    empty = replayed(stream_response(200, [], [], "closed"))
    assert (empty.chunks, empty.events, empty.end) == ((), 0, "closed")


def test_cut_stream_keeps_the_error() -> None:
    record = stream_response(200, [], [SSEEvent("{}", "ping")], "cut", ConnectionError("gone"))
    assert record["stream_error"] == {"type": "ConnectionError", "message": "gone"}
    assert replayed(record).error == ("ConnectionError", "gone")


@pytest.mark.parametrize(
    ("record", "path"),
    [
        ([], "response"),
        ({"status": "200"}, "response.status"),
        ({"status": 200, "headers": []}, "response.headers"),
        ({"status": 200, "events": {}}, "response.events"),
        ({"status": 200, "events": [{"event": "x"}]}, "response.events[0]"),
        ({"status": 200, "events": [], "stream_end": "maybe"}, "response.stream_end"),
    ],
)
def test_bad_recorded_responses_name_the_field(record: object, path: str) -> None:
    with pytest.raises(WireFormatError) as caught:
        replayed(record)
    assert caught.value.path == path


def test_every_path_the_simulator_serves_is_a_model_api_path() -> None:
    # a live send to such a path moves to the simulator a recording runs against, and
    # its 404 for a resource is an API error, not a route the server lacks
    served = [e.route for e in endpoints() if isinstance(getattr(e, "route", None), str)]
    served = [r for r in served if r not in ("/v1/files", "/v1/batches")]  # OpenAI's host's
    served.append("/v1beta/models/gemini-2.0-flash:generateContent")
    assert "/v1/responses/compact" in served and "/v1/embeddings" in served
    for path in served:
        assert any(e.serves(path) for e in endpoints()), path
        assert is_model_api(path), path
    assert not is_model_api("/v1/files") and not is_model_api("/search")


@pytest.mark.parametrize(
    "path",
    [
        "/openai/deployments/emb/embeddings?api-version=2024-06-01",
        "/openai/responses/resp_1?api-version=2025-03-01-preview",
        "/gw/openai/v1/responses/resp_1",
        "/api/v1/embeddings",
    ],
)
def test_a_model_api_path_after_a_base_path_is_one(path: str) -> None:
    # Azure's embeddings and a stored response's retrieval went to the network past
    # live_origin, and their 401 was recorded as the model's answer
    assert is_model_api(path)
    assert not is_model_api("/openai/deployments/emb/files")


def test_a_path_byte_that_is_not_utf8_has_one_form_escaped_or_not() -> None:
    # a path read with its bytes as they came (not percent-encoded) ended in a
    # UnicodeEncodeError when it held an escape too, and in a surrogate otherwise
    from replaygate.http.envelope import decoded_path

    assert decoded_path("/a/\udcff") == decoded_path("/a/%FF") == "/a/%FF"
    assert decoded_path("/a%2F\udcff") == "/a%2F%FF"
    assert decoded_path("/a/café") == decoded_path("/a/caf%C3%A9") == "/a/café"


GEMINI_CALL = "/v1beta/models/gemini-2.0-flash:generateContent"


@pytest.mark.parametrize(
    ("host", "path", "dropped"),
    [
        ("generativelanguage.googleapis.com", "/v1beta/files", True),
        ("127.0.0.1", GEMINI_CALL, True),
        ("127.0.0.1", "/v1beta/tunedModels/mine:countTokens", True),
        ("kv.internal.example", "/v1/get", False),
        ("127.0.0.1", "/v1beta/files", False),
        ("googleapis.com.evil.example", "/v1/get", False),
    ],
)
def test_key_is_left_out_only_where_it_is_google_s_api_key(
    host: str, path: str, dropped: bool
) -> None:
    kept = canonical_path(path, b"pageSize=5&key=AIza-k", host=host)
    assert kept == (f"{path}?pageSize=5" if dropped else f"{path}?key=AIza-k&pageSize=5")
