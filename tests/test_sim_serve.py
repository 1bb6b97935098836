"""``replaygate sim serve`` in a process of its own, as a user runs it, over loopback.

It builds the behaviour ``--behavior`` names once (a script is read once, as the option
is read: it was read again by the server), answers as that behaviour with its ``--seed``,
and, holding only what it served, refuses a follow-up naming a response it never served
(one a recording replayed in another process: nothing tells it, docs/frameworks.md).
"""

from __future__ import annotations

import contextlib
import errno
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import click
import pytest
from click.testing import CliRunner

from replaygate.sim.behavior_option import ChosenBehavior, behavior_option
from replaygate.sim.behaviors import ScriptBehavior, SeededResearch
from replaygate.sim.cli import _cannot_serve, sim_group
from replaygate.sim.server import Simulator

OPENS = """
import os, sys
script = os.environ["RG_TEST_SCRIPT"]
def note(event, args):
    if event == "open" and args and args[0] == script:
        os.write(2, b"opened the script\\n")
sys.addaudithook(note)
def loaded():
    if "referencing" in sys.modules:
        os.write(2, b"loaded the schema libraries\\n")
import atexit
atexit.register(loaded)
from replaygate.cli import run
run()
"""
"""``replaygate ARGS`` (the console script's ``run``), saying on stderr each time it opens
the script file, and as it ends whether it loaded the schema libraries (``referencing``,
``jsonschema``): sent no schema, the simulator has no use for them, and starts without."""


def _post(url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """POST ``body`` to the Responses API at ``url`` (the simulator's): status and JSON."""
    where = urlsplit(url)
    connection = http.client.HTTPConnection(where.hostname or "", where.port, timeout=10)
    try:
        headers = {"content-type": "application/json", "authorization": "Bearer k"}
        connection.request("POST", "/v1/responses", json.dumps(body), headers)
        answer = connection.getresponse()
        return answer.status, json.loads(answer.read())
    finally:
        connection.close()


def _said(answer: dict[str, Any]) -> str:
    return str(answer["output"][0]["content"][0]["text"])


@pytest.mark.slow  # starts replaygate in a process of its own
def test_sim_serve_reads_its_script_once_and_holds_only_what_it_served(tmp_path: Path) -> None:
    script = tmp_path / "answers.jsonl"
    script.write_text('{"text": "Hello, Ada."}\n{"text": "You are Ada."}\n', encoding="utf-8")
    command = [sys.executable, "-c", OPENS, "sim", "serve", "--port", "0"]
    command += ["--behavior", f"script:{script}", "--seed", "4"]
    env = {**os.environ, "RG_TEST_SCRIPT": str(script), "PYTHONUNBUFFERED": "1"}
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    ) as proc:
        try:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            assert line.startswith("replaygate simulator listening on http://127.0.0.1:"), line
            assert line.rstrip().endswith(f"(behavior=script:{script}, seed=4)"), line
            url = line.split(" on ", 1)[1].split(" ", 1)[0]
            status, first = _post(url, {"model": "m", "input": "My name is Ada."})
            assert (status, _said(first)) == (200, "Hello, Ada."), first
            status, then = _post(
                url, {"model": "m", "input": "Who am I?", "previous_response_id": first["id"]}
            )
            assert (status, _said(then)) == (200, "You are Ada."), then
            # the id of another simulator's first response (replayed from fixtures): its
            # number, another conversation's digest
            never = first["id"].rsplit("_", 1)[0] + "_000000000000"
            assert never != first["id"]
            status, refused = _post(
                url, {"model": "m", "input": "Who am I?", "previous_response_id": never}
            )
        finally:
            proc.send_signal(signal.SIGTERM)
            _, stderr = proc.communicate(timeout=10)
    assert status == 400, refused
    assert refused["error"]["message"].startswith(
        f"Previous response with id '{never}' not found. The simulator holds only the "
        "responses it served since it started"
    ), refused
    assert (proc.returncode, stderr) == (0, "opened the script\n")


