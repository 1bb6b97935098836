"""Patrol's table: CPU of writing it line by line against drawing it with rich, side by side.

Run: ``.venv/bin/python bench/bench_patrol_table.py [--full] [--repeat R]`` (about 20 s;
``--full`` adds 100,000 rows, about a minute more; prints a markdown table).

``replaygate patrol`` prints one row per fixture when its output is not a terminal (a CI
log, a file, a pipe). The rows are those of a store of N fixtures of one file, each
never played: the shape of a large store's patrol. Both writers get the same rows, in
turns, best CPU time (user + sys of this process) of R runs each; the two outputs are
checked equal first (as ``render_patrol`` writes them, each line's end stripped).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence

from replaygate.hygiene.patrol_report import plain_table, rich_table

Rows = Sequence[tuple[str, ...]]


def rows_of(count: int) -> list[tuple[str, ...]]:
    """The patrol rows of a store of ``count`` fixtures, none played."""
    return [
        ("tests/fixtures/research copilot.jsonl", f"{i:016x}", "2026-01-01", "48w", "0", "0",
         "old, unplayed")
        for i in range(count)
    ]  # fmt: skip


def best(write: Callable[[Rows], str | None], rows: Rows, repeat: int) -> float:
    """The least CPU seconds of ``repeat`` runs of ``write(rows)``."""
    times = []
    for _ in range(repeat):
        started = time.process_time()
        write(rows)
        times.append(time.process_time() - started)
    return min(times)


def stripped(text: str | None) -> list[str]:
    assert text is not None, "the rows are plain: the table is written line by line"
    return [line.rstrip() for line in text.splitlines()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--full", action="store_true", help="add 100,000 rows")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each writer (3)")
    options = parser.parse_args()
    counts = [1_000, 10_000] + ([100_000] if options.full else [])
    print("| rows | rich draws it | written line by line | ratio |")
    print("| ---: | ---: | ---: | ---: |")
    for count in counts:
        rows = rows_of(count)
        assert stripped(plain_table(rows)) == stripped(rich_table(rows))
        repeat = 1 if count >= 100_000 else options.repeat
        drawn, written = best(rich_table, rows, repeat), best(plain_table, rows, repeat)
        print(f"| {count:,} | {drawn:.3f} s | {written:.4f} s | {drawn / written:.0f}x |")


if __name__ == "__main__":
    main()
