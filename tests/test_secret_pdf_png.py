"""A key written as one string in a PDF's page text (a FlateDecode stream: zlib) or in the
compressed text chunk of a PNG (``zTXt``, a compressed ``iTXt``) is found: refused when
uploaded with ``files.create`` or sent as a base64 document or image, and found by verify
in a stored one. An image's pixels in a PDF are not read; a PDF whose other streams pass
the bound of decompressed data is refused, as other compressed data is."""

from __future__ import annotations

import base64
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

from echo_recording import refused_then_stored_by_hand
from loopback import Handler, serving
from replaygate.errors import SecretInFixtureError
from replaygate.http import httpx2_client
from replaygate.hygiene.verify import verify_store
from replaygate.sanitize.secret_compressed import Budget
from replaygate.sanitize.secret_scan import find_fixture_secrets
from replaygate.sim import Simulator
from sdks import anthropic, openai

KEY = "sk-ant-api03-" + "Q7xk2LmN9pRt4VwYz8Ab3Cd6Ef1Gh5Ij0Kl2Mn4Op6Qr8St0Uv2Wx4Yz6Ab8Cd0Ef2Gh4"
LINE = f"ANTHROPIC_API_KEY={KEY}"
CLEAN = "ANTHROPIC_API_KEY is read from the environment"
UPLOADED = {"id": "file-1", "object": "file", "bytes": 1, "created_at": 1, "purpose": "user_data"}


def pdf(text: str, image: bytes = b"", drawing: str = "") -> bytes:
    """A one-page PDF showing ``text`` then ``drawing`` (path operators), its content stream
    FlateDecode; with an image XObject of ``image`` (FlateDecode pixels) when given."""
    content = zlib.compress(f"BT /F1 12 Tf 72 712 Td ({text}) Tj ET\n{drawing}".encode())
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> /ProcSet [/PDF /Text /ImageC] >> >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (len(content), content),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    if image:
        pixels = zlib.compress(image)
        objects.append(
            b"<< /Type /XObject /Subtype /Image /Width 1 /Height 1 /BitsPerComponent 8"
            b" /ColorSpace /DeviceRGB /Length %d /Filter /FlateDecode >>\nstream\r\n%s\nendstream"
            % (len(pixels), pixels)
        )
    out = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"
    for number, body in enumerate(objects, 1):
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    return out + b"trailer\n<< /Size %d /Root 1 0 R >>\n%%%%EOF\n" % (len(objects) + 1)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png(kind: str, text: str) -> bytes:
    """A 1x1 PNG whose ``Comment`` holds ``text`` in a compressed chunk of ``kind``."""
    packed = zlib.compress(text.encode())
    chunk = (
        _chunk(b"zTXt", b"Comment\0\0" + packed)
        if kind == "zTXt"
        else _chunk(b"iTXt", b"Comment\0\1\0en\0\0" + packed)
    )
    header = _chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
    pixels = _chunk(b"IDAT", zlib.compress(b"\0\0\0\0"))
    return b"\x89PNG\r\n\x1a\n" + header + chunk + pixels + _chunk(b"IEND", b"")


class _Files(Handler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["content-length"]))
        self.answer_json(UPLOADED)


FILES = {
    "pdf": (pdf, "a PDF's FlateDecode stream", "report.pdf"),
    "png zTXt": (lambda text: png("zTXt", text), "a PNG's zTXt text", "logo.png"),
    "png iTXt": (lambda text: png("iTXt", text), "a PNG's iTXt text", "logo.png"),
}


@pytest.mark.parametrize("kind", list(FILES))
def test_a_key_in_an_uploaded_pdf_or_png_is_refused_and_a_clean_one_recorded(
    tmp_path: Path, kind: str
) -> None:
    make, named, name = FILES[kind]
    store = tmp_path / "up.jsonl"
    with serving(_Files) as base:
        http = httpx2_client(store, mode="record-missing", approve_live=True)
        with openai.OpenAI(
            api_key="sk-test", base_url=f"{base}/v1", max_retries=0, http_client=http
        ) as client:
            with pytest.raises(SecretInFixtureError) as caught:
                client.files.create(file=(name, make(LINE)), purpose="user_data")
            client.files.create(file=(name, make(CLEAN)), purpose="user_data")
    assert f"Anthropic API key (in {named} of multipart part 'file' ({name})" in str(caught.value)
    assert "request.base64" in str(caught.value)
    assert verify_store(store) == (1, [])


