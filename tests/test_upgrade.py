"""Model upgrades: three planted failures are classified (structure changed, distribution
shifted, broken), and most semantic assertions flipping at once says to suspect them."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from replaygate.assertions.kinds import Category, Outcome
from replaygate.cli.gate_cmds import upgrade_cmd
from replaygate.evals import CaseResult, EvalResults, Reference, classify_upgrade
from replaygate.evals.scorers import CaseCounts
from replaygate.sampling import SampledResult, SampleResult

Spec = dict[str, tuple[Category, list[bool]]]


def case(case_id: str, floor: int, checks: Spec) -> CaseResult:
    n = len(next(iter(checks.values()))[1])
    samples = tuple(
        SampleResult(
            i,
            tuple(
                Outcome(name, "gate", passes[i], "", None, category)
                for name, (category, passes) in checks.items()
            ),
            {"final": "x"},
        )
        for i in range(n)
    )
    sampled = SampledResult(case_id, n, floor, samples)
    return CaseResult(sampled, CaseCounts(n, sampled.verdict == "pass", runs=n))


def passing(n: int = 5) -> list[bool]:
    return [True] * n


def some(passes: int, n: int = 5) -> list[bool]:
    return [i < passes for i in range(n)]


def semantic(contains: list[bool], citations: list[bool]) -> Spec:
    return {"contains": ("contains", contains), "citations": ("set", citations)}


def reference(*cases: CaseResult) -> Reference:
    return Reference.of(EvalResults(cases), "constructed")


BASELINE = reference(
    case("json-shape", 1, {"schema": ("structure", [True])}),
    case("rag", 4, semantic(passing(), passing())),
    case("drift", 4, semantic(passing(), passing())),
    case("stable", 4, semantic(passing(), passing())),
    case("secrets", 4, semantic(passing(), passing())),
)


def test_three_planted_failures_are_classified() -> None:
    candidate = reference(
        case("json-shape", 1, {"schema": ("structure", [False])}),
        case("rag", 4, semantic(passing(), some(2))),
        case("drift", 4, semantic(some(0), some(0))),
        case("stable", 4, semantic(passing(), passing())),
        case("secrets", 4, semantic(passing(), some(4))),
    )
    report = classify_upgrade(BASELINE, candidate)
    found = {(f.case, f.assertion): f.classification for f in report.failures}
    assert found == {
        ("json-shape", "schema"): "structure changed",
        ("rag", "citations"): "distribution shifted",
        ("drift", "contains"): "broken",
        ("drift", "citations"): "broken",
    }
    advice = {f.classification: f.advice for f in report.failures}
    assert advice["structure changed"] == "fix the fixtures or the parser"
    assert advice["broken"] == "fix the implementation; never change the assertion"
    assert advice["distribution shifted"].startswith("revisit the threshold")
    assert (report.flipped, report.semantic_passing) == (3, 8)
    assert not report.suspect_assertions
    assert report.warning is None
    text = report.text()
    assert "WARNING" not in text
    assert text.splitlines()[-1] == (
        "upgrade: 1 structure changed, 1 distribution shifted, 2 broken"
    )
    rag = next(f for f in report.failures if f.case == "rag")
    assert rag.cells()[:5] == ["rag", "citations", "5/5", "2/5", "distribution shifted"]


def test_most_semantic_assertions_flipping_at_once_means_suspect_the_assertions() -> None:
    candidate = reference(
        case("json-shape", 1, {"schema": ("structure", [True])}),
        case("rag", 4, semantic(some(1), some(2))),
        case("drift", 4, semantic(some(3), passing())),
        case("stable", 4, semantic(some(2), some(1))),
        case("secrets", 4, semantic(some(3), passing())),
    )
    report = classify_upgrade(BASELINE, candidate)
    assert (report.flipped, report.semantic_passing) == (6, 8)
    assert report.suspect_assertions
    assert report.warning == (
        "6 of 8 semantic assertions flipped from pass to fail at once: suspect the assertions "
        "first (they probably depend on the old model's wording), not the model"
    )
    assert f"WARNING {report.warning}" in report.text()
    assert f"**Warning:** {report.warning}" in report.markdown()
    assert {f.classification for f in report.failures} == {"distribution shifted"}


def test_a_failure_already_in_the_baseline_is_marked() -> None:
    baseline = reference(case("rag", 4, semantic(passing(), some(2))))
    candidate = reference(case("rag", 4, semantic(passing(), some(3))))
    (failure,) = classify_upgrade(baseline, candidate).failures
    assert failure.pre_existing
    assert failure.cells()[4] == "distribution shifted (already failing)"


def test_a_case_failing_only_in_combination_is_reported() -> None:
    contains = [True, True, True, True, False]
    citations = [False, True, True, True, True]
    candidate = reference(case("rag", 4, semantic(contains, citations)))
    (failure,) = classify_upgrade(BASELINE, candidate).failures
    assert (failure.assertion, failure.after, failure.classification) == (
        "(all gates)", (3, 5), "distribution shifted",
    )  # fmt: skip


def test_the_upgrade_command_prints_and_exits_1_on_failures(tmp_path: Path) -> None:
    old = EvalResults((case("rag", 4, semantic(passing(), passing())),))
    new = EvalResults((case("rag", 4, semantic(passing(), some(0))),))
    old_path, new_path = old.write(tmp_path / "old.json"), new.write(tmp_path / "new.json")
    runner = CliRunner()
    failed = runner.invoke(upgrade_cmd, ["--baseline", str(old_path), "--candidate", str(new_path)])
    assert failed.exit_code == 1
    assert "broken" in failed.output and "never change the assertion" in failed.output
    again = old.write(tmp_path / "again.json")  # the old model's results, run again
    same = runner.invoke(upgrade_cmd, ["--baseline", str(old_path), "--candidate", str(again)])
    assert same.exit_code == 0
    assert same.output.strip() == "upgrade: no failing gate in the candidate"
    itself = runner.invoke(upgrade_cmd, ["--baseline", str(old_path), "--candidate", str(old_path)])
    assert itself.exit_code == 2  # a file compared with itself shows nothing of the candidate
    assert "is also the baseline" in itself.output
    as_json = runner.invoke(
        upgrade_cmd,
        ["--baseline", str(old_path), "--candidate", str(new_path), "--format", "json"],
    )
    document = json.loads(as_json.output)
    assert document["failures"][0]["class"] == "broken"
    assert (document["flipped"], document["suspect_assertions"]) == (1, False)  # 1 of 2
    new_again = new.write(tmp_path / "new-again.json")
    already = runner.invoke(
        upgrade_cmd, ["--baseline", str(new_path), "--candidate", str(new_again)]
    )
    assert already.exit_code == 0  # failing before the upgrade too: listed, not new
    assert "broken (already failing)" in already.output
    missing = runner.invoke(
        upgrade_cmd, ["--baseline", str(tmp_path / "none.json"), "--candidate", str(new_path)]
    )
    assert missing.exit_code == 2
    assert "cannot read baseline or results" in missing.output


def test_the_cases_a_candidate_lacks_are_listed_and_fail_the_command(tmp_path: Path) -> None:
    # a candidate of some of the cases passed, exit 0, without a word of the others
    old = EvalResults(tuple(case(c, 4, semantic(passing(), passing())) for c in "abc"))
    part = EvalResults(old.cases[1:2])
    report = classify_upgrade(reference(*old.cases), reference(*part.cases))
    assert (report.failures, report.missing, report.failed) == ((), ("a", "c"), True)
    assert report.text().splitlines() == [
        "MISSING 2 case(s) of the baseline not in the candidate, so not checked: a, c; run the "
        "candidate model on the baseline's cases file",
        "upgrade: no failing gate in the candidate; 2 case(s) of the baseline missing",
    ]
    assert report.to_json()["missing"] == ["a", "c"]
    assert "**Missing:** 2 case(s) of the baseline" in report.markdown()
    old_path, part_path = old.write(tmp_path / "old.json"), part.write(tmp_path / "b.json")
    runner = CliRunner()
    done = runner.invoke(upgrade_cmd, ["--baseline", str(old_path), "--candidate", str(part_path)])
    assert done.exit_code == 1, done.output
    assert "not checked: a, c;" in done.output


def test_the_markdown_shows_case_ids_as_written_not_as_links() -> None:
    # "[x](https://...)" as a case id was a link of the pull-request comment
    link, kept = "[x](https://example.com)", "*kept*"
    old = reference(*(case(c, 4, semantic(passing(), passing())) for c in (link, kept)))
    new = reference(case(kept, 4, semantic(some(0), passing())))
    markdown = classify_upgrade(old, new).markdown()
    assert "| \\*kept\\* | contains | 5/5 | 0/5 | broken |" in markdown
    assert "so not checked: \\[x\\](https://example.com);" in markdown


def test_a_shard_or_another_suite_is_refused_as_the_candidate(tmp_path: Path) -> None:
    old = EvalResults(tuple(case(c, 4, semantic(passing(), passing())) for c in "abc"))
    old_path = old.write(tmp_path / "old.json")
    shard = {"index": 2, "count": 3, "cases": 3, "positions": [1]}
    one = EvalResults(old.cases[1:2], {"shard": shard}).write(tmp_path / "shard-2.json")
    other = EvalResults((case("z", 4, semantic(passing(), some(0))),))
    other_path = other.write(tmp_path / "other.json")
    runner = CliRunner()
    for candidate, refused in [
        (
            one,
            f"Error: {one}: holds the results of shard 2/3 of a run (1 case(s)), not of a "
            "whole run: as the candidate it would be checked on its own cases only. Merge "
            "the shards first",
        ),
        (
            other_path,
            f"Error: {other_path}: no case in common with {old_path}: the results of another "
            "suite (cases file)",
        ),
    ]:
        done = runner.invoke(
            upgrade_cmd, ["--baseline", str(old_path), "--candidate", str(candidate)]
        )
        assert done.exit_code == 2, done.output
        assert refused in done.output and "upgrade:" not in done.output


def test_a_failure_of_a_changed_assertion_is_not_called_broken() -> None:
    def described(text: str) -> CaseResult:
        result = case("rag", 4, {"contains": ("contains", some(0) if text else passing())})
        sampled = SampledResult("rag", 5, 4, result.sampled.samples, {"contains": text})
        return CaseResult(sampled, result.counts)

    report = classify_upgrade(
        reference(described("")), reference(described("the text mentions 'a', 'b'"))
    )
    assert [(f.assertion, f.classification) for f in report.failures] == [
        ("contains", "expectation changed")
    ]
    assert "run both models on one cases file" in report.text()
    fewer = case("rag", 1, semantic(some(0, 2), some(0, 2)))
    report = classify_upgrade(reference(case("rag", 4, semantic(passing(), passing()))),
                              reference(fewer))  # fmt: skip
    assert {f.classification for f in report.failures} == {"expectation changed"}
