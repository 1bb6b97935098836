"""pydantic-ai agents on Anthropic and OpenAI models, recorded and replayed by intercept()."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from pydantic_ai import (
    Agent,
    Embedder,
    FunctionToolResultEvent,
    ModelRetry,
    NativeOutput,
    RunContext,
    Tool,
    ToolOutput,
)
from pydantic_ai.capabilities import ProcessHistory
from pydantic_ai.capabilities.web_search import WebSearch
from pydantic_ai.embeddings.openai import OpenAIEmbeddingModel
from pydantic_ai.exceptions import UnexpectedModelBehavior
from pydantic_ai.messages import ModelMessage, ThinkingPart
from pydantic_ai.models import Model
from pydantic_ai.models.anthropic import AnthropicModel, AnthropicModelSettings
from pydantic_ai.models.openai import (
    OpenAIChatModel,
    OpenAIResponsesModel,
    OpenAIResponsesModelSettings,
)
from pydantic_ai.providers.anthropic import AnthropicProvider
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.settings import ModelSettings, ToolOrOutput
from pydantic_ai.usage import UsageLimits

from replaygate.errors import FixtureMismatchError
from replaygate.http import intercept
from replaygate.models.types import Message, ModelResponse, ToolCall, ToolSpec
from replaygate.sim import EchoBehavior
from tests_frameworks.harness import (
    CAUGHT,
    CHANGED,
    CLAUDE,
    GPT,
    QUESTION,
    WEATHER_ARGS,
    Hosts,
    Sent,
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
from tests_frameworks.page import assert_page_imports_resolve, python_blocks

PROVIDERS = {"anthropic": "Anthropic model", "openai": "OpenAI model"}


def model(hosts: Hosts, provider: str) -> Model:
    """The provider's model, pointed at ``hosts`` (the real API when replaying)."""
    if provider == "anthropic":
        return AnthropicModel(CLAUDE, provider=AnthropicProvider(base_url=hosts.anthropic))
    return OpenAIChatModel(GPT, provider=OpenAIProvider(base_url=hosts.openai))


def agent(hosts: Hosts, provider: str, *, tools: bool = False) -> Agent[None, str]:
    """An agent with the SDK's retries turned on, offering the weather tool if asked."""
    return Agent(
        model(hosts, provider),
        tools=[weather] if tools else [],
        model_settings={"max_retries": 3},
    )


def plain(provider: str, hosts: Hosts, question: str = QUESTION) -> str:
    return agent(hosts, provider).run_sync(question).output


def with_tools(provider: str, hosts: Hosts, question: str = QUESTION) -> str:
    return agent(hosts, provider, tools=True).run_sync(question).output


def streamed(provider: str, hosts: Hosts, question: str = QUESTION) -> list[str]:
    with agent(hosts, provider).run_stream_sync(question) as stream:
        return list(stream.stream_text(delta=True))


def in_async(provider: str, hosts: Hosts, question: str = QUESTION) -> str:
    async def main() -> str:
        run = agent(hosts, provider, tools=True).run(question)
        return (await run).output

    return asyncio.run(main())


CASES = matrix_cases(
    PROVIDERS,
    (
        ("plain", plain, f"echo: {QUESTION}"),
        ("stream", streamed, [f"echo: {QUESTION}"]),
        ("tools", with_tools, "The tool says: sunny in Paris"),
        ("async", in_async, "The tool says: sunny in Paris"),
    ),
)


@pytest.mark.parametrize(("provider", "recipe", "expected"), CASES)
def test_recorded_run_replays_offline_and_a_changed_prompt_misses(
    store: Path, provider: str, recipe: Callable[..., object], expected: object
) -> None:
    run, miss = partial(recipe, provider), partial(recipe, provider, question=CHANGED)
    assert_recipe_replays(store, run, expected, miss)


@pytest.mark.parametrize("provider", retry_cases(PROVIDERS))
def test_replayed_429_is_retried_at_once(store: Path, provider: str) -> None:
    assert_retry_replayed_at_once(store, partial(plain, provider))


class City(BaseModel):
    """A structured output."""

    city: str
    country: str


FRANCE = {"city": "Paris", "country": "FR"}


