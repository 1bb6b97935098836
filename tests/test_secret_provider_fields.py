"""Opaque values a provider sends, and expects back, record, replay and pass ``verify``:
a Gemini part's ``thoughtSignature``, an Anthropic web search citation's
``encrypted_index``, images of the Responses API's image generation tool and of
``images.generate``, streamed audio (Responses API, Chat Completions, speech), OpenRouter's
``reasoning_details``. A known key shape in them is still refused, and a field of those
names anywhere else is text like any other (law 4)."""

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
from replaygate.http import httpx2_client
from replaygate.sanitize.secret_scan import find_fixture_secrets
from sdks import anthropic, genai, openai

OPAQUE = base64.b64encode(random.Random(5).randbytes(300)).decode()
IMAGE = base64.b64encode(random.Random(6).randbytes(3000)).decode()
FREE_KEY = "q8Zr2LxV9mT4wK7pB1nC6dH3Yw5Ej0Fs"
PREFIXED_KEY = "sk-ant-api03-" + "Xy7Qa9Lm2Pz8Rt4Vn6Bc1Dk5Fg3Hj0Ws" * 2
Answer = Callable[[httpx2.Request], httpx2.Response]


def _client(store: Path, mode: str, answer: Answer) -> httpx2.Client:
    live = httpx2.MockTransport(answer)
    return httpx2_client(store, mode, approve_live=mode != "replay", transport=live)


def _verified(store: Path) -> None:
    done = CliRunner().invoke(main, ["verify", str(store)])
    assert done.exit_code == 0, done.output
    assert "0 problem(s)" in done.output


