"""LangChain chat models (langchain-anthropic, langchain-openai), recorded and replayed.

Both models send through the official SDKs, whose retries (``max_retries``) are on.
LangChain's own ``.with_retry()`` retries every ``Exception`` unless told which
ones: the recipe names the provider's transient errors, and the last test shows
what the default does to a miss. The models run inside a LangGraph graph too (a
``ToolNode``, a checkpointer carrying the conversation, a node's ``RetryPolicy``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest
from langchain_anthropic import ChatAnthropic
from langchain_core.callbacks import UsageMetadataCallbackHandler
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI, OpenAIEmbeddings
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import Command, RetryPolicy, interrupt
from pydantic import BaseModel

from replaygate.errors import FixtureMismatchError, LiveSendFailedWarning, ReplayErrorCaughtWarning
from replaygate.http import intercept
from replaygate.models.types import Message, ModelResponse, ToolCall, ToolSpec
from replaygate.sim import ScriptBehavior, Simulator
from replaygate.sim.behaviors import EchoBehavior
from tests_frameworks.harness import (
    CAUGHT,
    CHANGED,
    CLAUDE,
    GPT,
    QUESTION,
    UNUSED_LOOPBACK,
    WEATHER_ARGS,
    Hosts,
    assert_marker_alone_records_and_replays,
    assert_one_miss,
    assert_recipe_replays,
    assert_retry_replayed_at_once,
    inner_pytest,
    matrix_cases,
    record,
    replay_three_times,
    retry_cases,
    run_replay_errors,
    weather,
)
from tests_frameworks.page import assert_page_imports_resolve

PROVIDERS = {"anthropic": "Anthropic model", "openai": "OpenAI model"}
TRANSIENT = (
    anthropic.RateLimitError,
    anthropic.APIConnectionError,
    anthropic.InternalServerError,
    openai.RateLimitError,
    openai.APIConnectionError,
    openai.InternalServerError,
)
"""What ``.with_retry()`` should retry: the providers' transient errors, not a miss."""


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return weather(city)


def model(hosts: Hosts, provider: str, max_retries: int = 3) -> BaseChatModel:
    """The provider's chat model, with the SDK's retries on unless told."""
    if provider == "anthropic":
        return ChatAnthropic(
            model=CLAUDE, base_url=hosts.anthropic, max_retries=max_retries, max_tokens=64
        )
    return ChatOpenAI(model=GPT, base_url=hosts.openai, max_retries=max_retries)


def text(message: BaseMessage) -> str:
    """The text of a message or chunk, whichever shape its content has."""
    if isinstance(message.content, str):
        return message.content
    return "".join(str(part.get("text", "")) for part in message.content if isinstance(part, dict))


def plain(provider: str, hosts: Hosts, question: str = QUESTION) -> str:
    chain = model(hosts, provider).with_retry(retry_if_exception_type=TRANSIENT)
    return text(chain.invoke(question))


def streamed(provider: str, hosts: Hosts, question: str = QUESTION) -> str:
    return "".join(text(chunk) for chunk in model(hosts, provider).stream(question))


def with_tools(provider: str, hosts: Hosts, question: str = QUESTION) -> list[Any]:
    calls = model(hosts, provider).bind_tools([get_weather]).invoke(question).tool_calls
    return [(call["name"], call["args"]) for call in calls]


def in_async(provider: str, hosts: Hosts, question: str = QUESTION) -> tuple[str, str]:
    async def main() -> tuple[str, str]:
        chat = model(hosts, provider)
        whole = await chat.ainvoke(question)
        parts = [text(chunk) async for chunk in chat.astream(question)]
        return text(whole), "".join(parts)

    return asyncio.run(main())


ECHO = f"echo: {QUESTION}"
CASES = matrix_cases(
    PROVIDERS,
    (
        ("plain", plain, ECHO),
        ("stream", streamed, ECHO),
        ("tools", with_tools, [("get_weather", {"city": "Paris"})]),
        ("async", in_async, (ECHO, ECHO)),
    ),
)


