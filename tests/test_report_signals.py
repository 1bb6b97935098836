"""Maintenance signals say only what the recordings show: a trend the latest recordings
do not bear out is no signal, and the signals' settings are such that they can appear."""

from __future__ import annotations

from pathlib import Path

import pytest

from priced_runs import JPY, USD, price_table, priced_run
from replaygate.evals import ReportConfig
from replaygate.evals.config import load_config
from replaygate.evals.errors import ConfigError
from replaygate.evals.history import HistoryRun
from replaygate.evals.reference import CaseSummary
from replaygate.report.evidence import case_evidence, distinct_runs
from replaygate.report.signals import find_signals, trend_signals


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


def test_a_trend_over_recordings_of_other_cases_says_the_cases_changed() -> None:
    # three passing cases dropped from the file read as "success fell from 0.875 to
    # 0.800", the agent unchanged
    fell = runs(success=[0.875, 0.875, 0.8])
    ids = [("a", "b", "c"), ("a", "b", "c"), ("a", "d")]
    changed = [
        HistoryRun(r.id, r.time, None, r.metrics, tuple(CaseSummary(i, 5, 4, 5) for i in held))
        for r, held in zip(fell, ids, strict=True)
    ]
    detail = {s.subject: s.detail for s in trend_signals(changed, ReportConfig())}["success"]
    assert detail.endswith(
        "; the cases changed over these recordings (3 of the 4 cases not run in every one, "
        "e.g. b): part of the change may be the cases', not the agent's"
    )
    assert "cases changed" not in trends(success=[0.875, 0.875, 0.8])["success"]


def recorded(answers: str, success: float, day: int) -> HistoryRun:
    """A run of one recording (``answers``, the digest of what its one case answered)
    on November ``day``: its case passed ``success`` of 8 samples."""
    passes = round(success * 8)
    case = CaseSummary("case-0", 8, 6, passes)
    return HistoryRun(
        f"{answers}-{day}",
        f"2026-11-{day:02}T10:00:00Z",
        None,
        {"success": success},
        (case,),
        answers={"case-0": answers},
    )


def test_a_replay_of_an_old_recording_adds_no_evidence_and_moves_none() -> None:
    # replaying the oldest store made it the latest recording: "success fell from 0.750
    # to 0.500 over the last 5 distinct recordings", gone again once the newest replayed
    made = [("seed-4", 0.5), ("seed-1", 0.75), ("seed-2", 0.625), ("seed-3", 0.75)]
    made.append(("seed-7", 0.625))
    runs = [recorded(answers, success, day) for day, (answers, success) in enumerate(made, 1)]
    before = find_signals(runs, ReportConfig())
    assert before == ([], "the last 5 of 5 distinct recordings examined")
    replays = [*runs, recorded("seed-4", 0.5, 20)]
    assert find_signals(replays, ReportConfig()) == (
        [],
        "the last 5 of 5 distinct recordings (6 runs: replays of the same answers count "
        "once) examined",
    )
    distinct = distinct_runs(replays)
    assert [run.id for run in distinct] == [
        "seed-4-20",
        "seed-1-2",
        "seed-2-3",
        "seed-3-4",
        "seed-7-5",
    ]
    (evidence,) = case_evidence(replays)
    assert [summary.passes for summary in evidence.recordings] == [4, 6, 5, 6, 5]


def test_costs_of_two_currencies_are_no_trend() -> None:
    # "cost: rose from 0.004159 to 0.6759" when the last two runs were priced in JPY
    usd = [priced_run(day, 0.0042, USD) for day in (1, 2, 3)]
    jpy = [priced_run(day, 0.676, JPY) for day in (4, 5)]
    assert trends_of(usd + jpy) == {}
    rising = [priced_run(day, 0.6 + day / 10, JPY) for day in (4, 5, 6)]
    assert trends_of(usd + rising)["cost"] == (
        "rose from 1 to 1.2 over the last 3 distinct recordings priced alike, 3 priced at "
        "other prices left out (fitted trend: rose by 18.2% of its mean; tolerance 0.02)"
    )


def test_a_price_of_the_model_changed_in_one_currency_is_no_trend() -> None:
    cheaper = price_table("USD", "replaygate/evals/data/prices.toml", (1.0, 5.0), "2025-06-01")
    runs = [priced_run(day, 0.0014, cheaper) for day in (1, 2, 3)]
    runs += [priced_run(day, 0.0042, USD) for day in (4, 5, 6)]
    assert trends_of(runs) == {}
    # another date of a table that prices the model alike is compared
    restated = price_table("USD", "replaygate/evals/data/prices.toml", (3.0, 15.0), "2025-06-01")
    runs = [priced_run(day, 0.0014, restated) for day in (1, 2, 3)]
    runs += [priced_run(day, 0.0042, USD) for day in (4, 5, 6)]
    assert set(trends_of(runs)) == {"cost", "cost_total"}


def trends_of(runs: list[HistoryRun]) -> dict[str, str]:
    return {s.subject: s.detail for s in trend_signals(runs, ReportConfig())}


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
