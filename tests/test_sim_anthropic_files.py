"""Anthropic's Files API from the simulator: a file uploaded, its metadata listed and read,
its content refused (an upload is not downloadable), deleted, named by a Messages request,
recorded and replayed offline; the API's answers to an id it does not hold, in the beta's
shapes and in its own."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import orjson
import pytest

from replaygate.http import httpx2_client
from replaygate.network import block_network
from replaygate.sim import Simulator
from replaygate.sim.app import SimApp
from replaygate.sim.behaviors import EchoBehavior
from sdks import anthropic

BETA = ["files-api-2025-04-14"]
PARAMS = {"model": "claude-sonnet-4-6", "max_tokens": 64}


def _asked(client: Any, file_id: str, kind: str = "document") -> str:
    content = [{"type": kind, "source": {"type": "file", "file_id": file_id}}]
    content.append({"type": "text", "text": "Summarize it"})
    message = client.messages.create(**PARAMS, messages=[{"role": "user", "content": content}])
    return str(message.content[0].text)


def _used(client: Any) -> list[Any]:
    """What a team's code sees uploading a document, reading it back and asking about it."""
    upload = client.beta.files.upload(
        file=("notes.txt", io.BytesIO(b"The meeting is at noon."), "text/plain"), betas=BETA
    )
    meta = client.beta.files.retrieve_metadata(upload.id, betas=BETA)
    listed = [f.id for f in client.beta.files.list(betas=BETA)]
    with pytest.raises(anthropic.BadRequestError) as refused:
        client.beta.files.download(upload.id, betas=BETA)
    answer = _asked(client, upload.id)
    deleted = client.beta.files.delete(upload.id, betas=BETA)
    with pytest.raises(anthropic.NotFoundError):
        client.beta.files.retrieve_metadata(upload.id, betas=BETA)
    with pytest.raises(anthropic.NotFoundError, match="File not found"):
        _asked(client, upload.id)
    return [meta.model_dump(), listed, refused.value.error_code, answer, deleted.type]


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_files_record_from_the_simulator_and_replay_offline(sim: Simulator, tmp_path: Path) -> None:
    store = tmp_path / "files.jsonl"
    with httpx2_client(store, mode="record-missing", approve_live=True) as http:
        recorded = _used(anthropic.Anthropic(api_key="t", base_url=sim.url, http_client=http))
    meta, listed, code, answer, deleted = recorded
    assert meta["filename"] == "notes.txt" and meta["mime_type"] == "text/plain"
    assert meta["size_bytes"] == 23 and meta["downloadable"] is False
    assert meta["id"].startswith("file_sim_") and listed[0] == meta["id"]
    assert (code, answer, deleted) == (
        "file_not_downloadable",
        "echo: Summarize it",
        "file_deleted",
    )
    with block_network(), httpx2_client(store) as http:
        assert _used(anthropic.Anthropic(api_key="t", http_client=http)) == recorded


def test_the_api_s_own_shapes_without_the_beta(sim: Simulator) -> None:
    """Without the beta a page is ``{data, next_page}``, paged by ``page``, and a file has
    its ``expires_at``; the beta's cursors are refused."""
    client = anthropic.Anthropic(api_key="t", base_url=sim.url, max_retries=0)
    made = [
        client.files.upload(file=(f"n{i}.txt", io.BytesIO(b"n%d" % i), "text/plain")).id
        for i in range(3)
    ]
    page = client.files.list(limit=2)
    assert [f.id for f in page.data] == made[:0:-1] and page.next_page
    assert [f.id for f in client.files.list(limit=2)][:3] == made[::-1]  # every page
    assert [f.id for f in client.files.list(ids=[made[0]]).data] == [made[0]]
    raw = client.files.with_raw_response.retrieve_metadata(made[0]).http_response.json()
    assert "expires_at" in raw
    with pytest.raises(anthropic.BadRequestError, match="after_id"):
        client.files.list(extra_query={"after_id": made[0]})
    upload = client.files.upload(file=("a.png", io.BytesIO(b"\x89PNG"), "image/png"))
    assert _asked(client, upload.id, "image") == "echo: Summarize it"
    with pytest.raises(anthropic.BadRequestError, match="a document block takes a file of"):
        _asked(client, upload.id)
    text = client.files.upload(file=("n.txt", io.BytesIO(b"n"), "text/plain"))
    with pytest.raises(anthropic.BadRequestError, match="an image block takes a file of"):
        _asked(client, text.id, "image")
    with pytest.raises(anthropic.NotFoundError):
        client.files.delete("file_never")


def test_a_file_a_replay_answered_with_is_named_by_a_later_request() -> None:
    """A recording grown after a replayed upload sends a request naming the file: the
    simulator holds it (without its bytes), so the request is answered, not refused."""
    app = SimApp(EchoBehavior())
    meta = {
        "id": "file_011abc",
        "type": "file",
        "filename": "a.pdf",
        "mime_type": "application/pdf",
    }
    app.learn("POST", "/v1/files", None, {"status": 200, "body": meta})
    source = {"type": "file", "file_id": "file_011abc"}
    content = [{"type": "document", "source": source}, {"type": "text", "text": "Hi"}]
    body = orjson.dumps({**PARAMS, "messages": [{"role": "user", "content": content}]})
    headers = {"x-api-key": "t", "anthropic-version": "2023-06-01"}
    assert app.handle("POST", "/v1/messages", headers, body).status == 200
    listed = app.handle("GET", "/v1/files", headers, b"")
    assert [f["id"] for f in orjson.loads(listed.body)["data"]] == ["file_011abc"]


def test_a_tool_s_file_a_replay_answered_with_is_not_downloaded_as_an_upload() -> None:
    """A file a tool made (``downloadable: true``), learned from a replayed answer, has no
    bytes here: its download is the simulator's own refusal, not the upload's 400."""
    app = SimApp(EchoBehavior())
    meta = {"id": "file_011xyz", "type": "file", "filename": "out.csv", "downloadable": True}
    app.learn("GET", "/v1/files/file_011xyz", None, {"status": 200, "body": meta})
    headers = {"x-api-key": "t", "anthropic-version": "2023-06-01"}
    reply = app.handle("GET", "/v1/files/file_011xyz/content", headers, b"")
    assert reply.refused and b"without its bytes" in reply.body
