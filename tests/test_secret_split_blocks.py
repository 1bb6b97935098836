"""Law 4: a key split across adjacent text blocks of one message (an Anthropic message's
text blocks, an OpenAI content array of text parts, a Responses API item's parts), in a
request, an answer or a streamed answer, is refused, naming the blocks that hold its
parts; ordinary adjacent text is not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import orjson
import pytest

from loopback import ChunkedEvents, serving
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


def test_blocks_of_other_shapes_are_passed_over() -> None:
    odd: list[Any] = [
        {"type": ["text"], "text": ANTHROPIC_HEAD},  # a type that is no string
        {"type": "text", "text": 7},
        "sk-ant-api03-",
        {"type": "text", "text": ANTHROPIC_HEAD},
        {"type": "image", "source": {}},
        {"type": "text", "text": ANTHROPIC_TAIL},
    ]
    assert findings(asked(*odd), {"content": odd}) == []


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


def _anthropic_stream(*blocks: str) -> list[bytes]:
    """An Anthropic message stream answering with one text block for each of ``blocks``,
    each sent in two deltas."""
    message = {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": [],
        "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 3, "output_tokens": 1},
    }  # fmt: skip
    events: list[dict[str, Any]] = [{"type": "message_start", "message": message}]
    for index, block in enumerate(blocks):
        half = len(block) // 2
        events += [
            {"type": "content_block_start", "index": index, "content_block": text("")},
            *(
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "text_delta", "text": part},
                }
                for part in (block[:half], block[half:])
            ),
            {"type": "content_block_stop", "index": index},
        ]
    events += [
        {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
         "usage": {"output_tokens": 9}},
        {"type": "message_stop"},
    ]  # fmt: skip
    return [f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events]


class _Streams(ChunkedEvents):
    PAUSE = 0.0
    CHUNKS: ClassVar[dict[str, list[bytes]]] = {
        "/key/v1/messages": _anthropic_stream(f"Use {ANTHROPIC_HEAD}", ANTHROPIC_TAIL, "Done."),
        "/clean/v1/messages": _anthropic_stream("RAG grounds ", "answers in [doc-rag].", "Done."),
    }


HI = [{"role": "user", "content": "hi"}]


def _streamed(base: str, name: str, store: Path) -> str:
    with (
        anthropic.Anthropic(
            api_key="test",
            base_url=f"{base}/{name}",
            max_retries=0,
            http_client=httpx2_client(store, "record-missing", approve_live=True),
        ) as client,
        client.messages.stream(model="m", max_tokens=8, messages=HI) as stream,
    ):
        return "".join(block.text for block in stream.get_final_message().content)


@pytest.mark.slow  # a server and an SDK
def test_a_key_split_across_two_streamed_text_blocks_is_refused(tmp_path: Path) -> None:
    store = tmp_path / "fixtures.jsonl"
    with serving(_Streams) as base:
        assert _streamed(base, "clean", store) == "RAG grounds answers in [doc-rag].Done."
        with pytest.raises(SecretInFixtureError) as raised:
            _streamed(base, "key", store)
    assert raised.value.detector == "Anthropic API key (split across text blocks 0..1)"
    # the deltas of block 0 and of block 1: the events from the first to the last
    assert raised.value.path == "response.events[2..7].data"
    assert MARKER.encode() not in store.read_bytes()
    assert len(store.read_bytes().splitlines()) == 1  # the clean answer, kept


def test_verify_names_a_key_split_across_the_parts_of_a_streamed_responses_item(
    tmp_path: Path,
) -> None:
    def delta(index: int, part: str) -> dict[str, str]:
        event = {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0,
                 "content_index": index, "delta": part}  # fmt: skip
        return {"event": event["type"], "data": json.dumps(event)}

    response = {
        "status": 200,
        "events": [delta(0, "key: "), delta(0, OPENAI_HEAD), delta(1, OPENAI_TAIL)],
    }
    request = {"model": "g", "input": "hi", "stream": True}
    store = tmp_path / "fixtures.jsonl"
    store.write_bytes(Fixture.create(request, [response], META).to_line())
    done = replaygate("verify", str(store))
    assert done.returncode == 1
    found = "OpenAI API key (split across text blocks 0..1) at response.events[0..2].data"
    assert found in done.stdout


def test_a_key_split_inside_its_anchor_across_streamed_blocks_is_found() -> None:
    """Neither block holds a rule's anchor (``AK`` + ``IA...``) nor a token of its own:
    what the scan of a stream clears at once includes each run of blocks joined."""
    deltas = ["see AK", "IAZ5Q7BHWX3JK2LMNP now"]
    events = []
    for index, text in enumerate(deltas):
        for data in (
            {"type": "content_block_start", "index": index, "content_block": {"type": "text"}},
            {"type": "content_block_delta", "index": index, "delta": {"text": text}},
            {"type": "content_block_stop", "index": index},
        ):
            events.append({"event": data["type"], "data": json.dumps(data)})
    fixture = {"request": {"model": "m"}, "response": {"status": 200, "events": events}}
    found = find_fixture_secrets(fixture)
    assert [(f.path, f.detector) for f in found] == [
        ("response.events[1..4].data", "AWS access key id (split across text blocks 0..1)")
    ]
