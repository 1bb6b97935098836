"""Sanitize on every record path, end to end through the official SDKs over the simulator.

ResearchCopilot is recorded from a simulator whose tool-use ids are random, as a
live API's are, through the engine (``RecordingModel`` over the ``anthropic`` SDK)
and through the HTTP layer (the SDK over replaygate's transport); the simulator is
stopped and the run is replayed with the network blocked: same trace, same answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import random
import re
import secrets
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx2
import pytest

from replaygate import RecordingModel, ReplayModel
from replaygate.errors import SecretInFixtureError
from replaygate.examples.research_copilot import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_MODEL,
    DEFAULT_SYSTEM,
    ResearchPolicy,
    RunResult,
    build_registry,
    run,
)
from replaygate.fixtures.store import FixtureStore
from replaygate.http import Exchange, block_network, httpx2_async_client, httpx2_client
from replaygate.models.live import AnthropicModel
from replaygate.models.types import Message, ModelResponse, ToolSpec, Usage
from replaygate.sanitize import SanitizeConfig, SanitizeConfigError
from replaygate.sim import Simulator
from sdks import anthropic, openai

QUESTION = "What is RAG?"
EMAIL = "alice.smith@corp-mail.com"
PII_QUESTION = f"What is RAG? Send the answer to {EMAIL}."
IDS = SanitizeConfig(ids=True, times=True)
SETTINGS: dict[str, Any] = {
    "model": DEFAULT_MODEL,
    "max_tokens": DEFAULT_MAX_TOKENS,
    "system": DEFAULT_SYSTEM,
}
STABLE_TOOL_ID = re.compile(r"toolu_rg_[0-9a-f]{12}_\d+")


class RandomIds:
    """The ResearchCopilot policy, with a fresh random tool-use id on every call (as live)."""

    def __init__(self, seed: int = 3) -> None:
        self.policy = ResearchPolicy(rng=random.Random(seed))

    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        response = self.policy.respond(messages, tools)
        calls = tuple(
            dataclasses.replace(call, id=f"toolu_01{secrets.token_hex(11)}")
            for call in response.tool_calls
        )
        return dataclasses.replace(response, tool_calls=calls)


def trace(result: RunResult) -> tuple[str, list[str]]:
    return result.final, [step.detail for step in result.steps]


@contextlib.contextmanager
def sdk(base_url: str, http_client: httpx2.Client | None = None) -> Iterator[AnthropicModel]:
    """A live model over an ``anthropic`` client, the client closed when the block ends."""
    with anthropic.Anthropic(
        api_key="sk-test", base_url=base_url, http_client=http_client
    ) as client:
        yield AnthropicModel(client, **SETTINGS)


def record_http(store: Path, question: str, config: SanitizeConfig) -> RunResult:
    with Simulator(behavior=RandomIds()) as sim:
        exchange = Exchange(
            store, mode="record-missing", approve_live=True, source="sim", sanitize=config
        )
        with sdk(sim.url, httpx2_client(exchange)) as model:
            return run(model, build_registry(), question)


def replay_http(store: Path, question: str, config: SanitizeConfig) -> RunResult:
    with block_network():
        exchange = Exchange(store, sanitize=config)
        with sdk("https://api.anthropic.com", httpx2_client(exchange)) as model:
            return run(model, build_registry(), question)


def record_engine(store: Path, question: str, config: SanitizeConfig) -> RunResult:
    with Simulator(behavior=RandomIds()) as sim, sdk(sim.url) as live:
        recorder = RecordingModel(
            live, store, approve_live=True, source="sim", sanitize=config, **SETTINGS
        )
        return run(recorder, build_registry(), question)


def replay_engine(store: Path, question: str, config: SanitizeConfig) -> RunResult:
    with block_network():
        return run(ReplayModel(store, sanitize=config, **SETTINGS), build_registry(), question)


LAYERS = {"http": (record_http, replay_http), "engine": (record_engine, replay_engine)}


@pytest.fixture(scope="module")
def copilot(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], tuple[Path, RunResult]]:
    """The research copilot's run on :data:`QUESTION` recorded with :data:`IDS` through a
    layer (``http``: a folder, ``engine``: a JSONL file), once per module: the store, which
    the tests only read and replay, and the recorded run."""
    made: dict[str, tuple[Path, RunResult]] = {}

    def recorded(layer: str) -> tuple[Path, RunResult]:
        if layer not in made:
            record, _ = LAYERS[layer]
            folder = tmp_path_factory.mktemp(f"copilot-{layer}")
            store = folder / ("folder" if layer == "http" else "store.jsonl")
            made[layer] = (store, record(store, QUESTION, IDS))
        return made[layer]

    return recorded


def files(store: Path) -> Iterator[tuple[Path, bytes]]:
    paths = [store] if store.is_file() else sorted(store.rglob("*.json*"))
    for path in paths:
        if not path.name.endswith(".lock"):
            yield path, path.read_bytes()


def without_times(store: Path) -> list[tuple[str, Any, Any]]:
    out = []
    for fixture in FixtureStore.open(store):
        meta = dict(fixture.meta or {})
        meta.pop("recorded_at")
        out.append((fixture.key, fixture.request, (fixture.responses, meta)))
    return sorted(out, key=lambda item: item[0])


@pytest.mark.parametrize("layer", ["http", "engine"])
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_research_copilot_records_stable_ids_and_replays_offline(
    copilot: Callable[[str], tuple[Path, RunResult]], layer: str
) -> None:
    _, replay = LAYERS[layer]
    store, recorded = copilot(layer)
    assert any(step.tool_call for step in recorded.steps)
    replayed = replay(store, QUESTION, IDS)
    assert trace(replayed) == trace(recorded)
    text = b"".join(data for _, data in files(store)).decode()
    assert "toolu_01" not in text and "msg_sim" not in text and "req_sim" not in text
    made = set(STABLE_TOOL_ID.findall(text))
    assert made, "the tool-use ids were rewritten"
    answered = {
        block["tool_use_id"]
        for fixture in FixtureStore.open(store)
        for message in (fixture.request.get("body") or fixture.request)["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    }
    assert answered == made  # every stable id made by a response is the one answered


@pytest.mark.parametrize("layer", ["http", "engine"])
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_recording_again_with_new_random_ids_writes_the_same_fixtures(
    copilot: Callable[[str], tuple[Path, RunResult]], tmp_path: Path, layer: str
) -> None:
    record, _ = LAYERS[layer]
    first, _ = copilot(layer)
    second = tmp_path / ("folder" if layer == "http" else "store.jsonl")
    record(second, QUESTION, IDS)
    assert without_times(first) == without_times(second)


@pytest.mark.parametrize("layer", ["http", "engine"])
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_redacted_question_still_replays_with_the_real_address(
    tmp_path: Path, layer: str
) -> None:
    record, replay = LAYERS[layer]
    config = SanitizeConfig(ids=True, personal_data=("email",))
    store = tmp_path / ("folder" if layer == "http" else "store.jsonl")
    recorded = record(store, PII_QUESTION, config)
    for path, data in files(store):
        assert EMAIL.encode() not in data, path
    assert b"@example.com" in b"".join(data for _, data in files(store))
    replayed = replay(store, PII_QUESTION, config)
    assert trace(replayed) == trace(recorded)
    with pytest.raises(Exception, match="no fixture recorded"):
        replay(store, PII_QUESTION, SanitizeConfig(ids=True))  # without the rule: no match


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_an_echoed_address_split_across_stream_events_never_reaches_disk(tmp_path: Path) -> None:
    config = SanitizeConfig(personal_data=("email",))
    store = tmp_path / "echo.jsonl"
    question = [{"role": "user", "content": f"please write to {EMAIL} about the invoice"}]
    args: dict[str, Any] = {"model": "m", "max_tokens": 64, "messages": question}
    with Simulator(behavior="echo") as sim:
        exchange = Exchange(store, mode="record-missing", approve_live=True, sanitize=config)
        http = httpx2_client(exchange)
        with (
            anthropic.Anthropic(api_key="k", base_url=sim.url, http_client=http) as client,
            client.messages.stream(**args) as stream,
        ):
            live_text = stream.get_final_text()
    assert EMAIL in live_text  # the client read the live answer while it was recorded
    assert EMAIL.encode() not in store.read_bytes()
    with (
        block_network(),
        anthropic.Anthropic(
            api_key="k", http_client=httpx2_client(Exchange(store, sanitize=config))
        ) as client,
        client.messages.stream(**args) as stream,
    ):
        replayed = stream.get_final_text()
    assert EMAIL not in replayed and re.search(r"user-[0-9a-f]{8}@example\.com about", replayed)


# -- secrets: refused every time, unwrapped, nothing written -----------------------------

AWS = "AKIAIOSFODNN7SECRETX"
GITHUB = "ghp_" + "Zq8Xv7Wm2Kp9Rt4Ly6Hb8Nc3Jd5Fg1Ss0Aa9b"


class PlantedHeader(httpx2.BaseTransport):
    """The live transport, with a secret added to every response's ``request-id``."""

    def __init__(self) -> None:
        self.inner = httpx2.HTTPTransport()

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        response = self.inner.handle_request(request)
        response.headers["request-id"] = GITHUB
        return response

    def close(self) -> None:
        self.inner.close()


