"""Store file names with brackets, ``+`` or a space, as patrol and prune see them.

The pytest plugin names a parametrized test's store ``test_x[a+b].jsonl``; a marker may
name ``rag+v2.jsonl`` or ``my cases.jsonl``. Patrol's table took ``[city0]`` for markup
and printed ``test_plan.jsonl``, a file that is not there; and a reference to such a
name was never found (the name was taken apart into words), so ``prune --unused``
listed, and with ``--yes`` deleted, fixtures a test names.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate import Fixture
from replaygate.cli import main
from replaygate.fixtures.fixture import make_meta

META = make_meta("anthropic.messages", "2023-06-01", "hand", recorded_at="2025-01-01T00:00:00Z")
RESPONSE = {"type": "message", "role": "assistant", "content": [], "stop_reason": "end_turn"}
HIT = {"run": "20261203T000000Z-aaaa", "time": "2026-12-03T00:00:00Z", "key": "000000000000"}


def _project(root: Path, name: str) -> Path:
    store = root / "tests" / "fixtures" / name
    store.parent.mkdir(parents=True)
    request = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": name}]}
    store.write_bytes(Fixture.create(request, [RESPONSE], META).to_line())
    hits = root / ".replaygate" / "hits"
    hits.mkdir(parents=True)
    line = {**HIT, "store": "tests/fixtures/other.jsonl", "test": "tests/test_x.py::test_other"}
    (hits / "20261203T000000Z-aaaa-1.jsonl").write_text(json.dumps(line) + "\n")
    return store


@pytest.mark.parametrize("name", ["test_plan[city0].jsonl", "rag+v2.jsonl", "my cases.jsonl"])
def test_a_store_named_with_odd_characters_is_shown_and_found_as_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    store = _project(tmp_path, name)
    before = store.read_bytes()
    (tmp_path / "tests" / "test_x.py").write_text(
        f"import pytest\n\n@pytest.mark.replaygate(fixtures={name!r})\ndef test_x(): ...\n"
    )
    monkeypatch.chdir(tmp_path)
    patrol = CliRunner().invoke(main, ["patrol", "tests/fixtures"])
    assert patrol.exit_code == 0, patrol.output
    row = next(line for line in patrol.stdout.splitlines() if line.startswith("tests/"))
    assert row.startswith(f"tests/fixtures/{name}:1 ") and "UNUSED" not in row, row
    prune = CliRunner().invoke(main, ["prune", "--unused", "tests/fixtures", "--yes"])
    assert prune.exit_code == 0 and "nothing to prune" in prune.output, prune.output
    assert store.read_bytes() == before


def test_a_store_named_with_brackets_and_referenced_by_nothing_is_still_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project(tmp_path, "test_plan[city0].jsonl")
    (tmp_path / "tests" / "test_x.py").write_text("def test_plan(): ...\n")
    monkeypatch.chdir(tmp_path)
    prune = CliRunner().invoke(main, ["prune", "--unused", "tests/fixtures"])
    assert prune.exit_code == 0, prune.output
    assert "tests/fixtures/test_plan[city0].jsonl:1" in prune.output


def test_prune_names_a_store_with_a_newline_on_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "  removed: tests/fixtures/a\nb.jsonl" and its backup took two lines each
    _project(tmp_path, "a\nb.jsonl")
    (tmp_path / "tests" / "conftest.py").write_text("")  # the tests folder holds code
    monkeypatch.chdir(tmp_path)
    prune = CliRunner().invoke(main, ["prune", "--unused", "--yes", "tests/fixtures"])
    assert prune.exit_code == 0, prune.output
    shown = repr("tests/fixtures/a\nb.jsonl")
    assert f"  removed: {shown}" in prune.output.splitlines()
    assert f"  backup: {shown[:-1]}.bak'" in prune.output.splitlines()


def test_patrol_names_a_store_with_a_newline_on_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # its title printed the name as it is, over two lines, where its rows quote it
    _project(tmp_path, "a\nb.jsonl")
    monkeypatch.chdir(tmp_path)
    store = "tests/fixtures/a\nb.jsonl"
    patrol = CliRunner().invoke(main, ["patrol", store])
    assert patrol.exit_code == 0, patrol.output
    title = patrol.output.splitlines()[0]
    assert title.startswith(f"patrol of {store!r}: 1 fixture(s)"), title


def test_the_prune_command_patrol_names_runs_for_a_store_named_with_a_leading_dash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "`replaygate prune -r.jsonl --unused` lists them" ended in "No such option: -r"
    _project(tmp_path, "-r.jsonl")
    monkeypatch.chdir(tmp_path / "tests" / "fixtures")
    hits = ["--hits-dir", str(tmp_path / ".replaygate" / "hits")]
    patrol = CliRunner().invoke(main, ["patrol", *hits, "--", "-r.jsonl"])
    assert patrol.exit_code == 0, patrol.output
    assert "(`replaygate prune ./-r.jsonl --unused --hits-dir" in patrol.output
