"""The text of a legacy Completions stream (``client.completions.create(stream=True)``,
``/v1/completions`` of OpenAI and of the OpenAI-compatible servers) is read joined per
choice, as a chat delta is: a key split over its chunks is refused, and found by verify in
a stored one; an address split so is redacted whole."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import ClassVar

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


def _completion(parts: list[str]) -> list[bytes]:
    chunks = [
        {
            "id": "cmpl-1",
            "object": "text_completion",
            "created": 1,
            "model": "gpt-3.5-turbo-instruct",
            "choices": [{"index": 0, "text": part, "logprobs": None, "finish_reason": None}],
        }
        for part in parts
    ]
    return [*(f"data: {json.dumps(c)}\n\n".encode() for c in chunks), b"data: [DONE]\n\n"]


class _Completions(ChunkedEvents):
    CHUNKS: ClassVar[dict[str, list[bytes]]] = {
        f"/{name}/v1/completions": _completion(parts)
        for name, parts in (("key", KEY_PARTS), ("clean", CLEAN_PARTS), ("email", EMAIL_PARTS))
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


def test_a_key_split_over_completion_chunks_is_refused_and_nothing_is_written(
    tmp_path: Path,
) -> None:
    store = tmp_path / "s.jsonl"
    with (
        serving(_Completions) as base,
        pytest.raises(
            SecretInFixtureError, match=r"GitHub token found at response\.events\[0\.\.3\]\.data"
        ),
    ):
        _text(base, "key", Exchange(store, mode="record-missing", approve_live=True))
    assert not store.exists() or store.read_bytes() == b""


def test_verify_finds_a_key_split_over_the_chunks_of_a_stored_completion(tmp_path: Path) -> None:
    store = tmp_path / "s.jsonl"
    with serving(_Completions) as base:
        _text(base, "clean", Exchange(store, mode="record-missing", approve_live=True))
    assert verify_store(store)[1] == []
    line = store.read_text()
    for part in KEY_PARTS[1:]:  # a hand edit, or a store written before the join read the text
        line = line.replace("Q_Q", part, 1)
    store.write_text(line)
    problems = [str(problem) for problem in verify_store(store)[1]]
    assert len(problems) == 1 and "GitHub token at response.events[0..3].data" in problems[0]


def test_an_address_split_over_completion_chunks_is_redacted_whole(tmp_path: Path) -> None:
    config = SanitizeConfig(personal_data=("email",))
    store = tmp_path / "s.jsonl"
    with serving(_Completions) as base:
        live = _text(
            base,
            "email",
            Exchange(store, mode="record-missing", approve_live=True, sanitize=config),
        )
    assert live == "".join(EMAIL_PARTS)
    stored = store.read_text()
    assert "alice.ma" not in stored and "rtin@" not in stored
    with block_network():
        replayed = _text("http://127.0.0.1:9", "email", Exchange(store, sanitize=config))
    assert re.fullmatch(r"write to user-[0-9a-f]{8}@example\.com today", replayed), replayed
