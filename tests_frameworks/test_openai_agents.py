"""The OpenAI Agents SDK on its Chat Completions and Responses models, recorded and replayed.

The SDK shapes requests by host: for the real OpenAI API it adds ``store``,
``stream_options`` and a ``prompt_cache_key`` that is new on every run unless the
run is grouped (``RunConfig(group_id=...)``). Replays here use a loopback base like
the simulator's, so their requests are those recorded; the last test shows why the
recipe pins the group when recording from the real API.

Tracing is off in this process (the recipe's first line); the tracing test runs a
replaying pytest in a subprocess with tracing left on.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

import httpx2
import pytest
from agents import (
    Agent,
    GuardrailFunctionOutput,
    InputGuardrailTripwireTriggered,
    ModelRetrySettings,
    ModelSettings,
    OpenAIChatCompletionsModel,
    OpenAIConversationsSession,
    OpenAIResponsesModel,
    ReasoningItem,
    RunConfig,
    Runner,
    SQLiteSession,
    function_tool,
    input_guardrail,
    retry_policies,
    set_tracing_disabled,
)
from agents.memory import OpenAIResponsesCompactionSession
from openai import AsyncOpenAI
from openai.types.shared import Reasoning
from pydantic import BaseModel

from replaygate.errors import FixtureMismatchError, ReplayErrorCaughtWarning
from replaygate.http import intercept
from replaygate.models.types import Message, ModelResponse, ToolCall, ToolSpec
from replaygate.sim import Simulator
from tests_frameworks.harness import (
    CAUGHT,
    CHANGED,
    CLAUDE,
    FAKE_KEY,
    GPT,
    QUESTION,
    UNUSED_LOOPBACK,
    Hosts,
    Sent,
    ToolThenAnswer,
    assert_marker_alone_records_and_replays,
    assert_one_miss,
    assert_recipe_replays,
    assert_retry_replayed_at_once,
    matrix_cases,
    record,
    replay_three_times,
    retry_cases,
    run_replay_errors,
    weather,
)
from tests_frameworks.page import assert_page_imports_resolve

set_tracing_disabled(True)

APIS = {"chat": "Chat Completions model", "responses": "Responses model"}
RETRIES = ModelSettings(
    retry=ModelRetrySettings(
        max_retries=3,
        policy=retry_policies.any(
            retry_policies.provider_suggested(),
            retry_policies.network_error(),
            retry_policies.retry_after(),
            retry_policies.http_status([408, 429, 500, 502, 503]),
        ),
    )
)
"""The runner's own retries, on for every status and transport error worth retrying."""


@function_tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return weather(city)


def agent(hosts: Hosts, api: str, *, tools: bool = False) -> Agent[None]:
    """An agent on ``api``'s model, with the runner's and the SDK's retries on."""
    client = AsyncOpenAI(base_url=hosts.openai, max_retries=3)
    model = (
        OpenAIChatCompletionsModel(model=GPT, openai_client=client)
        if api == "chat"
        else OpenAIResponsesModel(model=GPT, openai_client=client)
    )
    return Agent(
        name="assistant",
        instructions="Answer briefly.",
        model=model,
        tools=[get_weather] if tools else [],
        model_settings=RETRIES,
    )


def plain(api: str, hosts: Hosts, question: str = QUESTION) -> str:
    return str(Runner.run_sync(agent(hosts, api), question).final_output)


def with_tools(api: str, hosts: Hosts, question: str = QUESTION) -> str:
    return str(Runner.run_sync(agent(hosts, api, tools=True), question).final_output)


def streamed(api: str, hosts: Hosts, question: str = QUESTION) -> tuple[str, str]:
    async def main() -> tuple[str, str]:
        run = Runner.run_streamed(agent(hosts, api), question)
        deltas = [
            event.data.delta
            async for event in run.stream_events()
            if event.type == "raw_response_event"
            and event.data.type == "response.output_text.delta"
        ]
        return "".join(deltas), str(run.final_output)

    return asyncio.run(main())


def in_async(api: str, hosts: Hosts, question: str = QUESTION) -> str:
    async def main() -> str:
        return str((await Runner.run(agent(hosts, api, tools=True), question)).final_output)

    return asyncio.run(main())


ECHO = f"echo: {QUESTION}"
TOOL_ANSWER = "The tool says: sunny in Paris"
CASES = matrix_cases(
    APIS,
    (
        ("plain", plain, ECHO),
        ("stream", streamed, (ECHO, ECHO)),
        ("tools", with_tools, TOOL_ANSWER),
        ("async", in_async, TOOL_ANSWER),
    ),
)


