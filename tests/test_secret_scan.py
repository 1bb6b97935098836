"""Secret detectors: each one's positive and negative cases, and paths of findings."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import pytest

from replaygate.sanitize.secret_rules import DETECTORS
from replaygate.sanitize.secret_scan import SecretFinding, detect_in_text, find_secrets
from replaygate.sanitize.secret_shapes import real_shapes

POSITIVES = [
    ("Anthropic API key", "sk-ant-api03-" + "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7" + "-xyz"),
    ("OpenAI API key", "sk-proj-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"),
    ("OpenAI API key", "key sk-" + "T3BlbkFJ1a2b3c4d5e6f7g8h9i0jKLMNOPQRSTUVWX" + " here"),
    ("AWS access key id", "AKIAIOSFODNN7EXAMPLE"),
    ("GitHub token", "ghp_" + "a1b2c3d4e5f6a1b2c3d4e5f6a1b2c3d4e5f6"),
    ("GitHub token", "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"),
    ("bearer token", "Authorization: Bearer abcdefghijklmnop1234"),
    ("bearer token", "authorization: bearer abcdefghijklmnop1234"),
    ("PEM private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIE..."),
    ("PEM private key", "-----BEGIN PRIVATE KEY-----"),
    ("password in URL", "postgres://app:s3cretPassw0rd@db:5432/app"),
    ("password in URL", "REDIS_URL=redis://:s3cretPassw0rd@cache:6379/0"),  # no user
]


ECDSA_PUBLIC_KEY = (
    "AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBKHpW/HxggyvPJLm+Jqi6PVyhXdUM5Nr"
    "QVt0AhRkFwZGVDz2b2XkxCTjz5pUCSgEhEsTbZeohIHb9xLOL3oUI+A="
)


@pytest.mark.parametrize(("detector", "text"), POSITIVES)
def test_each_detector_finds_its_secret(detector: str, text: str) -> None:
    assert detect_in_text(text) == detector


@pytest.mark.parametrize(
    "text",
    [
        "What is RAG? 检索增强生成",
        "sk-ant-short",  # too short to be a key
        "sk-" + "abc",
        # hyphenated words are not keys, even after letters that end in "sk"
        "disk-encryption-configuration-management-notes",
        "task-retrieval-augmented-generation-and-evaluation",
        "AKIAIOSFODNN7EXAMPL",  # one character short
        "ghp_short",
        "Bearer short",
        "the bearer of bad news",
        "-----BEGIN PUBLIC KEY-----",
        "toolu_01A09q90qw90lq917835lq9",
        "msg_01XFDUDYJgAACzvnptvVoYEL",
        # a package's digest in an npm lockfile, a script's in a web page
        '"integrity": "sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+UOn31Hd4jl3CJmbq'
        'fxWchHrbYPuVSMtwXB9Cnw=="',
        '<script integrity="sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8'
        'wC">',
        # SSH public keys, as authorized_keys holds them
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl me@host",
        "ecdsa-sha2-nistp256 " + ECDSA_PUBLIC_KEY + " me@host",
        # a Go module's hash in go.sum
        "github.com/stretchr/testify v1.8.4 h1:CcVxjf3Q8PM0mHUKJCdn+eZZtm5yQwehR5yeSVQQcUk=",
    ],
)
def test_ordinary_text_is_not_a_secret(text: str) -> None:
    assert detect_in_text(text) is None


def test_a_key_glued_to_a_digest_or_a_public_key_is_still_refused() -> None:
    key = "Xq9vT2mLp8RzK4wN7bYc1FhJ3dGs6AeU0iOo"
    ed25519 = "AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"
    assert detect_in_text(f"ssh-ed25519 {ed25519}{key} me@host") == "high-entropy token"
    assert detect_in_text(f"sha512-{key}") == "high-entropy token"  # no digest's length
    assert detect_in_text(f"x v1.0.0 h1:{key}{key}") == "high-entropy token"
    # an ssh-agent's private key: the public key's fields and the private one after them
    fields = (b"ssh-ed25519", hashlib.sha256(b"a").digest(), hashlib.sha512(b"a").digest())
    blob = base64.b64encode(b"".join(len(f).to_bytes(4, "big") + f for f in fields)).decode()
    assert detect_in_text(blob, "private_key") == "high-entropy value in an auth-like field"


def test_high_entropy_values_count_only_in_auth_like_fields() -> None:
    token = "q8Zr2LxV9mT4wK7pB1nC6dH3"
    assert detect_in_text(token, "x-api-key") == "high-entropy value in an auth-like field"
    assert detect_in_text(token, "session_token") == "high-entropy value in an auth-like field"
    assert detect_in_text(token, "Authorization") == "high-entropy value in an auth-like field"
    assert detect_in_text(token, "doc_id") is None
    assert detect_in_text(token) is None
    # low entropy or prose in an auth-like field is fine
    assert detect_in_text("aaaaaaaaaaaaaaaaaaaaaaaa", "password") is None
    assert detect_in_text("not a secret at all, just words", "token") is None
    assert detect_in_text("short", "api_key") is None


def test_findings_name_the_path_of_every_leaf() -> None:
    value = {
        "request": {
            "headers": {"x-api-key": "q8Zr2LxV9mT4wK7pB1nC6dH3"},
            "messages": [{"content": [{"text": "hi"}, {"text": "AKIAIOSFODNN7EXAMPLE"}]}],
            "max_tokens": 1024,
        },
        "response": {"usage": {"input_tokens": 3}, "id": "msg_1"},
    }
    assert find_secrets(value) == [
        SecretFinding("request.headers.x-api-key", "high-entropy value in an auth-like field"),
        SecretFinding("request.messages[0].content[1].text", "AWS access key id"),
    ]
    assert find_secrets({"a": ["plain", 1, None, True]}) == []


def test_a_custom_detector_can_be_given() -> None:
    found = find_secrets({"a": {"b": "x"}}, lambda text, field: "custom" if text == "x" else None)
    assert found == [SecretFinding("a.b", "custom")]


@pytest.mark.parametrize("kind", ["run", "group", "session", "conversation"])
def test_the_agents_sdk_prompt_cache_keys_are_no_secret(tmp_path: Path, kind: str) -> None:
    # "agents-sdk:session:<hex>" read as a credential after "session:": no run of the SDK
    # with a session could be recorded
    from replaygate import Fixture, FixtureStore
    from replaygate.hygiene.verify import verify_store

    key = f"agents-sdk:{kind}:8dac46c3be64b694deac5db9409fe778"
    assert detect_in_text(key, "prompt_cache_key") is None
    request = {"model": "gpt-4o", "messages": [], "prompt_cache_key": key}
    store = tmp_path / "agents.jsonl"
    with FixtureStore.open(store) as opened:
        opened.put(Fixture.create(request, [{"choices": []}]))  # the writer's own scan
    assert verify_store(store, require_meta=False)[1] == []
    # the same value elsewhere in a text, after a credential name of its own, still counts
    assert detect_in_text(f"{key} session: 8dac46c3be64b694deac5db9409fe778", "note")


_UNBOUNDED = {"Slack webhook", "Azure storage key", "password in URL", "PEM private key"}
"""The rules whose match may follow a letter or digit (a URL's scheme, a PEM header...)."""


def test_a_token_is_taken_after_an_underscore_or_a_sign_not_after_a_letter_or_digit() -> None:
    """The token families start where no letter or digit precedes (``AWS_KEY_AKIA...`` is a
    key, ``xAKIA...`` is not): the shape of every family and anchor, glued after each."""
    rules = {detector.name: detector for detector in DETECTORS}
    checked = set()
    for name, shape in real_shapes():
        detector = rules.get(name)
        if detector is None or name in _UNBOUNDED or shape.startswith("whsec_"):
            continue
        assert next(detector.starts(shape)) == 0, shape
        for before in ("_", " ", "=", '"', "."):
            assert 1 in set(detector.starts(before + shape)), (before, shape)
        for before in ("a", "Z", "7"):
            assert 1 not in set(detector.starts(before + shape)), (before, shape)
        checked.add(name)
    assert checked == set(rules) - _UNBOUNDED
