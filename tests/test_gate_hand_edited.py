"""A hand-edited baseline is compared or refused with words, never a traceback: a
contains description whose terms are no strings (['RAG'], an alias list of lists) is
read as a changed description; a baseline that is not what its last update wrote fails
the gate, saying so."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from click.testing import CliRunner

from replaygate.cli import main
from replaygate.evals import GateConfig, Reference, load_reference, run_gate, update_baseline
from replaygate.sampling import AssertionStats
from test_gate_compared_cases import OLD, case, results

CONTAINS = "the text mentions each of 'RAG'"
"""A containment gate's description, as a case's must_contain gives it."""


def _with_contains(reference: Reference, description: str) -> Reference:
    """``reference`` whose case ``a`` holds a contains gate described by ``description``."""
    contains = AssertionStats("contains", "gate", "contains", 5, 5, description)
    cases = tuple(
        replace(c, assertions=(*c.assertions, contains)) if c.case == "a" else c
        for c in reference.cases
    )
    return replace(reference, cases=cases)


def test_a_contains_description_of_no_terms_is_a_changed_description(tmp_path: Path) -> None:
    update_baseline(tmp_path / "b.json", results(*OLD), reason="first")
    now = _with_contains(Reference.of(results(*OLD), "now"), CONTAINS)
    for terms in ("['RAG']", "'RAG'; also accepted: {'RAG': [['rag']]}"):
        edited = f"the text mentions each of {terms}"  # a hand edit: a list where a term was
        baseline = _with_contains(load_reference(tmp_path / "b.json"), edited)
        report = run_gate(baseline, now, GateConfig())
        assert report.passed
        assert (
            f"case a expects otherwise than in the baseline (assertion contains changed: {edited!r}"
            in ("\n".join(report.notes))
        )


def _history_of(path: Path, other: Path) -> None:
    """Give the baseline ``path`` the history of ``other``: what a merge left of two
    updates when it kept one side's content and the other side's history entry."""
    document = json.loads(path.read_text(encoding="utf-8"))
    document["history"] = json.loads(other.read_text(encoding="utf-8"))["history"]
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")


def test_a_baseline_changed_without_an_update_fails_the_gate_until_one_gives_a_reason(
    tmp_path: Path,
) -> None:
    regressed = results(case("a", 3), *OLD[1:])
    baseline, other = tmp_path / "b.json", tmp_path / "other.json"
    update_baseline(other, results(*OLD), reason="first")
    update_baseline(baseline, regressed, reason="a falls")
    _history_of(baseline, other)  # a regressed baseline whose history gives no reason for it
    report = run_gate(load_reference(baseline), Reference.of(regressed, "now"), GateConfig())
    assert report.problems[0].startswith(
        f"{baseline}: its metrics, cases or source are not what its last update wrote ("
    )
    assert (
        "reason 'first') (metrics.success is 0.6666666666666666 where its history last set "
        "1.0; metrics.citation_recall is "
    ) in report.problems[0]
    assert "edited by hand, or a merge joined two updates" in report.problems[0]
    assert not report.passed
    regressed.write(tmp_path / "now.json")
    update = ["--results", str(tmp_path / "now.json"), "--baseline", str(baseline)]
    done = CliRunner().invoke(main, ["baseline", "update", *update, "--reason", "merged"])
    assert done.exit_code == 0, done.output
    assert f"note: {baseline} was not what its last update wrote" in done.stderr
    now = load_reference(tmp_path / "now.json")
    after = run_gate(load_reference(baseline), now, GateConfig())
    assert after.passed, after.text()


def test_a_baseline_laid_out_anew_is_its_update_and_a_floor_or_digest_edited_is_not(
    tmp_path: Path,
) -> None:
    baseline = tmp_path / "b.json"
    update_baseline(baseline, results(*OLD), reason="first")
    update_baseline(baseline, results(*OLD[:2]), reason="c dropped")
    document = json.loads(baseline.read_text(encoding="utf-8"))
    document["metrics"]["success"] = 1  # 1.0 as an editor may write it
    laid_out = dict(reversed(list(document.items())))
    baseline.write_text(json.dumps(laid_out, indent=4), encoding="utf-8")
    assert load_reference(baseline).untraced is None
    document["cases"]["a"]["floor"] = 3  # lowered beside the cases file's floor
    baseline.write_text(json.dumps(document), encoding="utf-8")
    untraced = load_reference(baseline).untraced
    assert untraced is not None
    assert "(2026-" in untraced and "reason 'c dropped'): it was edited by hand" in untraced
    document["cases"]["a"]["floor"] = 4
    del document["history"][-1]["digest"]  # an entry that looks written by an update
    baseline.write_text(json.dumps(document), encoding="utf-8")
    assert f"{baseline}: history[1] (" in str(load_reference(baseline).untraced)
    assert "keeps no digest of what it wrote, while an earlier entry does" in str(
        load_reference(baseline).untraced
    )


def test_a_baseline_whose_history_was_deleted_fails_the_gate_whatever_it_holds(
    tmp_path: Path,
) -> None:
    regressed = results(case("a", 3), *OLD[1:])
    baseline = tmp_path / "b.json"
    update_baseline(baseline, results(*OLD), reason="first")
    document = json.loads(baseline.read_text(encoding="utf-8"))
    update_baseline(tmp_path / "regressed.json", regressed, reason="a falls")
    fallen = json.loads((tmp_path / "regressed.json").read_text(encoding="utf-8"))
    # the regressed run's numbers copied in by hand, the history that would tell deleted
    for history in ([], None):
        edited = {**document, "metrics": fallen["metrics"], "cases": fallen["cases"]}
        if history is None:
            del edited["history"]
        else:
            edited["history"] = history
        baseline.write_text(json.dumps(edited, indent=2), encoding="utf-8")
        report = run_gate(load_reference(baseline), Reference.of(regressed, "now"), GateConfig())
        assert not report.passed
        assert report.problems[0].startswith(f"{baseline}: its history holds no entry, where ")
        assert "the history was deleted, or the file was written by hand" in report.problems[0]
