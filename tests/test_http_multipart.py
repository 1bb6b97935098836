"""A file upload (a multipart body) replays, though its client draws a new boundary each time.

The boundary is kept in the envelope as ``replaygate-boundary``; what the file holds
and the other fields are matched as sent, so a changed file is still a miss.
"""

from __future__ import annotations

import asyncio
import base64
import http.server
import json
import random
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
import requests

from replaygate.errors import FixtureMismatchError, SecretInFixtureError
from replaygate.fixtures.diff import field_diff
from replaygate.fixtures.store import FixtureStore
from replaygate.http import httpx2_client, intercept
from sdks import aiohttp, openai

UPLOADED = {"id": "file-1", "object": "file", "bytes": 3, "created_at": 0}
UPLOADED.update(filename="notes.txt", purpose="assistants", status="processed")


def _openai_upload(content: bytes) -> Callable[[str], str]:
    def upload(base: str) -> str:
        transport = httpx2.MockTransport(lambda _: httpx2.Response(200, json=UPLOADED))
        with (
            httpx2.Client(transport=transport) as http,
            openai.OpenAI(api_key="k", base_url=f"{base}/v1", http_client=http) as client,
        ):
            return client.files.create(file=("notes.txt", content), purpose="assistants").id

    return upload


class _Uploads(http.server.BaseHTTPRequestHandler):
    """Answers every POST with :data:`UPLOADED`."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["content-length"]))
        body = json.dumps(UPLOADED).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Uploads) as uploads:
        serving = threading.Thread(target=uploads.serve_forever, args=(0.01,), daemon=True)
        serving.start()  # polled every 10 ms, not 0.5 s: shutdown() returns at once
        yield f"http://127.0.0.1:{uploads.server_address[1]}"
        uploads.shutdown()


def _requests_upload(content: bytes) -> Callable[[str], str]:
    def upload(base: str) -> str:
        files = {"file": ("notes.txt", content)}
        reply = requests.post(f"{base}/v1/files", data={"purpose": "assistants"}, files=files)
        return str(reply.json()["id"])

    return upload


def _aiohttp_upload(content: bytes) -> Callable[[str], str]:
    async def main(base: str) -> str:
        form = aiohttp.FormData({"purpose": "assistants"})
        form.add_field("file", content, filename="notes.txt")
        async with (
            aiohttp.ClientSession() as session,
            session.post(f"{base}/v1/files", data=form) as reply,
        ):
            return str((await reply.json())["id"])

    return lambda base: asyncio.run(main(base))


UPLOADS = {"openai": _openai_upload, "requests": _requests_upload, "aiohttp": _aiohttp_upload}


BINARY = random.Random(7).randbytes(4096)
"""A file that is not text (an image, a PDF): its body is kept as base64, which reads as
one long high-entropy token."""
FILES = {"text": (b"abc", b"abd", "text"), "binary": (BINARY, BINARY[:-1] + b"X", "base64")}
"""A file, the same file changed by one byte, and the envelope field its body is kept in."""


@pytest.mark.parametrize("kind", FILES)
@pytest.mark.parametrize("library", UPLOADS)
def test_a_file_upload_replays_and_a_changed_file_misses(
    tmp_path: Path, server: str, library: str, kind: str
) -> None:
    store = tmp_path / "uploads.jsonl"
    upload = UPLOADS[library]
    content, changed, field = FILES[kind]
    with intercept(store, "record-missing", approve_live=True):
        assert upload(content)(server) == "file-1"
    (fixture,) = FixtureStore.open(store)
    assert field in fixture.request
    if kind == "text":
        assert "--replaygate-boundary" in fixture.request["text"]
    with intercept(store):
        assert upload(content)("https://api.openai.com") == "file-1"
        with pytest.raises(FixtureMismatchError) as caught:
            upload(changed)("https://api.openai.com")
    assert f"{field} (multipart file, notes.txt): " in str(caught.value)
    if kind == "binary":  # the file's bytes, shown where they differ
        assert "at byte 4095 (lengths 4096, 4096): " in str(caught.value)


@pytest.mark.parametrize(
    "content", [BINARY, b"\xa5" * 4096], ids=["random bytes", "one byte repeated"]
)
def test_a_secret_inside_a_binary_upload_is_still_refused(
    tmp_path: Path, server: str, content: bytes
) -> None:
    # the base64 of a repeated byte reads as no token at all: only decoded is the key seen
    key = b"sk-ant-api03-" + b"Xy7Qa9Lm2Pz8Rt4Vn6Bc1Dk5Fg3Hj0Ws" * 2
    store = tmp_path / "uploads.jsonl"
    with (
        intercept(store, "record-missing", approve_live=True),
        pytest.raises(SecretInFixtureError) as caught,
    ):
        UPLOADS["requests"](content[:100] + key + content[100:])(server)
    assert "in a base64 body" in str(caught.value)
    assert not store.exists()


def _transcribe(store: Path, name: str, audio: bytes, language: str, mode: str) -> None:
    live = httpx2.MockTransport(lambda _: httpx2.Response(200, json={"text": "hello"}))
    http = httpx2_client(store, mode, approve_live=mode != "replay", transport=live)
    with openai.OpenAI(api_key="k", http_client=http, max_retries=0) as client:
        file = (name, audio, "audio/mpeg")
        client.audio.transcriptions.create(model="whisper-1", language=language, file=file)


@pytest.fixture
def two_meetings(tmp_path: Path) -> Path:
    store = tmp_path / "near.jsonl"
    for day in ("monday", "tuesday"):
        name = f"meeting-{day}.mp3"
        _transcribe(store, name, f"audio of {name}".encode(), "en", "record-missing")
    return store


@pytest.mark.parametrize(
    ("audio", "language", "differences"),
    [
        (
            b"audio of meeting-tuesday.mp4",
            "en",
            [
                "text (multipart file, meeting-tuesday.mp3): 'audio of meeting-tuesday.mp3' != "
                "'audio of meeting-tuesday.mp4'"
            ],
        ),
        (b"audio of meeting-tuesday.mp3", "fr", ["text (multipart language): 'en' != 'fr'"]),
    ],
    ids=["audio", "language"],
)
def test_an_upload_s_miss_is_compared_with_the_nearest_upload_part_by_part(
    two_meetings: Path, audio: bytes, language: str, differences: list[str]
) -> None:
    with pytest.raises(FixtureMismatchError) as caught:
        _transcribe(two_meetings, "meeting-tuesday.mp3", audio, language, "replay")
    assert f"at {two_meetings}:2 (recorded != requested)" in str(caught.value)
    assert len(caught.value.differences) == len(differences)
    for shown, wanted in zip(caught.value.differences, differences, strict=True):
        assert shown.startswith(wanted)


def test_a_binary_upload_s_miss_is_compared_with_the_binary_upload_it_differs_from(
    tmp_path: Path,
) -> None:
    """A text file recorded first: the binary one changed by a byte was compared with it,
    its whole body shown as a ``text`` turned ``base64``."""
    store = tmp_path / "near.jsonl"
    for audio in (b"plain words", BINARY):
        _transcribe(store, "meeting.mp3", audio, "en", "record-missing")
    with pytest.raises(FixtureMismatchError) as caught:
        _transcribe(store, "meeting.mp3", BINARY[:-1] + b"X", "en", "replay")
    assert f"at {store}:2 (recorded != requested)" in str(caught.value)
    (shown,) = caught.value.differences
    assert shown.startswith("base64 (multipart file, meeting.mp3): ")


def _form(*parts: tuple[str, str]) -> str:
    """A multipart body as an envelope keeps it, of ``(name, value)`` parts in order."""
    part = '--replaygate-boundary\r\nContent-Disposition: form-data; name="{}"\r\n\r\n{}\r\n'
    fields = "".join(part.format(name, value) for name, value in parts)
    return f"{fields}--replaygate-boundary--\r\n"


def test_the_same_parts_sent_in_another_order_are_named_by_their_order() -> None:
    """An SDK that sends its form's fields in another order: the miss says so, where a
    window of the whole body showed one field's text against another's."""
    model, language, file = ("model", "whisper-1"), ("language", "en"), ("file", "audio")
    recorded = {"method": "POST", "text": _form(model, language, file)}
    requested = {"method": "POST", "text": _form(file, model, language)}
    shown = [d.render() for d in field_diff(recorded, requested)]
    assert shown == ["text (multipart order): 'model, language, file' != 'file, model, language'"]


def test_a_form_value_quoting_the_kept_boundary_does_not_read_as_another_body(
    tmp_path: Path, server: str
) -> None:
    # the one-part upload below, its value quoting a boundary line, read after the
    # boundary was replaced as the two-part upload recorded, and was answered with its
    # fixture: a green for a request never recorded
    store = tmp_path / "uploads.jsonl"
    two_parts = {"files": {"file": ("x.txt", b"foo", "text/plain")}, "data": {"purpose": "b"}}
    quoted = (
        b'b\r\n--replaygate-boundary\r\nContent-Disposition: form-data; name="file"; '
        b'filename="x.txt"\r\nContent-Type: text/plain\r\n\r\nfoo'
    )
    with intercept(store, "record-missing", approve_live=True):
        assert requests.post(f"{server}/v1/files", **two_parts).ok  # type: ignore[arg-type]
    with intercept(store), pytest.raises(FixtureMismatchError):
        requests.post(f"{server}/v1/files", files={"purpose": (None, quoted)})
    with intercept(store):  # the upload recorded still replays
        assert requests.post(f"{server}/v1/files", **two_parts).ok  # type: ignore[arg-type]


def test_an_upload_kept_as_text_and_one_kept_as_base64_are_compared_part_by_part() -> None:
    """A text file recorded, one byte of it no longer UTF-8 on replay: the miss showed the
    whole recorded body as ``text`` against ``<missing>`` and the new one as base64."""
    part = '--replaygate-boundary\r\nContent-Disposition: form-data; name="file"; filename="{}"'
    recorded = f"{part.format('réunion.mp3')}\r\n\r\nword word\r\n--replaygate-boundary--\r\n"
    changed = recorded.encode().replace(b"word word", b"word \xfford")
    requested = {"method": "POST", "base64": base64.b64encode(changed).decode()}
    shown = [d.render() for d in field_diff({"method": "POST", "text": recorded}, requested)]
    assert shown == [
        "base64 (multipart file, réunion.mp3): at byte 5 (lengths 9, 9): "
        "b'word word' != b'word \\xfford'"
    ]
    renamed = {"method": "POST", "text": recorded.replace("réunion", "reunion")}
    shown = [d.render() for d in field_diff({"method": "POST", "text": recorded}, renamed)]
    assert shown == ["text (multipart file filename): 'réunion.mp3' != 'reunion.mp3'"]


def test_a_body_kept_as_text_and_one_kept_as_base64_are_compared_as_bytes() -> None:
    """A download recorded as text, re-recorded holding a byte that is not UTF-8."""
    changed = base64.b64encode("café au lait".encode()[:-1] + b"\xff").decode()
    left = {"status": 200, "text": "café au lait"}
    right = {"status": 200, "base64": changed}
    shown = [d.render() for d in field_diff({"response": left}, {"response": right})]
    assert shown == [
        "response.base64: at byte 12 (lengths 13, 13): ...b'u lait' != ...b'u lai\\xff'"
    ]
