"""Public data that looks like a key is no secret. A certificate or a public key written
as PEM (a tool result with a server's certificate, a prompt asking about a public key) is
recorded, where each 64-character line of its base64 was refused as a free-standing
token; a private key's body under such a label is still refused. A hash written after the
word ``digest`` is no credential after an auth scheme, a wheel's RECORD hash no token, a
link whose path is words no token, and an author's e-mail address, a tokenizer's name and
source code calling a name (``credential = DefaultAzureCredential()``) no credential, and a
placeholder password in a URL of documentation (``user:<password>@``) no password."""

from __future__ import annotations

import base64
import json
import random

import pytest

from replaygate.sanitize.secret_scan import find_fixture_secrets

CERTIFICATE = """-----BEGIN CERTIFICATE-----
MIIBgzCCASmgAwIBAgIUfwa59jkdYqe7z3EVbo3NeVModl0wCgYIKoZIzj0EAwIw
FzEVMBMGA1UEAwwMZXhhbXBsZS50ZXN0MB4XDTI2MTIwNzIwMzAxN1oXDTM2MTIw
NDIwMzAxN1owFzEVMBMGA1UEAwwMZXhhbXBsZS50ZXN0MFkwEwYHKoZIzj0CAQYI
KoZIzj0DAQcDQgAEW9PF78i4HVOcM5AE2OzoIU57P97GZj7c4gl2d/FaEmEkj1Rh
FECd9YqMyVsumOvJb3nDJbez6i6VnfQ9b5UrxKNTMFEwHQYDVR0OBBYEFFC9sHVc
eVa20atOsGu1jL38nAWcMB8GA1UdIwQYMBaAFFC9sHVceVa20atOsGu1jL38nAWc
MA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSAAwRQIhAOehvrnkuWCh0Eg3
/Q9vAIHQIwFFjK+jChiaR60JtGj7AiAgwJCnQuKUxxqO+vMMqMtHVhkJmGQZ7mSQ
QRMl1TQr6g==
-----END CERTIFICATE-----
"""
PUBLIC_KEY = """-----BEGIN PUBLIC KEY-----
MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEW9PF78i4HVOcM5AE2OzoIU57P97G
Zj7c4gl2d/FaEmEkj1RhFECd9YqMyVsumOvJb3nDJbez6i6VnfQ9b5UrxA==
-----END PUBLIC KEY-----
"""
_RANDOM = random.Random(7)


def _der(tag: int, content: bytes) -> bytes:
    size = len(content)
    length = bytes([size]) if size < 0x80 else bytes([0x82]) + size.to_bytes(2, "big")
    return bytes([tag]) + length + content


def _integer(size: int) -> bytes:
    return _der(0x02, bytes([0x00, 0xC1]) + _RANDOM.randbytes(size))


def _pem(label: str, der: bytes) -> str:
    body = base64.b64encode(der).decode()
    lines = "\n".join(body[i : i + 64] for i in range(0, len(body), 64))
    return f"-----BEGIN {label}-----\n{lines}\n-----END {label}-----\n"


RSA_PUBLIC = _pem("RSA PUBLIC KEY", _der(0x30, _integer(255) + _der(0x02, b"\x01\x00\x01")))
PKCS1_PRIVATE = _der(0x30, _der(0x02, b"\x00") + b"".join(_integer(127) for _ in range(8)))


def findings(text: str) -> list[tuple[str, str]]:
    found = find_fixture_secrets({"request": {"body": {"content": text}}, "response": {}})
    return [(f.path, f.detector) for f in found]


@pytest.mark.parametrize("pem", [CERTIFICATE, PUBLIC_KEY, RSA_PUBLIC, CERTIFICATE + PUBLIC_KEY])
def test_a_certificate_or_public_key_is_no_secret(pem: str) -> None:
    assert findings(f"The server sent:\n{pem}") == []
    assert findings(json.dumps({"result": pem})) == []  # JSON held as text
    assert findings(pem.replace("\n", "\\n")) == []  # a .env file's one line


def test_a_key_beside_one_or_a_private_key_under_its_label_is_still_refused() -> None:
    free = "q8Zr2LxV9mT4wK7pB1nC6dH3" + "Yw5Ej0Fs"
    assert findings(f"{CERTIFICATE}\n{free}") == [("request.body.content", "high-entropy token")]
    for label in ("CERTIFICATE", "RSA PUBLIC KEY"):
        assert findings(_pem(label, PKCS1_PRIVATE)) == [
            ("request.body.content", "high-entropy token")
        ]


def test_a_hash_after_the_word_digest_is_no_credential() -> None:
    sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    assert findings(f"The SHA-256 digest {sha256} matches the release") == []
    assert findings(f"DIGEST {sha256}") == []
    generic = "Zr2LxV9mT4wK7pB1nC6dH3"  # what follows the scheme in a header: still refused
    assert findings(f"Authorization: Digest {generic}") == [
        ("request.body.content", "credential after an auth scheme")
    ]
    assert findings(f"Authorization: Token {sha256}") == [
        ("request.body.content", "credential after an auth scheme")
    ]


