"""HTTP replay benchmark: the official ``anthropic`` SDK replaying recorded Messages API calls.

Run: ``.venv/bin/python bench/bench_http.py [--quick]`` (prints a markdown table).

For N = 100, 1,000 and 5,000 distinct recorded calls (the ResearchCopilot-like
conversations of ``bench/_data.py``: system prompt, two tools, five turns, about 2 KB
a request), the same ``anthropic.Anthropic`` client code ``messages.create(**request)``
is timed, per call, over three transports:

- **floor**: ``httpx2.MockTransport`` returning one constant response (a recorded
  answer's bytes): the SDK's own cost, nothing looked up;
- **replaygate**: ``replaygate.http.httpx2_client(store)`` over a JSONL store of the N
  fixtures, opened fresh for each repetition (opening is reported apart). The first
  answer from each fixture includes the store's check that its key matches its
  request. The transport alone (``handle_request`` and reading the response, on the
  requests the SDK sent, no SDK around it, after the SDK pass on the same store, so
  without that one-time check) is reported too;
- **vcrpy**: ``vcr.use_cassette(..., match_on=["method", "uri", "body"],
  record_mode="none")`` over a cassette of the same N interactions, recorded by vcrpy
  itself through the same SDK. vcrpy 6+ patches ``httpx2`` transports directly
  (including ``MockTransport``), so the SDK, its client and its transport stack are
  the same as in the two other columns; only the lookup differs. The cassette uses
  vcrpy's JSON serializer (loading is excluded from the per-call time; matching is
  the same with YAML). Its lookup is a linear scan that re-parses both JSON bodies for
  every recorded interaction (several times per call), so a random sample of the calls
  is timed rather than all of them (the count is shown in the table).

Times are CPU time of the benchmark process (``time.process_time``), so other load on
the machine does not count. Every repetition replays all N calls once in a fresh
random order, in chunks of 50 calls, the floor and replaygate taking turns chunk by
chunk; a figure is the median per-call time over chunks (vcrpy: over repetitions).

Targets: replaygate flat in N (5,000 / 100 <= 1.5), within 1.5x of the floor, at least
50x faster than vcrpy at N = 1,000. ``--quick`` runs fewer repetitions and samples: a
smoke run.
"""

from __future__ import annotations

import argparse
import gc
import logging
import platform
import random
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import orjson
import vcr

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import request as data_request
from _data import response as data_response
from replaygate.fixtures.fixture import Fixture, now_iso
from replaygate.fixtures.store import FixtureStore
from replaygate.http import Httpx2Transport, httpx2_client, request_envelope

SIZES = (100, 1_000, 5_000)
URL = "https://api.anthropic.com"
MATCH_ON = ["method", "uri", "body"]
JSON_HEADERS = {"content-type": "application/json", "request-id": "req_bench"}
CASSETTE_CHUNK = 5
CHUNK = 50


@dataclass(frozen=True)
class Plan:
    """How much to measure: repetitions, and how many vcrpy calls a repetition times per N."""

    repetitions: int
    vcr_calls: dict[int, int]


FULL = Plan(repetitions=5, vcr_calls={100: 100, 1_000: 10, 5_000: 3})
QUICK = Plan(repetitions=2, vcr_calls={100: 25, 1_000: 3, 5_000: 1})


def requests(n: int) -> list[dict[str, Any]]:
    """The keyword arguments of ``messages.create`` for calls ``0..n-1``."""
    return [data_request(i) for i in range(n)]


def answering(n: int) -> Callable[[httpx2.Request], httpx2.Response]:
    """A handler answering call ``i`` with response ``i`` (matched by the request body)."""
    by_body = {orjson.dumps(r, option=orjson.OPT_SORT_KEYS): i for i, r in enumerate(requests(n))}
    bodies = [orjson.dumps(data_response(i)) for i in range(n)]

    def handle(request: httpx2.Request) -> httpx2.Response:
        sent = orjson.dumps(orjson.loads(request.content), option=orjson.OPT_SORT_KEYS)
        i = by_body[sent]
        return httpx2.Response(200, headers=JSON_HEADERS, content=bodies[i])

    return handle


def sdk(transport: httpx2.BaseTransport | None = None, client: Any = None) -> anthropic.Anthropic:
    """The SDK client every column uses (``max_retries=0``: nothing here is retried)."""
    http = client if client is not None else httpx2.Client(transport=transport)
    return anthropic.Anthropic(api_key="bench-key", base_url=URL, http_client=http, max_retries=0)


