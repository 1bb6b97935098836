"""Strict replay and approved recording at the engine boundary, end to end."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import orjson
import pytest

from replaygate import (
    Fixture,
    FixtureMismatchError,
    FixtureStore,
    LiveCallNotApproved,
    Message,
    ModelResponse,
    RecordingModel,
    ReplayModel,
    ToolCall,
    ToolSpec,
    Usage,
    __version__,
    fixture_key,
    to_anthropic_request,
    to_openai_request,
)
from replaygate.errors import FixtureFormatError, StoreWriteError
from replaygate.examples.research_copilot import Corpus, Document, build_registry, run
from replaygate.fixtures.diff import field_diff
from replaygate.fixtures.fixture import make_meta
from replaygate.fixtures.mismatch import (
    BASE_PATH_NOTE,
    FROM_SIMULATOR,
    IN_SET_ORDER,
    KEY_FOR_ANOTHER_HOST,
    MIRASCOPE_ROUTER_NOTE,
    MISS_TEXT_NOTE,
    PYDANTIC_LINK_NOTE,
    PYTEST_SIMULATOR_OPTION,
    SET_TEXT_NOTE,
    SIMULATOR_OPTIONS,
    mismatch_error,
    miss_text_note,
)
from replaygate.fixtures.nearest import features, nearest
from replaygate.fixtures.session import FixtureSession
from replaygate.fixtures.tool_results import (
    CALL_ID_LEAD,
    CALL_ID_NOTE,
    IN_CALL_IDS,
    IN_TOOL_RESULTS,
    PYDANTIC_AI_CALL_IDS,
    TOOL_FAILED_NOTE,
    TOOL_MISS_NOTE,
    TOOL_RESULT_LEAD,
    TOOL_RESULT_NOTE,
)
from replaygate.http import Exchange
from replaygate.pytest_plugin.caught import CHECKED
from replaygate.pytest_plugin.misses import miss_of

MODEL = "claude-sonnet-4-5"
MAX_TOKENS = 1024
RAG_TEXT = (
    "RAG 即检索增强生成：先检索外部语料，再把命中片段作为上下文交给模型，让回答有据可依。"
    "检索质量决定上限，生成只负责组织语言。"
)
CORPUS = Corpus(
    [
        Document("doc-rag", "RAG", RAG_TEXT),
        Document(
            "doc-eval", "Evaluation", "Evaluation scores agent answers against expected facts."
        ),
        Document(
            "doc-tools", "Tool use", "Tool use lets a model call functions with JSON arguments."
        ),
    ]
)


# -- the seed scenario (sections 12.2.4 and 12.2.5) ------------------------------------


def _text(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text}]


def _tool_use(call_id: str, name: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"type": "tool_use", "id": call_id, "name": name, "input": arguments}]


def _answer(content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    return {
        "id": "msg_hand",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 42, "output_tokens": 18},
    }


def seed_fixtures(question: str, system: str) -> list[Fixture]:
    """Three hand-made fixtures: search RAG, fetch doc-rag, answer citing it."""
    registry = build_registry(CORPUS)
    tools = [
        {"name": s.name, "description": s.description, "input_schema": dict(s.input_schema)}
        for s in registry.specs
    ]
    search_result = registry.execute(ToolCall("toolu_01", "search_corpus", {"q": "RAG"})).content
    fetch_result = registry.execute(
        ToolCall("toolu_02", "fetch_doc", {"doc_id": "doc-rag"})
    ).content
    turns: list[dict[str, Any]] = [{"role": "user", "content": _text(question)}]
    responses = [
        _answer(_tool_use("toolu_01", "search_corpus", {"q": "RAG"}), "tool_use"),
        _answer(_tool_use("toolu_02", "fetch_doc", {"doc_id": "doc-rag"}), "tool_use"),
        _answer(_text("RAG 是检索增强生成 [doc-rag]。"), "end_turn"),
    ]
    results = [("toolu_01", search_result), ("toolu_02", fetch_result)]
    fixtures = []
    for i, response in enumerate(responses):
        request = {
            "model": MODEL,
            "max_tokens": MAX_TOKENS,
            "system": system,
            "messages": json.loads(json.dumps(turns)),
            "tools": tools,
        }
        fixtures.append(Fixture.create(request, [response], {"source": "hand"}))
        if i < 2:
            call_id, result = results[i]
            turns.append({"role": "assistant", "content": response["content"]})
            turns.append(
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": call_id, "content": result}],
                }
            )
    return fixtures


SCENARIOS = [
    pytest.param(
        "What is RAG?", "RAG, what is it?", "You are a careful research assistant.", id="en"
    ),
    pytest.param("什么是 RAG？", "RAG 是什么？", "你是严谨的研究助手。", id="zh"),
]


def seed_store(tmp_path: Path, question: str, system: str) -> Path:
    path = tmp_path / "fixtures.jsonl"
    path.write_bytes(b"".join(f.to_line() for f in seed_fixtures(question, system)))
    return path


def replay(path: Path, question: str, system: str) -> tuple[str, list[str], ReplayModel]:
    model = ReplayModel(path, model=MODEL, max_tokens=MAX_TOKENS, system=system)
    result = run(model, build_registry(CORPUS), question)
    return result.final, [s.detail for s in result.steps], model


@pytest.mark.parametrize(("question", "reworded", "system"), SCENARIOS)
def test_seed_scenario_replays_identically_twice(
    tmp_path: Path, question: str, reworded: str, system: str
) -> None:
    path = seed_store(tmp_path, question, system)
    first = replay(path, question, system)
    second = replay(path, question, system)
    assert first[:2] == second[:2]
    final, trace, model = first
    assert final == "RAG 是检索增强生成 [doc-rag]。"
    assert trace[0].startswith('search_corpus({\'q\': \'RAG\'}) -> {"hits": [{"doc_id": "doc-rag"')
    assert trace[1].startswith("fetch_doc({'doc_id': 'doc-rag'}) -> ")
    assert RAG_TEXT in trace[1]
    assert trace[2] == final
    assert len(model.calls) == 3
    messages, tools = model.calls[0]
    assert messages == (Message.user(question),)
    assert tools == build_registry(CORPUS).specs
    assert [len(m) for m, _ in model.calls] == [1, 3, 5]


@pytest.mark.parametrize(("question", "reworded", "system"), SCENARIOS)
def test_seed_scenario_reworded_question_raises_with_the_field_diff(
    tmp_path: Path, question: str, reworded: str, system: str
) -> None:
    path = seed_store(tmp_path, question, system)
    first = seed_fixtures(question, system)[0]
    model = ReplayModel(path, model=MODEL, max_tokens=MAX_TOKENS, system=system)
    with pytest.raises(FixtureMismatchError) as caught:
        run(model, build_registry(CORPUS), reworded)
    err = caught.value
    wanted = to_anthropic_request(
        [Message.user(reworded)],
        build_registry(CORPUS).specs,
        model=MODEL,
        max_tokens=MAX_TOKENS,
        system=system,
    )
    key = fixture_key(wanted)
    diff_line = f"messages[0].content[0].text: {question!r} != {reworded!r}"
    assert err.key == key
    assert err.store == str(path)
    assert err.differences == (diff_line,)
    text = str(err)
    assert f"key {key} not in {path} (3 fixtures)" in text
    assert f"nearest recorded request: key {first.key} at {path}:1 (recorded != requested)" in text
    assert f"  {diff_line}" in text
    assert "re-record" in text
    assert len(model.calls) == 1  # the failing call is kept too


def test_seed_fixture_line_replays_as_it_is(tmp_path: Path) -> None:
    line: dict[str, Any] = {
        "key": "",
        "request": {
            "model": MODEL,
            "max_tokens": MAX_TOKENS,
            "system": "你是严谨的研究助手。",
            "messages": [{"role": "user", "content": [{"type": "text", "text": "什么是 RAG？"}]}],
            "tools": [
                {
                    "name": "search_corpus",
                    "description": "在本地语料里检索",
                    "input_schema": {"type": "object", "properties": {}},
                }
            ],
        },
        "response": _answer(_tool_use("toolu_01", "search_corpus", {"q": "RAG"}), "tool_use"),
    }
    # The key as seed 000's fixture_key computes it: sha256 of the sort_keys dump, 12 digits.
    canon = json.dumps(line["request"], sort_keys=True, ensure_ascii=False)
    line["key"] = hashlib.sha256(canon.encode()).hexdigest()[:12]
    path = tmp_path / "seed.jsonl"
    path.write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    model = ReplayModel(path, model=MODEL, max_tokens=MAX_TOKENS, system="你是严谨的研究助手。")
    response = model.complete(
        [Message.user("什么是 RAG？")], [ToolSpec("search_corpus", "在本地语料里检索")]
    )
    assert response.tool_calls == (ToolCall("toolu_01", "search_corpus", {"q": "RAG"}),)


def test_a_missing_store_says_so(tmp_path: Path) -> None:
    model = ReplayModel(tmp_path / "none.jsonl", model=MODEL, max_tokens=8)
    with pytest.raises(FixtureMismatchError) as caught:
        model.complete([Message.user("hi")], [])
    assert "(0 fixtures)" in str(caught.value)
    assert f"there is no store at {tmp_path / 'none.jsonl'}: record it first" in str(caught.value)
    assert not (tmp_path / "none.jsonl").exists()


def test_a_missing_relative_store_names_the_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "tests").mkdir()
    monkeypatch.chdir(tmp_path / "tests")  # `cd tests; pytest`, the store named from above
    model = ReplayModel("answers.jsonl", model=MODEL, max_tokens=8)
    with pytest.raises(FixtureMismatchError) as caught:
        model.complete([Message.user("hi")], [])
    assert (
        "there is no store at answers.jsonl (a relative path, read from the working folder, "
        f"{tmp_path / 'tests'}): record it first"
    ) in str(caught.value)


@pytest.mark.slow  # makes a git repository with a sparse checkout
def test_a_store_left_out_of_a_sparse_checkout_is_named_as_one(tmp_path: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.name=T", "-c", "user.email=t@e", *args],
                       cwd=tmp_path, capture_output=True, check=True)  # fmt: skip

    (tmp_path / "fixtures").mkdir()
    (tmp_path / "fixtures" / "rc.jsonl").write_text("", encoding="utf-8")
    git("init", "-q", "--template=")
    git("add", "-A")
    git("commit", "-q", "-m", "fixtures")
    git("sparse-checkout", "set", "--no-cone", "/*", "!/fixtures/")
    model = ReplayModel(tmp_path / "fixtures" / "rc.jsonl", model=MODEL, max_tokens=8)
    with pytest.raises(FixtureMismatchError) as caught:
        model.complete([Message.user("hi")], [])
    assert "record it first" not in str(caught.value)
    assert (
        "git holds it, but this sparse checkout leaves it out: run `git sparse-checkout add "
        "/fixtures/rc.jsonl` (from the repository's top folder), not a recording"
    ) in str(caught.value)
    # recording it anew would pay again for answers the committed file holds, into a
    # new file in its place: refused as the recording opens
    with pytest.raises(StoreWriteError) as refused:
        FixtureSession(tmp_path / "fixtures" / "rc.jsonl", mode="record-missing", approve_live=True)
    assert str(refused.value).endswith(
        "rc.jsonl: cannot record here: git holds it, but this sparse checkout leaves it out: "
        "run `git sparse-checkout add /fixtures/rc.jsonl` (from the repository's top folder) "
        "(nothing was sent)"
    )
    assert not (tmp_path / "fixtures").exists()
    # in cone mode, git's default, `add` takes the folder (a file is refused there)
    (tmp_path / "other").mkdir()
    git("sparse-checkout", "set", "--cone", "other")
    with pytest.raises(FixtureMismatchError) as coned:
        model.complete([Message.user("hi")], [])
    assert "run `git sparse-checkout add fixtures` (from the repository's" in str(coned.value)


@pytest.mark.slow  # makes a git repository with a sparse checkout
def test_a_folder_store_s_fixture_file_left_out_of_a_sparse_checkout_is_named(
    tmp_path: Path,
) -> None:
    # the miss said to re-record, as if the request had changed, and a recording paid for
    # the answer again into a new file in the place of the one git holds
    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.name=T", "-c", "user.email=t@e", *args],
                       cwd=tmp_path, capture_output=True, check=True)  # fmt: skip

    folder = tmp_path / "fixtures"
    first, *others = seed_fixtures("What is RAG?", "S")
    with FixtureStore.open(folder) as store:
        for fixture in (first, *others):
            store.put(fixture)
    git("init", "-q", "--template=")
    git("add", "-A")
    git("commit", "-q", "-m", "fixtures")
    [held] = folder.rglob(f"{first.key}.json")
    name = held.relative_to(tmp_path).as_posix()
    git("sparse-checkout", "set", "--no-cone", "/*", f"!/{name}")
    assert not held.exists()
    said = str(mismatch_error(FixtureStore.open(folder), first.request, first.key))
    assert "If the change was meant" not in said
    told = (
        f"git holds its fixture at {held}, but this sparse checkout leaves it out: run `git "
        f"sparse-checkout add /{name}` (from the repository's top folder)"
    )
    assert f"{told}, not a recording" in said
    session = FixtureSession(folder, mode="record-missing", approve_live=True)
    with pytest.raises(StoreWriteError) as refused:
        session.reserve(first.request, "anthropic.messages", "2023-06-01")
    assert str(refused.value) == f"{folder}: cannot record here: {told} (nothing was sent)"


@pytest.mark.parametrize(
    ("messages", "tools", "named"),
    [
        ("hi", [], "messages: expected a list of Message, got str"),
        (None, [], "messages: expected a list of Message, got NoneType"),  # was not iterable
        ([Message.user("hi")], None, "tools: expected a list of ToolSpec, got NoneType"),
        ([{"role": "user", "content": "hi"}], [], "messages[0]: expected a Message"),
        ([Message.user("hi"), "more"], [], "messages[1]: expected a Message"),
        ([Message.user("hi")], [{"name": "search"}], "tools[0]: expected a ToolSpec"),
    ],
)
def test_a_conversation_in_another_shape_is_refused_naming_the_item(
    tmp_path: Path, messages: Any, tools: Any, named: str
) -> None:
    # a provider's wire dicts ended in "'dict' object has no attribute 'role'"
    model = ReplayModel(tmp_path / "none.jsonl", model=MODEL, max_tokens=8)
    with pytest.raises(TypeError) as caught:
        model.complete(messages, tools)
    assert str(caught.value).startswith(named)
    assert model.raised == []  # a mistake in the call, not a miss of the store


def test_an_empty_store_says_so(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_bytes(b"")
    model = ReplayModel(tmp_path / "empty.jsonl", model=MODEL, max_tokens=8)
    with pytest.raises(FixtureMismatchError, match="the store is empty: record it first"):
        model.complete([Message.user("hi")], [])


def test_a_request_that_is_not_an_object_has_nothing_to_compare_with(tmp_path: Path) -> None:
    path = seed_store(tmp_path, "What is RAG?", "S")
    err = mismatch_error(FixtureStore.open(path), ["not", "an", "object"], "0123456789ab")
    assert "key 0123456789ab not in" in str(err) and "(3 fixtures)" in str(err)
    assert "no recorded request to compare it with" in str(err)
    assert err.differences == ()


PYTEST_RERECORD = "`pytest 't.py::t' --replaygate-record-mode=record-missing`"


PYTEST = {"rerecord": PYTEST_RERECORD, "from_simulator": PYTEST_SIMULATOR_OPTION}


@pytest.mark.parametrize(
    ("source", "given", "said"),
    [
        ("sim", {}, FROM_SIMULATOR.format(how=SIMULATOR_OPTIONS)),
        ("sim", PYTEST, FROM_SIMULATOR.format(how=PYTEST_SIMULATOR_OPTION)),
        ("live", {}, None),
        ("sim", {"rerecord": PYTEST_RERECORD[:-1] + " --replaygate-simulator=echo`"}, None),
    ],
)
def test_a_miss_says_when_its_nearest_came_from_the_simulator(
    tmp_path: Path, source: str, given: dict[str, str], said: str | None
) -> None:
    path = tmp_path / "s.jsonl"
    request = to_anthropic_request([Message.user("q")], [], model=MODEL, max_tokens=8)
    meta = make_meta("anthropic.messages", "2023-06-01", source)
    FixtureStore.open(path).put(Fixture.create(request, [_answer(_text("a"), "end_turn")], meta))
    changed = {**request, "max_tokens": 9}
    text = str(mismatch_error(FixtureStore.open(path), changed, "0123456789ab", **given))
    assert "max_tokens: 8 != 9" in text
    last = text.splitlines()[-1]
    if said is None:
        assert last.startswith("If the change was meant") and "simulator (meta" not in text
    else:
        assert last == said


GROUP_KEY = "agents-sdk:group:a18603086e5bdf9df88ccc9f5a083fed"
RESPONSES = "/v1/responses"


@pytest.mark.parametrize(
    ("recorded", "route", "requested", "told"),
    [
        (None, RESPONSES, GROUP_KEY, True),  # recorded through OPENAI_BASE_URL on the simulator
        (GROUP_KEY, RESPONSES, None, True),
        (GROUP_KEY, RESPONSES, GROUP_KEY.replace("a186", "b186"), False),
        (None, RESPONSES, "my-own-cache-key", False),
        (GROUP_KEY, "/v1/traces/ingest", None, False),  # the SDK's trace upload
    ],
)
def test_the_agents_sdk_s_key_on_one_side_only_says_the_hosts_differ(
    tmp_path: Path, recorded: str | None, route: str, requested: str | None, told: bool
) -> None:
    # the Agents SDK recorded through OPENAI_BASE_URL naming the simulator sends no
    # prompt_cache_key, its replay for api.openai.com one: the miss said only to group the
    # run and record it again, which recorded it again without one
    def sent(key: str | None, path: str = RESPONSES) -> dict[str, object]:
        body = {"model": "gpt-4o-mini", "input": "q"} | ({"prompt_cache_key": key} if key else {})
        return {"method": "POST", "path": path, "headers": {}, "body": body}

    path = tmp_path / "s.jsonl"
    FixtureStore.open(path).put(Fixture.create(sent(recorded), [{"status": 200, "body": {}}]))
    text = str(mismatch_error(FixtureStore.open(path), sent(requested, route), "0123456789ab"))
    assert "body.prompt_cache_key: " in text
    assert (KEY_FOR_ANOTHER_HOST in text.splitlines()) is told


@pytest.mark.parametrize(
    ("recorded", "requested", "told"),
    [
        ("/anthropic/v1/messages", "/v1/messages", ("/anthropic", "recorded")),
        ("/v1/responses", "/openai/v1/responses", ("/openai", "requested")),
        ("/v1/responses", "/v1/chat/completions", None),
        # Mirascope's llm.call recorded with MIRASCOPE_API_KEY and no ANTHROPIC_API_KEY
        ("/router/v2/anthropic/v1/messages", "/v1/messages", ("/router/v2/anthropic", "recorded")),
    ],
)
def test_a_route_under_a_base_path_on_one_side_says_the_base_urls_differ(
    tmp_path: Path, recorded: str, requested: str, told: tuple[str, str] | None
) -> None:
    # recorded with ANTHROPIC_BASE_URL naming a gateway, replayed without it
    def sent(path: str) -> dict[str, object]:
        return {"method": "POST", "path": path, "headers": {}, "body": {"model": "m"}}

    path = tmp_path / "s.jsonl"
    FixtureStore.open(path).put(Fixture.create(sent(recorded), [{"status": 200, "body": {}}]))
    text = str(mismatch_error(FixtureStore.open(path), sent(requested), "0123456789ab"))
    said = [line for line in text.splitlines() if line.startswith("The paths differ only")]
    note = BASE_PATH_NOTE.format(base=told[0], side=told[1]) if told else ""
    if told and told[0].startswith("/router/"):
        note += MIRASCOPE_ROUTER_NOTE.format(base=told[0])
    assert said == ([note] if told else [])


def _tool_turn(result: str, question: str = "q") -> list[dict[str, object]]:
    """An Anthropic conversation whose last turn hands back a tool's ``result``."""
    call = {"type": "tool_use", "id": "toolu_1", "name": "now", "input": {}}
    done = {"type": "tool_result", "tool_use_id": "toolu_1", "content": result}
    return [
        {"role": "user", "content": question},
        {"role": "assistant", "content": [call]},
        {"role": "user", "content": [done]},
    ]


