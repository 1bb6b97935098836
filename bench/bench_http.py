"""HTTP replay benchmark: the official SDKs replaying recorded calls, against their own floor.

Run: ``.venv/bin/python bench/bench_http.py [--quick] [--provider anthropic|openai]`` (prints
markdown tables; about 10 minutes on a 2-core machine shared with other work, ``--quick``
about 5: a smoke run; ``--provider`` measures one provider's two interfaces only).

Four interfaces, each through its official SDK over ``httpx2``: the Anthropic Messages
API (``anthropic.Anthropic().messages.create``) and OpenAI Chat Completions
(``openai.OpenAI().chat.completions.create``), each plain and streamed (every event
read). The calls are the ResearchCopilot-like conversations of ``bench/_data.py``
(system prompt, two tools, five turns, about 2 KB a request): 1,000 conversations,
call ``i`` asking question ``i`` in conversation ``i % 1,000``, N distinct calls per
store, N = 100, 1,000 and 100,000. The same client code is timed, per call, over:

- **floor**: ``httpx2.MockTransport`` returning one constant response (a recorded
  answer's bytes, the SSE body for a stream): the SDK's own cost, nothing looked up;
- **replaygate**: ``replaygate.http.httpx2_client(store)`` over a JSONL store of the N
  fixtures, a new client (a new session) each repetition. Every call is the first
  serve of its fixture in that store object, so it includes the check that the
  fixture's stored key is its request's (the store is opened anew each repetition, or,
  at 100,000, each repetition draws calls no earlier one served);
- **vcrpy** (N = 100 and 1,000): ``vcr.use_cassette(..., match_on=["method", "uri",
  "body"], record_mode="none")`` over a cassette of the same N interactions that
  vcrpy recorded itself through the same SDK (it patches ``httpx2`` transports, so
  the SDK and its transport stack are the same as in the other columns). Its lookup is
  a linear scan that parses both JSON bodies of every recorded interaction, so a
  random sample of the calls is timed (the count is shown).

The fixtures are what recording through the SDK writes: the request envelope the SDK
sends, the recorded response and the seal the writer stamps. For the first calls of
each interface the script records through the SDK and checks that its own envelopes
are the same; the rest of a store is written directly (recording 100,000 calls
through an SDK would take most of the run).

Times are CPU time of this process (``time.process_time``), so other load on the
machine counts less. A repetition replays its calls in a fresh random order, in chunks
of 50, the floor and replaygate taking turns chunk by chunk; a figure is the median
per-call time over chunks (vcrpy: over repetitions). The ratio of the two columns' best
chunks is shown beside the ratio of their medians: on a machine busy with other work,
the least disturbed chunks come nearest to what each costs on its own. The bytes kept per distinct
request are what a session over a 1,000-fixture store still holds (tracemalloc, after
a garbage collection) once each request was replayed, divided by 1,000.

``--split`` measures only where replay's time goes, at N = 1,000: the floor, replaygate,
and replaygate answering every call with the answer it planned for the first (its
transport and the SDK reading a replayed response, without each request's plan), the
three taking turns chunk by chunk; the replaying client also times its own plans where
they run (two clock reads a call), so the gap splits into the plan itself and what the
SDK's own work costs more after it. A fourth client, taking its turn too, is a floor that
answers each call with that call's own answer, as replay does, where the floor answers
every call with answer 0 (the SDK reads answers of other lengths and texts: a few
percent more than the constant one). A fifth client is replaygate with a bare plan: before
answering as the third does, it does only the work no exact replay can leave out (the
request's body parsed, its match form and digest made, its fixture's line read and parsed
without its request), nothing checked, counted or made: the least any plan costs in the
SDK's calls.

Targets: replaygate within 1.15x of the floor at 1,000 and 100,000 fixtures for every
interface; at most 2 KB kept per distinct request.
"""

from __future__ import annotations