class TwoCallsOrJson:
    """Calls the first tool offered twice in one turn (the output tool with a city), then
    answers with the results, and a later question with how many came before; offered no
    tool, answers the city in JSON."""

    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        if not tools:
            return ModelResponse(text=json.dumps(FRANCE))
        results = [m.content for m in messages if m.role == "tool"]
        if results and messages[-1].role == "user":  # a later turn, after the tool's
            return ModelResponse(text=f"echo: {messages[-1].content} ({len(results)} before)")
        if results:
            return ModelResponse(text=f"results: {'; '.join(results)}")
        name = tools[0].name
        arguments = [FRANCE, FRANCE] if name == "final_result" else [WEATHER_ARGS, ROME]
        calls = tuple(
            ToolCall(id=f"call_{i}", name=name, arguments=a) for i, a in enumerate(arguments)
        )
        return ModelResponse(tool_calls=calls, stop_reason="tool_use")


ROME = {"city": "Rome"}


def responses_model(hosts: Hosts) -> Model:
    return OpenAIResponsesModel(GPT, provider=OpenAIProvider(base_url=hosts.openai))


def structured(provider: str, hosts: Hosts, question: str = QUESTION) -> dict[str, str]:
    """An output type, as pydantic-ai asks for it of each model: an output tool, or the
    API's own structured output (NativeOutput) for OpenAI's Responses model."""
    chosen = responses_model(hosts) if provider == "responses" else model(hosts, provider)
    output = NativeOutput(City) if provider == "responses" else City
    return Agent(chosen, output_type=output).run_sync(question).output.model_dump()


def parallel_events(provider: str, hosts: Hosts, question: str = QUESTION) -> list[str]:
    """Two tool calls in one streamed turn, run as events (``run_stream_events``); their
    results sorted: pydantic-ai runs the two sync tool calls at once in threads, and their
    events come in the order the threads finish, replayed or live."""
    chosen = responses_model(hosts) if provider == "responses" else model(hosts, provider)

    async def main() -> list[str]:
        agent = Agent(chosen, tools=[weather])
        async with agent.run_stream_events(question) as events:
            results = [
                str(event.part.content)
                async for event in events
                if isinstance(event, FunctionToolResultEvent)
            ]
        return sorted(results)

    return asyncio.run(main())


def two_runs(provider: str, hosts: Hosts, question: str = QUESTION) -> tuple[str, str]:
    """A second run continuing the first's messages (``message_history``)."""
    chosen = responses_model(hosts) if provider == "responses" else model(hosts, provider)
    agent = Agent(chosen, tools=[weather])
    first = agent.run_sync(question)
    second = agent.run_sync("And tomorrow?", message_history=first.all_messages())
    return first.output, second.output


MORE = [
    pytest.param(recipe, provider, expected, id=f"{provider}-{recipe.__name__}")
    for provider in ("anthropic", "openai", "responses")
    for recipe, expected in (
        (structured, FRANCE),
        (parallel_events, ["sunny in Paris", "sunny in Rome"]),
        (two_runs, ("results: sunny in Paris; sunny in Rome", "echo: And tomorrow? (2 before)")),
    )
]


@pytest.mark.parametrize(("recipe", "provider", "expected"), MORE)
def test_more_usages_record_from_the_simulator_and_replay(
    store: Path, recipe: Callable[..., object], provider: str, expected: object
) -> None:
    """Structured output, parallel tool calls streamed as events, a conversation over two
    runs; on OpenAI's Responses model too."""
    run, miss = partial(recipe, provider), partial(recipe, provider, question=CHANGED)
    assert_recipe_replays(store, run, expected, miss, behavior=TwoCallsOrJson())


def searching(hosts: Hosts, question: str = QUESTION) -> str:
    """Claude offered its server-side web search (the ``WebSearch`` capability) beside a
    tool of the agent's own, which the simulated model calls."""
    claude = AnthropicModel(
        "claude-sonnet-4-6", provider=AnthropicProvider(base_url=hosts.anthropic)
    )
    return Agent(claude, capabilities=[WebSearch()], tools=[weather]).run_sync(question).output


def test_claude_s_web_search_records_from_the_simulator_and_replays(store: Path) -> None:
    """The simulator refused the server tool (400: ``tools.0.input_schema: Field
    required``), which the real API runs."""
    expected = "The tool says: sunny in Paris"
    assert_recipe_replays(store, searching, expected, partial(searching, question=CHANGED))


