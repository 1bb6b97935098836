"""Amazon Bedrock through boto3, and the frameworks that call it with boto3 (Strands Agents,
pydantic-ai's ``BedrockConverseModel``, LangChain's ``ChatBedrockConverse``), recorded
and replayed by intercept().

boto3 sends through botocore's ``URLLib3Session.send``, which intercept() answers
(replaygate.http.seams.botocore_session): recorded from the simulator's Bedrock routes
(``/model/<id>/converse``, ``/converse-stream``), replayed offline against the real host.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import boto3
import pytest
from aiobotocore.session import get_session
from botocore.config import Config
from langchain_aws import ChatBedrockConverse
from langchain_core.messages import ToolMessage
from langchain_core.tools import tool as langchain_tool
from pydantic_ai import Agent as PydanticAgent
from pydantic_ai.models.bedrock import BedrockConverseModel
from pydantic_ai.providers.bedrock import BedrockProvider
from pydantic_ai.usage import UsageLimits
from strands import Agent as StrandsAgent
from strands import tool as strands_tool
from strands.models import BedrockModel

from tests_frameworks.harness import (
    CHANGED,
    QUESTION,
    Hosts,
    assert_recipe_replays,
    matrix_cases,
    record,
    replay_three_times,
    replay_timed,
    weather,
)

MODEL = "anthropic.claude-sonnet-4-5-20250929-v1:0"
REGION = "us-east-1"
RETRIES = Config(retries={"mode": "standard", "max_attempts": 3})
ROWS = {
    "boto3": "boto3 bedrock-runtime (aiobotocore: async)",
    "strands": "Strands Agents, BedrockModel",
    "pydantic_ai": "pydantic-ai, BedrockConverseModel",
    "langchain": "LangChain, ChatBedrockConverse",
}
ECHO = f"echo: {QUESTION}"
TOOL_SAYS = "The tool says: sunny in Paris"
WEATHER_TOOL = {
    "toolSpec": {
        "name": "weather",
        "description": "The weather in a city.",
        "inputSchema": {
            "json": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            }
        },
    }
}


@pytest.fixture(autouse=True)
def _aws_keys(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """boto3 signs every call, replayed ones too: keys and a region from the environment."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "test")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    yield


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"text": text}]}


# -- boto3 -------------------------------------------------------------------------------


def client(hosts: Hosts) -> Any:
    """A ``bedrock-runtime`` client for the simulator (recording) or the real host."""
    return boto3.client(
        "bedrock-runtime", region_name=REGION, endpoint_url=hosts.anthropic, config=RETRIES
    )


def boto3_plain(hosts: Hosts, question: str = QUESTION) -> str:
    answer = client(hosts).converse(modelId=MODEL, messages=[user(question)])
    return str(answer["output"]["message"]["content"][0]["text"])


def boto3_stream(hosts: Hosts, question: str = QUESTION) -> str:
    answer = client(hosts).converse_stream(modelId=MODEL, messages=[user(question)])
    deltas = (event["contentBlockDelta"]["delta"] for event in answer["stream"]
              if "contentBlockDelta" in event)  # fmt: skip
    return "".join(delta.get("text", "") for delta in deltas)


def boto3_tools(hosts: Hosts, question: str = QUESTION) -> str:
    bedrock, tools = client(hosts), {"tools": [WEATHER_TOOL]}
    messages = [user(question)]
    answer = bedrock.converse(modelId=MODEL, messages=messages, toolConfig=tools)
    called = answer["output"]["message"]
    (use,) = [block["toolUse"] for block in called["content"] if "toolUse" in block]
    result = {"toolUseId": use["toolUseId"], "content": [{"text": weather(**use["input"])}]}
    messages += [called, {"role": "user", "content": [{"toolResult": result}]}]
    answer = bedrock.converse(modelId=MODEL, messages=messages, toolConfig=tools)
    return str(answer["output"]["message"]["content"][0]["text"])


