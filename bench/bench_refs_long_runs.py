"""The search for store names in the files ``patrol`` and ``prune`` read for references.

Run: ``.venv/bin/python bench/bench_refs_long_runs.py [--repeat R]`` (prints a markdown
table).

A file under ``--refs`` holding a long run of letters, digits, ``_`` or ``-`` with no
``.jsonl`` in it (base64url data, a hex dump) was searched for a store name from each of
its characters, each time to the run's end: the time grew with the square of the run.
The name is now looked for from the start of each run only. Measured, best of R runs,
side by side in one process, as it was (kept here only to compare) and as it is.
"""

from __future__ import annotations

import argparse
import re
import time

from replaygate.hygiene.refs import _NAME

OLD_NAME = re.compile(r"[\w.\-]+\.jsonl?\b")


def best(pattern: re.Pattern[str], text: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        pattern.findall(text)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    repeat = parser.parse_args().repeat
    print("| text | as it was (s) | as it is (s) | was / is |")
    print("| --- | --- | --- | --- |")
    for label, text, old_too in [
        ("10 KB run", "a" * 10_000, True),
        ("40 KB run", "a" * 40_000, True),
        ("4 MB run (a piece of a file)", "a" * 4_000_000, False),
    ]:
        new = best(_NAME, text, repeat)
        if old_too:
            old = best(OLD_NAME, text, repeat)
            print(f"| {label} | {old:.3f} | {new:.4f} | {old / new:,.0f}x |")
        else:
            print(f"| {label} | (hours) | {new:.4f} | |")


if __name__ == "__main__":
    main()
