"""A recorded stream refused as its reader is dropped reaches the caller.

A ``break`` out of ``iter_lines()`` over a sync ``httpx2``/``httpx`` response lets
Python close the iterators, and the stream is recorded ``closed`` there; a refusal of
that recording (a key in what was read) was printed as "Exception ignored in generator"
and the run went on with nothing recorded. It is raised as the response is closed, as
the async form raises it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import httpx2
import pytest

from replaygate.errors import SecretInFixtureError
from replaygate.http import httpx2_client, intercept
from replaygate.sim import Simulator
from sdks import anthropic

AWS = "AKIAIOSFODNN7SECRETX"
BODY = {
    "model": "m",
    "max_tokens": 16,
    "stream": True,
    "messages": [{"role": "user", "content": "hi"}],
}
HEADERS = {"x-api-key": "k", "anthropic-version": "2023-06-01"}


@pytest.fixture
def sim(tmp_path: Path) -> Iterator[Simulator]:
    script = tmp_path / "script.jsonl"
    script.write_text(f'{{"text": "the key is {AWS} and more words"}}\n')
    with Simulator(behavior=f"script:{script}") as simulator:
        yield simulator


def _until_the_key(lines: Iterator[str]) -> None:
    for line in lines:
        if AWS[-7:] in line:
            break


@pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")
def test_an_sdk_streaming_response_left_by_a_break_raises_the_refusal(
    tmp_path: Path, sim: Simulator
) -> None:
    store = tmp_path / "f.jsonl"
    http = httpx2_client(store, "record-missing", approve_live=True)
    client = anthropic.Anthropic(api_key="k", base_url=sim.url, http_client=http, max_retries=0)
    with (
        pytest.raises(SecretInFixtureError, match=r"AWS access key id found at response\.events"),
        client.messages.with_streaming_response.create(**BODY) as response,
    ):
        _until_the_key(response.iter_lines())
    http.close()  # raised once: the client's close has nothing more to say
    assert not store.exists()


@pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize("library", [httpx2, httpx], ids=["httpx2", "httpx"])
def test_an_intercepted_stream_left_by_a_break_raises_the_refusal(
    tmp_path: Path, sim: Simulator, library: type
) -> None:
    store = tmp_path / "f.jsonl"
    with (
        library.Client(base_url=sim.url) as client,  # type: ignore[attr-defined]
        intercept(store, "record-missing", approve_live=True),
        pytest.raises(SecretInFixtureError),
        client.stream("POST", "/v1/messages", json=BODY, headers=HEADERS) as response,
    ):
        _until_the_key(response.iter_lines())
    assert not store.exists()
