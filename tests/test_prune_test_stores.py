"""A store the pytest plugin names after a test (``<dir>/<module>/<test>.jsonl``) is in use
while the test's module still defines it: ``prune --unused`` does not offer the store of
a test skipped (or deselected) in every run counted, and offers that of a test removed.
The store of a test that ran keeps only what it played."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from nested_pytest import loaded_for_sessions
from replaygate.cli import main
from replaygate.fixtures import hits
from replaygate.pytest_plugin.store_names import default_store_path, store_name
from sdks import anthropic
from test_patrol import play, put

SKIPPED_TEST = """\
import os, pytest

@pytest.mark.skipif(os.environ.get("SKIP_AZ") == "1", reason="no Azure on this runner")
@pytest.mark.replaygate
def test_az(openai_client):
    ...

class TestChat:
    @pytest.mark.parametrize("model", ["a", "b"])
    async def test_turn(self, model):
        ...
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tests" / "fixtures").mkdir(parents=True)
    yield tmp_path


def pruned_dry(project: Path, stores: list[Path]) -> Result:
    """``prune --unused`` of the project's stores (a dry run), each of ``stores`` holding
    one fixture no run played, beside a store a run played."""
    for store in stores:
        put(store, store.stem, "2026-01-01T00:00:00Z")
    played = project / "tests" / "fixtures" / "played.jsonl"
    put(played, "played", "2026-01-01T00:00:00Z")
    play(played, "played", project / ".replaygate" / "hits", "20261130T000000Z-0001", project)
    done = CliRunner().invoke(main, ["prune", "--unused", "tests/fixtures", "--refs", "tests"])
    assert done.exit_code == 0, done.output
    return done


def test_the_store_of_a_test_that_still_exists_is_kept(project: Path) -> None:
    fixtures = project / "tests" / "fixtures"
    (project / "tests" / "test_az.py").write_text(SKIPPED_TEST)
    kept = [
        fixtures / "test_az" / "test_az.jsonl",
        fixtures / "test_az" / "TestChat.test_turn[b].jsonl",
    ]
    offered = [
        fixtures / "test_az" / "test_removed.jsonl",  # no longer defined by its module
        fixtures / "test_gone" / "test_az.jsonl",  # its module is gone
        fixtures / "test_az" / "TestOther.test_turn[b].jsonl",  # not in that class
    ]
    done = pruned_dry(project, [*kept, *offered])
    listed = [line.split(":")[0].strip() for line in done.output.splitlines()[1:-1]]
    assert sorted(listed) == sorted(str(p.relative_to(project)) for p in offered)
    assert "kept: 1 played, 2 referenced only" in done.output


def rerecorded_prompt(project: Path) -> None:
    """test_az's store holds the fixture of its old prompt (line 1) and of its new one
    (line 2), which the test played in the last run."""
    (project / "tests" / "test_az.py").write_text(SKIPPED_TEST)
    store = project / "tests" / "fixtures" / "test_az" / "test_az.jsonl"
    put(store, "old prompt", "2026-01-01T00:00:00Z")
    put(store, "new prompt", "2026-01-02T00:00:00Z")
    play(store, "new prompt", project / ".replaygate" / "hits", "20261130T000000Z-0001", project)


def test_what_a_test_that_ran_no_longer_plays_in_its_store_is_offered(project: Path) -> None:
    """A changed prompt re-recorded beside the old fixtures (docs/quickstart-own-project.md):
    the test's module still defines it, but the fixtures of the old prompt go."""
    rerecorded_prompt(project)
    done = CliRunner().invoke(main, ["prune", "--unused", "tests/fixtures", "--refs", "tests"])
    assert done.exit_code == 0, done.output
    assert "tests/fixtures/test_az/test_az.jsonl:1" in done.output
    assert "test_az.jsonl:2" not in done.output
    assert "kept: 1 played, 0 referenced only" in done.output


def test_patrol_counts_the_module_of_a_test_that_ran_as_the_reference_of_what_it_played(
    project: Path,
) -> None:
    """Not every played fixture of the plugin's stores flagged ``unreferenced``: the test's
    module references what its test plays; what the test no longer plays has no reference."""
    rerecorded_prompt(project)
    done = CliRunner().invoke(main, ["patrol", "tests/fixtures", "--refs", "tests", "--json"])
    assert done.exit_code == 0, done.output
    rows = {row["fixture"]: row for row in json.loads(done.output)["fixtures"]}
    played, old = (
        rows["tests/fixtures/test_az/test_az.jsonl:2"],
        rows["tests/fixtures/test_az/test_az.jsonl:1"],
    )
    assert (played["plays"], played["refs"], played["unused"]) == (1, ["tests/test_az.py"], False)
    assert (old["plays"], old["refs"], old["unused"]) == (0, [], True)
    table = CliRunner().invoke(main, ["patrol", "tests/fixtures", "--max-age", "3650d"]).output
    shown = {line.split()[0]: line.split()[4:] for line in table.splitlines() if ".jsonl:" in line}
    assert shown == {  # played, refs, flags
        "tests/fixtures/test_az/test_az.jsonl:1": ["0", "0", "UNUSED"],
        "tests/fixtures/test_az/test_az.jsonl:2": ["1", "1"],
    }


def eval_run(project: Path, store: Path, key: str) -> None:
    """An eval run in the hits log that played ``key`` of ``store``."""
    log = hits.HitLog(project / hits.DEFAULT_DIR, "20261130T000000Z-eval", project, runner="eval")
    log.note(store, key[:12])
    log.flush()


