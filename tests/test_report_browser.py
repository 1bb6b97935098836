"""The report renders in a real headless browser (Debian's chromium) with its plots.

Skipped, with the reason, when chromium is not installed; CI installs it with
``apt-get install -y chromium``.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

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
          shapes: svg.querySelectorAll("path, rect, line, use").length};
});
document.getElementById("render-check").textContent = JSON.stringify(plots);
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


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One rendered report, read (never changed) by both browser checks."""
    tmp_path = tmp_path_factory.mktemp("report")
    with History.open(tmp_path / "history.db") as history:
        for day, passes in ((2, 5), (9, 4), (16, 3)):
            samples = tuple(
                SampleResult(i, (Outcome("citations", "gate", i < passes, "", None, "set"),), "x")
                for i in range(5)
            )
            sampled = SampledResult("rag", 5, 4, samples)
            counts = CaseCounts(5, passes >= 4, 5, True, passes, passes, 5, 0, 900, 90, 15, 0.01)
            info = {"time": f"2026-11-{day:02d}T10:00:00Z", "commit": "abc"}
            history.append(EvalResults((CaseResult(sampled, counts),), info))
        store = tmp_path / "fixtures.jsonl"
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
            tmp_path / "report.html",
            history=history,
            stores=[store],
            now=datetime(2026, 11, 30, tzinfo=UTC),
        )


def test_the_plots_render_with_their_titles_and_a_size(report: Path, tmp_path: Path) -> None:
    probed = tmp_path / "probed.html"
    page = report.read_text(encoding="utf-8")
    probed.write_text(page.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    done = chromium(tmp_path, "--dump-dom", probed.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    found = re.search(r'<pre id="render-check">(.*?)</pre>', done.stdout, re.DOTALL)
    assert found, done.stdout[-2000:]
    plots = json.loads(found.group(1))
    assert [p["title"] for p in plots] == TITLES
    for plot in plots:
        assert plot["width"] > 300 and plot["height"] > 100, plot
        assert plot["shapes"] > 10, plot


def test_the_screenshot_shows_the_plots(report: Path, tmp_path: Path) -> None:
    image_module = pytest.importorskip("PIL.Image", reason="Pillow reads the screenshot")
    shot = tmp_path / "shot.png"
    done = chromium(tmp_path, f"--screenshot={shot}", "--window-size=1200,2400", report.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    with image_module.open(shot) as image:
        gray = image.convert("L")
        width, height = gray.size
        lower = gray.crop((0, height // 2, width, height))  # where the plots are
        histogram = lower.histogram()
    dark = sum(histogram[:200])
    assert dark / (width * (height - height // 2)) > 0.01, "the plot area is blank"