THINKING = AnthropicModelSettings(anthropic_thinking={"type": "enabled", "budget_tokens": 1024})
"""Claude's extended thinking, as pydantic-ai turns it on."""
REASONING = OpenAIResponsesModelSettings(
    openai_reasoning_effort="low", openai_reasoning_summary="auto"
)
"""An OpenAI reasoning model's effort and summary, as pydantic-ai asks for them."""


def unthinking(messages: list[ModelMessage]) -> list[ModelMessage]:
    """A history processor leaving the thinking out, as one saving tokens might."""
    return [
        replace(m, parts=[p for p in m.parts if not isinstance(p, ThinkingPart)]) for m in messages
    ]


def thinker(provider: str, hosts: Hosts, sent: Sent | None, *, unthought: bool) -> Agent[None, str]:
    """An agent offering the weather tool on Claude thinking, or on a reasoning model of
    OpenAI's Responses API; ``sent`` keeps the bodies it sends; ``unthought`` leaves the
    thinking out of what is sent back (:func:`unthinking`)."""
    client = sent.client() if sent else None
    model: Model
    if provider == "anthropic":
        claude = AnthropicProvider(base_url=hosts.anthropic, http_client=client)
        model, settings = AnthropicModel(CLAUDE, provider=claude), THINKING
    else:
        gpt = OpenAIProvider(base_url=hosts.openai, http_client=client)
        model, settings = OpenAIResponsesModel("gpt-5-mini", provider=gpt), REASONING
    processors = [ProcessHistory(unthinking)] if unthought else []
    return Agent(model, tools=[weather], model_settings=settings, capabilities=processors)


def thought_through(
    provider: str,
    hosts: Hosts,
    question: str = QUESTION,
    *,
    stream: bool = False,
    sent: Sent | None = None,
    unthought: bool = False,
) -> tuple[str, list[tuple[str, str | None]]]:
    """The model thinks before its tool call and after the tool's result, which
    pydantic-ai sends back with the turn's thinking: the output and each thinking part's
    text and signature (a reasoning item's ``encrypted_content``)."""
    agent = thinker(provider, hosts, sent, unthought=unthought)
    if stream:
        with agent.run_stream_sync(question) as run:
            output, messages = run.get_output(), run.all_messages()
    else:
        result = agent.run_sync(question)
        output, messages = result.output, result.all_messages()
    thoughts = [
        (part.content, part.signature)
        for message in messages
        for part in message.parts
        if isinstance(part, ThinkingPart)
    ]
    return output, thoughts


THOUGHT_SENT_BACK = {"anthropic": "messages[1].content[0]", "responses": "input[1]"}
"""Where the request after the tool call carries the thinking before it."""


def sent_back(provider: str, body: dict[str, Any]) -> tuple[str, str]:
    """The text and signature of the thought in ``body``, the request after the tool call."""
    if provider == "anthropic":
        block = body["messages"][1]["content"][0]
        assert set(block) == {"type", "thinking", "signature"} and block["type"] == "thinking"
        return block["thinking"], block["signature"]
    item = body["input"][1]
    assert item["type"] == "reasoning", item
    return item["summary"][0]["text"], item["encrypted_content"]


@pytest.mark.parametrize("stream", [False, True], ids=["run_sync", "run_stream_sync"])
@pytest.mark.parametrize("provider", ["anthropic", "responses"])
def test_thinking_goes_back_with_the_tool_result_and_replays(
    store: Path, provider: str, stream: bool
) -> None:
    """The thought before the tool call goes back, sealed, in the request carrying the
    tool's result (the simulator checks its seal, as the APIs do); the replayed run sends
    the very bytes the recording run sent, and one leaving the thinking out of its history
    misses, once, naming it."""
    recorded, replayed = Sent(), Sent()
    run = partial(thought_through, provider, stream=stream)
    output, thoughts = record(store, partial(run, sent=recorded))
    assert output == "The tool says: sunny in Paris"
    assert [bool(signature) for _, signature in thoughts] == [True, True]
    assert replay_three_times(store, run) == (output, thoughts)
    with intercept(store):
        run(Hosts(), sent=replayed)
    assert replayed.bodies == recorded.bodies
    assert sent_back(provider, replayed.json(1)) == thoughts[0]
    assert_one_miss(store, partial(run, question=CHANGED))
    with intercept(store) as exchange, pytest.raises(FixtureMismatchError) as caught:
        run(Hosts(), unthought=True)
    assert (exchange.sent, exchange.replays) == (2, 1)  # the question, then the miss
    (missing,) = caught.value.differences  # the thought the recording sent back
    assert missing.startswith(f"body.{THOUGHT_SENT_BACK[provider]}: {{"), missing
    assert missing.endswith("!= <missing>"), missing


