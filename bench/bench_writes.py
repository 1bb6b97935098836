"""Concurrent recording benchmark: threads writing new fixtures into one store.

Run: ``.venv/bin/python bench/bench_writes.py [--threads 16] [--per-thread 250]``
(prints a markdown table).

Each of T threads records P distinct requests through its own
:class:`~replaygate.fixtures.session.FixtureSession` over one shared store path (as
parallel tests recording into one store do), in the JSONL layout and in the folder
layout (one pretty ``.json`` file per fixture). Measured in wall time, side by side in
one run; the ratio folder / JSONL is the figure (target: within 3x).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _data
from replaygate.fixtures.fixture import make_meta
from replaygate.fixtures.session import FixtureSession, Sample
from replaygate.sanitize import SanitizeConfig

META = make_meta("anthropic.messages", "2023-06-01", "sim")


def record(store: Path, threads: int, per_thread: int) -> float:
    """Wall time for ``threads`` threads to record ``per_thread`` fixtures each."""
    requests = [
        [_data.request(t * per_thread + i) for i in range(per_thread)] for t in range(threads)
    ]
    responses = [_data.response(t) for t in range(threads)]

    def work(t: int) -> None:
        session = FixtureSession(
            store, mode="record-missing", approve_live=True, sanitize=SanitizeConfig()
        )
        for request in requests[t]:
            session.record(
                request, responses[t], Sample(0), interface="anthropic.messages", meta=META
            )

    workers = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    start = time.perf_counter()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--per-thread", type=int, default=250)
    args = parser.parse_args()
    n = args.threads * args.per_thread
    with tempfile.TemporaryDirectory() as tmp:
        jsonl = record(Path(tmp) / "store.jsonl", args.threads, args.per_thread)
        folder = record(Path(tmp) / "folder", args.threads, args.per_thread)
        written = len(list((Path(tmp) / "folder").rglob("*.json")))
    assert written == n, f"{written} of {n} fixtures written to the folder"
    print(f"{args.threads} threads x {args.per_thread} fixtures ({n:,}), wall time\n")
    print("| layout | wall time | per fixture |")
    print("| --- | --- | --- |")
    print(f"| JSONL | {jsonl:.2f} s | {jsonl / n * 1e3:.2f} ms |")
    print(f"| folder | {folder:.2f} s | {folder / n * 1e3:.2f} ms |")
    print(f"\nfolder / JSONL: **{folder / jsonl:.2f}x** (target: within 3x)")


if __name__ == "__main__":
    main()
