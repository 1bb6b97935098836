"""What ``eval --shard`` takes and what ``eval merge`` reads: a shard count no run could
be merged from, and a shard file edited by hand, are refused by name (in process)."""

from __future__ import annotations

from typing import Any

import pytest

from replaygate.evals.errors import ResultsError
from replaygate.evals.results import EvalResults
from replaygate.evals.shards import MAX_SHARDS, Shard, merge


def test_a_shard_count_beyond_the_limit_is_refused() -> None:
    assert Shard.parse(f"{MAX_SHARDS}/{MAX_SHARDS}") == Shard(MAX_SHARDS, MAX_SHARDS)
    with pytest.raises(ValueError, match="N must be at most 10,000"):
        Shard.parse("1/99999999999999999999")


def part(**shard: Any) -> EvalResults:
    """A shard's results holding no case, with ``eval.shard`` as given."""
    return EvalResults((), {"shard": {"index": 1, "count": 1, "cases": 0, "positions": [],
                                      **shard}})  # fmt: skip


@pytest.mark.parametrize(
    "shard",
    [
        {"count": 10**6},  # a hand edit: merging must not list a million missing shards
        {"index": True},
        {"index": 0},
        {"index": 2},
        {"cases": -1},
        {"count": 1.0},
    ],
)
def test_a_damaged_shard_is_refused_by_name(shard: dict[str, Any]) -> None:
    with pytest.raises(ResultsError, match=r"shard-1\.json: not the results of a shard"):
        merge([part(**shard)], ["shard-1.json"])


def test_a_whole_empty_run_merges() -> None:
    assert merge([part()], ["shard-1.json"]).cases == ()
