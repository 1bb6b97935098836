"""The secrets policy: detectors, the fast path that must never miss, and split stream text."""

from __future__ import annotations

import re
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replaygate.errors import SecretInFixtureError
from replaygate.sanitize import refuse_secrets
from replaygate.sanitize.secret_entropy import CONTEXT as HIGH_ENTROPY
from replaygate.sanitize.secret_rules import DETECTORS
from replaygate.sanitize.secret_scan import (
    SecretFinding,
    _leaves,
    detect_in_text,
    encoded_leaf,
    find_fixture_secrets,
    find_secrets,
    find_stream_secrets,
    may_hold_secret,
)
from test_secret_corpus import FAMILIES
from unicode_text import unicode_text

GITHUB = "ghp_" + "Zq8Xv7Wm2Kp9Rt4Ly6Hb8Nc3Jd5Fg1Ss0Aa9b"
NEW_POSITIVES = [
    ("Anthropic API key", "sk-ant-admin01-" + "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7"),
    ("PEM private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEA"),
    ("PEM private key", "-----BEGIN PGP PRIVATE KEY BLOCK-----"),
    ("PEM private key", "-----BEGIN ENCRYPTED PRIVATE KEY-----"),
    ("Slack token", "xoxb-" + "2048-1024-AbCdEfGhIjKlMn"),
    ("Google API key", "AIza" + "SyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW"),
    ("Stripe secret key", "sk_live_" + "51H8q2kLmN0pQrStUvWxYz"),
    (
        "JSON web token",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ),
]


@pytest.mark.parametrize(("detector", "text"), NEW_POSITIVES)
def test_the_added_detectors_find_their_secret(detector: str, text: str) -> None:
    assert detect_in_text(f"value: {text} ok") == detector
    assert find_secrets({"a": [{"b": text}]}) == [SecretFinding("a[0].b", detector)]


@pytest.mark.parametrize(
    "text",
    [
        "-----BEGIN PUBLIC KEY-----",
        "xox",
        "AIza short",
        "sk_test_51H8q2kLmN0pQrStUvWxYz",  # a test key is not a live one
        "eyJhbGciOi only one part",
        'the base64 of {" is eyJ',
    ],
)
def test_lookalikes_are_not_secrets(text: str) -> None:
    assert detect_in_text(text) is None


def test_every_detector_declares_anchors_its_matches_contain() -> None:
    samples = [text for _, text in NEW_POSITIVES] + list(FAMILIES.values())
    for detector in DETECTORS:
        folded = bool(detector.pattern.flags & re.IGNORECASE)
        for text in samples:
            match = detector.pattern.search(text)
            if match is not None:
                found = match.group(0).lower() if folded else match.group(0)
                anchors = [a.lower() if folded else a for a in detector.anchors]
                assert any(anchor in found for anchor in anchors), detector.name


def _full_walk(value: Any) -> list[SecretFinding]:
    """The scan without its fast path: every leaf through every detector."""
    return [
        SecretFinding(path, name)
        for path, field, text, encoded in _leaves(value, "", "")
        if (name := detect_in_text(text, field, encoded=encoded_leaf(path, encoded))) is not None
    ]


_secretish = st.sampled_from(
    [
        "AKIAIOSFODNN7EXAMPLE",
        GITHUB,
        "q8Zr2LxV9mT4wK7pB1nC6dH3",
        "Bearer abcdefghijklmnop1234",
        "plain",
    ]
)
_text = st.one_of(
    unicode_text(max_size=30),
    _secretish,
    st.builds(lambda a, b: a + b, unicode_text(max_size=5), _secretish),
)
_keys = st.one_of(
    st.sampled_from(["x-api-key", "token", "max_tokens", "text", "session_id", "id"]),
    unicode_text(max_size=8),
)
_json = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), _text),
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(_keys, children, max_size=4)
    ),
    max_leaves=20,
)


@settings(deadline=None)
@given(_json)
def test_the_fast_path_never_misses_what_the_full_walk_finds(value: Any) -> None:
    assert find_secrets(value) == _full_walk(value)
    assert find_secrets({"request": value, "response": [value]}) == _full_walk(
        {"request": value, "response": [value]}
    )


def test_a_clean_part_remembered_does_not_hide_a_secret_elsewhere() -> None:
    tools = [{"name": f"tool{i}", "description": "d" * 80} for i in range(8)]
    clean = {"request": {"tools": tools, "messages": [{"content": "hi"}]}}
    assert not may_hold_secret(clean)
    leaking = {"request": {"tools": tools, "messages": [{"content": GITHUB}]}}
    assert find_secrets(leaking) == [SecretFinding("request.messages[0].content", "GitHub token")]
    tools[3]["description"] = GITHUB  # the same shape, one byte different: scanned again
    assert find_secrets(clean) == [SecretFinding("request.tools[3].description", "GitHub token")]


