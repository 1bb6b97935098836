"""A replay miss the test catches itself reaches it only where the clause that catches it
names it, and a miss is never the failure an xfail expects (law 2): pytest sessions of
their own over one recorded store, through the real SDK."""

from __future__ import annotations

import shutil
from fnmatch import fnmatch
from pathlib import Path

import pytest

from echo_recording import record_echoes
from nested_pytest import sessions_loading
from sdks import anthropic

pytestmark = [pytest.mark.slow, pytest.mark.native_tracebacks]


sessions_find_their_modules = sessions_loading(anthropic)


HEADER = """
import asyncio
import contextlib

import anthropic
import pytest
from pytest import raises as expect
from replaygate.errors import FixtureMismatchError, ReplaygateError

pytestmark = pytest.mark.replaygate(fixtures="shared.jsonl")


def ask(client, question):
    reply = client.messages.create(
        model="m", max_tokens=8, messages=[{"role": "user", "content": question}]
    )
    return reply.content[0].text
"""

CATCHES = (
    HEADER
    + """

def test_raises_the_sdk_s_base(anthropic_client):
    with pytest.raises(anthropic.AnthropicError):
        ask(anthropic_client(max_retries=0), "changed")


def test_raises_any_exception(anthropic_client):
    with pytest.raises(Exception):
        ask(anthropic_client(), "changed")


def test_raises_a_tuple_without_it(anthropic_client):
    with pytest.raises((ValueError, RuntimeError)):
        ask(anthropic_client(), "changed")


def test_raises_given_the_function(anthropic_client):
    pytest.raises(anthropic.AnthropicError, ask, anthropic_client(), "changed")


def test_except_the_sdk_s_base_after_a_status_error(anthropic_client):
    try:
        ask(anthropic_client(), "changed")
    except anthropic.APIStatusError as e:
        assert e.status_code == 400
    except anthropic.AnthropicError:
        pass


def test_bare_except(anthropic_client):
    try:
        ask(anthropic_client(), "changed")
    except:  # noqa: E722
        pass


def test_suppressed(anthropic_client):
    with contextlib.suppress(Exception):
        ask(anthropic_client(), "changed")


def test_skips_when_the_api_fails(anthropic_client):
    try:
        ask(anthropic_client(), "changed")
    except anthropic.AnthropicError as e:
        pytest.skip(f"API unavailable: {e}")


def test_xfails_when_the_api_fails(anthropic_client):
    try:
        ask(anthropic_client(), "changed")
    except Exception:
        pytest.xfail("API unavailable")


def test_outer_clause_catches_what_the_inner_lets_through(anthropic_client):
    with pytest.raises(Exception):
        try:
            ask(anthropic_client(), "changed")
        except ValueError:
            pass


def test_in_its_coroutine(async_anthropic_client):
    async def main():
        client = async_anthropic_client()
        with pytest.raises(anthropic.AnthropicError):
            await client.messages.create(
                model="m", max_tokens=8, messages=[{"role": "user", "content": "changed"}]
            )
        await client.close()

    asyncio.run(main())


def test_named_by_pytest_raises(anthropic_client):
    with pytest.raises(FixtureMismatchError):
        ask(anthropic_client(), "changed")


def test_named_by_pytest_raises_imported_as_another_name(anthropic_client):
    with expect(ReplaygateError, match="no fixture recorded"):
        ask(anthropic_client(), "changed")


def test_named_by_raises_exc(anthropic_client):
    with pytest.RaisesExc(FixtureMismatchError):
        ask(anthropic_client(), "changed")


def test_named_by_pytest_raises_given_the_function(anthropic_client):
    pytest.raises((ValueError, FixtureMismatchError), ask, anthropic_client(), "changed")


def test_named_past_an_inner_clause_that_does_not_catch_it(anthropic_client):
    with pytest.raises(FixtureMismatchError):
        with pytest.raises(ValueError):
            ask(anthropic_client(), "changed")


def test_named_by_except(anthropic_client):
    try:
        ask(anthropic_client(), "changed")
    except (ValueError, FixtureMismatchError):
        pass


def test_named_then_skipped(anthropic_client):
    try:
        ask(anthropic_client(), "changed")
    except ReplaygateError:
        pytest.skip("not recorded yet")


def test_named_by_suppress(anthropic_client):
    with contextlib.suppress(FixtureMismatchError):
        ask(anthropic_client(), "changed")


def test_broad_clause_around_a_recorded_request(anthropic_client):
    with pytest.raises(Exception):
        assert ask(anthropic_client(), "hi") == "echo: hi"
        raise ValueError("the API's answer was refused")


def test_typed_at_the_debugger_s_prompt(anthropic_client):
    # at (Pdb) after a breakpoint(): pdb runs the statement and shows its miss
    import io, pdb, sys
    client = anthropic_client()
    prompt = pdb.Pdb(stdout=io.StringIO())
    prompt.reset()
    prompt.setup(sys._getframe(), None)
    prompt.onecmd('ask(client, "changed")')
    assert "FixtureMismatchError" in prompt.stdout.getvalue()


@pytest.mark.replaygate(expect_caught_errors=True)
def test_marked_to_catch_it(anthropic_client):
    with pytest.raises(anthropic.AnthropicError):
        ask(anthropic_client(), "changed")


exec(compile('''
def test_source_unreadable(anthropic_client):
    with pytest.raises(Exception):
        ask(anthropic_client(), "changed")
''', "<generated>", "exec"))
"""
)

