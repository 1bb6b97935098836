"""Text split across any text delta of a stream is read whole: refused, redacted, verified;
so is the base64 audio a client joins (searched, not redacted).

The openai SDK joins every string field of a Chat Completions delta (``reasoning_content``
of DeepSeek, vLLM and Qwen, ``reasoning`` of OpenRouter and Groq, ``audio.transcript``
of the audio models, the entries of ``reasoning_details`` by their index); the Responses
API streams reasoning, custom tool input, MCP arguments and interpreter code as
``*.delta`` events, whose ``.done`` event, which repeats the whole text, is missing from a
stream cut or closed early. The simulator streams none of these, so a loopback server of
the test's own does, read through the openai SDK.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from loopback import ChunkedEvents, serving
from replaygate.errors import SecretInFixtureError
from replaygate.http import Exchange, block_network, httpx2_client
from replaygate.hygiene.verify import verify_store
from replaygate.sanitize import SanitizeConfig
from replaygate.sanitize.stream import (
    all_fragments,
    encoded_fragments,
    field_fragments,
    fragments,
)
from sdks import openai

KEY = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5b"
KEY_PARTS = [KEY[i : i + 4] for i in range(0, len(KEY), 4)]
CLEAN = "Q_Q"
"""A fragment of a clean stream, swapped for a piece of the key in a hand-edited fixture."""
EMAIL = "alice.cooper@corp-mail.com"
EMAIL_PARTS = ["write to alice.coo", "per@corp-", "mail.com today"]
QUESTION = [{"role": "user", "content": "x"}]

CHAT_SHAPES: dict[str, Callable[[str], dict[str, Any]]] = {
    "reasoning_content": lambda part: {"reasoning_content": part},
    "reasoning": lambda part: {"reasoning": part},
    "audio_transcript": lambda part: {"audio": {"transcript": part}},
    "audio_data": lambda part: {"audio": {"data": part}},
    "reasoning_details": lambda part: {
        "reasoning_details": [{"type": "reasoning.text", "index": 0, "text": part}]
    },
    "reasoning_encrypted": lambda part: {
        "reasoning_details": [{"type": "reasoning.encrypted", "index": 0, "data": part}]
    },
}
ENCODED_SHAPES = ("audio_data", "reasoning_encrypted")
"""Shapes of encoded data: searched joined, never redacted."""
RESPONSES_KINDS = [
    "reasoning_summary_text",
    "reasoning_text",
    "custom_tool_call_input",
    "mcp_call_arguments",
    "code_interpreter_call_code",
    "output_audio",
]


def _sse(events: list[dict[str, Any]], *, done: bool = False) -> list[bytes]:
    named = [f"event: {e['type']}\n" if "type" in e else "" for e in events]
    chunks = [
        f"{name}data: {json.dumps(e)}\n\n".encode() for name, e in zip(named, events, strict=True)
    ]
    return [*chunks, b"data: [DONE]\n\n"] if done else chunks


def _chat(shape: str, parts: list[str]) -> list[bytes]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "m",
            "choices": [choice],
        }

    events = [chunk({"role": "assistant"})] + [chunk(CHAT_SHAPES[shape](p)) for p in parts]
    return _sse([*events, chunk({"content": "done"}, "stop")], done=True)


def _responses(kind: str, parts: list[str]) -> list[bytes]:
    """The ``*.delta`` events of one item, cut before its ``.done`` event."""
    where = {"summary_index": 0} if kind == "reasoning_summary_text" else {"content_index": 0}
    events = [
        {
            "type": f"response.{kind}.delta",
            "item_id": "it_1",
            "output_index": 0,
            **where,
            "delta": p,
            "sequence_number": n,
        }
        for n, p in enumerate(parts)
    ]
    return _sse(events)


def _gemini(parts: list[str]) -> list[bytes]:
    """A Gemini stream whose last parts hold a ``thoughtSignature`` alone, cut in ``parts``."""
    first = {"text": "Thinking done.", "thought": True}

    def chunk(part: dict[str, Any]) -> dict[str, Any]:
        return {"candidates": [{"index": 0, "content": {"role": "model", "parts": [part]}}]}

    return _sse([chunk(first), *(chunk({"thoughtSignature": p}) for p in parts)])


GEMINI = "v1beta/models/m:streamGenerateContent?alt=sse"


class _Streams(ChunkedEvents):
    """Each shape's stream, with the key, an address or clean fragments, by path."""

    PAUSE = 0.0
    CHUNKS: ClassVar[dict[str, list[bytes]]] = {
        **{
            f"/{text}-chat-{s}/v1/chat/completions": _chat(s, parts)
            for s in CHAT_SHAPES
            for text, parts in (
                ("key", KEY_PARTS),
                ("clean", [CLEAN] * len(KEY_PARTS)),
                ("email", EMAIL_PARTS),
            )
        },
        **{
            f"/{text}-gemini/{GEMINI}": _gemini(parts)
            for text, parts in (("key", KEY_PARTS), ("clean", [CLEAN] * len(KEY_PARTS)))
        },
        **{
            f"/{text}-responses-{k}/v1/responses": _responses(k, parts)
            for k in RESPONSES_KINDS
            for text, parts in (("key", KEY_PARTS), ("clean", [CLEAN] * len(KEY_PARTS)))
        },
    }


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    """The address of one server of :class:`_Streams` for the module's tests: it answers
    each path alike whatever was asked before."""
    with serving(_Streams) as url:
        yield url


def _client(base: str, path: str, http: Any) -> Any:
    return openai.OpenAI(
        api_key="sk-test", base_url=f"{base}/{path}/v1", max_retries=0, http_client=http
    )


