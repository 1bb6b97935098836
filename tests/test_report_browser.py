"""The report renders in a real headless browser (Debian's chromium) with its plots.

Skipped, with the reason, when chromium is not installed; CI installs it with
``apt-get install -y chromium``.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from replaygate.assertions.kinds import Outcome
from replaygate.evals import CaseResult, EvalResults, History
from replaygate.evals.scorers import CaseCounts
from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.store import FixtureStore
from replaygate.report import write_report
from replaygate.sampling import SampledResult, SampleResult

pytest.importorskip("matplotlib", reason="the report needs the report extra (matplotlib)")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="chromium is not installed (Debian: apt-get install -y chromium)",
    ),
]
TITLES = ["Metrics over time", "Weekly pass rate per assertion", "Fixture age histogram"]
# Appended to a copy of the report: writes what the browser laid out into the DOM.
PROBE = """
<pre id="render-check"></pre>
<script>
const plots = [...document.querySelectorAll("figure svg")].map((svg) => {
  const box = svg.getBoundingClientRect();
  return {title: svg.querySelector("title").textContent, width: box.width, height: box.height,
          shapes: svg.querySelectorAll("path, rect, line, use").length,
          texts: [...svg.querySelectorAll("text")].map((t) => t.textContent)};
});
const text = document.body.innerText;
document.getElementById("render-check").textContent = JSON.stringify({plots, text});
</script>
"""


def chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    command = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}", *args,
    ]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


PASSES = (5, 4, 3, 4)
"""Citation passes of the distinct recordings, in turn."""


def write_history_report(folder: Path, runs: int) -> Path:
    """A report of ``runs`` runs: the recordings of :data:`PASSES` in turn, so that more
    than four runs replay recordings already counted."""
    with History.open(folder / "history.db") as history:
        for index in range(runs):
            recording = index % len(PASSES)
            passes = PASSES[recording]
            samples = tuple(
                SampleResult(
                    i,
                    (Outcome("citations", "gate", i < passes, "", None, "set"),),
                    f"answer {recording}.{i}",
                )
                for i in range(5)
            )
            sampled = SampledResult("rag", 5, 4, samples)
            cost = 0.01 + recording / 1000
            counts = CaseCounts(5, passes >= 4, 5, True, passes, passes, 5, 0, 900, 90, 15, cost)
            info = {"time": f"2026-11-{index + 2:02d}T10:00:00Z", "commit": "abc"}
            history.append(EvalResults((CaseResult(sampled, counts),), info))
        store = folder / "fixtures.jsonl"
        with FixtureStore.open(store) as opened:
            for age in (1, 3, 3, 20):
                request = {
                    "model": "m",
                    "max_tokens": 1,
                    "messages": [{"role": "user", "content": str(age)}],
                }
                meta = {"recorded_at": f"2026-11-{30 - age:02d}T00:00:00Z"}
                opened.put(Fixture.create(request, [{"text": "x"}], meta), replace=True)
        return write_report(
            folder / "report.html",
            history=history,
            stores=[store],
            now=datetime(2026, 11, 30, tzinfo=UTC),
        )


RUNS = (1, 3, 12)


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    """Reports of 1, 3 and 12 runs, read (never changed) by the browser checks."""
    return {
        runs: write_history_report(tmp_path_factory.mktemp(f"report{runs}"), runs) for runs in RUNS
    }


def rendered(page: Path, tmp_path: Path) -> tuple[list[dict[str, Any]], str]:
    """What the browser laid out: the plots' titles, sizes and shapes, and the page text."""
    probed = tmp_path / "probed.html"
    probed.write_text(page.read_text("utf-8").replace("</body>", PROBE + "</body>"), "utf-8")
    done = chromium(tmp_path, "--dump-dom", probed.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    found = re.search(r'<pre id="render-check">(.*?)</pre>', done.stdout, re.DOTALL)
    assert found, done.stdout[-2000:]
    probe = json.loads(html.unescape(found.group(1)))
    return probe["plots"], probe["text"]


@pytest.mark.parametrize("runs", RUNS)
def test_the_plots_render_with_their_titles_and_a_size(
    reports: dict[int, Path], runs: int, tmp_path: Path
) -> None:
    plots, _ = rendered(reports[runs], tmp_path)
    assert [p["title"] for p in plots] == TITLES
    for plot in plots:
        assert plot["width"] > 300 and plot["height"] > 100, plot
        assert plot["shapes"] > 10, plot
    success_labels = "1.000" in plots[0]["texts"]  # tick labels read 0.0 ... 1.0
    assert success_labels == (runs < 10), "few runs carry their values, many do not"


def test_the_page_says_what_failed_and_what_counted_in_words(
    reports: dict[int, Path], tmp_path: Path
) -> None:
    _, one = rendered(reports[1], tmp_path)
    assert "from 1 distinct recording." in one
    assert "none failed in 5 samples" in one
    assert "1 distinct recording in the history; maintenance signals need at least 3" in one
    _, twelve = rendered(reports[12], tmp_path)
    assert "from 4 distinct recordings (12 runs: replays of the same answers count once)" in twelve
    assert "pass: 4 of 5 samples passed, floor 4" in twelve  # the 12th run replays PASSES[3]
    assert "citations: 4 of 5 samples passed, floor 4" in twelve
    assert "at its floor or one below in 3 of 4 distinct recordings" in twelve


@pytest.mark.parametrize("runs", RUNS)
def test_the_screenshot_shows_the_plots(
    reports: dict[int, Path], runs: int, tmp_path: Path
) -> None:
    image_module = pytest.importorskip("PIL.Image", reason="Pillow reads the screenshot")
    shot = tmp_path / f"report-{runs}-runs.png"
    page = reports[runs].as_uri()
    done = chromium(tmp_path, f"--screenshot={shot}", "--window-size=1200,2400", page)
    assert done.returncode == 0, done.stderr[-2000:]
    with image_module.open(shot) as image:
        gray = image.convert("L")
        width, height = gray.size
        lower = gray.crop((0, height // 2, width, height))  # where the plots are
        histogram = lower.histogram()
    dark = sum(histogram[:200])
    assert dark / (width * (height - height // 2)) > 0.01, "the plot area is blank"