UNNAMED = {
    "test_raises_the_sdk_s_base": "`pytest.raises(anthropic.AnthropicError)` (test_catches.py:*)",
    "test_raises_any_exception": "`pytest.raises(Exception)` (test_catches.py:*)",
    "test_raises_a_tuple_without_it": "`pytest.raises((ValueError, RuntimeError))` (*:*)",
    "test_raises_given_the_function": "`pytest.raises(AnthropicError, ...)`",
    "test_except_the_sdk_s_base_after_a_status_error": "`except anthropic.AnthropicError` (*:*)",
    "test_bare_except": "`except` (test_catches.py:*)",
    "test_suppressed": "`contextlib.suppress(Exception)` (test_catches.py:*)",
    "test_skips_when_the_api_fails": "`except anthropic.AnthropicError` (test_catches.py:*)",
    "test_xfails_when_the_api_fails": "`except Exception` (test_catches.py:*)",
    "test_outer_clause_catches_what_the_inner_lets_through": "`pytest.raises(Exception)` (*:*)",
    "test_in_its_coroutine": "`pytest.raises(anthropic.AnthropicError)` (test_catches.py:*)",
}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One message, ``hi``, recorded once for the module's sessions."""
    path = tmp_path_factory.mktemp("caught_by_the_test") / "shared.jsonl"
    record_echoes(path, ["hi"])
    return path


def run(pytester: pytest.Pytester, recorded: Path, **modules: str) -> pytest.RunResult:
    """``modules`` run by pytest in process, over a copy of the recorded store."""
    (pytester.path / "tests/fixtures").mkdir(parents=True)
    shutil.copy(recorded, pytester.path / "tests/fixtures/shared.jsonl")
    pytester.makepyfile(**modules)
    return pytester.runpytest("-rfEsx", "-p", "no:cacheprovider")


def outcomes(result: pytest.RunResult, module: str) -> set[tuple[str, str]]:
    """(outcome, test name) of each line of the short summary about ``module``."""
    return {
        (line.split(" ", 1)[0], line.split(f"{module}.py::", 1)[1].split(" ", 1)[0])
        for line in result.stdout.lines
        if line.startswith(("FAILED", "ERROR", "XFAIL", "XPASS")) and f"{module}.py::" in line
    }