@pytest.mark.parametrize(("api", "recipe", "expected"), CASES)
def test_recorded_run_replays_offline_and_a_changed_prompt_misses(
    store: Path, api: str, recipe: Callable[..., object], expected: object
) -> None:
    run, miss = partial(recipe, api), partial(recipe, api, question=CHANGED)
    assert_recipe_replays(store, run, expected, miss, hosts=UNUSED_LOOPBACK)


@pytest.mark.parametrize("api", retry_cases(APIS))
def test_replayed_429_is_retried_at_once(store: Path, api: str) -> None:
    assert_retry_replayed_at_once(store, partial(plain, api), UNUSED_LOOPBACK)


def on_litellm(hosts: Hosts, question: str = QUESTION) -> str:
    """An agent on ``LitellmModel`` for an Anthropic model, the runner's retries on; it
    loads LiteLLM, whose error fields every miss then carries, the OpenAI models' too."""
    from agents.extensions.models.litellm_model import LitellmModel

    model = LitellmModel(model=f"anthropic/{CLAUDE}", base_url=hosts.anthropic, api_key=FAKE_KEY)
    agent = Agent(
        name="assistant", instructions="Answer briefly.", model=model, model_settings=RETRIES
    )
    return str(Runner.run_sync(agent, question).final_output)


def test_with_litellm_loaded_the_runner_s_retries_send_a_miss_once(store: Path) -> None:
    """LiteLLM raises a miss of ``LitellmModel`` as its ``InternalServerError``, a 500, and,
    once loaded, gives every miss (the OpenAI models' too) the fields of its own errors: the
    runner's ``provider_suggested()`` policy reads the miss's ``x-should-retry: false``
    among them and vetoes the retry its ``http_status([500])`` asked for, so each miss is
    sent once, where the runner sent it four times."""
    import litellm

    miss = partial(on_litellm, question=CHANGED)
    assert_recipe_replays(store, on_litellm, ECHO, miss, raises=litellm.InternalServerError)
    openai_store = store.with_name("openai.jsonl")
    run, changed = partial(plain, "responses"), partial(plain, "responses", question=CHANGED)
    assert_recipe_replays(openai_store, run, ECHO, changed, hosts=UNUSED_LOOPBACK)


class Forecast(BaseModel):
    """A structured output."""

    city: str
    sky: str


class TwoCallsThenJson:
    """Calls the first tool offered twice in one turn (a handoff's once), then answers a
    forecast in JSON naming what the tools said; a later question is echoed."""

    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        results = [m.content for m in messages if m.role == "tool"]
        if results and messages[-1].role == "user":
            return ModelResponse(text=f"echo: {messages[-1].content}")
        if results:
            return ModelResponse(text=json.dumps({"city": "Paris", "sky": "; ".join(results)}))
        if not tools:
            return ModelResponse(text=f"echo: {messages[-1].content}")
        name = tools[0].name
        cities = ["Paris"] if name.startswith("transfer_to_") else ["Paris", "Rome"]
        calls = tuple(
            ToolCall(id=f"call_{i}", name=name, arguments={} if len(cities) == 1 else {"city": c})
            for i, c in enumerate(cities)
        )
        return ModelResponse(tool_calls=calls, stop_reason="tool_use")


def streamed_forecast(api: str, hosts: Hosts, question: str = QUESTION) -> tuple[list[str], str]:
    """Parallel tool calls and a structured output, streamed (``run_streamed``)."""

    async def main() -> tuple[list[str], str]:
        forecaster = agent(hosts, api, tools=True).clone(output_type=Forecast)
        run = Runner.run_streamed(forecaster, question)
        items = [
            event.item.type
            async for event in run.stream_events()
            if event.type == "run_item_stream_event"
        ]
        return items, run.final_output.model_dump_json()

    return asyncio.run(main())


def handed_off(api: str, hosts: Hosts, question: str = QUESTION) -> tuple[str, str]:
    """A triage agent hands the run off to the forecaster (a handoff is a tool call)."""
    forecaster = agent(hosts, api, tools=True).clone(name="forecaster", output_type=Forecast)
    triage = agent(hosts, api).clone(name="triage", handoffs=[forecaster])
    result = Runner.run_sync(triage, question)
    return result.last_agent.name, result.final_output.model_dump_json()


def continued(api: str, hosts: Hosts, question: str = QUESTION) -> tuple[str, str]:
    """A second run continuing the first: on the server (``previous_response_id``) for the
    Responses model, by its items (``to_input_list``) for Chat Completions."""

    async def main() -> tuple[str, str]:
        forecaster = agent(hosts, api, tools=True).clone(output_type=Forecast)
        if api == "responses":
            first = await Runner.run(forecaster, question, auto_previous_response_id=True)
            stream = Runner.run_streamed(
                forecaster.clone(output_type=str),
                "And tomorrow?",
                previous_response_id=first.last_response_id,
            )
        else:
            first = await Runner.run(forecaster, question)
            later = [*first.to_input_list(), {"role": "user", "content": "And tomorrow?"}]
            stream = Runner.run_streamed(forecaster.clone(output_type=str), later)
        async for _ in stream.stream_events():
            pass
        return first.final_output.model_dump_json(), str(stream.final_output)

    return asyncio.run(main())


