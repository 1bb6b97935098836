"""The report renders in a real headless browser (Debian's chromium) with its plots, and
the report of hostile names holds nothing that runs there.

Skipped, with the reason, when chromium is not installed; CI installs it with
``apt-get install -y chromium``.
"""

from __future__ import annotations

import functools
import html
import json
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from counted_outputs import run_output
from extras import needs_matplotlib
from replaygate.assertions.kinds import Outcome
from replaygate.evals import (
    CaseResult,
    EvalResults,
    GateConfig,
    History,
    load_reference,
    run_gate,
)
from replaygate.evals.gate import GateReport
from replaygate.evals.reference import load_run
from replaygate.evals.scorers import CaseCounts
from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.store import FixtureStore
from replaygate.report import page as report_page
from replaygate.report import write_report
from replaygate.sampling import SampledResult, SampleResult

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
IN_A_BROWSER = [
    pytest.mark.slow,
    needs_matplotlib,
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="chromium is not installed (Debian: apt-get install -y chromium)",
    ),
]
"""The marks of a test that opens a report in chromium."""
pytestmark = IN_A_BROWSER
TITLES = ["Metrics over time", "Weekly pass rate per assertion", "Fixture age histogram"]
# The page the browser opens: each report in a frame of its own, one under the other,
# and a probe that writes what the browser laid out in each frame into the DOM.
FRAME = '<iframe id="{id}" srcdoc="{page}" width="{width}" height="{height}"></iframe>'
PROBE = """
<pre id="render-check" hidden></pre>
<script>
window.addEventListener("load", () => {
  const frames = {};
  for (const frame of document.querySelectorAll("iframe")) {
    const page = frame.contentDocument;
    const plots = [...page.querySelectorAll("figure svg")].map((svg) => {
      const box = svg.getBoundingClientRect();
      return {title: svg.querySelector("title").textContent, width: box.width,
              height: box.height, shapes: svg.querySelectorAll("path, rect, line, use").length,
              texts: [...svg.querySelectorAll("text")].map((t) => t.textContent)};
    });
    const wider = page.documentElement.scrollWidth - page.documentElement.clientWidth;
    const folds = [...page.querySelectorAll("details")].map((fold) => {
      const shut = fold.innerText;
      fold.open = true;
      const open = fold.innerText;
      fold.open = false;
      return {shut, open};
    });
    const columns = [...page.querySelectorAll("table")].map((table) =>
      [...table.rows[0].cells].map((cell) => cell.getBoundingClientRect().width));
    frames[frame.id] = {plots, text: page.body.innerText, wider, folds, columns};
    if (frame.id === "hostile") frames[frame.id].dom = page.documentElement.outerHTML;
  }
  document.getElementById("render-check").textContent = JSON.stringify(frames);
});
</script>
"""
WIDTH, HEIGHT = 1200, 2400
"""The size of each report's frame, and so of its part of the screenshot."""


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


def history_run(index: int) -> EvalResults:
    """The ``index``-th run of a history: it replays recording ``index % 4`` of
    :data:`PASSES`, on day ``index + 2`` of November 2026."""
    recording = index % len(PASSES)
    passes = PASSES[recording]
    samples = tuple(
        SampleResult(
            i,
            (Outcome("citations", "gate", i < passes, "", None, "set"),),
            run_output(
                f"answer {recording}.{i}",
                cited=["doc-rag"] if i < passes else [],
                fetched=["doc-rag"],
                input_tokens=180,
                output_tokens=18,
                steps=3,
            ),
        )
        for i in range(5)
    )
    sampled = SampledResult("rag", 5, 4, samples)
    cost = 0.01 + recording / 1000
    counts = CaseCounts(5, passes >= 4, 5, True, passes, passes, 5, 0, 900, 90, 15, cost)
    info = {"time": f"2026-11-{index + 2:02d}T10:00:00Z", "commit": "abc"}
    return EvalResults((CaseResult(sampled, counts),), info)


def write_history_report(folder: Path, runs: int, gate: GateReport | None = None) -> Path:
    """A report of ``runs`` runs: the recordings of :data:`PASSES` in turn, so that more
    than four runs replay recordings already counted (and ``gate``, when given)."""
    with History.open(folder / "history.db") as history:
        for index in range(runs):
            history.append(history_run(index))
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
            gate=gate,
            now=datetime(2026, 11, 30, tzinfo=UTC),
        )