def _sent(body: dict[str, object]) -> dict[str, object]:
    return {"method": "POST", "path": "/v1/x", "headers": {}, "body": body}


def _reask(error: str, version: str | None = "2.14") -> str:
    """The text Instructor sends back after a failed validation: pydantic's error saying
    ``error``, ended with pydantic's link of ``version`` (none for None)."""
    link = (
        f"\n    For further information visit https://errors.pydantic.dev/{version}/v/value_error"
    )
    return (
        "Validation Error found:\n1 validation error for City\npopulation\n"
        f"  Value error, {error} [type=value_error, input_value=-1, input_type=int]"
        f"{link if version else ''}\nRecall the function correctly, fix the errors"
    )


@pytest.mark.parametrize(
    ("recorded", "requested", "told"),
    [  # pydantic upgraded, or its link turned off: every retry recorded missed
        (_reask("no"), _reask("no", "2.15"), "pydantic 2.14 recorded, pydantic 2.15 sent"),
        (_reask("no"), _reask("no", None), "pydantic 2.14 recorded, no link sent"),
        (_reask("no", None), _reask("no"), "no link recorded, pydantic 2.14 sent"),
        (_reask("no"), _reask("not", "2.15"), None),  # the validator's words changed too
    ],
)
def test_a_miss_in_pydantic_s_error_link_alone_names_its_version(
    tmp_path: Path, recorded: str, requested: str, told: str | None
) -> None:
    path = tmp_path / "s.jsonl"
    asked = _sent({"messages": [{"role": "user", "content": requested}]})
    FixtureStore.open(path).put(
        Fixture.create(
            _sent({"messages": [{"role": "user", "content": recorded}]}),
            [{"status": 200, "body": {}}],
        )
    )
    lines = str(mismatch_error(FixtureStore.open(path), asked, "0123456789ab")).splitlines()
    lead = PYDANTIC_LINK_NOTE.split(" ({recorded}", 1)[0].format(
        fields="body.messages[0].content", s="s"
    )
    said = [line for line in lines if line.startswith(lead)]
    assert len(said) == (told is not None)
    assert told is None or f"({told})" in said[0]


