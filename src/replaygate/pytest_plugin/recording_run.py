"""What the recording tests of one pytest session share: the simulator and the spending cap.

Registered by :mod:`.recording` when the session records. With ``--replaygate-simulator``
(or ini ``replaygate_simulator``) the in-process simulator is built at configure time (a
bad behaviour or script file is a usage error before any test runs), started by the
first test that needs it and stopped at the end; fixtures recorded from it say
``meta.source: "sim"``. One :class:`~replaygate.fixtures.spending.SpendingCap` counts
the live calls of every test: ``--replaygate-max-cost``, else ini ``replaygate_max_cost``,
else ``max_cost`` of ``[tool.replaygate]``, else
:data:`~replaygate.fixtures.spending.DEFAULT_MAX_COST` without the simulator (none with
it). The terminal summary says what was spent.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from replaygate.cli.options import SIMULATOR_SEED
from replaygate.errors import ReplaygateError, SpendingCapError
from replaygate.fixtures.spending import SpendingCap, spending_cap
from replaygate.pytest_plugin.options import (
    MAX_COST,
    SIM_SEED,
    SIMULATOR,
    number,
    simulator_behavior,
)

if TYPE_CHECKING:
    from replaygate.sim import Simulator

RUN = "replaygate-recording-run"
"""The name the run is registered under with pytest's plugin manager."""


def _behavior_spec(behavior: str, root: Path) -> str:
    """``script:FILE`` with FILE resolved against the rootdir; other behaviours as given."""
    prefix = "script:"
    if behavior.startswith(prefix) and behavior[len(prefix) :]:
        return prefix + str(root / behavior[len(prefix) :])
    return behavior


class RecordingRun:
    """The simulator (if asked for) and the spending cap of a recording session."""

    def __init__(self, config: pytest.Config, fixtures: Path) -> None:
        from replaygate.evals.config import load_config
        from replaygate.evals.prices import with_shipped

        self.behavior = simulator_behavior(config)
        seed = number(config, SIM_SEED, int)
        self.seed = int(seed) if seed is not None else SIMULATOR_SEED
        self._simulator = self._build_simulator(Path(config.rootpath))
        try:
            project = load_config(near=fixtures)
        except ReplaygateError as err:
            raise pytest.UsageError(f"replaygate: {err}") from None
        given = number(config, MAX_COST, float)
        prices = with_shipped(project.prices)
        self.cap: SpendingCap | None = spending_cap(
            given, project.max_cost, prices, self.behavior is not None
        )
        self._started = False

    def _build_simulator(self, root: Path) -> Simulator | None:
        if self.behavior is None:
            return None
        from replaygate.sim import Simulator

        try:
            return Simulator(behavior=_behavior_spec(self.behavior, root), seed=self.seed)
        except (ReplaygateError, ValueError) as err:
            raise pytest.UsageError(
                f"--replaygate-simulator / ini {SIMULATOR}: {err} (behaviours: research-copilot, "
                "echo, script:FILE with FILE relative to the rootdir)"
            ) from None

    @property
    def source(self) -> str | None:
        """The ``meta.source`` of what this run records (None: the default, ``live``)."""
        return "sim" if self._simulator is not None else None

    def simulator(self) -> Simulator | None:
        """The session's simulator, started on first use; None when recording from the API."""
        if self._simulator is not None and not self._started:
            self._simulator.start()
            self._started = True
        return self._simulator

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, None, None]:
        """A test stopped by the cap fails with the cap's message, not a traceback."""
        try:
            return (yield)
        except SpendingCapError as err:
            pytest.fail(
                f"{err}\nUnder pytest: --replaygate-max-cost AMOUNT, or ini replaygate_max_cost.",
                pytrace=False,
            )

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        """Say where the session recorded from and what it spent."""
        lines = []
        if self._simulator is not None:
            lines.append(f"recorded from the simulator ({self.behavior}, seed {self.seed})")
        cap = self.cap
        if cap is not None:
            lines.append(
                f"spent {cap.spent:.4f} of {cap.limit:.2f} {cap.prices.currency} on "
                f"{cap.calls} recorded call{'s' if cap.calls != 1 else ''} "
                f"(prices: {cap.prices.source})"
            )
        if lines:
            terminalreporter.section("replaygate recording")
            for line in lines:
                terminalreporter.line(line)

    def pytest_unconfigure(self) -> None:
        """Stop the simulator."""
        if self._simulator is not None and self._started:
            self._simulator.stop()
            self._started = False
