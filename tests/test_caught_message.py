"""The teardown message of a replay error that did not reach a test which failed anyway."""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

import pytest

from replaygate.errors import FixtureMismatchError, SecretInFixtureError
from replaygate.http import Exchange
from replaygate.pytest_plugin.caught import CHECKED, caught_message, hidden_note
from replaygate.pytest_plugin.misses import miss_of


def _dropped_its_cause() -> ConnectionError:
    """What CrewAI 1.15 raises of a miss through anthropic 0.73: the SDK's connection
    error, its cause (the miss) replaced by itself (``raise e from e``)."""
    try:
        try:
            raise ConnectionError("Connection error.")
        except ConnectionError as e:
            raise e from e
    except ConnectionError as e:
        return e


def test_a_failure_that_dropped_the_miss_is_told_as_its_likely_consequence() -> None:
    # the test failed with "Connection error." and the teardown added that the code under
    # test "went on, so the test did not see it", and to turn a background sender off
    error = SecretInFixtureError("response.body.key", "Anthropic API key")
    said = caught_message([error], frozenset(), _dropped_its_cause())
    assert said.startswith(
        "replaygate: the test failed with ConnectionError: Connection error., which does not "
        "carry the replay error the code under test met before: caught and gone on from, or "
        "raised as an error of the code's own that dropped it as its cause (CrewAI 1.15's "
        "`raise e from e`;"
    )
    assert "The failure is likely its consequence" in said and str(error) in said
    assert "background sender" not in said
    # a test that passed did not see it: the message stays
    assert "and went on, so the test did not see it" in caught_message([error], frozenset())


def _miss(path: str, change: str = "'a' != 'b'") -> FixtureMismatchError:
    """A miss of the field at ``path``, changed as ``change`` says."""
    said = f"no fixture recorded for {path}"
    return FixtureMismatchError(said, differences=(f"{path}: {change}",))


def test_a_caught_miss_of_the_same_change_in_another_request_is_no_cause() -> None:
    # CrewAI 1.15 counts a prompt's tokens before each call and catches that request's miss:
    # every miss of its calls said the failure "may be its consequence"
    failed = _miss("body.messages[1].content")
    counted = _miss("body.input[0].content")
    said = hidden_note([counted], failed)
    assert said == (
        "replaygate: beside this, the code under test caught the miss of another request it "
        "sent with the same change (CrewAI 1.15's count of the prompt's tokens, say; or a "
        "run beside this one, whose error asyncio.gather drops once it raised the first), "
        "no cause of this failure. The first: no fixture recorded for body.input[0].content"
    )
    # a miss of another change (a tool's own request) may be the cause, and is told whole
    tool = _miss("body.messages[0].content", "'Summarize' != 'Describe'")
    assert "may be its consequence" in hidden_note([tool], failed)
    assert "may be its consequence" in hidden_note([counted])


def test_the_list_of_misses_names_no_caught_miss_of_the_same_change() -> None:
    # it listed "after a miss the code under test caught: body.input[0].content", the count
    # of the same prompt's tokens, as if that miss were the change
    failed, counted = _miss("body.messages[1].content"), _miss("body.input[0].content")
    test = cast(pytest.Item, SimpleNamespace(stash=pytest.Stash(), function=None))
    test.stash[CHECKED] = cast(Exchange, SimpleNamespace(raised=[counted, failed]))
    assert (miss_of(test, failed) or ("",))[0] == "body.messages[1].content"
    tool = _miss("body.messages[0].content", "'Summarize' != 'Describe'")
    test.stash[CHECKED] = cast(Exchange, SimpleNamespace(raised=[tool, failed]))
    listed = (miss_of(test, failed) or ("",))[0]
    assert listed.endswith("after a miss the code under test caught: body.messages[0].content")


def test_a_caught_miss_a_fallback_model_followed_is_told_as_a_cause() -> None:
    # Mirascope's llm.retry(fallback_models=[...]) caught the first model's miss and sent
    # the request to the next model, whose miss (the same prompt, another body.model)
    # failed the test: the first miss was called "no cause of this failure"
    first = _miss("body.messages[0].content")
    fallback = FixtureMismatchError(
        "no fixture recorded for the fallback",
        differences=("body.input[0].content: 'a' != 'b'", "body.model: 'm' != 'n'"),
    )
    assert "may be its consequence" in hidden_note([first], fallback)
    test = cast(pytest.Item, SimpleNamespace(stash=pytest.Stash(), function=None))
    test.stash[CHECKED] = cast(Exchange, SimpleNamespace(raised=[first, fallback]))
    listed = (miss_of(test, fallback) or ("",))[0]
    assert listed.endswith("after a miss the code under test caught: body.messages[0].content")
