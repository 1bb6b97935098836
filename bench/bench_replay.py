"""Replay benchmarks: per-call overhead, opening a large store, nearest request on a miss.

Run: ``.venv/bin/python bench/bench_replay.py [--quick]`` (prints a markdown table).

- Replay overhead per ``ReplayModel.complete()`` call at 10, 1,000 and 100,000 fixtures
  (about 2 KB each), against a baseline that only converts the request and the
  response (``to_anthropic_request`` + ``from_anthropic_response``), measured side by
  side: repetitions are interleaved, each draws fresh conversations at random from the
  store, and the best repetition (CPU time, so that other load on the machine does
  not count) is compared, with the median shown beside it.
  Targets: flat (largest / smallest <= 1.5) and within 3x of the baseline.
- Opening a 100,000-fixture JSONL store against a bare loop that parses the same
  lines with orjson (best of interleaved repetitions), and the memory the open store
  holds (tracemalloc) against the file's size. Targets: within 3x; below the size.
- Finding the nearest recorded request on a miss at 100,000 fixtures, alone and as
  the whole mismatch error (diff included). Target: under a second.

``--quick`` runs the same measurements at 10,000 fixtures instead of 100,000, with
fewer repetitions: a smoke run, not the reference figures.
"""

from __future__ import annotations

import argparse
import gc
import platform
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _data
from replaygate import FixtureMismatchError, FixtureStore, Message, ReplayModel
from replaygate.models.providers import from_anthropic_response, to_anthropic_request


@dataclass
class Row:
    measure: str
    value: str
    reference: str
    ratio: str
    target: str
    ok: bool


def _cpu() -> float:
    """CPU time of this process: other load on the machine does not count."""
    return time.process_time()


def _per_call(fn: Callable[[], None], calls: int) -> float:
    start = _cpu()
    fn()
    return (_cpu() - start) / calls * 1e6


def _replay_round(
    model: ReplayModel, convs: Sequence[list[Message]], responses: Sequence[dict[str, Any]]
) -> tuple[float, float]:
    """One repetition: (replay, baseline) microseconds per call over the same conversations."""

    def replay() -> None:
        for conv in convs:
            model.complete(conv, _data.TOOLS)

    def baseline() -> None:
        for conv, response in zip(convs, responses, strict=True):
            to_anthropic_request(
                conv,
                _data.TOOLS,
                model=_data.MODEL,
                max_tokens=_data.MAX_TOKENS,
                system=_data.SYSTEM,
            )
            from_anthropic_response(response)

    return _per_call(replay, len(convs)), _per_call(baseline, len(convs))


def bench_replay(root: Path, sizes: Sequence[int], reps: int, calls: int) -> list[Row]:
    models = {}
    for n in sizes:
        path = root / f"replay-{n}.jsonl"
        if not path.exists():
            _data.write_jsonl(path, n)
        # The rounds send each drawn conversation many times (100 calls a round over a
        # store of 10): a send past the recorded answer gets it again (repeat_last), which
        # is the same lookup and answer as a first send.
        models[n] = ReplayModel(
            path,
            model=_data.MODEL,
            max_tokens=_data.MAX_TOKENS,
            system=_data.SYSTEM,
            repeat_last=True,
        )
    rng = random.Random(7)
    replay_us: dict[int, list[float]] = {n: [] for n in sizes}
    base_us: dict[int, list[float]] = {n: [] for n in sizes}
    first_us: list[float] = []
    largest = sizes[-1]
    unserved = list(range(largest))
    rng.shuffle(unserved)
    for _ in range(reps):
        for n in sizes:
            picks = [rng.randrange(n) for _ in range(calls)]
            convs = [_data.conversation(i) for i in picks]
            responses = [_data.response(i) for i in picks]
            # Steady state: every fixture was served once before (as in a test suite
            # that replays each fixture per run, its first serve is measured below).
            for conv in convs:
                models[n].complete(conv, _data.TOOLS)
            gc.collect()
            r, b = _replay_round(models[n], convs, responses)
            replay_us[n].append(r)
            base_us[n].append(b)
        fresh = [unserved.pop() for _ in range(min(calls, len(unserved)))]
        if fresh:
            gc.collect()
            first_us.append(
                _replay_round(
                    models[largest],
                    [_data.conversation(i) for i in fresh],
                    [_data.response(i) for i in fresh],
                )[0]
            )
    rows = []
    best = {n: min(replay_us[n]) for n in sizes}
    for n in sizes:
        r, b = best[n], min(base_us[n])
        rows.append(
            Row(
                f"replay `complete()`, {n:,} fixtures",
                f"{r:.1f} µs/call (median {statistics.median(replay_us[n]):.1f})",
                f"{b:.1f} µs/call, convert only (median {statistics.median(base_us[n]):.1f})",
                f"{r / b:.2f}x",
                "<= 3x",
                r / b <= 3,
            )
        )
    flat = best[sizes[-1]] / best[sizes[0]]
    rows.append(
        Row(
            f"replay flatness, {sizes[-1]:,} vs {sizes[0]:,} fixtures",
            f"{best[sizes[-1]]:.1f} µs/call",
            f"{best[sizes[0]]:.1f} µs/call",
            f"{flat:.2f}x",
            "<= 1.5x",
            flat <= 1.5,
        )
    )
    if first_us:
        first = min(first_us)
        rows.append(
            Row(
                f"first serve of a fixture, {largest:,} fixtures (stored key checked once)",
                f"{first:.1f} µs/call (median {statistics.median(first_us):.1f})",
                f"{min(base_us[largest]):.1f} µs/call, convert only",
                f"{first / min(base_us[largest]):.2f}x",
                "reported",
                True,
            )
        )
    for model in models.values():
        model.store.close()
    return rows