def build_store(path: Path, n: int) -> list[httpx2.Request]:
    """Record the N calls as fixtures: the envelopes the SDK really sends, their answers.

    Returns the SDK's requests, for timing the transport alone.
    """
    handle = answering(n)
    lines: list[bytes] = []
    sent: list[httpx2.Request] = []

    def record(request: httpx2.Request) -> httpx2.Response:
        sent.append(request)
        response = handle(request)
        recorded = {"status": 200, "headers": JSON_HEADERS, "body": orjson.loads(response.content)}
        meta = {"interface": "anthropic.messages", "recorded_at": now_iso(), "source": "scripted"}
        lines.append(Fixture.create(request_envelope(request), [recorded], meta).to_line())
        return response

    client = sdk(httpx2.MockTransport(record))
    for args in requests(n):
        client.messages.create(**args)
    path.write_bytes(b"".join(lines))
    return sent


def build_cassette(path: Path, n: int) -> None:
    """Let vcrpy record the same N calls through the same SDK into one JSON cassette.

    vcrpy checks every request against everything recorded so far while recording,
    so the calls are recorded in chunks (separate cassettes) and the chunks' lists of
    interactions are joined into one cassette.
    """
    client = sdk(httpx2.MockTransport(answering(n)))
    calls = requests(n)
    interactions: list[Any] = []
    for start in range(0, n, CASSETTE_CHUNK):
        part = path.with_name(f"{path.stem}.part{start}.json")
        with vcr.use_cassette(str(part), record_mode="all", serializer="json", match_on=MATCH_ON):
            for args in calls[start : start + CASSETTE_CHUNK]:
                client.messages.create(**args)
        recorded = orjson.loads(part.read_bytes())
        interactions.extend(recorded["interactions"])
        part.unlink()
    recorded["interactions"] = interactions
    path.write_bytes(orjson.dumps(recorded))


def constant_transport() -> httpx2.MockTransport:
    """The floor: one recorded answer's bytes for every call."""
    body = orjson.dumps(data_response(0))
    return httpx2.MockTransport(lambda _: httpx2.Response(200, headers=JSON_HEADERS, content=body))


def _transport_timed(sent: Sequence[httpx2.Request], transport: Httpx2Transport) -> float:
    """CPU microseconds per request of the replay transport alone (response read)."""
    started = time.process_time()
    for request in sent:
        transport.handle_request(request).read()
    return (time.process_time() - started) / len(sent) * 1e6


def _timed(calls: Sequence[dict[str, Any]], client: anthropic.Anthropic) -> float:
    """CPU microseconds per call of ``messages.create`` over ``calls``."""
    started = time.process_time()
    for args in calls:
        client.messages.create(**args)
    return (time.process_time() - started) / len(calls) * 1e6


@dataclass
class Row:
    """The per-call microseconds of one N."""

    n: int
    floor: float
    replaygate: float
    transport: float
    vcrpy: float
    store_open_ms: float
    cassette_load_ms: float
    vcr_calls: int


def measure(n: int, folder: Path, plan: Plan, rng: random.Random) -> Row:
    """Build the store and the cassette for N calls, then time the three columns.

    Each repetition replays every call once, in a fresh random order, cut into chunks
    of :data:`CHUNK` calls; the floor and replaygate take turns chunk by chunk, so a
    change in the machine's load hits both alike. The figure is the median chunk.
    """
    store_path, cassette = folder / f"replay-{n}.jsonl", folder / f"cassette-{n}.json"
    sent = build_store(store_path, n)
    build_cassette(cassette, n)
    calls = requests(n)
    floor_client = sdk(constant_transport())
    floors, ours, alone, theirs, opens, loads = [], [], [], [], [], []
    sample_size = min(n, plan.vcr_calls.get(n, 3))
    for _ in range(plan.repetitions):
        order = calls[:]
        rng.shuffle(order)
        gc.collect()
        started = time.perf_counter()
        store = FixtureStore.open(store_path)
        opens.append((time.perf_counter() - started) * 1e3)
        replaying = sdk(client=httpx2_client(store))
        for start in range(0, n, CHUNK):
            chunk = order[start : start + CHUNK]
            floors.append(_timed(chunk, floor_client))
            ours.append(_timed(chunk, replaying))
        order_sent = sent[:]
        rng.shuffle(order_sent)
        transport = Httpx2Transport(store)
        alone.extend(
            _transport_timed(order_sent[start : start + CHUNK], transport)
            for start in range(0, n, CHUNK)
        )
        store.close()

        sample = rng.sample(calls, sample_size)
        started = time.perf_counter()
        with vcr.use_cassette(
            str(cassette), record_mode="none", serializer="json", match_on=MATCH_ON
        ):
            loads.append((time.perf_counter() - started) * 1e3)
            theirs.append(_timed(sample, sdk(constant_transport())))
    return Row(
        n,
        statistics.median(floors),
        statistics.median(ours),
        statistics.median(alone),
        statistics.median(theirs),
        statistics.median(opens),
        statistics.median(loads),
        sample_size,
    )


