"""What users of 0.1 wrote keeps working: the documented imports, and stores written by 0.1.

``tests/data/stores_0_1/`` was written by replaygate 0.1 before its modules moved: a
model-level store (the example's fixtures), and an HTTP store in both layouts (JSONL
and the folder layout) recorded from the simulator through the official SDKs.
"""

from __future__ import annotations

import importlib
import warnings
from pathlib import Path

import pytest

from replaygate.fixtures.store import FixtureStore
from replaygate.http import block_network, httpx2_client
from replaygate.models.providers import from_anthropic_request, from_anthropic_response
from replaygate.models.replay import ReplayModel
from replaygate.sanitize import SanitizeConfig
from sdks import anthropic, openai

STORES = Path(__file__).parent / "data" / "stores_0_1"

DOCUMENTED_0_1: dict[str, tuple[str, ...]] = {
    "replaygate": (
        "Message", "ModelResponse", "RecordingModel", "ReplayModel", "ToolCall", "ToolSpec",
        "canonical_json", "fixture_key", "from_anthropic_response", "from_openai_response",
        "to_anthropic_request", "to_openai_request",
    ),
    "replaygate.assertions": (
        "Check", "Judge", "JudgeIndependenceError", "assert_contains", "assert_json",
        "assert_set", "assert_structure", "citations_check", "contains_check",
        "extract_citations",
    ),
    "replaygate.errors": ("FixtureMismatchError",),
    "replaygate.evals": (
        "GateConfig", "History", "Recording", "Reference", "load_eval_cases",
        "load_reference", "run_eval", "run_gate", "update_baseline",
    ),
    "replaygate.examples.research_copilot": (
        "DEFAULT_MAX_TOKENS", "DEFAULT_MODEL", "DEFAULT_SYSTEM", "ResearchPolicy",
        "build_registry", "run",
    ),
    "replaygate.fakes": ("FunctionModel", "Rule", "RuleStub", "ScriptedModel"),
    "replaygate.fixture": ("InterfaceVersionError",),
    "replaygate.http": ("Exchange", "block_network", "httpx2_client"),
    "replaygate.live": ("AnthropicModel",),
    "replaygate.replay": ("RecordingModel", "ReplayModel"),
    "replaygate.sampling": ("run_sampled", "write_results"),
    "replaygate.sanitize": ("Rule", "SanitizeConfig", "Sanitizer"),
    "replaygate.sim": ("Simulator",),
    "replaygate.types": ("Message", "ModelResponse"),
}  # fmt: skip
"""Every ``from X import Y`` of the 0.1 README and docs."""


@pytest.mark.parametrize("module", sorted(DOCUMENTED_0_1))
def test_every_documented_0_1_import_still_works(module: str) -> None:
    imported = importlib.import_module(module)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        missing = [name for name in DOCUMENTED_0_1[module] if not hasattr(imported, name)]
    assert missing == [], f"{module} lost {missing}"


def test_a_model_store_written_by_0_1_replays_every_fixture() -> None:
    store = FixtureStore.open(STORES / "model.jsonl")
    assert len(store) == 27
    for fixture in store:
        messages, tools, system = from_anthropic_request(fixture.request)
        model = ReplayModel(
            store,
            model=fixture.request["model"],
            max_tokens=fixture.request["max_tokens"],
            system=system,
            sanitize=SanitizeConfig(),
        )
        with block_network():
            got = model.complete(messages, tools)
        assert got == from_anthropic_response(fixture.response)


@pytest.mark.slow
@pytest.mark.parametrize("layout", ["http.jsonl", "folder"])
def test_an_http_store_written_by_0_1_replays_through_the_sdks(layout: str) -> None:
    store = STORES / layout

    with (
        anthropic.Anthropic(
            api_key="k", base_url="http://sim.invalid", http_client=httpx2_client(store)
        ) as claude,
        openai.OpenAI(
            api_key="k", base_url="http://sim.invalid/v1", http_client=httpx2_client(store)
        ) as gpt,
        block_network(),
    ):
        plain = claude.messages.create(
            model="claude-sonnet-4-5",
            max_tokens=64,
            messages=[{"role": "user", "content": "ping"}],
        )
        with claude.messages.stream(
            model="claude-sonnet-4-5",
            max_tokens=64,
            messages=[{"role": "user", "content": "stream please"}],
        ) as stream:
            streamed = stream.get_final_message()
        chat = gpt.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "hello"}]
        )
    assert "ping" in plain.content[0].text  # type: ignore[union-attr]
    assert "stream please" in streamed.content[0].text  # type: ignore[union-attr]
    assert "hello" in (chat.choices[0].message.content or "")


@pytest.mark.parametrize(
    ("module", "old", "new"),
    [
        ("replaygate.assertions", "Problem", "StructureProblem"),
        ("replaygate.sanitize", "Rule", "RedactionRule"),
        ("replaygate.evals", "Recording", "RecordPlan"),
    ],
)
def test_a_renamed_class_answers_to_its_old_name_with_a_warning(
    module: str, old: str, new: str
) -> None:
    imported = importlib.import_module(module)
    with pytest.warns(DeprecationWarning, match=f"{module}.{old} is now {module}.{new}"):
        assert getattr(imported, old) is getattr(imported, new)
    with pytest.raises(AttributeError, match="has no attribute 'Nothing'"):
        imported.Nothing  # noqa: B018


def test_rule_stub_takes_its_store_under_the_0_1_keyword_with_a_warning() -> None:
    from replaygate.models.fakes import Rule, RuleStub

    store = FixtureStore.open(STORES / "model.jsonl")
    key = next(iter(store)).key
    with pytest.warns(DeprecationWarning, match=r"RuleStub\(fixtures=...\) is now"):
        stub = RuleStub([Rule(when="RAG", fixture=key)], fixtures=store)
    assert stub.store is store