def _built(*args: str) -> Any:
    """The behaviour a command taking ``--behavior`` and ``--seed`` as ``sim serve`` does
    builds from ``args``."""
    built: list[Any] = []

    @click.command()
    @behavior_option()
    @click.option("--seed", default=7, type=int)
    def command(behavior: ChosenBehavior, seed: int) -> None:
        built.append(behavior.build(seed))

    done = CliRunner().invoke(command, list(args))
    assert done.exit_code == 0, done.output
    return built[0]


def test_the_behaviour_is_built_with_the_seed_given_in_either_order(tmp_path: Path) -> None:
    first = _built("--behavior", "research-copilot", "--seed", "4")
    assert isinstance(first, SeededResearch) and first.seed == 4
    then = _built("--seed", "5", "--behavior", "research-copilot")
    assert isinstance(then, SeededResearch) and then.seed == 5
    assert _built().seed == 7
    script = tmp_path / "answers.jsonl"
    script.write_text('{"text": "Sunny."}\n', encoding="utf-8")
    scripted = _built("--behavior", f"script:{script}")
    assert isinstance(scripted, ScriptBehavior) and scripted.source == str(script)


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("nope", "unknown behavior 'nope'; expected one of research-copilot, echo, script:FILE"),
        ("script:", "unknown behavior 'script:'"),
        ("script:missing.jsonl", "missing.jsonl: cannot read script"),
        ("script:bad.jsonl", "bad.jsonl:2: "),
    ],
)
def test_sim_serve_refuses_a_behaviour_it_cannot_build_before_serving(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: str, said: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.jsonl").write_text('{"text": "ok"}\n{"text": 1}\n', encoding="utf-8")
    done = CliRunner().invoke(sim_group, ["serve", "--behavior", given])
    assert done.exit_code == 2, done.output
    assert "Invalid value for '--behavior'" in done.output and said in done.output, done.output
    assert "listening" not in done.output


def test_sim_serve_names_a_port_another_process_holds() -> None:
    with Simulator(behavior="echo") as holder:
        port = holder.port
        done = CliRunner().invoke(sim_group, ["serve", "--port", str(port)])
    assert done.exit_code == 2, done.output
    assert done.output.strip() == (
        f"Error: --port {port}: another process listens on it at 127.0.0.1: stop it, "
        "or pass another --port (0 picks a free one)"
    )


def test_a_port_this_user_may_not_take_names_the_port() -> None:
    refused = OSError(errno.EACCES, "error while attempting to bind on address: denied")
    assert _cannot_serve(refused, "127.0.0.1", 80) == (
        f"--port 80: cannot serve on it: {os.strerror(errno.EACCES).lower()}"
    )


def _connect_until(port: int, held: list[socket.socket], stopped: threading.Event) -> None:
    """Open connections to ``port`` into ``held``, and hold them, until ``stopped``."""
    while not stopped.is_set():
        with contextlib.suppress(OSError):
            held.append(socket.create_connection(("127.0.0.1", port), timeout=0.1))


@pytest.mark.slow
def test_stop_ends_the_connections_made_as_it_stops_that_their_clients_hold_open() -> None:
    # from Python 3.12 a connection accepted as the simulator stopped, its client holding
    # it open, held stop() for ever: the server waited for it to close
    for _ in range(5):
        sim = Simulator().start()
        held: list[socket.socket] = []
        stopped = threading.Event()
        clients = [
            threading.Thread(target=_connect_until, args=(sim.port, held, stopped), daemon=True)
            for _ in range(3)
        ]
        for client in clients:
            client.start()
        while len(held) < 3:
            pass
        stopper = threading.Thread(target=sim.stop, daemon=True)
        stopper.start()
        stopper.join(timeout=5)
        stopped.set()
        for client in clients:
            client.join()
        for sock in held:
            sock.close()
        assert not stopper.is_alive(), "stop() waited for a connection its client held open"