def test_an_eval_run_alone_does_not_let_a_test_store_be_pruned(project: Path) -> None:
    """The tests' stores are played by test sessions, which the log does not hold; the
    eval's store, which an eval run counted played, is judged by it."""
    test_store = project / "tests" / "fixtures" / "test_api" / "test_chat.jsonl"
    put(test_store, "a test's question", "2026-01-01T00:00:00Z")
    eval_store = project / "evals" / "fixtures.jsonl"
    eval_run(project, eval_store, put(eval_store, "played", "2026-01-01T00:00:00Z"))
    put(eval_store, "no longer asked", "2026-01-01T00:00:00Z")
    before = test_store.read_bytes()
    for path in ("tests/fixtures", "."):
        done = CliRunner().invoke(main, ["prune", "--unused", path, "--yes"])
        assert done.exit_code == 2, done.output
        assert "no test session in the hits log at .replaygate/hits" in done.output
        assert "tests/fixtures/test_api/test_chat.jsonl" in done.output
        assert test_store.read_bytes() == before
    done = CliRunner().invoke(main, ["prune", "--unused", "evals"])
    assert done.exit_code == 0, done.output
    assert "last 0 test session(s), 1 eval run(s)" in done.output
    assert "evals/fixtures.jsonl:2" in done.output


SHARED_SUITE = """\
class SharedSuite:
    def test_inherited(self, client):
        ...
"""
PROVIDER_SUITE = """\
import pytest
from tests.shared import SharedSuite

class TestChild(SharedSuite):
    pass

@pytest.mark.parametrize("prompt", ["x" * 300])
def test_long(prompt):
    ...
"""


def test_the_store_of_an_inherited_test_or_a_long_id_is_kept(project: Path) -> None:
    """A test a class inherits from a suite in another module, and a test whose long
    parametrized id the store's name cuts (``test_long[xxx...-<digest>``), still run."""
    (project / "tests" / "shared.py").write_text(SHARED_SUITE)
    (project / "tests" / "test_provider.py").write_text(PROVIDER_SUITE)
    folder = project / "tests" / "fixtures" / "test_provider"
    kept = [
        folder / "TestChild.test_inherited.jsonl",
        folder / f"{store_name('test_long[' + 'x' * 300 + ']')}.jsonl",
    ]
    offered = [
        folder / "TestChild.test_removed.jsonl",  # defined in no module
        folder / f"{store_name('test_gone[' + 'x' * 300 + ']')}.jsonl",
    ]
    done = pruned_dry(project, [*kept, *offered])
    listed = [line.split(".jsonl:")[0].strip() for line in done.output.splitlines()[1:-1]]
    assert sorted(listed) == sorted(str(p.relative_to(project))[:-6] for p in offered)
    assert "kept: 1 played, 2 referenced only" in done.output


ODD_MODULE = """\
import pytest

@pytest.mark.skip(reason="off this week")
def test_ping(anthropic_client):
    ...

def test_ünï(anthropic_client):
    ...

class TestÜber:
    def test_turn(self):
        ...
"""


@pytest.mark.parametrize("module", ["test_my-api.py", "test_ünï code.py"])
def test_the_store_of_a_test_of_a_module_named_as_no_python_name_is_kept(
    project: Path, module: str
) -> None:
    """pytest collects a module of any file name (a hyphen, a space, letters beyond
    ASCII); its tests' stores are where the plugin puts them, under the module's name as
    it is, and a test whose name the store's name spells otherwise (``test_ünï``:
    ``test__n_.jsonl``) is found by that name."""
    (project / "tests" / module).write_text(ODD_MODULE, encoding="utf-8")
    fixtures = project / "tests" / "fixtures"
    kept = [
        fixtures / default_store_path(module, test)
        for test in ("test_ping", "test_ünï", "TestÜber.test_turn")
    ]
    offered = [fixtures / default_store_path(module, "test_removed")]
    done = pruned_dry(project, [*kept, *offered])
    listed = [line.split(".jsonl:")[0].strip() for line in done.output.splitlines()[1:-1]]
    assert listed == [str(p.relative_to(project))[:-6] for p in offered]
    assert "kept: 1 played, 3 referenced only" in done.output


HYPHENATED = """\
import os, pytest

@pytest.mark.skipif(os.environ.get("SKIP_API") == "1", reason="api tests off this week")
def test_ping(anthropic_client):
    reply = anthropic_client().messages.create(
        model="claude-sonnet-4-6", max_tokens=16, messages=[{"role": "user", "content": "ping"}]
    )
    assert reply.content[0].text == "echo: ping"
"""


@pytest.mark.slow  # pytest sessions of the plugin: recording, then a run that skips the test
def test_a_skipped_test_of_a_hyphenated_module_keeps_the_store_the_plugin_wrote(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded_for_sessions(anthropic)
    pytester.makepyfile(**{"test_my-api": HYPHENATED})
    record = ("--replaygate-record-mode=record-missing", "--replaygate-approve-live")
    pytester.runpytest(*record, "--replaygate-simulator=echo").assert_outcomes(passed=1)
    store = pytester.path / "tests" / "fixtures" / "test_my-api" / "test_ping.jsonl"
    before = store.read_bytes()
    hits_dir = pytester.path / ".replaygate" / "hits"
    shutil.rmtree(hits_dir)  # the recording run is not counted: a run that played another
    played = store.parent.parent / "played.jsonl"
    put(played, "played", "2026-01-01T00:00:00Z")
    play(played, "played", hits_dir, "20261130T000000Z-0001", pytester.path)
    monkeypatch.setenv("SKIP_API", "1")
    pytester.runpytest().assert_outcomes(skipped=1)
    done = CliRunner().invoke(main, ["prune", "--unused", "tests/fixtures", "--refs", ".", "--yes"])
    assert done.exit_code == 0, done.output
    assert "kept: 1 played, 1 referenced only" in done.output
    assert store.read_bytes() == before
