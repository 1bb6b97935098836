"""A key set under a name its SDK never reads (``CLAUDE_API_KEY``, ``OPENAI_KEY``) is
named where replaygate says which variable the SDK found no key in; its value never is."""

from __future__ import annotations

import pytest

from replaygate.cli.live import require_credential
from replaygate.errors import LiveAPIError
from replaygate.key_names import misnamed_keys
from replaygate.pytest_plugin.key_note import KeyNote


def test_a_key_under_a_name_of_its_provider_that_no_sdk_reads_is_named() -> None:
    env = {
        "CLAUDE_API_KEY": "sk-ant-secret",
        "OPENAI_KEY": "sk-proj-secret",
        "GOOGLE_API_KEY": "g",  # google-genai reads it: no advice
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:1",  # no key
        "ANTHROPIC_TOKEN": "",  # empty: nothing set
    }
    said = misnamed_keys(("ANTHROPIC_API_KEY",), env)
    assert said == (
        "CLAUDE_API_KEY is set, but the SDK reads no such variable: give the key as "
        "ANTHROPIC_API_KEY"
    )
    assert "OPENAI_KEY is set" in misnamed_keys(("OPENAI_API_KEY",), env)
    assert misnamed_keys(("GEMINI_API_KEY",), env) == ""
    assert misnamed_keys(("ANTHROPIC_API_KEY",), {"ANTHROPIC_AUTH_TOKEN": "t"}) == ""
    assert "secret" not in said


def test_the_pytest_note_and_the_command_name_the_misnamed_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CLAUDE_API_KEY", "sk-ant-secret")
    note = KeyNote("replay").note("ANTHROPIC_API_KEY")
    assert note.startswith("replaygate: the SDK found no API key.")
    assert note.endswith(
        "CLAUDE_API_KEY is set, but the SDK reads no such variable: give the key as "
        "ANTHROPIC_API_KEY"
    )
    with pytest.raises(
        LiveAPIError,
        match=r"needs ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN \(CLAUDE_API_KEY is set",
    ):
        require_credential()
    monkeypatch.delenv("CLAUDE_API_KEY")
    assert "is set" not in KeyNote("live").note("ANTHROPIC_API_KEY")