FORECAST = '{"city":"Paris","sky":"sunny in Paris; sunny in Rome"}'
HANDED = json.dumps({"city": "Paris", "sky": '{"assistant": "forecaster"}'}, separators=(",", ":"))
"""The forecaster's answer after the handoff, whose output (the agent handed to) it got."""
MORE = [
    pytest.param(recipe, api, expected, id=f"{api}-{recipe.__name__}")
    for api in APIS
    for recipe, expected in (
        (
            streamed_forecast,
            (
                [
                    "tool_call_item",
                    "tool_call_item",
                    "tool_call_output_item",
                    "tool_call_output_item",
                    "message_output_item",
                ],
                FORECAST,
            ),
        ),
        (handed_off, ("forecaster", HANDED)),
        (continued, (FORECAST, "echo: And tomorrow?")),
    )
]


@pytest.mark.parametrize(("recipe", "api", "expected"), MORE)
def test_more_usages_record_from_the_simulator_and_replay(
    store: Path, recipe: Callable[..., object], api: str, expected: object
) -> None:
    """Streamed parallel tool calls with a structured output, a handoff, and a run
    continuing another (on the server through the Responses model)."""
    run, miss = partial(recipe, api), partial(recipe, api, question=CHANGED)
    assert_recipe_replays(
        store, run, expected, miss, hosts=UNUSED_LOOPBACK, behavior=TwoCallsThenJson()
    )


def compacted(hosts: Hosts, question: str = QUESTION) -> tuple[str, str, list[str]]:
    """Two turns of a session compacted after each (``OpenAIResponsesCompactionSession``,
    which calls ``POST /v1/responses/compact``): the answers and the kinds of items kept."""

    async def main() -> tuple[str, str, list[str]]:
        client = AsyncOpenAI(base_url=hosts.openai, max_retries=3)
        model = OpenAIResponsesModel(model="gpt-4.1", openai_client=client)
        assistant = Agent(name="assistant", model=model, model_settings=RETRIES)
        session = OpenAIResponsesCompactionSession(
            "user-1",
            SQLiteSession("user-1"),
            client=client,
            should_trigger_compaction=lambda context: True,
        )
        first = await Runner.run(assistant, question, session=session)
        second = await Runner.run(assistant, "And another?", session=session)
        kinds = [str(item.get("type", "message")) for item in await session.get_items()]
        return str(first.final_output), str(second.final_output), kinds

    return asyncio.run(main())


def test_a_compaction_session_records_from_the_simulator_and_replays(store: Path) -> None:
    """The simulator answered ``/v1/responses/compact`` 404, and recording stopped with
    ``UnservedRouteError`` after the session's first turn."""
    expected = (f"echo: {QUESTION}", "echo: And another?", ["message", "message", "compaction"])
    miss = partial(compacted, question=CHANGED)
    assert_recipe_replays(store, compacted, expected, miss, hosts=UNUSED_LOOPBACK)


REASONING = RETRIES.resolve(ModelSettings(reasoning=Reasoning(effort="low", summary="auto")))
"""A reasoning model's effort and summary, the runner's retries on."""
STATELESS = REASONING.resolve(
    ModelSettings(store=False, response_include=["reasoning.encrypted_content"])
)
"""The same, kept by the client: nothing stored on the server, the reasoning item's
``encrypted_content`` included to be given back."""


def reasoned(
    settings: ModelSettings,
    stream: bool,
    hosts: Hosts,
    question: str = QUESTION,
    *,
    sent: Sent | None = None,
) -> tuple[str, list[str], list[str]]:
    """A reasoning model of the Responses API (``gpt-5-mini``) calling the weather tool:
    the runner gives the reasoning item back as input with the tool's output. Returns the
    output, the kinds of items the run made and the reasoning summaries; ``sent`` keeps
    the bodies sent."""

    async def main() -> tuple[str, list[str], list[str]]:
        client = AsyncOpenAI(
            base_url=hosts.openai, max_retries=3, http_client=sent.client() if sent else None
        )
        model = OpenAIResponsesModel(model="gpt-5-mini", openai_client=client)
        thinker = Agent(name="assistant", model=model, tools=[get_weather], model_settings=settings)
        if stream:
            run = Runner.run_streamed(thinker, question)
            async for _ in run.stream_events():
                pass
        else:
            run = await Runner.run(thinker, question)
        summaries = [
            part.text
            for item in run.new_items
            if isinstance(item, ReasoningItem)
            for part in item.raw_item.summary
        ]
        return str(run.final_output), [item.type for item in run.new_items], summaries

    return asyncio.run(main())


