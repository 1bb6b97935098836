"""The OpenAI key rule reads a long text once: a run of ``sk-`` repeated with no digit
(48 KB took seconds, each ``sk-`` reading the rest of the run) is taken whole, once, and
the rule finds what the pattern it replaced found, where it found it."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from replaygate.sanitize.secret_rules import DETECTORS, detect_family

OPENAI = next(d for d in DETECTORS if d.name == "OpenAI API key")
PREVIOUS = re.compile(
    r"(?<![A-Za-z0-9])sk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z_\-]*[0-9])[A-Za-z0-9_\-]{32,}"
)
"""The rule as a pattern alone: it searched for a digit from every ``sk-`` of a run."""
PIECES = ["sk-", "proj-", "admin-", "svcacct-", "a", "Q", "7", "_", "-", " ", "=", "xy" * 8]


def test_a_long_run_of_sk_without_a_digit_is_read_at_once() -> None:
    """The pattern takes a run whole, once, with no look ahead from each ``sk-`` in it (the
    rule it replaced looked for a digit from each), and the key check reads each run once."""
    assert "(?=" not in OPENAI.pattern.pattern
    for text in ("sk-" * 16_000, "x-" + "sk-proj-" * 6_000 + "!", "sk-a" * 12_000 + " 1"):
        runs = [m.group() for m in OPENAI.pattern.finditer(text)]
        assert len(runs) == 1 and len(runs[0]) >= len(text) - 3
        assert detect_family(text) is None
        assert detect_family(text, encoded=True) is None


def test_a_key_at_the_end_of_such_a_run_is_found() -> None:
    key = "sk-proj-" + "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF"
    assert detect_family("sk-" * 16_000 + key) == "OpenAI API key"
    assert detect_family("sk-" * 10 + " " + key) == "OpenAI API key"


@given(st.lists(st.sampled_from(PIECES), max_size=60))
def test_the_rule_finds_what_the_pattern_found(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert list(OPENAI.starts(text)) == [m.start() for m in PREVIOUS.finditer(text)]
    for match in PREVIOUS.finditer(text):
        assert OPENAI.takes_whole(match.group())