def _script(folder: Path, text: str) -> str:
    path = folder / "script.jsonl"
    path.write_text("\n".join([json.dumps({"text": text})] * 4))
    return f"script:{path}"


PLACES = {
    # where the secret is planted: (simulator behaviour text, user text, extra headers, transport)
    "request body": ("A fine answer.", f"my key is {AWS}", {}, False),
    "response body": (f"Use {GITHUB} to log in.", "hi", {}, False),
    "request header": ("A fine answer.", "hi", {"anthropic-beta": f"tools-{AWS}"}, False),
    "response header": ("A fine answer.", "hi", {}, True),
}
WHERE = {
    "request body": r"AWS access key id found at request\.body\.messages\[0\]\.content",
    # streamed, the token is split across the text deltas: found in the joined text
    "response body": r"GitHub token found at response\.(body\.content\[0\]\.text"
    r"|events\[3\.\.5\]\.data);",
    "request header": r"AWS access key id found at request\.headers\.anthropic-beta",
    "response header": r"GitHub token found at response\.headers\.request-id",
}


@pytest.mark.parametrize("streamed", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize("place", list(PLACES))
def test_a_planted_secret_is_refused_unwrapped_and_nothing_is_written(
    tmp_path: Path, place: str, streamed: bool
) -> None:
    answer, user, headers, planted_header = PLACES[place]
    store = tmp_path / "fixtures"
    with Simulator(behavior=_script(tmp_path, answer)) as sim, contextlib.ExitStack() as stack:
        live = PlantedHeader() if planted_header else None
        http = httpx2_client(store, "record-missing", approve_live=True, transport=live)
        client = stack.enter_context(
            anthropic.Anthropic(api_key="k", base_url=sim.url, http_client=http, max_retries=0)
        )
        args: dict[str, Any] = {
            "model": "m",
            "max_tokens": 16,
            "messages": [{"role": "user", "content": user}],
            "extra_headers": headers,
        }
        with pytest.raises(SecretInFixtureError, match=WHERE[place]) as caught:
            if streamed:
                with client.messages.stream(**args) as stream:
                    stream.get_final_message()
            else:
                client.messages.create(**args)
        # a request that holds a secret is refused before it is sent: its answer could
        # never be recorded; a response holding one is refused once, not retried by the SDK
        in_request = place.startswith("request")
        assert len(sim.requests) == (0 if in_request else 1)
    assert not isinstance(caught.value, anthropic.APIConnectionError)
    assert "nothing was written" in str(caught.value)
    assert ("nothing was sent" in str(caught.value)) == in_request
    assert len(FixtureStore.open(store)) == 0
    assert not [p for p in store.rglob("*.json*")] if store.exists() else True


def test_a_planted_secret_is_refused_by_the_async_openai_client_too(tmp_path: Path) -> None:
    store = tmp_path / "o.jsonl"

    async def ask(base_url: str) -> None:
        http = httpx2_async_client(store, "record-missing", approve_live=True)
        async with openai.AsyncOpenAI(api_key="k", base_url=base_url, http_client=http) as client:
            await client.chat.completions.create(
                model="g", messages=[{"role": "user", "content": f"key {AWS}"}]
            )

    with Simulator(behavior="echo") as sim, pytest.raises(SecretInFixtureError, match="AWS"):
        asyncio.run(ask(sim.openai_base_url))
    assert not store.exists() or AWS.encode() not in store.read_bytes()


def test_the_engine_refuses_a_planted_secret_and_writes_nothing(tmp_path: Path) -> None:
    store = tmp_path / "engine.jsonl"
    with Simulator(behavior="echo") as sim, sdk(sim.url) as live:
        recorder = RecordingModel(live, store, approve_live=True, **SETTINGS)
        with pytest.raises(
            SecretInFixtureError, match=r"request\.messages\[0\]\.content\[0\]\.text"
        ) as caught:
            recorder.complete([Message.user(f"my key is {AWS}")], [])
        assert sim.requests == []  # refused before it was sent
    assert "nothing was sent" in str(caught.value)
    assert not store.exists() or store.read_bytes() == b""


# -- usage and trim through the SDK -----------------------------------------------------------


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_normalized_usage_replays_as_zero_and_is_kept_by_default(
    copilot: Callable[[str], tuple[Path, RunResult]], tmp_path: Path
) -> None:
    kept, recorded = copilot("engine")
    quiet = tmp_path / "quiet.jsonl"
    assert recorded.usage != Usage()
    record_engine(quiet, QUESTION, SanitizeConfig(ids=True, normalize_usage=True))
    assert replay_engine(kept, QUESTION, IDS).usage != Usage()
    assert replay_engine(quiet, QUESTION, IDS).usage == Usage(0, 0)


@pytest.mark.parametrize("streamed", [False, True], ids=["plain", "stream"])
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_trimmed_fixture_still_replays_through_the_sdk(tmp_path: Path, streamed: bool) -> None:
    config = SanitizeConfig(trim={"anthropic.messages": ("content", "model")})
    store = tmp_path / "trimmed.jsonl"
    args: dict[str, Any] = {
        "model": "m",
        "max_tokens": 32,
        "messages": [{"role": "user", "content": "hi"}],
    }

    def ask(client: anthropic.Anthropic) -> Any:
        with client:
            if streamed:
                with client.messages.stream(**args) as stream:
                    return stream.get_final_message()
            return client.messages.create(**args)

    with Simulator(behavior="echo") as sim:
        exchange = Exchange(store, mode="record-missing", approve_live=True, sanitize=config)
        live = ask(
            anthropic.Anthropic(api_key="k", base_url=sim.url, http_client=httpx2_client(exchange))
        )
    fixture = next(iter(FixtureStore.open(store)))
    stored = (
        fixture.response.get("body") or json.loads(fixture.response["events"][0]["data"])["message"]
    )
    assert set(stored) == {"content", "model", "stop_reason", "usage"}
    with block_network():
        client = anthropic.Anthropic(
            api_key="k", http_client=httpx2_client(Exchange(store, sanitize=config))
        )
        replayed = ask(client)
    assert replayed.content[0].text == live.content[0].text == "echo: hi"
    assert replayed.model == "m"


RULES_FILE = """[tool.replaygate.sanitize]
ids = true

[[tool.replaygate.sanitize.rules]]
literal = "ACME"
replace = "Example"

[[tool.replaygate.sanitize.rules]]
literal = "{word}"
replace = "someone"
"""
"""A project whose second rule (line 8) rewrites ``word`` (format it in)."""


def test_a_rule_that_rewrites_the_role_is_refused_unwrapped_and_nothing_is_written(
    tmp_path: Path,
) -> None:
    (tmp_path / "pyproject.toml").write_text(RULES_FILE.format(word="assistant"))
    store = tmp_path / "fixtures"
    with Simulator(behavior="echo") as sim:
        http = httpx2_client(Exchange(store, mode="record-missing", approve_live=True))
        with (
            anthropic.Anthropic(
                api_key="k", base_url=sim.url, http_client=http, max_retries=0
            ) as client,
            pytest.raises(SanitizeConfigError) as caught,
        ):
            client.messages.create(
                model="m", max_tokens=16, messages=[{"role": "user", "content": "hi assistant"}]
            )
    assert str(caught.value).startswith(
        f"{tmp_path / 'pyproject.toml'}:8: tool.replaygate.sanitize.rules[1]: recording "
        "POST /v1/messages, the rule (literal 'assistant') rewrites the role at "
        "response.body.role ('assistant')"
    )
    assert len(FixtureStore.open(store)) == 0


def test_the_engine_refuses_a_rule_that_rewrites_the_role_naming_file_line_and_call(
    tmp_path: Path,
) -> None:
    (tmp_path / "pyproject.toml").write_text(RULES_FILE.format(word="user"))
    store = tmp_path / "engine.jsonl"
    with Simulator(behavior="echo") as sim, sdk(sim.url) as live:
        recorder = RecordingModel(live, store, approve_live=True, **SETTINGS)
        with pytest.raises(SanitizeConfigError) as caught:
            recorder.complete([Message.user("hi")], [])
        assert sim.requests == []  # refused before it was sent
    assert str(caught.value).startswith(
        f"{tmp_path / 'pyproject.toml'}:8: tool.replaygate.sanitize.rules[1]: recording "
        f"a call of model {DEFAULT_MODEL!r}, the rule (literal 'user') rewrites the role at "
        "request.messages[0].role ('user')"
    )
    assert not store.exists() or store.read_bytes() == b""
