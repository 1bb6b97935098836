"""``replaygate diff`` names the files that changed when no fixture did: an eval cases file
and a baseline kept beside a store, passed over as ``verify`` passes them over, with what
changed in them, never counted as fixture files; and the files a store split into."""

from __future__ import annotations

import json
from typing import Any

from replaygate.cli.review_json import review_json
from replaygate.fixtures.fixture import Fixture, make_meta
from replaygate.hygiene.review import review
from replaygate.hygiene.review_report import render_markdown, render_text
from replaygate.hygiene.snapshot import Side

META = make_meta("anthropic.messages", "2023-06-01", "hand")
FIXTURE = Fixture.create(
    {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "q"}]},
    [{"type": "message", "content": [{"type": "text", "text": "a"}]}],
    META,
)
STORE = FIXTURE.to_line()
FIRST = {"date": "2026-01-01T00:00:00Z", "reason": "first run"}


def cases(floor: int) -> bytes:
    return (json.dumps({"id": "c1", "input": "x", "samples": 5, "floor": floor}) + "\n").encode()


def baseline(success: float, *history: dict[str, Any]) -> bytes:
    document = {
        "format": "replaygate.eval.baseline",
        "version": 1,
        "metrics": {"success": success},
        "cases": {},
        "source": {},
        "history": list(history),
    }
    return json.dumps(document, indent=2).encode()


def side(label: str, files: dict[str, bytes]) -> Side:
    ids = {name: str(hash(data)) for name, data in files.items()}
    return Side(label, ids, lambda paths: {p: files[p] for p in paths})


BASE = {"evals/rc.jsonl": STORE, "evals/cases.jsonl": cases(4), "evals/baseline.json": baseline(1)}


def test_a_floor_lowered_and_the_baseline_updated_are_named_not_counted() -> None:
    why = {"date": "2026-02-01T00:00:00Z", "reason": "c1 flaky upstream; floor lowered"}
    head = {**BASE, "evals/cases.jsonl": cases(3), "evals/baseline.json": baseline(0.6, FIRST, why)}
    base = {**BASE, "evals/baseline.json": baseline(1, FIRST)}
    result = review(side("master", base), side("working tree", head), "evals")
    assert result.unchanged and (result.files_changed, result.files_compared) == (0, 3)
    text = render_text(result)
    assert "file(s) changed, but no fixture's" not in text
    assert "no fixture changed (3 file(s) compared)" in text
    assert (
        "note: not fixture files, passed over:\n"
        "  evals/baseline.json (replaygate.eval.baseline): changed, reason of its newest "
        "history entry: 'c1 flaky upstream; floor lowered'\n"
        "  evals/cases.jsonl (eval cases): changed: case c1: floor: 4 != 3\n"
    ) in text
    assert "- `evals/cases.jsonl` (eval cases): changed: case c1: floor: 4 != 3" in render_markdown(
        result
    )
    shown = review_json(result, None)["passed_over"]
    assert [(o["file"], o["kind"]) for o in shown] == [
        ("evals/baseline.json", "replaygate.eval.baseline"),
        ("evals/cases.jsonl", "eval cases"),
    ]


def test_the_files_compared_are_as_many_whether_a_cases_file_changed_or_not() -> None:
    # a changed cases file or baseline was left out of the count, an unchanged one not:
    # 3 files compared one time, 2 the next, for the same three files
    base = side("master", BASE)
    for head in (BASE, {**BASE, "evals/cases.jsonl": cases(3)}, {**BASE, "evals/rc.jsonl": b""}):
        assert review(base, side("working tree", head), "evals").files_compared == 3


def test_a_baseline_edited_with_no_history_entry_says_no_reason_is_kept() -> None:
    base = {**BASE, "evals/baseline.json": baseline(1, FIRST)}
    head = {**BASE, "evals/baseline.json": baseline(0.5, FIRST)}
    result = review(side("master", base), side("working tree", head), "evals")
    [other] = result.passed_over
    assert other.change == "changed with no history entry added: no reason kept for the change"


def test_a_fixture_change_beside_a_cases_file_renamed_is_reported_as_such() -> None:
    head = {**BASE, "evals/rc.jsonl": b"", "evals/suite.jsonl": cases(4)}
    del head["evals/cases.jsonl"]
    result = review(side("master", BASE), side("working tree", head), "evals")
    assert not result.renamed and [str(e) for e in result.removed] == ["evals/rc.jsonl:1"]
    assert [str(o) for o in result.passed_over] == [
        "evals/cases.jsonl (eval cases): removed",
        "evals/suite.jsonl (eval cases): added: 1 case(s)",
    ]
    assert result.files_changed == 1


def test_a_store_split_into_a_folder_names_the_files_that_came_and_went() -> None:
    fixtures = [
        Fixture.create({**FIXTURE.request, "max_tokens": n}, FIXTURE.responses, META)
        for n in (1, 2)
    ]
    folder = "fx/rc/anthropic.messages@2023-06-01"
    head = {f"{folder}/{f.key}.json": f.to_pretty() for f in fixtures}
    store = b"".join(f.to_line() for f in fixtures)
    result = review(side("master", {"fx/rc.jsonl": store}), side("working tree", head), "fx")
    assert result.unchanged
    assert (result.files_removed, result.files_added) == (("fx/rc.jsonl",), tuple(sorted(head)))
    text = render_text(result)
    assert "only where and how they are stored (fixtures moved to other files," in text
    assert f"  files removed: fx/rc.jsonl\n  files added: {folder}/ (2 files)\n" in text
