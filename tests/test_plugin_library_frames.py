"""A replay error's failure report ends at the call of the code under test: the frames of
the SDK and the HTTP client it was raised through are left out under pytest's default
traceback styles, and put back once the report is made."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace, TracebackType
from typing import Any, cast

import pytest

from nested_pytest import sessions_loading
from replaygate.errors import FixtureMismatchError
from replaygate.http import httpx2_client
from replaygate.pytest_plugin.library_frames import leave_out_library_frames
from sdks import anthropic, openai

sessions_find_their_modules = sessions_loading(anthropic, openai, slow_only=True)


def _config(tbstyle: str = "auto", fulltrace: bool = False) -> pytest.Config:
    """A stand-in for a run's config with pytest's traceback options."""
    options = {"tbstyle": tbstyle, "fulltrace": fulltrace}
    return cast(pytest.Config, SimpleNamespace(getoption=lambda name, default=None: options[name]))


def _modules(tb: TracebackType | None) -> list[str]:
    """The modules of the traceback's entries, outermost first."""
    found = []
    while tb is not None:
        found.append(tb.tb_frame.f_globals["__name__"])
        tb = tb.tb_next
    return found


def _ask(client: Any) -> Any:
    return client.messages.create(
        model="m", max_tokens=8, messages=[{"role": "user", "content": "never recorded"}]
    )


def test_a_miss_through_the_sdk_is_cut_at_the_call_then_put_back(tmp_path: Path) -> None:
    store = tmp_path / "missing.jsonl"
    with (
        anthropic.Anthropic(api_key="k", http_client=httpx2_client(store)) as claude,
        pytest.raises(FixtureMismatchError) as excinfo,
    ):
        _ask(claude)
    whole = _modules(excinfo.tb)
    assert {"anthropic._base_client", "httpx2._client"} <= set(whole)
    for full in (_config("long"), _config("native"), _config(fulltrace=True)):
        assert leave_out_library_frames(full, excinfo) is None

    cut = leave_out_library_frames(_config(), excinfo)

    assert cut is not None
    note, put_back = cut
    assert _modules(excinfo.tb) == [__name__, __name__]  # the test, then _ask's call
    assert [e.frame.code.name for e in excinfo.traceback] == [
        "test_a_miss_through_the_sdk_is_cut_at_the_call_then_put_back",
        "_ask",
    ]
    assert note.startswith("replaygate: this report leaves out the ")
    assert " frames of anthropic and httpx2 after the call (--tb=long shows them)" in note
    put_back()
    assert _modules(excinfo.tb) == whole
    assert len(excinfo.traceback) == len(whole)


def test_an_sdk_error_that_is_not_replaygate_s_keeps_its_frames() -> None:
    import httpx2

    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise RuntimeError("refused")

    transport = httpx2.MockTransport(refuse)
    http = httpx2.Client(transport=transport)
    with (
        anthropic.Anthropic(api_key="k", max_retries=0, http_client=http) as claude,
        pytest.raises(anthropic.APIConnectionError) as excinfo,
    ):
        _ask(claude)
    whole = _modules(excinfo.tb)

    assert leave_out_library_frames(_config(), excinfo) is None
    assert _modules(excinfo.tb) == whole


CONFTEST = """
import pytest


def pytest_exception_interact(node, call, report):
    tb, modules = call.excinfo.value.__traceback__, []
    while tb is not None:
        modules.append(tb.tb_frame.f_globals["__name__"])
        tb = tb.tb_next
    print(f"{node.name} put back: {'httpx2._client' in modules}")
"""

AGENT = """
def ask_claude(client):
    return client.messages.create(
        model="m", max_tokens=8, messages=[{"role": "user", "content": "hi"}]
    )


def ask_gpt(client):
    return client.chat.completions.create(
        model="gpt-4o", messages=[{"role": "user", "content": "hi"}]
    )
"""

TESTS = """
from agent import ask_claude, ask_gpt


def test_claude(anthropic_client):
    ask_claude(anthropic_client())


def test_gpt(openai_client):
    ask_gpt(openai_client())
"""


@pytest.mark.slow
def test_a_miss_through_a_client_fixture_reports_the_call_and_the_message(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(agent=AGENT, test_frames=TESTS)

    result = pytester.runpytest("-s", "-p", "no:randomly")

    result.assert_outcomes(failed=2)
    out = result.stdout.str()
    assert "_base_client.py" not in out and "httpx2/_client.py" not in out, out
    for name, sdk, line in (("claude", "anthropic", 2), ("gpt", "openai", 8)):
        result.stdout.fnmatch_lines(
            [
                "test_frames.py:*: ",
                "*_ _ _*",
                f"    def ask_{name}(client):",
                ">       return client.*.create(",
                "E       replaygate.errors.FixtureMismatchError: no fixture recorded*",
                f"E       replaygate: this report leaves out the * frames of {sdk} and httpx2 "
                "after the call (--tb=long shows them)",
                "",
                f"agent.py:{line}: FixtureMismatchError",
            ]
        )
        result.stdout.fnmatch_lines([f"*test_{name} put back: True"])  # -s: printed
