"""``replaygate compact``: the CPU of the check of what it writes, against the rewrite itself.

Run: ``.venv/bin/python bench/bench_compact_check.py [--sizes 2000 20000] [--repeat R]``
(about a minute at the default sizes; prints a markdown table).

A JSONL store of N fixtures (about 2.2 KB each, ``bench/_data.py``) with 20 sample lines
appended is compacted three ways, each on a fresh copy of the same file, best CPU time
(user + sys of this process) of R runs:

- the rewrite alone: the store read (every line checked, as ``compact`` reads it), its
  sample lines folded and the file written atomically, with no check of the result;
- with the check as it was (kept here only to compare): the file written read back as a
  store, then every fixture of the old file looked up in it and its responses compared;
- ``compact_file`` as it is: each line checked as it is written (a kept line against the
  bytes the store read, a folded line read back as the store reads it), and the file
  written read back and compared with the bytes meant (SHA-256).

The check's cost is a run's CPU less the rewrite's; the figure is that cost over the
rewrite's, before and after. The three files written are asserted byte-identical.
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
from replaygate.errors import FixtureFormatError
from replaygate.fixtures.store import FixtureStore, record_response
from replaygate.fixtures.store.compact import _folded_lines, compact_file
from replaygate.outputs import atomic_write

SAMPLES = 20


def old_check(file: Path, store: FixtureStore, written: Path) -> None:
    """The check as it was: ``written`` read back as a store, each old fixture found in it."""
    with FixtureStore(written) as new:
        new.refresh()
        for loc in store.locations():
            old = store.read(loc)
            hit = new.find(old.request, check_key=False)
            if hit is None or hit[1].responses != old.responses:
                raise FixtureFormatError(str(file), loc.line, f"key {old.key} changed")
        if len(new) != len(store):
            raise FixtureFormatError(str(file), 0, "another number of fixtures")


def rewrite(file: Path, check: Callable[[Path, FixtureStore, Path], None] | None) -> None:
    """``compact_file`` as it was, with ``check`` (or none) of the file written."""
    with FixtureStore(file) as store:
        store.refresh()
        grown = store.sample_lines()
        atomic_write(
            file,
            _folded_lines(file, store, grown),
            check=None if check is None else lambda written: check(file, store, written),
        )


def best_cpu(base: Path, work: Path, run: Callable[[Path], object], repeat: int) -> float:
    """The least CPU seconds of ``repeat`` runs of ``run`` on fresh copies of ``base``."""
    took = []
    for _ in range(repeat):
        shutil.copyfile(base, work)
        start = time.process_time()
        run(work)
        took.append(time.process_time() - start)
    return min(took)


def store_with_samples(path: Path, n: int) -> float:
    """Write a store of ``n`` fixtures and ``SAMPLES`` sample lines at ``path``; its MiB."""
    _data.write_jsonl(path, n)
    with FixtureStore.open(path) as store:
        for k in range(SAMPLES):
            i = (k * 7919) % n
            record_response(store, _data.request(i), _data.response(i + 1), sample=1)
    return path.stat().st_size / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2_000, 20_000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"compact of a store with {SAMPLES} sample lines, best CPU of {args.repeat} runs\n")
    print(
        "| fixtures | file | rewrite alone | check before | before / rewrite "
        "| check after | after / rewrite | before / after |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            base, work = Path(tmp, f"base{n}.jsonl"), Path(tmp, "work.jsonl")
            size = store_with_samples(base, n)
            results = []
            runs: list[Callable[[Path], object]] = [
                lambda file: rewrite(file, None),
                lambda file: rewrite(file, old_check),
                compact_file,
            ]
            cpu = []
            for run in runs:
                cpu.append(best_cpu(base, work, run, args.repeat))
                results.append(work.read_bytes())
            assert results[0] == results[1] == results[2]
            alone, before, after = cpu[0], cpu[1] - cpu[0], cpu[2] - cpu[0]
            print(
                f"| {n:,} | {size:.0f} MiB | {alone:.3f} s | {before:.3f} s | "
                f"{before / alone:.2f}x | {after:.3f} s | {after / alone:.2f}x | "
                f"{before / max(after, 1e-9):.1f}x |"
            )


if __name__ == "__main__":
    main()
