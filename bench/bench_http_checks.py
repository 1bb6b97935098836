"""What the checks of an Anthropic replay cost through the SDK: each left out, in turn.

Run: ``.venv/bin/python bench/bench_http_checks.py [--repetitions 5]`` (about 4 minutes on
a 2-core machine; prints two markdown tables).

A replay's plan does, besides the work any exact replay does (the body parsed, its match
form and digest, the fixture's line read), the checks the design's laws ask for. This
script measures, through ``anthropic.Anthropic().messages.create`` over a 1,000-fixture
store of ``bench_http.py`` (each call the first serve of its fixture, as there), the
ratio of replaygate to the SDK's floor (``httpx2.MockTransport`` with one constant
answer, the two taking turns chunk by chunk) with one of them replaced by nothing:

- **seal**: the check that a fixture's stored key is its request's (its seal, a SHA-256);
- **identity**: the session's SHA-256 name of a request, which counts its sends
  (replaced by Python's ``hash``);
- **exact body**: the check that the body holds no key twice and no integer beyond 64
  bits (one ``orjson.dumps`` compared with the bytes sent);
- **headers**: the replayed headers' checks (one line of ASCII text each) and the retry
  and polling timings shortened;
- **use count**: the count of each fixture's answers (the hits log, ``--replaygate-strict``'s
  unused fixtures).

Each row runs in a process of its own, so that a replacement reaches no other row. The
rows with a check left out are not replaygate (they would answer an edited fixture, or
count no send): they say what each check costs where it runs, between the SDK's work.

A second table times some of the plan's own work, four of each call a transport's handler
makes, alone (in a loop) and between the SDK's work (a floor whose handler makes them
before it answers, less the floor, the two taking turns chunk by chunk): the body parsed
(``orjson.loads`` of the 1.76 KB request body), written sorted (its match form) and
digested (``hashlib.sha256``), and a pure-Python loop of about the same time.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

CHECKS = ("none", "seal", "identity", "exact body", "headers", "use count", "all five")


def _leave_out(check: str) -> None:
    """Replace ``check`` (one of :data:`CHECKS`) by nothing, in this process."""
    import orjson

    import replaygate.exact_json as exact_json
    import replaygate.fixtures.store.fixture_store as fixture_store
    import replaygate.http.exchange as exchange
    import replaygate.http.recorded as recorded
    from replaygate.fixtures.session import FixtureSession

    def no_seal(*_: Any) -> bool:
        return True

    def plain_loads(raw: bytes, *, unique_keys: bool = False) -> Any:
        return orjson.loads(raw)

    def as_recorded(headers: Any, status: int, *, pending: bool = False) -> list[Any]:
        return list(headers.items())

    def uncounted(self: FixtureSession, key: str) -> None:
        return None

    replacements: dict[str, Callable[[], None]] = {
        "seal": lambda: setattr(fixture_store, "key_holds", no_seal),
        "identity": lambda: setattr(exchange, "_identity", hash),
        "exact body": lambda: setattr(exact_json, "loads", plain_loads),
        "headers": lambda: setattr(recorded, "replay_headers", as_recorded),
        "use count": lambda: setattr(FixtureSession, "count_use", uncounted),
    }
    for name, replace in replacements.items():
        if check in (name, "all five"):
            replace()


def measure(check: str, stream: bool, repetitions: int) -> tuple[float, float]:
    """In this process: median µs per call of the floor and of replaygate with ``check``
    left out, over a 1,000-fixture store."""
    import httpx2

    import bench_http as b
    from replaygate.fixtures.store import FixtureStore
    from replaygate.http import Exchange, httpx2_client

    _leave_out(check)
    face = next(f for f in b.INTERFACES if f.provider == "anthropic" and f.stream == stream)
    path = Path(tempfile.mkdtemp()) / "checks.jsonl"
    b.build_store(face, path, b.MEMORY_N)
    floor = face.client(httpx2.Client(transport=b.constant(face)))
    calls = [face.args(i) for i in range(b.MEMORY_N)]
    floors: list[float] = []
    ours: list[float] = []
    for _ in range(repetitions):
        gc.collect()
        replaying = face.client(httpx2_client(Exchange(FixtureStore.open(path))))
        for start in range(0, b.MEMORY_N, b.CHUNK):
            floors.append(b._timed(face, floor, calls[start : start + b.CHUNK]))
            ours.append(b._timed(face, replaying, calls[start : start + b.CHUNK]))
    path.unlink()
    return statistics.median(floors), statistics.median(ours)


def between_calls(repetitions: int) -> list[tuple[str, float, float]]:
    """Each of a few operations: µs a call alone and between the SDK's work (see above)."""
    import hashlib

    import httpx2
    import orjson

    import bench_http as b

    face = next(f for f in b.INTERFACES if f.provider == "anthropic" and not f.stream)
    body = orjson.dumps(face.args(0))
    value = orjson.loads(body)

    def python_loop() -> int:
        total = 0
        for i in range(80):
            total += i
        return total

    operations: dict[str, Callable[[], object]] = {
        "orjson.loads of the body": lambda: orjson.loads(body),
        "its match form (orjson.dumps, sorted)": lambda: orjson.dumps(
            value, option=orjson.OPT_SORT_KEYS
        ),
        "hashlib.sha256 of the body": lambda: hashlib.sha256(body).digest(),
        "a pure-Python loop": python_loop,
    }
    constant = b.constant(face)

    def client(work: Callable[[], object] | None) -> Any:
        def handle(request: httpx2.Request) -> httpx2.Response:
            if work is not None:
                for _ in range(4):
                    work()
            return constant.handle_request(request)

        return face.client(httpx2.Client(transport=httpx2.MockTransport(handle)))

    floor = client(None)
    clients = {name: client(work) for name, work in operations.items()}
    calls = [face.args(i) for i in range(b.MEMORY_N)]
    times: dict[str, list[float]] = {name: [] for name in ("floor", *operations)}
    for _ in range(repetitions):
        for start in range(0, b.MEMORY_N, b.CHUNK):
            chunk = calls[start : start + b.CHUNK]
            times["floor"].append(b._timed(face, floor, chunk))
            for name, made in clients.items():
                times[name].append(b._timed(face, made, chunk))
    rows = []
    for name, work in operations.items():
        started = time.process_time()
        for _ in range(20_000):
            work()
        alone = (time.process_time() - started) / 20_000 * 1e6
        between = (statistics.median(times[name]) - statistics.median(times["floor"])) / 4
        rows.append((name, alone, between))
    return rows


