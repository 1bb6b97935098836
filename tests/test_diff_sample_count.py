"""``replaygate diff``: a sample line appended counts as one sample, whatever its index.

A sample line at index N leaves the slots before it empty; they are no samples. The
fixtures are recorded through the anthropic SDK from the loopback simulator into a real
git repository made by the test.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from replaygate.cli import main
from replaygate.hygiene.review import review_store
from replaygate.models.live import AnthropicModel
from replaygate.models.replay import RecordingModel
from replaygate.models.types import Message
from replaygate.sim import Simulator
from sdks import anthropic
from test_review import git

pytestmark = pytest.mark.slow  # a real git repository

MODEL = "claude-test-model"
QUESTION = Message.user("What is RAG?")
STORE = Path("tests", "fixtures", "rc.jsonl")


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    with Simulator(behavior="research-copilot", seed=1) as server:
        yield server


@pytest.fixture(scope="module")
def committed(tmp_path_factory: pytest.TempPathFactory, sim: Simulator) -> Path:
    """A repository whose one commit holds a store of one recorded sample, made once and
    copied for each test (a copy is faster than recording and two git commands)."""
    root = tmp_path_factory.mktemp("committed")
    git(root, "init", "-q", "-b", "main", "--template=")
    record(sim, root / STORE, 0)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "one sample")
    return root


@pytest.fixture
def store(tmp_path: Path, committed: Path) -> Path:
    """A store of one recorded sample, committed."""
    shutil.copytree(committed, tmp_path, dirs_exist_ok=True)
    return tmp_path / STORE


def record(sim: Simulator, store: Path, sample: int) -> None:
    """The question recorded as sample ``sample`` through the SDK."""
    with anthropic.Anthropic(api_key="sim-key", base_url=sim.url, max_retries=0) as client:
        recorder = RecordingModel(
            AnthropicModel(client, model=MODEL, max_tokens=256),
            store, approve_live=True, model=MODEL, max_tokens=256, sample=sample, source="sim",
        )  # fmt: skip
        recorder.complete([QUESTION], [])


def diff(store: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["diff", str(store), *args])


@pytest.mark.parametrize("index", [2, 9999])
def test_one_sample_line_far_on_is_one_sample_added(
    store: Path, sim: Simulator, index: int
) -> None:
    record(sim, store, index)

    [added] = review_store(store).samples_added
    assert added.added == 1
    assert added.indices == (index,)
    done = diff(store)
    assert done.exit_code == 0, done.output
    assert f"1 sample(s) added (sample {index})" in done.output
    [entry] = json.loads(diff(store, "--json").output)["samples_added"]
    assert entry["added"] == 1
    assert "+1 (sample" in diff(store, "--format", "markdown").output


def test_samples_added_are_counted_and_named(store: Path, sim: Simulator) -> None:
    for index in (1, 4):
        record(sim, store, index)

    done = diff(store)
    assert "2 sample(s) added (samples 1, 4)" in done.output, done.output
