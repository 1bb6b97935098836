"""Redaction of text sent encoded: ``\\u`` escapes (``json.dumps``), percent-encoded forms.

Recorded through the official SDK (or ``httpx2``) over loopback, then replayed with the
network blocked: the original never reaches the fixture, and the same request, redacted
again at replay, finds it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from loopback import Handler, serving
from replaygate.http import Exchange, block_network, httpx2_client
from replaygate.sanitize import RedactionRule, SanitizeConfig, Sanitizer
from replaygate.sim import Simulator
from sdks import openai

CONFIG = SanitizeConfig(
    personal_data=("email",),
    rules=(
        RedactionRule(literal="José García", replace="Jane Doe"),
        RedactionRule(literal="Alice Liddell", replace="Jane Doe"),
    ),
)
RECORD = {"customer": "José García", "email": "jörg.müller@corp-mail.com", "city": "Zürich 😀"}


def stored_bytes(store: Path) -> bytes:
    return b"".join(path.read_bytes() for path in sorted(store.rglob("*.json")))


def ask(client: openai.OpenAI, content: str) -> str:
    answer = client.chat.completions.create(
        model="gpt-4o", messages=[{"role": "user", "content": content}]
    )
    return answer.choices[0].message.content or ""


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_text_written_with_json_escapes_is_redacted_and_replays(tmp_path: Path) -> None:
    content = "Customer record: " + json.dumps(RECORD)  # ensure_ascii: \u escapes
    assert "\\u00e9" in content
    store = tmp_path / "fx"
    with Simulator(behavior="echo") as sim:
        exchange = Exchange(store, mode="record-missing", approve_live=True, sanitize=CONFIG)
        with openai.OpenAI(
            api_key="sk-sim", base_url=sim.url + "/v1", http_client=httpx2_client(exchange)
        ) as client:
            live = ask(client, content)
    assert "José García" in json.loads(live.partition(": ")[2].partition(": ")[2])["customer"]
    data = stored_bytes(store)
    for original in (b"Jos\\\\u00e9", b"j\\\\u00f6rg", b"m\\\\u00fcller", b"corp-mail.com"):
        assert original not in data
    fixture = json.loads(next(store.rglob("*.json")).read_text())
    sent = fixture["request"]["body"]["messages"][0]["content"]
    redacted = json.loads(sent.partition(": ")[2])  # still JSON, still ASCII
    assert sent.isascii() and redacted["customer"] == "Jane Doe"
    assert redacted["email"].endswith("@example.com") and redacted["city"] == "Zürich 😀"
    with (
        block_network(),
        openai.OpenAI(
            api_key="k", http_client=httpx2_client(Exchange(store, sanitize=CONFIG))
        ) as client,
    ):
        replayed = ask(client, content)
    assert "Jane Doe" in replayed and "José" not in replayed


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ('{"a": "\\\\u00e9 Jos\\u00e9 Garc\\u00eda"}', '{"a": "\\\\u00e9 Jane Doe"}'),
        ("Grüße {\\u0022x\\u0022: 1}", "Grüße {\\u0022x\\u0022: 1}"),
        (
            '{"a": "\\u0022Jos\\u00e9 Garc\\u00eda\\u0022 \\u003c1\\u0020", "b": 1}',
            '{"a": "\\u0022Jane Doe\\u0022 \\u003c1\\u0020", "b": 1}',
        ),
        ('{"e": "x\\u00e9@corp-mail.com", "n": "ä"}', None),
    ],
)
def test_escapes_are_written_back_as_they_came(text: str, kept: str | None) -> None:
    rules = Sanitizer(CONFIG).text
    out = rules.apply(text)
    assert rules.apply(out) == out
    if kept is not None:
        assert out == kept
    else:
        assert out.startswith('{"e": "user-') and '"n": "ä"' in out


@pytest.mark.parametrize("beside", ["", " \\u00e9"])
def test_an_address_written_with_x_escapes_is_redacted_whatever_stands_beside_it(
    beside: str,
) -> None:
    """``\\x40`` reads as ``@`` whether or not the text also holds a ``\\u`` escape."""
    rules = Sanitizer(CONFIG).text
    out = rules.apply(f"mail alice.martin\\x40corp-mail.com now{beside}")
    assert out.startswith("mail user-") and out.endswith(f"\\x40example.com now{beside}"), out
    assert rules.apply(out) == out


class Form(Handler):
    """Answers a form post with the names of the fields it was sent."""

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["content-length"])).decode()
        self.answer_json({"fields": [pair.partition("=")[0] for pair in body.split("&")]})


def test_a_form_body_is_redacted_value_by_value_and_replays(tmp_path: Path) -> None:
    store = tmp_path / "form"
    form: dict[str, Any] = {"email": "alice@corp-mail.com", "name": "Alice Liddell", "n": "1"}
    with serving(Form) as base:
        exchange = Exchange(store, mode="record-missing", approve_live=True, sanitize=CONFIG)
        with httpx2_client(exchange) as client:
            live = client.post(base + "/v1/signup", data=form).json()
    assert live["fields"] == ["email", "name", "n"]
    data = stored_bytes(store)
    assert b"alice" not in data and b"Alice" not in data and b"name=Jane+Doe&n=1" in data
    with block_network(), httpx2_client(Exchange(store, sanitize=CONFIG)) as client:
        assert client.post(base + "/v1/signup", data=form).status_code == 200