@pytest.mark.parametrize(
    ("recorded", "requested", "told"),
    [  # a validator's error listing a set of strings: another order in each process
        (
            _reask("unknown {'doc-a', 'doc-b', 'doc-c'}"),
            _reask("unknown {'doc-c', 'doc-a', 'doc-b'}"),
            True,
        ),
        (_reask("unknown {'doc-a', 'doc-b'}"), _reask("unknown {'doc-a', 'doc-c'}"), False),
        (_reask('args {"a": 1, "b": 2}'), _reask('args {"b": 2, "a": 1}'), False),  # a dict
        (_reask("unknown {'doc-a', 'doc-b'}"), _reask("unknown {'doc-b', 'doc-a'}", "2.15"), False),
        # a list made from a set: smolagents' PythonInterpreterTool's description
        ("imports ['re', 'time', 'math'].", "imports ['math', 're', 'time'].", True),
        ("imports ['re', 'time'].", "imports ['re', 'json'].", False),
    ],
)
def test_a_miss_in_the_order_of_a_set_s_items_alone_says_it_varies_from_run_to_run(
    tmp_path: Path, recorded: str, requested: str, told: bool
) -> None:
    path = tmp_path / "s.jsonl"
    FixtureStore.open(path).put(
        Fixture.create({"messages": [recorded]}, [{"status": 200, "body": {}}])
    )
    error = mismatch_error(FixtureStore.open(path), {"messages": [requested]}, "0123456789ab")
    note = SET_TEXT_NOTE.format(fields="messages[0]", s="s")
    assert (note in str(error).splitlines()) is told
    # the run's list of misses says so too, rather than only to record the test again
    test = cast(pytest.Item, SimpleNamespace(stash=pytest.Stash(), function=None))
    listed = (miss_of(test, error) or ("",))[0]
    assert listed.endswith(f" ({IN_SET_ORDER})") is told


