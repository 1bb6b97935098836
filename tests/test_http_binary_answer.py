"""An answer that is not text (speech audio) records and replays byte for byte.

Its body is kept as base64, which reads as one long high-entropy token: the secret gate
searches it decoded instead, so a key inside it is still refused.
"""

from __future__ import annotations

import random
from pathlib import Path

import httpx2
import pytest

from replaygate.errors import SecretInFixtureError, UnstorableValueError
from replaygate.fixtures.store import FixtureStore, writing
from replaygate.http import httpx2_client
from sdks import openai

AUDIO = random.Random(11).randbytes(8192)


def _speech(store: Path, answer: bytes, mode: str = "replay") -> bytes:
    live = httpx2.MockTransport(
        lambda _: httpx2.Response(200, content=answer, headers={"content-type": "audio/mpeg"})
    )
    http = httpx2_client(store, mode=mode, approve_live=mode != "replay", transport=live)
    with openai.OpenAI(api_key="k", http_client=http, max_retries=0) as client:
        spoken = client.audio.speech.create(model="tts-1", voice="alloy", input="hello")
        return spoken.read()


def test_speech_audio_records_and_replays_byte_for_byte(tmp_path: Path) -> None:
    store = tmp_path / "speech.jsonl"
    assert _speech(store, AUDIO, "record-missing") == AUDIO
    (fixture,) = FixtureStore.open(store)
    assert "base64" in fixture.responses[0]
    assert _speech(store, b"never sent") == AUDIO


def test_a_key_inside_speech_audio_is_refused(tmp_path: Path) -> None:
    store = tmp_path / "speech.jsonl"
    key = b"sk-ant-api03-" + b"Xy7Qa9Lm2Pz8Rt4Vn6Bc1Dk5Fg3Hj0Ws" * 2
    with pytest.raises(SecretInFixtureError) as caught:
        _speech(store, AUDIO[:99] + key + AUDIO[99:], "record-missing")
    assert "in a base64 body" in str(caught.value)
    assert not store.exists()


def _download(store: Path, answer: bytes, mode: str = "replay") -> bytes:
    live = httpx2.MockTransport(
        lambda _: httpx2.Response(
            200, content=answer, headers={"content-type": "application/octet-stream"}
        )
    )
    http = httpx2_client(store, mode=mode, approve_live=mode != "replay", transport=live)
    with openai.OpenAI(api_key="k", http_client=http, max_retries=0) as client:
        return client.files.content("file-abc").content


@pytest.mark.parametrize(
    "file",
    [
        b'{\n  "custom_id": "r1",\n  "score": 1.50\n}\n',  # indented, a decimal, a line end
        b'{"custom_id":"r1","response":{"status_code":200}}\n',  # a batch output line
        b'{"score": 1e2, "name": "caf\\u00e9"}',
    ],
)
def test_a_downloaded_file_that_is_json_replays_byte_for_byte(tmp_path: Path, file: bytes) -> None:
    store = tmp_path / "files.jsonl"
    assert _download(store, file, "record-missing") == file
    (fixture,) = FixtureStore.open(store)
    assert fixture.responses[0]["text"] == file.decode()
    assert _download(store, b"never sent") == file


def test_a_download_whose_compact_json_is_its_bytes_keeps_its_structure(tmp_path: Path) -> None:
    store = tmp_path / "files.jsonl"
    file = b'{"custom_id":"r1","score":1.5}'
    assert _download(store, file, "record-missing") == file
    (fixture,) = FixtureStore.open(store)
    assert fixture.responses[0]["body"] == {"custom_id": "r1", "score": 1.5}
    assert _download(store, b"never sent") == file


def test_an_upload_no_line_could_hold_is_not_sent_and_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tens of MB of audio to transcribe, kept as base64 past a line's maximum (lowered
    here): refused before it is sent, saying how to make it fit."""
    monkeypatch.setattr(writing, "MAX_LINE_BYTES", 4096)
    sent: list[httpx2.Request] = []
    live = httpx2.MockTransport(lambda r: sent.append(r) or httpx2.Response(200, json={}))
    store = tmp_path / "a.jsonl"
    http = httpx2_client(store, mode="record-missing", approve_live=True, transport=live)
    with (
        openai.OpenAI(api_key="k", http_client=http, max_retries=0) as client,
        pytest.raises(UnstorableValueError) as caught,
    ):
        client.audio.transcriptions.create(model="whisper-1", file=("a.mp3", AUDIO, "audio/mpeg"))
    assert "nothing was sent" in str(caught.value) and "such as a clip of the audio" in str(
        caught.value
    )
    assert not sent and not store.exists()
