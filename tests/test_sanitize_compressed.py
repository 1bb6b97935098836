"""A key inside compressed data (a gzip or zip upload, a base64 ``.docx``) is refused.

A file uploaded through the openai SDK is a multipart body kept as base64 (its bytes are
not UTF-8); a document sent inline is base64 in a JSON field. The scan reads the gzip,
bzip2 and xz streams and the zip members in them decompressed, within a bound, and
refuses what it cannot read whole. The uploads go to a loopback server of the test's own
(the simulator has no files endpoint), the documents to the simulator.
"""

from __future__ import annotations

import base64
import bz2
import functools
import gzip
import io
import json
import lzma
import zipfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from echo_recording import refused_then_stored_by_hand
from loopback import Handler, serving
from replaygate.errors import SecretInFixtureError
from replaygate.http import block_network, httpx2_client
from replaygate.hygiene.verify import verify_store
from replaygate.sanitize import secret_compressed, secret_scan
from replaygate.sanitize.secret_compressed import FREE_READS, MAX_EXPANDED, TRY_COST, Budget
from replaygate.sanitize.secret_scan import detect_in_text, find_fixture_secrets
from replaygate.sim import Simulator
from sdks import anthropic, openai

KEY = (
    "sk-ant-api03-" + "Q7xk2LmN9pRt4VwYz8Ab3Cd6Ef1Gh5Ij0Kl2Mn4Op6Qr8St0Uv2Wx4Yz6Ab8Cd0" + "-ghIJAA"
)
ENV = b"region=eu-west-1\n" * 20 + f"ANTHROPIC_API_KEY={KEY}\n".encode()
CLEAN = b"region=eu-west-1\nretries=3\n" * 20
UPLOADED = {"id": "file-1", "object": "file", "bytes": 1, "created_at": 1, "purpose": "assistants"}


def _zip(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", method) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


PACKED: dict[str, Callable[[bytes], bytes]] = {
    "gzip": gzip.compress,
    "bzip2": bz2.compress,
    "xz": lzma.compress,
    "zlib": zlib.compress,  # zlib.compress's stream, where the part's content starts
    "zip": lambda data: _zip({"config/.env": data}),
    "zip in gzip": lambda data: gzip.compress(_zip({"config/.env": data})),
    "docx": lambda data: _zip({"word/document.xml": b"<w:t>" + data + b"</w:t>"}),
}


class _Files(Handler):
    """The files endpoint: an upload answers :data:`UPLOADED`, a download :attr:`CONTENT`."""

    CONTENT: ClassVar[bytes] = b""
    seen: ClassVar[list[str]] = []

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["content-length"]))
        self.seen.append(self.path)
        self.answer_json(UPLOADED)

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("content-type", "application/zip")
        self.send_header("content-length", str(len(self.CONTENT)))
        self.end_headers()
        self.wfile.write(self.CONTENT)


@pytest.fixture
def files() -> Iterator[str]:
    _Files.seen.clear()
    with serving(_Files) as base:
        yield base


def _openai(base: str, store: Path, **options: Any) -> Any:
    http = httpx2_client(store, **options)
    return openai.OpenAI(api_key="sk-test", base_url=f"{base}/v1", max_retries=0, http_client=http)


def _upload(client: Any, name: str, content: bytes) -> str:
    return str(client.files.create(file=(name, content), purpose="assistants").id)


def test_a_body_compressed_with_zlib_and_no_label_is_read(tmp_path: Path, files: str) -> None:
    # stored as base64 with the key in it: zlib.compress's stream has no signature
    store = tmp_path / "z.jsonl"
    headers = {"content-type": "application/octet-stream"}
    with (
        httpx2_client(store, "record-missing", approve_live=True) as http,
        pytest.raises(SecretInFixtureError, match=r"Anthropic API key \(in zlib data in a"),
    ):
        http.post(f"{files}/v1/upload", content=zlib.compress(ENV), headers=headers)
    assert _Files.seen == [] and not store.exists()


@pytest.mark.parametrize("packing", list(PACKED))
def test_a_key_in_a_compressed_upload_is_refused_before_it_is_sent(
    tmp_path: Path, files: str, packing: str
) -> None:
    store = tmp_path / "up.jsonl"
    with (
        _openai(files, store, mode="record-missing", approve_live=True) as client,
        pytest.raises(SecretInFixtureError) as caught,
    ):
        _upload(client, "config.bin", PACKED[packing](ENV))
    message = str(caught.value)
    assert "Anthropic API key (in " in message and "found at request.base64" in message
    assert "multipart part 'file' (config.bin)" in message
    assert _Files.seen == [] and not store.exists()


