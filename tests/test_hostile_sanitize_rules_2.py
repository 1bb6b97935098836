"""Rules whose replacement the rules after it turn back into redacted text are refused.

``Bob -> Carol`` then ``Carol -> Bob`` wrote every "Bob" to the fixtures as it was:
each rule's own replacement passed its own check, and running the rules again left the
text unchanged, so the record-time stability check passed too.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from replaygate.sanitize import (
    RedactionRule,
    SanitizeConfig,
    SanitizeConfigError,
    Sanitizer,
    load_config,
)

CHAIN_BACK = """\
[project]
name = "agent"

[[tool.replaygate.sanitize.rules]]
literal = "Bob"
replace = "Carol"

[[tool.replaygate.sanitize.rules]]
literal = "Carol"
replace = "Bob"
"""


def test_a_rule_chain_that_writes_the_redacted_text_back_is_refused_at_its_line(
    tmp_path: Path,
) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text(CHAIN_BACK)
    with pytest.raises(SanitizeConfigError) as caught:
        load_config(path)
    assert caught.value.key == "tool.replaygate.sanitize.rules[0].replace"
    assert str(caught.value) == (
        f"{path}:6: tool.replaygate.sanitize.rules[0].replace: the replacement 'Carol', which "
        "the rules after it make 'Bob', is matched by rules[0]: the text that rule redacts "
        "would be written as it was (rules run in order, once); choose replacements no rule "
        "matches"
    )


def test_a_replacement_a_rule_before_it_redacts_is_refused() -> None:
    rules = (
        RedactionRule(literal="Carol", replace="someone"),
        RedactionRule(literal="Bob", replace="Carol"),
    )
    with pytest.raises(SanitizeConfigError, match=r"rules\[1\]\.replace: the replacement 'Carol' "):
        SanitizeConfig(rules=rules)


def test_a_chain_that_ends_in_text_no_rule_matches_is_kept() -> None:
    rules = (
        RedactionRule(literal="Bob", replace="Carol"),
        RedactionRule(literal="Carol", replace="someone"),
    )
    sanitizer = Sanitizer(SanitizeConfig(rules=rules))
    stored = sanitizer.request({"content": "Mail Bob and Carol"})
    assert stored == {"content": "Mail someone and someone"}
