"""``replaygate verify``: one line per problem with file:line, exit 1; clean stores pass."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from replaygate import Fixture, FixtureStore, Message, ModelResponse, RecordingModel
from replaygate.cli import long_lists, main
from replaygate.fixtures.fixture import make_meta
from replaygate.http import Exchange, httpx2_client
from replaygate.hygiene.verify import MISSING_META, StoreProblem, verify_store
from replaygate.models.fakes import ScriptedModel
from replaygate.models.providers import to_anthropic_request, to_anthropic_response
from replaygate.sanitize import SanitizeConfig
from replaygate.sim import Simulator
from sdks import anthropic

SETTINGS: dict[str, Any] = {"model": "claude-x", "max_tokens": 32}
AWS = "AKIAIOSFODNN7EXAMPLE"
NO_SANITIZE = SanitizeConfig()


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder store: engine fixtures of two interfaces, HTTP fixtures plain and streamed."""
    root = tmp_path_factory.mktemp("clean") / "fixtures"
    for i, interface in enumerate(["anthropic.messages", "openai.chat.completions"]):
        live = ScriptedModel([ModelResponse(text=f"answer {i}")])
        recorder = RecordingModel(
            live, root, approve_live=True, interface=interface, sanitize=NO_SANITIZE, **SETTINGS
        )
        recorder.complete([Message.user(f"question {i}")], [])
    with Simulator(behavior="echo") as sim:
        exchange = Exchange(root, mode="record-missing", approve_live=True, source="sim")
        hi = [{"role": "user", "content": "hi"}]
        with anthropic.Anthropic(
            api_key="k", base_url=sim.url, http_client=httpx2_client(exchange)
        ) as client:
            client.messages.create(model="m", max_tokens=8, messages=hi)
            with client.messages.stream(model="m", max_tokens=8, messages=hi) as stream:
                stream.get_final_message()
    return root


def verify(*args: str) -> tuple[int, list[str]]:
    result = CliRunner().invoke(main, ["verify", *args])
    return result.exit_code, result.output.splitlines()


def copy(clean: Path, tmp_path: Path) -> Path:
    target = tmp_path / "fixtures"
    shutil.copytree(clean, target)
    return target


def engine_fixture(question: str, answer: str = "a", meta: dict[str, Any] | None = None) -> Fixture:
    request = to_anthropic_request([Message.user(question)], [], **SETTINGS)
    response = to_anthropic_response(ModelResponse(text=answer), model="claude-x")
    if meta is None:
        meta = make_meta("anthropic.messages", "2023-06-01", "hand")
    return Fixture.create(request, [response], meta)


def test_a_clean_store_passes(clean: Path) -> None:
    code, lines = verify(str(clean))
    assert code == 0, lines
    assert lines == ["4 fixture(s) checked, 0 problem(s)"]
    assert verify_store(clean) == (4, [])
    folders = sorted(p.name for p in clean.iterdir() if p.is_dir())
    sdk = next(f for f in folders if f.startswith("anthropic.messages@") and "2023-06-01" not in f)
    # the engine's anthropic-version, the one the SDK sent, OpenAI's
    assert folders == sorted([sdk, "anthropic.messages@2023-06-01", "openai.chat.completions@v1"])


def test_every_problem_is_one_line_with_its_place(clean: Path, tmp_path: Path) -> None:
    root = copy(clean, tmp_path)
    engine = next((root / "anthropic.messages@2023-06-01").glob("*.json"))
    edited = json.loads(engine.read_text())
    edited["request"]["max_tokens"] = 99
    engine.write_text(json.dumps(edited))
    jsonl = root / "more.jsonl"
    secret = engine_fixture(f"my key {AWS}").to_line()
    no_meta = orjson.dumps(
        {k: v for k, v in engine_fixture("no meta").to_json().items() if k != "meta"}
    )
    jsonl.write_bytes(secret + b"{not json\n" + no_meta + b"\n" + b'{"key": "abc", "req')
    code, lines = verify(str(root))
    assert code == 1
    expected_key = Fixture.create(edited["request"], [edited["response"]]).key
    assert lines[2].startswith(f"{jsonl}:2: malformed JSON: unexpected character")
    lines[2] = f"{jsonl}:2: malformed JSON"
    assert lines == [
        f"{engine}: key {edited['key']} does not match its request (expected {expected_key}); "
        "the request or its key was edited after recording: revert the edit, or remove it and "
        "record again (mode rerecord replaces it only where the code sends its request as it "
        "is now)",
        f"{jsonl}:1: AWS access key id at request.messages[0].content[0].text",
        f"{jsonl}:2: malformed JSON",
        f"{jsonl}:3: {MISSING_META}",
        f"{jsonl}:4: truncated last line (an append was interrupted); earlier lines are intact. "
        f"Run `replaygate verify --repair {jsonl}` to remove only this partial tail.",
        "6 fixture(s) checked, 5 problem(s)",
    ]


