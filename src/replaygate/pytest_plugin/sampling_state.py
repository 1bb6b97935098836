"""What the sampling plugin's modules share: names, the session state, stash keys."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from replaygate.sampling.flaky import FlakyTest
    from replaygate.sampling.queue import Observation
    from replaygate.sampling.results import SampledResult
    from replaygate.sampling.verdict import SampleSpec

MARKER = "sampled"
SAMPLE_FIXTURE = "replaygate_sample"
CHECKS_FIXTURE = "replaygate_checks"


@dataclass
class SessionState:
    """The options of a session and what it collected from the reports."""

    observe_fails: bool
    queue: Path
    results: Path | None
    flaky_runs: int
    flaky_report: Path | None
    cases: list[SampledResult] = field(default_factory=list)
    observed: list[Observation] = field(default_factory=list)
    flaky_reported: dict[str, list[tuple[str, list[str]]]] = field(default_factory=dict)
    """With ``--flaky-runs``: per test, the outcomes of its runs as each report brought
    them, with the pytest-xdist worker that ran them (``""`` without pytest-xdist). A test
    reported more than once (``--dist each`` runs every test on every worker,
    ``--keep-duplicates`` runs it as often as it is named) has a report per time it ran."""
    queue_error: str | None = None
    """Why an observation could not be queued (the session then exits 1)."""
    write_errors: list[str] = field(default_factory=list)
    """The result files the session could not write, and why (the session then exits 1)."""
    repeated: list[str] = field(default_factory=list)
    """The cases that ran more than once in the session (pytest-xdist ``--dist each``,
    ``--keep-duplicates``): kept once, and the session exits 1 saying so."""
    no_verdict: list[str] = field(default_factory=list)
    """The sampled tests (``n`` above 1) that failed with no verdict (an error in a sample,
    a sample index never read): they are in no count of verdicts, so the summary names
    them."""
    collected: list[str] = field(default_factory=list)
    """The node ids of the session's tests, in collection order."""

    def collection_order(self) -> Callable[[str], tuple[int, str]]:
        """A sort key of a node id: its place in the collection (one not collected here
        last, by node id), the same whatever order the tests finished in (the workers of
        pytest-xdist report each as it finishes)."""
        position = {nodeid: i for i, nodeid in enumerate(self.collected)}
        return lambda nodeid: (position.get(nodeid, len(position)), nodeid)

    def in_order(self) -> list[SampledResult]:
        """The cases in collection order, so the same tests and fixtures give the same
        results file."""
        key = self.collection_order()
        return sorted(self.cases, key=lambda c: key(c.case))

    @property
    def flaky_outcomes(self) -> dict[str, list[str]]:
        """Per test, the outcome of every run of it in the session: each report's, worker
        by worker (``gw0``'s, then ``gw1``'s, whichever reported first), so one worker's
        runs never hide another's and the order is the same from one session to the next."""
        return {
            nodeid: [outcome for _, runs in sorted(reported, key=_by_worker) for outcome in runs]
            for nodeid, reported in self.flaky_reported.items()
        }

    def reported_more_than_once(self) -> list[str]:
        """The tests (sorted) whose flaky runs were reported more than once."""
        return sorted(
            nodeid for nodeid, reported in self.flaky_reported.items() if len(reported) > 1
        )

    def flaky(self) -> list[FlakyTest]:
        """The tests that passed in one run and failed in another, in collection order
        (not the order pytest-xdist's workers reported them in)."""
        from replaygate.sampling.flaky import find_flaky

        key = self.collection_order()
        return sorted(find_flaky(self.flaky_outcomes), key=lambda test: key(test.nodeid))


def _by_worker(reported: tuple[str, list[str]]) -> tuple[int, str]:
    """Order pytest-xdist's worker ids by number (``gw2`` before ``gw10``)."""
    worker = reported[0]
    return len(worker), worker


STATE = pytest.StashKey[SessionState]()
SPEC: pytest.StashKey[SampleSpec] = pytest.StashKey()
CASE: pytest.StashKey[SampledResult] = pytest.StashKey()
UNCHECKED = pytest.StashKey[str]()
"""Why an unsampled test that asked for ``replaygate_checks`` failed: it evaluated none."""
FLAKY_PRIOR = pytest.StashKey[list[str]]()
FLAKY_PHASES = pytest.StashKey[list[pytest.TestReport]]()
