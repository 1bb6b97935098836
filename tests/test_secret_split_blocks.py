"""Law 4: a key split across adjacent text blocks of one message (an Anthropic message's
text blocks, an OpenAI content array of text parts, a Responses API item's parts) is
refused, naming the blocks that hold its parts; ordinary adjacent text is not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from replaygate import Fixture, FixtureStore
from replaygate.errors import SecretInFixtureError
from replaygate.fixtures.fixture import make_meta
from replaygate.http import httpx2_client
from replaygate.sanitize.secret_scan import find_fixture_secrets
from replaygate.sim import Simulator
from run_cli import replaygate
from sdks import anthropic, openai

MARKER = "ZqXv7Wm2Kp9Rt4Ly6Hb8Nc3Jd5Fg1Ss0Aa"
ANTHROPIC_KEY = "sk-ant-api03-" + MARKER + "Q" * (40 - len(MARKER))
OPENAI_KEY = "sk-proj-" + MARKER + "R" * (48 - len(MARKER))
# cut where neither part alone is flagged
ANTHROPIC_HEAD, ANTHROPIC_TAIL = ANTHROPIC_KEY[:24], ANTHROPIC_KEY[24:]
OPENAI_HEAD, OPENAI_TAIL = OPENAI_KEY[:20], OPENAI_KEY[20:]
META = make_meta("anthropic.messages", "2023-06-01", "hand")


def text(value: str, kind: str = "text") -> dict[str, Any]:
    return {"type": kind, "text": value}


def findings(request: dict[str, Any], response: dict[str, Any]) -> list[tuple[str, str]]:
    found = find_fixture_secrets({"key": "k", "request": request, "response": response})
    return [(f.path, f.detector) for f in found]


def asked(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": list(blocks)}]}


ANSWER = {"content": [text("ok")], "stop_reason": "end_turn"}


@pytest.mark.slow  # a simulator and an SDK
def test_an_anthropic_request_through_the_sdk_is_refused_before_it_is_sent(
    tmp_path: Path,
) -> None:
    store = tmp_path / "fixtures.jsonl"
    parts = [text(f"my key is {ANTHROPIC_HEAD}"), text(f"{ANTHROPIC_TAIL}, keep it safe")]
    with Simulator(behavior="echo") as sim:
        with (
            anthropic.Anthropic(
                api_key="test",
                base_url=sim.url,
                http_client=httpx2_client(store, "record-missing", approve_live=True),
            ) as client,
            pytest.raises(SecretInFixtureError) as raised,
        ):
            client.messages.create(
                model="m", max_tokens=8, messages=[{"role": "user", "content": parts}]
            )
        assert sim.requests == []
    assert raised.value.detector == "Anthropic API key (split across text blocks)"
    assert raised.value.path == "request.body.messages[0].content[0..1].text"
    assert "nothing was sent" in str(raised.value)
    assert not store.exists() or MARKER.encode() not in store.read_bytes()


@pytest.mark.slow  # a simulator and an SDK
def test_an_openai_content_array_of_text_parts_through_the_sdk_is_refused(
    tmp_path: Path,
) -> None:
    store = tmp_path / "fixtures.jsonl"
    parts: Any = [
        {"type": "text", "text": "here:"},
        {"type": "text", "text": f" {OPENAI_HEAD}"},
        {"type": "text", "text": OPENAI_TAIL},
    ]
    with Simulator(behavior="echo") as sim:
        with (
            openai.OpenAI(
                api_key="test",
                base_url=sim.openai_base_url,
                http_client=httpx2_client(store, "record-missing", approve_live=True),
            ) as client,
            pytest.raises(SecretInFixtureError) as raised,
        ):
            client.chat.completions.create(model="g", messages=[{"role": "user", "content": parts}])
        assert sim.requests == []
    assert raised.value.detector == "OpenAI API key (split across text blocks)"
    # the fewest blocks whose join is flagged: the two that hold the parts
    assert raised.value.path == "request.body.messages[0].content[1..2].text"


def test_the_prefix_in_one_block_and_the_rest_in_the_next_names_both() -> None:
    request = asked(text("sk-ant-api03-"), text(ANTHROPIC_KEY.removeprefix("sk-ant-api03-")))
    found = findings(request, ANSWER)
    # the rest alone looks random; the join is the key, named first, by both blocks
    assert found[0] == (
        "request.messages[0].content[0..1].text",
        "Anthropic API key (split across text blocks)",
    )


@pytest.mark.parametrize(
    ("request_", "response", "path"),
    [
        (
            {**asked(text("hi")), "system": [text(ANTHROPIC_HEAD), text(ANTHROPIC_TAIL)]},
            ANSWER,
            "request.system[0..1].text",
        ),
        (
            asked(
                {
                    "type": "tool_result",
                    "tool_use_id": "t",
                    "content": [text(ANTHROPIC_HEAD), text(ANTHROPIC_TAIL)],
                }
            ),
            ANSWER,
            "request.messages[0].content[0].content[0..1].text",
        ),
        (
            asked(text("hi")),
            {"content": [text("a"), text(ANTHROPIC_HEAD), text(ANTHROPIC_TAIL)]},
            "response.content[1..2].text",
        ),
        (
            {
                "model": "g",
                "input": [
                    {
                        "role": "user",
                        "content": [
                            text(OPENAI_HEAD, "input_text"),
                            text(OPENAI_TAIL, "input_text"),
                        ],
                    }
                ],
            },
            {"output": [{"type": "message", "content": [text("fine", "output_text")]}]},
            "request.input[0].content[0..1].text",
        ),
        (
            {"model": "g", "input": "hi"},
            {
                "output": [
                    {
                        "type": "message",
                        "content": [
                            text(OPENAI_HEAD, "output_text"),
                            text(OPENAI_TAIL, "output_text"),
                        ],
                    }
                ]
            },
            "response.output[0].content[0..1].text",
        ),
        (
            {"model": "g", "messages": [{"role": "user", "content": "hi"}]},
            {
                "choices": [
                    {
                        "index": 0,
                        "message": {
                            "role": "assistant",
                            "content": [text(OPENAI_HEAD), text(OPENAI_TAIL)],
                        },
                    }
                ]
            },
            "response.choices[0].message.content[0..1].text",
        ),
    ],
    ids=[
        "system",
        "tool-result",
        "anthropic-answer",
        "responses-input",
        "responses-output",
        "chat",
    ],
)
def test_each_list_of_blocks_is_read_joined(
    request_: dict[str, Any], response: dict[str, Any], path: str
) -> None:
    [(where, rule)] = findings(request_, response)
    assert where == path and rule.endswith(" API key (split across text blocks)")


def test_a_key_in_one_block_is_named_at_that_block_alone() -> None:
    found = findings(asked(text("the key:"), text(ANTHROPIC_KEY), text("done")), ANSWER)
    assert found == [("request.messages[0].content[1].text", "Anthropic API key")]


ORDINARY = [
    ["Hello, ", "world! How are you today?"],
    ["See https://docs.anthropic.com/en/api/", "messages?lang=en for the details."],
    ["The document doc-000123", "-rev4 says retrieval grounds answers."],
    ["def handler(event, context):\n    return ", "{'statusCode': 200, 'body': event}"],
    ["请先检索", "再生成答案。", "检索增强生成"],
    ["Session 3f2a9c1b-4d5e-", "4f60-8a7b-9c0d1e2f3a4b ended at 12:30:45Z."],
    ["tool_use_id toolu_01A09q90", "qw90lq917835lq9 returned 3 hits"],
    ["Ticket ", "ABC-1234", ": fix the flaky test in ", "tests/test_store.py"],
]


@pytest.mark.parametrize("texts", ORDINARY, ids=[str(i) for i in range(len(ORDINARY))])
def test_ordinary_adjacent_text_is_no_secret(texts: list[str]) -> None:
    blocks = [text(t) for t in texts]
    assert findings(asked(*blocks), {"content": blocks}) == []


def _fixture_line(response: dict[str, Any]) -> bytes:
    fixture = Fixture.create(asked(text("What is RAG?")), [response], META)
    return fixture.to_line()


def test_verify_names_the_split_in_a_jsonl_store_and_a_folder_store(tmp_path: Path) -> None:
    response = {"content": [text(f"Use {ANTHROPIC_HEAD}"), text(ANTHROPIC_TAIL)]}
    line = _fixture_line(response)
    jsonl = tmp_path / "fixtures.jsonl"
    jsonl.write_bytes(_fixture_line(ANSWER) + line)
    key = orjson.loads(line)["key"]
    folder = tmp_path / "folder" / "anthropic.messages@2023-06-01"
    folder.mkdir(parents=True)
    (folder / f"{key}.json").write_bytes(
        orjson.dumps(orjson.loads(line), option=orjson.OPT_INDENT_2)
    )
    rule = "Anthropic API key (split across text blocks) at response.content[0..1].text"
    for store, where in [(jsonl, f"{jsonl}:2"), (folder.parent, str(folder / f"{key}.json"))]:
        done = replaygate("verify", str(store))
        assert done.returncode == 1, done.stdout + done.stderr
        assert where in done.stdout and rule in done.stdout


def test_the_store_refuses_to_write_it_and_keeps_what_it_held(tmp_path: Path) -> None:
    store = tmp_path / "fixtures.jsonl"
    with FixtureStore.open(store) as opened:
        opened.put(Fixture.create(asked(text("one")), [ANSWER], META))
        before = store.read_bytes()
        leak = {"content": [text(ANTHROPIC_HEAD), text(ANTHROPIC_TAIL)]}
        with pytest.raises(SecretInFixtureError, match=r"response\.content\[0\.\.1\]\.text"):
            opened.put(Fixture.create(asked(text("two")), [leak], META))
    assert store.read_bytes() == before
