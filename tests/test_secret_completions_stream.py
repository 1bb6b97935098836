"""The text of a legacy Completions stream (``client.completions.create(stream=True)``,
``/v1/completions`` of OpenAI and of the OpenAI-compatible servers) is read joined per
choice, as a chat delta is, and so is the ``completion`` of Anthropic's legacy Text
Completions stream (``/v1/complete``): a key split over its chunks is refused, and found by
verify in a stored one; an address split so is redacted whole."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, ClassVar

import pytest

from loopback import ChunkedEvents, serving
from replaygate.errors import SecretInFixtureError
from replaygate.http import Exchange, block_network, httpx2_client
from replaygate.hygiene.verify import verify_store
from replaygate.sanitize import SanitizeConfig
from sdks import openai

KEY = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5b"
KEY_PARTS = ["the token: ", KEY[:10], KEY[10:25], KEY[25:]]
CLEAN_PARTS = ["the token: ", "Q_Q", "Q_Q", "Q_Q"]
EMAIL_PARTS = ["write to alice.ma", "rtin@corp-", "mail.com today"]


def _logprobs(part: str) -> dict[str, Any]:
    """The ``logprobs`` of a legacy Completions chunk of ``part`` (asked with ``logprobs=1``)."""
    tokens = [part[: len(part) // 2], part[len(part) // 2 :]]
    top = [{token: -0.5} for token in tokens]
    return {"tokens": tokens, "token_logprobs": [-0.5, -0.5], "top_logprobs": top}


def _completion(parts: list[str], logprobs: bool = False) -> list[bytes]:
    chunks = [
        {
            "id": "cmpl-1",
            "object": "text_completion",
            "created": 1,
            "model": "gpt-3.5-turbo-instruct",
            "choices": [
                {
                    "index": 0,
                    "text": part,
                    "logprobs": _logprobs(part) if logprobs else None,
                    "finish_reason": None,
                }
            ],
        }
        for part in parts
    ]
    return [*(f"data: {json.dumps(c)}\n\n".encode() for c in chunks), b"data: [DONE]\n\n"]


def _complete(parts: list[str]) -> list[bytes]:
    """Anthropic's legacy Text Completions stream of ``parts``."""
    events = [
        {"type": "completion", "id": "compl_1", "completion": part, "stop_reason": None}
        for part in parts
    ]
    return [f"event: completion\ndata: {json.dumps(e)}\n\n".encode() for e in events]


_PARTS = (("key", KEY_PARTS), ("clean", CLEAN_PARTS), ("email", EMAIL_PARTS))


class _Completions(ChunkedEvents):
    """Each stream by path; each chunk a whole event, sent without a pause between them
    (the parts are read joined whatever reads bring them)."""

    PAUSE = 0.0
    CHUNKS: ClassVar[dict[str, list[bytes]]] = {
        **{f"/{name}/v1/completions": _completion(parts) for name, parts in _PARTS},
        **{f"/{name}/v1/complete": _complete(parts) for name, parts in _PARTS},
        "/logprobs/v1/completions": _completion(EMAIL_PARTS, logprobs=True),
    }


def _text(base: str, name: str, exchange: Exchange) -> str:
    with openai.OpenAI(
        api_key="sk-test",
        base_url=f"{base}/{name}/v1",
        max_retries=0,
        http_client=httpx2_client(exchange),
    ) as client:
        stream = client.completions.create(model="gpt-3.5-turbo-instruct", prompt="x", stream=True)
        return "".join(chunk.choices[0].text for chunk in stream)


def _anthropic_text(base: str, name: str, exchange: Exchange) -> str:
    """The text of Anthropic's legacy Text Completions stream, read as a client of
    ``/v1/complete`` reads it (the SDK no longer has it)."""
    asked = {"model": "claude-2.1", "prompt": "\n\nHuman: x\n\nAssistant:", "stream": True}
    headers = {"x-api-key": "sk-test", "anthropic-version": "2023-06-01"}
    with (
        httpx2_client(exchange) as http,
        http.stream(
            "POST",
            f"{base}/{name}/v1/complete",
            json={**asked, "max_tokens_to_sample": 16},
            headers=headers,
        ) as answer,
    ):
        data = [line[6:] for line in answer.iter_lines() if line.startswith("data: ")]
    return "".join(json.loads(event)["completion"] for event in data)


TEXTS = {"openai": _text, "anthropic": _anthropic_text}


@pytest.mark.parametrize("api", list(TEXTS))
def test_a_key_split_over_completion_chunks_is_refused_and_nothing_is_written(
    tmp_path: Path, api: str
) -> None:
    store = tmp_path / "s.jsonl"
    with (
        serving(_Completions) as base,
        pytest.raises(
            SecretInFixtureError, match=r"GitHub token found at response\.events\[0\.\.3\]\.data"
        ),
    ):
        TEXTS[api](base, "key", Exchange(store, mode="record-missing", approve_live=True))
    assert not store.exists() or store.read_bytes() == b""


@pytest.mark.parametrize("api", list(TEXTS))
def test_verify_finds_a_key_split_over_the_chunks_of_a_stored_completion(
    tmp_path: Path, api: str
) -> None:
    store = tmp_path / "s.jsonl"
    with serving(_Completions) as base:
        TEXTS[api](base, "clean", Exchange(store, mode="record-missing", approve_live=True))
    assert verify_store(store)[1] == []
    line = store.read_text()
    for part in KEY_PARTS[1:]:  # a hand edit, or a store written before the join read the text
        line = line.replace("Q_Q", part, 1)
    store.write_text(line)
    problems = [str(problem) for problem in verify_store(store)[1]]
    assert len(problems) == 1 and "GitHub token at response.events[0..3].data" in problems[0]


@pytest.mark.parametrize("api", list(TEXTS))
def test_an_address_split_over_completion_chunks_is_redacted_whole(
    tmp_path: Path, api: str
) -> None:
    config = SanitizeConfig(personal_data=("email",))
    store = tmp_path / "s.jsonl"
    with serving(_Completions) as base:
        live = TEXTS[api](
            base,
            "email",
            Exchange(store, mode="record-missing", approve_live=True, sanitize=config),
        )
    assert live == "".join(EMAIL_PARTS)
    stored = store.read_text()
    assert "alice.ma" not in stored and "rtin@" not in stored
    with block_network():
        replayed = TEXTS[api]("http://127.0.0.1:9", "email", Exchange(store, sanitize=config))
    assert re.fullmatch(r"write to user-[0-9a-f]{8}@example\.com today", replayed), replayed


def test_the_logprobs_of_a_redacted_completion_are_dropped(tmp_path: Path) -> None:
    """The tokens of a choice's logprobs hold its text in pieces no rule matches: once the
    text is redacted, its logprobs are null, and a replay reads them so."""
    config = SanitizeConfig(personal_data=("email",))
    store = tmp_path / "s.jsonl"
    recording = Exchange(store, mode="record-missing", approve_live=True, sanitize=config)
    with serving(_Completions) as base:
        assert _text(base, "logprobs", recording) == "".join(EMAIL_PARTS)
    stored = store.read_text()
    assert "alice" not in stored and "rtin@" not in stored and "corp-" not in stored
    with (
        block_network(),
        openai.OpenAI(
            api_key="sk-test",
            base_url="http://127.0.0.1:9/logprobs/v1",
            max_retries=0,
            http_client=httpx2_client(Exchange(store, sanitize=config)),
        ) as client,
    ):
        stream = client.completions.create(model="gpt-3.5-turbo-instruct", prompt="x", stream=True)
        assert [chunk.choices[0].logprobs for chunk in stream] == [None, None, None]
