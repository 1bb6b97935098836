"""``eval --source``: what ``meta.source`` of an eval's recorded fixtures says, as for
``record``: ``sim`` from a simulator of the user's own, named by ``ANTHROPIC_BASE_URL``,
told by its request ids unless ``--source`` says otherwise."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from replaygate.evals.recording import RecordRecipe, offline_block
from replaygate.examples.research_copilot import shipped_eval_cases
from replaygate.fixtures.store import FixtureStore
from replaygate.network import network_blocked
from replaygate.sim import Simulator
from run_cli import replaygate

# Its tests import the provider SDKs through replaygate (the example agent).

AGENT = ["--agent", "replaygate.examples.research_copilot:copilot"]
RECORD = ["--record-mode", "record-missing", "--approve-live", "--no-history"]


@pytest.fixture
def one_case(tmp_path: Path) -> Path:
    cases = tmp_path / "one.jsonl"
    first = shipped_eval_cases().read_text(encoding="utf-8").splitlines()[0]
    cases.write_text(first + "\n", encoding="utf-8")
    return cases


def _sources(store: Path) -> set[str]:
    with FixtureStore.open(store) as opened:
        return {str((fixture.meta or {}).get("source")) for fixture in opened}


@pytest.mark.parametrize(
    ("given", "said"), [(["--source", "sim"], "sim"), ([], "sim"), (["--source", "live"], "live")]
)
@pytest.mark.slow  # a real git repository
def test_eval_records_what_source_says_from_a_simulator_named_by_the_base_url(
    tmp_path: Path, one_case: Path, given: list[str], said: str
) -> None:
    # eval had no --source: fixtures from the user's own `sim serve` said "live"; with
    # none given they said "live" still, as a paid model's answer, where an HTTP recording
    # tells the simulator by its request ids
    store = tmp_path / "f.jsonl"
    with Simulator(behavior="research-copilot", seed=3) as sim:
        done = replaygate(
            "eval", *AGENT, "--cases", str(one_case), "--fixtures", str(store), *RECORD, *given,
            env={"ANTHROPIC_BASE_URL": str(sim.url), "ANTHROPIC_API_KEY": "sk-test-eval"},
        )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert _sources(store) == {said}


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_record_labels_the_answers_of_a_simulator_named_by_the_base_url_sim(
    tmp_path: Path,
) -> None:
    store = tmp_path / "f.jsonl"
    with Simulator(behavior="echo") as sim:
        done = replaygate(
            "record", *AGENT, "--fixtures", str(store), "--approve-live", "What is RAG?",
            env={"ANTHROPIC_BASE_URL": str(sim.url), "ANTHROPIC_API_KEY": "sk-test-eval"},
        )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert _sources(store) == {"sim"}


@pytest.mark.parametrize("command", ["eval", "record"])
def test_source_live_with_the_embedded_simulator_is_refused(
    tmp_path: Path, one_case: Path, command: str
) -> None:
    store = tmp_path / "f.jsonl"
    args = (
        ["eval", *AGENT, "--cases", str(one_case), "--fixtures", str(store), *RECORD]
        if command == "eval"
        else ["record", *AGENT, "--fixtures", str(store), "--approve-live", "What is RAG?"]
    )
    done = replaygate(*args, "--simulator", "--source", "live")
    assert done.returncode == 2, done.stdout + done.stderr
    assert (
        "Error: --source live with --simulator: what the embedded simulator answers is "
        "recorded as 'sim'; drop --source, or drop --simulator" in done.stderr
    )
    assert not store.exists()


def test_source_without_record_mode_is_refused(tmp_path: Path, one_case: Path) -> None:
    done = replaygate(
        "eval", *AGENT, "--cases", str(one_case), "--fixtures", str(tmp_path / "f.jsonl"),
        "--no-history", "--source", "sim",
    )  # fmt: skip
    assert done.returncode == 2
    assert (
        "--simulator, --source, --concurrency, --rate-limit and --max-cost apply to --record-mode"
        in (done.stderr)
    )


def test_the_embedded_simulator_makes_a_run_offline_a_source_alone_does_not() -> None:
    # a simulator of the user's own may be anywhere: --source sim only labels the fixtures
    embedded = RecordRecipe(lambda: None, approve_live=True, simulator=True)  # type: ignore[arg-type,return-value]
    labelled = RecordRecipe(lambda: None, approve_live=True, source="sim")  # type: ignore[arg-type,return-value]
    for recipe, blocked in ((None, True), (embedded, True), (labelled, False)):
        with offline_block(recipe):
            assert network_blocked() is blocked, recipe


@pytest.mark.slow  # a real git repository
def test_eval_recording_into_a_store_git_ignores_says_so(
    tmp_path: Path, one_case: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `replaygate record` and a recording under pytest said so; `eval --record-mode` did
    # not, and the store was left out of every commit
    subprocess.run(["git", "init", "-q", "--template="], cwd=tmp_path, check=True)
    (tmp_path / ".gitignore").write_text("*.jsonl\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    done = replaygate(
        "eval", *AGENT, "--cases", str(one_case), "--fixtures", "f.jsonl", *RECORD, "--simulator"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        "Note: 1 store file(s) recorded into are ignored by git: f.jsonl (.gitignore:1: "
        "*.jsonl). A commit leaves them out"
    ) in done.stderr