@pytest.mark.parametrize(
    ("recorded", "requested", "told"),
    [  # a tool whose result holds a time: its next request missed, told only to record again
        (
            _sent({"messages": _tool_turn("t=1")}),
            _sent({"messages": _tool_turn("t=2")}),
            "body.messages[2].content[0].content",
        ),
        (
            {"messages": _tool_turn("t=1")},
            {"messages": _tool_turn("t=2")},
            "messages[2].content[0].content",
        ),
        (
            _sent({"messages": [{"role": "tool", "tool_call_id": "c", "content": "t=1"}]}),
            _sent({"messages": [{"role": "tool", "tool_call_id": "c", "content": "t=2"}]}),
            "body.messages[0].content",
        ),
        (
            _sent(
                {
                    "input": [
                        {
                            "type": "function_call_output",
                            "call_id": "c",
                            "output": [{"type": "input_text", "text": "t=1"}],
                        }
                    ]
                }
            ),
            _sent(
                {
                    "input": [
                        {
                            "type": "function_call_output",
                            "call_id": "c",
                            "output": [{"type": "input_text", "text": "t=2"}],
                        }
                    ]
                }
            ),
            "body.input[0].output",
        ),
        (
            _sent(
                {
                    "contents": [
                        {"parts": [{"functionResponse": {"name": "now", "response": {"t": 1}}}]}
                    ]
                }
            ),
            _sent(
                {
                    "contents": [
                        {"parts": [{"functionResponse": {"name": "now", "response": {"t": 2}}}]}
                    ]
                }
            ),
            "body.contents[0].parts[0].functionResponse",
        ),
        # Instructor asking again with pydantic's error, a validator's words changed: no tool
        (
            _sent({"messages": _tool_turn(_reask("must be positive"))}),
            _sent({"messages": _tool_turn(_reask("must be above zero"))}),
            None,
        ),
        # the question changed too: the tool is not all that changed
        (_sent({"messages": _tool_turn("t=1")}), _sent({"messages": _tool_turn("t=2", "r")}), None),
        (
            _sent({"messages": _tool_turn("t=1", "q")}),
            _sent({"messages": _tool_turn("t=1", "r")}),
            None,
        ),
    ],
)
def test_a_miss_in_a_tool_s_result_alone_says_a_tool_that_varies_never_replays(
    tmp_path: Path, recorded: dict[str, object], requested: dict[str, object], told: str | None
) -> None:
    path = tmp_path / "s.jsonl"
    FixtureStore.open(path).put(Fixture.create(recorded, [{"status": 200, "body": {}}]))
    error = mismatch_error(FixtureStore.open(path), requested, "0123456789ab")
    said = [line for line in str(error).splitlines() if line.startswith(TOOL_RESULT_LEAD)]
    assert said == ([TOOL_RESULT_NOTE.format(fields=told)] if told else [])
    # the run's list of misses said only to record the test again, or to revert the change
    test = cast(pytest.Item, SimpleNamespace(stash=pytest.Stash(), function=None))
    listed = (miss_of(test, error) or ("",))[0]
    assert listed.endswith(f" ({IN_TOOL_RESULTS})") is (told is not None)
    # a tool whose own call missed, caught and made its output: that miss is the change
    caught = FixtureMismatchError("no fixture for tools/call", key="k", differences=("body.x: 1",))
    test.stash[CHECKED] = cast(Exchange, SimpleNamespace(raised=[caught, error]))
    listed = (miss_of(test, error) or ("",))[0]
    assert IN_TOOL_RESULTS not in listed and listed.endswith("caught: body.x")


def test_a_tool_result_holding_a_miss_names_that_miss_not_a_tool_that_varies(
    tmp_path: Path,
) -> None:
    # a CrewAI tool whose own model call missed hands the model "Error executing tool: no
    # fixture recorded ...": the miss said the tool's result varies from run to run
    path = tmp_path / "s.jsonl"
    recorded = _sent({"messages": [{"role": "tool", "tool_call_id": "c", "content": "nice"}]})
    failed = "Error executing tool: no fixture recorded for this HTTP request (POST ...)"
    requested = _sent({"messages": [{"role": "tool", "tool_call_id": "c", "content": failed}]})
    FixtureStore.open(path).put(Fixture.create(recorded, [{"status": 200, "body": {}}]))
    said = str(mismatch_error(FixtureStore.open(path), requested, "0123456789ab")).splitlines()
    assert TOOL_MISS_NOTE.format(fields="body.messages[0].content") in said
    assert not any(line.startswith(TOOL_RESULT_LEAD) for line in said)
    # Semantic Kernel's function, whose own call missed, is named beside CrewAI's tools
    assert "Semantic Kernel's functions do so" in TOOL_MISS_NOTE