import argparse
import functools
import gc
import hashlib
import logging
import os
import platform
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import openai
import orjson
import vcr

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _data
from replaygate.fixtures.fingerprint import MATCH_OPTIONS
from replaygate.fixtures.fixture import Fixture, make_meta
from replaygate.fixtures.store import FixtureStore
from replaygate.http import Exchange, httpx2_client, interface_of, request_envelope
from replaygate.http.envelope import MEANINGFUL_HEADERS, interface_version_of
from replaygate.http.recorded import plain_response, stream_response
from replaygate.models.providers import (
    from_anthropic_response,
    to_openai_request,
    to_openai_response,
)
from replaygate.sim.streaming import anthropic_events, openai_chunks

SIZES = (100, 1_000, 100_000)
BASES = 1_000
"""Distinct conversations; call ``i`` asks question ``i`` in conversation ``i % BASES``."""
VCR_SIZES = (100, 1_000)
MEMORY_N = 1_000
CHECKED = 20
"""Calls of each interface recorded through the SDK to check the written envelopes."""
MATCH_ON = ["method", "uri", "body"]
CASSETTE_CHUNK = 5
CHUNK = 50
GPT = "gpt-5"
RECORDED_AT = "2026-01-01T00:00:00Z"


@dataclass(frozen=True)
class Plan:
    """How much to measure: repetitions, calls timed per repetition, vcrpy calls per N."""

    repetitions: int
    calls: int
    stream_calls: int
    vcr_calls: dict[int, int]


FULL = Plan(repetitions=5, calls=1_000, stream_calls=500, vcr_calls={100: 20, 1_000: 3})
QUICK = Plan(repetitions=2, calls=300, stream_calls=150, vcr_calls={100: 5, 1_000: 1})


@dataclass(frozen=True)
class Interface:
    """One SDK call shape: a provider, plain or streamed."""

    provider: str
    stream: bool

    @property
    def name(self) -> str:
        """How the tables name it."""
        api = "Anthropic messages" if self.provider == "anthropic" else "OpenAI chat"
        return f"{api}, {'stream' if self.stream else 'plain'}"

    def args(self, i: int) -> dict[str, Any]:
        """The keyword arguments of the SDK call ``i``: conversation ``i % BASES`` asking
        question ``i`` (a fresh copy)."""
        old, new = b'"Question %d:' % (i % BASES), b'"Question %d:' % i
        args: dict[str, Any] = orjson.loads(_base_args(self, i % BASES).replace(old, new, 1))
        return args

    def answer(self, i: int) -> tuple[list[tuple[str, str]], bytes, dict[str, Any]]:
        """The server's answer to call ``i`` (that of conversation ``i % BASES``): headers,
        body bytes, and its recorded form."""
        return _answer(self, i % BASES)

    def client(self, http: httpx2.Client) -> Any:
        """The SDK client every column uses (``max_retries=0``: nothing here is retried)."""
        if self.provider == "anthropic":
            url = "https://api.anthropic.com"
            return anthropic.Anthropic(api_key="k", base_url=url, http_client=http, max_retries=0)
        url = "https://api.openai.com/v1"
        return openai.OpenAI(api_key="k", base_url=url, http_client=http, max_retries=0)

    def call(self, client: Any, args: dict[str, Any]) -> Any:
        """One SDK call, as timed: a stream is read to its end."""
        if self.provider == "anthropic":
            answer = client.messages.create(**args)
        else:
            answer = client.chat.completions.create(**args)
        if self.stream:
            for _ in answer:
                pass
        return answer

    def outcome(self, client: Any, args: dict[str, Any]) -> list[str]:
        """What one SDK call returned (every event of a stream), for checking answers."""
        if self.provider == "anthropic":
            created = client.messages.create(**args)
        else:
            created = client.chat.completions.create(**args)
        events = created if self.stream else [created]
        return [event.model_dump_json() for event in events]


