"""Reports built without their plots, for the tests of a report's words alone: each of
its three plots costs matplotlib about a tenth of a second of CPU, and none holds the
words those tests read. The plots are drawn, and checked, by test_report.py,
test_report_labels.py, test_hostile_report_names.py and test_report_browser.py."""

from __future__ import annotations

from collections.abc import Callable

import pytest

PLOTS = ("metrics_plot", "weekly_plot", "ages_plot")
"""The functions of :mod:`replaygate.report.page` that draw the report's plots."""


def unplot(monkeypatch: pytest.MonkeyPatch, **instead: Callable[..., str]) -> None:
    """Each plot of the reports built from now on (:data:`PLOTS`) left empty, or drawn by
    the function ``instead`` gives for its name (one that keeps what it is given)."""
    for plot in PLOTS:
        monkeypatch.setattr(f"replaygate.report.page.{plot}", instead.get(plot, lambda *_: ""))


@pytest.fixture
def unplotted(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reports of the test built without their plots (:func:`unplot`)."""
    unplot(monkeypatch)