def main() -> int:
    """Run each row in a process of its own and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--row", help=argparse.SUPPRESS)  # the measuring process's
    parser.add_argument("--stream", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.row is not None:
        floor, ours = measure(args.row, args.stream, args.repetitions)
        print(f"{floor} {ours}")
        return 0
    lines = [
        "| left out | interface | floor µs/call | replaygate µs/call | replaygate / floor "
        "| the check's cost, µs/call |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for stream in (False, True):
        whole = None
        for check in CHECKS:
            command = [sys.executable, __file__, "--row", check, "--repetitions"]
            command += [str(args.repetitions), *(["--stream"] if stream else [])]
            out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
            floor, ours = (float(x) for x in out.split())
            extra = ours - floor
            whole = extra if whole is None else whole
            cost = "" if check == "none" else f"{whole - extra:,.0f}"
            lines.append(
                f"| {check} | Anthropic messages, {'stream' if stream else 'plain'} "
                f"| {floor:,.0f} | {ours:,.0f} | {ours / floor:.3f}x | {cost} |"
            )
    lines += [
        "",
        "| work | µs a call, alone | µs a call, between the SDK's work | ratio |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name, alone, between in between_calls(args.repetitions):
        lines.append(f"| {name} | {alone:.1f} | {between:.1f} | {between / alone:.1f}x |")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
