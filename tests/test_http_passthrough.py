"""passthrough(): the bases a replaygate error takes so frameworks neither wrap nor retry it.

LiteLLM is not installed in the main environment; its two hooks are stood in for by
modules of the same names and shapes (its real behaviour is tested end to end in
tests_frameworks/test_litellm.py, in its own environment).
"""

from __future__ import annotations

import contextvars
import pickle
import sys
import types
from collections.abc import Callable
from contextvars import ContextVar

import pytest

from replaygate.errors import FixtureMismatchError
from replaygate.http.passthrough import caused_by_replaygate, passthrough, sdk_bases
from sdks import openai


def miss() -> FixtureMismatchError:
    return FixtureMismatchError("no fixture recorded", key="abc", store="s.jsonl")


@pytest.fixture
def litellm_exceptions(monkeypatch: pytest.MonkeyPatch) -> type[Exception]:
    """A module shaped like ``litellm.exceptions``: its OpenAIError derives from openai's."""
    module = types.ModuleType("litellm.exceptions")
    cls = type("OpenAIError", (openai.OpenAIError,), {"__module__": "litellm.exceptions"})
    module.OpenAIError = cls  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "litellm.exceptions", module)
    return cls


def test_a_base_implied_by_another_is_left_out(litellm_exceptions: type[Exception]) -> None:
    bases = sdk_bases()
    assert litellm_exceptions in bases
    assert openai.OpenAIError not in bases  # litellm's derives from it: both would clash
    error = passthrough(miss())
    assert isinstance(error, litellm_exceptions)
    assert isinstance(error, openai.OpenAIError)
    assert isinstance(error, FixtureMismatchError)
    assert (error.key, error.store, str(error)) == ("abc", "s.jsonl", "no fixture recorded")


def test_caused_by_replaygate_follows_causes_and_contexts() -> None:
    def wrapped(inner: BaseException) -> BaseException:
        try:
            try:
                raise inner
            except BaseException:
                raise ValueError("wrapped by a framework") from None
        except ValueError as outer:
            return outer

    assert caused_by_replaygate(miss())
    assert caused_by_replaygate(wrapped(miss()))
    assert not caused_by_replaygate(wrapped(KeyError("x")))
    looped = ValueError("a")
    looped.__context__ = looped
    assert not caused_by_replaygate(looped)
    grouped = ExceptionGroup("every fallback failed", [KeyError("x"), wrapped(miss())])
    assert caused_by_replaygate(grouped)  # pydantic-ai's FallbackExceptionGroup
    assert not caused_by_replaygate(ExceptionGroup("other", [KeyError("x")]))


@pytest.fixture
def resent_on(monkeypatch: pytest.MonkeyPatch) -> ContextVar[Callable[[Exception], bool] | None]:
    """A module shaped like ``litellm._internal_context`` and its ``resent_on`` variable."""
    module = types.ModuleType("litellm._internal_context")
    var: ContextVar[Callable[[Exception], bool] | None] = ContextVar("resent_on", default=None)
    module._resent_on = var  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "litellm._internal_context", module)
    return var


def test_litellm_is_told_not_to_retry_what_a_replaygate_error_caused(
    resent_on: ContextVar[Callable[[Exception], bool] | None],
) -> None:
    def raise_one() -> Callable[[Exception], bool] | None:
        resent_on.set(lambda error: isinstance(error, KeyError))  # one LiteLLM set itself
        passthrough(miss())
        passthrough(miss())  # a second miss keeps the one predicate
        return resent_on.get()

    rejection = contextvars.copy_context().run(raise_one)
    assert rejection is not None
    mapped = RuntimeError("litellm.InternalServerError: no fixture recorded")
    mapped.__context__ = miss()
    assert rejection(mapped)
    assert rejection(KeyError("LiteLLM's own case still holds"))
    assert not rejection(RuntimeError("a real server error"))
    assert resent_on.get() is None  # set in the context of the call only


def test_litellm_s_error_carrying_a_miss_becomes_a_runtime_error_as_the_miss_is(
    resent_on: ContextVar[Callable[[Exception], bool] | None], monkeypatch: pytest.MonkeyPatch
) -> None:
    # LangGraph's default RetryPolicy retries any error but builtin programming errors
    # (RuntimeError among them, which a miss is): LiteLLM's InternalServerError carrying a
    # miss was sent again twice, with its backoff, from a node calling LiteLLM
    rejection = contextvars.copy_context().run(lambda: (passthrough(miss()), resent_on.get())[1])
    assert rejection is not None
    server_error = type("InternalServerError", (Exception,), {"__module__": "litellm.exceptions"})
    mapped = server_error("litellm.InternalServerError: no fixture recorded")
    mapped.__context__ = miss()
    assert rejection(mapped)
    assert isinstance(mapped, RuntimeError) and isinstance(mapped, server_error)
    assert (type(mapped).__name__, type(mapped).__module__) == (
        "InternalServerError",
        "litellm.exceptions",
    )
    assert str(mapped) == "litellm.InternalServerError: no fixture recorded"
    # it pickles as the class its name reaches (a checkpointer may store it)
    exceptions = types.ModuleType("litellm.exceptions")
    exceptions.InternalServerError = server_error  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "litellm", types.ModuleType("litellm"))
    monkeypatch.setitem(sys.modules, "litellm.exceptions", exceptions)
    again = pickle.loads(pickle.dumps(mapped))
    assert type(again) is server_error and str(again) == str(mapped)
    other = server_error("a real server error")
    assert not rejection(other)
    assert not isinstance(other, RuntimeError)  # only what a miss caused
    bare = Exception("every fallback missed")  # a builtin class is left as it is
    bare.__context__ = miss()
    assert rejection(bare) and type(bare) is Exception


def test_a_miss_shown_to_litellm_says_it_is_not_to_be_retried(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # LiteLLM loaded, a miss carries the fields of its errors, a status of 500 among them,
    # which the OpenAI Agents SDK's runner read as a server error to retry (LitellmModel's
    # InternalServerError is a 500 too); its provider_suggested() policy vetoes the retry
    # on the APIs' x-should-retry: false, found in any error of the failure's chain
    base = type("BaseLLMException", (Exception,), {})
    transformation = types.ModuleType("litellm.llms.base_llm.chat.transformation")
    transformation.BaseLLMException = base  # type: ignore[attr-defined]
    common = types.ModuleType("litellm.llms.openai.common_utils")
    common.OpenAIError = type("OpenAIError", (base,), {})  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "litellm.llms.base_llm.chat.transformation", transformation)
    monkeypatch.setitem(sys.modules, "litellm.llms.openai.common_utils", common)
    error = passthrough(miss())
    assert isinstance(error, base)
    fields = vars(error)
    assert (fields["status_code"], fields["message"]) == (500, "no fixture recorded")
    assert fields["headers"] == {"x-should-retry": "false"}
    assert fields["headers"] is not vars(passthrough(miss()))["headers"]  # each its own
