"""Law 4 on a planted-secret corpus: every token family, in every encoding, in every field.

Each secret is recorded through the fixture core (``FixtureSession.record``, the path
both layers share) into a store that already holds a clean fixture; each recording
must raise :class:`SecretInFixtureError` naming the field, and leave the store's bytes
as they were: 0 written. A representative subset goes through the real clients (the
``anthropic`` and ``openai`` SDKs over replaygate's transport, and ``RecordingModel``)
against the loopback simulator. Hypothesis plants random secrets at random places.
"""

from __future__ import annotations

import base64
import itertools
import json
import random
import string
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from replaygate import RecordingModel
from replaygate.errors import SecretInFixtureError
from replaygate.fixtures.fixture import Fixture, make_meta
from replaygate.fixtures.session import FixtureSession, Sample
from replaygate.fixtures.store import FixtureStore
from replaygate.http import httpx2_client
from replaygate.hygiene.verify import verify_store
from replaygate.models.live import AnthropicModel
from replaygate.models.types import Message
from replaygate.sanitize.secret_scan import detect_in_text, find_fixture_secrets
from replaygate.sim import Simulator
from sdks import anthropic, openai
from unicode_text import UTF8_CHARACTERS

# Format-valid, made-up values, built in pieces so no scanner mistakes this file for a leak.
FAMILIES: dict[str, str] = {
    "Anthropic": "sk-ant-api03-" + "Zq8Xv7Wm2Kp9Rt4Ly6Hb8Nc3Jd5Fg1Ss0Aa9b-Qx7",
    "OpenAI": "sk-proj-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0",
    "AWS AKIA": "AKIA" + "Q3EGRTZ5KX7NMBPL",
    "AWS ASIA": "ASIA" + "Y5KX7NMBPLQ3EGRT",
    "GitHub classic": "ghp_" + "Zq8Xv7Wm2Kp9Rt4Ly6Hb8Nc3Jd5Fg1Ss0Aa9b",
    "GitHub fine-grained": "github_pat_"
    + "11ABCDEFG0"
    + "123456789_abcdefghijklmnopqrstuvwxyzAB12",
    "GitLab": "glpat-" + "Xv7Wm2Kp9Rt4Ly6Hb8Nc",
    "Slack bot": "xoxb-" + "2048113-1024557-AbCdEfGhIjKlMn",
    "Slack user": "xoxp-" + "2048113-1024557-9934-0f1e2d3c4b5a",
    "Slack app": "xapp-" + "1-A0123BCDE-7654321-f00dfeedbeef",
    "Google API key": "AIza" + "SyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW",
    "Google OAuth": "ya29." + "a0AfH6SMBx7Wm2Kp9Rt4Ly6Hb8Nc3Jd5",
    "GCP client secret": "GOCSPX-" + "Wm2Kp9Rt4Ly6Hb8Nc3Jd5Fg1Ss0A",
    "Stripe sk_live": "sk_live_" + "51H8q2kLmN0pQrStUvWxYz12",
    "Stripe rk_live": "rk_live_" + "51H8q2kLmN0pQrStUvWxYz12",
    "Hugging Face": "hf_" + "Zq8Xv7Wm2Kp9Rt4Ly6Hb8Nc3Jd5Fg1Ss0Aa",
    "LangSmith": "lsv2_pt_" + "9f1c2b7a4e5d6c8b0a1f2e3d4c5b6a79" + "_a1b2c3d4e5",
    "Langfuse": "sk-lf-" + "6f1c2b7a-4e5d-6c8b-0a1f-2e3d4c5b6a79",
    "Logfire": "pylf_v1_us_" + "kx3vr2hmfbsjwqlt9pzn4c7y8d6g5",
    "SendGrid": "SG."
    + "Zq8Xv7Wm2Kp9Rt4Ly6Hb8N"
    + "."
    + "c3Jd5Fg1Ss0Aa9bQx7Wm2Kp9Rt4Ly6Hb8Nc3Jd5Fg1S",
    "JSON web token": "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0"
    ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "PEM": "-----BEGIN RSA " + "PRIVATE KEY-----\nMIIEowIBAAKCAQEA1b2C3d4E5f6G7h8",
    "high-entropy": "q8Zr2LxV9mT4wK7pB1nC6dH3" + "Yw5Ej0Fs",
}
"""A family name and a value of that family."""