def test_a_tool_result_of_the_agents_sdk_s_error_text_names_the_tool_s_failure(
    tmp_path: Path,
) -> None:
    # an agent used as a tool (the OpenAI Agents SDK's as_tool) whose own model call missed
    # hands the model the SDK's error text, with no miss's in it: the miss said the tool's
    # result varies from run to run and to make it answer the same
    path = tmp_path / "s.jsonl"
    error_text = "An error occurred while running the tool. Please try again."
    item = {"type": "function_call_output", "call_id": "c", "output": "bonjour"}
    recorded = _sent({"input": [item]})
    requested = _sent({"input": [item | {"output": error_text}]})
    FixtureStore.open(path).put(Fixture.create(recorded, [{"status": 200, "body": {}}]))
    error = mismatch_error(FixtureStore.open(path), requested, "0123456789ab")
    said = str(error).splitlines()
    assert TOOL_FAILED_NOTE.format(fields="body.input[0].output") in said
    assert not any(line.startswith(TOOL_RESULT_LEAD) for line in said)
    test = cast(pytest.Item, SimpleNamespace(stash=pytest.Stash(), function=None))
    assert IN_TOOL_RESULTS not in (miss_of(test, error) or ("",))[0]
    # recorded failing too, the text changed after it: no failure of this run
    path = tmp_path / "failed.jsonl"
    recorded = _sent({"input": [item | {"output": f"{error_text} (a)"}]})
    FixtureStore.open(path).put(Fixture.create(recorded, [{"status": 200, "body": {}}]))
    changed = _sent({"input": [item | {"output": f"{error_text} (b)"}]})
    said = str(mismatch_error(FixtureStore.open(path), changed, "0123456789ab")).splitlines()
    assert TOOL_RESULT_NOTE.format(fields="body.input[0].output") in said


def test_a_prompt_holding_a_caught_miss_s_message_names_that_miss(tmp_path: Path) -> None:
    # CrewAI's guardrail caught the miss of its own check and wrote "Error while validating
    # the task output: no fixture recorded ..." into the task's next prompt: the miss said
    # only to record that prompt again, or to revert a change the test never made
    recorded = _sent({"messages": [{"role": "user", "content": "failed: too long"}]})
    failed = "failed: Error while validating: no fixture recorded for this HTTP request"
    requested = _sent({"messages": [{"role": "user", "content": failed}]})
    changed = field_diff(recorded, requested)
    assert miss_text_note(changed) == MISS_TEXT_NOTE.format(
        fields="body.messages[0].content", s="s"
    )
    assert miss_text_note(field_diff(requested, requested | {"x": 1})) is None
    path = tmp_path / "s.jsonl"
    FixtureStore.open(path).put(Fixture.create(recorded, [{"status": 200, "body": {}}]))
    said = str(mismatch_error(FixtureStore.open(path), requested, "0123456789ab"))
    assert miss_text_note(changed) in said.splitlines()


def _chat_call_turn(call_id: str, question: str = "q") -> list[dict[str, object]]:
    """A Chat Completions conversation handing back a tool's result under ``call_id``, as
    magentic's prompt_chain sends it (the id its FunctionCall made, not the model's)."""
    call = {"id": call_id, "type": "function", "function": {"name": "w", "arguments": "{}"}}
    return [
        {"role": "user", "content": question},
        {"role": "assistant", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call_id, "content": "sunny"},
    ]


def _anthropic_call_turn(call_id: str) -> list[dict[str, object]]:
    """:func:`_tool_turn` with the tool's call and result paired by ``call_id``."""
    turn = _tool_turn("sunny")
    turn[1]["content"] = [{"type": "tool_use", "id": call_id, "name": "now", "input": {}}]
    turn[2]["content"] = [{"type": "tool_result", "tool_use_id": call_id, "content": "sunny"}]
    return turn


@pytest.mark.parametrize(
    ("recorded", "requested", "told"),
    [
        (
            _sent({"messages": _chat_call_turn("9d9ed5796")}),
            _sent({"messages": _chat_call_turn("a1523c1c7")}),
            "body.messages[1].tool_calls[0].id, body.messages[2].tool_call_id",
        ),
        (
            {"messages": _anthropic_call_turn("5f0e1a2b3")},
            {"messages": _anthropic_call_turn("77c0d4e91")},
            "messages[1].content[0].id, messages[2].content[0].tool_use_id",
        ),
        (
            _sent({"input": [{"type": "function_call_output", "call_id": "a", "output": "x"}]}),
            _sent({"input": [{"type": "function_call_output", "call_id": "b", "output": "x"}]}),
            "body.input[0].call_id",
        ),
        # pydantic-ai's ids of a call made without one (a FunctionModel's): named
        (
            _sent({"messages": _chat_call_turn("pyd_ai_062b137dc7f8")}),
            _sent({"messages": _chat_call_turn("pyd_ai_96de09f24c3b")}),
            "body.messages[1].tool_calls[0].id, body.messages[2].tool_call_id",
        ),
        # the question changed too: the ids are not all that changed
        (
            _sent({"messages": _chat_call_turn("9d9ed5796")}),
            _sent({"messages": _chat_call_turn("a1523c1c7", "r")}),
            None,
        ),
        # an id of no tool call (a message's name) is no pairing id
        (
            _sent({"messages": [{"role": "user", "content": "q", "name": "a"}]}),
            _sent({"messages": [{"role": "user", "content": "q", "name": "b"}]}),
            None,
        ),
    ],
)
def test_a_miss_in_tool_call_ids_alone_says_the_code_under_test_makes_them_anew(
    tmp_path: Path, recorded: dict[str, object], requested: dict[str, object], told: str | None
) -> None:
    path = tmp_path / "s.jsonl"
    FixtureStore.open(path).put(Fixture.create(recorded, [{"status": 200, "body": {}}]))
    error = mismatch_error(FixtureStore.open(path), requested, "0123456789ab")
    said = [line for line in str(error).splitlines() if line.startswith(CALL_ID_LEAD)]
    named = PYDANTIC_AI_CALL_IDS if "pyd_ai_" in json.dumps(requested) else ""
    assert said == ([CALL_ID_NOTE.format(fields=told) + named] if told else [])
    assert not any(line.startswith(TOOL_RESULT_LEAD) for line in str(error).splitlines())
    # the run's list of misses says so too, rather than only to record the test again
    test = cast(pytest.Item, SimpleNamespace(stash=pytest.Stash(), function=None))
    listed = (miss_of(test, error) or ("",))[0]
    assert listed.endswith(f" ({IN_CALL_IDS})") is (told is not None)


def test_a_long_diff_is_cut_to_its_first_lines(tmp_path: Path) -> None:
    tools = [ToolSpec(f"tool_{i}", f"Tool {i}.") for i in range(15)]
    renamed = [ToolSpec(f"tool_{i}", f"The tool number {i}.") for i in range(15)]
    path = tmp_path / "s.jsonl"
    request = to_anthropic_request([Message.user("q")], tools, model=MODEL, max_tokens=8)
    FixtureStore.open(path).put(Fixture.create(request, [_answer(_text("a"), "end_turn")]))
    with pytest.raises(FixtureMismatchError) as caught:
        ReplayModel(path, model=MODEL, max_tokens=8).complete([Message.user("q")], renamed)
    err = caught.value
    assert len(err.differences) == 15
    assert err.differences[0] == "tools[0].description: 'Tool 0.' != 'The tool number 0.'"
    text = str(err)
    assert "tools[11].description" in text and "tools[12].description" not in text
    assert "  ... and 3 more differences" in text


def test_every_changed_setting_is_a_miss(tmp_path: Path) -> None:
    path = seed_store(tmp_path, "What is RAG?", "S")
    specs = build_registry(CORPUS).specs
    conversation = [Message.user("What is RAG?")]
    assert ReplayModel(path, model=MODEL, max_tokens=MAX_TOKENS, system="S").complete(
        conversation, specs
    )
    for settings in (
        {"model": "other", "max_tokens": MAX_TOKENS, "system": "S"},
        {"model": MODEL, "max_tokens": 1, "system": "S"},
        {"model": MODEL, "max_tokens": MAX_TOKENS, "system": "T"},
        {"model": MODEL, "max_tokens": MAX_TOKENS, "system": None},
    ):
        with pytest.raises(FixtureMismatchError):
            ReplayModel(path, **settings).complete(conversation, specs)
    with pytest.raises(FixtureMismatchError, match=r"tools\[1\]: \{"):
        ReplayModel(path, model=MODEL, max_tokens=MAX_TOKENS, system="S").complete(
            conversation, specs[:1]
        )


