"""``replaygate drift``: a field whose value changed JSON type (a count that came null, an
object that came as a list) is drift at its path, live and ``--against``.

Fixtures are recorded through the anthropic SDK from a clean loopback simulator, then
re-sent to simulators whose drift injection sets fields to other values. A field the
fixtures hold null in some answers and set in others (``stop_sequence``) is no drift
whichever form a live answer takes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from replaygate.cli import main
from replaygate.http import httpx2_client
from replaygate.hygiene.drift import DriftReport, drift_against, drift_live
from replaygate.hygiene.fieldset import field_shape
from replaygate.hygiene.resend import LiveSender
from replaygate.models.live import AnthropicModel
from replaygate.models.replay import RecordingModel
from replaygate.models.types import Message
from replaygate.sim import Simulator
from sdks import anthropic

MODEL = "claude-test-model"
QUESTIONS = ("What is RAG?", "Why are agent tests flaky?", "How do fixtures rot?")
NULLED = (
    "add-field:usage.input_tokens=null,add-field:stop_reason=null,add-field:content.0.text=null"
)
STOPPED = 'add-field:stop_sequence="END"'


def record(sim: Simulator, store: Path, questions: tuple[str, ...] = QUESTIONS) -> None:
    """Anthropic wire fixtures of ``questions``, through the SDK."""
    with anthropic.Anthropic(api_key="sim-key", base_url=sim.url, max_retries=0) as client:
        recorder = RecordingModel(
            AnthropicModel(client, model=MODEL, max_tokens=200), store, approve_live=True,
            model=MODEL, max_tokens=200, interface="anthropic.messages", source="sim",
        )  # fmt: skip
        for question in questions:
            recorder.complete([Message.user(question)], [])


def record_http(sim: Simulator, store: Path) -> None:
    """HTTP fixtures of :data:`QUESTIONS` through the SDK over the recording transport,
    which keeps an answer's body as it came (null text too)."""
    http = httpx2_client(store, "record-missing", approve_live=True, source="sim")
    with anthropic.Anthropic(api_key="sim-key", base_url=sim.url, http_client=http) as client:
        for question in QUESTIONS:
            client.messages.create(
                model=MODEL, max_tokens=100, messages=[{"role": "user", "content": question}]
            )


def resend(store: Path, url: str) -> DriftReport:
    with closing(LiveSender(url)) as sender:
        return drift_live(store, 10, sender, approve_live=True)


def drift(*args: str) -> Result:
    return CliRunner().invoke(main, ["drift", *args])


@pytest.fixture(scope="module")
def clean_sim() -> Iterator[Simulator]:
    with Simulator(behavior="echo") as sim:
        yield sim


@pytest.fixture(scope="module")
def nulling_sim() -> Iterator[Simulator]:
    with Simulator(behavior="echo", drift=NULLED) as sim:
        yield sim


@pytest.fixture(scope="module")
def stopping_sim() -> Iterator[Simulator]:
    """Answers as if a stop sequence matched: ``stop_sequence`` is a string."""
    with Simulator(behavior="echo", drift=STOPPED) as sim:
        yield sim


@pytest.fixture(scope="module")
def stores(
    tmp_path_factory: pytest.TempPathFactory,
    clean_sim: Simulator,
    nulling_sim: Simulator,
    stopping_sim: Simulator,
) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("drift-types")
    record(clean_sim, root / "clean.jsonl")
    record_http(clean_sim, root / "clean_http")
    record_http(nulling_sim, root / "nulled_http")
    record(clean_sim, root / "mixed.jsonl", QUESTIONS[:2])
    record(stopping_sim, root / "mixed.jsonl", QUESTIONS[2:])
    stores = {name: root / f"{name}.jsonl" for name in ("clean", "mixed")}
    return {**stores, "clean_http": root / "clean_http", "nulled_http": root / "nulled_http"}


