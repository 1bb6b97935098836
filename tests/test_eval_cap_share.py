"""eval --jobs N records under each process's share of --max-cost: a call the share
refuses says the cap is a share of the one given, and how many jobs would hold it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from replaygate import RecordingModel
from replaygate.errors import SpendingCapError
from replaygate.evals import RecordRecipe
from replaygate.evals.prices import Price, PriceTable
from replaygate.fixtures.store import FixtureStore
from replaygate.models.live import AnthropicModel
from replaygate.models.types import Message
from replaygate.sim import Simulator
from sdks import anthropic

PRICES = PriceTable({"m": Price(0.0, 1.0)}, "USD", "test prices")
"""A call of max_tokens 1,000 is bound at 0.001 USD (input costs nothing)."""


def _refusal(sim: Simulator, store: Path, max_cost: float, jobs: int) -> str:
    """What the cap of one of ``jobs`` processes says of a call bound at 0.001."""
    client = anthropic.Anthropic(api_key="k", base_url=sim.url, max_retries=0)
    live = AnthropicModel(client, model="m", max_tokens=1000)

    @contextmanager
    def opened() -> Iterator[AnthropicModel]:
        yield live

    recipe = RecordRecipe(opened, approve_live=True, max_cost=max_cost)
    with recipe.plan(PRICES, jobs) as plan:
        recorder = RecordingModel(
            live, store, approve_live=True, model="m", max_tokens=1000, cap=plan.cap
        )
        with pytest.raises(SpendingCapError) as refused:
            recorder.complete([Message.user("hello")], [])
    assert not store.exists() or len(FixtureStore.open(store)) == 0  # nothing was sent
    return str(refused.value)


def test_a_call_over_the_share_but_within_the_cap_names_the_split_and_fewer_jobs(
    sim: Simulator, tmp_path: Path
) -> None:
    message = _refusal(sim, tmp_path / "a.jsonl", 0.0015, 2)
    assert "0.0000 of 0.00075 USD spent on 0 recorded calls" in message
    assert message.endswith(
        "This process's share: --max-cost 0.0015 split over --jobs 2. The call alone could "
        "cost more than the share; with --jobs 1, a share (0.0015) would hold it."
    )
    message = _refusal(sim, tmp_path / "b.jsonl", 0.0035, 4)
    assert message.endswith(
        "This process's share: --max-cost 0.0035 split over --jobs 4. The call alone could "
        "cost more than the share; with --jobs 3 or fewer, a share (0.00116667) would hold it."
    )


def test_a_call_over_the_whole_cap_names_the_split_only(sim: Simulator, tmp_path: Path) -> None:
    message = _refusal(sim, tmp_path / "c.jsonl", 0.0009, 2)
    assert message.endswith("This process's share: --max-cost 0.0009 split over --jobs 2.")


def test_one_process_has_the_whole_cap_and_says_nothing_of_shares(
    sim: Simulator, tmp_path: Path
) -> None:
    message = _refusal(sim, tmp_path / "d.jsonl", 0.0009, 1)
    assert "of 0.0009 USD" in message and "share" not in message


def test_a_pytest_xdist_worker_refusing_a_call_says_its_cap_is_a_share() -> None:
    """Under -n 2 and --replaygate-max-cost 0.8 a worker said '0.6015 of 0.40 USD spent' and
    nothing of the 0.8 given."""
    from replaygate.fixtures.spending import SpendingCap
    from replaygate.pytest_plugin.recording_run import RAISE_WITH, _worker_share

    share = _worker_share(SpendingCap(0.0015, PRICES, raise_with=RAISE_WITH), 2)
    with pytest.raises(SpendingCapError) as refused:
        share.reserve({"model": "m", "max_tokens": 1000, "messages": []})
    assert str(refused.value).endswith(
        f"Raise the cap ({RAISE_WITH}) to record the rest. This pytest-xdist worker's share: "
        "the session's cap of 0.0015 split over 2 workers. The call alone could cost more "
        "than the share; with -n 1, a share (0.0015) would hold it."
    )
