"""The baseline gate on constructed results: passes, fails, prints its table (text and
Markdown); the baseline is updated only with a reason, recorded with date and commit."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from counted_outputs import run_output
from replaygate.assertions.kinds import Outcome
from replaygate.cli.gate_cmds import baseline_group, gate_cmd, upgrade_cmd
from replaygate.cli.history_cmds import report_cmd
from replaygate.evals import (
    BaselineError,
    CaseResult,
    EvalResults,
    GateConfig,
    History,
    HistoryError,
    LimitError,
    Reference,
    ResultsError,
    load_baseline,
    load_eval_results,
    load_reference,
    parse_limits,
    read_export,
    run_gate,
    update_baseline,
)
from replaygate.evals.config import DEFAULT_MAX_RISE
from replaygate.evals.metrics import METRICS
from replaygate.evals.scorers import CaseCounts
from replaygate.sampling import SampledResult, SampleResult


def case(
    case_id: str, passes: int, *, n: int = 5, floor: int = 4, cost: float = 0.01
) -> CaseResult:
    samples = tuple(
        SampleResult(
            i,
            (Outcome("citations", "gate", i < passes, "", None, "set"),),
            run_output(
                "answer",
                cited=["doc-a"] if i < passes else [],
                fetched=["doc-a"],
                input_tokens=100,
                output_tokens=10,
                steps=3,
            ),
        )
        for i in range(n)
    )
    sampled = SampledResult(case_id, n, floor, samples)
    counts = CaseCounts(
        samples=n,
        passed=sampled.verdict == "pass",
        runs=n,
        scored=True,
        cited=passes,
        correct=passes,
        expected=n,
        input_tokens=100 * n,
        output_tokens=10 * n,
        steps=3 * n,
        cost=cost * n,
    )
    return CaseResult(sampled, counts, ("t",))


def results(*cases: CaseResult) -> EvalResults:
    return EvalResults(cases, {"time": "2026-11-30T00:00:00Z", "mode": "replay", "model": "m"})


BASE = results(case("a", 5), case("b", 4), case("c", 5), case("d", 5))


def reference(res: EvalResults) -> Reference:
    return Reference.of(res, "constructed")


def test_the_gate_passes_when_nothing_drops_beyond_its_limit() -> None:
    now = results(case("a", 5), case("b", 5), case("c", 5), case("d", 4, cost=0.0104))
    report = run_gate(reference(BASE), reference(now), GateConfig())
    assert report.passed, report.text()
    text = report.text()
    lines = text.splitlines()
    assert lines[0].split() == ["metric", "baseline", "now", "delta", "limit", "verdict"]
    success = next(line for line in lines if line.startswith("success "))
    assert success.split() == ["success", "1.000", "1.000", "+0.000", "drop", "<=", "0.020", "ok"]
    cost = next(line for line in lines if line.startswith("cost "))
    assert cost.split()[-5:] == ["+1.0%", "rise", "<=", "10.0%", "ok"]
    assert lines[-1] == "gate: PASS"


def test_the_gate_fails_on_a_success_drop_and_a_cost_rise() -> None:
    now = results(case("a", 5), case("b", 3), case("c", 5), case("d", 5, cost=0.02))
    report = run_gate(reference(BASE), reference(now), GateConfig())
    assert not report.passed
    assert report.failures == [
        "success: -0.250 exceeds drop <= 0.020",
        "cost: +25.0% exceeds rise <= 10.0%",
    ]
    recall = next(r for r in report.rows if r.metric == "citation_recall")
    assert (recall.delta, recall.verdict) == ("-0.050", "ok")  # exactly at its limit
    assert report.text().splitlines()[-1].startswith("gate: FAIL (")
    markdown = report.markdown()
    assert markdown.startswith("### replaygate gate: FAILED")
    assert "| metric | baseline | now | delta | limit | verdict |" in markdown
    assert "| success | 1.000 | 0.750 | -0.250 | drop <= 0.020 | FAIL |" in markdown
    document = report.to_json()
    assert document["passed"] is False
    assert {r["metric"]: r["verdict"] for r in document["rows"]}["success"] == "FAIL"


def test_a_case_whose_verdict_fell_is_named_with_its_figures_even_when_the_gate_passes() -> None:
    now = results(case("a", 4), case("b", 4), case("c", 3), case("d", 5))
    report = run_gate(reference(BASE), reference(now), GateConfig())
    fell = [n for n in report.notes if " fell from " in n]
    assert fell == [
        "case c fell from pass (5/5 samples passed, floor 4) to observe (3/5): "
        "citations [gate] 5/5 -> 3/5"
    ]  # a still passes: 5/5 -> 4/5 moves the citation metrics, not its verdict
    assert f"note {fell[0]}" in report.text()
    lenient = GateConfig(max_drop={"success": 1.0})
    assert run_gate(reference(BASE), reference(now), lenient).notes == report.notes


def test_under_fail_on_fallen_a_case_whose_verdict_fell_fails_the_gate_alone() -> None:
    """One case falling from pass to observe while another rises keeps success where it
    was, and every metric within its limits: the fall fails the gate all the same."""
    base = results(case("a", 5), case("b", 3), case("c", 5))
    now = results(case("a", 5), case("b", 5), case("c", 3))
    config = GateConfig(fail_on_fallen=True)
    report = run_gate(reference(base), reference(now), config)
    assert all(row.verdict == "ok" for row in report.rows if row.metric == "success")
    assert not report.passed
    assert report.failures == [
        "case c fell from pass (5/5 samples passed, floor 4) to observe (3/5): "
        "citations [gate] 5/5 -> 3/5"
    ]
    assert not [n for n in report.notes if " fell from " in n]
    assert run_gate(reference(base), reference(now), GateConfig()).passed


def test_fail_on_fallen_in_the_project_s_configuration_fails_the_command(tmp_path: Path) -> None:
    base = write_results(tmp_path / "base.json", results(case("a", 5), case("b", 3)))
    now = write_results(tmp_path / "now.json", results(case("a", 3), case("b", 5)))
    config = tmp_path / "pyproject.toml"
    args = ["--baseline", str(base), "--results", str(now), "--config", str(config)]
    config.write_text("[tool.replaygate.gate]\n", encoding="utf-8")
    assert CliRunner().invoke(gate_cmd, args).exit_code == 0
    config.write_text("[tool.replaygate.gate]\nfail_on_fallen = true\n", encoding="utf-8")
    result = CliRunner().invoke(gate_cmd, [*args, "--max-drop", "success=0.5"])
    assert result.exit_code == 1, result.output
    assert "FAIL case a fell from pass (5/5 samples passed, floor 4) to observe" in result.output


HOSTILE_ID = "[docs](https://example.com/x) ![p](https://example.com/p.png) *b* `t <i>"
SHOWN_ID = (
    "\\[docs\\](https://example.com/x) !\\[p\\](https://example.com/p.png) \\*b\\* \\`t &lt;i&gt;"
)


def test_the_markdown_shows_a_case_id_as_written_not_as_a_link_an_image_or_emphasis() -> None:
    # a case id "[docs](https://...)" was a link of the pull-request comment, "![p](...)"
    # an image the comment loaded from anywhere
    report = run_gate(
        reference(BASE), reference(results(*BASE.cases, case(HOSTILE_ID, 0))), GateConfig()
    )
    markdown = report.markdown()
    assert f"- **FAIL** case {SHOWN_ID}: every sample failed" in markdown
    assert f"- note: case {SHOWN_ID} is new" in markdown
    assert "](" not in markdown.replace("\\](", "")


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_a_case_id_holding_a_character_of_no_width_shows_it_as_its_escape(fmt: str) -> None:
    # "rag" U+200B "basics" new beside "ragbasics" missing printed one case id twice,
    # said missing and new at once; the report showed the escape
    now = run_gate(
        reference(results(case("a", 5), case("ragbasics", 5))),
        reference(results(case("a", 5), case("rag\u200bbasics", 5), case("x\u200fy", 5))),
        GateConfig(),
    ).render(fmt)
    assert "case rag\\u200bbasics is new" in now and "case x\\u200fy is new" in now
    assert "\u200b" not in now and "\u200f" not in now


def test_a_drop_exactly_at_the_limit_passes() -> None:
    config = GateConfig(max_drop={"success": 0.25}, keep_defaults=False)
    now = results(case("a", 5), case("b", 3), case("c", 5), case("d", 5))
    assert run_gate(reference(BASE), reference(now), config).passed
    tighter = GateConfig(max_drop={"success": 0.24}, keep_defaults=False)
    assert not run_gate(reference(BASE), reference(now), tighter).passed


def test_a_failed_change_and_its_limit_are_shown_with_the_decimals_that_tell_them_apart() -> None:
    now = results(case("a", 5), case("b", 3), case("c", 5), case("d", 5, cost=0.010004))
    config = GateConfig(max_drop={"success": 0.2496}, max_rise={"cost": 0.0}, keep_defaults=False)
    report = run_gate(reference(BASE), reference(now), config)
    assert report.failures == [  # not -0.250 past drop <= 0.250, nor +0.0% past rise <= 0.0%
        "success: -0.250 exceeds drop <= 0.2496",
        "cost: +0.01% exceeds rise <= 0.0%",
    ]


def test_a_blocked_case_and_a_missing_case_fail_the_gate() -> None:
    now = results(case("a", 5), case("b", 0), case("c", 5), case("e", 5))
    limits = GateConfig(keep_defaults=False)
    report = run_gate(reference(BASE), reference(now), limits)
    assert report.problems == (
        "case b: every sample failed (0/5, block)",
        "case d is in the baseline but not in the results "
        "(remove it with `replaygate baseline update --reason ...`)",
    )
    assert "case e is new (not in the baseline)" in report.notes
    assert "FAIL case b: every sample failed (0/5, block)" in report.text()
    lenient = GateConfig(fail_on_block=False, fail_on_missing=False, keep_defaults=False)
    assert run_gate(reference(BASE), reference(now), lenient).passed


def test_a_limited_metric_without_a_value_fails_the_gate() -> None:
    unpriced = results(*(case(c.id, 5) for c in BASE.cases))
    counts = [
        CaseResult(c.sampled, CaseCounts(**{**c.counts.to_json(), "cost": None}), c.tags)
        for c in unpriced.cases
    ]
    report = run_gate(reference(BASE), reference(results(*counts)), GateConfig())
    row = next(r for r in report.rows if r.metric == "cost")
    assert (row.verdict, row.delta) == ("n/a", "n/a")
    assert not report.passed
    assert (
        "cost: the results have no value, so its limit (rise <= 10.0%) cannot be checked: "
        "a run without a price table, or every case compared opted out of cost" in report.failures
    )


def test_results_better_than_the_baseline_past_a_limit_say_to_take_them_in() -> None:
    # a gain left out of the baseline lets a later fall back to the old values pass
    worse = results(case("a", 5), case("b", 2, floor=2), case("c", 5), case("d", 5))
    better = results(case("a", 5), case("b", 5, floor=2), case("c", 5), case("d", 5))
    report = run_gate(reference(worse), reference(better), GateConfig())
    assert report.passed
    (note,) = [n for n in report.notes if n.startswith("the results are better")]
    assert note == (
        "the results are better than the baseline by more than a limit (citation_recall "
        "0.850 -> 1.000): the baseline still holds the old values, so a fall back to them "
        "would pass the gate; take these results in with `replaygate baseline update "
        "--reason ...`"
    )
    same = run_gate(reference(better), reference(better), GateConfig())
    assert not any(n.startswith("the results are better") for n in same.notes)


def test_a_share_without_a_value_says_that_nothing_was_cited() -> None:
    # "citation_precision: the results have no value ... cannot be checked" said not why
    uncited = results(*(case(c.id, 0) for c in BASE.cases))
    report = run_gate(reference(BASE), reference(uncited), GateConfig())
    assert (
        "citation_precision: the results have no value, so its limit (drop <= 0.050) cannot "
        "be checked: no sample of the cases compared cited a document: it is a share of the "
        "ids cited" in report.failures
    )
    notes = run_gate(reference(uncited), reference(BASE), GateConfig()).notes
    assert any(
        n.startswith("fabricated: the baseline has no value (it measured none: no sample")
        for n in notes
    )


def test_a_limited_metric_the_baseline_has_no_value_of_is_noted_as_unchecked() -> None:
    priced = results(*(case(c.id, 5) for c in BASE.cases))
    counts = [
        CaseResult(c.sampled, CaseCounts(**{**c.counts.to_json(), "cost": None}), c.tags)
        for c in priced.cases
    ]
    report = run_gate(reference(results(*counts)), reference(priced), GateConfig())
    row = next(r for r in report.rows if r.metric == "cost")
    assert (row.baseline, row.verdict) == (None, "n/a") and row.now is not None
    assert report.passed  # the committed baseline measured none: nothing to exceed
    assert (
        "cost: the baseline has no value (it measured none: a run without a price table, or "
        "every case compared opted out of cost), so its limit (rise <= 10.0%) is not checked; "
        "take a run that has one in "
        "with `replaygate baseline update --reason ...`" in report.notes
    )
    assert "the baseline has no value" in report.text()


def test_limits_parse_with_aliases_and_explain_mistakes() -> None:
    assert parse_limits("success=0.02, citation=0.05", "--max-drop") == {
        "success": 0.02,
        "citation": 0.05,
    }
    for text, message in [
        ("success", "expected METRIC=LIMIT items"),
        ("success=lots", "'lots' is not a number"),
        ("success=-1", "a limit must be a number >= 0"),
        ("speed=0.1", "unknown metric 'speed'; known: success, "),
        ("citaton=0.1", "unknown metric 'citaton'; did you mean citation[?] known: "),
        ("success=0.02,success=0.5", "success is given twice"),  # not the last one silently
        ("success=2%", "success is a share, whose limit is in points, written as a fraction"),
        ("citation=5%", "citation is a share"),
        ("cost=lots%", "'lots%' is not a number nor a percentage"),
    ]:
        with pytest.raises(LimitError, match=message):
            parse_limits(text, "--max-drop")


def test_an_amount_limit_may_be_a_percentage_as_the_table_prints_it() -> None:
    assert parse_limits("cost=10%, steps = 25 %", "--max-rise") == {"cost": 0.1, "steps": 0.25}


def write_results(path: Path, res: EvalResults) -> Path:
    return res.write(path)


def test_the_gate_command_prints_the_table_and_exits_1_on_a_violation(tmp_path: Path) -> None:
    base = write_results(tmp_path / "base.json", BASE)
    good = write_results(tmp_path / "good.json", BASE)
    bad = write_results(tmp_path / "bad.json", results(case("a", 5), case("b", 3), case("c", 5)))
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.replaygate.gate]\nmax_drop = { success = 0.5 }\n", encoding="utf-8")
    runner = CliRunner()
    ok = runner.invoke(gate_cmd, ["--baseline", str(base), "--results", str(good)])
    assert ok.exit_code == 0, ok.output
    assert ok.output.rstrip().endswith("gate: PASS")
    fail = runner.invoke(
        gate_cmd,
        ["--baseline", str(base), "--results", str(bad), "--config", str(config), "--format",
         "markdown"],
    )  # fmt: skip
    assert fail.exit_code == 1
    assert "| success | 1.000 | 0.667 | -0.333 | drop <= 0.500 | ok |" in fail.output
    assert "**FAIL** case d is in the baseline but not in the results" in fail.output
    flags = runner.invoke(
        gate_cmd,
        ["--baseline", str(base), "--results", str(bad), "--config", str(config),
         "--max-drop", "success=0.1", "--max-rise", "cost=1"],
    )  # fmt: skip
    assert flags.exit_code == 1
    assert re.search(r"^success .* drop <= 0\.100 +FAIL$", flags.output, re.MULTILINE)
    as_json = runner.invoke(
        gate_cmd, ["--baseline", str(base), "--results", str(good), "--format", "json"]
    )
    assert json.loads(as_json.output)["passed"] is True


@pytest.mark.parametrize("named", ["baseline", "results"])
def test_the_gate_run_from_above_the_project_keeps_its_limits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, named: str
) -> None:
    # a monorepo's CI step run from the top took the default limits, and passed a rise
    # the service's [tool.replaygate.gate] fails
    service = tmp_path / "service"
    (service / "evals").mkdir(parents=True)
    (service / "pyproject.toml").write_text(
        '[tool.replaygate]\nbaseline = "evals/base.json"\n\n'
        "[tool.replaygate.gate]\nmax_rise = { cost = 0.0 }\n",
        encoding="utf-8",
    )
    base = write_results(service / "evals" / "base.json", BASE)
    dearer = results(*(case(c.id, c.sampled.passes, cost=0.0101) for c in BASE.cases))
    write_results(service / "now.json", dearer)
    monkeypatch.chdir(tmp_path)
    given = ["--baseline", str(base)] if named == "baseline" else []
    done = CliRunner().invoke(gate_cmd, [*given, "--results", "service/now.json"])
    assert done.exit_code == 1, done.output
    assert re.search(r"^cost .* rise <= 0\.0% +FAIL$", done.output, re.MULTILINE), done.output
    drawn: list[Any] = []  # the report draws the gate the command gives, here unchanged
    monkeypatch.setattr("replaygate.report.write_report", lambda out, **kw: drawn.append(kw))
    page = ["--out", "page.html", "--results", "service/now.json"]
    CliRunner().invoke(report_cmd, [*given, *page])
    assert [kw["gate"].passed for kw in drawn] == [False]
    assert drawn[0]["history"] == service / ".replaygate" / "history.db"


@pytest.mark.parametrize("command", [gate_cmd, upgrade_cmd], ids=["gate", "upgrade"])
@pytest.mark.parametrize("fmt", ["markdown", "text"])
def test_json_with_another_format_given_is_a_usage_error(
    tmp_path: Path, command: Any, fmt: str
) -> None:
    # --format markdown --json printed JSON, where --format given twice is refused
    base = write_results(tmp_path / "base.json", BASE)
    now = write_results(tmp_path / "now.json", BASE)
    files = ["--results", str(now)] if command is gate_cmd else ["--candidate", str(now)]
    runner = CliRunner()
    done = runner.invoke(command, ["--baseline", str(base), *files, "--format", fmt, "--json"])
    assert done.exit_code == 2, done.output
    assert done.output.endswith(
        f"Error: --json is --format json, and --format {fmt} was given too: give one of them\n"
    ), done.output
    for same in (["--json"], ["--format", "json", "--json"]):  # one format, however said
        agreed = runner.invoke(command, ["--baseline", str(base), *files, *same])
        assert agreed.exit_code == 0, agreed.output
        json.loads(agreed.output)


def test_a_configured_limit_keeps_the_default_limits_of_the_other_metrics(
    tmp_path: Path,
) -> None:
    # allowing costs to rise 20% must not lift the limit on success
    base = write_results(tmp_path / "base.json", BASE)
    now = results(case("a", 5), case("b", 3), case("c", 5), case("d", 5))
    worse = write_results(tmp_path / "worse.json", now)
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.replaygate.gate]\nmax_rise = { cost = 0.2 }\n", encoding="utf-8")
    result = CliRunner().invoke(
        gate_cmd, ["--baseline", str(base), "--results", str(worse), "--config", str(config)]
    )
    assert result.exit_code == 1, result.output
    assert re.search(r"^success .* drop <= 0\.020 +FAIL$", result.output, re.MULTILINE)
    assert re.search(r"^cost .* rise <= 20\.0% +ok$", result.output, re.MULTILINE)
    assert re.search(r"^fabricated .* rise <= 0\.000 +ok$", result.output, re.MULTILINE)


def test_results_sharing_no_case_with_the_baseline_are_refused_even_with_missing_allowed(
    tmp_path: Path,
) -> None:
    # every case renamed: with fail_on_missing off the gate compared nothing and passed
    base = write_results(tmp_path / "base.json", BASE)
    other = write_results(tmp_path / "other.json", results(case("v2-a", 5), case("v2-b", 5)))
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.replaygate.gate]\nfail_on_missing = false\n", encoding="utf-8")
    result = CliRunner().invoke(
        gate_cmd, ["--baseline", str(base), "--results", str(other), "--config", str(config)]
    )
    assert result.exit_code == 2, result.output
    assert "other.json: no case in common with " in result.output
    assert "base.json: there is nothing to compare" in result.output
    lenient = GateConfig(fail_on_missing=False)
    with pytest.raises(ResultsError, match="no case in common"):
        run_gate(reference(BASE), reference(results(case("v2-a", 5))), lenient)


def test_baseline_update_names_the_results_from_the_project_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the history entry kept the path as typed: a checkout's absolute path, committed
    project = tmp_path / "project"
    (project / "evals").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[tool.replaygate]\n", encoding="utf-8")
    monkeypatch.chdir(project / "evals")
    kept = project / "evals" / "baseline.json"
    for results_path, named in (
        (project / "out" / "results.json", "out/results.json"),
        (tmp_path / "elsewhere.json", str(tmp_path / "elsewhere.json")),  # as it is
    ):
        write_results(results_path, BASE)
        done = CliRunner().invoke(
            baseline_group,
            ["update", "--results", str(results_path), "--reason", "why", "--json"],
        )
        assert done.exit_code == 0, done.output
        assert json.loads(done.output)["results"] == named
        assert json.loads(kept.read_text("utf-8"))["history"][-1]["results"] == named


def test_a_baseline_path_typed_from_a_folder_of_the_project_is_named_where_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # from evals/, `--baseline evals/baseline.json` made evals/evals/baseline.json and said
    # "updated"; the gate said "No such file or directory" naming no folder
    project = tmp_path / "project"
    (project / "evals").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[tool.replaygate]\n", encoding="utf-8")
    results_path = write_results(project / "results.json", BASE)
    update = ["update", "--results", str(results_path), "--reason", "first"]
    monkeypatch.chdir(project)
    first = CliRunner().invoke(baseline_group, [*update, "--baseline", "evals/baseline.json"])
    assert first.exit_code == 0, first.output
    kept = project / "evals" / "baseline.json"
    assert first.output.splitlines()[0] == f"baseline {kept} created (no git commit found)"
    again = CliRunner().invoke(baseline_group, [*update, "--baseline", "evals/baseline.json"])
    assert again.output.startswith("baseline evals/baseline.json updated ("), again.output
    monkeypatch.chdir(project / "evals")
    project_has = (
        f"the project folder {project} (of its pyproject.toml) has evals/baseline.json (to "
        f"name it, give --baseline baseline.json, or run the command from {project})"
    )
    gate = CliRunner().invoke(
        gate_cmd, ["--baseline", "evals/baseline.json", "--results", str(results_path)]
    )
    assert gate.exit_code == 2, gate.output
    assert (
        f"Error: evals/baseline.json: cannot read baseline or results: there is no "
        f"{project / 'evals' / 'evals' / 'baseline.json'} (a relative --baseline is read from "
        f"the working folder, {project / 'evals'}); {project_has}\n"
    ) in gate.output, gate.output
    missing = CliRunner().invoke(gate_cmd, ["--baseline", "baseline.json", "--results", "r.json"])
    assert missing.exit_code == 2, missing.output
    assert (
        f"Error: r.json: cannot read results: there is no {project / 'evals' / 'r.json'} (a "
        f"relative --results is read from the working folder, {project / 'evals'})\n"
    ) == missing.output, missing.output
    made = CliRunner().invoke(baseline_group, [*update, "--baseline", "evals/baseline.json"])
    assert made.exit_code == 0, made.output
    stray = project / "evals" / "evals" / "baseline.json"
    assert made.stdout.startswith(f"baseline {stray} created (no git commit found)\n")
    assert made.stderr == (
        f"note: evals/baseline.json is read from the working folder, {project / 'evals'}; "
        f"{project_has}, left as it is\n"
    )
    assert len(json.loads(kept.read_text("utf-8"))["history"]) == 2


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_report_refuses_results_sharing_no_case_before_it_opens_its_output(
    tmp_path: Path,
) -> None:
    # a FIFO no process reads: opening it first said so, and hid what is wrong
    base = write_results(tmp_path / "base.json", BASE)
    other = write_results(tmp_path / "other.json", results(case("v2-a", 5)))
    os.mkfifo(tmp_path / "page.fifo")
    History.open(tmp_path / "history.db").close()
    history, page = str(tmp_path / "history.db"), str(tmp_path / "page.fifo")
    done = CliRunner().invoke(
        report_cmd,
        ["--history", history, "--out", page, "--results", str(other), "--baseline", str(base)],
    )
    assert done.exit_code == 2, done.output
    assert "other.json: no case in common with " in done.output


ONE_CASE = (
    '{"format": "replaygate.eval.baseline", "version": 1,'
    ' "cases": {"a": {"samples": 1, "floor": 1, "passes": 1}},'
)
"""The start of a baseline of one passing case, up to its metrics."""
OTHER_METRICS = ", ".join(f'"{name}": null' for name in METRICS if name != "success")
"""Every metric but ``success``, each null (nothing measured), as a baseline holds them."""


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "not JSON"),
        (
            '{"format": "other"}',
            "bad.json: format: 'other' is none of replaygate's documents, where a baseline "
            r"\('replaygate.eval.baseline'\) or a results file",
        ),
        ('{"version": 1}', "bad.json: format: is missing, where a baseline"),
        ("[]", "bad.json: holds a list, where a baseline"),
        (  # an export downloaded from CI, given as the run's results
            '{"format": "replaygate.history", "version": 1, "runs": []}',
            "bad.json: format: 'replaygate.history': holds an exported history "
            r"\(`replaygate history export` writes it",
        ),
        (
            '{"format": "replaygate.eval.baseline", "version": 9}',
            "baseline version 9 was written by a newer replaygate; this one reads version 1: "
            "upgrade replaygate",
        ),
        (
            '{"format": "replaygate.eval.baseline", "version": 0}',
            r"baseline unsupported version 0 \(this replaygate reads version 1\)$",
        ),
        (
            ONE_CASE.replace('"version": 1', '"version": true')
            + ' "metrics": {"success": 1.0, '
            + OTHER_METRICS
            + "}}",
            r"bad\.json: version: must be an integer, got true$",
        ),
        (
            '{"format": "replaygate.sampling.results", "version": 1, "cases": [{}]}',
            r"cases\[0\]\.case: is missing; it must be a non-empty string$",
        ),
        (
            ONE_CASE + ' "metrics": {"success": "x"}}',
            "metrics.success: must be null or a number from 0 to 1, got 'x'$",
        ),
        (
            '{"format": "replaygate.sampling.results", "version": 2}',
            "version 2 was written by a newer replaygate; this one reads version 1: upgrade",
        ),
        ('{"format": "replaygate.sampling.results", "version": 1, "cases": {}}', "must be a list"),
        (
            '{"format": "replaygate.eval.baseline", "version": 1, "cases": []}',
            "cases: must be an object keyed by case id, got a list$",
        ),
        (
            '{"format": "replaygate.eval.baseline", "version": 1, "cases": {"a": {"samples": 5}}}',
            r"cases\.a\.floor: is missing; it must be an integer$",
        ),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        (
            '{"format": "replaygate.eval.baseline", "version": 1, "metrics": {"success": NaN}}',
            "NaN is not a number JSON can hold",
        ),
        (
            '{"format": "replaygate.eval.baseline", "version": 1, "metrics": {"cost": 1e400}}',
            "1e400 is beyond the range of a number",
        ),
        (
            ONE_CASE + ' "metrics": {"success": 1.0, "cost": 1%s}}' % ("0" * 400),
            "metrics.cost: must be null or a number from 0 to 1,000,000,000,000,000, got an "
            "integer of 401 digits$",
        ),
        (
            '{"format": "replaygate.eval.baseline", "version": 1, "metrics": {"success": 0.1},'
            ' "metrics": {}}',
            "duplicate key metrics: an object names it twice; keep one",
        ),
        ('{"format": "replaygate.eval.baseline", "version": 1, "cases": {"a": null}}', "cases.a"),
        # a baseline whose metrics or cases were emptied would pass every gate unchecked
        (
            '{"format": "replaygate.eval.baseline", "version": 1, "cases": {}, "metrics": {}}',
            "cases: holds no case: a gate needs at least one on each side$",
        ),
        (
            '{"format": "replaygate.sampling.results", "version": 1, "cases": []}',
            "cases: holds no case: a gate needs at least one on each side$",
        ),
        (
            '{"format": "replaygate.sampling.results", "version": 1,'
            ' "cases": [{"case": "\\udc00"}]}',
            r"cases\[0\]\.case: holds \\udc00, half of a surrogate pair: not Unicode text$",
        ),
        (
            ONE_CASE + ' "metrics": {}}',
            "metrics.success: is missing; it must be the share of cases whose verdict is pass$",
        ),
        (
            ONE_CASE + ' "metrics": {"success": 0.5, ' + OTHER_METRICS + "}}",
            "metrics.success: says 0.5, but its cases give 1.0$",
        ),
        # a metric deleted by hand would show n/a and pass whatever the run gave
        (
            ONE_CASE + ' "metrics": {"success": 1.0}}',
            "metrics.citation_precision: is missing; it must be a number, or null when the "
            "run measured none, as in every results file$",
        ),
        (
            ONE_CASE + ' "metrics": {' + OTHER_METRICS.replace('"cost"', '"success"') + "}}",
            r"bad\.json: metrics\.cost: is missing; it must be a number, or null",
        ),
        (
            '{"format": "replaygate.eval.baseline", "version": 1, "cases": {"a": '
            '{"samples": 5, "floor": 4, "passes": 5, "assertions": []}}}',
            "cases.a",
        ),
    ],
)
def test_a_bad_baseline_or_results_file_is_named(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ResultsError, match=message):
        load_reference(path)
    result = CliRunner().invoke(gate_cmd, ["--baseline", str(path), "--results", str(path)])
    assert result.exit_code == 2
    assert str(path) in result.output


@pytest.mark.parametrize(
    ("content", "held"),
    [
        (b"SQLite format 3\x00" + b"\xf8" * 200, "a SQLite database (an eval history"),
        (
            b'{"id": "a", "question": "q?", "must_contain": ["x"], "samples": 1, "floor": 1}\n'
            b'{"id": "b", "question": "r?", "must_contain": ["y"], "samples": 1, "floor": 1}\n',
            "eval cases (a JSON Lines file",
        ),
        (
            b'{"key": "ab12", "request": {}, "response": {}, "meta": {}}\n' * 2,
            "fixtures (a fixture store",
        ),
    ],
)
def test_another_replaygate_file_given_as_results_is_named_as_what_it_is(
    tmp_path: Path, content: bytes, held: str
) -> None:
    # The history database given as --results read as 'not UTF-8 text (byte 0xf8 at
    # column 103)', a cases file or a store as output appended to a JSON document.
    path = tmp_path / "given.json"
    path.write_bytes(content)
    with pytest.raises(ResultsError, match=re.escape(f"{path}: holds {held}")):
        load_reference(path)
    base = write_results(tmp_path / "base.json", BASE)
    result = CliRunner().invoke(gate_cmd, ["--baseline", str(base), "--results", str(path)])
    assert result.exit_code == 2
    assert f"{path}: holds {held}" in result.output and "where results should be" in result.output


def test_a_baseline_given_where_results_are_read_is_named_as_a_baseline(tmp_path: Path) -> None:
    # eval merge and baseline update --results said "not a replaygate results file
    # (format 'replaygate.sampling.results')", which reads as what the file holds.
    path = tmp_path / "baseline.json"
    update_baseline(path, BASE, reason="first")
    with pytest.raises(
        ResultsError,
        match=re.escape(
            f"{path}: format: 'replaygate.eval.baseline': holds a baseline (`replaygate baseline "
            "update` writes it), where a results file ('replaygate.sampling.results') should be"
        ),
    ):
        load_eval_results(path)


def test_a_results_file_listing_a_case_twice_is_refused_not_counted_twice(
    tmp_path: Path,
) -> None:
    # A case pasted in twice by hand would weigh double in every metric: a blocked case
    # repeated can fail the gate, a passing one repeated hides a drop.
    document = BASE.to_json()
    document["cases"].append(document["cases"][1])
    path = tmp_path / "results.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(ResultsError, match=r"cases\[4\]: case 'b' is already at cases\[1\]"):
        load_reference(path)
    base = write_results(tmp_path / "base.json", BASE)
    result = CliRunner().invoke(gate_cmd, ["--baseline", str(base), "--results", str(path)])
    assert result.exit_code == 2 and str(path) in result.output, result.output


BASELINE_CASE = {"samples": 5, "floor": 4, "passes": 5, "assertions": {}}


DAMAGED_FIELDS = {
    "results tags a string": (
        lambda doc: doc["cases"][1].update(tags="abc"),
        r"cases\[1\]\.tags: must be a list of strings, got 'abc'",
    ),
    "results tags not strings": (
        lambda doc: doc["cases"][1].update(tags=["rag", 7]),
        r"cases\[1\]\.tags: must be a list of strings, got \['rag', 7\]",
    ),
    "results samples a float": (
        lambda doc: doc["cases"][2].update(samples=5.7),
        r"cases\[2\]\.samples: must be an integer, got 5\.7",
    ),
    "baseline samples a float": (
        lambda doc: doc.update(
            format="replaygate.eval.baseline", cases={"a": {**BASELINE_CASE, "samples": 5.7}}
        ),
        r"cases\.a\.samples: must be an integer, got 5\.7",
    ),
    "baseline floor a float": (
        lambda doc: doc.update(
            format="replaygate.eval.baseline", cases={"a": {**BASELINE_CASE, "floor": 4.5}}
        ),
        r"cases\.a\.floor: must be an integer, got 4\.5",
    ),
    "baseline samples absurd": (
        lambda doc: doc.update(
            format="replaygate.eval.baseline",
            cases={"a": {**BASELINE_CASE, "samples": 10**400, "passes": 10**400}},
        ),
        r"cases\.a\.samples: must be an integer from 1 to 10,000, got an integer of 401 digits",
    ),
    "baseline assertion samples a float": (
        lambda doc: doc.update(
            format="replaygate.eval.baseline",
            cases={
                "a": {
                    **BASELINE_CASE,
                    "assertions": {"cites": {"kind": "gate", "passes": 1, "samples": 2.5}},
                }
            },
        ),
        r"cases\.a\.assertions\.cites\.samples: must be an integer, got 2\.5",
    ),
    "results count a float": (
        lambda doc: doc["cases"][0]["counts"].update(cited=5.7),
        r"cases\[0\]\.counts\.cited: must be an integer, got 5\.7",
    ),
    "results count negative": (
        lambda doc: doc["cases"][0]["counts"].update(samples=-1),
        r"cases\[0\]\.counts\.samples: must be an integer at least 0, got -1",
    ),
    "results flag a string": (
        lambda doc: doc["cases"][0]["counts"].update(passed="false"),
        r"cases\[0\]\.counts\.passed: must be true or false, got 'false'",
    ),
    "results cost a string": (
        lambda doc: doc["cases"][0]["counts"].update(cost="0.10"),
        r"cases\[0\]\.counts\.cost: must be a number at least 0 or null, got '0\.10'",
    ),
    "results case null": (
        lambda doc: doc["cases"].__setitem__(0, None),
        r"cases\[0\]: must be an object, got null",
    ),
    "results case without samples": (
        lambda doc: doc["cases"][0].pop("samples"),
        r"cases\[0\]\.samples: is missing; it must be an integer",
    ),
    "results sample outcome kind": (
        lambda doc: doc["cases"][0]["sample_results"][0]["outcomes"][0].update(kind="x"),
        r"cases\[0\]\.sample_results\[0\]\.outcomes\[0\]\.kind: must be 'gate' or 'signal', "
        "got 'x'",
    ),
    "results assertions a list": (
        lambda doc: doc["cases"][0].update(assertions=[]),
        r"cases\[0\]\.assertions: must be an object keyed by assertion name, got a list",
    ),
    "results counts null": (
        lambda doc: doc["cases"][0].update(counts=[]),
        r"cases\[0\]\.counts: must be an object, got a list",
    ),
    "results cost negative": (
        lambda doc: doc["cases"][0]["counts"].update(cost=-1),
        r"cases\[0\]\.counts\.cost: must be a number at least 0 or null, got -1",
    ),
    "results declared check twice": (
        lambda doc: doc["cases"][0].update(declared=["citations", "citations"]),
        r"cases\[0\]\.declared\[1\]: check 'citations' is already at declared\[0\]; a case "
        "declares each check once",
    ),
    "baseline declared a string": (
        lambda doc: doc.update(
            format="replaygate.eval.baseline", cases={"a": {**BASELINE_CASE, "declared": "x"}}
        ),
        r"cases\.a\.declared: must be a list of strings, got 'x'",
    ),
    "baseline case null": (
        lambda doc: doc.update(format="replaygate.eval.baseline", cases={"a": None}),
        r"cases\.a: must be an object, got null",
    ),
    "baseline case without samples": (
        lambda doc: doc.update(format="replaygate.eval.baseline", cases={"a": {"floor": 1}}),
        r"cases\.a\.samples: is missing; it must be an integer",
    ),
    "baseline assertion kind missing": (
        lambda doc: doc.update(
            format="replaygate.eval.baseline",
            cases={"a": {**BASELINE_CASE, "assertions": {"x": {"passes": 1, "samples": 1}}}},
        ),
        r"cases\.a\.assertions\.x\.kind: is missing; it must be 'gate' or 'signal'",
    ),
}


def _refused(tmp_path: Path, change: Any, message: str, name: str = "doc.json") -> Path:
    """The results file ``BASE`` gives once ``change`` edited it, checked to be refused
    by the reader with exactly ``message`` after its name."""
    document = BASE.to_json()
    change(document)
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(ResultsError, match=f"^{re.escape(str(path))}: {message}$"):
        load_reference(path)
    return path


@pytest.mark.parametrize("edit", DAMAGED_FIELDS.values(), ids=DAMAGED_FIELDS.keys())
def test_a_damaged_field_is_named_by_its_path_not_read_leniently(
    tmp_path: Path, edit: tuple[Any, str]
) -> None:
    # Read leniently, "abc" was three tags, 5.7 samples were 5 and "false" passed; a null
    # case or a missing field failed with a Python exception's name.
    path = _refused(tmp_path, *edit)
    result = CliRunner().invoke(gate_cmd, ["--baseline", str(path), "--results", str(path)])
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    assert str(path) in result.output and "Traceback" not in result.output


def test_the_gate_command_rejects_an_unknown_metric(tmp_path: Path) -> None:
    base = write_results(tmp_path / "base.json", BASE)
    args = ["--baseline", str(base), "--results", str(base), "--max-drop", "speed=1"]
    result = CliRunner().invoke(gate_cmd, args)
    assert result.exit_code == 2
    assert "unknown metric 'speed'" in result.output


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=T", "-c", "user.email=t@example.com", *args],
        cwd=repo, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q")
    (tmp_path / "README").write_text("x\n", encoding="utf-8")
    git(tmp_path, "add", "README")
    git(tmp_path, "commit", "-q", "-m", "first")
    return tmp_path


def test_updating_the_baseline_without_a_reason_is_refused(repo: Path) -> None:
    target = repo / "evals" / "baseline.json"
    for reason in (None, ""):
        with pytest.raises(BaselineError, match=r"without a reason.*Nothing was written"):
            update_baseline(target, BASE, reason=reason)
    with pytest.raises(BaselineError, match=r": the reason is blank: .*Nothing was written"):
        update_baseline(target, BASE, reason="   ")
    assert not target.exists()
    res = write_results(repo / "r.json", BASE)
    update = ["update", "--results", str(res), "--baseline", str(target)]
    result = CliRunner().invoke(baseline_group, update)
    assert result.exit_code == 2
    assert "refusing to update" in result.output and "without --reason" in result.output
    result = CliRunner().invoke(baseline_group, [*update, "--reason", " "])
    assert result.exit_code == 2
    assert "--reason: the reason is blank: it holds only white space;" in result.output
    assert not target.exists()


def test_a_baseline_update_prints_a_reordering_character_as_its_escape(tmp_path: Path) -> None:
    # printed as it is, a case id's U+202E showed the rest of its line backwards
    target = tmp_path / "baseline.json"
    first = write_results(tmp_path / "first.json", BASE)
    update = ["update", "--baseline", str(target), "--reason", "r", "--results"]
    assert CliRunner().invoke(baseline_group, [*update, str(first)]).exit_code == 0
    more = write_results(tmp_path / "more.json", results(*BASE.cases, case("e\u202eve", 5)))
    done = CliRunner().invoke(baseline_group, [*update, str(more)])
    assert done.exit_code == 0, done.output
    assert "  cases added: e\\u202eve\n" in done.output


@pytest.mark.slow  # a real git repository
def test_a_baseline_update_records_reason_date_commit_and_changes(repo: Path) -> None:
    target = repo / "evals" / "baseline.json"
    head = git(repo, "rev-parse", "HEAD")
    first = update_baseline(target, BASE, reason="first baseline", now="2026-11-01T00:00:00Z")
    assert first.history[0]["commit"] == head
    assert first.history[0]["cases_added"] == ["a", "b", "c", "d"]
    git(repo, "add", "evals/baseline.json")
    git(repo, "commit", "-q", "-m", "baseline")
    second_head = git(repo, "rev-parse", "HEAD")
    res = write_results(repo / "r.json", results(case("a", 5), case("b", 5), case("c", 5)))
    result = CliRunner().invoke(
        baseline_group,
        ["update", "--results", str(res), "--baseline", str(target), "--reason",
         "b is fixed; d moved to its own suite"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert f"updated at commit {second_head}" in result.output
    saved = load_baseline(target)
    assert len(saved.history) == 2
    entry = saved.history[-1]
    assert entry["reason"] == "b is fixed; d moved to its own suite"
    assert entry["commit"] == second_head
    assert entry["dirty"] is False
    assert entry["date"].endswith("Z")
    assert entry["results"] == str(res)
    assert entry["cases_removed"] == ["d"]
    assert "  cases removed: d\n" in result.output and "cases added" not in result.output
    assert "success" not in entry["changes"]
    assert entry["changes"]["citation_recall"] == {"from": 0.95, "to": 1.0}
    assert [c.case for c in saved.reference.cases] == ["a", "b", "c"]
    assert saved.history[0]["reason"] == "first baseline"
    assert load_reference(target).metrics == saved.metrics


def test_one_shard_of_a_run_is_refused_as_a_baseline(tmp_path: Path) -> None:
    target = tmp_path / "baseline.json"
    update_baseline(target, BASE, reason="first baseline")
    before = target.read_bytes()
    shard = {"index": 1, "count": 3, "cases": 4, "positions": [0, 1]}
    part = EvalResults(BASE.cases[:2], {**BASE.info, "shard": shard})
    shard_file = write_results(tmp_path / "shard-1.json", part)
    whole = write_results(tmp_path / "results.json", BASE)
    refused = (
        f"{shard_file}: holds the results of shard 1/3 of a run (2 case(s)), not of a whole run"
    )
    merge_first = (
        "Merge the shards first: `replaygate eval merge SHARD.json ... --out results.json`"
    )
    update = CliRunner().invoke(
        baseline_group,
        ["update", "--results", str(shard_file), "--baseline", str(target), "--reason", "x"],
    )
    assert update.exit_code == 2, update.output
    assert refused in update.output and merge_first in update.output
    assert "it would drop the cases of the other shards" in update.output
    assert target.read_bytes() == before
    gate = CliRunner().invoke(gate_cmd, ["--baseline", str(shard_file), "--results", str(whole)])
    assert gate.exit_code == 2, gate.output
    assert refused in gate.output and merge_first in gate.output
    assert "gate:" not in gate.output


def test_a_baseline_outside_git_records_no_commit(tmp_path: Path) -> None:
    baseline = update_baseline(tmp_path / "b.json", BASE, reason="no repository here")
    assert baseline.history[0]["commit"] is None
    res = write_results(tmp_path / "r.json", results(case("a", 5), case("b", 5)))
    shown = CliRunner().invoke(
        baseline_group,
        ["update", "--results", str(res), "--baseline", str(tmp_path / "new.json"),
         "--reason", "first baseline"],
    )  # fmt: skip
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert lines[0] == f"baseline {tmp_path / 'new.json'} created (no git commit found)"
    assert "  success: (none) -> 1.0" in lines and "None" not in shown.output
    with pytest.raises(BaselineError, match="the results hold no case"):
        update_baseline(tmp_path / "b.json", results(), reason="empty")


def test_a_baseline_update_from_another_suite_says_no_case_was_kept(tmp_path: Path) -> None:
    # another service's results given by mistake replaced every case of the baseline,
    # listed only as cases added and removed
    baseline = tmp_path / "baseline.json"
    update_baseline(baseline, BASE, reason="first")
    other = write_results(tmp_path / "other.json", results(case("x", 5), case("y", 5)))
    update = ["update", "--results", str(other), "--baseline", str(baseline)]
    done = CliRunner().invoke(baseline_group, [*update, "--reason", "new suite"])
    assert done.exit_code == 0, done.output
    assert f"note: {baseline} shared no case with {other} (the results of another suite" in (
        done.stderr
    )
    again = write_results(tmp_path / "again.json", results(case("x", 5), case("z", 5)))
    update = ["update", "--results", str(again), "--baseline", str(baseline)]
    done = CliRunner().invoke(baseline_group, [*update, "--reason", "z"])
    assert done.exit_code == 0 and "shared no case" not in done.stderr


def test_a_change_line_shows_a_cost_without_the_noise_of_binary_fractions() -> None:
    # baseline update printed "cost: (none) -> 0.0021125000000000002"
    from replaygate.cli.gate_cmds import _change

    assert _change(None, 0.0021125000000000002) == "(none) -> 0.0021125"
    assert _change(493.1666666666667, 3.0) == "493.166666666667 -> 3.0"
    assert _change(None, 1.0) == "(none) -> 1.0"
    # two values that 15 digits show alike are shown exactly
    assert _change(0.1, 0.10000000000000002) == "0.1 -> 0.10000000000000002"


HAND_EDITS = {
    "success true": (
        lambda doc: doc["metrics"].update(success=True),
        r"metrics\.success: must be null or a number from 0 to 1, got true",
    ),
    "success negative": (
        lambda doc: doc["metrics"].update(success=-5),
        r"metrics\.success: must be null or a number from 0 to 1, got -5",
    ),
    "success renamed": (
        lambda doc: doc["metrics"].update(succes=doc["metrics"].pop("success")),
        r"metrics\.succes: is not a metric \(known: success, .*, steps\)",
    ),
    "metrics deleted": (
        lambda doc: doc.pop("metrics"),
        r"metrics: is missing; it must be an object of the run's metrics",
    ),
    "success edited": (
        lambda doc: doc["metrics"].update(success=0.9),
        r"metrics\.success: says 0\.9, but its cases give 1\.0",
    ),
    "success null": (
        lambda doc: doc["metrics"].update(success=None),
        r"metrics\.success: says null, but its cases give 1\.0",
    ),
    "cost edited": (
        lambda doc: doc["metrics"].update(cost=0.001),
        r"metrics\.cost: says 0\.001, but its cases give 0\.01",
    ),
    "verdict maybe": (
        lambda doc: doc["cases"][1].update(verdict="maybe"),
        r"cases\[1\]\.verdict: says 'maybe', but its sample_results give 'pass'",
    ),
    "passes edited": (
        lambda doc: doc["cases"][1].update(passes=99),
        r"cases\[1\]\.passes: says 99, but its sample_results give 4",
    ),
    # a gate said to be a signal, or no check at all, beside outcomes that gate
    "assertion kind edited": (
        lambda doc: doc["cases"][1]["assertions"]["citations"].update(kind="signal"),
        r"cases\[1\]\.assertions\.citations\.kind: says 'signal', but its sample_results "
        "give 'gate'",
    ),
    "assertion category null": (
        lambda doc: doc["cases"][1]["assertions"]["citations"].update(category=None),
        r"cases\[1\]\.assertions\.citations\.category: says null, but its sample_results "
        "give 'set'",
    ),
    "counts passed edited": (
        lambda doc: doc["cases"][1]["counts"].update(passed=False),
        r"cases\[1\]\.counts\.passed: says false, but its verdict give true",
    ),
    "case metrics edited": (
        lambda doc: doc["cases"][1]["metrics"].update(steps=1.0),
        r"cases\[1\]\.metrics\.steps: says 1\.0, but its counts give 3\.0",
    ),
    "sample passed edited": (
        lambda doc: doc["cases"][1]["sample_results"][4].update(passed=True),
        r"cases\[1\]\.sample_results\[4\]\.passed: says true, but its outcomes and failure "
        "give false",
    ),
    "eval time a word": (
        lambda doc: doc["eval"].update(time="yesterday"),
        r"eval\.time: must be an ISO 8601 time such as 2026-11-30T06:08:09Z, got 'yesterday'",
    ),
}


@pytest.mark.parametrize("edit", HAND_EDITS.values(), ids=HAND_EDITS.keys())
def test_a_hand_edit_of_what_the_cases_give_is_refused_naming_both_values(
    tmp_path: Path, edit: tuple[Any, str]
) -> None:
    # Read leniently, each of these edits gave "gate: PASS": the top-level metrics and the
    # verdicts were never looked at.
    change, message = edit
    path = _refused(tmp_path, change, message, "results.json")
    base = write_results(tmp_path / "base.json", BASE)
    for command, args in (
        (gate_cmd, ["--baseline", str(base), "--results", str(path)]),
        (upgrade_cmd, ["--baseline", str(base), "--candidate", str(path)]),
    ):
        result = CliRunner().invoke(command, args)
        assert result.exit_code == 2, result.output
        assert re.search(f"{re.escape(str(path))}: {message}", result.output), result.output


def test_an_assertion_description_of_null_is_no_description(tmp_path: Path) -> None:
    # read as the description 'None', which the gate compared with the baseline's
    document = BASE.to_json()
    document["cases"][0]["assertions"]["citations"]["description"] = None
    path = tmp_path / "results.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    (stats,) = load_eval_results(path).cases[0].sampled.assertions()
    assert stats.description == ""


def test_a_plain_sampling_results_file_needs_no_metrics(tmp_path: Path) -> None:
    document = BASE.to_json()
    del document["metrics"], document["eval"]
    for case_obj in document["cases"]:
        del case_obj["counts"], case_obj["metrics"], case_obj["tags"]
    path = tmp_path / "sampling.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    assert load_reference(path).metrics["success"] == 1.0


@pytest.mark.parametrize(
    ("history", "message"),
    [
        ("x", "history: must be a list, got 'x'"),
        ([{"date": 5}], r"history\[0\]\.date: must be an ISO 8601 time .*, got 5"),
        ([None], r"history\[0\]: must be an object, got null"),
    ],
)
def test_baseline_update_leaves_a_baseline_with_a_damaged_history_as_it_is(
    tmp_path: Path, history: Any, message: str
) -> None:
    # It used to replace "history": "x" with a fresh list, losing what was there.
    target = tmp_path / "baseline.json"
    update_baseline(target, BASE, reason="first", now="2026-11-01T00:00:00Z")
    document = json.loads(target.read_text(encoding="utf-8"))
    document["history"] = history
    target.write_text(json.dumps(document), encoding="utf-8")
    before = target.read_bytes()
    res = write_results(tmp_path / "results.json", BASE)
    result = CliRunner().invoke(
        baseline_group,
        ["update", "--results", str(res), "--baseline", str(target), "--reason", "again"],
    )
    assert result.exit_code == 2, result.output
    assert re.search(f"{re.escape(str(target))}: {message}", result.output), result.output
    assert target.read_bytes() == before
    gate = CliRunner().invoke(gate_cmd, ["--baseline", str(target), "--results", str(res)])
    assert gate.exit_code == 2, gate.output


@pytest.mark.parametrize("kind", ["results", "baseline", "history export"])
def test_an_integer_of_thousands_of_digits_is_named_by_its_length(
    tmp_path: Path, kind: str
) -> None:
    # The message named Python's sys.set_int_max_str_digits(), a setting no user can change.
    if kind == "history export":
        text = '{"format": "replaygate.history", "version": 1, "runs": [{"id": %s}]}'
    elif kind == "baseline":
        text = '{"format": "replaygate.eval.baseline", "version": 1, "metrics": {"cost": %s}}'
    else:
        text = '{"format": "replaygate.sampling.results", "version": 1, "metrics": {"cost": %s}}'
    path = tmp_path / "doc.json"
    path.write_text(text % ("7" * 5000), encoding="utf-8")
    field = "runs[0].id" if kind == "history export" else "metrics.cost"
    message = f"{path}: not JSON this reader accepts: {field}: an integer of 5,000 digits (at "
    read = read_export if kind == "history export" else load_reference
    with pytest.raises((ResultsError, HistoryError)) as caught:
        read(path)
    assert str(caught.value).startswith(message) and "sys." not in str(caught.value)


def test_a_case_weakened_below_the_baseline_fails_the_gate_until_the_baseline_is_updated(
    tmp_path: Path,
) -> None:
    base = results(case("a", 5), case("b", 3))  # b: 3 of 5 with floor 4, observe
    fewer = results(case("a", 5), case("b", 2, n=2, floor=1))  # b now passes
    lower = results(case("a", 5), case("b", 3, floor=3))
    limits = GateConfig()
    report = run_gate(reference(base), reference(fewer), limits)
    assert report.problems == (
        "case b expects less than in the baseline (samples 5 -> 2, floor 4 -> 1): a weakened "
        "case is a baseline change, made with `replaygate baseline update --reason ...`",
    )
    assert not report.passed
    assert (
        run_gate(reference(base), reference(lower), limits)
        .problems[0]
        .startswith("case b expects less than in the baseline (floor 4 -> 3)")
    )
    stricter = results(case("a", 5), case("b", 3, n=6, floor=5))
    assert run_gate(reference(base), reference(stricter), limits).notes == (
        "case b expects otherwise than in the baseline (samples 5 -> 6, floor 4 -> 5)",
    )
    more = results(case("a", 5), case("b", 3, n=6))  # 4 of 6 is a lower share than 4 of 5
    assert not run_gate(reference(base), reference(more), limits).passed
    target = tmp_path / "baseline.json"
    update_baseline(target, base, reason="first")
    res = write_results(tmp_path / "fewer.json", fewer)
    gate = CliRunner().invoke(gate_cmd, ["--baseline", str(target), "--results", str(res)])
    assert gate.exit_code == 1 and "FAIL case b expects less" in gate.output
    updated = CliRunner().invoke(
        baseline_group,
        ["update", "--results", str(res), "--baseline", str(target), "--reason", "b is cheaper"],
    )
    assert updated.exit_code == 0, updated.output
    assert "  case b: samples 5 -> 2, floor 4 -> 1 (expects less than before)\n" in updated.output
    entry = load_baseline(target).history[-1]
    assert entry["cases_changed"] == {
        "b": {
            "summary": "samples 5 -> 2, floor 4 -> 1",
            "samples": {"from": 5, "to": 2},
            "floor": {"from": 4, "to": 1},
            "assertions": {},
            "weakened": True,
        }
    }
    again = CliRunner().invoke(gate_cmd, ["--baseline", str(target), "--results", str(res)])
    assert again.exit_code == 0, again.output


def test_a_gate_made_a_signal_fails_and_an_assertion_of_one_side_only_is_not_compared() -> None:
    def described(kind: str, description: str, failure: str | None = None) -> CaseResult:
        samples = tuple(
            SampleResult(i, (Outcome("contains", kind, True, "", None, "contains"),), {}, failure)
            for i in range(5)
        )  # a failure of a plain assert lists the assertion `assert` (all samples failed)
        sampled = SampledResult("a", 5, 1, samples, {"contains": description})
        return CaseResult(sampled, CaseCounts(samples=5, passed=sampled.verdict == "pass", runs=5))

    base = reference(results(described("gate", "mentions 'x'")))
    signal = run_gate(base, reference(results(described("signal", "mentions 'x'"))), GateConfig())
    assert signal.problems == (
        "case a expects less than in the baseline (assertion contains gate -> signal): a "
        "weakened case is a baseline change, made with `replaygate baseline update --reason ...`",
    )
    wording = run_gate(base, reference(results(described("gate", "mentions 'y'"))), GateConfig())
    assert wording.passed and wording.notes == (
        "case a expects otherwise than in the baseline (assertion contains changed: "
        "\"mentions 'x'\" -> \"mentions 'y'\")",
    )
    failing = reference(results(described("gate", "mentions 'x'", failure="assert False")))
    assert [a.name for a in failing.cases[0].assertions] == ["contains", "assert"]
    fixed = run_gate(failing, base, GateConfig(keep_defaults=False))
    assert fixed.passed and not fixed.notes  # the plain assert passed: not an assertion gone


def _declaring(
    *gates: str, signals: tuple[str, ...] = ("tone",), failing: str = "", failure: str | None = None
) -> EvalResults:
    """Case ``a`` declaring ``gates`` and ``signals``, every sample failing the gate
    ``failing`` (and its plain ``assert`` when ``failure`` is given)."""
    names = (*gates, *signals)
    samples = tuple(
        SampleResult(
            i,
            tuple(
                Outcome(name, "signal" if name in signals else "gate", name != failing, "", None)
                for name in names
            ),
            {"final": "x"},
            failure,
        )
        for i in range(5)
    )
    sampled = SampledResult("a", 5, 4, samples, {name: f"checks {name}" for name in names})
    counts = CaseCounts(samples=5, passed=sampled.verdict == "pass", runs=5)
    return results(CaseResult(sampled, counts))


def test_a_gate_removed_from_a_case_fails_the_gate_until_the_baseline_is_updated(
    tmp_path: Path,
) -> None:
    # The schema gate failed every sample (block); without it the case passes.
    base = write_results(tmp_path / "base.json", _declaring("contains", "schema", failing="schema"))
    now = write_results(tmp_path / "now.json", _declaring("contains"))
    target = tmp_path / "baseline.json"
    update_baseline(target, load_eval_results(base), reason="first")
    assert json.loads(target.read_text())["cases"]["a"]["declared"] == [
        "contains",
        "schema",
        "tone",
    ]
    for baseline in (base, target):
        gate = CliRunner().invoke(gate_cmd, ["--baseline", str(baseline), "--results", str(now)])
        assert gate.exit_code == 1, gate.output
        assert (
            "FAIL case a expects less than in the baseline (assertion schema [gate] removed)"
            in gate.output
        )
    updated = CliRunner().invoke(
        baseline_group,
        ["update", "--results", str(now), "--baseline", str(target), "--reason", "no schema"],
    )
    assert updated.exit_code == 0, updated.output
    assert load_baseline(target).history[-1]["cases_changed"] == {
        "a": {
            "summary": "assertion schema [gate] removed",
            "samples": {"from": 5, "to": 5},
            "floor": {"from": 4, "to": 4},
            "assertions": {
                "schema": {"from": {"kind": "gate", "description": "checks schema"}, "to": None}
            },
            "weakened": True,
        }
    }
    again = CliRunner().invoke(gate_cmd, ["--baseline", str(target), "--results", str(now)])
    assert again.exit_code == 0, again.output


def test_a_signal_removed_is_noted_and_a_plain_assert_or_an_old_file_is_not_compared(
    tmp_path: Path,
) -> None:
    base = reference(_declaring("contains"))
    noted = run_gate(base, reference(_declaring("contains", signals=())), GateConfig())
    assert noted.passed and noted.notes == (
        "case a expects otherwise than in the baseline (assertion tone [signal] removed)",
    )
    # A plain assert that failed is listed in the file, yet is no declared check.
    failed = write_results(tmp_path / "failed.json", _declaring("contains", failure="no"))
    assert load_reference(failed).cases[0].declared == ("contains", "tone")
    assert run_gate(
        load_reference(failed), base, GateConfig(max_rise=DEFAULT_MAX_RISE, keep_defaults=False)
    ).passed
    # Files written before results kept `declared` compare as before, either side.
    removed = _declaring("contains", "schema", failing="schema").to_json()
    for case_json in removed["cases"]:
        del case_json["declared"]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(removed), encoding="utf-8")
    assert load_reference(old).cases[0].declared is None
    assert run_gate(load_reference(old), base, GateConfig()).passed


def test_results_of_another_model_than_the_baseline_are_noted(tmp_path: Path) -> None:
    # The cost fell by two thirds on a cheaper model, and read as the agent's gain.
    baseline = update_baseline(tmp_path / "b.json", BASE, reason="first").reference
    cheaper = write_results(
        tmp_path / "r.json", EvalResults(BASE.cases, {**BASE.info, "model": "small"})
    )
    shown = CliRunner().invoke(
        gate_cmd, ["--baseline", str(tmp_path / "b.json"), "--results", str(cheaper)]
    )
    assert shown.exit_code == 0, shown.output
    assert (
        "note the results were run on model 'small', the baseline on 'm': the table compares "
        "two models, so a change may be the model's rather than the agent's\n"
    ) in shown.output
    assert run_gate(baseline, reference(BASE), GateConfig()).notes == ()


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (12345.0, "12,345"),
        (1_234_567.8, "1,234,568"),
        (123.456, "123.5"),
        (0.0123, "0.0123"),
        (9999.6, "10,000"),  # rounds to 10,000 at four digits: was 1e+04
        (-9999.6, "-10,000"),
        (9999.4, "9999"),
    ],
)
def test_an_amount_is_shown_with_its_digits_not_in_scientific_notation(
    value: float, shown: str
) -> None:
    # 12,345 tokens were shown as 1.234e+04 in the gate, the report and eval's table
    assert METRICS["tokens"].format(value) == shown


def test_a_gate_before_any_baseline_says_how_to_make_the_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a project's first CI run: "there is no evals/baseline.json" said nothing of how
    # one is made
    monkeypatch.chdir(tmp_path)
    write_results(tmp_path / "results.json", BASE)
    gated = CliRunner().invoke(gate_cmd, ["--results", "results.json"])
    assert gated.exit_code == 2
    made = re.search(r"`replaygate baseline update (.*?) --reason '(.*?)'`", gated.output)
    assert made, gated.output
    args = [*made[1].split(), "--reason", made[2]]
    assert args[:4] == ["--results", "results.json", "--baseline", "evals/baseline.json"]
    assert CliRunner().invoke(baseline_group, ["update", *args]).exit_code == 0
    assert CliRunner().invoke(gate_cmd, ["--results", "results.json"]).exit_code == 0
    missing = CliRunner().invoke(gate_cmd, ["--results", "nothing.json", "--baseline", "b.json"])
    assert missing.exit_code == 2 and "baseline update" not in missing.output
