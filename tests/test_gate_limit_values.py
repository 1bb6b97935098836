"""A gate limit is a number in the digits 0-9, and a share's is in points from 0 to 1:
``success=2``, meant as two points, would allow 200 and never fail. Both refused on the
command line, in ``[tool.replaygate.gate]`` and in ``GateConfig``; a limit of -0 is 0."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from replaygate.cli import main
from replaygate.evals import EvalResults, GateConfig, update_baseline
from replaygate.evals.prices import Price, PriceTable
from test_gate_price_tables import case

PRICES = PriceTable({"m": Price(3.0, 15.0)}, "USD", "shipped")


def results(*passes: int) -> EvalResults:
    cases = tuple(case(f"c{i}", passes=n) for i, n in enumerate(passes))
    info = {"time": "2026-12-01T00:00:00Z", "mode": "replay", "model": "m"}
    return EvalResults(cases, {**info, "prices": PRICES.to_json()})


def gate(tmp_path: Path, *args: str, config: str = "[tool.replaygate]\n") -> Result:
    """``replaygate gate`` of a run whose success dropped from 1.0 to 0.5."""
    baseline, out, pyproject = (tmp_path / n for n in ("b.json", "now.json", "pyproject.toml"))
    update_baseline(baseline, results(5, 5), reason="first")
    results(5, 3).write(out)
    pyproject.write_text(config, encoding="utf-8")
    command = ["gate", "--baseline", str(baseline), "--results", str(out)]
    return CliRunner().invoke(main, [*command, "--config", str(pyproject), *args])


def row(result: Result, metric: str) -> str:
    return next(line for line in result.output.splitlines() if line.startswith(f"{metric} "))


@pytest.mark.parametrize(
    ("flag", "item"),
    [
        ("--max-drop", "success=2"),
        ("--max-drop", "citation=1.5"),
        ("--max-rise", "fabricated=100"),
    ],
)
def test_a_share_limit_above_one_point_is_refused(tmp_path: Path, flag: str, item: str) -> None:
    name, _, given = item.partition("=")
    result = gate(tmp_path, flag, item)
    assert result.exit_code == 2, result.output
    assert (
        f"Error: {flag} '{item}': {name} is a share, whose limit is in points from 0 to 1, "
        f"written as a fraction ({name}=0.02 allows two points), got {given}"
    ) in result.output


def test_a_share_limit_of_one_or_inf_is_taken(tmp_path: Path) -> None:
    # the drop of 0.5 is within 1 point, and inf is no limit: 2 would have passed too,
    # never failing whatever the drop
    assert gate(tmp_path, "--max-drop", "success=1").exit_code == 0
    assert gate(tmp_path, "--max-drop", "success=inf").exit_code == 0
    assert gate(tmp_path, "--max-drop", "success=2").exit_code == 2


def test_a_share_limit_above_one_point_in_the_configuration_names_file_and_key(
    tmp_path: Path,
) -> None:
    config = "[tool.replaygate.gate]\nmax_drop = {success = 2}\n"
    result = gate(tmp_path, config=config)
    assert result.exit_code == 2, result.output
    assert (
        "pyproject.toml:2: tool.replaygate.gate.max_drop.success: success is a share, whose "
        "limit is in points from 0 to 1" in result.output
    )
    assert "got 2" in result.output


def test_gate_config_refuses_a_share_limit_above_one_point() -> None:
    with pytest.raises(ValueError, match=r"GateConfig max_drop\['success'\]: success is a share"):
        GateConfig(max_drop={"success": 2})
    with pytest.raises(ValueError, match=r"GateConfig max_rise\['citation'\]: citation is a"):
        GateConfig(max_rise={"citation": 1.01})


@pytest.mark.parametrize(
    ("flag", "item", "written"),
    [
        ("--max-drop", "success=２", "'２' is not a number written in the digits 0-9"),
        ("--max-drop", "success=1_0", "'1_0' is not a number written in the digits 0-9"),
        ("--max-drop", "success=0.٠٢", "'0.٠٢' is not a number written in the digits 0-9"),
        ("--max-rise", "cost=１0%", "'１0%' is not a number nor a percentage written in the"),
        ("--max-rise", "cost=1_0%", "'1_0%' is not a number nor a percentage written in the"),
    ],
)
def test_a_limit_is_written_in_the_digits_0_to_9(
    tmp_path: Path, flag: str, item: str, written: str
) -> None:
    result = gate(tmp_path, flag, item)
    assert result.exit_code == 2, result.output
    assert f"Error: {flag} '{item}': {written}" in result.output


def test_a_percentage_in_the_configuration_is_written_in_the_digits_0_to_9(
    tmp_path: Path,
) -> None:
    result = gate(tmp_path, config='[tool.replaygate.gate]\nmax_rise = {cost = "１0%"}\n')
    assert result.exit_code == 2, result.output
    assert (
        "pyproject.toml:2: tool.replaygate.gate.max_rise.cost: '１0%' is not a number nor a "
        "percentage written in the digits 0-9" in result.output
    )


def test_a_limit_of_minus_zero_is_shown_as_zero(tmp_path: Path) -> None:
    result = gate(tmp_path, "--max-drop", "success=-0", "--max-rise", "cost=-0%")
    assert result.exit_code == 1, result.output
    assert "drop <= 0.000" in row(result, "success")
    assert "rise <= 0.0%" in row(result, "cost")
    assert GateConfig(max_drop={"success": -0.0}).max_drop["success"] == 0.0
    assert str(GateConfig(max_drop={"success": -0.0}).max_drop["success"]) == "0.0"


@pytest.mark.parametrize("flag", ["--max-drop", "--max-rise"])
@pytest.mark.parametrize(
    ("given", "problem"),
    [
        ("", "no limit given; give METRIC=LIMIT items"),
        (" ", "no limit given; give METRIC=LIMIT items"),
        (",", "no limit given; give METRIC=LIMIT items"),
        ("success=0.1,", "an empty item between commas"),
        ("success=0.1,,cost=1", "an empty item between commas"),
    ],
)
def test_an_empty_limit_or_item_is_a_usage_error(
    tmp_path: Path, flag: str, given: str, problem: str
) -> None:
    # --max-drop "$LIMITS" of an empty variable ran with the default limits, without a word
    result = gate(tmp_path, flag, given)
    assert result.exit_code == 2, result.output
    assert f"Error: {flag} {given!r}: {problem}" in result.output, result.output
    assert result.output.startswith("Usage: ")  # a usage error
