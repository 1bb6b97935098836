"""Adding a sample to a stored request: an appended line against rewriting the file.

Run: ``.venv/bin/python bench/bench_samples.py [--sizes 1000 10000 100000]`` (about a
minute at the default sizes; prints a markdown table).

For each store size N (fixtures of about 2.3 KB, one JSONL file), one open store
receives K new samples of fixtures spread through the file, two ways side by side on
copies of the same file: ``record_response`` as it is (one sample line appended,
:meth:`FixtureStore.add_sample`) and the rewrite every sample cost before (the whole
fixture written again in place, ``put(..., replace=True)``, which rewrites the file
through a temporary copy). Then ``replaygate compact`` folds the K sample lines back.
Wall time per sample (each write is fsync-ed, as recording does); the ratio is the
figure.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _data
from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.store import FixtureStore, record_response
from replaygate.fixtures.store.compact import compact

SAMPLES = 20


def appended(store: FixtureStore, i: int) -> None:
    record_response(store, _data.request(i), _data.response(i + 1), sample=1)


def rewritten(store: FixtureStore, i: int) -> None:
    found = store.find(_data.request(i))
    assert found is not None
    updated = found[1].with_response(1, _data.response(i + 1), None)
    store.put(Fixture.create(updated.request, list(updated.responses), updated.meta), replace=True)


def per_sample(path: Path, n: int, add: Callable[[FixtureStore, int], None]) -> float:
    store = FixtureStore.open(path)
    picks = [(k * 7919) % n for k in range(SAMPLES)]
    start = time.perf_counter()
    for i in picks:
        add(store, i)
    took = (time.perf_counter() - start) / SAMPLES
    store.close()
    found = FixtureStore.open(path).lookup(_data.request(picks[0]))
    assert found is not None and found.samples == 2
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    args = parser.parse_args()
    print(f"{SAMPLES} samples added to an open store, wall time per sample\n")
    print("| fixtures | file | append | rewrite (before) | rewrite / append | compact after |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            base = Path(tmp) / f"base{n}.jsonl"
            size = _data.write_jsonl(base, n) / 2**20
            times = {}
            for name, add in (("append", appended), ("rewrite", rewritten)):
                copy = Path(tmp) / f"{name}{n}.jsonl"
                shutil.copyfile(base, copy)
                times[name] = per_sample(copy, n, add)
            start = time.perf_counter()
            (done,) = compact(Path(tmp) / f"append{n}.jsonl")
            folded = time.perf_counter() - start
            assert done.sample_lines == SAMPLES
            print(
                f"| {n:,} | {size:.0f} MiB | {times['append'] * 1e3:.2f} ms | "
                f"{times['rewrite'] * 1e3:.1f} ms | {times['rewrite'] / times['append']:.0f}x | "
                f"{folded:.2f} s |"
            )


if __name__ == "__main__":
    main()