def aiobotocore_async(hosts: Hosts, question: str = QUESTION) -> str:
    """aiobotocore's async client (over aiohttp): a call, then the same streamed."""

    async def main() -> str:
        made = get_session().create_client(
            "bedrock-runtime", region_name=REGION, endpoint_url=hosts.anthropic, config=RETRIES
        )
        async with made as bedrock:
            answer = await bedrock.converse(modelId=MODEL, messages=[user(question)])
            streamed = await bedrock.converse_stream(modelId=MODEL, messages=[user(question)])
            events = [event async for event in streamed["stream"]]
        deltas = (e["contentBlockDelta"]["delta"] for e in events if "contentBlockDelta" in e)
        text = "".join(delta.get("text", "") for delta in deltas)
        return f"{answer['output']['message']['content'][0]['text']} | {text}"

    return asyncio.run(main())


# -- Strands Agents ----------------------------------------------------------------------


@strands_tool
def strands_weather(city: str) -> str:
    """The weather in a city."""
    return weather(city)


def strands_agent(hosts: Hosts, *, streaming: bool = True, tools: bool = False) -> Any:
    model = BedrockModel(model_id=MODEL, region_name=REGION, endpoint_url=hosts.anthropic,
                         boto_client_config=RETRIES, streaming=streaming)  # fmt: skip
    return StrandsAgent(model=model, tools=[strands_weather] if tools else [],
                        callback_handler=None)  # fmt: skip


def strands_plain(hosts: Hosts, question: str = QUESTION) -> str:
    return str(strands_agent(hosts, streaming=False)(question)).strip()


def strands_stream(hosts: Hosts, question: str = QUESTION) -> str:
    return str(strands_agent(hosts)(question)).strip()


def strands_tools(hosts: Hosts, question: str = QUESTION) -> str:
    return str(strands_agent(hosts, tools=True)(question)).strip()


def strands_async(hosts: Hosts, question: str = QUESTION) -> str:
    async def main() -> str:
        return str(await strands_agent(hosts, tools=True).invoke_async(question)).strip()

    return asyncio.run(main())


# -- pydantic-ai ---------------------------------------------------------------------------


def pydantic_agent(hosts: Hosts, *, tools: bool = False) -> PydanticAgent[None, str]:
    provider = BedrockProvider(region_name=REGION, base_url=hosts.anthropic)
    model = BedrockConverseModel(MODEL, provider=provider)
    return PydanticAgent(model, tools=[weather] if tools else [])


def pydantic_plain(hosts: Hosts, question: str = QUESTION) -> str:
    return pydantic_agent(hosts).run_sync(question).output


def pydantic_stream(hosts: Hosts, question: str = QUESTION) -> list[str]:
    with pydantic_agent(hosts).run_stream_sync(question) as stream:
        return ["".join(stream.stream_text(delta=True))]


def pydantic_tools(hosts: Hosts, question: str = QUESTION) -> str:
    return pydantic_agent(hosts, tools=True).run_sync(question).output


def pydantic_async(hosts: Hosts, question: str = QUESTION) -> str:
    async def main() -> str:
        return (await pydantic_agent(hosts, tools=True).run(question)).output

    return asyncio.run(main())


# -- LangChain -----------------------------------------------------------------------------


@langchain_tool
def langchain_weather(city: str) -> str:
    """The weather in a city."""
    return weather(city)


def chat(hosts: Hosts) -> ChatBedrockConverse:
    return ChatBedrockConverse(model=MODEL, region_name=REGION, endpoint_url=hosts.anthropic,
                               config=RETRIES)  # fmt: skip


def langchain_plain(hosts: Hosts, question: str = QUESTION) -> str:
    return str(chat(hosts).invoke(question).content)


def langchain_stream(hosts: Hosts, question: str = QUESTION) -> str:
    return "".join(chunk.text for chunk in chat(hosts).stream(question))