def test_repair_cuts_the_partial_tail_and_keeps_the_rest(tmp_path: Path) -> None:
    store = tmp_path / "s.jsonl"
    good = engine_fixture("q").to_line()
    store.write_bytes(good + b'{"key": "abc", "req')
    code, lines = verify(str(store), "--repair")
    assert code == 0, lines
    assert lines[0].endswith("removed a partial tail of 19 bytes (backup: " + str(store) + ".bak)")
    assert store.read_bytes() == good


def test_missing_meta_is_allowed_only_when_asked_and_incomplete_meta_never(tmp_path: Path) -> None:
    store = tmp_path / "seed.jsonl"
    seed = engine_fixture("seed", meta={})
    seed_line = orjson.dumps({"key": seed.key, "request": seed.request, "response": seed.response})
    half = engine_fixture("half", meta={"interface": "anthropic.messages", "source": "staging"})
    store.write_bytes(seed_line + b"\n" + half.to_line())
    code, lines = verify(str(store))
    assert code == 1 and lines[0] == f"{store}:1: {MISSING_META}"
    code, lines = verify(str(store), "--allow-missing-meta")
    assert code == 1
    assert lines == [
        f"{store}:2: meta.interface_version is missing",
        f"{store}:2: meta.recorded_at is missing",
        f"{store}:2: meta.replaygate_version is missing",
        f"{store}:2: meta.source 'staging' is not one of live, sim, hand, scripted, vcrpy",
        "2 fixture(s) checked, 4 problem(s)",
    ]
    assert verify_store(store, require_meta=False)[0] == 2


def test_conflicting_duplicates_are_reported_identical_ones_are_not(tmp_path: Path) -> None:
    store = tmp_path / "dup.jsonl"
    first = engine_fixture("same", "one")
    store.write_bytes(first.to_line() + first.to_line() + engine_fixture("same", "two").to_line())
    code, lines = verify(str(store))
    assert code == 1
    assert lines == [
        f"{store}:3: request of key {first.key} recorded twice with different responses "
        f"(also at {store}:1); keep one",
        "3 fixture(s) checked, 1 problem(s)",
    ]


def test_a_response_that_cannot_be_replayed_is_reported(clean: Path, tmp_path: Path) -> None:
    store = tmp_path / "bad.jsonl"
    broken = engine_fixture("q").to_json()
    del broken["response"]["content"]
    two = engine_fixture("q2").to_json()
    two["responses"] = [two.pop("response"), {"content": "not a list"}]
    http = next(f for f in FixtureStore.open(clean) if "method" in f.request).to_json()
    http["response"]["status"] = 999
    store.write_bytes(b"".join(orjson.dumps(f) + b"\n" for f in (broken, two, http)))
    code, lines = verify(str(store))
    assert code == 1
    assert lines == [
        f"{store}:1: response is not a valid anthropic.messages response: response.content: "
        "missing field",
        f"{store}:2: responses[1] is not a valid anthropic.messages response: "
        "responses[1].content: expected list, got str",
        f"{store}:3: response is not an HTTP response: response.status: expected an HTTP "
        "status, got 999",
        "3 fixture(s) checked, 3 problem(s)",
    ]


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (lambda r: r.pop("headers"), "request.headers: missing; every HTTP request's envelope"),
        (lambda r: r.pop("body"), "request: holds no body; every HTTP request's envelope"),
        (lambda r: r.update(text="hi"), "request: holds body and text both; every"),
        (lambda r: r.update(method="post"), "request.method: 'post' is not upper case"),
        (lambda r: r.update(query="a=1"), "request.query: no HTTP request's envelope holds"),
    ],
    ids=["no-headers", "no-body", "two-bodies", "lower-case-method", "unknown-field"],
)
def test_an_http_request_no_send_can_match_is_reported(
    clean: Path, tmp_path: Path, edit: Any, said: str
) -> None:
    """A fixture written by hand with its key computed from its request, but lacking a
    field every envelope holds ("headers": {}, "body": null), passed verify, and every
    replay of it missed."""
    http = next(f for f in FixtureStore.open(clean) if "method" in f.request)
    request = json.loads(json.dumps(http.request))
    edit(request)
    store = tmp_path / "hand.jsonl"
    store.write_bytes(Fixture.create(request, list(http.responses), http.meta).to_line())
    code, lines = verify(str(store))
    assert code == 1
    assert lines[0].startswith(f"{store}:1: {said}"), lines
    assert lines[0].endswith(", so no request sent can match this fixture"), lines


def test_a_fixture_in_the_folder_of_another_version_is_reported(tmp_path: Path) -> None:
    root = tmp_path / "fixtures"
    loc = FixtureStore.open(root).put(engine_fixture("q"))
    wrong = root / "anthropic.messages@2023-01-01" / loc.file.name
    wrong.parent.mkdir()
    loc.file.rename(wrong)
    code, lines = verify(str(root))
    assert code == 1
    assert lines[0] == (
        f"{wrong}: stored in folder anthropic.messages@2023-01-01/ but its meta says "
        "anthropic.messages@2023-06-01: move it, or re-record it"
    )


