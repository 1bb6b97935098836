"""The report of hostile names, opened in a real headless browser: nothing in it runs.

Case ids, assertion names, failure messages and a commit hold markup and script that
would act if written into the page as HTML. The browser's own DOM, after load, must
hold no element the report did not write, and a probe the hostile text would set
must stay unset.
"""

from __future__ import annotations

import re
from pathlib import Path

from replaygate.assertions.kinds import Outcome
from replaygate.evals import CaseResult, EvalResults, History
from replaygate.evals.scorers import CaseCounts
from replaygate.report import write_report
from replaygate.sampling import SampledResult, SampleResult
from test_report_browser import IN_A_BROWSER, chromium

pytestmark = IN_A_BROWSER

ACT = "document.title='PWNED'"
HOSTILE = [
    f"<script>{ACT}</script>",
    f'</title><img src=x onerror="{ACT}">',
    f'"\'><svg onload="{ACT}">',
    f']]><iframe src="javascript:{ACT}"></iframe>',
    "$<style>body{display:none}</style>$",
    "\u202eright to left\u200b \U0001f600",
]


def test_hostile_names_stay_text_in_the_browser(tmp_path: Path) -> None:
    cases = []
    for index, text in enumerate(HOSTILE):
        outcome = Outcome(text, "gate", False, text, None, "custom")
        sample = SampleResult(0, (outcome,), {"final": text})
        sampled = SampledResult(f"{index}{text}", 1, 1, (sample,))
        cases.append(CaseResult(sampled, CaseCounts(1, False, 1, True, 1, 1, 1, 0, 5, 5, 1, 0.1)))
    run = EvalResults(tuple(cases), {"time": "2026-11-01T00:00:00Z", "commit": HOSTILE[0]})
    with History.open(tmp_path / "history.db") as opened:
        opened.append(run)
    page = write_report(tmp_path / "report.html", history=tmp_path / "history.db")
    done = chromium(tmp_path, "--dump-dom", page.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    assert "<title>replaygate eval report</title>" in dom and "PWNED" not in dom.split("<body")[0]
    for tag in ("script", "img", "iframe", "style"):
        written = len(re.findall(rf"<{tag}\b", page.read_text(encoding="utf-8")))
        assert len(re.findall(rf"<{tag}\b", dom)) == written, tag
    assert not re.search(r"<[a-z]+[^>]*\son(error|load)=", dom)
    assert "&lt;script&gt;document.title='PWNED'&lt;/script&gt;" in dom
