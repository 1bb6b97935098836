"""boto3 replay benchmark: Amazon Bedrock's ``converse`` replayed through botocore, against
botocore's own floor.

Run: ``.venv/bin/python bench/bench_boto3.py [--calls N] [--repetitions R]`` (prints a
markdown table; about a minute on a 2-core machine).

The same client code (``boto3.client("bedrock-runtime").converse(...)``, and
``converse_stream`` with every event read) is timed, per call, over:

- **floor**: a ``before-send`` handler answering every call with one constant response (a
  recorded answer's bytes) before botocore's HTTP session is reached: botocore's own
  cost (signing, serializing, parsing), nothing looked up;
- **replaygate**: ``intercept(store)`` over a JSONL store of the N calls recorded from the
  simulator, a new block (a new session over a store opened anew) each repetition, so
  every call is the first serve of its fixture, answered in botocore's send
  (``URLLib3Session.send``).

A repetition replays the calls in a fresh random order, in chunks of 50, the two taking
turns chunk by chunk; a figure is the median per-call CPU time (``time.process_time``)
over chunks.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import boto3
import httpx2
from botocore.awsrequest import AWSResponse
from urllib3.response import HTTPResponse

from replaygate.fixtures.store import FixtureStore
from replaygate.http import intercept
from replaygate.sim import Simulator

MODEL = "anthropic.claude-sonnet-4-5-20250929-v1:0"
CHUNK = 50


def question(i: int) -> list[dict[str, Any]]:
    return [{"role": "user", "content": [{"text": f"Question {i}: what does replay {i} do?"}]}]


def converse(client: Any, i: int) -> Any:
    return client.converse(modelId=MODEL, messages=question(i))["output"]


def converse_stream(client: Any, i: int) -> Any:
    return list(client.converse_stream(modelId=MODEL, messages=question(i))["stream"])


CALLS: dict[str, Callable[[Any, int], Any]] = {
    "converse": converse,
    "converse_stream": converse_stream,
}


def client() -> Any:
    return boto3.client(
        "bedrock-runtime",
        region_name="us-east-1",
        aws_access_key_id="test",
        aws_secret_access_key="test",
    )


def record(store: Path, n: int) -> tuple[bytes, bytes]:
    """Record the N calls of each kind from the simulator into ``store``; the bodies the
    simulator answers question 0 with, plain and streamed (the floor's constant answers)."""
    recorder = client()
    with Simulator(behavior="echo") as sim:
        with intercept(store, "record-missing", approve_live=True, live_origin=sim.url):
            for i in range(n):
                converse(recorder, i)
                converse_stream(recorder, i)
        signed = {"authorization": "AWS4-HMAC-SHA256 Credential=test/20261207/us-east-1/bedrock"}
        body = {"messages": question(0)}
        with httpx2.Client(base_url=f"{sim.url}/model/{MODEL}", headers=signed) as http:
            return (http.post("/converse", json=body).content,
                    http.post("/converse-stream", json=body).content)  # fmt: skip


def floor_client(plain: bytes, stream: bytes) -> Any:
    """A client answered by a ``before-send`` handler with a constant response."""
    made = client()

    def answer(request: Any, **_: Any) -> AWSResponse:
        streamed = request.url.endswith("/converse-stream")
        body = stream if streamed else plain
        kind = "application/vnd.amazon.eventstream" if streamed else "application/json"
        raw = HTTPResponse(body=io.BytesIO(body), headers={"content-type": kind}, status=200,
                           preload_content=False, decode_content=False)  # fmt: skip
        return AWSResponse(request.url, 200, {"content-type": kind}, raw)

    made.meta.events.register("before-send", answer)
    return made


def timed(call: Callable[[Any, int], Any], made: Any, calls: Sequence[int]) -> float:
    """CPU microseconds per call."""
    started = time.process_time()
    for i in calls:
        call(made, i)
    return (time.process_time() - started) / len(calls) * 1e6


def measure(store: Path, n: int, repetitions: int, floor: Any) -> dict[str, tuple[float, float]]:
    """Median µs per call of the floor and of replaygate, per kind of call."""
    times: dict[str, tuple[list[float], list[float]]] = {k: ([], []) for k in CALLS}
    rng = random.Random(7)
    for _ in range(repetitions):
        replaying = client()
        order = list(range(n))
        rng.shuffle(order)
        with intercept(FixtureStore.open(store)):
            for name, call in CALLS.items():
                for start in range(0, n, CHUNK):
                    chunk = order[start : start + CHUNK]
                    times[name][0].append(timed(call, floor, chunk))
                    times[name][1].append(timed(call, replaying, chunk))
    return {k: (statistics.median(f), statistics.median(r)) for k, (f, r) in times.items()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000, help="distinct calls (N)")
    parser.add_argument("--repetitions", type=int, default=5)
    args = parser.parse_args(argv)
    os.environ.setdefault("AWS_EC2_METADATA_DISABLED", "true")
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "bedrock.jsonl"
        plain, stream = record(store, args.calls)
        rows = measure(store, args.calls, args.repetitions, floor_client(plain, stream))
    print(f"boto3 {boto3.__version__}, N = {args.calls}, {args.repetitions} repetitions\n")
    print("| call | floor µs/call | replaygate µs/call | replaygate / floor |")
    print("| --- | ---: | ---: | ---: |")
    for name, (floor_us, ours) in rows.items():
        print(f"| {name} | {floor_us:,.0f} | {ours:,.0f} | {ours / floor_us:.3f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