@pytest.mark.parametrize("stream", [False, True], ids=["run", "run_streamed"])
@pytest.mark.parametrize("settings", [REASONING, STATELESS], ids=["stored", "stateless"])
def test_a_reasoning_item_goes_back_with_the_tool_output_and_replays(
    store: Path, settings: ModelSettings, stream: bool
) -> None:
    """The reasoning item before the tool call is given back as input with the tool's
    output (with its ``encrypted_content`` when asked to be stateless, which the
    simulator checks, as the API does); the replayed run sends the very bytes the
    recording run sent."""
    recorded, replayed = Sent(), Sent()
    run = partial(reasoned, settings, stream)
    expected = (
        TOOL_ANSWER,
        [
            "reasoning_item",
            "tool_call_item",
            "tool_call_output_item",
            "reasoning_item",
            "message_output_item",
        ],
    )
    output, kinds, summaries = record(store, partial(run, sent=recorded))
    assert (output, kinds) == expected and len(summaries) == 2
    assert replay_three_times(store, run, UNUSED_LOOPBACK) == (output, kinds, summaries)
    with intercept(store):
        run(UNUSED_LOOPBACK, sent=replayed)
    assert replayed.bodies == recorded.bodies
    given = replayed.json(1)["input"][1]
    assert (given["type"], given["summary"][0]["text"]) == ("reasoning", summaries[0])
    assert ("encrypted_content" in given) == (settings is STATELESS), given
    assert_one_miss(store, partial(run, question=CHANGED), hosts=UNUSED_LOOPBACK)


def miss_key(store: Path, run_config: RunConfig | None) -> str:
    """The key of the request one run sends to the real OpenAI API (a miss, offline)."""
    with intercept(store), pytest.raises(FixtureMismatchError) as caught:
        Runner.run_sync(agent(Hosts(), "responses"), QUESTION, run_config=run_config)
    return caught.value.key


def test_a_run_group_makes_requests_to_the_real_api_repeatable(store: Path) -> None:
    assert miss_key(store, None) != miss_key(store, None)  # a new prompt_cache_key each run
    grouped = RunConfig(group_id="weather-agent")
    assert miss_key(store, grouped) == miss_key(store, grouped)


def test_recorded_for_the_real_api_from_the_simulator_it_replays_with_the_same_client(
    store: Path,
) -> None:
    """Recorded with the simulator as ``live_origin``, the client for the real API sends
    what it sends there (``prompt_cache_key`` included), so its replay matches; pointed
    at the simulator by ``base_url``, it would not (docs/frameworks.md)."""
    grouped = RunConfig(group_id="weather-agent")

    def run() -> str:
        return str(
            Runner.run_sync(agent(Hosts(), "responses"), QUESTION, run_config=grouped).final_output
        )

    with (
        Simulator(behavior="echo") as sim,
        intercept(store, "record-missing", approve_live=True, live_origin=sim.url),
    ):
        recorded = run()
    assert "prompt_cache_key" in store.read_text(encoding="utf-8")
    with intercept(store) as exchange:
        assert run() == recorded == f"echo: {QUESTION}"
    assert exchange.replays == 1


def guarded(hosts: Hosts, inner: RunConfig | None) -> str:
    """A grouped run whose input guardrail runs an agent of its own with ``inner``."""
    checker = agent(hosts, "responses")

    @input_guardrail
    async def checked(ctx: object, _agent: object, given: object) -> GuardrailFunctionOutput:
        verdict = await Runner.run(checker, str(given), run_config=inner)
        return GuardrailFunctionOutput(output_info=verdict.final_output, tripwire_triggered=False)

    guarded_agent = agent(hosts, "responses").clone(input_guardrails=[checked])
    grouped = RunConfig(group_id="weather-agent")
    return str(Runner.run_sync(guarded_agent, QUESTION, run_config=grouped).final_output)


def test_a_guardrail_s_ungrouped_run_misses_naming_the_group_it_needs(store: Path) -> None:
    """A guardrail's own run, not grouped, sends a new ``prompt_cache_key`` on every run:
    its miss says so, where it only said to re-record, which records a key no run sends
    again; grouped, it replays."""
    with (
        Simulator(behavior="echo") as sim,
        intercept(store, "record-missing", approve_live=True, live_origin=sim.url),
    ):
        guarded(Hosts(), None)
    with intercept(store), pytest.raises(FixtureMismatchError) as caught:
        guarded(Hosts(), None)
    assert [d.split(":")[0] for d in caught.value.differences] == ["body.prompt_cache_key"]
    assert "`run_config=RunConfig(group_id=...)`" in str(caught.value)
    inner = RunConfig(group_id="guardrail")
    with (
        Simulator(behavior="echo") as sim,
        intercept(store, "record-missing", approve_live=True, live_origin=sim.url),
    ):
        recorded = guarded(Hosts(), inner)
    with intercept(store):
        assert guarded(Hosts(), inner) == recorded == f"echo: {QUESTION}"