def _gemini_answer(request: httpx2.Request) -> httpx2.Response:
    if request.url.path.endswith(":streamGenerateContent"):
        parts: list[dict[str, Any]] = [{"text": "Hello."}, {"thoughtSignature": OPAQUE}]
        chunks = [{"candidates": [{"content": {"role": "model", "parts": [p]}}]} for p in parts]
        events = "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chunks)
        headers = {"content-type": "text/event-stream"}
        return httpx2.Response(200, content=events.encode(), headers=headers)
    if b"functionResponse" in request.content:
        part: dict[str, Any] = {"text": "It is 21 degrees in Paris."}
    else:
        part = {"functionCall": {"name": "weather", "args": {"city": "Paris"}}}
    part["thoughtSignature"] = OPAQUE
    candidate = {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP"}
    return httpx2.Response(200, json={"candidates": [candidate]})


def _gemini_turns(store: Path, mode: str) -> tuple[bytes | None, str | None]:
    types = genai.types
    with _client(store, mode, _gemini_answer) as http:
        client = genai.Client(api_key="k", http_options=types.HttpOptions(httpx_client=http))
        asked = types.Content(role="user", parts=[types.Part(text="Weather in Paris?")])
        first = client.models.generate_content(model="gemini-2.5-flash", contents=[asked])
        called = first.candidates[0].content
        result = types.Part.from_function_response(name="weather", response={"celsius": 21})
        answered = types.Content(role="user", parts=[result])
        second = client.models.generate_content(
            model="gemini-2.5-flash", contents=[asked, called, answered]
        )
        return called.parts[0].thought_signature, second.text


def test_a_gemini_thought_signature_records_is_sent_back_and_replays(tmp_path: Path) -> None:
    store = tmp_path / "gemini.jsonl"
    recorded = _gemini_turns(store, "record-missing")
    assert recorded == (base64.b64decode(OPAQUE), "It is 21 degrees in Paris.")
    stored = store.read_text()
    assert stored.count(OPAQUE) == 2  # the two answers
    sent_back = base64.urlsafe_b64encode(base64.b64decode(OPAQUE)).decode()
    assert stored.count(sent_back) == 1  # the call in the next request (base64url)
    assert _gemini_turns(store, "replay") == recorded
    _verified(store)


def _gemini_stream(store: Path, mode: str) -> list[bytes | None]:
    types = genai.types
    with _client(store, mode, _gemini_answer) as http:
        client = genai.Client(api_key="k", http_options=types.HttpOptions(httpx_client=http))
        chunks = client.models.generate_content_stream(model="gemini-3-pro", contents="Hi")
        return [chunk.candidates[0].content.parts[0].thought_signature for chunk in chunks]


def test_a_streamed_gemini_part_holding_only_its_signature_records(tmp_path: Path) -> None:
    store = tmp_path / "gemini.jsonl"
    recorded = _gemini_stream(store, "record-missing")
    assert recorded == [None, base64.b64decode(OPAQUE)]
    assert _gemini_stream(store, "replay") == recorded
    _verified(store)


def _claude_answer(request: httpx2.Request) -> httpx2.Response:
    cited = {"type": "web_search_result_location", "url": "https://en.example/paris"}
    cited.update(title="Paris", encrypted_index=OPAQUE[:190], cited_text="Paris is...")
    text = {"type": "text", "text": "Paris is the capital of France.", "citations": [cited]}
    message = {"id": "msg_1", "type": "message", "role": "assistant", "content": [text]}
    message.update(model="claude-sonnet-4-5", stop_reason="end_turn", stop_sequence=None)
    message["usage"] = {"input_tokens": 5, "output_tokens": 7}
    return httpx2.Response(200, json=message)


def _claude_turns(store: Path, mode: str) -> list[str | None]:
    search = {"type": "web_search_20250305", "name": "web_search"}
    asked = {"role": "user", "content": "Capital of France?"}
    with (
        _client(store, mode, _claude_answer) as http,
        anthropic.Anthropic(api_key="k", http_client=http, max_retries=0) as client,
    ):
        first = client.messages.create(
            model="claude-sonnet-4-5", max_tokens=99, tools=[search], messages=[asked]
        )
        again = {"role": "user", "content": "And its population?"}
        turns = [asked, {"role": "assistant", "content": first.content}, again]
        client.messages.create(
            model="claude-sonnet-4-5", max_tokens=99, tools=[search], messages=turns
        )
        return [c.encrypted_index for c in first.content[0].citations]


def test_an_anthropic_web_search_citation_records_is_sent_back_and_replays(
    tmp_path: Path,
) -> None:
    store = tmp_path / "claude.jsonl"
    assert _claude_turns(store, "record-missing") == [OPAQUE[:190]]
    assert store.read_text().count(OPAQUE[:190]) == 3
    assert _claude_turns(store, "replay") == [OPAQUE[:190]]
    _verified(store)


def _image_answer(request: httpx2.Request) -> httpx2.Response:
    if request.url.path.endswith("/images/generations"):
        return httpx2.Response(200, json={"created": 1, "data": [{"b64_json": IMAGE}]})
    made = {"type": "image_generation_call", "id": "ig_1", "status": "completed"}
    made["result"] = IMAGE
    if not json.loads(request.content).get("stream"):
        return httpx2.Response(200, json={"id": "resp_1", "object": "response", "output": [made]})
    partial = {"type": "response.image_generation_call.partial_image", "item_id": "ig_1"}
    partial.update(output_index=0, partial_image_index=0, partial_image_b64=IMAGE[:2000])
    done = {"type": "response.output_item.done", "output_index": 0, "item": made}
    events = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in (partial, done))
    headers = {"content-type": "text/event-stream"}
    return httpx2.Response(200, content=events.encode(), headers=headers)


def _images(store: Path, mode: str) -> list[str | None]:
    tool: Any = {"type": "image_generation"}
    with (
        _client(store, mode, _image_answer) as http,
        openai.OpenAI(api_key="k", http_client=http, max_retries=0) as client,
    ):
        generated = client.images.generate(model="gpt-image-1", prompt="a cat")
        assert generated.data is not None
        made = client.responses.create(model="gpt-5", input="Draw a cat", tools=[tool])
        streamed = client.responses.create(
            model="gpt-5", input="Draw a cat", tools=[tool], stream=True
        )
        partial = [getattr(event, "partial_image_b64", None) for event in streamed]
        return [generated.data[0].b64_json, getattr(made.output[0], "result", None), *partial]


def test_generated_images_record_and_replay(tmp_path: Path) -> None:
    store = tmp_path / "images.jsonl"
    expected = [IMAGE, IMAGE, IMAGE[:2000], None]
    assert _images(store, "record-missing") == expected
    assert _images(store, "replay") == expected
    _verified(store)


