"""``eval merge`` of shards edited by hand: a case in a shard its id does not belong to."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from counted_outputs import ONE_RUN
from replaygate.assertions.kinds import Outcome
from replaygate.evals import CaseResult, EvalResults
from replaygate.evals.errors import ResultsError
from replaygate.evals.scorers import CaseCounts
from replaygate.evals.shards import Shard, merge
from replaygate.sampling import SampledResult, SampleResult
from run_cli import replaygate


def case(case_id: str) -> CaseResult:
    outcome = Outcome("contains", "gate", True, "", 1.0, "contains")
    sampled = SampledResult(case_id, 1, 1, (SampleResult(0, (outcome,), ONE_RUN),))
    return CaseResult(sampled, CaseCounts(1, True, 1, True, 1, 1, 1, 0, 5, 5, 1, 0.1))


def part(index: int, ids: list[str], positions: list[int]) -> EvalResults:
    shard = {"index": index, "count": 2, "cases": 2, "positions": positions}
    info = {"shard": shard, "time": "2026-11-01T00:00:00Z"}
    return EvalResults(tuple(case(i) for i in ids), info)


FIRST = next(f"c{i}" for i in range(100) if Shard(1, 2).holds(f"c{i}"))
SECOND = next(f"c{i}" for i in range(100) if Shard(2, 2).holds(f"c{i}"))


def test_a_case_listed_in_two_shards_is_refused() -> None:
    # The merged results listed it twice: a results file eval merge wrote and no
    # command could read back, and a history run that counted it twice.
    with pytest.raises(ResultsError, match=rf"s2\.json: case '{FIRST}' is not in shard 2/2"):
        merge([part(1, [FIRST], [0]), part(2, [FIRST], [1])], ["s1.json", "s2.json"])


def test_shards_whose_cases_belong_to_them_merge() -> None:
    merged = merge([part(1, [FIRST], [1]), part(2, [SECOND], [0])], ["s1.json", "s2.json"])
    assert [c.id for c in merged.cases] == [SECOND, FIRST]


def test_the_merge_command_names_the_file_and_writes_nothing(tmp_path: Path) -> None:
    one = part(1, [FIRST], [0]).write(tmp_path / "s1.json")
    two = part(2, [FIRST], [1]).write(tmp_path / "s2.json")
    out = tmp_path / "merged.json"
    done = replaygate("eval", "merge", str(one), str(two), "--out", str(out), "--no-history")
    assert done.returncode == 2, done.stderr
    assert f"case '{FIRST}' is not in shard 2/2" in done.stderr
    assert "Traceback" not in done.stderr and not out.exists()


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (lambda shard: shard.pop("cases"), "eval.shard.cases is missing"),
        (lambda shard: shard.update(index="2"), "eval.shard.index must be an integer, got '2'"),
        (lambda shard: shard.update(index=5), "eval.shard says shard 5/"),
        (lambda shard: shard.update(positions={}), "eval.shard.positions must be a list, got {}"),
        (lambda shard: shard["positions"].append(0), "eval.shard.positions holds "),
    ],
    ids=["no cases", "index as text", "index past count", "positions object", "one too many"],
)
def test_a_hand_edited_shard_field_is_named(edit: Any, problem: str) -> None:
    # each was "eval.shard is missing or damaged", naming no field
    shard: dict[str, Any] = {"index": 1, "count": 2, "cases": 3, "positions": []}
    edit(shard)
    refused = re.escape(f"part.json: not the results of a shard ({problem}")
    with pytest.raises(ResultsError, match=refused):
        merge([EvalResults((), {"shard": shard})], ["part.json"])


def placed(index: int, count: int, ids: list[str]) -> EvalResults:
    """Shard ``index`` of ``count`` of a run of the cases ``ids``, as ``eval --shard`` writes it."""
    mine, shard = Shard(index, count).select([case(i) for i in ids])  # type: ignore[type-var]
    return EvalResults(tuple(mine), {"shard": shard, "time": "2026-11-01T00:00:00Z"})


IDS = [f"c{i}" for i in range(12)]


def test_shards_written_with_their_placing_merge_into_file_order() -> None:
    parts = [placed(i, 2, IDS) for i in (1, 2)]
    assert all(len(p.cases) >= 2 for p in parts)
    assert [c.id for c in merge(parts, ["s1.json", "s2.json"]).cases] == IDS


def test_cases_reordered_in_a_shard_are_refused_by_file_and_field() -> None:
    # merged without a word into other places of the run than the serial run's
    one, two = (placed(i, 2, IDS) for i in (1, 2))
    reordered = EvalResults(one.cases[::-1], one.info)
    with pytest.raises(ResultsError, match=r"^s1\.json: eval\.shard\.placed: its cases are not"):
        merge([reordered, two], ["s1.json", "s2.json"])
    # a shard written before it kept the digest merges as before
    old = {**one.info, "shard": {k: v for k, v in one.info["shard"].items() if k != "placed"}}
    assert len(merge([EvalResults(one.cases, old), two], ["s1.json", "s2.json"]).cases) == 12


def test_positions_swapped_between_shards_are_refused() -> None:
    # each shard's positions still increase and the run's are all there, once each
    one, two = (placed(i, 2, IDS) for i in (1, 2))
    first, second = one.info["shard"]["positions"], two.info["shard"]["positions"]
    a, b = next((x, y) for x in first for y in second if abs(x - y) == 1)
    for positions in (first, second):
        positions[:] = [b if p == a else a if p == b else p for p in positions]
    assert first == sorted(first) and second == sorted(second)
    with pytest.raises(ResultsError, match=r"^s1\.json: eval\.shard\.placed"):
        merge([one, two], ["s1.json", "s2.json"])
