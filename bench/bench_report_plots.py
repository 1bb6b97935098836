"""The report's three plots: CPU of drawing a page's plots, before and after a change of
``replaygate/report/plots.py``, side by side in one run.

Run: ``.venv/bin/python bench/bench_report_plots.py [--before REV] [--repeat R]`` (about
half a minute; prints a markdown table).

The plots module of git revision ``REV`` (default: the last one laid out by matplotlib's
constrained layout) is loaded beside the current one, and both draw the same pages in
turns, best CPU time (user + sys of this process) of R runs each:

- a small page: 5 runs, 3 assertions over 4 weeks, 3 fixtures (the shipped demo's size);
- a long page: 30 runs to the second, 24 assertions (long names among them) over
  26 weeks, 400 fixture ages.

Each page is drawn once by each module before timing, so matplotlib's imports and font
cache are left out (the first report of a process pays them once, both ways alike).
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from replaygate.report import plots

BEFORE = "73792f9"
"""The last revision of plots.py laid out by matplotlib's constrained layout."""
ROOT = Path(__file__).resolve().parent.parent
PLOTS = "src/replaygate/report/plots.py"


def load(revision: str, folder: Path) -> ModuleType:
    """The plots module as it was at ``revision``."""
    source = subprocess.run(
        ["git", "show", f"{revision}:{PLOTS}"], cwd=ROOT, check=True, capture_output=True
    ).stdout
    path = folder / "plots_before.py"
    path.write_bytes(source)
    spec = importlib.util.spec_from_file_location("replaygate.report.plots_before", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def small(module: ModuleType) -> None:
    n = 5
    series = {
        "success": [0.5 + i / 20 for i in range(n)],
        "citation_precision": [0.9] * n,
        "citation_recall": [0.8] * n,
        "fabricated": [0.0] * n,
        "cost": [0.01 * (i + 1) for i in range(n)],
        "steps": [3.0] * n,
    }
    module.metrics_plot(series, [f"11-{i + 2:02d} 09:00" for i in range(n)])
    weeks = ["2026-W45", "2026-W46", "2026-W47", "2026-W48"]
    rates = {"contains": [1.0] * 4, "citations": [0.95, 0.9, 0.8, 0.7], "grounded": [0.5] * 4}
    module.weekly_plot(weeks, rates)
    module.ages_plot([1.0, 30.0], 1)


def long(module: ModuleType) -> None:
    n = 30
    series = {
        "success": [0.5 + (i % 7) / 20 for i in range(n)],
        "citation_precision": [0.9] * n,
        "citation_recall": [0.8 - i / 100 for i in range(n)],
        "fabricated": [0.0] * n,
        "cost": [0.0012 * (1 + i % 5) for i in range(n)],
        "steps": [3.0 + i % 4 for i in range(n)],
    }
    module.metrics_plot(series, [f"11-{i % 28 + 1:02d} 09:00:{i:02d}" for i in range(n)])
    weeks = [f"2026-W{w:02d}" for w in range(20, 46)]
    names = [f"case-{i % 6} / check {i:02d}" + " words" * (i % 9) for i in range(24)]
    module.weekly_plot(weeks, {name: [0.5 + (i % 5) / 10] * 26 for i, name in enumerate(names)})
    module.ages_plot([float(i % 90) for i in range(400)], 3)


def cpu(draw: Callable[[ModuleType], None], module: ModuleType) -> float:
    start = time.process_time()
    draw(module)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=BEFORE, help="git revision of the old plots.py")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        before = load(args.before, Path(tmp))
    print(f"a page's three plots, best CPU of {args.repeat} runs; before: {args.before}\n")
    print("| page | before | after | before / after |")
    print("| --- | ---: | ---: | ---: |")
    for name, page in (("small (5 runs)", small), ("long (30 runs, 24 assertions)", long)):
        page(before)
        page(plots)
        olds, news = [], []
        for _ in range(args.repeat):  # in turns, so a busy moment weighs on both
            olds.append(cpu(page, before))
            news.append(cpu(page, plots))
        old, new = min(olds), min(news)
        print(f"| {name} | {old:.3f} s | {new:.3f} s | {old / new:.2f}x |")


if __name__ == "__main__":
    main()
