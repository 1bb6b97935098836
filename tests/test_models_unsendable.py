"""A recording model refuses, before it calls the live model, a request whose fixture no
store could write: its answer, paid for, would be refused at the write (the HTTP layer:
tests/test_http_unsendable.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from replaygate.errors import UnstorableValueError
from replaygate.fixtures.store import FixtureStore
from replaygate.models.live import AnthropicModel
from replaygate.models.replay import RecordingModel
from replaygate.models.types import Message
from replaygate.sim import Simulator
from sdks import anthropic


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    with Simulator(behavior="echo") as server:
        yield server


def _recorder(sim: Simulator, store: Path, version: str | None) -> RecordingModel:
    client = anthropic.Anthropic(api_key="k", base_url=sim.url, max_retries=0)
    live = AnthropicModel(client, model="m", max_tokens=8)
    return RecordingModel(
        live, store, approve_live=True, model="m", max_tokens=8, interface_version=version
    )


@pytest.mark.parametrize("name", ["folder", "f.jsonl"])
def test_an_interface_version_that_cannot_name_a_folder_is_not_sent(
    sim: Simulator, tmp_path: Path, name: str
) -> None:
    store = tmp_path / name
    before = len(sim.requests)
    recorder = _recorder(sim, store, "2023-06-01/beta")
    with pytest.raises(
        UnstorableValueError, match=r"interface_version '2023-06-01/beta'"
    ) as caught:
        recorder.complete([Message.user("x")], [])
    assert caught.value.path == "meta.interface_version"
    assert str(caught.value).endswith("nothing was sent and nothing was written")
    assert len(sim.requests) == before
    assert not store.exists()
    answer = _recorder(sim, store, None).complete([Message.user("pinned")], [])
    assert answer.text == "echo: pinned"  # the interface's own version names one
    assert len(sim.requests) == before + 1
    assert len(FixtureStore.open(store)) == 1
