"""A replay miss does not print a key the request carries: its diff shows the key's family,
a number and its length where the key stands (one key one number), so the change is still
seen."""

from __future__ import annotations

import base64
import functools
import gzip
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from replaygate.errors import FixtureMismatchError
from replaygate.http import Exchange, block_network, httpx2_client
from replaygate.sanitize import secret_compressed, secret_mask
from replaygate.sanitize.secret_compressed import MAX_EXPANDED, Budget
from replaygate.sanitize.secret_mask import masked_pair
from replaygate.sim import Simulator
from sdks import anthropic

GITHUB = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5b"
OTHER = "ghp_" + "Zz9yX8wV7uT6sR5qP4oN3mL2kJ1iH0gF9eD8c"
ANTHROPIC = (
    "sk-ant-api03-" + "Q7xk2LmN9pRt4VwYz8Ab3Cd6Ef1Gh5Ij0Kl2Mn4Op6Qr8St0Uv2Wx4Yz6Ab8Cd0Ef2Gh4"
)


Ask = Callable[["anthropic.Anthropic"], object]


def _config(config: str) -> Ask:
    """A message asking to summarise ``config``."""
    content = f"Summarise the config: {config}"
    messages = [{"role": "user", "content": content}]
    return lambda client: client.messages.create(model="m", max_tokens=16, messages=messages)


def _query(token: str) -> Ask:
    """A message sent with ``token`` as the ``access_token`` of its query."""
    messages = [{"role": "user", "content": "hi"}]
    return lambda client: client.messages.create(
        model="m", max_tokens=16, messages=messages, extra_query={"access_token": token}
    )


def _miss(tmp_path: Path, recorded: Ask, asked: Ask) -> str:
    """The message of the miss of ``asked`` replayed from a store where ``recorded`` is."""
    store = tmp_path / "s.jsonl"
    with Simulator(behavior="echo") as sim:
        exchange = Exchange(store, mode="record-missing", approve_live=True, source="sim")
        with anthropic.Anthropic(
            api_key="sk-test", base_url=sim.url, http_client=httpx2_client(exchange)
        ) as client:
            recorded(client)
    with (
        block_network(),
        anthropic.Anthropic(
            api_key="sk-test", base_url="http://127.0.0.1:9", http_client=httpx2_client(store)
        ) as client,
        pytest.raises(FixtureMismatchError) as missed,
    ):
        asked(client)
    return str(missed.value)


@pytest.mark.parametrize(
    ("key", "shown"),
    [(GITHUB, "<GitHub token #1, 41 characters>"), (ANTHROPIC, "<Anthropic API key #1, ")],
)
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_miss_masks_a_key_the_request_carries(tmp_path: Path, key: str, shown: str) -> None:
    message = _miss(tmp_path, _config("region=eu"), _config(f"region=eu key={key}"))
    assert key[:16] not in message
    assert "body.messages[0].content: 'Summarise the config: region=eu' != " in message
    assert f"key={shown}" in message


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_miss_masks_a_key_in_the_query_in_its_url_as_in_its_diff(tmp_path: Path) -> None:
    message = _miss(tmp_path, _query("x"), _query(GITHUB))
    shown = "access_token=<GitHub token #1, 41 characters>"
    assert GITHUB[:16] not in message
    assert f"(POST http://127.0.0.1:9/v1/messages?{shown}): key " in message
    assert f"path: '/v1/messages?access_token=x' != '/v1/messages?{shown}'" in message


