"""Model doubles for the deterministic shell (seed 003, chapter 3).

- :class:`ScriptedModel` returns scripted responses in order: the fastest way to
  drive one path of the loop.
- :class:`FunctionModel` computes each response from the conversation.
- :class:`RuleStub` answers by rules on the last user or tool message, to cover
  orchestration branches; a rule may take its content from a recorded fixture, so
  the content is recorded, not invented. A rule's pattern is searched as
  :mod:`replaygate.pattern_search` searches one, within a time bound (Python's ``re``
  held a stub for ever on ``^(\\w+\\s?)*$`` and a long word ending in ``!``): a pattern
  whose search backtracks past the bound is a
  :class:`~replaygate.pattern_search.SlowPatternError` naming the rule.

All three implement :class:`~replaygate.models.types.Model` fully, tool calls included,
keep every call in ``calls`` and the errors they raised of their own in ``raised`` (a
script run out, no rule matched, a conversation or an answer that is none): an agent
that catches one and goes on cannot hide it from ``raise_caught()``, as a
:class:`~replaygate.models.replay.ReplayModel` keeps its misses. What a
:class:`FunctionModel`'s function raises is the test's own, and not kept. Each is also
a simulator's behaviour (``respond``): ``Simulator(behavior=fake)`` drives the SDK clients.
"""

from __future__ import annotations

import inspect
import re
import threading
import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any, TypeVar

from replaygate.errors import (
    FixtureFormatError,
    KeepsRaised,
    KeyTooShortError,
    NoRuleMatchedError,
    ReplaygateError,
    ScriptExhaustedError,
    WireFormatError,
)
from replaygate.fixtures import hits
from replaygate.fixtures.fingerprint import short_key_problem
from replaygate.fixtures.fixture import Fixture, is_envelope
from replaygate.fixtures.store import FixtureStore
from replaygate.models.providers import (
    ANTHROPIC,
    INTERFACES,
    OPENAI_RESPONSES,
    Interface,
    get_interface,
)
from replaygate.models.replay import is_count
from replaygate.models.types import (
    Call,
    Message,
    ModelResponse,
    ToolCall,
    ToolSpec,
    check_conversation,
)
from replaygate.pattern_search import SlowPatternError, searched
from replaygate.stream_answers import messages_answer, responses_answer
from replaygate.type_names import a_type

__all__ = [
    "Call",
    "FunctionModel",
    "Rule",
    "RuleStub",
    "ScriptedModel",
]

_PREVIEW = 120
_T = TypeVar("_T")
_OWN = (ReplaygateError, TypeError)
"""What a fake raises of its own: its errors, and a conversation or answer that is none."""


def _preview(message: Message | None) -> str:
    if message is None:
        return "<empty conversation>"
    text = message.content if len(message.content) <= _PREVIEW else message.content[:117] + "..."
    return f"{message.role} message {text!r}"


def _is_call(call: object) -> bool:
    """Whether ``call`` is a ``(tool name, arguments mapping)`` pair."""
    return (
        isinstance(call, tuple | list)
        and len(call) == 2
        and isinstance(call[0], str)
        and bool(call[0])
        and isinstance(call[1], Mapping)
    )


def _checked(response: object, source: str) -> ModelResponse:
    """``response``, refused with ``source`` named unless it is a :class:`ModelResponse`."""
    if not isinstance(response, ModelResponse):
        raise TypeError(f"{source} is {a_type(response)}, not a ModelResponse")
    return response


def _in_order(items: object, owner: str, kind: type[_T]) -> tuple[_T, ...]:
    """``items`` (a list, tuple or generator) as a tuple; a ``TypeError`` naming ``owner``
    for anything else: a set, whose order changes from run to run, or a single ``kind``.
    The items themselves are checked by the caller."""
    if isinstance(items, Sequence | Iterator) and not isinstance(items, str | bytes):
        return tuple(items)
    hint = ""
    if isinstance(items, AbstractSet):
        hint = " (a set has no order: its items would come in another order in each run)"
    elif isinstance(items, kind):
        hint = f" (one {kind.__name__}? put it in a list: [{kind.__name__}(...)])"
    raise TypeError(f"{owner} takes a list, in order, got {a_type(items)}{hint}")