def thought_output(
    hosts: Hosts, question: str = QUESTION, *, native: bool = True
) -> dict[str, str]:
    """Claude's extended thinking beside an output type: as the API's own structured output
    (``output_config.format``, pydantic-ai's default on a model it knows takes one), or as an
    output tool (``ToolOutput``), whose call pydantic-ai cannot force beside thinking (it
    sends ``tool_choice`` ``auto``, as the API refuses a forced one)."""
    output = City if native else ToolOutput(City)
    claude = AnthropicModel(  # a model pydantic-ai knows takes a structured output
        "claude-sonnet-4-6", provider=AnthropicProvider(base_url=hosts.anthropic)
    )
    agent = Agent(claude, output_type=output, model_settings=THINKING)
    return agent.run_sync(question).output.model_dump()


def test_claude_thinking_beside_an_output_type_records_from_echo_as_native_output(
    store: Path,
) -> None:
    """An output tool, not forced beside thinking, is not called by echo, which calls a tool
    only when forced: it answers text and the recording fails on pydantic-ai's output retries,
    as the page says; the default output, the API's own structured output on
    claude-sonnet-4-6, records from echo, replays, and misses once."""
    tool_store = store.with_name("output_tool.jsonl")
    with pytest.raises(UnexpectedModelBehavior, match="output retries"):
        record(tool_store, partial(thought_output, native=False), behavior=EchoBehavior())
    expected = record(store, thought_output, behavior=EchoBehavior())
    assert expected == {"city": f"echo: {QUESTION}", "country": f"echo: {QUESTION}"}
    assert replay_three_times(store, thought_output) == expected
    assert_one_miss(store, partial(thought_output, question=CHANGED))


def embedded(hosts: Hosts, question: str = QUESTION) -> tuple[list[int], bool]:
    """Documents embedded, then a query (``Embedder``, sync and async): the vectors'
    sizes, and whether the same text got the same vector."""

    def embedder() -> Embedder:  # one each: its client's connections belong to one loop
        provider = OpenAIProvider(base_url=hosts.openai)
        return Embedder(OpenAIEmbeddingModel("text-embedding-3-small", provider=provider))

    documents = embedder().embed_documents_sync([question, "Another document."]).embeddings
    query = asyncio.run(embedder().embed_query(question)).embeddings[0]
    return [len(vector) for vector in documents], list(documents[0]) == list(query)


def test_embeddings_record_from_the_simulator_and_replay(store: Path) -> None:
    """The simulator answered ``/v1/embeddings`` 404 (recording stopped with
    ``UnservedRouteError``), and the secret scan refused the SDK's base64 vectors."""
    expected = ([1536, 1536], True)
    assert_recipe_replays(store, embedded, expected, partial(embedded, question=CHANGED))


class Span(BaseModel):
    """A structured output holding a tuple: a JSON schema array of ``prefixItems``."""

    bounds: tuple[int, str]


def spanned(hosts: Hosts, question: str = QUESTION) -> dict[str, Any]:
    """The API's own structured output (``NativeOutput``) of :class:`Span`."""
    agent = Agent(model(hosts, "openai"), output_type=NativeOutput(Span))
    return agent.run_sync(question).output.model_dump()


def population(city: str) -> str:
    """The population of a city."""
    return f"2M in {city}"


def looked_up(
    provider: str, hosts: Hosts, question: str = QUESTION, *, choice: ToolOrOutput | None = None
) -> list[str]:
    """An output type beside function tools, as pydantic-ai runs it with no text allowed
    (each request forces a tool call), given ``choice`` as its ``tool_choice``: the tools
    the model called, in order."""
    chosen = responses_model(hosts) if provider == "responses" else model(hosts, provider)
    settings = ModelSettings() if choice is None else ModelSettings(tool_choice=choice)
    agent = Agent(chosen, output_type=City, tools=[weather, population], model_settings=settings)
    result = agent.run_sync(question)
    return [
        part.tool_name
        for message in result.all_messages()
        for part in message.parts
        if part.part_kind == "tool-call"
    ]