UNTRACED = (
    "evals/baseline.json: its metrics, cases or source are not what its last update wrote "
    "(2026-12-05T10:00:00Z, reason 'first') (metrics.success is 0.75 where its history last "
    "set 0.875): it was edited by hand, or a merge joined two updates, and no reason for that "
    "change is kept. Run the eval and make its results the baseline with `replaygate baseline "
    "update --results FILE --reason ...` (after a merge, on the merged tree), or restore the "
    "file from git"
)
"""A gate failure whose advice, at its end, the page once cut."""
NEW_CASES = "the cases " + ", ".join(f"case-{i:04d}" for i in range(200)) + " are new"
"""A gate note longer than the page shows open."""


def write_gated_report(folder: Path) -> Path:
    """A report of 3 runs with the gate of a fourth run's results, which the history does
    not hold, against the first run's; the gate also fails with :data:`UNTRACED` and notes
    :data:`NEW_CASES`."""
    folder.mkdir()
    baseline = history_run(0).write(folder / "baseline.json")
    results = history_run(3).write(folder / "results.json")
    gate = run_gate(load_reference(baseline), load_run(results, baseline), GateConfig())
    gate = replace(gate, problems=(UNTRACED, *gate.problems), notes=(*gate.notes, NEW_CASES))
    return write_history_report(folder, 3, gate)


ACT = "document.title='PWNED'"
HOSTILE = [
    f"<script>{ACT}</script>",
    f'</title><img src=x onerror="{ACT}">',
    f'"\'><svg onload="{ACT}">',
    f']]><iframe src="javascript:{ACT}"></iframe>',
    "$<style>body{display:none}</style>$",
    "\u202eright to left\u200b \U0001f600",
    "tests/evals/" + "x" * 250,  # one word wider than the page, in every column it is in
]
"""Case ids, assertion names, failure messages and a commit that would act if written into
the page as HTML, or widen it past the window."""


def write_hostile_report(folder: Path) -> Path:
    """A report of one run whose names, messages and commit are :data:`HOSTILE`."""
    folder.mkdir()
    cases = []
    for index, text in enumerate(HOSTILE):
        outcome = Outcome(text, "gate", False, text, None, "custom")
        sample = SampleResult(0, (outcome,), {"final": text})
        sampled = SampledResult(f"{index}{text}", 1, 1, (sample,))
        cases.append(CaseResult(sampled, CaseCounts(1, False, 1, True, 1, 1, 1, 0, 5, 5, 1, 0.1)))
    run = EvalResults(tuple(cases), {"time": "2026-11-01T00:00:00Z", "commit": HOSTILE[0]})
    with History.open(folder / "history.db") as opened:
        opened.append(run)
    return write_report(folder / "report.html", history=folder / "history.db")


RUNS = (1, 3, 12)
"""The runs of the reports whose frames come first in the page: the window shows these
alone, the screenshot's checks are of them (a screenshot of the gated and hostile frames
too, below them, cost chromium a third of its CPU to draw and encode, for pixels that no
check reads; those frames are laid out, and probed, all the same)."""


@dataclass(frozen=True)
class Rendered:
    """What one browser run of the reports of :data:`RUNS` gave, frame by frame."""

    probe: dict[str, Any]
    screenshot: Path

    @functools.cached_property
    def gray(self) -> Any:
        """The screenshot in shades of gray, read once for the checks of all the frames
        (each read decodes the whole image)."""
        image_module = pytest.importorskip("PIL.Image", reason="Pillow reads the screenshot")
        with image_module.open(self.screenshot) as image:
            return image.convert("L")

    def plots(self, runs: int) -> list[dict[str, Any]]:
        """The plots of the report of ``runs`` runs: titles, sizes, shapes and texts."""
        plots: list[dict[str, Any]] = self.probe[f"runs-{runs}"]["plots"]
        return plots

    def dom(self, frame: str) -> str:
        """The DOM of the report in ``frame``, as the browser holds it after load."""
        dom: str = self.probe[frame]["dom"]
        return dom

    def folds(self, frame: str) -> list[dict[str, str]]:
        """Each ``<details>`` of the report in ``frame``: its text shut, then open."""
        folds: list[dict[str, str]] = self.probe[frame]["folds"]
        return folds

    def text(self, runs: int | str) -> str:
        """The text of the report of ``runs`` runs (or of the frame so called), as the
        browser laid it out."""
        text: str = self.probe[runs if isinstance(runs, str) else f"runs-{runs}"]["text"]
        return text