def _verify(folder: Path) -> None:
    """Replay and vcrpy must return the recorded answers, not the floor's constant one."""
    build_store(folder / "check.jsonl", 3)
    build_cassette(folder / "check.json", 3)
    ours = sdk(client=httpx2_client(folder / "check.jsonl"))
    with vcr.use_cassette(
        str(folder / "check.json"), record_mode="none", serializer="json", match_on=MATCH_ON
    ):
        theirs = sdk(constant_transport())
        for i, args in enumerate(requests(3)):
            expected = data_response(i)["id"]
            assert ours.messages.create(**args).id == expected
            assert theirs.messages.create(**args).id == expected


def table(rows: list[Row]) -> str:
    """The markdown table of the results."""
    lines = [
        "| N | floor (MockTransport) µs/call | replaygate µs/call | vcrpy µs/call "
        "| replaygate / floor | vcrpy / replaygate | replaygate transport alone µs "
        "| store open ms | cassette load ms |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        vcr_note = "" if r.vcr_calls == r.n else f" ({r.vcr_calls} sampled)"
        lines.append(
            f"| {r.n:,} | {r.floor:,.0f} | {r.replaygate:,.0f} | {r.vcrpy:,.0f}{vcr_note} "
            f"| {r.replaygate / r.floor:.2f}x | {r.vcrpy / r.replaygate:,.0f}x "
            f"| {r.transport:,.0f} | {r.store_open_ms:,.1f} | {r.cassette_load_ms:,.1f} |"
        )
    return "\n".join(lines)


def verdicts(rows: list[Row]) -> list[str]:
    """The three targets, met or not."""
    by_n = {r.n: r for r in rows}
    small, large = rows[0], rows[-1]
    flat = large.replaygate / small.replaygate
    worst_floor = max(r.replaygate / r.floor for r in rows)
    out = [
        f"- flat in N: {large.n:,} / {small.n:,} = {flat:.2f}x (target <= 1.5x): "
        f"{'met' if flat <= 1.5 else 'NOT met'}",
        f"- vs the floor: worst {worst_floor:.2f}x (target <= 1.5x): "
        f"{'met' if worst_floor <= 1.5 else 'NOT met'}",
    ]
    if 1_000 in by_n:
        speedup = by_n[1_000].vcrpy / by_n[1_000].replaygate
        out.append(
            f"- vs vcrpy at N = 1,000: {speedup:,.0f}x faster (target >= 50x): "
            f"{'met' if speedup >= 50 else 'NOT met'}"
        )
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke run)")
    args = parser.parse_args(argv)
    plan = QUICK if args.quick else FULL
    logging.getLogger("vcr").setLevel(logging.WARNING)
    warnings.simplefilter("ignore", DeprecationWarning)  # the SDK's notice about the model id
    rng = random.Random(0)
    rows = []
    with tempfile.TemporaryDirectory(prefix="replaygate-bench-http-") as tmp:
        folder = Path(tmp)
        _verify(folder)
        for n in SIZES:
            rows.append(measure(n, folder, plan, rng))
            print(f"N={n:,} done", file=sys.stderr)
    print(
        f"anthropic {anthropic.__version__}, httpx2 {httpx2.__version__}, vcrpy "
        f"{vcr.__version__}, Python {platform.python_version()}, {platform.machine()}, "
        f"{'quick' if args.quick else 'full'} run ({plan.repetitions} repetitions)\n"
    )
    print(table(rows))
    print()
    print("\n".join(verdicts(rows)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