@functools.cache
def _base_args(face: Interface, i: int) -> bytes:
    """The arguments of call ``i`` (``i < BASES``) as JSON, made once."""
    if face.provider == "anthropic":
        args = _data.request(i)
    else:
        messages = _data.conversation(i)
        args = to_openai_request(
            messages, _data.TOOLS, model=GPT, max_tokens=_data.MAX_TOKENS, system=_data.SYSTEM
        )
    return orjson.dumps({**args, "stream": True} if face.stream else args)


@functools.cache
def _answer(face: Interface, i: int) -> tuple[list[tuple[str, str]], bytes, dict[str, Any]]:
    """The answer to call ``i`` (``i < BASES``), made once."""
    body = _data.response(i)
    if face.provider == "openai":
        reply = from_anthropic_response(body)
        body = to_openai_response(reply, model=GPT, completion_id=f"chatcmpl-{i:08d}")
    request_id = ("request-id", f"req_{i:08d}")
    if not face.stream:
        headers = [("content-type", "application/json"), request_id]
        raw = orjson.dumps(body)
        return headers, raw, plain_response(200, headers, raw)
    events = anthropic_events(body) if face.provider == "anthropic" else openai_chunks(body)
    headers = [("content-type", "text/event-stream; charset=utf-8"), request_id]
    raw = b"".join(event.encode() for event in events)
    return headers, raw, stream_response(200, headers, events, "complete")


INTERFACES = tuple(Interface(p, s) for p in ("anthropic", "openai") for s in (False, True))


def answering(face: Interface) -> Callable[[httpx2.Request], httpx2.Response]:
    """A handler answering call ``i`` with answer ``i`` (``i`` read from the request)."""

    def handle(request: httpx2.Request) -> httpx2.Response:
        i = _index_of(orjson.loads(request.content))
        headers, raw, _ = face.answer(i)
        return httpx2.Response(200, headers=headers, content=raw)

    return handle


def _index_of(body: dict[str, Any]) -> int:
    """The call number of a request body: its question reads ``Question <i>: ...``."""
    messages = body["messages"]
    question = next(m for m in messages if m["role"] == "user")["content"]
    text = question if isinstance(question, str) else question[0]["text"]
    return int(text.split(":", 1)[0].removeprefix("Question "))


def constant(face: Interface) -> httpx2.MockTransport:
    """The floor: answer 0's bytes for every call."""
    headers, raw, _ = face.answer(0)
    return httpx2.MockTransport(lambda _: httpx2.Response(200, headers=headers, content=raw))


class InTurn:
    """A floor answering each call with its own answer, as replay does: the answers of
    the calls about to be made are set with :meth:`expect`, and handed in turn (nothing
    is read from the request)."""

    def __init__(self, face: Interface) -> None:
        self.face = face
        self.pending: list[int] = []

    def expect(self, calls: range) -> None:
        """Answer the next calls with the answers of ``calls``, in order."""
        self.pending = list(reversed(calls))

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        headers, raw, _ = self.face.answer(self.pending.pop())
        return httpx2.Response(200, headers=headers, content=raw)


def build_store(face: Interface, path: Path, n: int) -> None:
    """Write the N fixtures of ``face``; the first :data:`CHECKED` are recorded through the SDK
    and must equal the written ones."""
    sent: list[dict[str, Any]] = []

    def record(request: httpx2.Request) -> httpx2.Response:
        sent.append(request_envelope(request))
        return answering(face)(request)

    recorder = face.client(httpx2.Client(transport=httpx2.MockTransport(record)))
    for i in range(min(n, CHECKED)):
        face.call(recorder, face.args(i))
    shape = {k: v for k, v in sent[0].items() if k != "body"}
    interface, version = interface_of(shape["path"]), interface_version_of(sent[0])
    meta = make_meta(interface, version, "scripted", recorded_at=RECORDED_AT)
    with path.open("wb") as handle:
        for i in range(n):
            envelope = {**shape, "body": face.args(i)}
            if i < len(sent) and envelope != sent[i]:
                raise SystemExit(f"{face.name}: call {i} sent {sent[i]}, not {envelope}")
            fixture = Fixture.create(envelope, [face.answer(i)[2]], meta)
            handle.write(fixture.sealed().to_line())


