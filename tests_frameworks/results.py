"""A pytest plugin writing one framework's results for the support matrix.

A test marked ``@pytest.mark.matrix("Anthropic model", "stream")`` counts for that
row and cell. When ``REPLAYGATE_RESULTS`` names a folder, the session writes
``<folder>/<REPLAYGATE_FRAMEWORK>.json``: the framework, the versions of
``REPLAYGATE_PACKAGES`` (comma-separated distribution names, those installed, in
order) and, per row and cell,
``pass``, ``fail`` or ``skip: <reason>`` (a cell is ``pass`` only if each of its tests
passed). :mod:`tests_frameworks.matrix` renders these files.
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

_outcomes: dict[str, dict[str, str]] = {}


def pytest_configure(config: pytest.Config) -> None:
    """Declare the marker."""
    config.addinivalue_line(
        "markers", f"matrix(row, *cells): the support-matrix cells a test covers {CELLS}"
    )


_RANK = {"pass": 0, "skip": 1, "fail": 2}


def _merge(old: str | None, new: str) -> str:
    """A cell's outcome: any failure, else any skip (with its reason), else pass."""
    if old is None:
        return new
    return max(old, new, key=lambda outcome: _RANK[outcome.split(":", 1)[0]])


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Fold each test's outcome into its cells."""
    if report.when == "call" or (report.when == "setup" and not report.passed):
        marks = _marks.get(report.nodeid, ())
        if report.skipped:
            reason = str(report.longrepr[2] if isinstance(report.longrepr, tuple) else "")
            outcome = "skip: " + reason.removeprefix("Skipped: ")
        else:
            outcome = "pass" if report.passed else "fail"
        for row, cell in marks:
            cells = _outcomes.setdefault(row, {})
            cells[cell] = _merge(cells.get(cell), outcome)


_marks: dict[str, tuple[tuple[str, str], ...]] = {}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Remember each test's cells; refuse a cell that is not a column."""
    for item in items:
        pairs = []
        for mark in item.iter_markers("matrix"):
            row, *cells = mark.args
            unknown = set(cells) - set(CELLS)
            if unknown:
                raise pytest.UsageError(f"{item.nodeid}: unknown matrix cell(s) {unknown}")
            pairs += [(str(row), str(cell)) for cell in cells]
        _marks[item.nodeid] = tuple(pairs)


def versions(names: str) -> list[tuple[str, str]]:
    """``(name, version)`` of each comma-separated distribution name that is installed."""
    found = []
    for name in filter(None, (n.strip() for n in names.split(","))):
        try:
            found.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            continue
    return found


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Write the results file, when asked to."""
    folder = os.environ.get("REPLAYGATE_RESULTS")
    framework = os.environ.get("REPLAYGATE_FRAMEWORK")
    if not folder or not framework or not _outcomes:
        return
    document: dict[str, Any] = {
        "framework": framework,
        "packages": versions(os.environ.get("REPLAYGATE_PACKAGES", "")),
        "rows": _outcomes,
    }
    path = Path(folder) / f"{framework}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")