def langchain_tools(hosts: Hosts, question: str = QUESTION) -> str:
    model = chat(hosts).bind_tools([langchain_weather])
    asked: list[Any] = [("user", question)]
    called = model.invoke(asked)
    results = [ToolMessage(langchain_weather.invoke(c["args"]), tool_call_id=c["id"])
               for c in called.tool_calls]  # fmt: skip
    return str(model.invoke([*asked, called, *results]).text)


def langchain_async(hosts: Hosts, question: str = QUESTION) -> str:
    async def main() -> str:
        return str((await chat(hosts).ainvoke(question)).content)

    return asyncio.run(main())


RECIPES: dict[str, tuple[tuple[str, Callable[..., object], object], ...]] = {
    "boto3": (
        ("plain", boto3_plain, ECHO),
        ("stream", boto3_stream, ECHO),
        ("tools", boto3_tools, TOOL_SAYS),
        ("async", aiobotocore_async, f"{ECHO} | {ECHO}"),
    ),
    "strands": (
        ("plain", strands_plain, ECHO),
        ("stream", strands_stream, ECHO),
        ("tools", strands_tools, TOOL_SAYS),
        ("async", strands_async, TOOL_SAYS),
    ),
    "pydantic_ai": (
        ("plain", pydantic_plain, ECHO),
        ("stream", pydantic_stream, [ECHO]),
        ("tools", pydantic_tools, TOOL_SAYS),
        ("async", pydantic_async, TOOL_SAYS),
    ),
    "langchain": (
        ("plain", langchain_plain, ECHO),
        ("stream", langchain_stream, ECHO),
        ("tools", langchain_tools, TOOL_SAYS),
        ("async", langchain_async, ECHO),
    ),
}
CASES = [
    case for name, cells in RECIPES.items() for case in matrix_cases({name: ROWS[name]}, cells)
]


@pytest.mark.parametrize(("framework", "recipe", "expected"), CASES)
def test_recorded_run_replays_offline_and_a_changed_prompt_misses(
    store: Path, framework: str, recipe: Callable[..., object], expected: object
) -> None:
    assert_recipe_replays(store, recipe, expected, partial(recipe, question=CHANGED))


def test_a_replayed_429_is_retried_as_recorded(store: Path) -> None:
    """Bedrock's throttling answer and botocore's retry replay as two sends; botocore
    waits its own backoff before the retry (up to 1 s, whatever the answer says), in a
    replay too, so the matrix's "429 replayed at once" cell is left out for these rows."""
    expected = record(store, boto3_plain, faults=["429", None])
    assert expected == ECHO
    result, _, sent = replay_timed(store, boto3_plain, Hosts())
    assert (result, sent) == (expected, 2)


def counted_tokens(hosts: Hosts) -> tuple[int, str]:
    """Bedrock's token count, as Strands' ``BedrockModel`` (``use_native_token_count``)
    and pydantic-ai's ``count_tokens_before_request`` ask it."""
    model = BedrockModel(model_id=MODEL, region_name=REGION, endpoint_url=hosts.anthropic,
                         boto_client_config=RETRIES, use_native_token_count=True)  # fmt: skip
    counted = asyncio.run(model.count_tokens([{"role": "user", "content": [{"text": QUESTION}]}]))
    limits = UsageLimits(input_tokens_limit=10_000, count_tokens_before_request=True)
    answered = pydantic_agent(hosts).run_sync(QUESTION, usage_limits=limits)
    return counted, answered.output


def test_a_token_count_records_and_replays(store: Path) -> None:
    """The simulator answered Bedrock's ``count-tokens`` 404: Strands fell back on its own
    estimate while recording, and pydantic-ai's run stopped with the recording."""
    expected = record(store, counted_tokens)
    assert expected[0] > 0 and expected[1] == ECHO
    assert replay_three_times(store, counted_tokens) == expected
    assert '/count-tokens"' in store.read_text("utf-8")  # the same request from both