# -- samples -------------------------------------------------------------------------


def test_sample_index_selects_the_recorded_response(tmp_path: Path) -> None:
    request = to_anthropic_request([Message.user("roll")], [], model=MODEL, max_tokens=8)
    answers = [_answer(_text(f"sample {i}"), "end_turn") for i in range(3)]
    path = tmp_path / "s.jsonl"
    FixtureStore.open(path).put(Fixture.create(request, answers))
    for i in range(3):
        model = ReplayModel(path, model=MODEL, max_tokens=8, sample=i)
        assert model.complete([Message.user("roll")], []).text == f"sample {i}"
    with pytest.raises(FixtureMismatchError) as caught:
        ReplayModel(path, model=MODEL, max_tokens=8, sample=3).complete([Message.user("roll")], [])
    assert (
        f"fixture {fixture_key(request)} in {path} has no response for sample 3 "
        "(recorded samples: [0, 1, 2])" in str(caught.value)
    )
    assert "its call failed (nothing is recorded for an error raised" in str(caught.value)


# -- recording -----------------------------------------------------------------------


class ScriptedLive:
    """A live model stand-in: answers from a script and counts its calls."""

    def __init__(self, *responses: ModelResponse) -> None:
        self.responses = list(responses)
        self.calls: list[tuple[Sequence[Message], Sequence[ToolSpec]]] = []

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        self.calls.append((messages, tools))
        return self.responses[min(len(self.calls), len(self.responses)) - 1]


class WireLive:
    """A live model that speaks the wire format, like the SDK-backed models."""

    def __init__(self, body: dict[str, Any]) -> None:
        self.body = body
        self.requests: list[dict[str, Any]] = []

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        raise AssertionError("a wire model is sent the wire request")

    def complete_wire(self, request: dict[str, Any]) -> dict[str, Any]:
        self.requests.append(request)
        return self.body


@pytest.mark.parametrize("approval", [False, None, "yes", 1], ids=["false", "omitted", "yes", "1"])
def test_recording_without_explicit_approval_is_refused_before_any_call(
    tmp_path: Path, approval: Any
) -> None:
    live = ScriptedLive(ModelResponse(text="live"))
    approve = {} if approval is None else {"approve_live": approval}
    with pytest.raises(LiveCallNotApproved) as caught:
        RecordingModel(live, tmp_path / "s.jsonl", model=MODEL, max_tokens=8, **approve)
    assert "needs an explicit approval for this run" in str(caught.value)
    assert "approve_live=True" in str(caught.value) and "--approve-live" in str(caught.value)
    assert "Nothing was called" in str(caught.value)
    assert live.calls == []
    assert not list(tmp_path.iterdir())


def test_replay_is_not_a_recording_mode(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="mode must be one of record-missing, rerecord"):
        RecordingModel(
            ScriptedLive(),
            tmp_path / "s.jsonl",
            approve_live=True,
            mode="replay",
            model=MODEL,
            max_tokens=8,
        )


@pytest.mark.parametrize(
    ("given", "named"),
    [
        ({"model": ""}, "model must be a model id"),
        ({"model": None}, "model must be a model id"),
        ({"max_tokens": 0}, "max_tokens must be a positive integer, got 0"),
        ({"max_tokens": "1024"}, "max_tokens must be a positive integer, got '1024'"),
        ({"max_tokens": True}, "max_tokens must be a positive integer, got True"),
        ({"system": ["Be careful."]}, "system must be a string or None"),
        ({"interface": "anthropic.chat"}, "unknown interface 'anthropic.chat'; known interfaces"),
        ({"interface_version": 1}, "interface_version must be a string or None"),
        ({"sample": -1}, "sample must be an integer from 0 to 9,999 (the sample"),
        ({"sample": 1.0}, "got 1.0"),
        ({"sample": 10_000}, "got 10000"),  # a store holds no such index: it was written
        ({"sample": 2**70}, f"got {2**70}"),  # it raised OverflowError as it was recorded
    ],
)
def test_settings_no_request_can_be_built_from_are_refused_by_name(
    tmp_path: Path, given: dict[str, Any], named: str
) -> None:
    store = tmp_path / "s.jsonl"
    settings: dict[str, Any] = {"model": MODEL, "max_tokens": 8, **given}
    with pytest.raises(ValueError, match=re.escape(named)):
        ReplayModel(store, **settings)
    live = ScriptedLive(ModelResponse(text="live"))
    with pytest.raises(ValueError, match=re.escape(named)):
        RecordingModel(live, store, approve_live=True, **settings)
    assert live.calls == [] and not store.exists()