class Allowed(BaseModel):
    """A guardrail's verdict."""

    allowed: bool


def late_client() -> httpx2.AsyncClient:
    """A client whose sends start 5 seconds late, as a large model's answer comes after a
    small checker's (a tripwire cancels the wait)."""

    async def wait(request: httpx2.Request) -> None:
        await asyncio.sleep(5)

    return httpx2.AsyncClient(event_hooks={"request": [wait]})


def tripped(in_parallel: bool, hosts: Hosts) -> str:
    """A run whose input guardrail, an agent of its own, trips: run beside the agent's
    first model call (the SDK's default) or before it."""
    checker = agent(hosts, "responses").clone(name="checker", output_type=Allowed)
    client = AsyncOpenAI(base_url=hosts.openai, max_retries=3, http_client=late_client())
    guarded = Agent(name="assistant", model=OpenAIResponsesModel(model=GPT, openai_client=client))

    @input_guardrail(run_in_parallel=in_parallel)
    async def allowed(ctx: object, _agent: object, given: object) -> GuardrailFunctionOutput:
        verdict = await Runner.run(checker, f"Check: {given}")
        refused = not verdict.final_output.allowed
        return GuardrailFunctionOutput(output_info=verdict.final_output, tripwire_triggered=refused)

    with pytest.raises(InputGuardrailTripwireTriggered):
        Runner.run_sync(guarded.clone(input_guardrails=[allowed]), QUESTION)
    return "tripped"


def test_a_guardrail_tripping_beside_the_agent_s_call_replays_only_run_before_it(
    store: Path,
) -> None:
    """A tripwire cancels the agent's model call it ran beside: recorded from a model that
    answers it later than the check, nothing of that call is stored, and every replay,
    where answers come at once, sends it and misses (docs/frameworks.md). Run before the
    call (``run_in_parallel=False``), the guardrail trips before it is sent, and replays."""
    beside = partial(tripped, True)
    assert record(store, beside) == "tripped"
    assert len(store.read_text(encoding="utf-8").splitlines()) == 1  # the check alone
    with intercept(store), pytest.raises(FixtureMismatchError) as caught:
        beside(UNUSED_LOOPBACK)
    assert f"body.input[0].content: 'Check: {QUESTION}' != '{QUESTION}'" in str(caught.value)
    store.unlink()
    before = partial(tripped, False)
    assert record(store, before) == "tripped"
    assert replay_three_times(store, before, UNUSED_LOOPBACK) == "tripped"


def second_turn(first: str, hosts: Hosts) -> str:
    """Two turns of an ``OpenAIConversationsSession``, the first asking ``first``: the
    input the second turn sent the model (the history the session read from the server)."""
    sent = Sent()

    async def main() -> None:
        client = AsyncOpenAI(base_url=hosts.openai, max_retries=3, http_client=sent.client())
        model = OpenAIResponsesModel(model=GPT, openai_client=client)
        session = OpenAIConversationsSession(openai_client=client)
        await Runner.run(Agent(name="assistant", model=model), first, session=session)
        await Runner.run(Agent(name="assistant", model=model), "And another?", session=session)

    asyncio.run(main())
    turns = [json.loads(body) for body in sent.bodies if body and b'"model"' in body]
    return json.dumps(turns[-1]["input"])


def cancelled_after_first_words(api: str, hosts: Hosts) -> str:
    """A streamed run the loop consuming its events cancels at the first words."""

    async def main() -> str:
        run = Runner.run_streamed(agent(hosts, api), QUESTION)
        words = ""
        async for event in run.stream_events():
            if event.type == "raw_response_event" and event.data.type.endswith("text.delta"):
                words += event.data.delta
                run.cancel()
        return words

    return asyncio.run(main())


@pytest.mark.parametrize("api", list(APIS))
def test_a_streamed_run_cancelled_after_its_first_words_replays(store: Path, api: str) -> None:
    # recorded from the live API, whose stream was still coming in, the run's stream is
    # stored closed where cancel() stopped it; replayed, every event came at once, the
    # SDK's reading task went past the close before the consuming loop's turn, and each
    # replay failed 'the client closed this stream ..., and this run reads further'
    record(store, partial(cancelled_after_first_words, api), behavior="echo")
    (line,) = store.read_text().splitlines()
    fixture = json.loads(line)
    events = fixture["response"]["events"]
    first_words = next(
        i for i, e in enumerate(events) if '"delta":' in e["data"] and "echo" in e["data"]
    )
    fixture["response"]["events"] = events[: first_words + 1]  # as a live recording stores it
    fixture["response"]["stream_end"] = "closed"
    store.write_text(json.dumps(fixture) + "\n")
    for _ in range(3):
        with intercept(store) as session:
            assert cancelled_after_first_words(api, UNUSED_LOOPBACK).startswith("echo")
        assert session.raised == []


