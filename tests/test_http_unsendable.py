"""A request no fixture could hold is refused before it is sent while recording, over HTTP
and by a recording model: its answer, paid for, could never be recorded (an integer
beyond 64 bits and a secret: tests/test_http_big_ints.py, tests/test_sanitize_sdk.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from replaygate.errors import SecretInFixtureError, UnstorableValueError
from replaygate.fixtures.store import FixtureStore, writing
from replaygate.http import httpx2_client
from replaygate.models.live import AnthropicModel
from replaygate.models.replay import RecordingModel
from replaygate.models.types import Message
from replaygate.sim import Simulator
from sdks import anthropic


def record(sim: Simulator, store: Path, text: str, **extra: Any) -> str:
    http = httpx2_client(store, "record-missing", approve_live=True)
    with anthropic.Anthropic(api_key="t", base_url=sim.url, http_client=http) as client:
        answer = client.messages.create(
            model="m",
            max_tokens=8,
            messages=[{"role": "user", "content": text}],
            extra_body=extra or None,
        )
    return str(answer.content[0].text)


GITHUB_TOKEN = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"


def nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {"leaf": 1}
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_request_nested_deeper_than_a_line_holds_is_not_sent(
    sim: Simulator, tmp_path: Path
) -> None:
    store = tmp_path / "deep.jsonl"
    before = len(sim.requests)
    with pytest.raises(UnstorableValueError, match="nested more than 254 levels") as caught:
        record(sim, store, "deep", metadata_tree=nested(300))
    assert len(sim.requests) == before
    assert caught.value.path.startswith("request.body.metadata_tree.a.a")
    assert str(caught.value).endswith("nothing was sent and nothing was written")
    assert record(sim, store, "shallow", metadata_tree=nested(20)) == "echo: shallow"
    assert len(sim.requests) == before + 1
    assert len(FixtureStore.open(store)) == 1


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_request_longer_than_a_line_holds_is_not_sent(
    sim: Simulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writing, "MAX_LINE_BYTES", 4096)  # instead of 32 MiB
    store = tmp_path / "long.jsonl"
    before = len(sim.requests)
    with pytest.raises(UnstorableValueError, match=r"more than the maximum of 4,096 bytes"):
        record(sim, store, "x" * 5000)
    assert len(sim.requests) == before
    assert not store.exists()
    assert record(sim, store, "short") == "echo: short"


def through_http(sim: Simulator, store: Path, text: str, version: str) -> str:
    """An answer recorded through the SDK over HTTP, sent with ``anthropic-version``."""
    http = httpx2_client(store, "record-missing", approve_live=True)
    headers = {"anthropic-version": version}
    with anthropic.Anthropic(
        api_key="t", base_url=sim.url, http_client=http, default_headers=headers
    ) as client:
        answer = client.messages.create(
            model="m", max_tokens=8, messages=[{"role": "user", "content": text}]
        )
    return str(answer.content[0].text)


def through_the_engine(sim: Simulator, store: Path, text: str, version: str) -> str:
    """An answer recorded by a recording model for ``interface_version``."""
    live = AnthropicModel(
        anthropic.Anthropic(api_key="t", base_url=sim.url), model="m", max_tokens=8
    )
    recorder = RecordingModel(
        live, store, approve_live=True, model="m", max_tokens=8, interface_version=version
    )
    return recorder.complete([Message.user(text)], []).text


@pytest.mark.parametrize(
    ("send", "named"),
    [
        (through_http, "request.headers.anthropic-version"),
        (through_the_engine, "meta.interface_version"),
    ],
    ids=["http", "engine"],
)
@pytest.mark.parametrize("name", ["folder", "f.jsonl"])
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_an_interface_version_that_cannot_name_a_folder_is_not_sent(
    sim: Simulator, tmp_path: Path, name: str, send: Callable[..., str], named: str
) -> None:
    # every store refuses to write such a fixture, a JSONL file as well as a folder
    store = tmp_path / name
    before = len(sim.requests)
    with pytest.raises(UnstorableValueError, match=r"'2023-06-01/beta' cannot name") as caught:
        send(sim, store, "x", "2023-06-01/beta")
    assert caught.value.path == named
    assert str(caught.value).endswith("nothing was sent and nothing was written")
    assert len(sim.requests) == before
    assert not store.exists()
    assert send(sim, store, "pinned", "2023-06-01") == "echo: pinned"
    assert len(FixtureStore.open(store)) == 1


def test_a_note_holding_a_secret_is_refused_before_the_request_is_sent(
    sim: Simulator, tmp_path: Path
) -> None:
    # the note goes into every fixture's meta, so no answer of this session could be written
    store = tmp_path / "noted.jsonl"
    before = len(sim.requests)
    http = httpx2_client(store, "record-missing", approve_live=True, note="see " + GITHUB_TOKEN)
    with (
        anthropic.Anthropic(api_key="t", base_url=sim.url, http_client=http) as client,
        pytest.raises(SecretInFixtureError, match=r"GitHub token found at meta\.note") as caught,
    ):
        client.messages.create(
            model="m", max_tokens=8, messages=[{"role": "user", "content": "hi"}]
        )
    assert str(caught.value).endswith(
        "nothing was sent and nothing was written. Add a sanitize rule or remove the value."
    )
    assert len(sim.requests) == before
    assert not store.exists()
