"""``demo --seed`` seeds the simulator its first recording draws from: with ``--live`` that
recording comes from the real API, which takes no seed, so the pair is refused before
anything runs (it was ignored: a run the user took for seeded was not)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from run_cli import replaygate


def _closed_port_url() -> str:
    """A loopback URL nothing listens on: a call that got as far as sending fails at once."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        port = held.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.mark.parametrize("seed", ["3", "7"], ids=["another seed", "the default, given"])
def test_demo_refuses_a_seed_with_live_before_anything_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: str
) -> None:
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    out = tmp_path / "out"
    env = {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": _closed_port_url()}
    done = replaygate("demo", "--live", "--seed", seed, "--out", str(out), env=env)
    assert done.returncode == 2, done
    assert "Error: --seed goes without --live" in done.stderr, done.stderr
    assert "the real API, which takes no seed" in done.stderr
    assert "drop --seed, or --live" in done.stderr
    assert done.stdout == "" and not out.exists()  # nothing recorded, nothing written