@pytest.mark.parametrize(("provider", "recipe", "expected"), CASES)
def test_recorded_run_replays_offline_and_a_changed_prompt_misses(
    store: Path, provider: str, recipe: Callable[..., object], expected: object
) -> None:
    run, miss = partial(recipe, provider), partial(recipe, provider, question=CHANGED)
    assert_recipe_replays(store, run, expected, miss, hosts=UNUSED_LOOPBACK)


@pytest.mark.parametrize("provider", retry_cases(PROVIDERS))
def test_replayed_429_is_retried_at_once(store: Path, provider: str) -> None:
    assert_retry_replayed_at_once(store, partial(plain, provider), UNUSED_LOOPBACK)


class Forecast(BaseModel):
    """A structured output."""

    city: str
    sky: str


class CallsOrJson:
    """Calls the first tool offered twice in one turn (the structured output's tool with
    a forecast), or answers a forecast in JSON when offered none."""

    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        sunny = {"city": "Paris", "sky": "sunny"}
        if not tools:
            return ModelResponse(text=json.dumps(sunny))
        name = tools[0].name
        given = [sunny] if name == "Forecast" else [WEATHER_ARGS, {"city": "Rome"}]
        calls = tuple(ToolCall(id=f"call_{i}", name=name, arguments=a) for i, a in enumerate(given))
        return ModelResponse(tool_calls=calls, stop_reason="tool_use")


def chat_model(hosts: Hosts, provider: str) -> BaseChatModel:
    """The provider's model, or OpenAI's on its Responses API (``use_responses_api``)."""
    if provider != "responses":
        return model(hosts, provider)
    return ChatOpenAI(model=GPT, base_url=hosts.openai, max_retries=3, use_responses_api=True)


def structured_stream(provider: str, hosts: Hosts, question: str = QUESTION) -> list[Any]:
    """``with_structured_output``, streamed: by a tool call, and by the API's JSON schema
    where the provider has one."""
    methods = ["function_calling"] + (["json_schema"] if provider != "anthropic" else [])
    return [
        list(
            chat_model(hosts, provider).with_structured_output(Forecast, method=m).stream(question)
        )[-1].model_dump()
        for m in methods
    ]


def parallel_astream(provider: str, hosts: Hosts, question: str = QUESTION) -> list[Any]:
    """Two tool calls in one turn, streamed (``astream``) and merged chunk by chunk."""

    async def main() -> list[Any]:
        merged: Any = None
        async for chunk in chat_model(hosts, provider).bind_tools([get_weather]).astream(question):
            merged = chunk if merged is None else merged + chunk
        return [(call["name"], call["args"]) for call in merged.tool_calls]

    return asyncio.run(main())