def test_a_secret_split_across_stream_events_is_reported(clean: Path, tmp_path: Path) -> None:
    root = copy(clean, tmp_path)
    streamed = next(p for p in root.rglob("*.json") if '"events"' in p.read_text())
    fixture = json.loads(streamed.read_text())
    events = fixture["response"]["events"]
    i = next(i for i, e in enumerate(events) if "text_delta" in e["data"])
    token = "ghp_" + "Zq8Xv7Wm2Kp9Rt4Ly6Hb8Nc3Jd5Fg1Ss0Aa9b"
    halves = []
    for part in (token[:15], token[15:]):
        data = json.loads(events[i]["data"])
        data["delta"]["text"] = part
        halves.append({**events[i], "data": json.dumps(data)})
    events[i : i + 1] = halves
    streamed.write_text(json.dumps(fixture))
    code, lines = verify(str(root))
    assert code == 1
    assert lines[0] == f"{streamed}: GitHub token at response.events[{i}..{i + 1}].data"


def test_a_missing_path_and_an_empty_folder(tmp_path: Path) -> None:
    code, lines = verify(str(tmp_path / "nope"))
    assert (code, lines) == (2, [f"Error: {tmp_path / 'nope'}: no such file or folder"])
    (tmp_path / "empty").mkdir()
    code, lines = verify(str(tmp_path / "empty"))  # it checked nothing, and passed
    assert code == 2
    assert lines[0].startswith(f"Error: {tmp_path / 'empty'}: holds no fixture store file")


def test_problems_print_file_and_line() -> None:
    assert str(StoreProblem("a.jsonl", 3, "bad")) == "a.jsonl:3: bad"
    assert str(StoreProblem("a.json", 0, "bad")) == "a.json: bad"


def test_a_bad_sanitize_config_is_named_with_its_line(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool]\nreplaygate = 5\n")
    store = tmp_path / "store.jsonl"
    store.write_bytes(b"")
    count, problems = verify_store(store)
    assert count == 0
    (problem,) = problems
    assert (problem.file, problem.line, problem.refused) == (
        str(tmp_path / "pyproject.toml"),
        2,
        True,
    )
    assert problem.reason.startswith("tool.replaygate: ")


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        (b'{"key":\x00"abc"}', "a NUL byte at column 8, which JSON text never holds: delete it"),
        (b'{"key":"a\x00b"}', "a NUL byte at column 10, which JSON text never holds: delete it"),
        (
            b'{"key":NaN}',
            "NaN at column 8 is not a number JSON can hold: write null (or the value as a "
            "string), or record the fixture again",
        ),
        (
            b'{"key":-Infinity}',
            "-Infinity at column 8 is not a number JSON can hold: write null (or the value as "
            "a string), or record the fixture again",
        ),
        (
            b"[" * 2000 + b"]" * 2000,
            "nested too deeply to read (more than 254 levels of objects and lists), at column 1026",
        ),
        (b'{"key":1,}', "malformed JSON: trailing comma is not allowed at column 9"),
    ],
    ids=["nul-between", "nul-in-text", "nan", "minus-infinity", "deep", "comma"],
)
def test_a_line_json_does_not_allow_is_named_by_what_stands_at_its_column(
    tmp_path: Path, bad: bytes, reason: str
) -> None:
    # they were "malformed JSON: unexpected character ...: line 1 column 8 (char 7)"
    store = tmp_path / "s.jsonl"
    store.write_bytes(engine_fixture("kept").to_line() + bad + b"\n")
    code, lines = verify(str(store))
    assert code == 1 and lines == [f"{store}:2: {reason}", "1 fixture(s) checked, 1 problem(s)"]


def test_on_a_terminal_many_problems_show_the_first_and_say_how_to_see_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "rc.jsonl"
    with FixtureStore.open(store) as opened:
        for i in range(3):
            opened.put(engine_fixture(f"question {i}"))
    store.write_text(store.read_text(encoding="utf-8").replace("question", "edited"), "utf-8")
    monkeypatch.setattr(long_lists, "SHOWN", 2)
    piped = verify(str(store))
    assert piped[0] == 1 and len(piped[1]) == 4  # every problem, and the count
    monkeypatch.setattr(long_lists, "on_terminal", lambda: True)
    code, lines = verify(str(store))
    assert code == 1
    assert lines[:2] == piped[1][:2]
    assert lines[2].startswith("... and 1 more problem(s) not shown on a terminal: pipe")
    assert lines[3] == "3 fixture(s) checked, 3 problem(s)"


def test_a_request_an_editor_put_in_another_unicode_form_is_named_so(tmp_path: Path) -> None:
    recorded = engine_fixture("caf\u00e9?")  # NFC, as it was sent
    line = orjson.loads(recorded.to_line())
    line.pop("seal", None)
    store = tmp_path / "s.jsonl"
    store.write_bytes(orjson.dumps(line).replace("\u00e9".encode(), "e\u0301".encode()) + b"\n")
    code, lines = verify(str(store))
    assert code == 1
    assert lines[0].startswith(f"{store}:1: key {recorded.key} does not match its request")
    form = "; the request's text is no longer in the Unicode form it was recorded in, NFC "
    assert form in lines[0]
