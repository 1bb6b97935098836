"""verify reads the answers of a model API's paths that no interface serves (embeddings,
token counts, conversations) as replay does: a success labelled JSON whose stored body
an edit broke is named by verify, not first by the replay that refuses it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replaygate.errors import FixtureFormatError
from replaygate.fixtures.fingerprint import fixture_key
from replaygate.http import httpx2_client
from replaygate.hygiene.verify import verify_store
from replaygate.sim import Simulator
from sdks import openai


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The store of an embeddings call recorded from the simulator, recorded once for the
    module's tests (each writes it to a store of its own: :func:`recorded_embeddings`)."""
    store = tmp_path_factory.mktemp("recording") / "embed.jsonl"
    http = httpx2_client(store, "record-missing", approve_live=True)
    with (
        Simulator(behavior="echo") as sim,
        openai.OpenAI(api_key="k", base_url=f"{sim.url}/v1", http_client=http) as client,
    ):
        client.embeddings.create(model="text-embedding-3-small", input="hello")
    assert verify_store(store) == (1, [])
    return store.read_bytes()


def recorded_embeddings(store: Path, recording: bytes) -> Path:
    """``store`` holding the embeddings call of :func:`recording`."""
    store.write_bytes(recording)
    return store


def test_a_broken_embeddings_answer_is_named_by_verify(tmp_path: Path, recording: bytes) -> None:
    store = recorded_embeddings(tmp_path / "embed.jsonl", recording)
    fixture = json.loads(store.read_text())
    fixture["response"] = {
        "status": 200,
        "headers": {"content-type": "application/json"},
        "text": '{"object": "list", "data": [{"embedding": [0.1, }]}',
    }
    store.write_text(json.dumps(fixture) + "\n")
    count, problems = verify_store(store)
    assert count == 1 and [(p.file, p.line) for p in problems] == [(str(store), 1)]
    assert "labelled application/json, but not JSON" in problems[0].reason


def test_a_path_of_no_model_api_keeps_its_text_as_recorded(
    tmp_path: Path, recording: bytes
) -> None:
    store = recorded_embeddings(tmp_path / "other.jsonl", recording)
    fixture = json.loads(store.read_text())
    fixture["request"]["path"] = "/v1/status"  # a service beside the API, answering as it likes
    fixture.pop("seal", None)
    fixture["key"] = fixture_key(fixture["request"])
    fixture["response"] = {
        "status": 200,
        "headers": {"content-type": "application/json"},
        "text": "ok",
    }
    store.write_text(json.dumps(fixture) + "\n")
    assert verify_store(store) == (1, [])


def test_a_base64_vector_an_edit_broke_is_named_by_verify_and_replay(
    tmp_path: Path, recording: bytes
) -> None:
    """The SDK decodes base64 vectors itself: one cut short (a hand edit, a rule of an
    older replaygate that rewrote its digits) failed the replay with the SDK's
    ``binascii.Error: Incorrect padding``, naming no fixture, and verify found nothing."""
    store = recorded_embeddings(tmp_path / "vectors.jsonl", recording)
    fixture = json.loads(store.read_text())
    vector = fixture["response"]["body"]["data"][0]["embedding"]
    fixture["response"]["body"]["data"][0]["embedding"] = vector[:-1]
    fixture.pop("seal", None)
    store.write_text(json.dumps(fixture) + "\n")
    count, problems = verify_store(store)
    assert count == 1 and [(p.file, p.line) for p in problems] == [(str(store), 1)]
    assert "response.body.data[0].embedding: not base64 text" in problems[0].reason
    client = openai.OpenAI(api_key="k", http_client=httpx2_client(store), max_retries=0)
    with pytest.raises(FixtureFormatError, match=r"vectors\.jsonl:1: .*data\[0\]\.embedding"):
        client.embeddings.create(model="text-embedding-3-small", input="hello")
