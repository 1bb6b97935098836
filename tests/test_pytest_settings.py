"""The replaygate marker's and ``replaygate_config``'s values are checked by type, each
wrong one named, before a test runs."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from replaygate.pytest_plugin.settings import config_settings, marker_arguments

NODE = "tests/test_agent.py::test_answer"


def marker_failure(*args: Any, **kwargs: Any) -> str:
    with pytest.raises(pytest.fail.Exception) as failed:
        marker_arguments(pytest.mark.replaygate(*args, **kwargs).mark, NODE)
    return str(failed.value)


def test_right_values_pass_through() -> None:
    given = {"fixtures": Path("a.jsonl"), "source": "sim", "note": None, "repeat_last": True}
    assert marker_arguments(pytest.mark.replaygate(**given).mark, NODE) == given
    assert marker_arguments(pytest.mark.replaygate("b.jsonl").mark, NODE) == {"fixtures": "b.jsonl"}
    assert config_settings({"interface": "anthropic.messages"}, NODE) == {
        "interface": "anthropic.messages"
    }


def test_a_store_that_is_not_a_path_is_named_with_its_type() -> None:
    assert marker_failure(fixtures=5) == (
        f"@pytest.mark.replaygate on {NODE}: fixtures must be a path (a string or a Path), "
        "not a number (it takes fixtures, interface, source, repeat_last, expect_requests, "
        "expect_caught_errors, match_host, note)"
    )
    assert "fixtures must be a path" in marker_failure(["a.jsonl"])


def test_a_store_written_with_backslashes_is_refused_with_its_portable_form() -> None:
    # Windows reads sub\a.jsonl as sub/a.jsonl; Linux CI as a file so named, then
    # replayed from an empty store: every request a miss, or recorded where none looks.
    message = marker_failure("stores\\rc.jsonl")
    assert "fixtures 'stores\\\\rc.jsonl' separates folders with a backslash" in message
    assert "write 'stores/rc.jsonl', which every system reads alike" in message
    assert marker_arguments(pytest.mark.replaygate(fixtures=Path("a", "b.jsonl")).mark, NODE)


def test_every_wrong_argument_is_named_at_once() -> None:
    message = marker_failure(fixtures="a.jsonl", source=1, note=b"x", repeat_last="yes", bogus=1)
    assert message.startswith(
        f"@pytest.mark.replaygate on {NODE}: unknown argument(s) bogus; "
        "repeat_last must be True or False; source must be a string; note must be a string "
    )


def test_the_config_fixture_is_held_to_the_same_types() -> None:
    with pytest.raises(pytest.fail.Exception) as failed:
        config_settings({"interface": 3, "match_host": None}, NODE)
    assert str(failed.value) == (
        f"replaygate_config (used by {NODE}): match_host must be True or False; "
        "interface must be a string"
    )


def test_a_client_fixture_without_its_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from replaygate.pytest_plugin.recording import _sdk_module

    monkeypatch.setitem(sys.modules, "openai", None)  # not installed
    with pytest.raises(pytest.fail.Exception) as failed:
        _sdk_module(SimpleNamespace(fixturename="openai_client"), "openai")  # type: ignore[arg-type]
    assert str(failed.value) == (
        "replaygate: the openai_client fixture needs the 'openai' package, which is not "
        "installed: pip install 'replaygate[openai]'"
    )


def test_a_client_fixture_hands_an_sdk_built_on_httpx_an_httpx_client(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import httpx

    from replaygate.http import Exchange
    from replaygate.pytest_plugin import recording

    old_sdk = SimpleNamespace(  # anthropic before 1.0: its clients take an httpx.Client
        DefaultHttpxClient=type("DefaultHttpxClient", (httpx.Client,), {}),
        Anthropic=lambda **kwargs: SimpleNamespace(close=lambda: None, **kwargs),
    )
    monkeypatch.setattr(recording, "_sdk_module", lambda request, sdk: old_sdk)
    exchange = Exchange(tmp_path / "s.jsonl")
    factories = recording._sdk_clients(request, exchange, "anthropic", "Anthropic", is_async=False)
    client = next(factories)()
    assert isinstance(client.http_client, httpx.Client)
    assert type(client.http_client).__module__.partition(".")[0] != "httpx2"
    client.http_client.close()
