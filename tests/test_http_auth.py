"""Law 4 over HTTP: no auth header or key ever reaches the fixture files."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from replaygate.errors import SecretInFixtureError
from replaygate.http import httpx2_async_client, httpx2_client
from replaygate.sim import FaultPlan, Simulator
from sdks import anthropic, openai

MARKER = "ZqXv7Wm2Kp9Rt4Ly6Hb8Nc3Jd5Fg1Ss0Aa"
ANTHROPIC_KEY = "sk-ant-api03-" + MARKER + "Q" * (40 - len(MARKER))
OPENAI_KEY = "sk-proj-" + MARKER + "R" * (48 - len(MARKER))
HI = [{"role": "user", "content": "hi"}]
FORBIDDEN = (MARKER.encode(), b"x-api-key", b"authorization", b"bearer", b"sk-ant", b"sk-proj")


def all_bytes(folder: Path) -> list[tuple[Path, bytes]]:
    return [(p, p.read_bytes()) for p in folder.rglob("*") if p.is_file()]


@pytest.mark.parametrize("layout", ["store.jsonl", "store-folder"])
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_keys_and_auth_headers_never_reach_disk(tmp_path: Path, layout: str) -> None:
    folder = tmp_path / "fixtures"
    store = folder / layout
    kw = {"approve_live": True}
    faults = FaultPlan.sequence(["429"], retry_after=0.01)
    with Simulator(behavior="echo", faults=faults) as sim:
        with anthropic.Anthropic(
            api_key=ANTHROPIC_KEY,
            base_url=sim.url,
            http_client=httpx2_client(store, "record-missing", **kw),
            default_headers={"x-api-key": ANTHROPIC_KEY, "Cookie": f"session={MARKER}"},
        ) as a:
            a.messages.create(model="m", max_tokens=8, messages=HI)
            with a.messages.stream(model="m", max_tokens=9, messages=HI) as s:
                s.get_final_message()
        with openai.OpenAI(
            api_key=OPENAI_KEY,
            base_url=sim.openai_base_url,
            http_client=httpx2_client(store, "record-missing", **kw),
        ) as o:
            o.chat.completions.create(model="g", messages=HI)
            list(o.chat.completions.create(model="g", messages=HI, stream=True))

        async def ask_async() -> None:
            async with openai.AsyncOpenAI(
                api_key=OPENAI_KEY,
                base_url=sim.openai_base_url,
                http_client=httpx2_async_client(store, "record-missing", **kw),
            ) as ao:
                await ao.chat.completions.create(model="g2", messages=HI)

        asyncio.run(ask_async())
        received = sim.requests
    sent = [" ".join(r.headers.values()) for r in received]
    assert any(ANTHROPIC_KEY in headers for headers in sent)
    assert any(OPENAI_KEY in headers for headers in sent)
    files = all_bytes(folder)
    assert len(files) >= 2
    for path, data in files:
        lowered = data.lower()
        for forbidden in FORBIDDEN:
            assert forbidden.lower() not in lowered, f"{forbidden!r} found in {path}"


def test_a_secret_in_a_recorded_body_is_refused_unwrapped(tmp_path: Path) -> None:
    store = tmp_path / "secret.jsonl"
    leak = [{"role": "user", "content": f"my key is {ANTHROPIC_KEY}"}]
    with Simulator(behavior="echo") as sim:
        with (
            anthropic.Anthropic(
                api_key="test",
                base_url=sim.url,
                http_client=httpx2_client(store, "record-missing", approve_live=True),
            ) as client,
            pytest.raises(SecretInFixtureError, match=r"Anthropic API key.*nothing was sent"),
        ):
            client.messages.create(model="m", max_tokens=8, messages=leak)
        assert sim.requests == []  # its answer could never have been recorded
    assert not store.exists() or MARKER.encode() not in store.read_bytes()