def drawn_once(draw: Callable[..., str]) -> Callable[..., str]:
    """``draw``, its plot of the same data drawn once and given again: the gated report's
    runs and fixtures are the 3-run report's, and so are its three plots (the same data
    gives the same SVG, byte for byte: test_report.py)."""
    drawn: dict[str, str] = {}

    def once(*data: object) -> str:
        key = repr(data)
        if key not in drawn:
            drawn[key] = draw(*data)
        return drawn[key]

    return once


def render(folder: Path) -> Rendered:
    """The reports of 1, 3 and 12 runs, the gated one and the hostile one, in one page,
    opened in one browser run that both dumps the probed DOM and takes a screenshot of
    the first three."""
    with pytest.MonkeyPatch.context() as patch:
        for plot in ("metrics_plot", "weekly_plot", "ages_plot"):
            patch.setattr(report_page, plot, drawn_once(getattr(report_page, plot)))
        reports = {
            f"runs-{runs}": write_history_report(folder / f"report{runs}", runs) for runs in RUNS
        }
        reports["gated"] = write_gated_report(folder / "gated")
        reports["hostile"] = write_hostile_report(folder / "hostile")
    frames = [
        FRAME.format(
            id=frame, page=html.escape(report.read_text("utf-8")), width=WIDTH, height=HEIGHT
        )
        for frame, report in reports.items()
    ]
    page = folder / "reports.html"
    page.write_text(
        "<!doctype html><html><head><style>html{overflow:hidden}body{margin:0}"
        "iframe{display:block;border:0}"
        f"</style></head><body>{''.join(frames)}{PROBE}</body></html>",
        "utf-8",
    )
    shot = folder / "reports.png"
    done = chromium(
        folder,
        "--dump-dom",
        f"--screenshot={shot}",
        f"--window-size={WIDTH},{HEIGHT * len(RUNS)}",
        page.as_uri(),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    found = re.search(r'<pre id="render-check" hidden="">(.*?)</pre>', done.stdout, re.DOTALL)
    assert found, done.stdout[-2000:]
    return Rendered(json.loads(html.unescape(found.group(1))), shot)


def check_the_plots_render_with_their_titles_and_a_size(rendered: Rendered, runs: int) -> None:
    plots = rendered.plots(runs)
    assert [p["title"] for p in plots] == TITLES
    for plot in plots:
        assert plot["width"] > 300 and plot["height"] > 100, plot
        assert plot["shapes"] > 10, plot
    success_labels = "1.000" in plots[0]["texts"]  # tick labels read 0.0 ... 1.0
    assert success_labels == (runs < 10), "few runs carry their values, many do not"


def check_the_page_says_what_failed_and_what_counted_in_words(rendered: Rendered) -> None:
    one = rendered.text(1)
    assert "from 1 distinct recording." in one
    assert "none failed in 5 samples" in one
    assert "1 distinct recording in the history; maintenance signals need at least 3" in one
    twelve = rendered.text(12)
    assert "from 4 distinct recordings (12 runs: replays of the same answers count once)" in twelve
    assert "pass: 4 of 5 samples passed, floor 4" in twelve  # the 12th run replays PASSES[3]
    assert "citations: 4 of 5 samples passed, floor 4" in twelve
    assert "at its floor or one below in 3 of 4 distinct recordings" in twelve


def check_the_gate_says_which_run_it_judged(rendered: Rendered, folder: Path) -> None:
    with History.open(folder / "gated" / "history.db", read_only=True) as history:
        shown = history.runs()[-1].id
    text = rendered.text("gated")
    latest = text[text.index("Latest run") : text.index("Gate")]
    assert f"Run {shown} at 2026-11-04T10:00:00Z" in latest
    gate = text[text.index("Gate") : text.index("Maintenance signals")]
    assert (
        f"The gate judges the results file {folder / 'gated' / 'results.json'} (the run at "
        "2026-11-05T10:00:00Z, commit abc, not in the history)."
    ) in gate
    assert (
        f"These results are not the run shown as the latest run above (run {shown} at "
        "2026-11-04T10:00:00Z): the gate and the latest run are two different runs."
    ) in gate


def check_long_gate_messages_are_shown_whole(rendered: Rendered) -> None:
    # the page cut both at 300 characters: "... (401 characters)", the failure's advice
    # on what to do among what was cut
    text = rendered.text("gated")
    gate = text[text.index("Gate") : text.index("Maintenance signals")]
    assert UNTRACED in gate
    rest = NEW_CASES[NEW_CASES.rindex(" ", 0, 1000) + 1 :]
    assert NEW_CASES[: -len(rest)].rstrip() in gate and rest not in gate  # its rest is folded
    assert rendered.folds("gated") == [
        {"shut": f"{len(rest):,} more characters", "open": f"{len(rest):,} more characters\n{rest}"}
    ]


def check_the_screenshot_shows_the_plots(rendered: Rendered, runs: int) -> None:
    screenshot = rendered.gray
    assert screenshot.size == (WIDTH, HEIGHT * len(RUNS))
    top = RUNS.index(runs) * HEIGHT  # this report's frame
    gray = screenshot.crop((0, top, WIDTH, top + HEIGHT))
    width, height = gray.size
    lower = gray.crop((0, height // 2, width, height))  # where the plots are
    dark = sum(lower.histogram()[:200])
    assert dark / (width * (height - height // 2)) > 0.01, "the plot area is blank"


def check_hostile_names_stay_text(rendered: Rendered, folder: Path) -> None:
    """The browser's DOM of the hostile report, after load, holds no element the report
    did not write, and the title the hostile text would set is the report's own."""
    dom = rendered.dom("hostile")
    page = (folder / "hostile" / "report.html").read_text(encoding="utf-8")
    assert "<title>replaygate eval report</title>" in dom and "PWNED" not in dom.split("<body")[0]
    for tag in ("script", "img", "iframe", "style"):
        written = len(re.findall(rf"<{tag}\b", page))
        assert len(re.findall(rf"<{tag}\b", dom)) == written, tag
    assert not re.search(r"<[a-z]+[^>]*\son(error|load)=", dom)
    assert "&lt;script&gt;document.title='PWNED'&lt;/script&gt;" in dom


def check_a_long_case_id_leaves_room_for_the_verdict(rendered: Rendered) -> None:
    # one long id took all but a word's width of the table: each row's verdict and what
    # failed wrapped word by word (115 pixels of 1,120 were left to the verdict)
    _, cases = rendered.probe["hostile"]["columns"]  # the metrics', the cases' tables
    case, verdict, failed = cases
    assert verdict > 250 and case < 450 and failed < 450, cases


def check_no_report_is_wider_than_its_window(rendered: Rendered) -> None:
    # a long word in a table's second column widened the page: it scrolled sideways
    wider = {frame: probed["wider"] for frame, probed in rendered.probe.items()}
    assert wider == dict.fromkeys(wider, 0)


def test_the_reports_render_in_a_browser(tmp_path: Path, subtests: pytest.Subtests) -> None:
    """Every check of the reports of :data:`RUNS`, each a subtest reported on its own, on
    what one browser run laid out and drew (chromium starts once, on one worker)."""
    rendered = render(tmp_path)
    for runs in RUNS:
        with subtests.test("the plots render with their titles and a size", runs=runs):
            check_the_plots_render_with_their_titles_and_a_size(rendered, runs)
    with subtests.test("the page says what failed and what counted in words"):
        check_the_page_says_what_failed_and_what_counted_in_words(rendered)
    with subtests.test("the gate says which run it judged"):
        check_the_gate_says_which_run_it_judged(rendered, tmp_path)
    with subtests.test("long gate messages are shown whole"):
        check_long_gate_messages_are_shown_whole(rendered)
    for runs in RUNS:
        with subtests.test("the screenshot shows the plots", runs=runs):
            check_the_screenshot_shows_the_plots(rendered, runs)
    with subtests.test("hostile names stay text in the browser"):
        check_hostile_names_stay_text(rendered, tmp_path)
    with subtests.test("a long case id leaves room for the verdict"):
        check_a_long_case_id_leaves_room_for_the_verdict(rendered)
    with subtests.test("no report is wider than its window"):
        check_no_report_is_wider_than_its_window(rendered)
