"""The recording commands take the anthropic SDK's credential as the SDK does: an API key
(``ANTHROPIC_API_KEY``) or a bearer token (``ANTHROPIC_AUTH_TOKEN``), and name both when
neither is set or the API refuses the one given."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate.cli import main
from replaygate.sim import Simulator

# Its tests import the provider SDKs through replaygate (the example agent, the demo).

RECORD = ["record", "--agent", "replaygate.examples.research_copilot:copilot", "--approve-live"]
TOKEN_ONLY = {"ANTHROPIC_API_KEY": None, "ANTHROPIC_AUTH_TOKEN": "bearer-token-of-a-gateway"}
NEITHER = {"ANTHROPIC_API_KEY": None, "ANTHROPIC_AUTH_TOKEN": None}


def _closed_port_url() -> str:
    """A loopback URL nothing listens on: a call that got as far as sending fails at once."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        port = held.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.mark.slow  # a whole recording of the agent
def test_record_sends_a_bearer_token_when_only_it_is_set(tmp_path: Path) -> None:
    store = tmp_path / "new.jsonl"
    with Simulator(behavior="research-copilot") as sim:
        env = {**TOKEN_ONLY, "ANTHROPIC_BASE_URL": sim.url}
        done = CliRunner().invoke(main, [*RECORD, "--fixtures", str(store), "hi"], env=env)
        received = sim.requests
    assert done.exit_code == 0, done.output
    assert received and all(
        r.headers.get("authorization") == "Bearer bearer-token-of-a-gateway"
        and "x-api-key" not in r.headers
        for r in received
    )
    assert "bearer-token-of-a-gateway" not in store.read_text()  # law 4


def test_demo_live_takes_a_bearer_token(tmp_path: Path) -> None:
    # it asked for ANTHROPIC_API_KEY alone and ended there; now it goes on to the API
    env = {**TOKEN_ONLY, "ANTHROPIC_BASE_URL": _closed_port_url()}
    done = CliRunner().invoke(main, ["demo", "--live", "--out", str(tmp_path / "out")], env=env)
    assert done.exit_code == 2, done.output
    assert "Error: cannot reach the model API at" in done.stderr, done.output
    assert "needs" not in done.output


@pytest.mark.parametrize(
    ("args", "instead"),
    [
        (["demo", "--live", "--out", "out"], "drop --live to record from the loopback simulator"),
        ([*RECORD, "--fixtures", "new.jsonl", "hi"], "instead with --simulator"),
    ],
    ids=["demo", "record"],
)
def test_without_a_credential_both_are_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], instead: str
) -> None:
    monkeypatch.chdir(tmp_path)
    gateway = "https://gateway.invalid"  # never reached: the credential is asked for first
    done = CliRunner().invoke(main, args, env={**NEITHER, "ANTHROPIC_BASE_URL": gateway})
    assert done.exit_code == 2, done.output
    assert done.stderr.startswith(
        "Error: recording from the live API needs ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN; "
    ), done.stderr
    assert instead in done.stderr
    assert not (tmp_path / "new.jsonl").exists()
    assert not (tmp_path / "out").exists()  # the demo claimed its --out folder first


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_record_from_a_simulator_of_ones_own_needs_no_credential(tmp_path: Path) -> None:
    # it said "recording from the live API needs ANTHROPIC_API_KEY ..." of a loopback server
    store = tmp_path / "new.jsonl"
    with Simulator(behavior="research-copilot") as sim:
        env = {**NEITHER, "ANTHROPIC_BASE_URL": sim.url}
        args = [*RECORD, "--fixtures", str(store), "--source", "sim", "hi"]
        done = CliRunner().invoke(main, args, env=env)
        received = sim.requests
    assert done.exit_code == 0, done.output
    sent = [r.headers.get("x-api-key", "") + r.headers.get("authorization", "") for r in received]
    assert sent and all(key.endswith("loopback-key") for key in sent), sent
    assert '"source":"sim"' in store.read_text()


class _Refusing(BaseHTTPRequestHandler):
    """Answers every request 401, as the API answers a credential it does not take."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        body = json.dumps(
            {"type": "error", "error": {"type": "authentication_error", "message": "no"}}
        ).encode()
        self.send_response(401)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        """Quiet."""


@pytest.fixture
def refusing_api() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Refusing)
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_a_refused_credential_names_both(tmp_path: Path, refusing_api: str) -> None:
    env = {**TOKEN_ONLY, "ANTHROPIC_BASE_URL": refusing_api}
    store = tmp_path / "new.jsonl"
    done = CliRunner().invoke(main, [*RECORD, "--fixtures", str(store), "hi"], env=env)
    assert done.exit_code == 2, done.output
    assert (
        "refused the key (401): check ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN, or record "
        "from the loopback simulator instead with --simulator"
    ) in done.stderr, done.stderr