def test_a_changed_turn_of_a_server_held_conversation_is_recorded_anew_with_rerecord(
    store: Path,
) -> None:
    """Recording what it lacks, a session answers a read of the conversation (the
    session's items list) identical to a recorded one from the store: after the first
    turn changed, the second was sent, and recorded, with the old history. Recorded
    anew (``rerecord``), it holds the new one, and replays (docs/frameworks.md)."""
    assert "Paris" in record(store, partial(second_turn, "Weather in Paris?"))
    rome = partial(second_turn, "Weather in Rome?")
    for mode, held, lost in (("record-missing", "Paris", "Rome"), ("rerecord", "Rome", "Paris")):
        with (
            Simulator(behavior=ToolThenAnswer()) as sim,
            intercept(store, mode, approve_live=True, source="sim"),
        ):
            sent = rome(Hosts(openai=sim.openai_base_url))
        assert held in sent and lost not in sent, (mode, sent)
    assert replay_three_times(store, rome, UNUSED_LOOPBACK) == sent


INNER_TEST = """
import pytest
from agents import Agent, OpenAIResponsesModel, Runner
from openai import AsyncOpenAI


@pytest.mark.replaygate(fixtures={store!r})
def test_agent(replaygate_intercept):
    client = AsyncOpenAI(base_url="http://127.0.0.1:9/v1")
    model = OpenAIResponsesModel(model={model!r}, openai_client=client)
    agent = Agent(name="assistant", instructions="Answer briefly.", model=model)
    assert Runner.run_sync(agent, {question!r}).final_output == {answer!r}
"""


def replaying_pytest(
    store: Path, folder: Path, *, tracing_off: bool
) -> subprocess.CompletedProcess[str]:
    """A pytest run replaying one agent run from ``store`` through the plugin, in a new
    interpreter with tracing on (or turned off by the environment)."""
    assert record(store, partial(plain, "responses")) == ECHO
    test_file = folder / "test_inner.py"
    source = INNER_TEST.format(store=str(store), model=GPT, question=QUESTION, answer=ECHO)
    test_file.write_text(textwrap.dedent(source), encoding="utf-8")
    env = {**os.environ, "OPENAI_AGENTS_DISABLE_TRACING": "1" if tracing_off else "0"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test_file)],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout, done.stdout
    return done


@pytest.mark.matrix("Responses model", "plain")
def test_replay_with_tracing_on_passes_and_blocks_the_exporter(store: Path, tmp_path: Path) -> None:
    done = replaying_pytest(store, tmp_path, tracing_off=False)
    refused = [line for line in done.stderr.splitlines() if "refused at interpreter exit" in line]
    assert refused, done.stderr
    assert all("'api.openai.com'" in line for line in refused), refused
    assert all("agents.tracing" in line for line in refused), refused
    assert all("OPENAI_AGENTS_DISABLE_TRACING=1" in line for line in refused), refused


def test_a_recording_refuses_the_trace_upload_and_the_block_warns(store: Path) -> None:
    """The SDK's exporter, left on, uploads a run's spans from a thread of its own: a block
    recording (here from the simulator, as from the live API) refuses the upload before it
    is sent, nothing of it written, and, the exporter swallowing the refusal, warns of it
    naming the switch."""
    from agents.tracing import get_trace_provider

    set_tracing_disabled(False)
    try:
        with (
            pytest.warns(ReplayErrorCaughtWarning) as warned,
            Simulator(behavior=ToolThenAnswer()) as sim,
            intercept(store, "record-missing", approve_live=True, live_origin=sim.url),
        ):
            assert plain("responses", Hosts()) == ECHO
            get_trace_provider().force_flush()  # the upload, sent now
    finally:
        set_tracing_disabled(True)
    sent = [json.loads(line)["request"]["path"] for line in store.read_text().splitlines()]
    assert sent == ["/v1/responses"]
    (said,) = (str(w.message) for w in warned if w.category is ReplayErrorCaughtWarning)
    assert "refusing to record POST https://api.openai.com/v1/traces/ingest" in said
    assert "OPENAI_AGENTS_DISABLE_TRACING=1" in said


def test_tracing_turned_off_by_the_environment_sends_nothing(store: Path, tmp_path: Path) -> None:
    done = replaying_pytest(store, tmp_path, tracing_off=True)
    assert "refused" not in done.stderr + done.stdout, done.stderr


