"""No false green: every change to what would be sent misses its fixtures, loudly.

Each argument of ``research_copilot.run`` is mutated one at a time (model layer), as
is each argument of an SDK call (HTTP layer, over loopback), and every field of every
recorded request, at both layers: 100% of the mutations must miss.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from replaygate.errors import FixtureMismatchError
from replaygate.examples.research_copilot import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_MODEL,
    DEFAULT_SYSTEM,
    ResearchPolicy,
    build_registry,
    run,
)
from replaygate.examples.research_copilot.tools import Tool, ToolRegistry
from replaygate.fixtures.session import FixtureSession
from replaygate.fixtures.store import FixtureStore
from replaygate.http import Exchange, block_network, httpx2_client
from replaygate.models.live import AnthropicModel
from replaygate.models.replay import RecordingModel, ReplayModel, RequestSettings
from replaygate.sim import Simulator
from sdks import anthropic

QUESTION = "What is RAG?"
SETTINGS = RequestSettings(DEFAULT_MODEL, DEFAULT_MAX_TOKENS)
"""The model's request settings: no system prompt of its own, ``run`` gives it."""


def misses(attempt: Callable[[], object]) -> bool:
    """Whether ``attempt`` raises a mismatch (and nothing answers it)."""
    try:
        attempt()
    except FixtureMismatchError:
        return True
    return False


def changed(leaf: Any) -> Any:
    """Another JSON leaf of the same kind (a bool stays a bool, an int an int)."""
    if isinstance(leaf, bool):
        return not leaf
    if isinstance(leaf, int | float):
        return leaf + 1
    if isinstance(leaf, str):
        return leaf + "~"
    return 0


