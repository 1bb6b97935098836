"""Integers beyond 2^53 and beyond 64 bits stay exact through the HTTP layer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replaygate import exact_json
from replaygate.errors import FixtureFormatError, UnstorableValueError
from replaygate.fixtures.fingerprint import canonical_json, fixture_key
from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.store import FixtureStore
from replaygate.http import block_network, httpx2_client
from replaygate.http.envelope import body_field
from replaygate.http.recorded import replayed
from replaygate.sim import Simulator
from replaygate.strict_json import DuplicateKeyError
from sdks import anthropic

BIG = st.one_of(
    st.integers(min_value=2**53, max_value=2**64 + 2**10),
    st.integers(min_value=2**64, max_value=2**200),
    st.integers(min_value=-(2**200), max_value=-(2**53)),
)
WITHIN_64_BITS = st.integers(min_value=2**53 + 1, max_value=2**63 - 1)
BEYOND_64_BITS = st.integers(min_value=2**64, max_value=2**130)


def body(n: int) -> dict[str, Any]:
    return {"seed": n, "ids": [n, -n, 1.5], "nested": {"n": n, "text": "x" * 20}}


@given(n=BIG)
def test_a_body_keeps_its_integers_exact(n: int) -> None:
    raw = json.dumps(body(n)).encode()
    field, parsed = body_field(raw)
    assert field == "body" and parsed == body(n) and type(parsed["seed"]) is int
    assert str(n) in canonical_json(parsed)
    assert fixture_key({"body": parsed}) != fixture_key({"body": body(n + 1)})
    replayed_bytes = replayed({"status": 200, "headers": {}, "body": parsed}).body
    assert json.loads(replayed_bytes) == body(n)
    assert str(n).encode() in replayed_bytes


@given(n=BIG)
def test_exact_json_round_trips_and_refuses_what_is_not_json(n: int) -> None:
    value = body(n)
    assert exact_json.loads(exact_json.dumps(value, sort_keys=True)) == value
    assert (
        exact_json.dumps(value, sort_keys=True)
        == json.dumps(value, sort_keys=True, separators=(",", ":")).encode()
    )
    with pytest.raises(ValueError):
        exact_json.loads(b'{"n": 12345678901234567890, "x": NaN}')
    with pytest.raises(TypeError):
        exact_json.dumps({"n": n, "when": object()})


def send(store: Path, mode: str, url: str | None, n: int) -> Any:
    http = httpx2_client(store, mode, approve_live=mode != "replay")
    messages = [{"role": "user", "content": "hi"}]
    extra = {"metadata": {"user_id": "u"}, "seed": n}
    with anthropic.Anthropic(api_key="t", base_url=url, http_client=http, max_retries=0) as client:
        return client.messages.create(
            model="m", max_tokens=8, messages=messages, extra_body=extra
        ).model_dump(mode="json")


def sdk_round_trip(sim: Simulator, store: Path, n: int) -> None:
    store.unlink(missing_ok=True)
    live = send(store, "record-missing", sim.url, n)
    (fixture,) = FixtureStore.open(store)
    assert fixture.request["body"]["seed"] == n and type(fixture.request["body"]["seed"]) is int
    assert str(n) in store.read_text(encoding="utf-8")
    with block_network():
        assert send(store, "replay", None, n) == live
        with pytest.raises(anthropic.AnthropicError, match="no fixture recorded"):
            send(store, "replay", None, n + 1)


@settings(max_examples=5)
@given(n=WITHIN_64_BITS)
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_the_sdks_record_and_replay_integers_beyond_2_53_exactly(
    sim: Simulator, tmp_path_factory: pytest.TempPathFactory, n: int
) -> None:
    sdk_round_trip(sim, tmp_path_factory.mktemp("big") / "big.jsonl", n)


@settings(max_examples=5)
@given(n=BEYOND_64_BITS)
def test_an_integer_beyond_64_bits_is_refused_by_name_and_nothing_is_written(
    sim: Simulator, tmp_path_factory: pytest.TempPathFactory, n: int
) -> None:
    store = tmp_path_factory.mktemp("huge") / "huge.jsonl"
    before = len(sim.requests)
    with pytest.raises(
        UnstorableValueError, match=r"beyond 64 bits .* at request\.body\.seed, .*nothing was sent"
    ):
        send(store, "record-missing", sim.url, n)
    assert len(sim.requests) == before  # its answer could never have been recorded
    assert len(FixtureStore.open(store)) == 0
    assert not store.exists() or str(n) not in store.read_text(encoding="utf-8")


@pytest.mark.parametrize("n", [2**64, -(2**63) - 1, 10**40])
def test_a_stored_line_with_an_integer_beyond_64_bits_is_refused_with_file_and_line(
    tmp_path: Path, n: int
) -> None:
    good = Fixture.create({"model": "m"}, [{"ok": 1}])
    bad = Fixture.create({"model": "m", "seed": 1}, [{"ok": 1}])
    line = bad.to_line().replace(b'"seed":1', b'"seed":%d' % n)
    line = line.replace(bad.key.encode(), fixture_key({"model": "m", "seed": n}).encode())
    path = tmp_path / "store.jsonl"
    path.write_bytes(good.to_line() + line)
    with pytest.raises(FixtureFormatError) as err:
        FixtureStore.open(path)
    assert (err.value.file, err.value.line) == (str(path), 2)
    assert "integer beyond 64 bits" in err.value.reason and "request.seed" in err.value.reason
    within = line.replace(b"%d" % n, b"%d" % (2**64 - 1))
    path.write_bytes(
        within.replace(
            fixture_key({"model": "m", "seed": n}).encode(),
            fixture_key({"model": "m", "seed": 2**64 - 1}).encode(),
        )
    )
    (fixture,) = FixtureStore.open(path)
    assert fixture.request["seed"] == 2**64 - 1


JSON_VALUES = st.one_of(
    st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.text(), st.booleans()
)


@given(obj=st.dictionaries(st.text(), JSON_VALUES, min_size=1))
def test_a_body_as_json_dumps_writes_it_is_its_value_and_a_key_named_twice_is_refused(
    obj: dict[str, Any],
) -> None:
    """A body in json.dumps' default form (botocore's, requests' json=) is taken as the
    value it reads as (at once, as one orjson writes); the same form naming a key twice is
    still refused by name."""
    raw = json.dumps(obj).encode()
    assert exact_json.loads(raw, unique_keys=True) == obj
    key = json.dumps(next(iter(obj))).encode()
    with pytest.raises(DuplicateKeyError):
        exact_json.loads(raw[:-1] + b", " + key + b": 0}", unique_keys=True)
