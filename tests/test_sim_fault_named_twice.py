"""A fault named twice in one plan is refused, naming it.

``sim serve --faults 429:0.1,429:0.2`` was served without a word, with one of the two
rates (or both) where the user meant one.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from replaygate.sim import cli
from replaygate.sim.faults import FaultPlan, FaultSpecError

TWICE = "fault '429' is named twice (rates 0.1 and 0.2); name each fault once"


@pytest.mark.parametrize("spec", ["429:0.1,429:0.2", "429:0.1, slow:0.05, 429 :0.2"])
def test_a_fault_named_twice_is_refused(spec: str) -> None:
    with pytest.raises(FaultSpecError) as caught:
        FaultPlan.parse(spec)
    assert str(caught.value) == TWICE
    with pytest.raises(FaultSpecError, match="named twice"):
        FaultPlan(rates=(("500", 0.1), ("500", 0.1)))


def test_sim_serve_refuses_a_fault_named_twice_before_serving(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def serving(*_args: object) -> None:
        raise AssertionError("served")  # where it would serve until stopped

    monkeypatch.setattr(cli, "_serving", serving)
    result = CliRunner().invoke(cli.sim_group, ["serve", "--faults", "429:0.1,429:0.2"])
    assert result.exit_code == 2, result.output
    assert TWICE in result.output
