"""Maintenance signals say only what the recordings show: a trend the latest recordings
do not bear out is no signal, and the signals' settings are such that they can appear."""

from __future__ import annotations

from pathlib import Path

import pytest

from replaygate.evals import ReportConfig
from replaygate.evals.config import load_config
from replaygate.evals.errors import ConfigError
from replaygate.evals.history import HistoryRun
from replaygate.report.signals import trend_signals


def runs(**series: list[float]) -> list[HistoryRun]:
    count = len(next(iter(series.values())))
    return [
        HistoryRun(
            f"r{i}", f"2026-11-{i + 1:02}T10:00:00Z", None, {k: v[i] for k, v in series.items()}, ()
        )
        for i in range(count)
    ]


def trends(**series: list[float]) -> dict[str, str]:
    return {s.subject: s.detail for s in trend_signals(runs(**series), ReportConfig())}


def test_one_outlier_the_latest_recording_recovered_from_is_no_trend() -> None:
    # "success fell by 0.429 over the last 7 distinct recordings" of [1,1,1,1,1,0,1]
    recovered = trends(
        success=[1, 1, 1, 1, 1, 0, 1], fabricated=[0, 0, 0, 0, 0, 1, 0], cost=[1, 1, 1, 1, 1, 3, 1]
    )
    assert recovered == {}


def test_a_fall_the_latest_recording_shows_is_a_trend_that_names_both_ends() -> None:
    fell = trends(success=[1, 1, 1, 1, 1, 0, 0], cost=[1.0, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5])
    assert fell["success"] == (
        "fell from 1.000 to 0.000 over the last 7 distinct recordings (fitted trend: fell "
        "by 1.071; tolerance 0.02)"
    )
    assert fell["cost"] == (
        "rose from 1 to 1.5 over the last 7 distinct recordings (fitted trend: rose by "
        "44.1% of its mean; tolerance 0.02)"
    )


def test_a_latest_value_worse_than_the_first_without_a_fitted_trend_is_no_trend() -> None:
    # the fitted line rises; the last is worse than the first by no more than the tolerance
    assert trends(success=[0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 0.49]) == {}


@pytest.mark.parametrize(
    ("table", "said"),
    [
        (
            "window = 3\nmin_runs = 5\n",
            "pyproject.toml:5: tool.replaygate.report.min_runs: 5 is more than window (3, line 4)",
        ),
        (
            "min_runs = 9\n",
            "pyproject.toml:4: tool.replaygate.report.min_runs: 9 is more than window (8, "
            "the default)",
        ),
    ],
)
def test_min_runs_above_the_window_is_refused_naming_both_keys(
    tmp_path: Path, table: str, said: str
) -> None:
    # window 3, min_runs 5 was taken, and no signal could ever appear
    (tmp_path / "pyproject.toml").write_text(
        f"[tool.replaygate]\n\n[tool.replaygate.report]\n{table}", encoding="utf-8"
    )
    with pytest.raises(ConfigError) as raised:
        load_config(tmp_path / "pyproject.toml")
    assert str(raised.value).startswith(f"{tmp_path}/{said}"), str(raised.value)
    assert "window" in str(raised.value) and "min_runs" in str(raised.value)


def test_min_runs_up_to_the_window_is_taken(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.replaygate.report]\nwindow = 3\nmin_runs = 3\n", encoding="utf-8"
    )
    assert load_config(tmp_path / "pyproject.toml").report == ReportConfig(3, 3)
    with pytest.raises(ValueError, match="min_runs 4 is more than window 3"):
        ReportConfig(window=3, min_runs=4)