def test_a_miss_the_test_catches_reaches_it_only_where_the_clause_names_it(
    pytester: pytest.Pytester, recorded: Path
) -> None:
    """A test of an API error that catches the SDK's base class, ``Exception`` or
    anything else that is not replaygate's (with ``pytest.raises``, ``except``,
    ``contextlib.suppress``, then a skip or an xfail among them) fails at teardown with
    the miss, naming the clause and where it is; one that names the miss passes, and so
    does one whose miss a debugger's prompt showed (it had failed at teardown, as caught
    by the code under test)."""
    result = run(pytester, recorded, test_catches=CATCHES)
    assert outcomes(result, "test_catches") == {
        *(("ERROR", name) for name in UNNAMED),
        ("XFAIL", "test_xfails_when_the_api_fails"),  # and its teardown errs
    }
    result.assert_outcomes(passed=20, errors=11, skipped=2, xfailed=1)
    text = result.stdout.str()
    for name, clause in UNNAMED.items():
        section = text.split(f"_ ERROR at teardown of {name} _", 1)[1].split("\n___", 1)[0]
        said = (
            f"replaygate: the test caught a replay error with {clause}, which does not name "
            "it, so the miss did not fail it: a miss must reach the test. The first:"
        )
        assert any(fnmatch(line, said) for line in section.splitlines()), (name, section)
        assert "body.messages[0].content: 'hi' != 'changed'" in section, name
        assert "catch it by name (pytest.raises(FixtureMismatchError)" in section, name
    source = (pytester.path / "test_catches.py").read_text().splitlines()
    handler = source.index("    except anthropic.AnthropicError:") + 1
    result.stdout.fnmatch_lines(
        [f"*`except anthropic.AnthropicError` (test_catches.py:{handler})*"]
    )
    result.stdout.fnmatch_lines(["SKIPPED [[]1[]] test_catches.py:*: not recorded yet"])


XFAILS = (
    HEADER
    + """

class AgentError(Exception):
    pass


@pytest.fixture
def answer(anthropic_client):
    return ask(anthropic_client(), "changed")


@pytest.mark.xfail(reason="known bug: answer too short")
def test_known_bug(anthropic_client):
    assert len(ask(anthropic_client(), "changed")) > 1000


@pytest.mark.xfail(reason="known bug", raises=RuntimeError)
def test_known_bug_raising_a_class_the_miss_derives_from(anthropic_client):
    ask(anthropic_client(), "changed")


@pytest.mark.xfail(reason="known bug")
def test_known_bug_behind_a_miss_as_the_cause(anthropic_client):
    try:
        ask(anthropic_client(), "changed")
    except Exception as err:
        raise AgentError("the agent failed") from err


@pytest.mark.xfail(reason="known bug")
def test_known_bug_behind_a_miss_named_by_the_message(anthropic_client):
    try:
        ask(anthropic_client(), "changed")
    except Exception as err:
        raise AgentError(f"the agent failed: {err}") from None


@pytest.mark.xfail(reason="known bug")
def test_known_bug_with_a_miss_in_a_fixture(answer):
    assert len(answer) > 1000


@pytest.mark.xfail(reason="not recorded yet", raises=(ValueError, FixtureMismatchError))
def test_the_miss_is_the_expected_failure(anthropic_client):
    ask(anthropic_client(), "changed")


@pytest.mark.xfail(reason="known bug: answer too short")
def test_known_bug_recorded(anthropic_client):
    assert len(ask(anthropic_client(), "hi")) > 1000
"""
)


def test_a_miss_is_never_the_failure_an_xfail_expects(
    pytester: pytest.Pytester, recorded: Path
) -> None:
    """A test marked xfail that fails on a miss (itself, its cause, or named by the
    message of what it fails with), in its call or a fixture's setup, is reported as the
    miss's failure, unless the mark's ``raises=`` names the miss."""
    result = run(pytester, recorded, test_xfails=XFAILS)
    assert outcomes(result, "test_xfails") == {
        ("FAILED", "test_known_bug"),
        ("FAILED", "test_known_bug_raising_a_class_the_miss_derives_from"),
        ("FAILED", "test_known_bug_behind_a_miss_as_the_cause"),
        ("FAILED", "test_known_bug_behind_a_miss_named_by_the_message"),
        ("ERROR", "test_known_bug_with_a_miss_in_a_fixture"),
        ("XFAIL", "test_the_miss_is_the_expected_failure"),
        ("XFAIL", "test_known_bug_recorded"),
    }
    result.assert_outcomes(failed=4, errors=1, xfailed=2)
    result.stdout.fnmatch_lines(
        ["FAILED test_xfails.py::test_known_bug - replaygate.errors.FixtureMismatch*"]
    )
    said = (
        "replaygate: the test is marked xfail, but it failed on a replay error, which is "
        "never the failure an xfail expects*@pytest.mark.xfail(raises=FixtureMismatchError)."
    )
    assert sum(fnmatch(line, said) for line in result.stdout.lines) == 5