def _audio(store: Path, mode: str) -> list[str | None]:
    def answer(request: httpx2.Request) -> httpx2.Response:
        deltas = [{"type": kind, "delta": IMAGE[:1500]} for kind in AUDIO_DELTAS]
        events = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in deltas)
        return httpx2.Response(200, content=events.encode(), headers=SSE)

    with (
        _client(store, mode, answer) as http,
        openai.OpenAI(api_key="k", http_client=http, max_retries=0) as client,
    ):
        spoken = client.responses.create(model="gpt-audio", input="Say hi", stream=True)
        return [getattr(event, "delta", None) for event in spoken]


AUDIO_DELTAS = ("response.audio.delta", "response.output_audio.delta")
SSE = {"content-type": "text/event-stream"}


def test_streamed_audio_of_the_responses_api_records_and_replays(tmp_path: Path) -> None:
    store = tmp_path / "audio.jsonl"
    assert _audio(store, "record-missing") == [IMAGE[:1500]] * 2
    assert _audio(store, "replay") == [IMAGE[:1500]] * 2
    _verified(store)


def _chat_audio(store: Path, mode: str) -> str:
    def answer(request: httpx2.Request) -> httpx2.Response:
        audio = [{"id": "audio_1", "transcript": "Hi"}, {"data": IMAGE[:900]}]
        audio += [{"data": IMAGE[900:1800]}, {"expires_at": 1}]
        chunks = [{"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}]
        chunks = [{**chunks[0], "choices": [{"index": 0, "delta": {"audio": a}}]} for a in audio]
        events = "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chunks)
        return httpx2.Response(200, content=f"{events}data: [DONE]\n\n".encode(), headers=SSE)

    with (
        _client(store, mode, answer) as http,
        openai.OpenAI(api_key="k", http_client=http, max_retries=0) as client,
    ):
        spoken = client.chat.completions.create(
            model="gpt-4o-audio-preview",
            modalities=["text", "audio"],
            audio={"voice": "alloy", "format": "pcm16"},
            messages=[{"role": "user", "content": "Say hi"}],
            stream=True,
        )
        pieces = [getattr(chunk.choices[0].delta, "audio", None) for chunk in spoken]
        return "".join(getattr(piece, "data", None) or "" for piece in pieces)


def test_streamed_audio_of_a_chat_completion_records_and_replays(tmp_path: Path) -> None:
    store = tmp_path / "chat_audio.jsonl"
    assert _chat_audio(store, "record-missing") == IMAGE[:1800]
    assert _chat_audio(store, "replay") == IMAGE[:1800]
    _verified(store)


def _speech_events(store: Path, mode: str) -> list[str]:
    def answer(request: httpx2.Request) -> httpx2.Response:
        deltas = [{"type": "speech.audio.delta", "audio": IMAGE[i : i + 1000]} for i in (0, 1000)]
        done = {"type": "speech.audio.done", "usage": {"input_tokens": 2, "output_tokens": 9}}
        events = "".join(f"data: {json.dumps(e)}\n\n" for e in [*deltas, done])
        return httpx2.Response(200, content=events.encode(), headers=SSE)

    with (
        _client(store, mode, answer) as http,
        openai.OpenAI(api_key="k", http_client=http, max_retries=0) as client,
        client.audio.speech.with_streaming_response.create(
            model="gpt-4o-mini-tts", voice="alloy", input="Say hi", stream_format="sse"
        ) as spoken,
    ):
        return [json.loads(line[6:]).get("audio", "") for line in spoken.iter_lines() if line]


def test_speech_streamed_as_events_records_and_replays(tmp_path: Path) -> None:
    # its base64 audio was refused as a high-entropy token at response.events[0].data
    store = tmp_path / "speech.jsonl"
    assert "".join(_speech_events(store, "record-missing")) == IMAGE[:2000]
    assert "".join(_speech_events(store, "replay")) == IMAGE[:2000]
    _verified(store)


def _reasoning_details(store: Path, mode: str) -> list[dict[str, Any]]:
    details = [{"type": "reasoning.text", "text": "Think.", "signature": OPAQUE, "index": 0}]
    details.append({"type": "reasoning.encrypted", "data": OPAQUE[::-1], "index": 1})

    def answer(request: httpx2.Request) -> httpx2.Response:
        said = {"role": "assistant", "content": "Hi.", "reasoning_details": details}
        choice = {"index": 0, "message": said, "finish_reason": "stop"}
        made = {"id": "gen-1", "object": "chat.completion", "created": 1, "model": "m"}
        return httpx2.Response(200, json={**made, "choices": [choice]})

    with (
        _client(store, mode, answer) as http,
        openai.OpenAI(api_key="k", http_client=http, max_retries=0) as client,
    ):
        asked: Any = {"role": "user", "content": "Hi"}
        first = client.chat.completions.create(model="m", messages=[asked])
        said: Any = first.choices[0].message.model_dump(exclude_none=True)
        client.chat.completions.create(model="m", messages=[asked, said, asked])
        return list(said["reasoning_details"])


def test_reasoning_details_of_openrouter_record_are_sent_back_and_replay(
    tmp_path: Path,
) -> None:
    store = tmp_path / "openrouter.jsonl"
    recorded = _reasoning_details(store, "record-missing")
    assert [detail.get("signature") or detail.get("data") for detail in recorded] == [
        OPAQUE,
        OPAQUE[::-1],
    ]
    assert store.read_text().count(OPAQUE[::-1]) == 3
    assert _reasoning_details(store, "replay") == recorded
    _verified(store)


_IMAGE_CALL = {"type": "image_generation_call", "id": "ig_1"}
_CITED = {"type": "web_search_result_location", "url": "https://en.example/"}


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({"parts": [{"text": "Hi", "thoughtSignature": "{}"}]}, "body.parts[0].thoughtSignature"),
        ({"citations": [{**_CITED, "encrypted_index": "{}"}]}, "body.citations[0].encrypted_index"),
        ({"output": [{**_IMAGE_CALL, "result": "{}"}]}, "body.output[0].result"),
        ({"data": [{"b64_json": "{}"}]}, "body.data[0].b64_json"),
        ({"type": "response.output_audio.delta", "delta": "{}"}, "body.delta"),
        ({"type": "speech.audio.delta", "audio": "{}"}, "body.audio"),
        ({"audio": {"data": "{}"}}, "body.audio.data"),
        ({"type": "reasoning.encrypted", "data": "{}"}, "body.data"),
    ],
)
def test_a_prefixed_key_in_an_opaque_field_is_refused(body: dict[str, Any], path: str) -> None:
    answer = json.loads(json.dumps(body).replace("{}", PREFIXED_KEY))
    fixture = {"request": {}, "response": {"status": 200, "body": answer}}
    assert [f.path for f in find_fixture_secrets(fixture)] == [f"response.{path}"]