def test_shape_names_the_json_type_at_each_path() -> None:
    shape = field_shape({"a": None, "b": [{"c": 1}, {"c": "x"}], "d": True, "e": {}})
    assert shape == {
        "a": {"null"},
        "b": {"array"},
        "b[].c": {"number", "string"},
        "d": {"boolean"},
        "e": {"object"},
    }


@pytest.mark.slow  # a drift check against the simulator
def test_live_values_turned_null_are_drift(
    stores: dict[str, Path], nulling_sim: Simulator, tmp_path: Path
) -> None:
    json_file = tmp_path / "drift.json"
    done = drift(
        str(stores["clean"]), "--live-sample", "3", "--approve-live",
        "--base-url", nulling_sim.url, "--json-out", str(json_file),
    )  # fmt: skip
    assert done.exit_code == 1, done.output
    assert "  of another type in live than in fixtures" in done.output
    assert "    ~ usage.input_tokens: number in fixtures, null in live" in done.output
    assert "    ~ stop_reason: string in fixtures, null in live" in done.output
    assert "    ~ content[].text: string in fixtures, null in live" in done.output
    [interface] = json.loads(json_file.read_text(encoding="utf-8"))["interfaces"]
    assert interface["only_new"] == [] and interface["only_old"] == []
    assert {"field": "usage.input_tokens", "old": ["number"], "new": ["null"]} in interface[
        "retyped"
    ]


def test_against_finds_the_types_changed_both_ways(stores: dict[str, Path]) -> None:
    clean, nulled_store = stores["clean_http"], stores["nulled_http"]
    nulled = drift_against(clean, nulled_store)
    [found] = nulled.interfaces
    assert found.compared == "by request" and nulled.verdict is True
    assert [r.field for r in found.retyped] == [
        "content[].text",
        "stop_reason",
        "usage.input_tokens",
    ]
    back = drift_against(nulled_store, clean)
    assert [(r.field, r.old, r.new) for r in back.interfaces[0].retyped][-1] == (
        "usage.input_tokens", ("null",), ("number",)
    )  # fmt: skip
    done = drift(str(clean), "--against", str(nulled_store))
    assert done.exit_code == 1
    assert f"~ stop_reason: string in {clean}, null in {nulled_store}" in done.output


@pytest.mark.slow  # a drift check against the simulator
def test_a_number_sent_as_text_and_an_object_as_a_list_are_drift(
    stores: dict[str, Path],
) -> None:
    with Simulator(behavior="echo", drift='add-field:usage.output_tokens="7"') as sim:
        report = resend(stores["clean"], sim.url)
    [texted] = report.interfaces[0].retyped
    assert (texted.field, texted.old, texted.new) == (
        "usage.output_tokens",
        ("number",),
        ("string",),
    )
    with Simulator(behavior="echo", drift="add-field:usage=[]") as sim:
        listed = resend(stores["clean"], sim.url).interfaces[0]
    assert [(r.field, r.new) for r in listed.retyped] == [("usage", ("array",))]
    assert "usage.input_tokens" in listed.only_old


@pytest.mark.slow  # a drift check against the simulator
def test_a_field_null_in_some_fixtures_does_not_flip_drift(
    stores: dict[str, Path], clean_sim: Simulator, stopping_sim: Simulator
) -> None:
    # the fixtures hold stop_sequence null and a string: either live form is no drift
    for sim in (clean_sim, stopping_sim):
        report = resend(stores["mixed"], sim.url)
        assert report.verdict is False, report.interfaces
    # fixtures that never held it a string: a string is a type the parser never met
    [found] = resend(stores["clean"], stopping_sim.url).interfaces
    assert [(r.field, r.old, r.new) for r in found.retyped] == [
        ("stop_sequence", ("null",), ("string",))
    ]
    # --against: the set that holds both forms against one that holds either
    assert drift_against(stores["mixed"], stores["clean"]).verdict is False