def test_a_clean_compressed_upload_records_replays_and_verifies(tmp_path: Path, files: str) -> None:
    store = tmp_path / "up.jsonl"
    content = gzip.compress(_zip({"a.txt": CLEAN, "b.txt": CLEAN}))
    with _openai(files, store, mode="record-missing", approve_live=True) as client:
        assert _upload(client, "config.gz", content) == "file-1"
    assert verify_store(store) == (1, [])
    with block_network(), _openai("http://127.0.0.1:9", store) as client:
        assert _upload(client, "config.gz", content) == "file-1"


def test_a_compressed_download_holding_a_key_is_refused_and_verify_finds_one_stored(
    tmp_path: Path, files: str
) -> None:
    store = tmp_path / "down.jsonl"
    _Files.CONTENT = _zip({"config/.env": ENV})
    with (
        _openai(files, store, mode="record-missing", approve_live=True) as client,
        pytest.raises(SecretInFixtureError, match=r"zip member 'config/\.env'.*response\.base64"),
    ):
        client.files.content("file-1").read()
    assert not store.exists()
    _Files.CONTENT = _zip({"config/.env": CLEAN})
    with _openai(files, store, mode="record-missing", approve_live=True) as client:
        client.files.content("file-1").read()
    assert verify_store(store) == (1, [])
    fixture = json.loads(store.read_text())  # a hand edit, or a store written before
    fixture["response"]["base64"] = base64.b64encode(_zip({"config/.env": ENV})).decode()
    store.write_text(json.dumps(fixture) + "\n")
    problems = [str(problem) for problem in verify_store(store)[1]]
    assert len(problems) == 1
    assert "Anthropic API key (in zip member 'config/.env' in a base64 body)" in problems[0]
    assert "response.base64" in problems[0]