USER_TESTS = """
import asyncio

import pytest
from agents import Agent, OpenAIResponsesModel, RunConfig, Runner, set_tracing_disabled
from openai import AsyncOpenAI

set_tracing_disabled(True)
assistant = Agent(name="assistant", instructions="Answer briefly.", model="gpt-4o")
GROUPED = RunConfig(group_id="assistant")  # the same prompt_cache_key on every run


@pytest.mark.replaygate(fixtures="agent.jsonl")
def test_agent_answers():
    result = Runner.run_sync(assistant, QUESTION, run_config=GROUPED)
    assert result.final_output == f"echo: {QUESTION}"


@pytest.mark.replaygate(fixtures="agent.jsonl")
def test_agent_answers_async():
    async def main():
        # a client of this event loop: the SDK's default one keeps connections of another
        model = OpenAIResponsesModel(model="gpt-4o", openai_client=AsyncOpenAI())
        agent = assistant.clone(model=model)
        return await Runner.run(agent, "And in one word?", run_config=GROUPED)

    assert asyncio.run(main()).final_output == "echo: And in one word?"


@pytest.mark.replaygate(fixtures="agent.jsonl")
def test_changed_question():
    Runner.run_sync(assistant, CHANGED, run_config=GROUPED)
"""


def test_the_marker_alone_records_from_the_simulator_and_replays(tmp_path: Path) -> None:
    assert_marker_alone_records_and_replays(tmp_path, USER_TESTS, fixtures=2)


FACTORY_TESTS = """
import asyncio

import pytest
from agents import (
    Agent, OpenAIChatCompletionsModel, OpenAIResponsesModel, RunConfig, Runner,
    set_tracing_disabled,
)

set_tracing_disabled(True)
pytestmark = pytest.mark.replaygate(fixtures="agent.jsonl")
GROUPED = RunConfig(group_id="assistant")


def ask(client, question, model=OpenAIResponsesModel):
    agent = Agent(name="assistant", model=model(model="gpt-4o", openai_client=client))
    return Runner.run_sync(agent, question, run_config=GROUPED).final_output


def test_responses(async_openai_client):
    assert ask(async_openai_client(), QUESTION) == f"echo: {QUESTION}"


def test_chat_completions_streamed(async_openai_client):
    agent = Agent(
        name="assistant",
        model=OpenAIChatCompletionsModel(model="gpt-4o", openai_client=async_openai_client()),
    )

    async def main():
        run = Runner.run_streamed(agent, "And streamed?", run_config=GROUPED)
        async for _ in run.stream_events():
            pass
        return run.final_output

    assert asyncio.run(main()) == "echo: And streamed?"


def test_changed_question(async_openai_client):
    ask(async_openai_client(), CHANGED)
"""


def test_the_plugin_s_client_factory_records_from_the_simulator_and_replays(
    tmp_path: Path,
) -> None:
    """The factory's client (``async_openai_client``) pointed at the simulator while
    recording, and at the real API when replaying: the SDK shapes requests by host
    (``prompt_cache_key``, ``store``, ``stream_options`` for the real API only), so
    every replay missed what was recorded."""
    assert_marker_alone_records_and_replays(tmp_path, FACTORY_TESTS, fixtures=2)


TOOL_TESTS = """
import pytest
from agents import Agent, Runner, set_tracing_disabled
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

pytestmark = pytest.mark.replaygate(fixtures="agent.jsonl")
set_tracing_disabled(True)


class Local(Model):
    # a model answering locally: calls the first tool, then says what it returned

    async def get_response(self, system_instructions, input, model_settings, tools, *args, **kw):
        outputs = [i["output"] for i in input if i.get("type") == "function_call_output"]
        if not outputs:
            call = ResponseFunctionToolCall(
                type="function_call", call_id="c1", name=tools[0].name, arguments='{"input": "hi"}'
            )
            return ModelResponse(output=[call], usage=Usage(), response_id=None)
        text = ResponseOutputText(type="output_text", text=f"tool: {outputs[0]}", annotations=[])
        message = ResponseOutputMessage(
            id="m1", type="message", role="assistant", status="completed", content=[text]
        )
        return ModelResponse(output=[message], usage=Usage(), response_id=None)

    def stream_response(self, *args, **kw):
        raise NotImplementedError


def run_with(tool):
    return Runner.run_sync(Agent(name="outer", model=Local(), tools=[tool]), "hi").final_output


def test_the_tool_s_error_becomes_its_output():
    helper = Agent(name="helper", model="gpt-4o")
    tool = helper.as_tool(tool_name="helper", tool_description="Asks the helper.")
    assert "An error occurred while running the tool" in run_with(tool)


def test_the_tool_raises():
    helper = Agent(name="helper", model="gpt-4o")
    tool = helper.as_tool(
        tool_name="helper", tool_description="Asks the helper.", failure_error_function=None
    )
    run_with(tool)
"""


