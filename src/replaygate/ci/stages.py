"""Checks of the configured CI stages that the plan relies on.

A stage's ``mock`` is carried to the matrix, where the documented workflow gives the API
key to a stage whose mock is ``live`` only: a typo (``"lvie"``) quietly made a live
stage a replayed one. The stage the plan adds itself, ``fixture-users``, cannot be a
configured stage's name too: the matrix would hold two entries of one name.
"""

from __future__ import annotations

from pathlib import Path

from replaygate.config import tool_table
from replaygate.evals.config import SECTION, CIConfig, Stage
from replaygate.evals.errors import EvalError
from replaygate.evals.toml_reader import TableReader, load_toml

MOCKS = ("none", "rule-based", "replay", "live")
"""The documented values of a stage's ``mock`` (docs/ci.md)."""

FIXTURE_STAGE = "fixture-users"
"""The name of the stage that runs only the tests that played changed fixtures."""


def stage_problem(stage: Stage) -> tuple[str, str] | None:
    """The key of ``stage`` that the plan cannot take, and why; None when it can."""
    if stage.name == FIXTURE_STAGE:
        return "name", (
            f"{FIXTURE_STAGE!r} is reserved: it is the stage ci plan adds itself for the "
            "tests that played changed fixtures; give this stage another name"
        )
    if stage.mock not in MOCKS:
        return "mock", f"expected one of {', '.join(MOCKS)}, got {stage.mock!r}"
    return None


def check_stages(ci: CIConfig, file: Path | None = None) -> None:
    """Refuse a stage :func:`stage_problem` finds, naming ``file``, the line and the key
    when the stages were read from ``file``, else the stage."""
    for index, stage in enumerate(ci.stages):
        problem = stage_problem(stage)
        if problem is None:
            continue
        key, reason = problem
        if file is not None:
            raise _reader(file, index).error(key, reason)
        raise EvalError(f"stage {stage.name!r}: {key}: {reason}")


def _reader(file: Path, index: int) -> TableReader:
    """The reader of the ``index``-th ``[[tool.replaygate.ci.stages]]`` of ``file``."""
    data, text = load_toml(file)
    top = TableReader(str(file), text, SECTION, tool_table(data))
    return top.sub("ci").tables("stages")[index]