SUNNY = {"city": "Paris", "sky": "sunny"}
TWO_CALLS = [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Rome"})]
MORE = [
    pytest.param(recipe, provider, expected, id=f"{provider}-{recipe.__name__}")
    for provider in ("anthropic", "openai", "responses")
    for recipe, expected in (
        (structured_stream, [SUNNY] if provider == "anthropic" else [SUNNY, SUNNY]),
        (parallel_astream, TWO_CALLS),
    )
]


@pytest.mark.parametrize(("recipe", "provider", "expected"), MORE)
def test_more_usages_record_from_the_simulator_and_replay(
    store: Path, recipe: Callable[..., object], provider: str, expected: object
) -> None:
    """Structured output streamed, parallel tool calls streamed; on OpenAI's Responses API
    too."""
    run, miss = partial(recipe, provider), partial(recipe, provider, question=CHANGED)
    assert_recipe_replays(store, run, expected, miss, hosts=UNUSED_LOOPBACK, behavior=CallsOrJson())


def embedded(hosts: Hosts, question: str = QUESTION) -> tuple[list[int], bool]:
    """Documents and a query embedded (``OpenAIEmbeddings``, sync and async): the vectors'
    sizes, and whether the query's is the same text's document's. Texts are sent as they
    are (``check_embedding_ctx_length=False``): tiktoken, which cuts them into token ids
    otherwise, fetches its encoding from the network on first use."""
    embeddings = OpenAIEmbeddings(
        model="text-embedding-3-small",
        base_url=hosts.openai,
        max_retries=3,
        check_embedding_ctx_length=False,
    )
    documents = embeddings.embed_documents([question, "Another document."])
    query = asyncio.run(embeddings.aembed_query(question))
    return [len(vector) for vector in documents], documents[0] == query


def test_embeddings_record_from_the_simulator_and_replay(store: Path) -> None:
    """The simulator answered ``/v1/embeddings`` 404 (recording stopped with
    ``UnservedRouteError``), and the secret scan refused the SDK's base64 vectors."""
    expected = ([1536, 1536], True)
    assert_recipe_replays(store, embedded, expected, partial(embedded, question=CHANGED))


def test_with_retry_left_to_its_default_resends_a_miss(store: Path) -> None:
    record(store, partial(plain, "openai"))
    chain = model(UNUSED_LOOPBACK, "openai").with_retry(
        stop_after_attempt=3, wait_exponential_jitter=False
    )
    with intercept(store) as exchange, pytest.raises(FixtureMismatchError):
        chain.invoke(CHANGED)
    assert exchange.sent == 3


def two_calls_retried(provider: str, hosts: Hosts, question: str = QUESTION) -> list[str]:
    """A graph node that asks two questions, the second ``question``, retried on any
    error by its ``RetryPolicy`` (``retry_on=Exception``), three attempts."""
    chat = model(hosts, provider, max_retries=0)

    def ask_twice(state: MessagesState) -> dict[str, Any]:
        return {"messages": [chat.invoke("Hello."), chat.invoke(question)]}

    policy = RetryPolicy(retry_on=Exception, max_attempts=3, initial_interval=0.01, jitter=False)
    builder = StateGraph(MessagesState)
    builder.add_node("ask", ask_twice, retry_policy=policy)
    builder.add_edge(START, "ask")
    builder.add_edge("ask", END)
    return [text(m) for m in builder.compile().invoke({"messages": []})["messages"]]


def test_a_node_retried_after_its_second_request_missed_names_that_miss(store: Path) -> None:
    # the retry sent the first request, answered, once more than recorded, and the test
    # failed with 'recorded 1 time and sent 3 times', advising to re-record or repeat_last
    record(store, partial(two_calls_retried, "openai"))
    with (
        pytest.warns(ReplayErrorCaughtWarning),  # the retry caught the changed request's miss
        intercept(store) as exchange,
        pytest.raises(FixtureMismatchError) as raised,
    ):
        two_calls_retried("openai", UNUSED_LOOPBACK, CHANGED)
    assert exchange.sent == 4  # Hello., the changed question, then Hello. twice more
    assert raised.value.kind == "sent-more"
    notes = "\n".join(raised.value.__notes__)
    assert "it was sent again after another request missed (key " in notes
    assert "nearest recorded request in body.messages[0].content)" in notes


def retried_by_langchain(provider: str, hosts: Hosts, question: str = QUESTION) -> str:
    """``.with_retry()`` retrying the 429 itself, the SDK's retries off, without its backoff
    (``wait_exponential_jitter``, on by default, waits a second and more in a replay too)."""
    chain = model(hosts, provider, max_retries=0).with_retry(
        retry_if_exception_type=TRANSIENT, wait_exponential_jitter=False
    )
    return text(chain.invoke(question))


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_429_with_retry_retries_replays_at_once(store: Path, provider: str) -> None:
    assert_retry_replayed_at_once(store, partial(retried_by_langchain, provider), UNUSED_LOOPBACK)


def asked_in_its_own_loop(chat: ChatAnthropic, question: str) -> Any:
    """The answer to ``question``, asked in an event loop of its own."""
    return asyncio.run(chat.ainvoke(question)).content


def test_chat_anthropic_records_in_a_second_event_loop_through_the_sdk_s_retry(
    store: Path,
) -> None:
    """ChatAnthropic shares one async client among its models: a recording's first send
    in another event loop meets the connection the last loop left (``Event loop is
    closed``). The SDK sends it again on a new one, so the recording is whole and replays;
    with ``max_retries=0`` it fails (docs/frameworks.md). Each send the closed loop failed
    is said not to be recorded."""
    questions = ("first loop", "second loop")
    with (
        pytest.warns(LiveSendFailedWarning, match=r"\(RuntimeError: Event loop is closed\)"),
        Simulator(behavior="echo") as sim,
        intercept(store, "record-missing", approve_live=True, live_origin=sim.url),
    ):
        chat = ChatAnthropic(model=CLAUDE, max_tokens=64)
        recorded = [asked_in_its_own_loop(chat, q) for q in questions]
        unretried = ChatAnthropic(model=CLAUDE, max_tokens=64, max_retries=0)
        with pytest.raises(anthropic.APIConnectionError, match="Connection error"):
            asked_in_its_own_loop(unretried, "third loop")
    assert recorded == [f"echo: {q}" for q in questions]
    with intercept(store):
        assert [asked_in_its_own_loop(chat, q) for q in questions] == recorded


def stream_with_usage(hosts: Hosts, question: str = QUESTION) -> list[Any]:
    """``ChatOpenAI.stream()`` asking for the stream's usage whatever its ``base_url``."""
    chat = ChatOpenAI(model=GPT, base_url=hosts.openai, max_retries=3, stream_usage=True)
    return [(text(chunk), chunk.usage_metadata) for chunk in chat.stream(question)]


def test_a_stream_given_stream_usage_replays_at_the_real_host(store: Path) -> None:
    """Recorded from the simulator's base_url, replayed at OpenAI's own (docs/frameworks.md:
    ChatOpenAI asks for a stream's usage from OpenAI's API only, unless told)."""
    expected = record(store, stream_with_usage)
    assert any(usage for _, usage in expected)
    assert replay_three_times(store, stream_with_usage) == expected


def test_a_client_of_its_own_changes_what_a_stream_of_chat_openai_sends(store: Path) -> None:
    """Given ``http_async_client`` (the page's fix for ``Event loop is closed``), a model
    built for OpenAI's API asks no stream usage: its stream misses one recorded without
    it, naming the field, as docs/frameworks.md says."""

    def streamed(**given: Any) -> str:
        chat = ChatOpenAI(model=GPT, max_retries=0, **given)
        return "".join(text(chunk) for chunk in chat.stream(QUESTION))

    with (
        Simulator(behavior="echo") as sim,
        intercept(store, "record-missing", approve_live=True, live_origin=sim.url),
    ):
        assert streamed() == ECHO
    with intercept(store):
        assert streamed() == ECHO
    with pytest.raises(FixtureMismatchError) as miss, intercept(store):
        streamed(http_async_client=openai.DefaultAsyncHttpxClient())
    assert "body.stream_options: {'include_usage': True} != <missing>" in str(miss.value)


RULES = "You answer questions about the weather. " * 40


def cached(hosts: Hosts, ttl: str | None = None) -> list[Any]:
    """A question asked bare, then under a system prompt marked for Anthropic's prompt
    cache (a content block's ``cache_control``), given a ``ttl`` or not."""
    chat = model(hosts, "anthropic")
    mark = {"type": "ephemeral", **({} if ttl is None else {"ttl": ttl})}
    system = SystemMessage(content=[{"type": "text", "text": RULES, "cache_control": mark}])
    replies = [chat.invoke(QUESTION), chat.invoke([system, HumanMessage(QUESTION)])]
    return [reply.usage_metadata["input_token_details"]["cache_read"] for reply in replies]


def test_a_prompt_cache_mark_changed_misses_naming_the_mark(store: Path) -> None:
    """The simulator keeps no cache (its reads are 0); a ``ttl`` added to the mark misses
    naming it, compared with the request sending that system prompt, not the bare one."""
    assert record(store, cached, behavior=EchoBehavior()) == [0, 0]
    assert replay_three_times(store, cached, UNUSED_LOOPBACK) == [0, 0]
    with pytest.raises(FixtureMismatchError) as miss, intercept(store):
        cached(UNUSED_LOOPBACK, ttl="1h")
    assert "body.system[0].cache_control.ttl: <missing> != '1h'" in str(miss.value)


class City(BaseModel):
    """What the structured-output recipe extracts."""

    name: str
    population: int


PARIS = City(name="Paris", population=2100000)


def city_stream(hosts: Hosts, question: str = QUESTION) -> list[dict[str, Any]]:
    """``with_structured_output(City).stream()`` of ``ChatOpenAI`` on the Responses API:
    the parsed objects as they come (read from the response's ``text.format``)."""
    chat = ChatOpenAI(model=GPT, base_url=hosts.openai, max_retries=3, use_responses_api=True)
    return [city.model_dump() for city in chat.with_structured_output(City).stream(question)]


def test_structured_output_streamed_on_the_responses_api_replays(store: Path) -> None:
    answer = ScriptBehavior([ModelResponse(text=PARIS.model_dump_json())])
    miss = partial(city_stream, question=CHANGED)
    expected = [PARIS.model_dump()]
    assert_recipe_replays(
        store, city_stream, expected, miss, hosts=UNUSED_LOOPBACK, behavior=answer
    )


def batched(provider: str, hosts: Hosts) -> list[str]:
    """The same prompt three times, by ``batch`` and by ``abatch``, one at a time
    (``max_concurrency=1``), as docs/frameworks.md says for identical prompts."""
    chat, one_at_a_time = model(hosts, provider), {"max_concurrency": 1}
    prompts = ["Pick a number."] * 3
    replies = chat.batch(prompts, config=one_at_a_time)
    replies += asyncio.run(chat.abatch(prompts, config=one_at_a_time))
    return [text(reply) for reply in replies]


@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_identical_prompts_batched_one_at_a_time_replay_in_their_order(
    store: Path, provider: str
) -> None:
    """Six answers recorded for one request come back in the order recorded, each replay."""
    answers = [f"answer {i}" for i in range(6)]
    script = ScriptBehavior([ModelResponse(text=answer) for answer in answers])
    assert record(store, partial(batched, provider), behavior=script) == answers
    assert replay_three_times(store, partial(batched, provider), UNUSED_LOOPBACK) == answers


QUESTIONS = [f"question {i}" for i in range(6)]


def asked_at_once(hosts: Hosts, questions: Sequence[str] = QUESTIONS) -> list[str]:
    """Distinct questions by ``abatch``, all at once."""
    return [text(reply) for reply in asyncio.run(model(hosts, "anthropic").abatch(questions))]


def test_a_miss_ending_abatch_names_the_inputs_it_held_back(store: Path) -> None:
    """``abatch`` with ``max_concurrency`` raises the first miss while the inputs it holds
    back still wait their turn: a block entered inside the coroutine names them on the miss
    (they send after it, to the network as addressed); entered around ``asyncio.run``,
    which cancels them, it leaves none."""
    assert record(store, asked_at_once) == [f"echo: {q}" for q in QUESTIONS]
    changed, limited = ["changed", *QUESTIONS[1:]], {"max_concurrency": 2}

    async def inside() -> None:
        chat = model(UNUSED_LOOPBACK, "anthropic")
        with intercept(store):
            await chat.abatch(changed, config=limited)

    with pytest.raises(FixtureMismatchError) as missed:
        asyncio.run(inside())
    assert "started inside this intercept() block still run" in missed.value.__notes__[-1]
    chat = model(UNUSED_LOOPBACK, "anthropic")
    with pytest.raises(FixtureMismatchError) as around, intercept(store):
        asyncio.run(chat.abatch(changed, config=limited))
    assert not any("still run" in note for note in getattr(around.value, "__notes__", ()))


def usage_counted(provider: str, hosts: Hosts, question: str = QUESTION) -> list[Any]:
    """The usage a callback handler sums over an ``invoke`` and a ``stream``: what of it
    is there (input and output counted, the prompt cache's reads at 0), as live."""
    handler = UsageMetadataCallbackHandler()
    chat = chat_model(hosts, provider)
    if isinstance(chat, ChatOpenAI):
        chat.stream_usage = True  # asked of a base_url not OpenAI's too
    config: Any = {"callbacks": [handler]}
    chat.invoke(question, config=config)
    streamed: Any = None
    for chunk in chat.stream(question, config=config):
        streamed = chunk if streamed is None else streamed + chunk
    seen = []
    for usage in (streamed.usage_metadata, *handler.usage_metadata.values()):
        details = usage.get("input_token_details", {})
        seen.append(
            (usage["input_tokens"] > 0, usage["output_tokens"] > 0, details.get("cache_read"))
        )
    return seen


@pytest.mark.parametrize("provider", ["anthropic", "openai", "responses"])
def test_usage_metadata_records_from_the_simulator_as_live(store: Path, provider: str) -> None:
    """A stream's usage counted its input (ChatAnthropic read 0 from the simulator's last
    event), and Chat Completions' usage details held the prompt cache's reads, as live."""
    run, miss = partial(usage_counted, provider), partial(usage_counted, provider, question=CHANGED)
    expected = [(True, True, 0), (True, True, 0)]
    assert_recipe_replays(store, run, expected, miss, hosts=UNUSED_LOOPBACK)


def approved(provider: str, hosts: Hosts, question: str = QUESTION) -> list[Any]:
    """A graph whose node drafts an answer, pauses for a person (``interrupt``), and is
    resumed with ``Command(resume=...)``: the node runs again from its start, so its model
    call is sent twice; then a last node answers."""
    chat = model(hosts, provider)

    def draft(state: MessagesState) -> dict[str, Any]:
        reply = chat.invoke(state["messages"])
        verdict = interrupt({"draft": text(reply)})
        return {"messages": [reply, ("user", f"Reviewed: {verdict}.")]}

    def answer(state: MessagesState) -> dict[str, Any]:
        return {"messages": [chat.invoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("draft", draft)
    builder.add_node("answer", answer)
    builder.add_edge(START, "draft")
    builder.add_edge("draft", "answer")
    agent = builder.compile(checkpointer=InMemorySaver())
    thread: Any = {"configurable": {"thread_id": "review"}}
    paused = agent.invoke({"messages": [("user", question)]}, thread)
    resumed = agent.invoke(Command(resume="approved"), thread)
    return [paused["__interrupt__"][0].value, text(resumed["messages"][-1])]


@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_a_graph_paused_by_interrupt_and_resumed_replays(store: Path, provider: str) -> None:
    expected = [{"draft": ECHO}, "echo: Reviewed: approved."]
    run, miss = partial(approved, provider), partial(approved, provider, question=CHANGED)
    assert_recipe_replays(store, run, expected, miss, hosts=UNUSED_LOOPBACK)


@tool("get_weather")
def get_weather_of_a_town(city: str) -> str:
    """The weather in a town."""
    return weather(city)


def graph(hosts: Hosts, provider: str, weather_tool: Any = get_weather) -> CompiledStateGraph:
    """A graph of the model bound to a tool and the tool's ``ToolNode``, its model node
    retried by LangGraph's default ``RetryPolicy``, its conversation kept by a
    checkpointer."""
    bound = model(hosts, provider).bind_tools([weather_tool])

    def call_model(state: MessagesState) -> dict[str, Any]:
        return {"messages": [bound.invoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("model", call_model, retry_policy=RetryPolicy(initial_interval=0.01))
    builder.add_node("tools", ToolNode([weather_tool]))
    builder.add_edge(START, "model")
    builder.add_conditional_edges("model", tools_condition)
    builder.add_edge("tools", "model")
    return builder.compile(checkpointer=InMemorySaver())


def chunk_text(event: Any) -> str:
    """The text a chat model's stream event carries; empty for any other event."""
    return text(event["data"]["chunk"]) if event["event"] == "on_chat_model_stream" else ""


def graph_turns(
    provider: str, hosts: Hosts, question: str = QUESTION, weather_tool: Any = get_weather
) -> list[Any]:
    """Three turns of one thread: ``invoke`` (a tool call, the tool, the answer), then
    ``stream_mode="messages"`` and ``astream_events``: what each streamed, in order,
    and the kinds of the messages the checkpointer holds at the end."""
    agent = graph(hosts, provider, weather_tool)
    thread: Any = {"configurable": {"thread_id": "trip"}}
    agent.invoke({"messages": [("user", question)]}, thread)
    second = {"messages": [("user", "And tomorrow?")]}
    messages = [
        (meta["langgraph_node"], text(chunk))
        for chunk, meta in agent.stream(second, thread, stream_mode="messages")
    ]

    async def third() -> list[tuple[str, str]]:
        turn = {"messages": [("user", "Thanks.")]}
        events = agent.astream_events(turn, thread, version="v2")
        return [(e["event"], e["name"], chunk_text(e)) async for e in events]

    events = asyncio.run(third())
    held = [m.type for m in agent.get_state(thread).values["messages"]]
    return [messages, events, held]


@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_a_langgraph_conversation_replays_and_a_changed_prompt_or_tool_misses(
    store: Path, provider: str
) -> None:
    """A graph's turns replay with the same streamed chunks and events, in the same
    order; a changed question or tool description misses once, naming the field
    (LangGraph's default ``RetryPolicy`` leaves a miss, a ``RuntimeError``, alone)."""
    recorded = record(store, partial(graph_turns, provider))
    held = ["human", "ai", "tool", "ai", "human", "ai", "human", "ai"]
    assert recorded[2] == held
    assert "".join(chunk for _, chunk in recorded[0]) == "echo: And tomorrow?"
    assert "".join(chunk for *_, chunk in recorded[1]) == "echo: Thanks."
    assert replay_three_times(store, partial(graph_turns, provider), UNUSED_LOOPBACK) == recorded
    assert_one_miss(store, partial(graph_turns, provider, question=CHANGED), hosts=UNUSED_LOOPBACK)
    renamed = partial(graph_turns, provider, weather_tool=get_weather_of_a_town)
    miss = assert_one_miss(store, renamed, changed="town", hosts=UNUSED_LOOPBACK)
    path = "tools[0].description" if provider == "anthropic" else "tools[0].function.description"
    assert f"body.{path}: 'The weather in a city.' != 'The weather in a town.'" in str(miss)


TOOL_NODE_TESTS = """
import pytest
from langchain_anthropic import ChatAnthropic
from langchain_core.language_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

pytestmark = pytest.mark.replaygate(fixtures="agent.jsonl")


@tool
def ask_expert(question: str) -> str:
    \"\"\"Asks an expert, a model of its own.\"\"\"
    return ChatAnthropic(model="claude-sonnet-4-6", max_retries=0).invoke(question).content


def ask(**tool_node):
    call = {"name": "ask_expert", "args": {"question": "Lisbon?"}, "id": "call_1"}
    agent = FakeMessagesListChatModel(
        responses=[AIMessage("", tool_calls=[call]), AIMessage("The expert says hello.")]
    )
    builder = StateGraph(MessagesState)
    builder.add_node("model", lambda state: {"messages": [agent.invoke(state["messages"])]})
    builder.add_node("tools", ToolNode([ask_expert], **tool_node))
    builder.add_edge(START, "model")
    builder.add_conditional_edges("model", tools_condition)
    builder.add_edge("tools", "model")
    return builder.compile().invoke({"messages": [("user", "Ask the expert.")]})


def test_the_tool_node_makes_the_miss_the_tool_s_output():
    assert ask(handle_tool_errors=True)["messages"][-1].content == "The expert says hello."


def test_the_tool_node_lets_the_miss_through():
    ask()
"""


def test_a_miss_in_a_tool_a_tool_node_handles_still_fails_the_test(tmp_path: Path) -> None:
    """``ToolNode(handle_tool_errors=True)`` makes a tool's error, a miss of the model the
    tool asks included, the tool's output, and the graph goes on to an answer: the plugin
    fails that test at teardown with the miss. By default (``handle_tool_errors`` left
    out) the ``ToolNode`` lets the miss through, once."""
    summary, output = run_replay_errors(tmp_path, TOOL_NODE_TESTS)
    assert set(summary) == {
        ("ERROR", "test_the_tool_node_makes_the_miss_the_tool_s_output"),
        ("FAILED", "test_the_tool_node_lets_the_miss_through"),
    }, output
    handled = summary["ERROR", "test_the_tool_node_makes_the_miss_the_tool_s_output"]
    assert handled.startswith(CAUGHT), output
    reason = summary["FAILED", "test_the_tool_node_lets_the_miss_through"]
    assert reason.startswith("replaygate.errors.FixtureMismatchError"), output


USER_TESTS = """
import asyncio

import pytest
from langchain_anthropic import ChatAnthropic
from langchain_openai import ChatOpenAI


@pytest.mark.replaygate(fixtures="agent.jsonl")
class TestChat:
    def test_claude_answers(self):
        chat = ChatAnthropic(model="claude-sonnet-4-6")
        assert chat.invoke(QUESTION).content == f"echo: {QUESTION}"

    def test_gpt_answers_async(self):
        chat = ChatOpenAI(model="gpt-4o")
        assert asyncio.run(chat.ainvoke(QUESTION)).content == f"echo: {QUESTION}"


@pytest.mark.replaygate(fixtures="agent.jsonl")
def test_changed_question():
    ChatAnthropic(model="claude-sonnet-4-6").invoke(CHANGED)
"""


def test_the_marker_alone_records_from_the_simulator_and_replays(tmp_path: Path) -> None:
    assert_marker_alone_records_and_replays(tmp_path, USER_TESTS, fixtures=2)


FALLBACK_TEST = """
import pytest
from langchain_anthropic import ChatAnthropic
from langchain_core.language_models import FakeListChatModel

pytestmark = pytest.mark.replaygate(fixtures="agent.jsonl")


def test_fallback_answers():
    chat = ChatAnthropic(model="claude-sonnet-4-6", max_retries=0).with_fallbacks(
        [FakeListChatModel(responses=["fallback"])]
    )
    assert chat.invoke("a question never recorded").content == "fallback"
"""


def test_a_miss_caught_by_with_fallbacks_still_fails_the_test(tmp_path: Path) -> None:
    """with_fallbacks catches the miss and answers from the fallback: the test's own
    assertion passes, and replaygate fails it at teardown with the miss."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (tmp_path / "test_fallback.py").write_text(FALLBACK_TEST, encoding="utf-8")
    done = inner_pytest(tmp_path, "-rE")
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert "ERROR at teardown of test_fallback_answers" in output, output
    assert "caught a replay error and went on" in output, output
    assert "no fixture recorded for this HTTP request" in output, output


TRACED_TESTS = """
import pytest
from langchain_core.runnables import RunnableLambda


@pytest.mark.replaygate(fixtures="agent.jsonl", expect_requests=False)
def test_replays():
    pass


def test_a_traced_chain():
    assert RunnableLambda(lambda x: x + 1).invoke(1) == 2
"""


def test_langsmith_tracing_left_on_sends_nothing_after_a_replaying_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """LangSmith's client sends the runs it holds from a thread of its own, which the
    interpreter's exit waits for: it stays offline then too, each attempt named."""
    monkeypatch.setenv("LANGSMITH_TRACING", "true")
    monkeypatch.setenv("LANGSMITH_API_KEY", "lsv2-placeholder")
    monkeypatch.setenv("LANGSMITH_ENDPOINT", "https://langsmith.invalid")
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (tmp_path / "test_traced.py").write_text(TRACED_TESTS, encoding="utf-8")
    done = inner_pytest(tmp_path, "--replaygate-strict")
    assert done.returncode == 0, done.stdout + done.stderr
    refused = [line for line in done.stderr.splitlines() if "refused at interpreter exit" in line]
    assert refused, done.stderr
    assert all("'langsmith.invalid'" in line and "langsmith" in line for line in refused), refused


def test_the_page_recipe_imports_what_exists() -> None:
    """docs/frameworks.md's code for this framework parses and imports only what exists."""
    assert_page_imports_resolve("LangChain")
