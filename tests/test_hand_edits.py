"""Careless hand edits of a store: each is named by ``verify`` at its file and line, and
replaying the edited fixture fails with a message that says what is wrong."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from replaygate import Fixture, FixtureStore, Message, ModelResponse, ReplayModel
from replaygate.cli import main
from replaygate.errors import FixtureMismatchError
from replaygate.fixtures.fixture import make_meta
from replaygate.fixtures.store import record_response
from replaygate.hygiene.verify import MISSING_META
from replaygate.json_where import field_line, field_lines
from replaygate.jsonl_spread import ONE_A_LINE
from replaygate.models.providers import to_anthropic_request, to_anthropic_response

SETTINGS: dict[str, Any] = {"model": "claude-x", "max_tokens": 32}


def fixture(question: str) -> Fixture:
    request = to_anthropic_request([Message.user(question)], [], **SETTINGS)
    response = to_anthropic_response(ModelResponse(text="a"), model="claude-x")
    meta = make_meta("anthropic.messages", "2023-06-01", "hand")
    return Fixture.create(request, [response], meta)


def line(obj: dict[str, Any]) -> bytes:
    return orjson.dumps(obj) + b"\n"


def fixture_folder(tmp_path: Path) -> Path:
    """The interface folder of the folder store ``tmp_path / "fold"``, made, where its
    one-fixture ``.json`` files go."""
    folder = tmp_path / "fold" / "anthropic.messages@2023-06-01"
    folder.mkdir(parents=True)
    return folder


def verify(path: Path) -> tuple[int, list[str]]:
    result = CliRunner().invoke(main, ["verify", str(path)])
    return result.exit_code, result.output.splitlines()


def test_a_response_set_to_null_is_reported_at_its_line(tmp_path: Path) -> None:
    store = tmp_path / "s.jsonl"
    nulled = {**fixture("one").to_json(), "response": None}
    all_null = {k: v for k, v in fixture("two").to_json().items() if k != "response"}
    all_null["responses"] = [None, None]
    diverged = {k: v for k, v in fixture("three").to_json().items() if k != "response"}
    diverged["responses"] = [None, fixture("three").response]  # sample 1 sent it alone
    no_meta = {k: v for k, v in nulled.items() if k != "meta"}
    no_meta["request"] = fixture("four").request
    no_meta["key"] = fixture("four").key
    store.write_bytes(line(nulled) + line(all_null) + line(diverged) + line(no_meta))
    code, lines = verify(store)
    assert code == 1
    nothing = (
        "no response recorded (response, or every item of responses, is null): nothing "
        "to replay (a hand edit?); re-record the fixture"
    )
    assert lines == [
        f"{store}:1: {nothing}",
        f"{store}:2: {nothing}",
        f"{store}:4: {MISSING_META}",
        f"{store}:4: {nothing}",
        "4 fixture(s) checked, 4 problem(s)",
    ]


def test_a_null_response_filled_by_a_sample_line_below_it_passes(tmp_path: Path) -> None:
    # Re-recording the fixture (record-missing) appends the missing sample as a line.
    store = tmp_path / "s.jsonl"
    one = fixture("one")
    store.write_bytes(line({**one.to_json(), "response": None}))
    with FixtureStore.open(store) as opened:
        record_response(opened, one.request, one.response, meta=one.meta, overwrite=False)
    assert len(store.read_bytes().splitlines()) == 2
    assert verify(store) == (0, ["1 fixture(s) checked, 0 problem(s)"])
    assert ReplayModel(store, **SETTINGS).complete([Message.user("one")], []).text == "a"


def test_replaying_a_fixture_whose_response_is_null_says_so(tmp_path: Path) -> None:
    store = tmp_path / "my store.jsonl"
    store.write_bytes(line({**fixture("one").to_json(), "response": None}))
    with pytest.raises(FixtureMismatchError) as caught:
        ReplayModel(store, **SETTINGS).complete([Message.user("one")], [])
    message = str(caught.value)
    assert "holds no response at all (its response is null" in message
    assert f"`replaygate verify '{store}'` names its line" in message


def pretty(question: str) -> bytes:
    return orjson.dumps(fixture(question).to_json(), option=orjson.OPT_INDENT_2) + b"\n"


def spread(store: Path, first: int, last: int) -> str:
    fixed = store.with_name(f"{store.stem}.fixed{store.suffix}")
    return (
        f"{store}:{first}: a fixture spread over lines {first} to {last} (pretty JSON, as an "
        "editor formats it), where a .jsonl file holds one fixture per line: put each back "
        f"on one line, e.g. `{ONE_A_LINE} {store} > {fixed}`, then `mv {fixed} {store}`"
    )


def test_a_fixture_reformatted_over_several_lines_is_one_problem_naming_its_lines(
    tmp_path: Path,
) -> None:
    # each line of the pretty fixture was a problem of its own: 30 lines of "malformed JSON"
    store = tmp_path / "s.jsonl"
    two = pretty("two")
    last = 1 + two.count(b"\n")
    store.write_bytes(fixture("one").to_line() + two + fixture("three").to_line())
    assert verify(store) == (1, [spread(store, 2, last), "2 fixture(s) checked, 1 problem(s)"])
    done = CliRunner().invoke(main, ["verify", "--json", str(store)])
    assert done.exit_code == 1
    [problem] = orjson.loads(done.output)["problems"]
    assert (problem["line"], problem["reason"]) == (2, spread(store, 2, last).split(": ", 1)[1])


def test_lines_broken_each_on_its_own_are_still_reported_one_by_one(tmp_path: Path) -> None:
    store = tmp_path / "s.jsonl"
    whole = pretty("one") + pretty("two")  # a store reformatted whole: one problem a fixture
    broken = b'{"key": \n}\nnot json\n'  # three broken lines in a row, not one fixture
    held = b"{\n" + fixture("four").to_line() + b"}\n"  # a whole fixture within: no block
    cut = b"{\n" + pretty("three")[2:-2]  # a pretty fixture whose last line is lost
    store.write_bytes(whole + broken + held + cut)
    code, lines = verify(store)
    first, ends = 1 + pretty("one").count(b"\n"), whole.count(b"\n")
    assert code == 1
    assert lines[:2] == [spread(store, 1, first - 1), spread(store, first, ends)]
    apart = [ends + 1, ends + 2, ends + 3, ends + 4, ends + 6]
    apart += range(ends + 7, ends + 7 + cut.count(b"\n"))  # every line of the cut fixture
    assert [int(line.split(":")[1]) for line in lines[2:-1]] == apart
    assert "spread over several lines starts here" in lines[5]  # at held's "{"
    assert lines[-1] == f"1 fixture(s) checked, {len(lines) - 1} problem(s)"


def test_a_fixture_whose_last_brace_was_cut_says_to_add_it_not_that_it_is_lost(
    tmp_path: Path,
) -> None:
    # named an interrupted write ("the fixture it held is lost: re-record it") whose repair
    # moved the whole fixture aside, where adding the brace back was all it needed
    store = tmp_path / "s.jsonl"
    store.write_bytes(fixture("one").to_line() + fixture("two").to_line()[:-3])  # cut "}}\n"
    folder = fixture_folder(tmp_path)
    three = fixture("three")
    cut = folder / f"{three.key}.json"
    cut.write_bytes(orjson.dumps(three.to_json(), option=orjson.OPT_INDENT_2)[:-1] + b"\n")
    add = "as an edit that cut its end leaves it: add {} at its end (if a write was interrupted"
    code, lines = verify(store)
    assert code == 1 and f"{store}:2: truncated last line: it lacks only its closing }}" in lines[0]
    assert add.format("}}") in lines[0] and lines[0].endswith(f"--repair {store}` to remove it)")
    code, lines = verify(tmp_path / "fold")
    assert code == 1 and f"{cut}: truncated fixture file: it lacks only its closing }}" in lines[0]
    assert add.format("}") in lines[0]
    store.write_bytes(fixture("one").to_line() + fixture("two").to_line()[:-20])  # a cut append
    assert "(an append was interrupted); earlier lines are intact" in verify(store)[1][0]
    store.write_bytes(store.read_bytes()[:-1] + b"}}")  # closers after a text cut short
    assert "lacks only" not in verify(store)[1][0]


def test_a_jsonl_store_renamed_to_json_says_to_rename_it_back(tmp_path: Path) -> None:
    # said only "malformed JSON: unexpected content after document at line 2, column 1"
    store = tmp_path / "s.json"
    store.write_bytes(fixture("one").to_line() + fixture("two").to_line())
    code, lines = verify(store)
    assert code == 1
    assert lines[0] == (
        f"{store}: malformed JSON: unexpected content after document at line 2, column 1: it "
        "holds 2 JSON objects, one a line, as a .jsonl store does, where a .json file holds "
        f"one fixture (a .jsonl store renamed?): rename it to {tmp_path / 's.jsonl'}"
    )
    store.write_bytes(fixture("one").to_line() + b"[]\n")  # no store of JSON Lines
    assert verify(store)[1][0].endswith("unexpected content after document at line 2, column 1")


def test_show_given_a_store_as_its_key_says_to_give_a_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `replaygate show s.jsonl` said "no fixture store: pass --fixtures", and with
    # --fixtures "no fixture with key 's.jsonl'"
    monkeypatch.chdir(tmp_path)
    Path("s.jsonl").write_bytes(fixture("one").to_line())
    fix = "`replaygate show KEY --fixtures s.jsonl`, KEY the 12 hex digits of a fixture's"
    for args in (["s.jsonl"], ["s.jsonl", "--fixtures", "s.jsonl"]):
        done = CliRunner().invoke(main, ["show", *args])
        assert done.exit_code == 2
        assert done.output.startswith("Error: 's.jsonl' is a fixture store, not a key: ")
        assert fix in done.output
    key = fixture("one").key
    assert CliRunner().invoke(main, ["show", key, "--fixtures", "s.jsonl"]).exit_code == 0


def test_a_float_a_tool_wrote_as_an_integer_is_named_where_the_key_no_longer_matches(
    tmp_path: Path,
) -> None:
    # jq 1.6 (`jq -c .`, `jq -S`) writes 1.0 as 1: verify said only that the request "or its
    # key was edited after recording", where nothing seemed edited
    store = tmp_path / "s.jsonl"
    one = {**fixture("one").request, "temperature": 1.0}
    two = {**fixture("two").request, "temperature": 0.0, "top_p": 1.0}
    three = {**fixture("three").request, "temperature": 1.0}
    made = fixture("one")
    written = [Fixture.create(r, [made.response], made.meta) for r in (one, two, three)]
    lines = [orjson.loads(f.to_line()) for f in written]
    lines[2]["request"]["max_tokens"] = 31  # edited as well: no rewrite of numbers alone
    store.write_bytes(b"".join(line(o).replace(b".0,", b",").replace(b".0}", b"}") for o in lines))
    code, said = verify(store)
    assert code == 1
    floats = "(1.0), which a tool rewriting the file wrote as an integer (1), as jq 1.6 does"
    assert f"was recorded with temperature as a float {floats}" in said[0]
    assert f"was recorded with temperature, top_p as floats {floats}" in said[1]
    assert "the request or its key was edited after recording" in said[2]


def test_a_tab_typed_into_a_text_is_named_with_its_escape(tmp_path: Path) -> None:
    # said "malformed JSON: unexpected control character in string at column 104"
    store = tmp_path / "s.jsonl"
    good = fixture("one").to_line()
    store.write_bytes(good.replace(b'"one"', b'"o\tne"') + good.replace(b'"one"', b'"o\x01ne"'))
    code, said = verify(store)
    column = good.index(b'"one"') + 3
    assert code == 1 and said[0] == (
        f"{store}:1: a tab at column {column} inside a text, where JSON writes it as \\t (an "
        "editor that converts spaces to tabs, or a hand edit typed it): write \\t there"
    )
    assert said[1].startswith(f"{store}:2: the control character U+0001 at column {column} ")
    assert said[1].endswith("as \\u0001 (a hand edit typed it): write \\u0001 there")


def test_repairing_a_fixture_whose_last_brace_was_cut_says_how_to_keep_it(
    tmp_path: Path,
) -> None:
    # the repair said of it "the fixture it held is lost: re-record it"
    store = tmp_path / "s.jsonl"
    store.write_bytes(fixture("one").to_line() + fixture("two").to_line()[:-2])  # cut "}\n"
    folder = fixture_folder(tmp_path)
    cut = folder / f"{fixture('three').key}.json"
    cut.write_bytes(orjson.dumps(fixture("three").to_json(), option=orjson.OPT_INDENT_2)[:-1])
    keep = "it lacked only its closing }: to keep its fixture, add } at its end in the backup"
    for path in (store, tmp_path / "fold"):
        done = CliRunner().invoke(main, ["verify", "--repair", str(path)])
        assert done.exit_code == 0 and keep in done.output, done.output
    assert store.with_name("s.jsonl.bak").read_bytes().endswith(b"}")  # one } of two left
    store.write_bytes(fixture("one").to_line() + fixture("two").to_line()[:-30])
    done = CliRunner().invoke(main, ["verify", "--repair", str(store)])
    assert done.exit_code == 0 and "lacked" not in done.output


def test_a_fixture_file_holding_both_sides_of_a_merge_says_to_keep_one(tmp_path: Path) -> None:
    # said only "malformed JSON: unexpected content after document at line 30, column 1"
    folder = fixture_folder(tmp_path)
    one = orjson.dumps(fixture("one").to_json(), option=orjson.OPT_INDENT_2) + b"\n"
    both = folder / f"{fixture('one').key}.json"
    both.write_bytes(one + one.replace(b'"text": "a"', b'"text": "b"'))
    lines = one.count(b"\n") + 1
    code, said = verify(tmp_path / "fold")
    assert code == 1
    assert said[0].endswith(
        f"at line {lines}, column 1: it holds 2 JSON objects one after another "
        "(both sides of a merge kept?), where a .json file holds one fixture: keep one of "
        "them, or record it again"
    )
    both.write_bytes(one + b"[]\n")  # no second object: as it was
    assert verify(tmp_path / "fold")[1][0].endswith(f"after document at line {lines}, column 1")


def test_a_line_cut_and_joined_to_the_next_names_where_the_whole_fixture_starts(
    tmp_path: Path,
) -> None:
    # said only "malformed JSON: unexpected character, expected ',' or '}' at column 41"
    store = tmp_path / "s.jsonl"
    cut = fixture("two").to_line()[:40]
    store.write_bytes(fixture("one").to_line() + cut + fixture("three").to_line())
    code, said = verify(store)
    assert code == 1 and said[0].startswith(f"{store}:2: malformed JSON: ")
    assert said[0].endswith(
        ": a fixture cut short, then a whole one from column 41 (a line cut, by an edit or a "
        "merge, and joined to the next): restore the cut one, or delete columns 1 to 40 and "
        "record it again"
    )
    store.write_bytes(cut + b'{"key": 1}\n')  # no whole fixture after the cut
    assert "cut short" not in verify(store)[1][0]


def test_a_field_edited_in_a_one_fixture_file_is_named_at_its_line(tmp_path: Path) -> None:
    # named the file and the field but no line, where the file is one field a line
    folder = fixture_folder(tmp_path)
    one = fixture("one")
    path = folder / f"{one.key}.json"
    pretty = orjson.dumps(one.to_json(), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
    lines = pretty.decode().splitlines()
    at = next(n for n, text in enumerate(lines, 1) if '"recorded_at"' in text)
    path.write_text(pretty.decode().replace(one.meta["recorded_at"], ""))
    code, shown = verify(tmp_path / "fold")
    assert code == 1 and shown[0].startswith(f"{path}:{at}: meta.recorded_at must be ")
    path.write_bytes(orjson.dumps({**one.to_json(), "meta": {**one.meta, "recorded_at": ""}}))
    assert verify(tmp_path / "fold")[1][0].startswith(f"{path}: meta.recorded_at")  # one line


def test_the_line_of_each_field_of_a_pretty_document_is_found() -> None:
    text = '{\n "a": [\n  1,\n  {"b:c": "d: e", "k\\"q": [[], 2]}\n ],\n "z": {}\n}'
    assert field_lines(text) == {
        "a": 2, "a[0]": 3, "a[1]": 4, "a[1].b:c": 4, 'a[1]["k\\"q"]': 4,
        'a[1]["k\\"q"][0]': 4, 'a[1]["k\\"q"][1]': 4, "z": 6,
    }  # fmt: skip
    assert field_line(text, 'a value at a[1]["k\\"q"][1] and at a[0]') == 4  # the deepest
    assert field_line(text, "z: a word (a, z) that is no path") is None
    assert field_line(text, "a[1].b:c: expected a number") == 4
    assert field_line("]}{", "a.b") is None and field_line(b"\xff", "a.b") is None


def test_fixtures_written_as_one_json_array_say_to_write_one_a_line(tmp_path: Path) -> None:
    # said only "expected a JSON object, got a list"
    store = tmp_path / "s.json"
    items = [orjson.loads(fixture(q).to_line()) for q in ("one", "two")]
    store.write_bytes(orjson.dumps(items))
    code, lines = verify(store)
    assert code == 1
    assert lines[0] == (
        f"{store}: expected a JSON object, got a list of 2 fixture(s), where a store holds "
        "one fixture a line (.jsonl) or a file (.json): write each item on a line of its own "
        "in a .jsonl file"
    )
    store.write_bytes(b"[1, 2]")  # a list of something else: said as before
    assert verify(store)[1][0] == f"{store}: expected a JSON object, got a list"