def _bare_parse(path: Path) -> None:
    with path.open("rb") as handle:
        for line in handle:
            orjson.loads(line)


def _open_store(path: Path) -> FixtureStore:
    return FixtureStore.open(path)


def bench_open(root: Path, n: int, reps: int) -> list[Row]:
    path = root / f"replay-{n}.jsonl"
    if not path.exists():
        _data.write_jsonl(path, n)
    size = path.stat().st_size
    _bare_parse(path)  # warm the page cache
    bare, opened = [], []
    for _ in range(reps):
        gc.collect()
        start = _cpu()
        _bare_parse(path)
        bare.append(_cpu() - start)
        gc.collect()
        start = _cpu()
        store = _open_store(path)
        opened.append(_cpu() - start)
        assert len(store) == n, len(store)
        store.close()
        del store
    b, o = min(bare), min(opened)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    store = _open_store(path)
    held, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    held -= before
    store.close()
    return [
        Row(
            f"open a {n:,}-fixture JSONL store",
            f"{o:.2f} s",
            f"{b:.2f} s (orjson parse of each line)",
            f"{o / b:.2f}x",
            "<= 3x",
            o / b <= 3,
        ),
        Row(
            f"memory held by the open store ({n:,} fixtures)",
            f"{held / 2**20:.1f} MiB (peak while opening {peak / 2**20:.1f} MiB)",
            f"{size / 2**20:.1f} MiB on disk",
            f"{held / size:.2f}x",
            "< 1x",
            held < size,
        ),
    ]


def bench_nearest(root: Path, n: int, reps: int) -> list[Row]:
    path = root / f"replay-{n}.jsonl"
    if not path.exists():
        _data.write_jsonl(path, n)
    model = ReplayModel(path, model=_data.MODEL, max_tokens=_data.MAX_TOKENS, system=_data.SYSTEM)
    target = n // 2
    conv = _data.conversation(target)
    reworded = [replace(conv[0], content=conv[0].content + " (reworded)"), *conv[1:]]
    request = to_anthropic_request(
        reworded, _data.TOOLS, model=_data.MODEL, max_tokens=_data.MAX_TOKENS, system=_data.SYSTEM
    )
    expected = _data.fixture(target).key
    start = time.perf_counter()
    found = model.store.nearest(request)  # the first miss ranks the whole store once
    first = time.perf_counter() - start
    assert found is not None and found[1].key == expected, "nearest picked the wrong fixture"
    near_s, error_s = [], []
    for _ in range(reps):
        start = time.perf_counter()
        found = model.store.nearest(request)
        near_s.append(time.perf_counter() - start)
        assert found is not None and found[1].key == expected, "nearest picked the wrong fixture"
        start = time.perf_counter()
        try:
            model.complete(reworded, _data.TOOLS)
        except FixtureMismatchError as err:
            assert expected in str(err)
        else:
            raise AssertionError("a reworded question was answered")
        error_s.append(time.perf_counter() - start)
    model.store.close()
    near, whole = statistics.median(near_s), statistics.median(error_s)
    return [
        Row(
            f"first miss of a session: the store's ranking features, {n:,} fixtures",
            f"{first * 1e3:.0f} ms",
            "",
            "",
            "reported",
            True,
        ),
        Row(
            f"nearest request on a later miss, {n:,} fixtures",
            f"{near * 1e3:.0f} ms",
            "",
            "",
            "< 1 s",
            near < 1,
        ),
        Row(
            f"whole mismatch error (lookup, nearest, diff), {n:,} fixtures",
            f"{whole * 1e3:.0f} ms",
            "",
            "",
            "< 1 s",
            whole < 1,
        ),
    ]


def render(rows: Sequence[Row]) -> str:
    lines = [
        "| measure | replaygate | reference | ratio | target | met |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    lines += [
        f"| {r.measure} | {r.value} | {r.reference} | {r.ratio} | {r.target} | "
        f"{'yes' if r.ok else '**no**'} |"
        for r in rows
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10,000 fixtures, fewer repetitions")
    parser.add_argument("--dir", type=Path, help="keep the generated stores here (reused)")
    args = parser.parse_args(argv)
    big = 10_000 if args.quick else 100_000
    reps = 5 if args.quick else 15
    with tempfile.TemporaryDirectory(prefix="replaygate-bench-") as tmp:
        root = args.dir or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        rows = bench_replay(root, (10, 1_000, big), reps=reps, calls=100)
        rows += bench_open(root, big, reps=3 if args.quick else 5)
        rows += bench_nearest(root, big, reps=5)
    print(
        f"Python {platform.python_version()} on {platform.machine()}, "
        f"{'quick run' if args.quick else 'full run'}; replay and open timed in CPU time, "
        f"best of {reps} interleaved repetitions (medians shown); nearest in wall time.\n"
    )
    print(render(rows))
    return 0 if all(r.ok for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