class _Fake(ABC, KeepsRaised[Exception]):
    """What the fakes share: every call in ``calls``, the errors they raised of their own
    in ``raised`` (:meth:`raise_caught`), and :meth:`respond`, so that a fake is also a
    simulator's behaviour: ``Simulator(behavior=fake)`` answers the SDK clients with it."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.raised: list[Exception] = []

    @abstractmethod
    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        """The fake's answer to this conversation."""

    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        """:meth:`complete`, by the name a simulator asks its behaviour with."""
        return self.complete(messages, tools)


Scripted = ModelResponse | BaseException
"""A script's item: a response, or an error (a rate limit, a model error) raised in its turn."""


def _scripted(item: object, index: int) -> Scripted:
    """The script's ``index``-th item, refused naming it unless a response or an error."""
    if isinstance(item, BaseException):
        return item
    if isinstance(item, type) and issubclass(item, BaseException):
        raise TypeError(
            f"ScriptedModel response {index} is the class {item.__name__}: script an "
            f"instance, {item.__name__}(...), to have it raised in its turn"
        )
    return _checked(item, f"ScriptedModel response {index}")


class ScriptedModel(_Fake):
    """Returns ``responses`` one per call, in order; a call past the end is an error.
    An exception in the script is raised in its turn (an error branch the test drives),
    and not kept in ``raised``."""

    def __init__(self, responses: Sequence[Scripted]) -> None:
        self.responses = tuple(
            _scripted(r, i)
            for i, r in enumerate(_in_order(responses, "ScriptedModel", ModelResponse))
        )
        super().__init__()
        self._turn = threading.Lock()  # threads sharing the model take answers one at a time

    def __getstate__(self) -> dict[str, Any]:
        """Its state without the lock, so it pickles (a ``spawn`` worker) and copies."""
        return {k: v for k, v in self.__dict__.items() if k != "_turn"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._turn = threading.Lock()

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        """The next scripted response (each once, also to threads sharing the model)."""
        with self.keeping(*_OWN):
            check_conversation(messages, tools)
            with self._turn:
                self.calls.append((tuple(messages), tuple(tools)))
                n = len(self.calls)
            if n > len(self.responses):
                last = _preview(messages[-1] if messages else None)
                raise ScriptExhaustedError(
                    f"ScriptedModel was called {n} time(s) but scripts {len(self.responses)} "
                    f"response(s); the extra call came after {last}"
                )
            answer = self.responses[n - 1]
        if isinstance(answer, BaseException):
            raise answer
        return answer

    @property
    def unused(self) -> tuple[Scripted, ...]:
        """The scripted responses (and errors) no call has asked for yet."""
        return self.responses[len(self.calls) :]

    def assert_used(self) -> None:
        """Raise ``AssertionError`` naming the scripted responses never asked for: the
        loop stopped before the script did (a branch it should take, and did not)."""
        first = len(self.calls)
        _all_used(
            f"ScriptedModel scripts {len(self.responses)} response(s) but was called "
            f"{first} time(s); never asked for",
            [f"response {first + i}: {_summary(r)}" for i, r in enumerate(self.unused)],
        )


def _all_used(what: str, left: Sequence[str]) -> None:
    """Raise ``AssertionError`` saying ``what`` and listing ``left``, the answers a fake
    holds that no call used, if there are any."""
    if left:
        raise AssertionError(f"{what}: {'; '.join(left)}")


def _summary(response: Scripted) -> str:
    """A scripted response in a few words: the error it raises, its tool calls, else its
    text."""
    if isinstance(response, BaseException):
        return f"raises {type(response).__name__}"
    if response.tool_calls:
        return "calls " + ", ".join(call.name for call in response.tool_calls)
    text = response.text if len(response.text) <= 60 else response.text[:57] + "..."
    return f"text {text!r}"


class FunctionModel(_Fake):
    """Answers each call with ``fn(messages, tools)``."""

    def __init__(
        self, fn: Callable[[Sequence[Message], Sequence[ToolSpec]], ModelResponse]
    ) -> None:
        if not callable(fn):
            raise TypeError(
                f"FunctionModel takes a function (messages, tools) -> ModelResponse, got {fn!r}"
            )
        if inspect.iscoroutinefunction(fn):  # its coroutine was refused, and never awaited
            raise TypeError(
                f"FunctionModel takes a plain function, not the async {fn.__qualname__}: "
                "complete() is called without await; make it a def"
            )
        super().__init__()
        self.fn = fn

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        """Whatever ``fn`` returns for this conversation (refused unless a ModelResponse);
        what ``fn`` raises goes through, not kept: an error branch the test drives."""
        with self.keeping(*_OWN):
            check_conversation(messages, tools)
        self.calls.append((tuple(messages), tuple(tools)))
        response = self.fn(messages, tools)
        name = getattr(self.fn, "__qualname__", repr(self.fn))
        with self.keeping(*_OWN):
            return _checked(response, f"what FunctionModel's {name} returned")


@dataclass(frozen=True)
class Rule:
    """If the last user or tool message matches ``when`` (a regex), answer.

    Exactly one answer: ``call`` (a tool name and its arguments), ``text``, or
    ``fixture`` (the key of a recorded response in the stub's store, at least
    ``fingerprint.KEY_LENGTH`` characters, replayed as it was recorded). ``role``
    restricts the rule to ``user`` or ``tool`` messages.
    """

    when: str
    call: tuple[str, Mapping[str, Any]] | None = None
    text: str | None = None
    fixture: str | None = None
    sample: int = 0
    role: str | None = None

    def __post_init__(self) -> None:
        answers = [a for a in (self.call, self.text, self.fixture) if a is not None]
        if len(answers) != 1:
            raise ValueError(f"rule {self.when!r} needs exactly one of call, text, fixture")
        for field in ("when", "text", "fixture"):
            value = getattr(self, field)
            if not (isinstance(value, str) or (value is None and field != "when")):
                raise TypeError(
                    f"rule {self.when!r}: {field} must be a string, got {type(value).__name__}"
                )
        if self.fixture is not None:
            short = short_key_problem(self.fixture)
            if short is not None:
                raise KeyTooShortError(f"rule {self.when!r}: {short}")
        if self.role not in (None, "user", "tool"):
            raise ValueError(f"rule {self.when!r}: role must be 'user', 'tool' or None")
        if not is_count(self.sample):
            raise ValueError(
                f"rule {self.when!r}: sample must be an integer of 0 or more, got {self.sample!r}"
            )
        if self.call is not None and not _is_call(self.call):
            raise ValueError(
                f"rule {self.when!r}: call must be (tool name, arguments mapping), "
                f"got {self.call!r}"
            )
        if self.call is not None:  # arguments no API could send: refused here, not at a call
            try:
                ToolCall("toolu_stub", self.call[0], dict(self.call[1]))
            except TypeError as err:
                raise TypeError(f"rule {self.when!r}: {err}") from None
        try:
            re.compile(self.when)  # searched by pattern_search, which reads re's dialect
        except (re.error, TypeError) as err:
            raise ValueError(f"rule {self.when!r}: not a regular expression: {err}") from None

    def matches(self, message: Message) -> bool:
        """True when this rule applies to ``message``; the pattern is searched within the
        time bound of :mod:`replaygate.pattern_search`, a search past it a
        :class:`~replaygate.pattern_search.SlowPatternError` naming the pattern (Python's
        ``re`` backtracks for ever on some patterns, and cannot be interrupted)."""
        if self.role is not None and message.role != self.role:
            return False
        return searched(self.when, message.content)


def _interface_of(fixture: Fixture, default: Interface) -> Interface:
    """The interface ``fixture``'s ``meta`` names (its answer is in that API's shape),
    else ``default``."""
    named = (fixture.meta or {}).get("interface")
    return INTERFACES.get(named, default) if isinstance(named, str) else default


def _exchange_answer(fixture: Fixture, response: Any, interface: Interface) -> Any:
    """The model's answer an HTTP exchange (a fixture an SDK client recorded) holds, in
    ``interface``'s shape: its JSON body, or the message a whole Messages or Responses
    stream makes up. A ``ValueError`` says why it holds none: an error status, a stream
    cut short, a stream of another API."""
    method, path = fixture.request.get("method"), fixture.request.get("path")
    exchange = f"an HTTP exchange ({method} {path})"
    answer = response if isinstance(response, Mapping) else {}
    status = answer.get("status")
    if status != 200:
        raise ValueError(f"{exchange} answered with status {status}, not a model's answer")
    events = answer.get("events")
    if not isinstance(events, list):
        body = answer.get("body")
        if not isinstance(body, Mapping):
            raise ValueError(f"{exchange} whose body is not a JSON answer")
        return body
    assemble = {ANTHROPIC.name: messages_answer, OPENAI_RESPONSES.name: responses_answer}
    if interface.name not in assemble:
        raise ValueError(f"{exchange} recorded as a stream of {interface.name}, not served whole")
    whole = assemble[interface.name](events)
    if whole is None:
        raise ValueError(f"{exchange} recorded as a stream that was cut short")
    return whole


def _described(index: int, rule: Rule) -> str:
    """A rule by its index and pattern, with the role it is kept to: a rule for user
    messages whose pattern is in a tool message is no match, and this says why."""
    return f"{index}: {rule.when!r}" + (f" ({rule.role} messages only)" if rule.role else "")


def _listed(rules: Sequence[Rule]) -> str:
    """Each rule as :func:`_described` shows it."""
    return ", ".join(_described(i, rule) for i, rule in enumerate(rules)) or "none"


class RuleStub(_Fake):
    """Answers by the first :class:`Rule` matching the last user or tool message."""

    def __init__(
        self,
        rules: Sequence[Rule],
        store: FixtureStore | None = None,
        *,
        interface: str = "anthropic.messages",
        fixtures: FixtureStore | None = None,
    ) -> None:
        if fixtures is not None:
            warnings.warn(
                "RuleStub(fixtures=...) is now RuleStub(store=...); the old keyword will be "
                "removed in 0.3",
                DeprecationWarning,
                stacklevel=2,
            )
            store = store or fixtures
        self.rules = _in_order(rules, "RuleStub", Rule)
        strays = [f"{i}: {r!r}" for i, r in enumerate(self.rules) if not isinstance(r, Rule)]
        if strays:
            raise TypeError(f"RuleStub: each rule must be a Rule(...), got rule {strays[0]}")
        if store is not None and not isinstance(store, FixtureStore):
            raise TypeError(
                f"RuleStub: store must be a FixtureStore (FixtureStore.open(path)), got {store!r}"
            )
        self.store = store
        super().__init__()
        self.interface = get_interface(interface)
        self._matched: set[int] = set()
        """The index of each rule that matched a call."""
        missing_store = [r.when for r in self.rules if r.fixture is not None and store is None]
        if missing_store:
            raise ValueError(f"rules {missing_store} name fixtures but no fixture store was given")

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        """The answer of the first matching rule."""
        with self.keeping(*_OWN):
            return self._answer(messages, tools)

    @property
    def unused(self) -> tuple[Rule, ...]:
        """The rules no call has matched yet."""
        return tuple(r for i, r in enumerate(self.rules) if i not in self._matched)

    def assert_used(self) -> None:
        """Raise ``AssertionError`` naming the rules no call matched: a branch the agent
        did not take, or a rule an earlier one always answers before it (dead test code)."""
        _all_used(
            f"RuleStub has {len(self.rules)} rule(s) and was called {len(self.calls)} "
            "time(s); never matched",
            [
                f"rule {_described(i, rule)}"
                for i, rule in enumerate(self.rules)
                if i not in self._matched
            ],
        )

    def _answer(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        check_conversation(messages, tools)
        self.calls.append((tuple(messages), tuple(tools)))
        last = next((m for m in reversed(messages) if m.role in ("user", "tool")), None)
        rule = None if last is None else self._first_matching(last)
        if rule is None:
            raise NoRuleMatchedError(
                f"RuleStub call {len(self.calls)}: no rule matches the {_preview(last)}; "
                f"rules: {_listed(self.rules)}"
            )
        if rule.text is not None:
            return ModelResponse(text=rule.text, stop_reason="end_turn")
        if rule.call is not None:
            name, arguments = rule.call
            n = sum(len(m.tool_calls) for m in messages) + 1
            call = ToolCall(id=f"toolu_stub_{n:02d}", name=name, arguments=dict(arguments))
            return ModelResponse(tool_calls=(call,), stop_reason="tool_use")
        return self._recorded(rule)

    def _first_matching(self, message: Message) -> Rule | None:
        """The first rule matching ``message``; a :class:`SlowPatternError` naming the rule
        (its index and pattern) whose search of the message ran past its time bound, as
        one that backtracks exponentially, not a stub held for ever."""
        for index, rule in enumerate(self.rules):
            try:
                if rule.matches(message):
                    self._matched.add(index)
                    return rule
            except SlowPatternError as err:
                raise SlowPatternError(
                    f"RuleStub rule {index} (when={rule.when!r}) cannot be matched against "
                    f"the {_preview(message)}: {err}; rewrite the rule's pattern so that no "
                    "repeated part can match the same text in more than one way"
                ) from None
        return None

    def _recorded(self, rule: Rule) -> ModelResponse:
        assert self.store is not None and rule.fixture is not None
        found = self.store.get(rule.fixture)
        if len(found) != 1:
            what = "no fixture" if not found else f"{len(found)} fixtures"
            raise NoRuleMatchedError(
                f"RuleStub call {len(self.calls)}: rule {rule.when!r} names fixture "
                f"{rule.fixture!r}, but {self.store.path} holds {what} with that key"
            )
        location, fixture = found[0]
        response = fixture.sample(rule.sample)
        if response is None:
            recorded = [i for i, r in enumerate(fixture.responses) if r is not None]
            raise NoRuleMatchedError(
                f"RuleStub call {len(self.calls)}: rule {rule.when!r}: fixture {fixture.key} "
                f"has {fixture.samples} sample(s), sample {rule.sample} was asked for "
                f"(recorded samples: {recorded})"
            )
        interface = _interface_of(fixture, self.interface)
        if is_envelope(fixture.request):  # recorded at the HTTP layer, by an SDK client
            try:
                response = _exchange_answer(fixture, response, interface)
            except ValueError as err:
                raise NoRuleMatchedError(
                    f"RuleStub call {len(self.calls)}: rule {rule.when!r} names fixture "
                    f"{fixture.key} at {location.file}:{location.line}, {err}; name a fixture "
                    "that holds a whole answer, or give the rule text= or call= instead"
                ) from None
        hits.note(self.store.path, fixture.key)  # a replay: patrol's use, the index guard
        try:
            return interface.from_response(response)
        except WireFormatError as err:
            reason = f"the recorded response cannot be served: {err}"
            raise FixtureFormatError(str(location.file), location.line, reason) from None