@pytest.mark.parametrize("provider", ["anthropic", "openai", "responses"])
def test_the_echo_simulator_ends_an_output_type_beside_function_tools(
    store: Path, provider: str
) -> None:
    """Each forced call takes the next tool not called since the question, then the output
    tool: the run ends in three requests, where it called the first tool till pydantic-ai's
    request limit stopped it."""
    run = partial(looked_up, provider)
    assert record(store, run, behavior=EchoBehavior()) == ["weather", "population", "final_result"]
    assert len(store.read_text(encoding="utf-8").splitlines()) == 3  # one per request
    assert replay_three_times(store, run) == ["weather", "population", "final_result"]
    assert_one_miss(store, partial(looked_up, provider, question=CHANGED))


@pytest.mark.parametrize("provider", ["anthropic", "openai", "responses"])
def test_a_tool_choice_of_some_function_tools_records_from_the_echo_simulator(
    store: Path, provider: str
) -> None:
    """``ToolOrOutput`` naming one function tool: pydantic-ai sends OpenAI's two APIs an
    ``allowed_tools`` choice in mode ``required``, where the simulator answered echo's text
    (recording failed on pydantic-ai's output validation); Anthropic's, a tool list cut to
    the named ones."""
    choice = ToolOrOutput(function_tools=["population"])
    run = partial(looked_up, provider, choice=choice)
    assert record(store, run, behavior=EchoBehavior()) == ["population", "final_result"]
    assert replay_three_times(store, run) == ["population", "final_result"]
    assert_one_miss(store, partial(looked_up, provider, question=CHANGED, choice=choice))


def test_the_echo_simulator_answers_a_tuple_of_an_output_type(store: Path) -> None:
    """A tuple field's JSON, built by the echo simulator from its schema, validates."""
    expected = record(store, spanned, behavior=EchoBehavior())
    assert isinstance(expected["bounds"][0], int)
    assert replay_three_times(store, spanned) == expected
    assert_one_miss(store, partial(spanned, question=CHANGED))


USER_TESTS = """
import asyncio

import pytest
from pydantic_ai import Agent
from pydantic_ai.models.test import TestModel

pytestmark = pytest.mark.replaygate(fixtures="agent.jsonl")
claude = Agent("anthropic:claude-sonnet-4-6", instructions="Answer briefly.")


@pytest.mark.replaygate(expect_requests=False)  # a local model: nothing to record
def test_local_model_beside_replayed_ones():
    assert Agent(TestModel(custom_output_text="local")).run_sync(QUESTION).output == "local"


def test_claude_answers():
    assert claude.run_sync(QUESTION).output == f"echo: {QUESTION}"


def test_gpt_answers_async():
    gpt = Agent("openai:gpt-4o", instructions="Answer briefly.")
    assert asyncio.run(gpt.run(QUESTION)).output == f"echo: {QUESTION}"


def test_changed_question():
    claude.run_sync(CHANGED)
"""


PAGE = Path(__file__).resolve().parent.parent / "docs" / "frameworks.md"


