"""Where a replayed Anthropic call's time goes, in counts that do not depend on the machine's load.

Run: ``.venv/bin/python bench/bench_http_callgrind.py [--calls 300]`` (needs valgrind;
about 15 minutes on a 2-core machine; prints a markdown table).

The same process runs four ways under ``valgrind --tool=callgrind --cache-sim=yes
--branch-sim=yes``, two at a time: set-up only (a 1,000-fixture store of
``bench_http.py``, every client made and warmed on calls not counted), then set-up and
``--calls`` calls through the SDK's floor (``httpx2.MockTransport`` with one constant
response), through replaygate (``httpx2_client`` over the store, each call the first
serve of its fixture), or the same requests' replay plans alone
(``Exchange.plan`` in a loop, no SDK work between). Every run has the same hash seed
and, where ``setarch`` is there, the same memory layout, so the set-up is the same in
each. A call's figures are the run's totals less the set-up's, divided by the calls:
instructions, first-level cache misses
(instructions and data) and mispredicted branches (callgrind's simple predictor, which
mispredicts the interpreter's indirect jumps more often than a recent CPU does, but
moves the same way). The question it answers: does a replayed call do more than the
floor plus its plan (no), and what grows when the plan runs between the SDK's work.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

COUNTERS = ("instructions", "I1 misses", "D1 misses", "mispredicts")
_COLLECTED = re.compile(r"Collected : ([\d ]+)")
"""The totals line of a callgrind log: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim."""


def run_mode(mode: str, calls: int) -> None:
    """In the measured process: set up, then make ``calls`` calls the ``mode`` way."""
    import httpx2

    import bench_http as b
    from replaygate.fixtures.store import FixtureStore
    from replaygate.http import httpx2_client
    from replaygate.http.exchange import Exchange

    face = next(f for f in b.INTERFACES if f.provider == "anthropic" and not f.stream)
    path = Path(tempfile.mkdtemp()) / "store.jsonl"
    b.build_store(face, path, 1000)
    floor = face.client(httpx2.Client(transport=b.constant(face)))
    sent: list[httpx2.Request] = []
    answer = b.constant(face)
    capture = httpx2.MockTransport(lambda r: (sent.append(r), answer.handle_request(r))[1])
    capturing = face.client(httpx2.Client(transport=capture))
    warm = face.client(httpx2_client(FixtureStore.open(path)))
    for i in range(600, 1000):  # every path run before on calls not counted
        face.call(floor, face.args(i))
        face.call(capturing, face.args(i))
        face.call(warm, face.args(i))
    replay = face.client(httpx2_client(FixtureStore.open(path)))
    alone = Exchange(FixtureStore.open(path))
    gc.collect()
    gc.disable()
    if mode == "floor":
        for i in range(calls):
            face.call(floor, face.args(i))
    elif mode == "replay":
        for i in range(calls):
            face.call(replay, face.args(i))
    elif mode == "plan":
        for request in sent[:calls]:
            alone.plan(request)


def counted(mode: str, calls: int, folder: Path) -> dict[str, int]:
    """The totals of one run under callgrind."""
    log = folder / f"{mode}.{calls}.log"
    command = [
        "valgrind", "--tool=callgrind", "--cache-sim=yes", "--branch-sim=yes",
        f"--callgrind-out-file={folder / f'{mode}.{calls}.out'}", f"--log-file={log}",
        sys.executable, __file__, "--run", mode, "--calls", str(calls),
    ]  # fmt: skip
    if shutil.which("setarch"):  # the same addresses in every run: no layout noise
        command = ["setarch", platform.machine(), "-R", *command]
    env = {**os.environ, "PYTHONHASHSEED": "0"}  # the same set-up, instruction for instruction
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)
    found = _COLLECTED.search(log.read_text())
    if found is None:
        raise SystemExit(f"no totals in {log}")
    ir, _, _, i1, d1r, d1w, _, _, _, _, bcm, _, bim = map(int, found.group(1).split())
    return dict(zip(COUNTERS, (ir, i1, d1r + d1w, bcm + bim), strict=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--run", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        run_mode(args.run, args.calls)
        return
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(2) as pool:
        runs = {"set-up": ("floor", 0), "floor": ("floor", args.calls)}
        runs |= {"replay": ("replay", args.calls), "plan": ("plan", args.calls)}
        futures = {name: pool.submit(counted, *run, Path(tmp)) for name, run in runs.items()}
        totals = {name: future.result() for name, future in futures.items()}
    base = totals.pop("set-up")
    per_call = {
        name: {k: (total[k] - base[k]) / args.calls for k in COUNTERS}
        for name, total in totals.items()
    }
    floor, replay, plan = per_call["floor"], per_call["replay"], per_call["plan"]
    print(f"Anthropic messages, plain; {args.calls} calls; per call\n")
    print("| counter | floor | replaygate | replaygate - floor | plan alone | ratio |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for k in COUNTERS:
        added = replay[k] - floor[k]
        print(
            f"| {k} | {floor[k]:,.0f} | {replay[k]:,.0f} | {added:,.0f} | {plan[k]:,.0f} "
            f"| {replay[k] / floor[k]:.3f}x |"
        )
    print(
        "\nratio: replaygate / floor. What a replayed call adds beyond its plan alone "
        "is what running between the SDK's work costs it."
    )


if __name__ == "__main__":
    main()
