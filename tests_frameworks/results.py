"""A pytest plugin writing one framework's results for the support matrix.

A test marked ``@pytest.mark.matrix("Anthropic model", "stream")`` counts for that
row and cell. When ``REPLAYGATE_RESULTS`` names a folder, the session writes
``<folder>/<REPLAYGATE_FRAMEWORK>.json``: the framework, the versions of
``REPLAYGATE_PACKAGES`` (comma-separated distribution names; those installed, in
order) and, per row and cell, ``pass``, ``fail`` or ``skip: <reason>`` (a cell is
``pass`` only if each of its tests passed). :mod:`tests_frameworks.matrix` renders
these files.
"""

from __future__ import annotations

import json
import os
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

CELLS = ("plain", "stream", "tools", "async", "retry")
"""The matrix columns, in order."""
_RANK = {"pass": 0, "skip": 1, "fail": 2}


def merged(old: str | None, new: str) -> str:
    """A cell's outcome: any failure, else any skip (with its reason), else pass."""
    if old is None:
        return new
    return max(old, new, key=lambda outcome: _RANK[outcome.split(":", 1)[0]])


def versions(names: str) -> list[tuple[str, str]]:
    """``(name, version)`` of each comma-separated distribution name that is installed."""
    found = []
    for name in filter(None, (n.strip() for n in names.split(","))):
        try:
            found.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            continue
    return found


class MatrixResults:
    """The cells of one session's tests, and the file they are written to."""

    def __init__(self, chosen: bool = False) -> None:
        self.cells: dict[str, tuple[tuple[str, str], ...]] = {}
        self.outcomes: dict[str, dict[str, str]] = {}
        self.ran: set[str] = set()
        self.left_out = chosen
        """Whether the run left tests out (``-k``, ``-m``, a test named, ``-x``): its
        results speak for part of the matrix only, and are not written."""

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        """Remember each test's cells; refuse a cell that is not a column."""
        for item in items:
            pairs: list[tuple[str, str]] = []
            for mark in item.iter_markers("matrix"):
                row, *cells = mark.args
                unknown = sorted(set(cells) - set(CELLS))
                if unknown:
                    raise pytest.UsageError(
                        f"{item.nodeid}: unknown matrix cell(s) {unknown}; expected {CELLS}"
                    )
                pairs += [(str(row), str(cell)) for cell in cells]
            self.cells[item.nodeid] = tuple(pairs)

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        """A test left out by ``-k``, ``-m``, ``--lf`` or the like."""
        if items:
            self.left_out = True

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Fold each test's outcome into its cells (a failed set-up counts as a failure)."""
        if report.when != "call" and (report.when != "setup" or report.passed):
            return
        if report.skipped:
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else ""
            outcome = "skip: " + str(reason).removeprefix("Skipped: ")
        else:
            outcome = "pass" if report.passed else "fail"
        self.ran.add(report.nodeid)
        for row, cell in self.cells.get(report.nodeid, ()):
            cells = self.outcomes.setdefault(row, {})
            cells[cell] = merged(cells.get(cell), outcome)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Write the results file, when asked to."""
        folder = os.environ.get("REPLAYGATE_RESULTS")
        framework = os.environ.get("REPLAYGATE_FRAMEWORK")
        if not folder or not framework or not self.outcomes:
            return
        if self.left_out or set(self.cells) - self.ran:
            reporter = session.config.pluginmanager.get_plugin("terminalreporter")
            if reporter is not None:
                reporter.write_line(
                    f"matrix results of {framework} not written: the run left tests out, "
                    f"and a cell it did not run would read n/a; run the whole session "
                    f"(`.venv/bin/nox -s {framework}`) for the matrix"
                )
            return
        document: dict[str, Any] = {
            "framework": framework,
            "packages": versions(os.environ.get("REPLAYGATE_PACKAGES", "")),
            "rows": self.outcomes,
        }
        path = Path(folder) / f"{framework}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def pytest_configure(config: pytest.Config) -> None:
    """Declare the marker and start collecting this session's results."""
    config.addinivalue_line(
        "markers", f"matrix(row, *cells): the support-matrix cells a test covers {CELLS}"
    )
    named = any("::" in arg for arg in config.args)  # a test named on the command line
    config.pluginmanager.register(MatrixResults(named), "replaygate-matrix-results")
