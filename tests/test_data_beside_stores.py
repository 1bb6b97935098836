"""A file of test data kept in the stores' folder (``tests/fixtures`` is pytest's usual
folder for it too) is read as a fixture store, as every ``.json`` and ``.jsonl`` file
there is. ``verify`` said ``unknown field(s) 'city', 'country'``, and ``prune`` the same
with ``(run replaygate verify tests/fixtures)``, which said it again: neither told why
the file was read, or what to do. A file holding no field of a fixture says both; a
fixture with a field too many is still ``unknown field(s)``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from replaygate import FixtureStore
from run_cli import replaygate
from test_store_walk_rule import fixture

NOT_A_FIXTURE = "not a fixture: none of its fields ('city', 'country') is a fixture's"
WHY = (
    "it is read as a fixture store because it is a {suffix} file under tests/fixtures, "
    "where every .json and .jsonl file is: if it is not a store (data of the tests kept "
    "beside the stores), move it out of tests/fixtures, or keep the stores in a folder of "
    "their own (the pytest plugin's --replaygate-dir, `fixtures` in [tool.replaygate] for "
    "run, record and eval) and pass that folder"
)
CITIES = [{"city": "Porto", "country": "PT"}, {"city": "Faro", "country": "PT"}]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A store recorded in tests/fixtures, and the tests' data beside it."""
    monkeypatch.chdir(tmp_path)
    store = tmp_path / "tests" / "fixtures" / "test_agent" / "test_plan.jsonl"
    store.parent.mkdir(parents=True)
    with FixtureStore.open(store) as opened:
        opened.put(fixture("a trip to Porto"))
    (tmp_path / "tests" / "fixtures" / "cities.json").write_text(
        json.dumps(CITIES[0]), encoding="utf-8"
    )
    yield tmp_path


def test_verify_says_why_a_data_file_was_read_and_what_to_do(project: Path) -> None:
    lines = "".join(json.dumps(city) + "\n" for city in CITIES)
    Path("tests/fixtures/cities.jsonl").write_text(lines, encoding="utf-8")
    done = replaygate("verify", "tests/fixtures")
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines() == [
        f"tests/fixtures/cities.json: {NOT_A_FIXTURE} (key, request, response); "
        + WHY.format(suffix=".json"),
        # each line would say the same: one problem for the file
        f"tests/fixtures/cities.jsonl:1: {NOT_A_FIXTURE} (key, request, response); nor are "
        "its other 1 line(s) fixtures; " + WHY.format(suffix=".jsonl"),
        "1 fixture(s) checked, 2 problem(s)",
    ]


def test_prune_and_patrol_say_it_without_sending_to_verify(project: Path) -> None:
    for command in (("prune", "--unused"), ("patrol",)):
        done = replaygate(*command, "tests/fixtures")
        assert done.returncode == 2, command
        assert done.stderr == (
            f"Error: tests/fixtures/cities.json: {NOT_A_FIXTURE} (key, request, response); "
            f"{WHY.format(suffix='.json')}\n"
        ), command


def test_a_data_file_named_alone_is_not_a_fixture(project: Path) -> None:
    done = replaygate("verify", "tests/fixtures/cities.json")
    assert done.returncode == 1
    assert done.stdout == (
        f"tests/fixtures/cities.json: {NOT_A_FIXTURE} (key, request, response)\n"
        "0 fixture(s) checked, 1 problem(s)\n"
    )


def test_a_fixture_with_a_field_too_many_is_still_an_unknown_field(project: Path) -> None:
    Path("tests/fixtures/cities.json").unlink()
    extra = {**fixture("a trip to Faro").to_json(), "city": "Faro"}
    Path("tests/fixtures/odd.json").write_text(json.dumps(extra), encoding="utf-8")
    done = replaygate("verify", "tests/fixtures")
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "tests/fixtures/odd.json: unknown field(s) 'city'",
        "1 fixture(s) checked, 1 problem(s)",
    ]