def _message(data: bytes, media_type: str) -> dict[str, Any]:
    kind = "document" if media_type == "application/pdf" else "image"
    source = {"type": "base64", "media_type": media_type, "data": base64.b64encode(data).decode()}
    return {"role": "user", "content": [{"type": kind, "source": source}]}


@pytest.mark.parametrize(
    ("kind", "media_type"),
    [("pdf", "application/pdf"), ("png zTXt", "image/png"), ("png iTXt", "image/png")],
)
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_key_in_a_base64_pdf_or_png_is_refused_and_verify_finds_one_stored(
    tmp_path: Path, kind: str, media_type: str
) -> None:
    make, named, _ = FILES[kind]
    refusal, problems = refused_then_stored_by_hand(
        tmp_path / "docs.jsonl",
        _message(make(LINE), media_type),
        _message(make(CLEAN), media_type),
        lambda message: message["content"][0]["source"]["data"],
    )
    assert f"Anthropic API key (in {named} in base64 text)" in refusal
    assert "request.body.messages[0].content[0].source.data" in refusal
    assert any(f"in {named} in base64 text" in problem for problem in problems), problems


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_the_pixels_of_an_image_in_a_pdf_are_not_read(tmp_path: Path) -> None:
    """64 MiB of pixels would be over the bound of decompressed data read: an image holds
    no text, and the PDF records."""
    document = pdf(CLEAN, image=bytes(64 * 2**16 + 1))
    store = tmp_path / "docs.jsonl"
    with Simulator(behavior="echo") as sim:
        http = httpx2_client(store, mode="record-missing", approve_live=True)
        with anthropic.Anthropic(api_key="sk-sim", base_url=sim.url, http_client=http) as client:
            message = _message(document, "application/pdf")
            client.messages.create(model="m", max_tokens=16, messages=[message])
    assert verify_store(store) == (1, [])


DRAWING = "".join(f"{i % 612} {i % 792} l\n" for i in range(20_000))
"""A vector drawing's path: about 190 KiB, inflated from a few KiB."""


def _found(document: bytes, budget: Budget, media_type: str = "application/pdf") -> list[str]:
    fixture = {"request": {"body": {"messages": [_message(document, media_type)]}}}
    return [finding.detector for finding in find_fixture_secrets(fixture, budget=budget)]


def _streams(
    *contents: bytes, images: tuple[int, ...] = (), header: bytes = b"%PDF-1.4\n"
) -> bytes:
    """A PDF (data after ``header``) of ``contents``, each a FlateDecode stream, those at
    ``images`` marked as an image's pixels."""
    out = header
    for number, content in enumerate(contents):
        packed = zlib.compress(content)
        marked = b" /Subtype /Image" if number in images else b""
        dictionary = b"<< /Length %d%s /Filter /FlateDecode >>" % (len(packed), marked)
        out += b"%d 0 obj\n%s\nstream\n%s\nendstream\nendobj\n" % (number, dictionary, packed)
    return out + b"trailer\n<< /Root 1 0 R >>\n%%EOF\n"


TEXT = f"BT ({LINE}) Tj ET".encode()
BLANK = b" " * 2**17
"""A stream of blanks the budget of these tests (:func:`_small`) does not hold."""


def _small() -> Budget:
    return Budget(left=2**16)


def test_a_pdf_inflating_past_the_budget_is_refused_but_for_its_images() -> None:
    """A PDF whose text streams are not all read within the bound of decompressed data is
    refused, saying what and what to do, as other compressed data is: a blank first stream
    hides no key in a later one; a stream marked as an image may stay unread."""
    over = "a PDF's FlateDecode stream over 64 MiB once decompressed"
    (refused,) = _found(pdf(CLEAN, drawing=DRAWING), _small())
    assert refused.startswith(over) and "record a smaller file" in refused, refused
    (refused,) = _found(_streams(BLANK, TEXT), _small())
    assert refused.startswith(over), refused
    assert _found(_streams(BLANK, TEXT), Budget()) == [
        "Anthropic API key (in a PDF's FlateDecode stream in base64 text)"
    ]
    assert _found(_streams(BLANK, CLEAN.encode(), images=(0,)), _small()) == []


