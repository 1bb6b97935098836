"""A rule stub searches its rules' patterns within the time bound of
:mod:`replaygate.pattern_search`: Python's ``re`` held a stub for ever on a pattern that
backtracks; a search past the bound is an error naming the rule, not a hang and not a
rule that did not match."""

from __future__ import annotations

import pytest

from replaygate import Message, pattern_search
from replaygate.errors import NoRuleMatchedError, ReplaygateError
from replaygate.models.fakes import Rule, RuleStub
from replaygate.pattern_search import SlowPatternError

SLOW = r"((a|aa)+)+b"
"""Found at the end of ``TEXT`` after some seconds of ``re``'s backtracking (18 ``a``),
some hundredths of a second of ``regex``'s: past a bound of a two-hundredth."""
TEXT = "a" * 18 + "!ab"


@pytest.fixture
def tiny_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pattern search's time bound of a two-hundredth of a second."""
    monkeypatch.setattr(pattern_search, "SECONDS", 0.005)


def test_a_rule_whose_search_runs_past_the_bound_is_an_error_naming_it(
    tiny_bound: None,
) -> None:
    stub = RuleStub([Rule("hello", text="hi"), Rule(SLOW, text="slow"), Rule("ab", text="later")])
    with pytest.raises(SlowPatternError) as raised:
        stub.complete([Message.user(TEXT)], [])
    message = str(raised.value)
    assert message.startswith(
        f"RuleStub rule 1 (when={SLOW!r}) cannot be matched against the user message "
        f"{TEXT!r}: pattern {SLOW!r} took more than 0.005 s to search a string of 21 "
        "characters: "
    )
    assert "backtrack exponentially" in message
    assert len(stub.calls) == 1  # the call is kept, as any other


def test_a_slow_pattern_is_caught_as_any_replaygate_error(tiny_bound: None) -> None:
    stub = RuleStub([Rule(SLOW, text="slow")])
    with pytest.raises(ReplaygateError, match=r"took more than 0\.005 s"):
        stub.complete([Message.user(TEXT)], [])


def test_the_rule_itself_raises_naming_its_pattern(tiny_bound: None) -> None:
    with pytest.raises(SlowPatternError, match=r"pattern '\(\(a\|aa\)\+\)\+b' took more"):
        Rule(SLOW, text="slow").matches(Message.user(TEXT))


def test_a_rule_for_another_role_is_not_searched(tiny_bound: None) -> None:
    stub = RuleStub([Rule(SLOW, text="slow", role="tool"), Rule("ab$", text="user")])
    assert stub.complete([Message.user(TEXT)], []).text == "user"


def test_a_pattern_re_backtracks_on_for_ever_is_answered_at_once() -> None:
    # re searched this 31-character message for ever; regex finds no match at once
    stub = RuleStub([Rule(r"^(\w+\s?)*$", text="a")])
    with pytest.raises(NoRuleMatchedError, match="no rule matches the user message"):
        stub.complete([Message.user("a" * 30 + "!")], [])
    then = RuleStub([Rule(r"^(\w+\s?)*$", text="a"), Rule(r"!$", text="b")])
    assert then.complete([Message.user("a" * 30 + "!")], []).text == "b"


def test_rules_within_the_bound_match_as_re_matches() -> None:
    stub = RuleStub([Rule(r"^(ab)+$", text="pairs"), Rule(r"(?i)RAG", text="rag")])
    assert stub.complete([Message.user("abab")], []).text == "pairs"
    assert stub.complete([Message.user("aba rag")], []).text == "rag"