def test_two_keys_read_apart_and_one_key_the_same_on_both_sides() -> None:
    recorded = {"content": [f"key={GITHUB}", "region=eu"]}
    requested = {"content": [f"key={OTHER}", f"again={GITHUB}"], "n": 1}
    left, right = masked_pair(recorded, requested)
    first, second = "<GitHub token #1, 41 characters>", "<GitHub token #2, 41 characters>"
    assert left == {"content": [f"key={first}", "region=eu"]}
    assert right == {"content": [f"key={second}", f"again={first}"], "n": 1}
    assert masked_pair("no key", [1]) == ("no key", [1])


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        (
            "/bot" + "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawX/sendMessage",
            "/<Telegram bot token #1, 48 characters>/sendMessage",
        ),
        ("/services/T0A1B2C3D/B0A1B2C3D4E/" + "aB3dE5fG7hJ9kL1mN3pQ5rS7", "<Slack webhook #1, 56 "),
    ],
    ids=["telegram", "slack"],
)
def test_a_miss_masks_a_token_in_the_path_a_url_holds_it_in(path: str, shown: str) -> None:
    # a notification the agent sent (Telegram's /bot<token>/sendMessage, a Slack webhook)
    # missed with its token in the URL it printed: the rules knew the token, not that form
    _, asked = masked_pair(None, {"method": "POST", "path": path})
    assert asked["method"] == "POST" and asked["path"].startswith(shown)


BEARER = "q8Zr3xN1vB7pLk2mW9tY4hC6dF0sJ5gAe1Ru"


@pytest.mark.parametrize(
    ("config", "shown"),
    [
        (f"Authorization: Bearer {BEARER}", "Bearer <credential after an auth "),
        ('{"key": "\\u0067' + GITHUB[1:] + '"}', "'<GitHub token (in \\\\u-escaped text) #1, "),
        (base64.b64encode(f"key={GITHUB}".encode()).decode(), "<GitHub token (in base64 text) #1"),
    ],
    ids=["bearer", "escaped", "base64"],
)
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_miss_masks_a_credential_and_a_key_written_encoded(
    tmp_path: Path, config: str, shown: str
) -> None:
    message = _miss(tmp_path, _config("region=eu"), _config(config))
    assert BEARER[:16] not in message and GITHUB[6:22] not in message
    assert config[:40] not in message
    assert shown in message, message


def test_a_key_used_as_a_field_name_is_masked_as_its_value_would_be() -> None:
    recorded = {"metadata": {"a": 1, GITHUB: 2}}
    left, right = masked_pair(recorded, {"metadata": {GITHUB: 1}})
    first = "<GitHub token #1, 41 characters>"
    assert left == {"metadata": {"a": 1, first: 2}}
    assert right == {"metadata": {first: 1}}


def test_a_key_split_across_two_text_blocks_is_masked_in_both() -> None:
    blocks = [{"type": "text", "text": GITHUB[:20]}, {"type": "text", "text": GITHUB[20:]}]
    requested = {"body": {"messages": [{"role": "user", "content": blocks}]}}
    _, right = masked_pair({"body": {"messages": []}}, requested)
    shown = [block["text"] for block in right["body"]["messages"][0]["content"]]
    assert shown == [
        "<GitHub token (split across text blocks) #1, 20 characters>",
        "<GitHub token (split across text blocks) #2, 21 characters>",
    ]


def test_a_private_key_is_masked_with_its_body() -> None:
    body = "MIIEpAIBAAKCAQEA7bq98wK1Lk2m3N4o5P6q7R8s9T0u1V2w3X4y5Z6a7B8c9D0e"
    key = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"
    left, right = masked_pair({"content": f"use {key} then"}, {"content": f"use {key[:60]}"})
    assert left == {"content": f"use <PEM private key #1, {len(key)} characters> then"}
    assert right == {"content": "use <PEM private key #2, 60 characters>"}  # cut: to the end
    assert body[:20] not in str((left, right))


RANDOM = "9f8Zq2LmX7pR4tVw6YbN3cK1"
CONTEXT = "<high-entropy value in an auth-like field #1, "