def _u_escaped(secret: str) -> str:
    """JSON held as text (tool-call arguments, an event's data) with every character escaped."""
    return '{"arg": "' + "".join(f"\\u{ord(c):04x}" for c in secret) + '"}'


ENCODINGS: dict[str, Callable[[str], str]] = {
    "plain": lambda secret: f"please use {secret} for it",
    "base64": lambda secret: "blob " + base64.b64encode(f"key: {secret}".encode()).decode(),
    "u-escaped": _u_escaped,
    "percent": lambda secret: "https://api.example.test/v1?q=" + quote(secret, safe=""),
}
"""How a text field may hold a secret: as is, base64, \\u-escaped JSON, percent-encoded."""

SCHEMES = ["BEARER", "bearer", "Bearer", "bEaReR", "TOKEN", "Token", "Basic", "DIGEST"]
"""Auth schemes in other letter cases, before a secret without a known prefix."""

CLEAN_REQUEST = {"method": "POST", "path": "/v1/messages", "headers": {}, "body": {"q": "clean"}}
CLEAN_RESPONSE = {"status": 200, "headers": {}, "body": {"text": "fine"}}


def _request(body: Any = None, path: str = "/v1/messages", headers: Any = None) -> dict[str, Any]:
    return {"method": "POST", "path": path, "headers": headers or {}, "body": body}


def _response(body: Any = None, events: list[dict[str, str]] | None = None) -> dict[str, Any]:
    if events is not None:
        return {"status": 200, "headers": {}, "events": events, "stream_end": "complete"}
    return {"status": 200, "headers": {}, "body": body}


def _placed(text: str) -> dict[str, tuple[dict[str, Any], dict[str, Any], str | None, str]]:
    """(request, response, note, expected path prefix) with ``text`` in each field."""
    clean_body = {"messages": [{"role": "user", "content": "hi"}]}
    return {
        "request body": (
            _request({"messages": [{"role": "user", "content": text}]}),
            _response({"ok": True}),
            None,
            "request.body.messages[0].content",
        ),
        "request header": (
            _request(clean_body, headers={"anthropic-beta": text}),
            _response({"ok": True}),
            None,
            "request.headers.anthropic-beta",
        ),
        "path": (
            _request(clean_body, path="/v1/messages?q=" + quote(text, safe="")),
            _response({"ok": True}),
            None,
            "request.path",
        ),
        "response body": (
            _request(clean_body),
            _response({"content": [{"type": "text", "text": text}]}),
            None,
            "response.body.content[0].text",
        ),
        "response events": (
            _request(clean_body),
            _response(events=[{"data": orjson.dumps({"note": text}).decode()}]),
            None,
            "response.events[0].data",
        ),
        "meta.note": (
            _request(clean_body),
            _response({"ok": True}),
            text,
            "meta.note",
        ),
    }


NOISE = random.Random(7).randbytes(1024)
"""Bytes of an audio file after its ID3 header: they do not read as text. A secret stands
among them as a string stands in a file, apart from the bytes beside it (a NUL, a byte
order mark): one glued to letters of the noise is no token by any rule's bounds."""
BOM = b"\xff\xfe"


def _base64_bodies(secret: str) -> dict[str, tuple[dict[str, Any], dict[str, Any], str]]:
    """A body that is not UTF-8 (kept as base64) holding the secret, request and response:
    bytes that read as text but for a few, and the bytes of an audio file holding it
    among noise (:data:`NOISE`), as ASCII and as UTF-16."""
    bodies = {
        "text": b"\xff\xfe binary \x00\x81 " + secret.encode() + b" \xc3\x28",
        "audio": b"ID3\x04\x00" + NOISE + b"\x00" + secret.encode() + b"\x00" + NOISE,
        "audio, UTF-16": b"ID3\x04\x00" + NOISE + BOM + secret.encode("utf-16-le") + BOM + NOISE,
    }
    placed = {}
    for kind, raw in bodies.items():
        encoded = base64.b64encode(raw).decode()
        request = {"method": "POST", "path": "/upload", "headers": {}, "base64": encoded}
        response = {"status": 200, "headers": {}, "base64": encoded}
        placed[f"request base64 body ({kind})"] = (
            request,
            _response({"ok": True}),
            "request.base64",
        )
        placed[f"response base64 body ({kind})"] = (_request({"q": 1}), response, "response.base64")
    return placed