def test_a_miss_in_an_agent_tool_still_fails_the_test(tmp_path: Path) -> None:
    """The SDK has no model fallback, and its run error handlers take no model error;
    what swallows one is a tool's ``failure_error_function``: by default an agent used as
    a tool (``as_tool``), or any function tool, whose model call misses gives the model
    "An error occurred while running the tool" and the run goes on. The plugin fails that
    test at teardown with the miss; with ``failure_error_function=None`` the test fails
    with the SDK's ``UserError`` naming the miss, once."""
    summary, output = run_replay_errors(tmp_path, TOOL_TESTS)
    assert set(summary) == {
        ("ERROR", "test_the_tool_s_error_becomes_its_output"),
        ("FAILED", "test_the_tool_raises"),
    }, output
    assert summary["ERROR", "test_the_tool_s_error_becomes_its_output"].startswith(CAUGHT)
    reason = summary["FAILED", "test_the_tool_raises"]
    assert reason.startswith("agents.exceptions.UserError"), output
    assert "no fixture recorded for this HTTP request" in reason, output


CONSEQUENCE_TESTS = """
import openai
import pytest
from agents import Agent, RunConfig, Runner, function_tool, set_tracing_disabled

pytestmark = pytest.mark.replaygate(fixtures="agent.jsonl")
set_tracing_disabled(True)


def ask_the_tool_to_ask(question):
    @function_tool
    def expert(topic: str) -> str:
        \"\"\"Asks an expert.\"\"\"
        reply = openai.OpenAI(max_retries=0).chat.completions.create(
            model="gpt-4o", messages=[{"role": "user", "content": question}]
        )
        return reply.choices[0].message.content

    agent = Agent(name="assistant", model="gpt-4o", tools=[expert])
    return Runner.run_sync(agent, "Ask the expert.", run_config=RunConfig(group_id="g"))


def test_the_tool_asks():
    assert ask_the_tool_to_ask(QUESTION).final_output == "done"


def test_changed_question():
    ask_the_tool_to_ask(CHANGED)
"""
EXPERT_THEN_DONE = [
    {"tool_calls": [{"id": "call_expert", "name": "expert", "arguments": {"topic": "http"}}]},
    {"text": "Fewer handshakes."},
    {"text": "done"},
]


def test_a_miss_hidden_in_a_tool_is_named_by_the_miss_it_causes(tmp_path: Path) -> None:
    """A tool whose own request misses gives the model the SDK's error text instead, so
    the agent's next request misses too, its diff showing the tool's output: the test
    fails with that one, and its error names the hidden miss, the changed word in its
    diff (which the recipe helper checks)."""
    assert_marker_alone_records_and_replays(
        tmp_path, CONSEQUENCE_TESTS, fixtures=3, script=EXPERT_THEN_DONE
    )


SESSION_TESTS = """
import pytest
from agents import (
    Agent,
    OpenAIConversationsSession,
    Runner,
    SQLiteSession,
    set_tracing_disabled,
)

pytestmark = pytest.mark.replaygate(fixtures="agent.jsonl")
set_tracing_disabled(True)
# With a session the SDK keys the prompt cache "agents-sdk:session:<hash>": recorded as
# it is (the secret scan knows the SDK's keys).


def two_turns(session, question):
    agent = Agent(name="assistant", model="gpt-4o")
    first = Runner.run_sync(agent, question, session=session).final_output
    return first, Runner.run_sync(agent, "And another?", session=session).final_output


def test_a_sqlite_session():
    assert two_turns(SQLiteSession("user-1"), QUESTION) == (
        f"echo: {QUESTION}",
        "echo: And another?",
    )


def test_a_conversations_session():
    assert two_turns(OpenAIConversationsSession(), "On the server?") == (
        "echo: On the server?",
        "echo: And another?",
    )


def test_changed_question():
    two_turns(SQLiteSession("user-1"), CHANGED)
"""


def test_sessions_record_from_the_simulator_and_replay(tmp_path: Path) -> None:
    """A session's turns, kept by the SDK (``SQLiteSession``) or on the server through
    the Conversations API (``OpenAIConversationsSession``: the conversation made, its
    items read before each turn and added after it), recorded from the simulator by the
    marker alone and replayed."""
    assert_marker_alone_records_and_replays(tmp_path, SESSION_TESTS, fixtures=10)


def test_the_page_recipe_imports_what_exists() -> None:
    """docs/frameworks.md's code for this framework parses and imports only what exists."""
    assert_page_imports_resolve("OpenAI Agents SDK")