def _asked(content: str = "hi", **options: object) -> Ask:
    """A message of ``content``, sent with the SDK's ``options`` (``extra_query``...)."""
    messages = [{"role": "user", "content": content}]
    return lambda client: client.messages.create(
        model="m",
        max_tokens=16,
        messages=messages,
        **options,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    "asked",
    [
        _asked(f"connect api_key: {RANDOM}"),
        _asked(json.dumps({"api_key": RANDOM})),
        _asked("access_token=ghp%5F" + GITHUB[4:]),
        _asked(extra_body={"metadata": {"api_key": RANDOM}}),
    ],
    ids=["written", "held-json", "percent-encoded", "credential-field"],
)
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_miss_masks_a_value_the_scan_refuses_by_its_context(tmp_path: Path, asked: Ask) -> None:
    message = _miss(tmp_path, _asked(), asked)
    assert RANDOM not in message and GITHUB[4:20] not in message
    assert CONTEXT in message, message


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_miss_masks_a_credential_in_its_query_and_keeps_its_path(tmp_path: Path) -> None:
    secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    asked = _asked(extra_query={"aws_secret_access_key": secret})
    message = _miss(tmp_path, _asked(extra_query={"sig": "x"}), asked)
    assert "wJalrXUtnFEMI" not in message
    assert f"(POST http://127.0.0.1:9/v1/messages?{CONTEXT}" in message
    assert f"'/v1/messages?sig=x' != '/v1/messages?{CONTEXT}" in message


def test_a_value_masked_by_its_context_reads_the_same_on_both_sides() -> None:
    nonce = "Q9xT4vL7mK2pW8rZ5nB3cY6hJ1sD0fGa"
    recorded = {"metadata": {"api_key": RANDOM}, "content": "hi"}
    requested = {"metadata": {"api_key": RANDOM, "session_token": RANDOM[::-1]}, "content": nonce}
    left, right = masked_pair(recorded, requested)
    first = f"{CONTEXT}24 characters>"
    assert left == {"metadata": {"api_key": first}, "content": "hi"}
    second = first.replace("#1", "#2")
    assert right == {"metadata": {"api_key": first, "session_token": second}, "content": nonce}


def _document(data: bytes) -> dict[str, object]:
    """A document block of ``data`` gzipped, in base64."""
    encoded = base64.b64encode(gzip.compress(data)).decode()
    return {"type": "document", "source": {"type": "base64", "media_type": "x", "data": encoded}}


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_miss_reads_the_compressed_documents_of_a_request_within_one_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four documents of 11/32 of the budget each once decompressed: a request's documents
    are read within the one budget its recording would have, and the others are masked
    unread. The budget is a sixteenth of the 64 MiB here (4 MiB, each document still over
    the 1 MiB of a long text): the same reads, at a sixteenth of the bytes."""
    budget = MAX_EXPANDED >> 4
    monkeypatch.setattr(secret_compressed, "MAX_EXPANDED", budget)
    monkeypatch.setattr(secret_mask, "Budget", functools.partial(Budget, left=budget))
    documents = [_document(b"\0" * (budget * 11 >> 5) + bytes([65 + i])) for i in range(4)]
    message = _miss(tmp_path, _asked([_document(b"small")] * 4), _asked(documents))  # type: ignore[arg-type]
    read, unread = (f"content[{i}].source.data: at offset " for i in (1, 3))
    assert read in message and unread in message
    assert message.count(" != '<gzip data over 4 MiB once decompressed") == 2


def test_a_miss_with_nothing_to_compare_reads_only_the_url_for_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A large upload missing from a store that is not there: the message shows its URL
    alone, so the body is never read for keys to mask (a 10 MiB file took a minute), and
    a key in the query is still masked."""
    read: list[str] = []

    def spied(text: str, *args: object, **kwargs: object) -> object:
        read.append(text)
        return detect(text, *args, **kwargs)

    detect = secret_mask.detect_in_text
    monkeypatch.setattr(secret_mask, "detect_in_text", spied)
    upload = b"--b\r\nContent-Disposition: form-data; name=file\r\n\r\n" + b"\xff" * 4096
    with (
        httpx2_client(tmp_path / "none.jsonl") as client,
        pytest.raises(FixtureMismatchError) as missed,
    ):
        client.post(f"http://127.0.0.1:9/v1/files?access_token={GITHUB}", content=upload)
    assert "(POST http://127.0.0.1:9/v1/files?access_token=<GitHub token #1, " in str(missed.value)
    assert GITHUB[:16] not in str(missed.value)
    assert all(len(text) < 200 for text in read)