def _anthropic_events(parts: list[str]) -> list[dict[str, str]]:
    start = {"type": "message_start", "message": {"id": "msg_1", "content": []}}
    events = [{"event": "message_start", "data": orjson.dumps(start).decode()}]
    for part in parts:
        delta = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta"}}
        delta["delta"]["text"] = part  # type: ignore[index]
        events.append({"event": "content_block_delta", "data": orjson.dumps(delta).decode()})
    events.append({"event": "message_stop", "data": '{"type":"message_stop"}'})
    return events


def _openai_events(parts: list[str]) -> list[dict[str, str]]:
    chunks = [{"choices": [{"index": 0, "delta": {"content": part}}]} for part in parts]
    return [{"data": orjson.dumps(c).decode()} for c in chunks] + [{"data": "[DONE]"}]


def _plain_events(parts: list[str]) -> list[dict[str, str]]:
    return [{"data": part} for part in parts] + [{"data": "[DONE]"}]


STREAMS: dict[str, Callable[[list[str]], list[dict[str, str]]]] = {
    "anthropic": _anthropic_events,
    "openai chat": _openai_events,
    "plain data": _plain_events,
}


def _split(secret: str, pieces: int = 3) -> list[str]:
    """``secret`` cut into ``pieces`` fragments, none of which holds it whole."""
    size = max(1, len(secret) // pieces)
    cuts = [secret[i : i + size] for i in range(0, len(secret), size)]
    return ["here: ", *cuts, " done"]


class Store:
    """A store holding one clean fixture, and a recorder into it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        first = FixtureSession(path, mode="record-missing", approve_live=True, shape="http")
        first.record(CLEAN_REQUEST, CLEAN_RESPONSE, Sample(0), interface="http", meta=None)
        # Each recording has a session of its own, over this open store and with the
        # sanitizer of the store's project, found once: opening the store and looking
        # for its pyproject.toml again for each of a test's ~30 recordings cost more
        # than the recordings.
        self.store, self.sanitizer = first.store, first.sanitizer
        self.before = path.read_bytes()
        self.tried = 0

    def refuse(
        self, request: dict[str, Any], response: dict[str, Any], where: str, note: str | None = None
    ) -> SecretInFixtureError:
        """Record; assert the refusal names ``where`` and nothing was written."""
        self.tried += 1
        session = FixtureSession(
            self.store,
            mode="record-missing",
            approve_live=True,
            shape="http",
            note=note,
            sanitize=self.sanitizer,
        )
        meta = session.meta("http", "v1", default_source="hand")
        with pytest.raises(SecretInFixtureError) as caught:
            session.record(request, response, Sample(0), interface="http", meta=meta)
        assert caught.value.path.startswith(where), (caught.value.path, where)
        assert where in str(caught.value) and "nothing was written" in str(caught.value)
        assert self.path.read_bytes() == self.before, "0 written"
        return caught.value


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "fixtures.jsonl")


@pytest.mark.parametrize("family", list(FAMILIES))
def test_every_family_in_every_encoding_and_field_is_refused(store: Store, family: str) -> None:
    secret = FAMILIES[family]
    for encode in ENCODINGS.values():
        for request, response, note, where in _placed(encode(secret)).values():
            store.refuse(request, response, where, note)
    for request, response, where in _base64_bodies(secret).values():
        store.refuse(request, response, where)
    for flavour in STREAMS.values():
        events = flavour(_split(secret))
        assert all(secret not in event["data"] for event in events)
        error = store.refuse(_request({"q": 1}), _response(events=events), "response.events[")
        assert ".." in error.path  # names the first and last event joined
    assert store.tried == len(ENCODINGS) * 6 + 6 + len(STREAMS)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_auth_schemes_in_any_letter_case_are_refused(store: Store, scheme: str) -> None:
    generic = "Zr2LxV9mT4wK7pB1nC6dH3"  # no known prefix, too short to stand alone
    for request, response, note, where in _placed(f"Authorization: {scheme} {generic}").values():
        if where == "request.path":
            continue  # a space in a path is percent-encoded: tested with the query keys
        store.refuse(request, response, where, note)


@pytest.mark.parametrize("name", ["key", "api_key", "apikey", "access_token", "sig", "password"])
def test_credentials_in_query_strings_are_refused(store: Store, name: str) -> None:
    generic = "Zr2LxV9mT4wK7pB1nC6dH3"
    for path in (f"/v1/models?{name}={generic}", f"/v1/m?alt=json&{name}={quote(generic)}%3D"):
        store.refuse(_request({"q": 1}, path=path), _response({"ok": True}), "request.path")


SAFE_VALUES = [
    "replaygate-replay-no-key",
    "toolu_01A09q90qw90lq917835lq9",
    "msg_01XFDUDYJgAACzvnptvVoYEL",
    "toolu_rg_0123456789ab_1",
    "claude-sonnet-4-5-20250929",
    "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",  # a sha256 digest
    "550e8400-e29b-41d4-a716-446655440000",
    "ResearchCopilotAgentConfiguration",
    "retrieval-augmented-generation-evaluation-suite",
    "mcptoolu_014Q35RayjACSWkSj4X2yov1",  # an MCP server's tool call (Anthropic)
    "container_011CPR5CNjB747bTd36fQLFk",  # a code execution container (Anthropic)
    "msgbatch_01HkcTjaV5uDC8jWR4ZsDV8d",  # a message batch (Anthropic)
    "gen-1749812345-sQ3xYpR4mN7kL2vB9cD1",  # an answer of OpenRouter
    "mistralai/Mixtral-8x7B-Instruct-v0.1",  # open-weight models (Together, OpenRouter, vLLM)
    "Qwen/Qwen3-235B-A22B-Instruct-2507-tput",
    "hf.co/TheBloke/Mixtral-8x7B-Instruct-v0.1-GGUF:Q5_K_M",  # Ollama's name of a GGUF
]


@pytest.mark.parametrize("value", SAFE_VALUES)
def test_known_safe_values_are_accepted_in_every_field(value: str) -> None:
    request = _request({"messages": [{"role": "user", "content": value}]}, path=f"/v1/x?id={value}")
    fixture = {
        "key": "0123456789abcdef",
        "request": request,
        "response": _response(events=_plain_events([value[:10], value[10:]])),
        "meta": {"note": value},
    }
    assert find_fixture_secrets(fixture) == []


@pytest.mark.parametrize(
    "path",
    [
        "/v1/messages/batches/msgbatch_01HkcTjaV5uDC8jWR4ZsDV8d/results",  # a batch's results
        "/v1/tools/srvtoolu_01WYG3ziw53XMcoyKL4XcZmE?after_id=toolu_01A09q90qw90lq917835lq9",
    ],
)
def test_a_provider_id_in_a_path_is_no_secret_and_hides_none_beside_it(path: str) -> None:
    assert detect_in_text(path) is None
    key = "Zr2LxV9mT4wK7pB1nC6dH3qW8eR5tY0uI"
    assert detect_in_text(f"{path}/{key}") == "high-entropy token"


@pytest.mark.parametrize(
    ("family", "name"),
    [
        ("LangSmith", "LangSmith API key"),
        ("Langfuse", "Langfuse secret key"),
        ("Logfire", "Logfire token"),
    ],
)
def test_a_tracing_service_key_is_named_for_its_service(family: str, name: str) -> None:
    assert detect_in_text(f"the agent's environment: {FAMILIES[family]}.") == name


def test_an_open_model_id_hides_no_key_beside_it() -> None:
    key = "Zr2LxV9mT4wK7pB1nC6dH3qW8eR5tY0uI"
    assert detect_in_text("unsloth/Llama-3.3-70B-Instruct-bnb-4bit") is None
    assert detect_in_text(f"unsloth/Llama-3.3-70B-Instruct-{key}") == "high-entropy token"
    assert detect_in_text(f"{key}/Llama-3.3-70B-Instruct") == "high-entropy token"
    assert detect_in_text(f"unsloth/{key}-70B") == "high-entropy token"


def test_encoded_data_ids_and_prose_about_credentials_are_accepted() -> None:
    rnd = random.Random(1)
    image = base64.b64encode(rnd.randbytes(600)).decode()
    signature = base64.b64encode(rnd.randbytes(200)).decode()
    results = {"url": "https://en.wikipedia.org/wiki/Retrieval-augmented_generation"}
    prose = (
        "Read it with password = os.environ['PASSWORD'], token_count: 12345, or "
        "`Authorization: Bearer $TOKEN`. Basic concepts: the token budget. See "
        "https://example.com/search?page=2&sort=desc&q=retrieval%20augmented"
    )
    anthropic_fixture = {
        "key": "9f86d081884c",
        "request": {
            "model": "claude-sonnet-4-5-20250929",
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "image", "source": {"type": "base64", "data": image}},
                        {"type": "text", "text": prose},
                    ],
                },
                {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": "Let me think.", "signature": signature},
                        {"type": "tool_use", "id": SAFE_VALUES[1], "input": {"q": "RAG"}},
                    ],
                },
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "content": json.dumps([results])}],
                },
            ],
        },
        "response": {
            "id": SAFE_VALUES[2],
            "content": [{"type": "redacted_thinking", "data": signature}],
            "usage": {"input_tokens": 10, "output_tokens": 5},
        },
        "meta": {"note": "recorded from the simulator", "recorded_at": "2025-01-01T00:00:00Z"},
    }
    assert find_fixture_secrets(anthropic_fixture) == []
    image_url = {"type": "image_url", "image_url": {"url": "data:image/png;base64," + image}}
    openai_fixture = {
        "request": {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": [image_url]}]},
        "response": {"output": [{"type": "reasoning", "encrypted_content": "gAAAAB" + signature}]},
    }
    assert find_fixture_secrets(openai_fixture) == []


def test_an_image_holding_akc_by_chance_is_no_artifactory_token() -> None:
    # "+AKC" and 60 letters or digits turn up about once in 4 MB of random base64: a large
    # image was refused as an Artifactory token
    rnd = random.Random(2)
    chance = "+AKCx" + "".join(rnd.choice(string.ascii_letters + string.digits) for _ in range(63))
    image = base64.b64encode(rnd.randbytes(300)).decode() + chance
    base64.b64decode(image, validate=True)  # still base64 through and through
    source = {"type": "base64", "media_type": "image/png", "data": image}
    request = {"messages": [{"role": "user", "content": [{"type": "image", "source": source}]}]}
    assert find_fixture_secrets({"request": request}) == []
    assert detect_in_text("artifactory: AKCp8" + chance[5:]) is not None


def test_a_key_shape_glued_inside_encoded_data_is_chance_one_apart_is_a_key() -> None:
    # "-sk-" and 32 letters or digits turn up by chance about once in 8 MB of base64url,
    # the alphabet of an encrypted_content: a recording of reasoning items was refused
    rnd = random.Random(3)
    letters = string.ascii_letters + string.digits
    chance = "-sk-" + "".join(rnd.choice(letters) for _ in range(40))
    blob = base64.urlsafe_b64encode(rnd.randbytes(300)).decode().rstrip("=")
    key = "sk-proj-" + "".join(rnd.choice(letters) for _ in range(48))

    def reasoning(content: str) -> dict[str, Any]:
        item = {"type": "reasoning", "encrypted_content": content}
        return {"response": {"output": [item]}}

    assert find_fixture_secrets(reasoning("gAAAAB" + blob + chance + blob)) == []
    assert find_fixture_secrets(reasoning(f"gAAAAB{blob}.{key}.{blob}")) != []
    assert find_fixture_secrets(reasoning(key)) != []
    # outside encoded data the same text is read as before
    prose = {"request": {"body": {"messages": [{"role": "user", "content": f"x{chance}"}]}}}
    assert find_fixture_secrets(prose) != []


def test_a_hex_value_counts_in_a_credential_context_only() -> None:
    digest = SAFE_VALUES[5]
    assert find_fixture_secrets({"request": {"body": digest}}) == []
    assert find_fixture_secrets({"request": {"headers": {"x-api-key": digest}}})
    assert find_fixture_secrets({"request": {"path": f"/v1?api_key={digest}"}})
    placeholder = {"request": {"headers": {"x-api-key": "replaygate-replay-no-key"}}}
    assert find_fixture_secrets(placeholder) == []


def test_the_store_writer_and_verify_read_decoded_text_too(tmp_path: Path) -> None:
    secret = FAMILIES["Stripe sk_live"]
    request = _request({"q": 1}, path="/v1/charges?k=" + quote(secret, safe=""))
    response = _response(events=_plain_events(_split(base64.b64encode(secret.encode()).decode())))
    store = FixtureStore.open(tmp_path / "hand.jsonl")
    with pytest.raises(SecretInFixtureError, match=r"request\.path"):
        store.put(Fixture.create(request, [response]))
    assert not (tmp_path / "hand.jsonl").exists() or store.path.read_bytes() == b""
    # an event stream of no model API: its events' data may be any text
    written = Fixture.create(
        _request({"q": 1}, path="/v1/charges"), [response], make_meta("http", "v1", "hand")
    )
    (tmp_path / "hand.jsonl").write_bytes(written.to_line())
    _, problems = verify_store(tmp_path / "hand.jsonl")
    assert [(p.line, p.reason.split(" at ")[-1]) for p in problems] == [
        (1, "response.events[0..5].data")
    ]


# -- through the real clients, over the loopback simulator -----------------------------------

SUBSET = ["AWS AKIA", "GitHub fine-grained", "Slack bot", "Stripe sk_live", "high-entropy"]


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    """One loopback simulator for the module's clients (each started and stopped cost
    about 50 ms); nothing here looks at the requests it received."""
    with Simulator(behavior="echo") as running:
        yield running


@pytest.mark.parametrize("family", SUBSET)
def test_the_sdks_over_the_transport_refuse_and_write_nothing(
    sim: Simulator, tmp_path: Path, family: str
) -> None:
    secret = FAMILIES[family]
    store = tmp_path / "http.jsonl"
    store.write_bytes(b"")
    tries = {
        "plain": ({"content": f"my key is {secret}"}, {}),
        "base64": ({"content": ENCODINGS["base64"](secret)}, {}),
        "query": ({"content": "hello"}, {"extra_query": {"q": secret}}),
    }
    for message, extra in tries.values():
        http = httpx2_client(store, "record-missing", approve_live=True)
        with anthropic.Anthropic(
            api_key="k", base_url=sim.url, http_client=http, max_retries=0
        ) as client:
            for stream in (False, True):
                with pytest.raises(SecretInFixtureError):
                    answer = client.messages.create(
                        model="m",
                        max_tokens=64,
                        messages=[{"role": "user", **message}],
                        stream=stream,
                        **extra,
                    )
                    if stream:
                        list(answer)
    with (
        openai.OpenAI(
            api_key="k",
            base_url=sim.openai_base_url,
            http_client=httpx2_client(store, "record-missing", approve_live=True),
            max_retries=0,
        ) as chat,
        pytest.raises(SecretInFixtureError),
    ):
        list(
            chat.chat.completions.create(
                model="g", messages=[{"role": "user", "content": f"k {secret}"}], stream=True
            )
        )
    assert store.read_bytes() == b""


def test_the_engine_refuses_an_encoded_secret(sim: Simulator, tmp_path: Path) -> None:
    store = tmp_path / "engine.jsonl"
    settings_ = {"model": "m", "max_tokens": 64, "system": "s"}
    with anthropic.Anthropic(api_key="k", base_url=sim.url, max_retries=0) as client:
        recorder = RecordingModel(
            AnthropicModel(client, **settings_), store, approve_live=True, **settings_
        )
        for encode in ENCODINGS.values():
            with pytest.raises(SecretInFixtureError, match=r"request\.messages\[0\]"):
                recorder.complete([Message.user(encode(FAMILIES["Slack bot"]))], [])
    assert not store.exists() or store.read_bytes() == b""


# -- random secrets at random places ----------------------------------------------------------

_ALNUM = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"
_PREFIXES = ["sk-ant-api03-", "ghp_", "github_pat_11", "xoxb-12345-", "AKIA", "sk_live_", ""]


@st.composite
def _secrets(draw: st.DrawFn) -> str:
    prefix = draw(st.sampled_from(_PREFIXES))
    if prefix == "AKIA":
        return prefix + draw(st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", min_size=16, max_size=16))
    body = draw(st.text(_ALNUM, min_size=40, max_size=60))
    if not prefix:  # free-standing: random enough to be unmistakable
        body = "".join(_ALNUM[(i * 7 + _ALNUM.index(c)) % len(_ALNUM)] for i, c in enumerate(body))
        # and mixing upper case, lower case and digits, as a free-standing secret does (the
        # stride from a run of one letter could step over every digit: no secret, by design)
        kinds = (str.isupper, str.islower, str.isdigit)
        assume(all(any(kind(c) for c in body) for kind in kinds))
    return prefix + body


_TEXT = st.text(UTF8_CHARACTERS, max_size=20)


@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    secret=_secrets(),
    before=_TEXT,
    after=_TEXT,
    encoding=st.sampled_from(list(ENCODINGS)),
    field=st.sampled_from(["request body", "response body", "response events", "meta.note"]),
)
def test_random_secrets_in_random_places_are_found(
    secret: str, before: str, after: str, encoding: str, field: str
) -> None:
    text = ENCODINGS[encoding](secret)
    request, response, note, where = _placed(f"{before} {text} {after}")[field]
    fixture = {"key": "0123456789abcdef", "request": request, "response": response}
    fixture["meta"] = {"note": note}
    findings = find_fixture_secrets(fixture)
    assert findings and findings[0].path.startswith(where), (findings, where)


@settings(deadline=None)
@given(secret=_secrets(), data=st.data())
def test_random_secrets_split_at_random_points_of_a_stream_are_found(
    secret: str, data: st.DataObject
) -> None:
    cuts = sorted(data.draw(st.sets(st.integers(1, len(secret) - 1), min_size=1, max_size=4)))
    bounds = [0, *cuts, len(secret)]
    parts = [secret[a:b] for a, b in itertools.pairwise(bounds)]
    flavour = data.draw(st.sampled_from(list(STREAMS)))
    fixture = {
        "key": "k" * 16,
        "request": {},
        "response": _response(events=STREAMS[flavour](parts)),
    }
    findings = find_fixture_secrets(fixture)
    assert findings and findings[0].path.startswith("response.events["), findings


def test_a_json_escaped_body_is_the_same_as_a_plain_one() -> None:
    text = json.dumps({"k": FAMILIES["OpenAI"]}, ensure_ascii=True).replace("-", "\\u002d")
    fixture = {"key": "k" * 16, "request": {"tool_arguments": text}, "response": {}}
    assert find_fixture_secrets(fixture)[0].path == "request.tool_arguments"


@pytest.mark.parametrize(
    ("written", "detector"),
    [
        ('api_key = "Zq8Xv7Wm2Kp9Rt4Ly6Hb8Nc3Jd5Fg1Ss0"', "high-entropy value in an auth-like"),
        ("Authorization: Bearer Zq8Xv7Wm2Kp9Rt4Ly6Hb8Nc3Jd5Fg1Ss0", "bearer token"),
        ("postgres://admin:Zq8Xv7Wm2Kp9@db.example.com/x", "password in URL"),
    ],
)
@pytest.mark.parametrize("encoding", ["ascii", "utf-16-le", "utf-16-be"])
def test_a_credential_written_in_the_bytes_of_a_binary_body_is_found_by_its_context(
    written: str, detector: str, encoding: str
) -> None:
    raw = b"ID3\x04\x00" + NOISE + BOM + written.encode(encoding) + BOM + NOISE
    response = {"status": 200, "headers": {}, "base64": base64.b64encode(raw).decode()}
    (finding,) = find_fixture_secrets({"request": _request({"q": 1}), "response": response})
    assert finding.path == "response.base64"
    assert finding.detector.startswith(detector) and finding.detector.endswith("in a base64 body)")


def test_the_noise_of_a_binary_body_alone_holds_no_secret() -> None:
    raw = b"ID3\x04\x00" + random.Random(3).randbytes(1 << 18)
    response = {"status": 200, "headers": {}, "base64": base64.b64encode(raw).decode()}
    assert find_fixture_secrets({"request": _request({"q": 1}), "response": response}) == []


def _upload(audio: bytes) -> dict[str, Any]:
    """A request uploading ``audio`` as a file beside a form field, as ``files.create`` does."""
    raw = (
        b'--b\r\nContent-Disposition: form-data; name="file"; filename="a.mp3"\r\n'
        b"Content-Type: audio/mpeg\r\n\r\n" + audio + b"\r\n"
        b'--b\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nuser_data\r\n--b--\r\n'
    )
    encoded = base64.b64encode(raw).decode()
    return {"method": "POST", "path": "/v1/files", "headers": {}, "base64": encoded}


@pytest.mark.parametrize("family", SUBSET)
def test_a_key_in_the_audio_file_of_a_multipart_upload_is_found(family: str) -> None:
    audio = b"ID3\x04\x00" + NOISE + b"\x00" + FAMILIES[family].encode() + b"\x00" + NOISE
    (finding,) = find_fixture_secrets({"request": _upload(audio), "response": _response({})})
    assert finding.path == "request.base64" and finding.detector.endswith("in a base64 body)")


def test_the_noise_of_an_uploaded_audio_file_alone_holds_no_secret() -> None:
    audio = b"ID3\x04\x00" + random.Random(5).randbytes(1 << 18)
    assert find_fixture_secrets({"request": _upload(audio), "response": _response({})}) == []
