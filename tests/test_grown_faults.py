"""A recording grown under simulator faults meets the faults one made at once meets.

A ``record-missing`` recording replays the answers its store holds and sends the rest to
the simulator, which counts each replayed answer as one it gave (:mod:`.learners`). It
counted a success's answer only: a replayed answer took no fault draw (nor a
``FaultPlan.sequence`` entry), and a replayed fault (a 429) no request id, so the
requests a grown recording sent met the faults meant for the ones it replayed, and its
store held other faults, in other places, than a recording of every request at once. The
replay of either store gives each request the answer, or the fault, its recording saw.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest

from replaygate.fixtures.store import FixtureStore
from replaygate.http import block_network, intercept
from replaygate.sim import FaultPlan, Simulator

pytestmark = pytest.mark.slow  # whole recordings from the simulator, grown and at once

URL = "https://api.anthropic.com/v1/messages"
HEADERS = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
BODY = {"model": "m", "max_tokens": 16, "messages": [{"role": "user", "content": "hi"}]}
REPLAYED_CUT = ": this replays a cut recorded in fixture"
PLANS: Mapping[str, Any] = {
    "a 429 in sequence": ["429", None, "429"],
    "a stream cut in sequence": ["cut-stream", None, "cut-stream"],
    "drawn by rates": {"429": 0.3, "cut-stream": 0.3},
}


def send(client: httpx.Client, body: Mapping[str, Any]) -> str:
    """What one request got: its status and request id and the length of its body, or the
    error that cut it."""
    try:
        with client.stream("POST", URL, headers=HEADERS, json=body) as response:
            read = response.read()
            return f"{response.status_code} {response.headers['request-id']} {len(read)}"
    except httpx.RemoteProtocolError as err:  # a replayed cut adds where it was recorded
        return f"cut: {str(err).split(REPLAYED_CUT, 1)[0]}"


def record(store: Path, plan: Any, sends: int, stream: bool) -> list[str]:
    """``sends`` requests recorded from a new simulator playing the faults of ``plan``."""
    body = {**BODY, "stream": stream}
    faults = FaultPlan.sequence(plan) if isinstance(plan, list) else FaultPlan.coerce(plan)
    with (
        Simulator(behavior="echo", faults=faults, seed=3) as sim,
        intercept(store, "record-missing", approve_live=True, source="sim", live_origin=sim.url),
        httpx.Client() as client,
    ):
        return [send(client, body) for _ in range(sends)]


def replay(store: Path, sends: int, stream: bool) -> list[str]:
    """``sends`` requests replayed offline from ``store``."""
    with block_network(), intercept(store), httpx.Client() as client:
        return [send(client, {**BODY, "stream": stream}) for _ in range(sends)]


def stored(store: Path) -> list[str]:
    """The store's fixtures as text, in order of their keys."""
    with FixtureStore.open(store) as opened:
        return sorted(json.dumps([f.request, f.responses], sort_keys=True) for f in opened)


@pytest.mark.parametrize(
    ("plan", "stream"),
    [
        ("a 429 in sequence", False),
        ("a 429 in sequence", True),
        ("a stream cut in sequence", True),
        ("drawn by rates", False),
        ("drawn by rates", True),
    ],
)
def test_a_grown_recording_meets_the_faults_of_one_made_at_once(
    tmp_path: Path, plan: str, stream: bool
) -> None:
    grown, fresh = tmp_path / "grown.jsonl", tmp_path / "fresh.jsonl"
    record(grown, PLANS[plan], 2, stream)
    more = record(grown, PLANS[plan], 6, stream)  # the first 2 replayed, 4 sent
    at_once = record(fresh, PLANS[plan], 6, stream)
    assert more == at_once
    met = {got.split(" ", 1)[0] for got in at_once}
    assert "200" in met and met & {"429", "cut:"}, at_once  # answers and faults
    assert stored(grown) == stored(fresh)
    assert replay(grown, 6, stream) == at_once


def test_a_rate_is_drawn_for_the_json_body_whatever_its_spelling() -> None:
    plan = FaultPlan.coerce({"429": 0.5})

    def drawn(body: bytes) -> list[str | None]:
        drawer = plan.drawer(3)
        return [drawer.next("/v1/messages", body) for _ in range(12)]

    compact = drawn(b'{"model":"m","max_tokens":16}')
    assert drawn(b'{ "max_tokens": 16,\n  "model": "m" }') == compact
    assert drawn(b'{"model":"n","max_tokens":16}') != compact  # another request
    assert drawn(b"model=m") == drawn(b"model=m") != drawn(b"model=n")  # not JSON: its bytes