def test_flate_data_in_what_is_no_pdf_is_read_whole_or_refused() -> None:
    """Only a PDF's streams marked as images are passed over: zlib data behind a
    FlateDecode marker in other data is read, an image's mark or not, and refused past the
    bound, as gzip is."""
    log = b"INFO ok\n" * 2**14 + LINE.encode()
    (refused,) = _found(_streams(log, header=b""), _small(), "text/plain")
    assert refused.startswith("FlateDecode data over 64 MiB"), refused
    found = _found(_streams(TEXT, images=(0,), header=b"%PDF?\n"), _small(), "text/plain")
    assert found == ["Anthropic API key (in FlateDecode data in base64 text)"]


def _multipart(*files: tuple[str, bytes]) -> list[str]:
    """What the scan finds in a multipart upload of ``files`` (name, content) kept as base64."""
    body = b"".join(
        b'--b\r\nContent-Disposition: form-data; name="file"; filename="%s"\r\n\r\n%s\r\n'
        % (name.encode(), content)
        for name, content in files
    )
    request = {"method": "POST", "path": "/v1/files"}
    request["base64"] = base64.b64encode(body + b"--b--\r\n").decode()
    fixture = {"request": request, "response": {"status": 200}}
    return [finding.detector for finding in find_fixture_secrets(fixture, budget=_small())]


def test_a_pdf_uploaded_beside_other_files_passes_over_its_own_images_only() -> None:
    image_of_text = _streams(TEXT, images=(0,), header=b"")
    assert _multipart(("a.pdf", _streams(BLANK, CLEAN.encode(), images=(0,)))) == []
    found = _multipart(("a.pdf", _streams(CLEAN.encode())), ("b.txt", image_of_text))
    assert found == [
        "Anthropic API key (in FlateDecode data of multipart part 'file' (b.txt) in a base64 body)"
    ]


def test_a_png_whose_first_chunk_is_text_is_an_image_read_for_the_token_families() -> None:
    """A diagram exported as PNG (diagrams.net) starts with a ``tEXt`` chunk holding its
    source, deflated and in base64: a high-entropy run that is no key, so the image records;
    a key in that chunk is still refused."""
    source = base64.b64encode(zlib.compress(bytes(range(256)) * 8)).decode()
    header = _chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))

    def drawing(note: str) -> bytes:
        text = _chunk(b"tEXt", f"mxfile\0<diagram>{source}</diagram>{note}".encode())
        return b"\x89PNG\r\n\x1a\n" + header + text + _chunk(b"IEND", b"")

    assert _found(drawing(CLEAN), Budget(), "image/png") == []
    assert _found(drawing(LINE), Budget(), "image/png") == [
        "Anthropic API key (in binary base64 text)"
    ]


def _encoding(entry: str = "") -> bytes:
    """A PDF font's encoding as a Type 1 font made by LaTeX has it, ``entry`` among its
    glyph names."""
    capitals = "/".join(chr(code) for code in range(ord("A"), ord("Z") + 1))
    glyphs = f"65/{capitals}/{entry}bracketleft/backslash/bracketright 95/underscore/quoteleft"
    return f"<< /Type /Encoding /Differences [2/fi/fl {glyphs}] >>".encode()


def test_a_font_encoding_of_glyph_names_passes_and_a_key_among_them_is_refused() -> None:
    """The glyph names of a ``/Differences`` array (``65/A/B/.../Z/bracketleft``) are no
    high-entropy token; a key or a random token written among them still is."""
    token = "Q7xk2LmN9pRt4VwYz8Ab3Cd6Ef1Gh5Ij0Kl2Mn4Op"
    assert _found(_streams(_encoding()), Budget()) == []
    assert _found(_streams(_encoding(f"{token}/")), Budget()) == [
        "high-entropy token (in a PDF's FlateDecode stream in base64 text)"
    ]
    assert _found(_streams(_encoding(f"{KEY}/")), Budget()) == [
        "Anthropic API key (in a PDF's FlateDecode stream in base64 text)"
    ]