def _events(*texts: str) -> list[dict[str, str]]:
    out = [{"event": "message_start", "data": '{"type":"message_start","message":{"id":"msg_1"}}'}]
    for text in texts:
        delta = {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": text},
        }
        out.append({"event": "content_block_delta", "data": orjson.dumps(delta).decode()})
    out.append({"event": "message_stop", "data": '{"type":"message_stop"}'})
    return out


def test_a_secret_split_across_stream_events_is_found() -> None:
    events = _events("Use ", GITHUB[:10], GITHUB[10:25], GITHUB[25:] + " now")
    assert find_secrets({"events": events}) == []  # no single event holds it
    assert find_stream_secrets(events, "response.events") == [
        SecretFinding("response.events[1..4].data", "GitHub token")
    ]
    fixture = {"key": "k", "request": {}, "responses": [None, {"events": events}]}
    assert find_fixture_secrets(fixture) == [
        SecretFinding("responses[1].events[1..4].data", "GitHub token")
    ]
    openai_chunks = [
        {"data": orjson.dumps({"choices": [{"index": 0, "delta": {"content": part}}]}).decode()}
        for part in ("key: ", GITHUB[:20], GITHUB[20:])
    ] + [{"data": "[DONE]"}]
    assert find_stream_secrets(openai_chunks, "e") == [
        SecretFinding("e[0..2].data", "GitHub token")
    ]
    assert find_stream_secrets(_events("all ", "clean"), "e") == []
    assert find_stream_secrets("not events", "e") == []


def test_refuse_secrets_names_the_first_finding_and_lets_clean_fixtures_pass() -> None:
    refuse_secrets({"messages": []}, {"events": _events("fine")})
    with pytest.raises(SecretInFixtureError) as caught:
        refuse_secrets({"headers": {"x-api-key": "q8Zr2LxV9mT4wK7pB1nC6dH3"}}, {"body": None})
    assert caught.value.path == "request.headers.x-api-key"
    assert caught.value.detector == HIGH_ENTROPY
    assert str(caught.value) == (
        "refusing to write fixture: high-entropy value in an auth-like field found at "
        "request.headers.x-api-key; nothing was written. Add a sanitize rule or remove the value."
    )


def test_a_token_found_by_its_look_alone_names_known_safe_as_the_way_out() -> None:
    with pytest.raises(SecretInFixtureError) as caught:
        refuse_secrets({"body": {"model": "tenant/Zr2LxV9mT4wK7pB1nC6dH3qW8eR5tY0uI"}}, {})
    assert str(caught.value).endswith(
        "Add a sanitize rule or remove the value. If it is no secret (a name, an id), list "
        "it in known_safe of [tool.replaygate.sanitize] in pyproject.toml."
    )


def test_a_secret_under_a_key_that_is_no_plain_name_is_named_on_one_line() -> None:
    # "AWS access key id at response.x\ny": the problem of `replaygate verify` took two
    # lines, and "a.b" named a field c of b of a
    fixture = {
        "key": "k",
        "request": {},
        "response": {"x\ny": "AKIAIOSFODNN7EXAMPL1", "a.b": {"c": "AKIAIOSFODNN7EXAMPL2"}},
    }
    assert [f.path for f in find_fixture_secrets(fixture)] == [
        'response["x\\ny"]',
        'response["a.b"].c',
    ]


TOKEN = "Xy7Qa9Lm2Pz8Rt4Vn6Bc1Dk5Fg3Hj0WsZ"
"""A free-standing high-entropy token."""


def test_encoded_data_is_told_by_where_it_stands_not_by_its_name() -> None:
    # an envelope's binary body, an embeddings answer's vector: encoded data
    assert find_secrets({"request": {"base64": TOKEN}}) == []
    assert find_secrets({"responses": [{"body": {"data": [{"embedding": TOKEN}]}}]}) == []
    assert find_secrets({"body": {"data": [{"embedding": TOKEN}]}}) == []  # a response alone
    # fields of those names anywhere else are text
    user = {"request": {"body": {"metadata": {"base64": TOKEN, "embedding": TOKEN}}}}
    assert [finding.path for finding in find_secrets(user)] == [
        "request.body.metadata.base64",
        "request.body.metadata.embedding",
    ]
    sent = {"request": {"body": {"data": [{"embedding": TOKEN}]}}}
    assert [finding.path for finding in find_secrets(sent)] == ["request.body.data[0].embedding"]