def field_mutations(doc: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The path of every field of ``doc``: each key, each list item, each leaf."""
    items = (
        doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else ()
    )
    for key, value in items:
        yield (*path, key)
        yield from field_mutations(value, (*path, key))


def mutated(doc: Any, path: tuple[Any, ...], drop: bool) -> Any:
    """``doc`` with the field at ``path`` removed (``drop``) or its leaves changed."""
    twin = json.loads(json.dumps(doc))  # a copy of a JSON document, a fifth of deepcopy's CPU
    parent = twin
    for key in path[:-1]:
        parent = parent[key]
    last = path[-1]
    if drop:
        del parent[last]
    elif isinstance(parent[last], dict | list):
        parent[last] = changed(str(parent[last]))
    else:
        parent[last] = changed(parent[last])
    return twin


def every_field_misses(session: FixtureSession, requests: list[dict[str, Any]]) -> int:
    """Mutate every field of every request, one at a time; all must miss. How many were tried."""
    tried = 0
    for request in requests:
        assert session.lookup(session.stored_request(request)) is not None
        for path in field_mutations(request):
            for drop in (False, True):
                tried += 1
                twin = session.stored_request(mutated(request, path, drop))
                assert session.lookup(twin) is None, (path, drop)
                assert isinstance(session.miss(twin), FixtureMismatchError)
    return tried


# -- model layer -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def wire_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    store = tmp_path_factory.mktemp("mutations") / "copilot.jsonl"
    recorder = RecordingModel(
        ResearchPolicy(),
        store,
        approve_live=True,
        model=SETTINGS.model,
        max_tokens=SETTINGS.max_tokens,
    )
    run(recorder, build_registry(), QUESTION, system=DEFAULT_SYSTEM)
    return store


def replay(
    store: Path,
    *,
    question: str = QUESTION,
    system: str | None = DEFAULT_SYSTEM,
    registry: ToolRegistry | None = None,
    settings: RequestSettings = SETTINGS,
    max_steps: int = 8,
) -> object:
    model = ReplayModel(
        store,
        model=settings.model,
        max_tokens=settings.max_tokens,
        system=settings.system,
        interface_version=settings.interface_version,
    )
    return run(model, registry or build_registry(), question, system=system, max_steps=max_steps)


def registries() -> Iterator[ToolRegistry]:
    """The packaged tools with one thing changed: a spec field, a tool dropped, the order."""
    tools = [Tool(spec, lambda _: "{}") for spec in build_registry().specs]
    for i, tool in enumerate(tools):
        spec = tool.spec
        schema = {**spec.input_schema, "properties": {**spec.input_schema["properties"], "x": {}}}
        for twin in (
            replace(spec, name=spec.name + "_v2"),
            replace(spec, description=spec.description + " "),
            replace(spec, input_schema=schema),
        ):
            yield ToolRegistry([*tools[:i], Tool(twin, tool.handler), *tools[i + 1 :]])
        yield ToolRegistry(tools[:i] + tools[i + 1 :])
    yield ToolRegistry(tools[::-1])


def test_the_system_prompt_of_a_run_is_sent(wire_store: Path) -> None:
    fixtures = list(FixtureStore.open(wire_store))
    assert len(fixtures) == 3
    assert all(f.request["system"] == DEFAULT_SYSTEM for f in fixtures)
    result = replay(wire_store)
    assert getattr(result, "system", None) == DEFAULT_SYSTEM


def test_every_argument_of_run_that_is_sent_misses_when_changed(wire_store: Path) -> None:
    attempts: list[Callable[[], object]] = []
    for question in (QUESTION + " ", QUESTION.lower(), "What is RAG？", QUESTION[:-1]):
        attempts.append(lambda q=question: replay(wire_store, question=q))
    for system in (DEFAULT_SYSTEM + " ", DEFAULT_SYSTEM.upper(), DEFAULT_SYSTEM[:-1], None):
        attempts.append(lambda s=system: replay(wire_store, system=s))
    for registry in registries():
        attempts.append(lambda r=registry: replay(wire_store, registry=r))
    for settings in (
        replace(SETTINGS, model=SETTINGS.model + "-2"),
        replace(SETTINGS, max_tokens=SETTINGS.max_tokens + 1),
        replace(SETTINGS, interface_version="2099-01-01"),
    ):
        attempts.append(lambda s=settings: replay(wire_store, settings=s))
    missed = sum(misses(attempt) for attempt in attempts)
    assert (len(attempts), missed) == (20, 20)
    # max_steps bounds the loop and is never sent: a larger one replays the same run
    assert replay(wire_store, max_steps=50) == replay(wire_store)


def test_a_system_prompt_given_twice_differently_is_refused(wire_store: Path) -> None:
    model = ReplayModel(wire_store, model=DEFAULT_MODEL, max_tokens=DEFAULT_MAX_TOKENS, system="A")
    with pytest.raises(ValueError, match="differs from the model's system setting 'A'"):
        run(model, build_registry(), QUESTION, system=DEFAULT_SYSTEM)
    same = ReplayModel(
        wire_store, model=DEFAULT_MODEL, max_tokens=DEFAULT_MAX_TOKENS, system=DEFAULT_SYSTEM
    )
    assert run(same, build_registry(), QUESTION, system=DEFAULT_SYSTEM).system == DEFAULT_SYSTEM
    assert len(same.calls) == 3  # the run's copy of the model shares its calls


def test_a_live_sdk_model_sends_the_system_prompt_of_the_run() -> None:
    with (
        Simulator(behavior="research-copilot") as sim,
        anthropic.Anthropic(base_url=sim.url, api_key="sim-key", max_retries=0) as client,
    ):
        live = AnthropicModel(client, model=DEFAULT_MODEL, max_tokens=DEFAULT_MAX_TOKENS)
        result = run(live, build_registry(), QUESTION, system="Be brief.")
        sent = [request.body for request in sim.requests]
    assert result.system == "Be brief." and live.settings.system is None
    assert len(sent) == 3 and all(body["system"] == "Be brief." for body in sent)


def test_every_field_of_a_recorded_wire_request_misses_when_changed(wire_store: Path) -> None:
    requests = [f.request for f in FixtureStore.open(wire_store)]
    tried = every_field_misses(FixtureSession(wire_store), requests)
    assert tried > 200


# -- HTTP layer --------------------------------------------------------------------------

CALL: dict[str, Any] = {
    "model": "claude-sim-1",
    "max_tokens": 64,
    "system": "Be brief.",
    "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
    "stop_sequences": ["END"],
    "tool_choice": {"type": "auto"},
    "metadata": {"user_id": "u-1"},
    "tools": [{"name": "t", "description": "d", "input_schema": {"type": "object"}}],
}
BETA = {"anthropic-beta": "tools-2024-04-04"}


def send(store: Path, url: str | None, headers: dict[str, str], **call: Any) -> object:
    http = httpx2_client(store, "record-missing" if url else "replay", approve_live=bool(url))
    with anthropic.Anthropic(api_key="t", base_url=url, http_client=http, max_retries=0) as client:
        return client.messages.create(**call, extra_headers=headers)


@pytest.fixture(scope="module")
def http_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    store = tmp_path_factory.mktemp("mutations") / "http.jsonl"
    with Simulator(behavior="echo") as sim:
        send(store, sim.url, BETA, **CALL)
    return store


def test_every_argument_of_an_sdk_call_misses_when_changed(http_store: Path) -> None:
    calls = [{**CALL, name: mutated(CALL, (name,), False)[name]} for name in CALL]
    optional = [name for name in CALL if name not in ("model", "max_tokens", "messages")]
    calls += [{k: v for k, v in CALL.items() if k != name} for name in optional]
    headers = [{"anthropic-beta": "other"}, {}, {**BETA, "anthropic-version": "2024-01-01"}]
    with block_network():
        send(http_store, None, BETA, **CALL)
        attempts = [lambda c=call: send(http_store, None, BETA, **c) for call in calls]
        attempts += [lambda h=h: send(http_store, None, h, **CALL) for h in headers]
        missed = sum(misses(attempt) for attempt in attempts)
    assert (len(attempts), missed) == (16, 16)


def test_every_field_of_a_recorded_http_request_misses_when_changed(http_store: Path) -> None:
    (fixture,) = FixtureStore.open(http_store)
    session = Exchange(http_store).session
    tried = every_field_misses(session, [fixture.request])
    assert tried > 50
