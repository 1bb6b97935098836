"""The fixtures shipped with ResearchCopilot replay every sample of every eval case, and are
reproducible."""

from __future__ import annotations

from pathlib import Path

import pytest

from replaygate import FixtureStore, ReplayModel
from replaygate.evals import Reference, load_eval_cases, load_reference, run_eval, shipped_prices
from replaygate.examples.research_copilot import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_MODEL,
    DEFAULT_SYSTEM,
    build_registry,
    copilot,
    load_cases,
    run,
    shipped_baseline,
    shipped_eval_cases,
    shipped_fixtures,
)
from run_cli import replaygate


def test_every_case_replays_from_the_shipped_fixtures() -> None:
    store = FixtureStore.open(shipped_fixtures())
    for case in load_cases():
        model = ReplayModel(
            store, model=DEFAULT_MODEL, max_tokens=DEFAULT_MAX_TOKENS, system=DEFAULT_SYSTEM
        )
        result = run(model, build_registry(), case.question, system=DEFAULT_SYSTEM)
        fetched = {s.tool_call.arguments.get("doc_id") for s in result.steps if s.tool_call}
        assert set(case.expected_doc_ids) <= fetched, case.id
        assert result.final


def test_every_sample_of_the_eval_cases_replays_from_the_shipped_fixtures() -> None:
    """``replaygate eval`` of the shipped cases over the shipped store, as the docs run it,
    replays all their samples (a miss raises) and scores what the shipped baseline holds."""
    cases = load_eval_cases(shipped_eval_cases())
    results = run_eval(cases, shipped_fixtures(), agent=copilot, prices=shipped_prices())
    baseline = load_reference(shipped_baseline())
    assert Reference.of(results, "shipped").cases == baseline.cases
    assert results.metrics == baseline.metrics


def test_shipped_fixtures_say_where_they_came_from() -> None:
    for fixture in FixtureStore.open(shipped_fixtures()):
        assert fixture.meta is not None
        assert fixture.meta["source"] == "sim"
        assert fixture.meta["interface"] == "anthropic.messages"


@pytest.mark.slow
def test_shipped_fixtures_are_reproducible_from_the_simulator(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.jsonl"
    done = replaygate(
        "eval", "--record-mode", "record-missing", "--approve-live", "--simulator",
        "--seed", "7", "--no-history", "--fixtures", str(fresh),
        "--agent", "replaygate.examples.research_copilot:copilot",
        "--cases", str(shipped_eval_cases()),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr

    def content(path: Path) -> list[tuple[str, object, object]]:
        return sorted((f.key, f.request, f.responses) for f in FixtureStore.open(path))

    assert content(fresh) == content(shipped_fixtures())
