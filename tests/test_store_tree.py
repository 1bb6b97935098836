"""A tree of stores, as the pytest plugin writes one per test, is read store by store.

The same request recorded in two tests' stores with different answers is two
fixtures, not a conflict; within one store it still is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from replaygate.cli import main
from replaygate.errors import FixtureFormatError
from replaygate.fixtures.fixture import Fixture, make_meta
from replaygate.fixtures.store import FixtureStore, store_roots
from wire_shapes import text_answer

REQUEST = {
    "method": "POST",
    "path": "/v1/messages",
    "headers": {"anthropic-version": "2023-06-01"},
    "body": {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]},
}


def _response(text: str) -> dict[str, Any]:
    body = text_answer(text)
    return {"status": 200, "headers": {"content-type": "application/json"}, "body": body}


def _fixture(text: str) -> Fixture:
    meta = make_meta("anthropic.messages", "2023-06-01", "sim")
    return Fixture.create(REQUEST, [_response(text)], meta)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tests" / "fixtures"
    FixtureStore.open(root / "test_a" / "test_one.jsonl").put(_fixture("one"))
    FixtureStore.open(root / "test_b" / "test_two.jsonl").put(_fixture("two"))
    FixtureStore.open(root / "shared").put(_fixture("three"))  # a folder store
    return root


def test_the_tree_is_split_into_its_stores(tree: Path) -> None:
    stores = store_roots(tree)
    assert sorted(p.relative_to(tree).as_posix() for p in stores) == [
        "shared",
        "test_a/test_one.jsonl",
        "test_b/test_two.jsonl",
    ]
    assert [len(files) for files in stores.values()] == [1, 1, 1]


@pytest.mark.parametrize(
    "args",
    [
        ["verify"],
        ["patrol"],
        ["checksum"],
        ["drift", "--against"],
    ],
    ids=["verify", "patrol", "checksum", "drift"],
)
def test_every_hygiene_command_accepts_the_tree(
    tree: Path, args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tree.parent.parent)
    extra = [str(tree)] if args[0] == "drift" else []
    done = CliRunner().invoke(main, [args[0], str(tree), *args[1:], *extra])
    assert done.exit_code == 0, done.output
    assert "recorded twice" not in done.output
    if args[0] == "verify":
        assert "3 fixture(s) checked, 0 problem(s)" in done.output
    if args[0] == "patrol":
        assert "3 fixture(s)" in done.output


def test_the_same_request_twice_within_one_store_is_still_a_problem(tree: Path) -> None:
    one = tree / "test_a" / "test_one.jsonl"
    one.write_bytes(one.read_bytes() + _fixture("other").to_line())
    done = CliRunner().invoke(main, ["verify", str(tree)])
    assert done.exit_code == 1
    assert f"{one}:2: request of key" in done.output and "recorded twice" in done.output


def test_the_tree_opened_as_one_store_says_each_file_may_be_a_store_of_its_own(
    tree: Path,
) -> None:
    one, two = tree / "test_a" / "test_one.jsonl", tree / "test_b" / "test_two.jsonl"
    with pytest.raises(FixtureFormatError) as caught:
        FixtureStore.open(tree)
    err = caught.value  # the shared folder store is read first, then test_a's store
    assert (err.file, err.line) == (str(one), 1)
    assert f"(also at {tree / 'shared'}" in err.reason
    assert "open the file rather than the folder holding both" in err.reason
    for store in (one, two, tree / "shared"):  # each store opens on its own
        assert len(FixtureStore.open(store)) == 1


def test_a_conflict_within_one_file_does_not_speak_of_files(tree: Path) -> None:
    one = tree / "test_a" / "test_one.jsonl"
    one.write_bytes(one.read_bytes() + _fixture("other").to_line())
    with pytest.raises(FixtureFormatError) as caught:
        FixtureStore.open(one)
    assert caught.value.reason.endswith("keep one of them")


@pytest.mark.parametrize("inside", ["a.jsonl", "zzz/a.jsonl"])
def test_a_jsonl_file_inside_a_folder_store_is_checked_with_it(tree: Path, inside: str) -> None:
    shared = tree / "shared"
    [recorded] = shared.glob("*@*/*.json")
    FixtureStore.open(shared / inside).put(_fixture("another"))
    with pytest.raises(FixtureFormatError):  # what --fixtures shared opens
        FixtureStore.open(shared)
    done = CliRunner().invoke(main, ["verify", str(tree)])
    assert done.exit_code == 1, done.output
    key = _fixture("x").key[:12]
    assert f"request of key {key} recorded twice with different responses" in done.output
    assert str(recorded) in done.output and str(shared / inside) in done.output
    assert "1 problem(s)" in done.output


def test_a_jsonl_file_inside_a_folder_store_repeating_its_answer_is_no_problem(
    tree: Path,
) -> None:
    shared = tree / "shared"
    FixtureStore.open(shared / "a.jsonl").put(_fixture("three"))
    FixtureStore.open(shared)  # read as one fixture recorded twice
    done = CliRunner().invoke(main, ["verify", str(tree)])
    assert done.exit_code == 0, done.output


def test_test_data_beside_the_tree_does_not_join_the_tests_stores(tree: Path) -> None:
    # A .json file of test data at the tree's top made verify read every .jsonl store
    # below as one folder store's: the request test_a and test_b recorded with other
    # answers was reported "recorded twice", beside the data file's own problem.
    (tree / "cities.json").write_text('{"city": "Paris"}')
    done = CliRunner().invoke(main, ["verify", str(tree)])
    assert done.exit_code == 1
    assert "recorded twice" not in done.output
    assert f"{tree / 'cities.json'}: not a fixture" in done.output
    assert "3 fixture(s) checked, 1 problem(s)" in done.output


def test_show_of_the_tree_reads_a_jsonl_file_inside_a_folder_store_with_it(tree: Path) -> None:
    # as verify of the tree and opening the folder store read it: one store's conflict
    FixtureStore.open(tree / "shared" / "a.jsonl").put(_fixture("another"))
    key = _fixture("x").key[:12]
    done = CliRunner().invoke(main, ["show", key, "--fixtures", str(tree)])
    assert done.exit_code == 2
    assert "the same request is recorded twice with different responses" in done.output
    (tree / "shared" / "a.jsonl").unlink()
    shown = CliRunner().invoke(main, ["show", key, "--fixtures", str(tree)])
    assert shown.exit_code == 0 and shown.output.count("\n# ") + 1 == 3  # one a store