def test_the_hashes_of_a_wheels_record_are_no_secret() -> None:
    record = (
        "requests/api.py,sha256=_Yn-vdKuJ0lSxkB2YF8gWwxm3lzWqP8XhN4nqvS3J2Q,6449\n"
        "requests/__init__.py,sha256=XgPR8Hd2yJwXaQeP1vV0a0zuqD1Fd2jHc7uK9aZx3b4,5072\n"
    )
    assert findings(record) == []
    key = "Zk3Qm9Xr2Lp7Vw4Tn8Bc5Hy1Jd6Fs0Ga2UeQx9Wv1Tb"  # 43 characters, no sha256= before
    found = findings(f"requests/api.py,{key},6449")
    assert found == [("request.body.content", "high-entropy token")]


@pytest.mark.parametrize(
    "link",
    [
        "http://www.apache.org/licenses/LICENSE-2.0",
        "https://github.com/pydantic/httpx2/blob/main/src/httpx2/CHANGELOG.md",
        "https://github.com/advisories/GHSA-vqfr-h8mv-ghfj",
        "https://github.com/Yelp/detect-secrets/archive/1.5.0.tar.gz",
    ],
)
def test_a_link_of_words_is_no_secret_and_a_key_in_a_link_is_one(link: str) -> None:
    assert findings(f"Licensed under the Apache License, see {link} for details") == []
    key = "q8Zr2LxV9mT4wK7pB1nC6dH3" + "Yw5Ej0Fs4kPq"
    for leaked in (f"{link}/{key}/send", f"https://{key}.example.com/x", f"{link}?x={key}"):
        assert findings(leaked) == [("request.body.content", "high-entropy token")]


def test_an_author_is_no_credential_name() -> None:
    assert findings("Author-email: andrew.svetlov@gmail.com") == []
    assert findings("setup(name='yarl', author_email='andrew.svetlov@gmail.com')") == []
    token = "q8Zr2LxV9mT4wK7pB1nC6dH3"
    for name in ("auth", "authorization", "auth_token", "author_token"):
        assert findings(f"{name}={token}") == [
            ("request.body.content", "high-entropy value in an auth-like field")
        ]


@pytest.mark.parametrize(
    "code",
    [
        "credential = DefaultAzureCredential()",
        "self.session = aiohttp.ClientSession(timeout=timeout)",
        "secret = client.get_secret_value(SecretId='prod/db')",
        "tokenizer = AutoTokenizer.from_pretrained(model_name)",
        "tokenizer_name: sentence-transformers/all-MiniLM-L6-v2",
        "sessions_by_id = self.manifest.all_sessions_by_signature",
        "token_normalize_func = parent.token_normalize_func",
        "self.token_normalize_func = token_normalize_func",
        "self.password = self.distribution.password",
    ],
)
def test_source_code_a_tool_read_is_no_credential(code: str) -> None:
    assert findings(f"def setup():\n    {code}\n") == []


def test_a_random_value_before_a_parenthesis_is_still_one() -> None:
    token = "q8Zr2LxV9mT4wK7pB1nC6dH3"
    for text in (
        f"api_key = {token}(prod)",
        f"tokenizer_secret={token}",
        f"key={token[:9]}.x_{token}",
    ):
        assert findings(text) == [
            ("request.body.content", "high-entropy value in an auth-like field")
        ]


@pytest.mark.parametrize(
    ("url", "pw"),
    [
        ("export HTTPS_PROXY='http://username:password@proxy_uri:port'", "password"),
        ('proxy_url="socks5h://<username>:<password>@proxy-host"', "<password>"),
        ("DATABASE_URL=postgresql://user:your_password@localhost:5432/db", "your_password"),
        ("REDIS_URL=redis://:${REDIS_PASSWORD}@cache:6379", "${REDIS_PASSWORD}"),
        ("amqp://guest:guest@localhost:5672/", ":guest@"),
    ],
)
def test_a_placeholder_password_in_a_url_is_no_secret(url: str, pw: str) -> None:
    assert findings(url) == []
    real = url.replace(pw, ":Zq8Xv7Wm2Kp9@" if pw.startswith(":") else "Zq8Xv7Wm2Kp9")
    assert findings(real) == [("request.body.content", "password in URL")]


def test_a_file_path_of_names_is_no_secret_and_a_file_named_after_a_key_is() -> None:
    for path in (
        "src/pip/_vendor/urllib3/LICENSE.txt",
        "numpy/_core/src/multiarray/dragon4_LICENSE.txt",
    ):
        assert findings(f"License-File: {path}") == []
    key = "q8Zr2LxV9mT4wK7pB1nC6dH3" + "Yw5Ej0Fs4kPq"
    assert findings(f"saved to uploads/{key}.json") == [
        ("request.body.content", "high-entropy token")
    ]


def test_an_indented_list_in_code_is_no_table_and_a_table_still_is() -> None:
    imports = (
        "from .utils import (\n    get_netrc_auth,\n    requote_uri,\n"
        "    should_bypass_proxies,  # type: ignore[reportUnusedImport]\n)\n"
    )
    assert findings(imports) == []
    token = "q8Zr2LxV9mT4wK7pB1nC6dH3"
    for table in (f"user,password\nalice,{token}\n", f"password,\n{token},\n"):
        assert findings(table) == [
            ("request.body.content", "high-entropy value in an auth-like field")
        ]