def _read(client: Any, api: str) -> list[Any]:
    if api == "chat":
        return list(client.chat.completions.create(model="m", messages=QUESTION, stream=True))
    return list(client.responses.create(model="m", input="x", stream=True))


SHAPES = [("chat", s) for s in CHAT_SHAPES] + [("responses", k) for k in RESPONSES_KINDS]


@pytest.mark.parametrize(("api", "shape"), SHAPES)
def test_a_key_split_over_a_text_delta_is_refused_and_nothing_is_written(
    tmp_path: Path, base: str, api: str, shape: str
) -> None:
    store = tmp_path / "s.jsonl"
    http = httpx2_client(store, mode="record-missing", approve_live=True)
    with (
        _client(base, f"key-{api}-{shape}", http) as client,
        pytest.raises(
            SecretInFixtureError,
            match=r"GitHub token found at response\.events\[\d+\.\.\d+\]\.data",
        ),
    ):
        _read(client, api)
    assert not store.exists() or store.read_bytes() == b""


@pytest.mark.parametrize(("api", "shape"), SHAPES)
def test_verify_finds_a_key_split_over_a_text_delta_of_a_stored_stream(
    tmp_path: Path, base: str, api: str, shape: str
) -> None:
    store = tmp_path / "s.jsonl"
    http = httpx2_client(store, mode="record-missing", approve_live=True)
    with _client(base, f"clean-{api}-{shape}", http) as client:
        _read(client, api)
    assert verify_store(store)[1] == []
    line = store.read_text()
    for part in KEY_PARTS:  # a hand edit, or a store written before the join knew the field
        line = line.replace(CLEAN, part, 1)
    store.write_text(line)
    problems = [str(problem) for problem in verify_store(store)[1]]
    assert len(problems) == 1 and re.search(
        r"GitHub token at response\.events\[\d+\.\.\d+\]\.data", problems[0]
    )


@pytest.mark.parametrize("shape", [s for s in CHAT_SHAPES if s not in ENCODED_SHAPES])
def test_an_address_split_over_a_chat_delta_field_is_redacted_whole(
    tmp_path: Path, base: str, shape: str
) -> None:
    config = SanitizeConfig(personal_data=("email",))
    store = tmp_path / "s.jsonl"
    http = httpx2_client(Exchange(store, mode="record-missing", approve_live=True, sanitize=config))
    with _client(base, f"email-chat-{shape}", http) as client:
        _read(client, "chat")
    stored = store.read_text()
    assert "alice.coo" not in stored and "corp-" not in stored
    with (
        block_network(),
        _client(
            "http://127.0.0.1:9",
            f"email-chat-{shape}",
            httpx2_client(Exchange(store, sanitize=config)),
        ) as client,
    ):
        chunks = _read(client, "chat")
    deltas = [chunk.choices[0].delta.model_dump() for chunk in chunks]
    text = "".join(_joined(shape, delta) for delta in deltas)
    assert re.fullmatch(r"write to user-[0-9a-f]{8}@example\.com today", text), text


def _joined(shape: str, delta: dict[str, Any]) -> str:
    """The text a client accumulates from one delta of ``shape``."""
    if shape == "audio_transcript":
        return (delta.get("audio") or {}).get("transcript") or ""
    if shape == "reasoning_details":
        return "".join(d.get("text") or "" for d in delta.get("reasoning_details") or [])
    return delta.get(shape) or ""


def test_a_key_split_over_a_gemini_thought_signature_is_refused_and_verify_finds_one(
    tmp_path: Path, base: str
) -> None:
    store = tmp_path / "g.jsonl"
    body = {"contents": [{"role": "user", "parts": [{"text": "x"}]}]}
    http = httpx2_client(store, mode="record-missing", approve_live=True)
    with pytest.raises(
        SecretInFixtureError, match=r"GitHub token found at response\.events\[1\.\.\d+\]\.data"
    ):
        http.post(f"{base}/key-gemini/{GEMINI}", json=body).read()
    assert not store.exists() or store.read_bytes() == b""
    http.post(f"{base}/clean-gemini/{GEMINI}", json=body).read()
    assert verify_store(store)[1] == []
    line = store.read_text()
    for part in KEY_PARTS:  # a hand edit
        line = line.replace(CLEAN, part, 1)
    store.write_text(line)
    problems = [str(problem) for problem in verify_store(store)[1]]
    assert len(problems) == 1 and "GitHub token at response.events[1.." in problems[0]


def test_the_fragments_of_every_shape_are_read_in_one_pass_as_apart() -> None:
    """The secret scan reads each event's fragments once (:func:`all_fragments`): text,
    encoded data and a server's own fields, grouped and ordered as read apart."""
    events: list[Any] = [
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "a"}},
        {"type": "response.output_text.delta", "delta": "b", "item_id": "i", "output_index": 0},
        {"type": "response.audio.delta", "delta": "QUJD", "item_id": "i", "output_index": 0},
        {"choices": [{"index": 0, "delta": {"content": "c", "audio": {"data": "QUJD"}}}]},
        {"candidates": [{"content": {"parts": [{"text": "d", "thoughtSignature": "e"}]}}]},
        {"message": {"content": "own "}, "done": False},
        "not an object",
        {"message": {"content": "shape"}, "done": True},
        {"type": "ping"},
    ]
    together = all_fragments(events)
    apart = (fragments(events), encoded_fragments(events), field_fragments(events))
    assert together == apart
    assert [list(groups) for groups in together] == [list(groups) for groups in apart]
    assert all(together)  # each kind holds fragments here