def test_record_missing_records_once_then_replays(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    answer = ModelResponse(text="RAG [doc-rag].", usage=Usage(5, 6))
    live = ScriptedLive(answer)
    recorder = RecordingModel(live, path, approve_live=True, model=MODEL, max_tokens=64, system="S")
    conversation = [Message.user("What is RAG?")]
    assert recorder.complete(conversation, []) == answer
    again = RecordingModel(live, path, approve_live=True, model=MODEL, max_tokens=64, system="S")
    assert again.complete(conversation, []) == answer  # a run of its own: replayed
    assert len(live.calls) == 1 and recorder.recorded == 1 and again.recorded == 0
    lines = path.read_bytes().splitlines()
    assert len(lines) == 1
    stored = orjson.loads(lines[0])
    assert stored["request"] == to_anthropic_request(
        conversation, [], model=MODEL, max_tokens=64, system="S"
    )
    assert stored["response"]["content"] == [{"type": "text", "text": "RAG [doc-rag]."}]
    meta = stored["meta"]
    assert meta["interface"] == "anthropic.messages"
    assert meta["interface_version"] == "2023-06-01"
    assert meta["source"] == "scripted"
    assert meta["replaygate_version"] == __version__
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", meta["recorded_at"])
    replayed = ReplayModel(path, model=MODEL, max_tokens=64, system="S")
    assert replayed.complete(conversation, []) == answer


def test_rerecord_replaces_the_recorded_response(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    conversation = [Message.user("q")]
    settings: dict[str, Any] = {"model": MODEL, "max_tokens": 8, "approve_live": True}
    RecordingModel(ScriptedLive(ModelResponse(text="old")), path, **settings).complete(
        conversation, []
    )
    live = ScriptedLive(ModelResponse(text="new"))
    rerecorder = RecordingModel(live, path, mode="rerecord", note="prompt changed", **settings)
    assert rerecorder.complete(conversation, []).text == "new"
    assert len(live.calls) == 1
    store = FixtureStore.open(path)
    assert len(store) == 1
    found = store.lookup(to_anthropic_request(conversation, [], model=MODEL, max_tokens=8))
    assert found is not None
    assert found.meta is not None and found.meta["note"] == "prompt changed"
    assert ReplayModel(path, model=MODEL, max_tokens=8).complete(conversation, []).text == "new"


@pytest.mark.parametrize("mode", ["record-missing", "rerecord"])
def test_a_request_whose_key_an_edited_fixture_holds_is_not_recorded_beside_it(
    tmp_path: Path, mode: str
) -> None:
    # both recorded it beside the edited fixture: two fixtures of one key, verify still
    # failing on the edited one, which its advice (rerecord) did not replace
    path = tmp_path / "s.jsonl"
    settings: dict[str, Any] = {"model": MODEL, "max_tokens": 8, "approve_live": True}
    conversation = [Message.user("q")]
    RecordingModel(ScriptedLive(ModelResponse(text="old")), path, **settings).complete(
        conversation, []
    )
    path.write_bytes(path.read_bytes().replace(b'"text":"q"', b'"text":"q, edited"'))
    edited = path.read_bytes()
    live = ScriptedLive(ModelResponse(text="new"))
    recorder = RecordingModel(live, path, mode=mode, **settings)
    with pytest.raises(FixtureFormatError) as refused:
        recorder.complete(conversation, [])
    key = fixture_key(to_anthropic_request(conversation, [], model=MODEL, max_tokens=8))
    assert str(refused.value).startswith(f"{path}:1: key {key} does not match its request")
    assert "Revert the edit, or remove that fixture, then record again (nothing was sent)." in (
        str(refused.value)
    )
    assert live.calls == [] and path.read_bytes() == edited


def test_record_missing_keeps_what_another_recorder_wrote_meanwhile(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    live = ScriptedLive(ModelResponse(text="mine"))
    recorder = RecordingModel(live, path, approve_live=True, model=MODEL, max_tokens=8)
    other = RecordingModel(
        ScriptedLive(ModelResponse(text="theirs")),
        path,
        approve_live=True,
        model=MODEL,
        max_tokens=8,
    )
    assert other.complete([Message.user("q")], []).text == "theirs"
    assert recorder.complete([Message.user("q")], []).text == "theirs"
    assert live.calls == []


def test_a_request_first_sent_by_a_later_sample_is_padded_with_null(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    live = ScriptedLive(ModelResponse(text="only sample 2 asked"))
    RecordingModel(live, path, approve_live=True, model=MODEL, max_tokens=8, sample=2).complete(
        [Message.user("q")], []
    )
    fixture = next(iter(FixtureStore.open(path)))
    assert fixture.responses[:2] == (None, None) and fixture.samples == 3
    replayed = ReplayModel(path, model=MODEL, max_tokens=8, sample=2)
    assert replayed.complete([Message.user("q")], []).text == "only sample 2 asked"
    with pytest.raises(FixtureMismatchError, match=r"no response for sample 0 .*samples: \[2\]"):
        ReplayModel(path, model=MODEL, max_tokens=8, sample=0).complete([Message.user("q")], [])


def test_recording_samples_in_order_then_replaying_each(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    for i in range(3):
        live = ScriptedLive(ModelResponse(text=f"take {i}"))
        RecordingModel(live, path, approve_live=True, model=MODEL, max_tokens=8, sample=i).complete(
            [Message.user("q")], []
        )
    assert [
        ReplayModel(path, model=MODEL, max_tokens=8, sample=i)
        .complete([Message.user("q")], [])
        .text
        for i in range(3)
    ] == ["take 0", "take 1", "take 2"]


def test_a_wire_model_gets_the_exact_request_and_its_body_is_stored_as_is(tmp_path: Path) -> None:
    body = {
        "id": "msg_live_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": [{"type": "text", "text": "live answer"}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 9, "output_tokens": 2, "cache_read_input_tokens": 0},
        "container": None,
    }
    live = WireLive(body)
    path = tmp_path / "s.jsonl"
    tools = [ToolSpec("search_corpus", "Search.", {"type": "object"})]
    conversation = [Message.user("q")]
    recorder = RecordingModel(live, path, approve_live=True, model=MODEL, max_tokens=32, system="S")
    assert recorder.complete(conversation, tools).text == "live answer"
    assert live.requests == [
        to_anthropic_request(conversation, tools, model=MODEL, max_tokens=32, system="S")
    ]
    stored = orjson.loads(path.read_bytes())
    assert stored["response"] == body
    assert orjson.dumps(body) in path.read_bytes()  # as it came, key order included
    assert stored["meta"]["source"] == "live"


# -- the OpenAI interface --------------------------------------------------------------


def test_replay_over_the_openai_interface(tmp_path: Path) -> None:
    path = tmp_path / "openai.jsonl"
    script = ScriptedLive(
        ModelResponse(
            tool_calls=(ToolCall("call_1", "search_corpus", {"q": "RAG"}),), stop_reason="tool_use"
        ),
        ModelResponse(
            tool_calls=(ToolCall("call_2", "fetch_doc", {"doc_id": "doc-rag"}),),
            stop_reason="tool_use",
        ),
        ModelResponse(text="RAG [doc-rag]."),
    )
    settings: dict[str, Any] = {
        "model": "gpt-4.1",
        "max_tokens": 256,
        "system": "S",
        "interface": "openai",
    }
    recorder = RecordingModel(script, path, approve_live=True, **settings)
    recorded = run(recorder, build_registry(CORPUS), "What is RAG?")
    stored = [orjson.loads(raw) for raw in path.read_bytes().splitlines()]
    assert len(stored) == 3
    assert all(s["meta"]["interface"] == "openai.chat.completions" for s in stored)
    last = stored[2]["request"]
    assert last["max_completion_tokens"] == 256
    assert last["messages"][0] == {"role": "system", "content": "S"}
    assert [m["role"] for m in last["messages"]] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
    ]
    assert last["tools"][0]["function"]["name"] == "search_corpus"
    assert stored[0]["response"]["choices"][0]["finish_reason"] == "tool_calls"

    replays = [
        run(ReplayModel(path, **settings), build_registry(CORPUS), "What is RAG?") for _ in range(2)
    ]
    assert replays[0].final == replays[1].final == recorded.final == "RAG [doc-rag]."
    assert [s.detail for s in replays[0].steps] == [s.detail for s in recorded.steps]
    with pytest.raises(FixtureMismatchError) as caught:
        run(ReplayModel(path, **settings), build_registry(CORPUS), "RAG, what is it?")
    assert caught.value.differences == (
        "messages[1].content: 'What is RAG?' != 'RAG, what is it?'",
    )
    assert to_openai_request([], [], model="gpt-4.1", max_tokens=1)["model"] == "gpt-4.1"


# -- nearest on a miss in a large store ------------------------------------------------

LARGE = 10_000
LARGE_SYSTEM = "Answer from the notes."
LARGE_TOOLS = [
    ToolSpec(
        "lookup", "Look a note up.", {"type": "object", "properties": {"n": {"type": "integer"}}}
    )
]


def large_conversation(i: int, question: str | None = None) -> list[Message]:
    return [
        Message.user(question or f"What does note {i} say?"),
        Message.assistant("", [ToolCall(f"call_{i}", "lookup", {"n": i})]),
        Message.tool_result(f"call_{i}", f"note {i}: fixtures make replay deterministic"),
    ]


def _large_canonical(i: int) -> str:
    """The canonical text of large request ``i``, written out (fast to make 100,000 of)."""
    user = f'{{"content": [{{"text": "What does note {i} say?", "type": "text"}}], "role": "user"}}'
    call = f'{{"id": "call_{i}", "input": {{"n": {i}}}, "name": "lookup", "type": "tool_use"}}'
    result = (
        f'{{"content": "note {i}: fixtures make replay deterministic", '
        f'"tool_use_id": "call_{i}", "type": "tool_result"}}'
    )
    tool = (
        '{"description": "Look a note up.", "input_schema": '
        '{"properties": {"n": {"type": "integer"}}, "type": "object"}, "name": "lookup"}'
    )
    return (
        f'{{"max_tokens": 64, "messages": [{user}, '
        f'{{"content": [{call}], "role": "assistant"}}, '
        f'{{"content": [{result}], "role": "user"}}], '
        f'"model": "{MODEL}", "system": "{LARGE_SYSTEM}", "tools": [{tool}]}}'
    )


@pytest.mark.slow
def test_nearest_request_in_a_10000_fixture_store(tmp_path: Path) -> None:
    for i in (0, 7):
        built = to_anthropic_request(
            large_conversation(i), LARGE_TOOLS, model=MODEL, max_tokens=64, system=LARGE_SYSTEM
        )
        assert _large_canonical(i) == json.dumps(built, sort_keys=True, ensure_ascii=False)
    path = tmp_path / "large.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for i in range(LARGE):
            canonical = _large_canonical(i)
            key = hashlib.sha256(canonical.encode()).hexdigest()[:12]
            text = f'[{{"type": "text", "text": "answer {i}"}}]'
            answer = f'{{"content": {text}, "usage": {{"input_tokens": 1, "output_tokens": 1}}}}'
            handle.write(f'{{"key": "{key}", "request": {canonical}, "response": {answer}}}\n')
    model = ReplayModel(path, model=MODEL, max_tokens=64, system=LARGE_SYSTEM)
    assert len(model.store) == LARGE
    target = 7_512
    assert model.complete(large_conversation(target), LARGE_TOOLS).text == f"answer {target}"
    with pytest.raises(FixtureMismatchError) as caught:
        model.complete(large_conversation(target, "Note 7512: what does it say?"), LARGE_TOOLS)
    text = str(caught.value)
    assert f"not in {path} ({LARGE} fixtures)" in text
    nearest_key = fixture_key(json.loads(_large_canonical(target)))
    assert f"nearest recorded request: key {nearest_key} at {path}:{target + 1}" in text
    assert caught.value.differences == (
        "messages[0].content[0].text: 'What does note 7512 say?' != 'Note 7512: what does it say?'",
    )


REWORDED = {
    # no whole word shared: the pairs of letters tell (the first was named for each)
    "short texts": (("b1", "b2", "b3"), "xb2"),
    "english": (
        ("What is RAG?", "How can we detect fixture drift?", "Why pin a model version?"),
        "How do fixtures drift, really?",
    ),
    # Chinese is written without spaces: a whole sentence is one \w+ run
    "chinese": (
        ("什么是检索增强生成？", "怎样发现夹具的漂移？", "为什么要固定模型版本？"),
        "夹具的漂移怎样发现呢？",
    ),
    "japanese": (
        (
            "検索拡張生成とは何ですか？",
            "フィクスチャのドリフトはどう見つけますか？",
            "なぜモデルのバージョンを固定するのですか？",
        ),
        "ドリフトしたフィクスチャはどう見つけますか？",
    ),
}


@pytest.mark.parametrize(("questions", "reworded"), REWORDED.values(), ids=REWORDED.keys())
def test_a_reworded_question_is_compared_with_the_one_it_rewords(
    tmp_path: Path, questions: tuple[str, ...], reworded: str
) -> None:
    path = tmp_path / "evals.jsonl"
    fixtures = [
        Fixture.create(
            to_anthropic_request([Message.user(q)], [], model=MODEL, max_tokens=64),
            [_answer(_text(f"answer {i}"), "end_turn")],
            {"source": "hand"},
        )
        for i, q in enumerate(questions)
    ]
    path.write_bytes(b"".join(f.to_line() for f in fixtures))
    model = ReplayModel(path, model=MODEL, max_tokens=64)
    with pytest.raises(FixtureMismatchError) as caught:  # every fixture differs in one part
        model.complete([Message.user(reworded)], [])
    assert f"key {fixtures[1].key} at {path}:2 (recorded != requested)" in str(caught.value)
    assert caught.value.differences == (
        f"messages[0].content[0].text: {questions[1]!r} != {reworded!r}",
    )


@pytest.mark.parametrize("data_url", [False, True], ids=["anthropic image", "data URL"])
def test_a_changed_image_before_the_question_is_compared_with_the_same_question(
    data_url: bool,
) -> None:
    """An image sent before the question filled the characters read for its words with its
    base64: a changed screenshot was compared with the store's first fixture, whose
    question differs too, rather than with the one asking the same question."""

    def asking(image: int, question: str) -> dict[str, Any]:
        data = base64.b64encode(bytes([image, 1, 2]) * 2000).decode()
        shown: dict[str, Any] = (
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{data}"}}
            if data_url
            else {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": data},
            }
        )
        content = [shown, {"type": "text", "text": question}]
        return {"model": MODEL, "messages": [{"role": "user", "content": content}]}

    questions = ("What colour is the cat?", "Which way does the road turn?", "How many boats?")
    stored = [(i, features(asking(i, q))) for i, q in enumerate(questions)]
    assert nearest(features(asking(9, "Which way does the road turn?")), stored) == 1


def test_an_mcp_server_s_call_is_compared_with_the_call_of_another_tool() -> None:
    # a tools/call that missed was compared with the store's first line, the initialize
    # (its id, method and params all differing), not with the call of another tool
    def call(id_: int, method: str, **params: Any) -> dict[str, Any]:
        body = {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}
        return {"method": "POST", "path": "/mcp", "headers": {}, "body": body}

    stored = [
        (0, features(call(1, "initialize", protocolVersion="2025-06-18"))),
        (1, features(call(2, "tools/list"))),
        (2, features(call(3, "tools/call", name="get_weather", arguments={"city": "Paris"}))),
    ]
    assert nearest(features(call(4, "tools/call", name="now", arguments={})), stored) == 2


def test_an_edited_system_prompt_is_compared_with_the_request_sending_it() -> None:
    # a system prompt given a 1h cache_control (LangChain's SystemMessage content block)
    # was compared with the store's earlier request sending no system prompt at all, its
    # diff the whole system prompt against <missing>, not the one field changed
    def asking(system: list[dict[str, Any]] | None) -> dict[str, Any]:
        sent = {} if system is None else {"system": system}
        return {"model": MODEL, "messages": [{"role": "user", "content": "Hi"}], **sent}

    prompt = {
        "type": "text",
        "text": "You are a weather bot.",
        "cache_control": {"type": "ephemeral"},
    }
    stored = [(0, features(asking(None))), (1, features(asking([prompt])))]
    longer = {**prompt, "cache_control": {"type": "ephemeral", "ttl": "1h"}}
    assert nearest(features(asking([longer])), stored) == 1
    assert nearest(features(asking([{**prompt, "text": "You are a weather bot!"}])), stored) == 1


def test_a_question_in_another_unicode_form_is_compared_with_the_one_it_differs_from(
    tmp_path: Path,
) -> None:
    """Its NFD ``e`` and combining accent split a word where the NFC ``é`` does not: read
    as sent, the question shared its one word with ``cafe``, not with ``café``."""
    path = tmp_path / "evals.jsonl"
    fixtures = [
        Fixture.create(
            to_anthropic_request([Message.user(q)], [], model=MODEL, max_tokens=64),
            [_answer(_text(q), "end_turn")],
            {"source": "hand"},
        )
        for q in ("cafe", "caf\u00e9", "tea")
    ]
    path.write_bytes(b"".join(f.to_line() for f in fixtures))
    model = ReplayModel(path, model=MODEL, max_tokens=64)
    with pytest.raises(FixtureMismatchError) as caught:
        model.complete([Message.user("cafe\u0301")], [])
    assert f"key {fixtures[1].key} at {path}:2 (recorded != requested)" in str(caught.value)
