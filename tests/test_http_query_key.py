"""A ``key`` query parameter is data, matched like any other, except where it is Google's
API key.

A tool of the agent reads a key-value service on loopback (``?key=<name>``) through
``httpx2``, recorded and then replayed with the network blocked: asking for another key
misses, and a secret-looking value there is refused before it is sent.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar
from urllib.parse import parse_qs, urlsplit

import pytest

from loopback import Handler, serving
from replaygate.errors import FixtureMismatchError, SecretInFixtureError
from replaygate.http import block_network, httpx2_client

BALANCES = {"alice": "10", "bob": "99999"}


class KeyValue(Handler):
    """Answers ``GET /v1/get?key=<name>`` with the value stored under that name."""

    asked: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        name = parse_qs(urlsplit(self.path).query)["key"][0]
        KeyValue.asked.append(name)
        self.answer_json({"value": BALANCES.get(name)})


def test_requests_differing_only_in_key_are_two_requests(tmp_path: Path) -> None:
    store = tmp_path / "kv.jsonl"
    with serving(KeyValue) as base, httpx2_client(store, "record-missing", approve_live=True) as c:
        assert c.get(f"{base}/v1/get", params={"key": "alice"}).json() == {"value": "10"}
    assert '"/v1/get?key=alice"' in store.read_text()
    with block_network(), httpx2_client(store) as replay:
        assert replay.get(f"{base}/v1/get", params={"key": "alice"}).json() == {"value": "10"}
        with pytest.raises(FixtureMismatchError) as caught:
            replay.get(f"{base}/v1/get", params={"key": "bob"})
    assert "path: '/v1/get?key=alice' != '/v1/get?key=bob'" in caught.value.differences


def test_a_secret_looking_key_value_is_refused_before_it_is_sent(tmp_path: Path) -> None:
    store = tmp_path / "kv.jsonl"
    secret = (
        "sk-ant-api03-Q7xk2LmN9pRt4VwYz8Ab3Cd6Ef1Gh5Ij0Kl2Mn4Op6Qr8St0Uv2"
        "Wx4Yz6Ab8Cd0Ef2Gh4Ij6Kl8Mn0Op2Qr4St6Uv8Wx0Yz2AbCdEf-ghIJAA"
    )
    KeyValue.asked.clear()
    with (
        serving(KeyValue) as base,
        httpx2_client(store, "record-missing", approve_live=True) as client,
        pytest.raises(SecretInFixtureError),
    ):
        client.get(f"{base}/v1/get", params={"key": secret})
    assert KeyValue.asked == [] and not store.exists()


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_gemini_s_key_is_left_out_of_its_models_list_and_get(tmp_path: Path) -> None:
    # a client reading the models with ?key= (a curl command, another language's client)
    from replaygate.sim import Simulator

    store = tmp_path / "models.jsonl"
    paths = ["/v1beta/models", "/v1beta/models/gemini-2.5-flash"]
    key = {"key": "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW"}
    with (
        Simulator(behavior="echo") as sim,
        httpx2_client(store, "record-missing", approve_live=True) as client,
    ):
        live = [client.get(f"{sim.url}{path}", params=key).json() for path in paths]
    assert "AIza" not in store.read_text()
    google = "https://generativelanguage.googleapis.com"
    with block_network(), httpx2_client(store) as replay:  # another key, the real host
        again = [replay.get(f"{google}{path}", params={"key": "test"}).json() for path in paths]
    assert again == live
