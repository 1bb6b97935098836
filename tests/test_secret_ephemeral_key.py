"""A Realtime API client secret (``ek_`` and 32 hex digits), which opens a voice session
billed to its organization, is refused as any key is (law 4): it was written to disk, as
neither a field named for a credential (``value``) nor high entropy (no capital) told it."""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest

from replaygate.errors import SecretInFixtureError
from replaygate.http import httpx2_client
from replaygate.sanitize.secret_rules import detect_family
from sdks import openai

EPHEMERAL = "ek_" + "68af296e8e408191a1120ab6383263c2"


def test_a_recorded_client_secret_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    def answer(request: httpx2.Request) -> httpx2.Response:
        session = {"type": "realtime", "model": "gpt-realtime"}
        return httpx2.Response(
            200, json={"value": EPHEMERAL, "expires_at": 1756310470, "session": session}
        )

    store = tmp_path / "realtime.jsonl"
    live = httpx2.MockTransport(answer)
    with (
        httpx2_client(store, "record-missing", approve_live=True, transport=live) as http,
        openai.OpenAI(api_key="k", http_client=http, max_retries=0) as client,
        pytest.raises(SecretInFixtureError) as refused,
    ):
        client.realtime.client_secrets.create(session={"type": "realtime"})
    assert str(refused.value).startswith(
        "refusing to write fixture: OpenAI ephemeral key found at response.body.value;"
    )
    assert not store.exists() or store.read_bytes() == b""


@pytest.mark.parametrize(
    "text", ["ek_test_secret", f"week{EPHEMERAL[2:]}", f"{EPHEMERAL}0", EPHEMERAL.upper()]
)
def test_a_fake_or_a_longer_run_is_no_ephemeral_key(text: str) -> None:
    assert detect_family(text) != "OpenAI ephemeral key"