def build_cassette(face: Interface, path: Path, n: int) -> None:
    """Let vcrpy record the same N calls through the same SDK into one JSON cassette.

    vcrpy checks every request against everything recorded so far while recording, so
    the calls are recorded in chunks (separate cassettes) and their interactions joined.
    """
    client = face.client(httpx2.Client(transport=httpx2.MockTransport(answering(face))))
    interactions: list[Any] = []
    recorded: dict[str, Any] = {}
    for start in range(0, n, CASSETTE_CHUNK):
        part = path.with_name(f"{path.stem}.part{start}.json")
        with vcr.use_cassette(str(part), record_mode="all", serializer="json", match_on=MATCH_ON):
            for i in range(start, min(n, start + CASSETTE_CHUNK)):
                face.call(client, face.args(i))
        recorded = orjson.loads(part.read_bytes())
        interactions.extend(recorded["interactions"])
        part.unlink()
    recorded["interactions"] = interactions
    path.write_bytes(orjson.dumps(recorded))


def _timed(face: Interface, client: Any, calls: Sequence[dict[str, Any]]) -> float:
    """CPU microseconds per call over ``calls``."""
    started = time.process_time()
    for args in calls:
        face.call(client, args)
    return (time.process_time() - started) / len(calls) * 1e6


@dataclass
class Row:
    """The per-call microseconds of one interface at one N."""

    face: Interface
    n: int
    floor: float
    replaygate: float
    best: float
    """Best replaygate chunk over best floor chunk: the ratio least disturbed by other load."""
    timed: int
    store_open_ms: float
    vcrpy: float | None = None
    vcr_calls: int = 0


def measure(face: Interface, n: int, folder: Path, plan: Plan, rng: random.Random) -> Row:
    """Build the store (and the cassette) of N calls, then time the columns side by side."""
    store_path = folder / "store.jsonl"
    build_store(face, store_path, n)
    per_rep = min(n, plan.stream_calls if face.stream else plan.calls)
    floor_client = face.client(httpx2.Client(transport=constant(face)))
    order = list(range(n))
    rng.shuffle(order)
    reopen = per_rep * plan.repetitions > n
    opens: list[float] = []

    def opened() -> FixtureStore:
        started = time.perf_counter()
        store = FixtureStore.open(store_path)
        opens.append((time.perf_counter() - started) * 1e3)
        return store

    store = None if reopen else opened()
    floors: list[float] = []
    ours: list[float] = []
    for rep in range(plan.repetitions):
        if reopen:
            picked = rng.sample(range(n), per_rep)
        else:
            picked = order[rep * per_rep : (rep + 1) * per_rep]
        calls = [face.args(i) for i in picked]
        gc.collect()
        current = opened() if store is None else store
        replaying = face.client(httpx2_client(current))
        for start in range(0, per_rep, CHUNK):
            chunk = calls[start : start + CHUNK]
            floors.append(_timed(face, floor_client, chunk))
            ours.append(_timed(face, replaying, chunk))
        if store is None:
            current.close()
    if store is not None:
        store.close()
    row = Row(
        face,
        n,
        statistics.median(floors),
        statistics.median(ours),
        min(ours) / min(floors),
        per_rep,
        statistics.median(opens),
    )
    if n in VCR_SIZES:
        cassette = folder / "cassette.json"
        build_cassette(face, cassette, n)
        row.vcr_calls = min(n, plan.vcr_calls[n])
        theirs = []
        for _ in range(plan.repetitions):
            sample = [face.args(i) for i in rng.sample(range(n), row.vcr_calls)]
            with vcr.use_cassette(
                str(cassette), record_mode="none", serializer="json", match_on=MATCH_ON
            ):
                client = face.client(httpx2.Client(transport=constant(face)))
                theirs.append(_timed(face, client, sample))
        row.vcrpy = statistics.median(theirs)
        cassette.unlink()
    store_path.unlink()
    return row


