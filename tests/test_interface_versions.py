"""Fixtures are bound to the interface version that produced them; replaying another is an error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from replaygate import Fixture, FixtureStore, Message, ModelResponse, RecordingModel, ReplayModel
from replaygate.fixtures.fixture import (
    SOURCES,
    InterfaceVersionError,
    interface_folder,
    make_meta,
    meta_problems,
    version_mismatch,
)
from replaygate.http import Exchange, block_network, httpx2_client
from replaygate.http.envelope import interface_version_of
from replaygate.models.fakes import ScriptedModel
from replaygate.models.providers import to_anthropic_request, to_anthropic_response
from replaygate.sanitize import SanitizeConfig
from replaygate.sim import Simulator
from sdks import anthropic, openai

SETTINGS: dict[str, Any] = {"model": "claude-x", "max_tokens": 32}
HI = [Message.user("hi")]
NO_SANITIZE = SanitizeConfig()


def record(store: Path, **extra: Any) -> None:
    live = ScriptedModel([ModelResponse(text="hello")])
    RecordingModel(
        live, store, approve_live=True, sanitize=NO_SANITIZE, **SETTINGS, **extra
    ).complete(HI, [])


# -- engine ----------------------------------------------------------------------------------


def test_engine_fixtures_carry_the_interface_and_its_version(tmp_path: Path) -> None:
    store = tmp_path / "fixtures"
    record(store)
    record(store, interface="openai.chat.completions")
    files = sorted(p.relative_to(store).parent.name for p in store.rglob("*.json"))
    assert files == ["anthropic.messages@2023-06-01", "openai.chat.completions@v1"]
    metas = {f.meta["interface"]: f.meta for f in FixtureStore.open(store) if f.meta}
    assert metas["anthropic.messages"]["interface_version"] == "2023-06-01"
    assert metas["openai.chat.completions"]["interface_version"] == "v1"
    assert all(not meta_problems(m) for m in metas.values())


def test_replaying_a_fixture_of_another_version_names_both(tmp_path: Path) -> None:
    store = tmp_path / "s.jsonl"
    record(store, interface_version="2023-01-01")
    assert (
        ReplayModel(store, interface_version="2023-01-01", **SETTINGS).complete(HI, []).text
        == "hello"
    )
    with pytest.raises(InterfaceVersionError) as caught:
        ReplayModel(store, **SETTINGS).complete(HI, [])
    message = str(caught.value)
    assert f"at {store}:1 was recorded for anthropic.messages version 2023-01-01" in message
    assert "this run asks for anthropic.messages version 2023-06-01" in message
    assert (
        'Re-record it for 2023-06-01 (`mode="rerecord", approve_live=True` on a RecordingModel '
        "(pytest's --replaygate-record-mode reaches the clients of the plugin's fixtures, not "
        "a model a test builds"
    ) in message
    assert "interface_version='2023-01-01'" in message
    assert caught.value.store == str(store) and caught.value.key


def test_record_missing_refuses_it_too_and_rerecord_replaces_it(tmp_path: Path) -> None:
    store = tmp_path / "s.jsonl"
    record(store, interface_version="2023-01-01")
    with pytest.raises(InterfaceVersionError, match="version 2023-01-01"):
        record(store)
    record(store, mode="rerecord")
    assert ReplayModel(store, **SETTINGS).complete(HI, []).text == "hello"
    (only,) = list(FixtureStore.open(store))
    assert only.meta is not None and only.meta["interface_version"] == "2023-06-01"


def test_a_fixture_made_for_another_interface_is_refused(tmp_path: Path) -> None:
    store = tmp_path / "s.jsonl"
    request = to_anthropic_request(HI, [], **SETTINGS)
    response = to_anthropic_response(ModelResponse(text="hand made"), model="claude-x")
    meta = make_meta("openai.chat.completions", "v1", "hand", "written by hand")
    store.write_bytes(Fixture.create(request, [response], meta).to_line())
    with pytest.raises(
        InterfaceVersionError, match=r"recorded for openai\.chat\.completions version v1"
    ):
        ReplayModel(store, **SETTINGS).complete(HI, [])


def test_fixtures_without_meta_are_not_version_checked(tmp_path: Path) -> None:
    store = tmp_path / "seed.jsonl"
    request = to_anthropic_request(HI, [], **SETTINGS)
    response = to_anthropic_response(ModelResponse(text="seed"), model="claude-x")
    store.write_bytes(Fixture.create(request, [response]).to_line())
    assert (
        ReplayModel(store, interface_version="2099-01-01", **SETTINGS).complete(HI, []).text
        == "seed"
    )


# -- HTTP ------------------------------------------------------------------------------------


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_http_fixtures_record_the_version_they_were_sent_with(tmp_path: Path) -> None:
    store = tmp_path / "fixtures"
    with Simulator(behavior="echo") as sim:
        exchange = Exchange(store, mode="record-missing", approve_live=True, source="sim")
        with anthropic.Anthropic(
            api_key="k", base_url=sim.url, http_client=httpx2_client(exchange)
        ) as a:
            a.messages.create(model="m", max_tokens=8, messages=[{"role": "user", "content": "hi"}])
            a.messages.create(
                model="m",
                max_tokens=8,
                messages=[{"role": "user", "content": "hi"}],
                extra_headers={"anthropic-version": "2023-06-01"},
            )
        with openai.OpenAI(
            api_key="k", base_url=sim.openai_base_url, http_client=httpx2_client(exchange)
        ) as o:
            o.chat.completions.create(model="g", messages=[{"role": "user", "content": "hi"}])
        sent = {r.headers.get("anthropic-version") for r in sim.requests} - {None}
    folders = sorted({p.parent.name for p in store.rglob("*.json")})
    sdk_version = (sent - {"2023-06-01"}).pop()
    assert folders == sorted(
        [
            f"anthropic.messages@{sdk_version}",
            "anthropic.messages@2023-06-01",
            "openai.chat.completions@v1",
        ]
    )
    for fixture in FixtureStore.open(store):
        assert fixture.meta is not None and not meta_problems(fixture.meta)
        assert fixture.meta["source"] == "sim"
        assert interface_folder(fixture.meta) in folders


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_an_http_replay_at_another_anthropic_version_says_which(tmp_path: Path) -> None:
    store = tmp_path / "v.jsonl"
    hi = [{"role": "user", "content": "hi"}]
    with Simulator(behavior="echo") as sim:
        http = httpx2_client(store, "record-missing", approve_live=True)
        with anthropic.Anthropic(api_key="k", base_url=sim.url, http_client=http) as client:
            client.messages.create(model="m", max_tokens=8, messages=hi)
        recorded = sim.requests[0].headers["anthropic-version"]
    with (
        block_network(),
        anthropic.Anthropic(api_key="k", http_client=httpx2_client(store)) as client,
    ):
        client.messages.create(model="m", max_tokens=8, messages=hi)  # same version: a hit
        with pytest.raises(InterfaceVersionError) as caught:
            client.messages.create(
                model="m",
                max_tokens=8,
                messages=hi,
                extra_headers={"anthropic-version": "2023-01-01"},
            )
    message = str(caught.value)
    assert message.startswith(
        "no fixture recorded for this HTTP request (POST https://api.anthropic.com/v1/messages): "
    )
    assert f"recorded for anthropic-version {recorded}, requested 2023-01-01" in message
    assert f"at {store}:1" in message and 'mode="rerecord", approve_live=True' in message
    assert caught.value.differences == (f"headers.anthropic-version: {recorded!r} != '2023-01-01'",)
    assert not isinstance(caught.value, anthropic.APIConnectionError)


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_miss_that_differs_by_more_than_the_version_is_the_usual_mismatch(tmp_path: Path) -> None:
    store = tmp_path / "v.jsonl"
    with Simulator(behavior="echo") as sim:
        http = httpx2_client(store, "record-missing", approve_live=True)
        with anthropic.Anthropic(api_key="k", base_url=sim.url, http_client=http) as client:
            client.messages.create(
                model="m", max_tokens=8, messages=[{"role": "user", "content": "hi"}]
            )
    with (
        block_network(),
        anthropic.Anthropic(api_key="k", http_client=httpx2_client(store)) as client,
        pytest.raises(Exception) as caught,
    ):
        client.messages.create(
            model="m",
            max_tokens=8,
            messages=[{"role": "user", "content": "hello"}],
            extra_headers={"anthropic-version": "2023-01-01"},
        )
    assert not isinstance(caught.value, InterfaceVersionError)
    assert "no fixture recorded for this HTTP request" in str(caught.value)
    assert "headers.anthropic-version" in str(caught.value) and "body.messages[0].content" in str(
        caught.value
    )


@pytest.mark.parametrize(
    ("envelope", "version"),
    [
        ({"path": "/v1/messages", "headers": {"anthropic-version": "2023-06-01"}}, "2023-06-01"),
        ({"path": "/v1/messages", "headers": {}}, "v1"),
        ({"path": "/v1/chat/completions?x=1", "headers": {}}, "v1"),
        ({"path": "/openai/v2beta/chat/completions", "headers": {}}, "v2beta"),
        ({"path": "/chat/completions", "headers": {}}, "unversioned"),
    ],
)
def test_interface_version_of_an_envelope(envelope: dict[str, Any], version: str) -> None:
    assert interface_version_of(envelope) == version


# -- meta helpers --------------------------------------------------------------------------


def test_make_meta_and_its_checks() -> None:
    meta = make_meta(
        "anthropic.messages", "2023-06-01", "hand", "edge case", recorded_at="2026-01-02T03:04:05Z"
    )
    assert meta == {
        "interface": "anthropic.messages",
        "interface_version": "2023-06-01",
        "recorded_at": "2026-01-02T03:04:05Z",
        "source": "hand",
        "replaygate_version": meta["replaygate_version"],
        "note": "edge case",
    }
    assert meta_problems(meta) == []
    assert "note" not in make_meta("x", "v1", "live")
    with pytest.raises(
        ValueError, match=f"source must be one of {', '.join(SOURCES)}, got 'staging'"
    ):
        make_meta("x", "v1", "staging")


def test_meta_problems_say_what_is_wrong() -> None:
    assert meta_problems(
        {
            "interface": "x",
            "source": "staging",
            "recorded_at": "yesterday",
            "note": 3,
            "interface_version": "",
        }
    ) == [
        "meta.interface_version must be a non-empty string, got ''",
        "meta.replaygate_version is missing",
        "meta.note must be a string, got 3",
        "meta.source 'staging' is not one of live, sim, hand, scripted, vcrpy",
        "meta.recorded_at 'yesterday' is not an ISO 8601 time",
    ]


def test_version_mismatch_and_interface_folder() -> None:
    meta = make_meta("anthropic.messages", "2023-06-01", "sim")
    assert version_mismatch(meta, "anthropic.messages", "2023-06-01") is None
    assert version_mismatch(meta, "anthropic.messages", "2024") == (
        "anthropic.messages",
        "2023-06-01",
    )
    assert version_mismatch(None, "a", "b") is None
    assert version_mismatch({"interface": "a"}, "b", "c") is None
    assert interface_folder(meta) == "anthropic.messages@2023-06-01"
    assert interface_folder({"interface": "http"}) == "http"
    assert interface_folder(None) is None


def test_a_hand_written_fixture_round_trips(tmp_path: Path) -> None:
    store = FixtureStore.open(tmp_path / "hand")
    request = to_anthropic_request(HI, [], **SETTINGS)
    response = to_anthropic_response(ModelResponse(text="by hand"), model="claude-x")
    loc = store.put(
        Fixture.create(request, [response], make_meta("anthropic.messages", "2023-06-01", "hand"))
    )
    assert loc.file.parent.name == "anthropic.messages@2023-06-01"
    assert json.loads(loc.file.read_text())["meta"]["source"] == "hand"
    assert ReplayModel(store, **SETTINGS).complete(HI, []).text == "by hand"


def test_an_unknown_source_is_refused_before_anything_is_recorded(tmp_path: Path) -> None:
    message = "source must be one of live, sim, hand, scripted, vcrpy, got 'staging'"
    with pytest.raises(ValueError, match=message):
        Exchange(tmp_path / "h.jsonl", mode="record-missing", approve_live=True, source="staging")
    with pytest.raises(ValueError, match=message):
        RecordingModel(
            ScriptedModel([]), tmp_path / "e.jsonl", approve_live=True, source="staging", **SETTINGS
        )
    assert list(tmp_path.iterdir()) == []