SMALLER_BUDGET = MAX_EXPANDED >> 4
"""The budget of the bomb's test: 4 MiB, read the same way as the 64 MiB, at a sixteenth
of the bytes."""


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (
            lzma.compress(b"\0" * (SMALLER_BUDGET + 1), preset=0),
            f"xz data of multipart part 'file' (data.bin) over {SMALLER_BUDGET >> 20} MiB",
        ),
        (_zip({"data.csv": CLEAN}, zipfile.ZIP_LZMA), "compressed with LZMA"),
    ],
    ids=["bomb", "lzma member"],
)
def test_compressed_data_the_scan_cannot_read_whole_is_refused_naming_it(
    tmp_path: Path, files: str, content: bytes, said: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(secret_compressed, "MAX_EXPANDED", SMALLER_BUDGET)
    monkeypatch.setattr(secret_scan, "Budget", functools.partial(Budget, left=SMALLER_BUDGET))
    store = tmp_path / "up.jsonl"
    with (
        _openai(files, store, mode="record-missing", approve_live=True) as client,
        pytest.raises(SecretInFixtureError) as caught,
    ):
        _upload(client, "data.bin", content)
    assert said in str(caught.value) and "request.base64" in str(caught.value)
    assert _Files.seen == [] and not store.exists()


def _document(data: bytes) -> dict[str, Any]:
    """``data`` sent in base64 as a PDF document, a PDF's header put before it: the
    simulator refuses, as the API does, a PDF document whose data is no PDF."""
    source = {
        "type": "base64",
        "media_type": "application/pdf",
        "data": base64.b64encode(b"%PDF-1.7\n" + data).decode(),
    }
    return {"role": "user", "content": [{"type": "document", "source": source}]}


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_key_in_a_base64_docx_document_is_refused_and_a_clean_one_recorded(
    tmp_path: Path,
) -> None:
    refusal, problems = refused_then_stored_by_hand(
        tmp_path / "docs.jsonl",
        _document(PACKED["docx"](ENV)),
        _document(PACKED["docx"](CLEAN)),
        lambda message: message["content"][0]["source"]["data"],
    )
    assert "Anthropic API key (in zip member 'word/document.xml' in base64 text)" in refusal
    assert "request.body.messages[0].content[0].source.data" in refusal
    assert any("zip member 'word/document.xml'" in problem for problem in problems), problems


SHAPELESS = b"SECRET_TOKEN=q8Zr2LxV9mT4wK7pB1nC6dH3Yw5Ej0Fs\n"
PICTURE = bytes(range(256)) * 8


@pytest.mark.parametrize(
    ("data", "named"),
    [
        (
            _zip({"logo.png": PICTURE, "config/.env": SHAPELESS}, zipfile.ZIP_STORED),
            "(in zip member 'config/.env' in base64 text)",
        ),
        (PICTURE + b" " + KEY.encode() + b" " + PICTURE, "Anthropic API key (in binary base64"),
    ],
    ids=["stored zip member", "binary file"],
)
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_key_in_a_stored_zip_member_or_a_binary_document_is_refused(
    tmp_path: Path, data: bytes, named: str
) -> None:
    store = tmp_path / "docs.jsonl"
    with Simulator(behavior="echo") as sim:
        http = httpx2_client(store, mode="record-missing", approve_live=True)
        with anthropic.Anthropic(api_key="sk-sim", base_url=sim.url, http_client=http) as client:
            with pytest.raises(SecretInFixtureError, match=r"source\.data") as caught:
                client.messages.create(model="m", max_tokens=16, messages=[_document(data)])
            client.messages.create(model="m", max_tokens=16, messages=[_document(PICTURE)])
    assert named in str(caught.value)
    assert verify_store(store) == (1, [])


def test_an_upload_kept_as_a_base64_body_is_decompressed_once() -> None:
    bound = 1 << 16  # a bound of 64 KiB reads as 64 MiB does, a thousand times faster
    clean = (CLEAN * (bound // len(CLEAN)))[: bound * 3 // 4]
    part = b'--b\r\ncontent-disposition: form-data; name="file"; filename="x.gz"\r\n\r\n'
    body = base64.b64encode(part + gzip.compress(clean) + b"\r\n--b--\r\n").decode()
    budget = Budget(bound)
    assert detect_in_text(body, "base64", encoded=True, budget=budget) is None
    assert budget.left == bound - len(clean) - TRY_COST


BOUND = 1 << 16
"""A bound of 64 KiB reads as 64 MiB does, a thousand times faster."""


def _gzip_base64(size: int) -> str:
    return base64.b64encode(gzip.compress((CLEAN * (size // len(CLEAN) + 1))[:size])).decode()


def _stream(*data: str) -> dict[str, Any]:
    """A Responses API stream of audio deltas (base64 a client joins) holding ``data``."""
    events = [{"type": "response.audio.delta", "item_id": "a", "delta": d} for d in data]
    return {"status": 200, "events": [{"data": json.dumps(event)} for event in events]}


def _split(size: int) -> dict[str, Any]:
    """A stream of the gzip of ``size`` clean bytes, cut just after its header: no event
    holds the data alone."""
    text = _gzip_base64(size)
    return _stream(text[:64], text[64:])


def _findings(fixture: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f.path, f.detector) for f in find_fixture_secrets(fixture, budget=Budget(BOUND))]


@pytest.mark.parametrize(
    ("fixture", "where"),
    [
        ({"request": {"base64": _gzip_base64(40_000)}, "response": _split(41_000)}, "response"),
        ({"request": {}, "responses": [_split(40_000), _split(41_000)]}, "responses[1]"),
    ],
    ids=["a request and a stream", "two streams"],
)
def test_the_bound_holds_for_a_fixture_whatever_holds_its_data(
    fixture: dict[str, Any], where: str
) -> None:
    [(path, detector)] = _findings(fixture)
    assert path == f"{where}.events[0..1].data"
    assert detector.startswith("gzip data over 64 MiB once decompressed")


def test_a_stream_event_read_alone_and_joined_costs_the_bound_once() -> None:
    assert _findings({"request": {}, "response": _stream(_gzip_base64(40_000))}) == []


def test_data_repeated_in_a_fixture_is_read_a_few_times_within_the_bound() -> None:
    source = {"type": "base64", "media_type": "application/gzip", "data": _gzip_base64(40_000)}
    copies = [{"type": "document", "source": source}] * (FREE_READS + 2)
    for count in range(1, FREE_READS + 2):
        assert _findings({"request": {"content": copies[:count]}, "response": {}}) == []
    [(path, detector)] = _findings({"request": {"content": copies}, "response": {}})
    assert path == f"request.content[{FREE_READS + 1}].source.data"
    assert detector.startswith("gzip data over 64 MiB once decompressed")