def kept_per_request(face: Interface, folder: Path, n: int = MEMORY_N) -> float:
    """What a replaying session still holds per distinct request once ``n`` were answered."""
    path = folder / "memory.jsonl"
    build_store(face, path, n)
    calls = [face.args(i) for i in range(n)]
    store = FixtureStore.open(path)
    client = face.client(httpx2_client(store))
    face.call(client, calls[0])  # the first call's one-time costs (imports, caches)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    for args in calls[1:]:
        face.call(client, args)
    gc.collect()
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    kept = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    store.close()
    path.unlink()
    return kept / (n - 1)


def _check(face: Interface, folder: Path) -> None:
    """Replay and vcrpy must return the recorded answers, not the floor's constant one."""
    build_store(face, folder / "check.jsonl", 3)
    build_cassette(face, folder / "check.json", 3)
    ours = face.client(httpx2_client(folder / "check.jsonl"))
    server = face.client(httpx2.Client(transport=httpx2.MockTransport(answering(face))))
    expected = [face.outcome(server, face.args(i)) for i in range(3)]
    assert expected[1] != expected[0]
    cassette = str(folder / "check.json")
    with vcr.use_cassette(cassette, record_mode="none", serializer="json", match_on=MATCH_ON):
        theirs = face.client(httpx2.Client(transport=constant(face)))
        for i in range(3):
            assert face.outcome(ours, face.args(i)) == expected[i], face.name
            assert face.outcome(theirs, face.args(i)) == expected[i], face.name