def page_example() -> str:
    """The test file of docs/frameworks.md's "Under pytest: the marker alone"."""
    section = PAGE.read_text(encoding="utf-8").split("## Under pytest: the marker alone", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def page_conftest() -> str:
    """The ``conftest.py`` of the page's pydantic-ai section: pydantic-ai's guard against
    model requests (``ALLOW_MODEL_REQUESTS = False``), lifted for tests marked replaygate."""
    blocks = python_blocks("pydantic-ai")
    return next(block for block in blocks if block.startswith("# tests/conftest.py"))


def test_the_marker_alone_records_from_the_simulator_and_replays(tmp_path: Path) -> None:
    # the page's example, run beside, under the section's conftest.py
    more = {"test_weather_agent.py": page_example(), "conftest.py": page_conftest()}
    assert_marker_alone_records_and_replays(tmp_path, USER_TESTS, fixtures=2, more=more)


FALLBACK_TESTS = """
import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, TextPart
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.models.fallback import FallbackModel
from pydantic_ai.models.function import FunctionModel
from pydantic_ai.models.openai import OpenAIChatModel

pytestmark = pytest.mark.replaygate(fixtures="agent.jsonl")


def local(messages, info):
    return ModelResponse(parts=[TextPart("fallback")])


def test_fallback_on_left_to_its_default():
    model = FallbackModel(AnthropicModel("claude-sonnet-4-6"), FunctionModel(local))
    Agent(model).run_sync("a question never recorded")


def test_fallback_answers():
    model = FallbackModel(
        AnthropicModel("claude-sonnet-4-6"), FunctionModel(local), fallback_on=(Exception,)
    )
    assert Agent(model).run_sync("a question never recorded").output == "fallback"


def test_every_model_fails():
    model = FallbackModel(
        AnthropicModel("claude-sonnet-4-6"), OpenAIChatModel("gpt-4o"), fallback_on=(Exception,)
    )
    Agent(model).run_sync("a question never recorded")
"""


def test_a_miss_caught_by_fallback_model_still_fails_the_test(tmp_path: Path) -> None:
    """FallbackModel's default ``fallback_on`` (``ModelAPIError``) lets a miss through;
    one that falls back on every error hands it to a local model, and the plugin fails
    the test at teardown; when every model misses, the test fails with the
    ``FallbackExceptionGroup`` of the misses, once, and nothing more."""
    summary, output = run_replay_errors(tmp_path, FALLBACK_TESTS)
    assert set(summary) == {
        ("FAILED", "test_fallback_on_left_to_its_default"),
        ("ERROR", "test_fallback_answers"),
        ("FAILED", "test_every_model_fails"),
    }, output
    reason = summary["FAILED", "test_fallback_on_left_to_its_default"]
    assert reason.startswith("replaygate.errors.FixtureMismatchError"), output
    reason = summary["FAILED", "test_every_model_fails"]
    assert reason.startswith("pydantic_ai.exceptions.FallbackExceptionGroup"), output
    assert summary["ERROR", "test_fallback_answers"].startswith(CAUGHT), output


FACTORY_TEST = """
import os

from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider


def weather(city: str) -> str:
    \"\"\"The weather in a city.\"\"\"
    return f"sunny in {city}"


def test_agent(async_openai_client):
    provider = OpenAIProvider(openai_client=async_openai_client())
    agent = Agent(OpenAIChatModel("gpt-4o", provider=provider), tools=[weather])
    assert agent.run_sync(os.environ["QUESTION"]).output
"""


def test_a_changed_prompt_fails_a_strict_replay_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A test with a store of its own (the plugin's client factory, no marker), recorded
    from the simulator, replayed with ``--replaygate-strict`` after its prompt changed:
    it fails with the miss, and the fixture the miss left unused adds no error."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (tmp_path / "test_factory.py").write_text(FACTORY_TEST, encoding="utf-8")
    monkeypatch.setenv("QUESTION", QUESTION)
    flags = ("--replaygate-record-mode=record-missing", "--replaygate-approve-live")
    recorded = inner_pytest(tmp_path, *flags, "--replaygate-simulator=echo")
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    monkeypatch.setenv("QUESTION", CHANGED)
    replayed = inner_pytest(tmp_path, "--replaygate-strict", "-rfE")
    output = replayed.stdout + replayed.stderr
    assert re.search(r"^=+ 1 failed in [\d.]+s", replayed.stdout, re.M), output
    assert "no fixture recorded for this HTTP request" in output, output
    assert "unused by this test" not in output, output
    # the report ends at the test's call: pydantic-ai's, openai's and httpx2's frames (a
    # file of thousands of lines each, parsed for the report) are left out, and named
    assert "test_factory.py:17: FixtureMismatchError" in output, output
    assert "_agent_graph.py" not in output and "_base_client.py" not in output, output
    left_out = re.search(r"this report leaves out the \d+ frames of (.*) after the call", output)
    assert left_out and "pydantic_ai" in left_out[1] and "openai" in left_out[1], output


@pytest.mark.parametrize("heading", ["Under pytest: the marker alone", "pydantic-ai"])
def test_the_page_recipe_imports_what_exists(heading: str) -> None:
    """docs/frameworks.md's code for this framework parses and imports only what exists."""
    assert_page_imports_resolve(heading)


ORDERS = {"A1": "shipped"}


class Ticket(BaseModel):
    """The structured output of an agent that looks an order up."""

    order_id: str
    status: str


class PrioritizedTicket(Ticket):
    """:class:`Ticket` with one field more: the output schema changed."""

    priority: int = 0


class RetriedLookup:
    """Looks up an order that does not exist first, which the tool answers with a
    ``ModelRetry``, then the one that does, then gives the output tool what it found."""

    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        results = [m.content for m in messages if m.role == "tool"]
        if len(results) < 2:
            name, arguments = "order_status", {"order_id": ("Z9", "A1")[len(results)]}
        else:
            name, arguments = "final_result", {"order_id": "A1", "status": results[-1]}
        call = ToolCall(id=f"call_{len(results)}", name=name, arguments=arguments)
        return ModelResponse(tool_calls=(call,), stop_reason="tool_use")


def order_status(ctx: RunContext[list[str]], order_id: str) -> str:
    """The status of an order."""
    ctx.deps.append(order_id)
    if order_id not in ORDERS:
        raise ModelRetry(f"No order {order_id!r}: ids look like 'A1'.")
    return ORDERS[order_id]


def ticket(
    provider: str,
    hosts: Hosts,
    question: str = QUESTION,
    *,
    how: str = "run_stream",
    described: str = "The status of an order.",
    output: type[Ticket] = Ticket,
) -> tuple[dict[str, Any], list[str], int, list[dict[str, Any]]]:
    """An agent whose tool takes the run's deps and asks again (``ModelRetry``) for an
    order that does not exist, with a structured output, streamed (``run_stream``) or run
    node by node (``iter``) under usage limits: the output, the ids looked up, the
    requests made, and the partial outputs streamed."""
    chosen = responses_model(hosts) if provider == "responses" else model(hosts, provider)
    tool = Tool(order_status, description=described)
    agent = Agent(chosen, deps_type=list[str], output_type=output, tools=[tool])
    limits = UsageLimits(request_limit=5)

    async def main() -> tuple[Ticket, int, list[dict[str, Any]]]:
        if how == "run_stream":
            async with agent.run_stream(question, deps=looked_up, usage_limits=limits) as run:
                partial = [p.model_dump() async for p in run.stream_output(debounce_by=None)]
                return await run.get_output(), run.usage.requests, partial
        async with agent.iter(question, deps=looked_up, usage_limits=limits) as run:
            nodes = [type(node).__name__ async for node in run]
        assert run.result is not None and nodes[-1] == "End", nodes
        return run.result.output, run.usage.requests, []

    looked_up: list[str] = []
    output_made, requests, streamed = asyncio.run(main())
    return output_made.model_dump(), looked_up, requests, streamed


CHANGED_FIELD = {
    "anthropic": ("body.tools[0].description", "body.tools[1].input_schema.properties.priority"),
    "openai": (
        "body.tools[0].function.description",
        "body.tools[1].function.parameters.properties.priority",
    ),
    "responses": ("body.tools[0].description", "body.tools[1].parameters.properties.priority"),
}
"""Where a request names the tool's description and the output tool's fields."""


@pytest.mark.parametrize("how", ["run_stream", "iter"])
@pytest.mark.parametrize("provider", ["anthropic", "openai", "responses"])
def test_a_model_retry_loop_and_a_streamed_output_replay_and_a_changed_schema_is_named(
    store: Path, provider: str, how: str
) -> None:
    """A tool's ``ModelRetry`` loop replays with as many requests as were recorded, the
    streamed structured output the same partials; a changed tool description or output
    schema misses once, naming the field that changed."""
    run = partial(ticket, provider, how=how)
    recorded = record(store, run, behavior=RetriedLookup())
    output, looked_up, requests, streamed = recorded
    assert (output, looked_up, requests) == (
        {"order_id": "A1", "status": "shipped"},
        ["Z9", "A1"],
        3,
    )
    assert (len(streamed) > 1) == (how == "run_stream"), streamed  # partials, then the whole
    assert replay_three_times(store, run) == recorded
    assert_one_miss(store, partial(run, question=CHANGED))
    with intercept(store) as exchange:
        run(Hosts())
    assert (exchange.sent, exchange.replays) == (3, 3)
    tool_field, output_field = CHANGED_FIELD[provider]
    for changed, field in (
        (partial(run, described="The status of one order."), tool_field),
        (partial(run, output=PrioritizedTicket), output_field),
    ):
        missed = assert_one_miss(store, changed, changed="")
        assert isinstance(missed, FixtureMismatchError)
        assert field in [d.split(": ", 1)[0] for d in missed.differences], missed