@pytest.mark.parametrize(
    "body",
    [
        {"metadata": {"thoughtSignature": "{}", "user": "u"}},
        {"metadata": {"thoughtSignature": "{}"}},
        {"metadata": {"note": {"text": "Hi", "thoughtSignature": "{}"}}},
        {"settings": {"audio": {"data": "{}"}}},
        {"arguments": '{"user": {"thoughtSignature": "{}"}}'},
        {"parts": [{"text": "Hi", "thoughtSignature": "{}", "user": "u"}]},
        {"metadata": {"encrypted_index": "{}"}},
        {"citations": [{"type": "char_location", "encrypted_index": "{}"}]},
        {"output": [{"type": "function_call_output", "result": "{}"}]},
        {"data": [{"b64_json": "{}"}]},
        {"type": "response.output_text.delta", "delta": "{}"},
        {"audio": {"data": "{}", "user": "u"}},
        {"sound": {"data": "{}"}},
        {"type": "reasoning.summary", "signature": "{}"},
    ],
)
def test_fields_of_those_names_elsewhere_are_text(body: dict[str, Any]) -> None:
    sent = json.loads(json.dumps(body).replace("{}", FREE_KEY))
    fixture = {"request": {"body": sent}, "response": {"status": 200}}
    assert [f.detector for f in find_fixture_secrets(fixture)] == ["high-entropy token"]