def table(rows: list[Row]) -> str:
    """The markdown table of the per-call times."""
    lines = [
        "| interface | N | floor µs/call | replaygate µs/call | replaygate / floor "
        "| best chunks "
        "| vcrpy µs/call | vcrpy / replaygate | calls timed per repetition | store open ms |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        if r.vcrpy is None:
            theirs = "| - | -"
        else:
            note = "" if r.vcr_calls == r.n else f" ({r.vcr_calls} sampled)"
            theirs = f"| {r.vcrpy:,.0f}{note} | {r.vcrpy / r.replaygate:,.0f}x"
        lines.append(
            f"| {r.face.name} | {r.n:,} | {r.floor:,.0f} | {r.replaygate:,.0f} "
            f"| {r.replaygate / r.floor:.2f}x | {r.best:.2f}x {theirs} | {r.timed:,} "
            f"| {r.store_open_ms:,.1f} |"
        )
    return "\n".join(lines)


class PlannedOnce(Exchange):
    """A replaying session that plans its first request and answers every later one with
    that answer: the transport and the SDK's reading of a replayed response, without the
    plan (envelope, match form, lookup, confirmation) of each request."""

    first: Any = None

    def plan(self, request: Any) -> Any:
        if self.first is None:
            self.first = super().plan(request)
        return self.first


class BarePlan(PlannedOnce):
    """:class:`PlannedOnce` doing before each answer only the work no plan can leave out:
    the request's body parsed, its match form and digest made, its fixture's line read at
    the offset an index of the store's file gives and parsed without its request. Nothing
    is checked or counted and no response is made: what any exact replay costs at least."""

    def __init__(self, store: FixtureStore, path: Path) -> None:
        super().__init__(store)
        self.handle = os.open(path, os.O_RDONLY)
        self.lines: dict[bytes, tuple[int, int, int]] = {}
        offset = 0
        for line in path.read_bytes().splitlines(keepends=True):
            form = orjson.dumps(orjson.loads(line)["request"], option=MATCH_OPTIONS)
            digest = hashlib.sha256(form).digest()
            self.lines[digest] = (offset, len(line), line.index(form))
            offset += len(line)

    def plan(self, request: Any) -> Any:
        envelope = {
            "method": request.method,
            "path": request.url.raw_path.decode(),
            "headers": {k: v for k, v in request.headers.items() if k in MEANINGFUL_HEADERS},
            "body": orjson.loads(request.content),
        }
        form = orjson.dumps(envelope, option=MATCH_OPTIONS)
        offset, length, at = self.lines[hashlib.sha256(form).digest()]
        line = os.pread(self.handle, length, offset)
        orjson.loads(b"".join((line[:at], b"null", line[at + len(form) :])))
        return super().plan(request)

    def close(self) -> None:
        """Close the store's file."""
        os.close(self.handle)


class TimedPlan(Exchange):
    """A replaying session that adds up the time of its own plans (the plan timed where it
    runs, between the SDK's work, instead of taken as a difference of two clients)."""

    nanoseconds = 0

    def plan(self, request: Any) -> Any:
        started = time.perf_counter_ns()
        try:
            return super().plan(request)
        finally:
            self.nanoseconds += time.perf_counter_ns() - started


Split = tuple[float, float, float, float, float, float, float]
"""Median µs per call: the floor, replaygate, replaygate without its plan, the plan alone,
the plan timed inside the replaying client's SDK calls, the floor answering each call
with its own answer (:class:`InTurn`), and replaygate with a bare plan (:class:`BarePlan`)."""


def split(face: Interface, folder: Path, chunks: int) -> Split:
    """:data:`Split` over a 1,000-fixture store: the three clients taking turns chunk by
    chunk, and the plan of the same requests in a loop of its own (no SDK work between)."""
    path = folder / "split.jsonl"
    build_store(face, path, MEMORY_N)
    calls = [face.args(i) for i in range(MEMORY_N)]
    sent: list[httpx2.Request] = []
    answer = answering(face)
    capture = httpx2.MockTransport(lambda request: (sent.append(request), answer(request))[1])
    capturing = face.client(httpx2.Client(transport=capture))
    for args in calls:
        face.call(capturing, args)
    floor_client = face.client(httpx2.Client(transport=constant(face)))
    in_turn = InTurn(face)
    own_answers = face.client(httpx2.Client(transport=httpx2.MockTransport(in_turn)))
    times: tuple[list[float], ...] = ([], [], [], [], [], [], [])
    by_client, plans, inside, own, bare = times[:3], times[3], times[4], times[5], times[6]
    for _ in range(chunks):
        gc.collect()
        timed = TimedPlan(FixtureStore.open(path))
        barely = BarePlan(FixtureStore.open(path), path)
        clients = (
            floor_client,
            face.client(httpx2_client(timed)),
            face.client(httpx2_client(PlannedOnce(FixtureStore.open(path)))),
            face.client(httpx2_client(barely)),
        )
        alone = Exchange(FixtureStore.open(path))
        for start in range(0, MEMORY_N, CHUNK):
            timed.nanoseconds = 0
            for column, client in zip((*by_client, bare), clients, strict=True):
                column.append(_timed(face, client, calls[start : start + CHUNK]))
            inside.append(timed.nanoseconds / CHUNK / 1e3)
            in_turn.expect(range(start, start + CHUNK))
            own.append(_timed(face, own_answers, calls[start : start + CHUNK]))
            started = time.process_time()
            for request in sent[start : start + CHUNK]:
                alone.plan(request)
            plans.append((time.process_time() - started) / CHUNK * 1e6)
        barely.close()
    path.unlink()
    floor, ours, unplanned, plan, planned_inside, in_turn_floor, bare_plan = (
        statistics.median(c) for c in times
    )
    return floor, ours, unplanned, plan, planned_inside, in_turn_floor, bare_plan


def split_table(splits: dict[Interface, Split]) -> str:
    """The markdown table of :func:`split`."""
    lines = [
        "| interface | floor µs/call | replaygate | replaygate without its plan "
        "| replaygate / floor | without its plan / floor | the plan in SDK calls "
        "| the plan timed inside SDK calls | the plan in a loop of its own "
        "| floor, each call its own answer | replaygate / that floor "
        "| replaygate with a bare plan / floor |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for face, (floor, ours, unplanned, plan, inside, own, bare) in splits.items():
        lines.append(
            f"| {face.name} | {floor:,.0f} | {ours:,.0f} | {unplanned:,.0f} | "
            f"{ours / floor:.3f}x | {unplanned / floor:.3f}x | {ours - unplanned:,.0f} "
            f"| {inside:,.0f} | {plan:,.0f} | {own:,.0f} | {ours / own:.3f}x "
            f"| {bare / floor:.3f}x |"
        )
    return "\n".join(lines)


def verdicts(rows: list[Row], kept: dict[Interface, float]) -> list[str]:
    """The targets, met or not."""
    gated = [r for r in rows if r.n >= 1_000]
    worst = max(gated, key=lambda r: r.replaygate / r.floor)
    ratio = worst.replaygate / worst.floor
    best = max(gated, key=lambda r: r.best)
    most = max(kept.values())
    return [
        f"- vs the floor at N >= 1,000: worst {ratio:.2f}x ({worst.face.name}, N = "
        f"{worst.n:,}; target <= 1.15x): {'met' if ratio <= 1.15 else 'NOT met'}; by best "
        f"chunks, worst {best.best:.2f}x ({best.face.name}, N = {best.n:,})",
        f"- kept per distinct request: at most {most:,.0f} bytes (target <= 2,048): "
        f"{'met' if most <= 2048 else 'NOT met'}",
    ]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke run)")
    parser.add_argument(
        "--provider",
        choices=("anthropic", "openai"),
        help="measure only this provider's interfaces (default: both)",
    )
    parser.add_argument(
        "--split",
        action="store_true",
        help="only where replay's time goes: the floor, replaygate, and replaygate answering "
        "every call with one planned answer, side by side at N = 1,000",
    )
    args = parser.parse_args(argv)
    faces = [f for f in INTERFACES if args.provider in (None, f.provider)]
    plan = QUICK if args.quick else FULL
    logging.getLogger("vcr").setLevel(logging.WARNING)
    warnings.simplefilter("ignore", DeprecationWarning)  # the SDK's notice about the model id
    if args.split:
        with tempfile.TemporaryDirectory(prefix="replaygate-bench-http-") as tmp:
            splits = {face: split(face, Path(tmp), plan.repetitions) for face in faces}
        print(split_table(splits))
        return 0
    rng = random.Random(0)
    rows: list[Row] = []
    kept: dict[Interface, float] = {}
    with tempfile.TemporaryDirectory(prefix="replaygate-bench-http-") as tmp:
        folder = Path(tmp)
        for face in faces:
            _check(face, folder)
            kept[face] = kept_per_request(face, folder)
            for n in SIZES:
                rows.append(measure(face, n, folder, plan, rng))
                print(f"{face.name}, N={n:,} done", file=sys.stderr)
    print(
        f"anthropic {anthropic.__version__}, openai {openai.__version__}, httpx2 "
        f"{httpx2.__version__}, vcrpy {vcr.__version__}, Python {platform.python_version()}, "
        f"{platform.machine()}, {'quick' if args.quick else 'full'} run "
        f"({plan.repetitions} repetitions)\n"
    )
    print(table(rows))
    print()
    print("| interface | bytes kept per distinct request (N = 1,000) |")
    print("| --- | ---: |")
    for face, size in kept.items():
        print(f"| {face.name} | {size:,.0f} |")
    print()
    print("\n".join(verdicts(rows, kept)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
