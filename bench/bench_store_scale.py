"""A large JSONL store: open and verify against a bare parse of the same file.

Run: ``.venv/bin/python bench/bench_store_scale.py [--n 100000]`` (prints a markdown
table).

Writes N fixtures of about 2.3 KB each (a ResearchCopilot-like request and answer)
into one ``.jsonl`` file, then measures, each in a fresh process so peak memory is its
own: a bare ``orjson.loads`` of every line (the floor of reading the file),
``FixtureStore.open`` (index built, ready for lookups) and ``verify_store`` (every
check of ``replaygate verify``). CPU time and peak resident memory; the ratios to the
bare parse and to the file size are the figures.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _data
from replaygate.fixtures.fixture import Fixture, make_meta

MEASURE = """
import json, resource, sys, time
import orjson
path, what = sys.argv[1], sys.argv[2]
start = time.process_time()
if what == "parse":
    with open(path, "rb") as handle:
        for line in handle:
            orjson.loads(line)
elif what == "open":
    from replaygate.fixtures.store import FixtureStore
    store = FixtureStore.open(path)
    assert len(store) > 0
else:
    from replaygate.hygiene.verify import verify_store
    count, problems = verify_store(__import__("pathlib").Path(path))
    assert not problems, problems[:3]
cpu = time.process_time() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"cpu": cpu, "peak": peak}))
"""


def write_store(path: Path, n: int) -> None:
    meta = make_meta("anthropic.messages", "2023-06-01", "sim")
    answer = _data.response(0)
    with path.open("wb") as out:
        for i in range(n):
            out.write(Fixture.create(_data.request(i), [answer], meta).to_line())


def measure(path: Path, what: str) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, str(path), what], capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    result: dict[str, float] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "store.jsonl"
        write_store(path, args.n)
        size = path.stat().st_size / 2**20
        rows = {what: measure(path, what) for what in ("parse", "open", "verify")}
    floor = rows["parse"]["cpu"]
    print(f"{args.n:,} fixtures in one JSONL file of {size:.0f} MiB\n")
    print("| step | CPU time | / bare parse | peak memory | / file size |")
    print("| --- | --- | --- | --- | --- |")
    for what, label in (
        ("parse", "bare `orjson.loads` of each line"),
        ("open", "`FixtureStore.open`"),
        ("verify", "`verify_store`"),
    ):
        row = rows[what]
        print(
            f"| {label} | {row['cpu']:.2f} s | {row['cpu'] / floor:.2f}x | "
            f"{row['peak']:.0f} MiB | {row['peak'] / size:.2f} |"
        )
    print(f"\nverify / open: {rows['verify']['cpu'] / rows['open']['cpu']:.2f}x")


if __name__ == "__main__":
    main()
