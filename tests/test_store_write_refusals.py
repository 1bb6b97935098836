"""The store's writer refuses, before anything is written, what ``verify`` would refuse
once stored: a fixture holding no response but ``null``, a ``null`` sample; and a value
with no JSON form in a response or the meta is named as a refused write, not as a
request that cannot be fingerprinted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from replaygate import Fixture, FixtureStore
from replaygate.errors import CanonicalFormError, UnstorableValueError
from replaygate.fixtures.fingerprint import digest
from replaygate.fixtures.fixture import make_meta
from replaygate.fixtures.store import record_response
from replaygate.hygiene.verify import verify_store
from wire_shapes import text_answer

META = make_meta("anthropic.messages", "2023-06-01", "hand", recorded_at="2025-01-01T00:00:00Z")
NOTHING = "no response recorded (response, or every item of responses, is null): nothing to replay"
NULL_SAMPLE = (
    "response is null: a sample line records a response, so this one only hides the sample it names"
)


def ask(question: str) -> dict[str, Any]:
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 64,
        "messages": [{"role": "user", "content": question}],
    }


def answer(text: str = "2", **usage: Any) -> dict[str, Any]:
    reply = text_answer(text)
    reply["usage"].update(usage)
    return reply


def report(path: Path) -> list[str]:
    return [str(problem) for problem in verify_store(path)[1]]


@pytest.fixture(params=["s.jsonl", "store"], ids=["jsonl", "folder"])
def store_path(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """A store of each layout holding one fixture, ``a``, with one sample recorded."""
    name: str = request.param
    path = tmp_path / name
    with FixtureStore.open(path) as store:
        store.put(Fixture.create(ask("a"), [answer("kept")], META))
    return path


def snapshot(path: Path) -> dict[str, bytes]:
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    return {str(file): file.read_bytes() for file in files if not file.name.endswith(".lock")}


@pytest.mark.parametrize(
    ("responses", "where"),
    [([None], "response"), ([None, None], "responses"), ([], "responses")],
)
def test_a_fixture_with_no_response_but_null_is_refused_and_nothing_is_written(
    store_path: Path, responses: list[Any], where: str
) -> None:
    before = snapshot(store_path)
    with FixtureStore.open(store_path) as store, pytest.raises(UnstorableValueError) as caught:
        store.put(Fixture.create(ask("b"), responses, META))
    assert str(caught.value) == (
        f"refusing to write fixture: {NOTHING} at {where}; nothing was written"
    )
    assert snapshot(store_path) == before
    assert report(store_path) == []


def test_the_refusal_is_the_reason_verify_gives_for_such_a_fixture(tmp_path: Path) -> None:
    path = tmp_path / "hand.jsonl"
    path.write_bytes(Fixture.create(ask("b"), [None], META).to_line())
    assert report(path) == [f"{path}:1: {NOTHING} (a hand edit?); re-record the fixture"]


def test_a_null_first_sample_of_a_new_request_is_refused(store_path: Path) -> None:
    before = snapshot(store_path)
    with FixtureStore.open(store_path) as store, pytest.raises(UnstorableValueError) as caught:
        record_response(store, ask("b"), None, sample=2, meta=META)
    assert str(caught.value) == (
        f"refusing to write fixture: {NOTHING} at responses; nothing was written"
    )
    assert snapshot(store_path) == before


def test_a_null_sample_of_a_recorded_request_is_refused_and_its_answer_kept(
    store_path: Path,
) -> None:
    with FixtureStore.open(store_path) as store:
        record_response(store, ask("a"), answer("second"), sample=1, meta=META)
    before = snapshot(store_path)
    for sample in (0, 1, 2):
        with FixtureStore.open(store_path) as store, pytest.raises(UnstorableValueError) as caught:
            record_response(store, ask("a"), None, sample=sample, meta=META)
        assert str(caught.value) == (
            f"refusing to write fixture: {NULL_SAMPLE} at responses[{sample}]; nothing was written"
        )
    assert snapshot(store_path) == before
    with FixtureStore.open(store_path) as store:
        kept = store.lookup(ask("a"))
    assert kept is not None and kept.responses == (answer("kept"), answer("second"))
    assert report(store_path) == []


def test_the_refusal_of_a_null_sample_is_the_reason_verify_gives_for_its_line(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.jsonl"
    with FixtureStore.open(path) as store:
        store.put(Fixture.create(ask("a"), [answer()], META))
    with path.open("ab") as file:  # the sample line the writer refuses to append
        file.write(b'{"key":"%s","sample":1,"response":null}\n' % digest(ask("a")).encode())
    assert report(path) == [
        f"{path}:2: {NULL_SAMPLE} (a hand edit?); delete the line, or re-record the sample"
    ]


def test_null_beside_recorded_answers_is_kept_as_a_recording_leaves_it(store_path: Path) -> None:
    # A sample that never sent the request holds null, before or among recorded ones.
    with FixtureStore.open(store_path) as store:
        store.put(Fixture.create(ask("b"), [None, answer("b1")], META))
        record_response(store, ask("c"), answer("c2"), sample=2, meta=META)
        record_response(store, ask("a"), answer("a3"), sample=3, meta=META)
    with FixtureStore.open(store_path) as store:
        found = {q: store.lookup(ask(q)) for q in "abc"}
    assert {q: f.responses for q, f in found.items() if f is not None} == {
        "a": (answer("kept"), None, None, answer("a3")),
        "b": (None, answer("b1")),
        "c": (None, None, answer("c2")),
    }
    assert report(store_path) == []


@pytest.mark.parametrize(
    ("bad", "where", "reason"),
    [
        (
            {"response": answer(input_tokens=float("nan"))},
            "response.usage.input_tokens",
            "nan is not valid JSON",
        ),
        (
            {"responses": [answer(), answer(text="\ud800")]},
            "responses[1].content[0].text",
            "text is not valid Unicode (surrogates not allowed at index 0)",
        ),
        ({"meta": {**META, "note": float("inf")}}, "meta.note", "inf is not valid JSON"),
    ],
)
def test_a_value_with_no_json_form_outside_the_request_is_named_as_a_refused_write(
    store_path: Path, bad: dict[str, Any], where: str, reason: str
) -> None:
    responses = bad.get("responses", [bad.get("response", answer())])
    fixture = Fixture.create(ask("b"), responses, bad.get("meta", META))
    before = snapshot(store_path)
    with FixtureStore.open(store_path) as store, pytest.raises(CanonicalFormError) as caught:
        store.put(fixture)
    assert (caught.value.path, caught.value.reason) == (where, reason)
    assert (
        str(caught.value) == f"refusing to write fixture: {reason} at {where}; nothing was written"
    )
    assert snapshot(store_path) == before


def test_a_sample_with_no_json_form_is_named_at_its_sample(store_path: Path) -> None:
    before = snapshot(store_path)
    with FixtureStore.open(store_path) as store, pytest.raises(CanonicalFormError) as caught:
        record_response(store, ask("a"), answer(output_tokens=float("nan")), sample=1)
    assert str(caught.value) == (
        "refusing to write fixture: nan is not valid JSON at responses[1].usage.output_tokens; "
        "nothing was written"
    )
    assert snapshot(store_path) == before


def test_a_request_with_no_json_form_still_cannot_be_fingerprinted() -> None:
    with pytest.raises(CanonicalFormError) as caught:
        Fixture.create({**ask("b"), "temperature": float("nan")}, [answer()], META)
    assert str(caught.value) == "cannot fingerprint request: nan is not valid JSON at temperature"


@pytest.mark.parametrize("sample", [10_000, -1, True])
@pytest.mark.parametrize("recorded", [False, True], ids=["new", "recorded"])
def test_a_sample_index_no_store_holds_is_refused_before_writing(
    tmp_path: Path, sample: int, recorded: bool
) -> None:
    # 10000 was appended, and every later open of the store failed on its line; -1 was
    # stored as sample 0
    path = tmp_path / "s.jsonl"
    with FixtureStore.open(path) as store:
        if recorded:
            store.put(Fixture.create(ask("a"), [answer()], META))
        before = path.read_bytes() if path.exists() else b""
        with pytest.raises(UnstorableValueError) as caught:
            record_response(store, ask("a"), answer("late"), sample=sample, meta=META)
    assert str(caught.value) == (
        f"refusing to write fixture: a sample index must be an integer from 0 to 9999, got "
        f"{sample!r} at sample; nothing was written"
    )
    assert (path.read_bytes() if path.exists() else b"") == before
    assert len(FixtureStore.open(path)) == int(recorded)


@pytest.mark.parametrize(
    ("request_", "responses", "meta", "problem"),
    [
        (["a", "list"], [answer()], META, "request must be a JSON object (a dict), got list"),
        (None, [answer()], META, "request must be a JSON object (a dict), got NoneType"),
        (
            ask("a"),
            answer(),
            META,
            "responses must be a list, one response per sample, got dict (a single response "
            "is [response])",
        ),
        (ask("a"), [answer()], "x", "meta must be a JSON object (a dict) or None, got str"),
    ],
    ids=["a list request", "no request", "one response given alone", "a text meta"],
)
def test_a_fixture_of_parts_no_line_holds_is_refused_as_it_is_made(
    request_: Any, responses: Any, meta: Any, problem: str
) -> None:
    # a list request was written, and every later open of the store failed on its line;
    # a response given alone was read key by key as samples
    with pytest.raises(TypeError) as caught:
        Fixture.create(request_, responses, meta)
    assert str(caught.value) == f"Fixture.create: {problem}"


def test_a_fixture_made_without_create_is_checked_as_it_is_written(store_path: Path) -> None:
    before = snapshot(store_path)
    with FixtureStore.open(store_path) as store:
        with pytest.raises(TypeError, match=r"^refusing to write fixture: request must be a "):
            store.put(Fixture(digest(["x"])[:12], ["x"], (answer(),), META))  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"^put: expected a Fixture \(Fixture.create\), got"):
            store.put({"key": "k"})  # type: ignore[arg-type]
    assert snapshot(store_path) == before
