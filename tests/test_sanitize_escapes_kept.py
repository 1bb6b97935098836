"""A rule that changes a string holding a ``\\x`` or ``\\u`` escape changes only what it
matched: every other character is written back as it came, a plain ``@`` as ``@``, an
escaped one escaped, and what the rule wrote is escaped as what it replaced was."""

from __future__ import annotations

import pytest

from replaygate.sanitize import Sanitizer
from test_sanitize_encoded import CONFIG


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        (
            "mail alice.martin\\x40corp-mail.com; ping @devops on slack",
            "mail user-5352dcf5\\x40example.com; ping @devops on slack",
        ),
        (
            "regex r'\\x40' or @ sign; write to alice.martin\\x40corp-mail.com",
            "regex r'\\x40' or @ sign; write to user-5352dcf5\\x40example.com",
        ),
        (
            "mail alice.martin@corp-mail.com and bob\\x40corp-mail.com",
            "mail user-5352dcf5@example.com and user-bd61f782\\x40example.com",
        ),
        (
            "Jos\\u00e9 Garc\\u00eda <ops@x.io>, alice.martin\\u0040corp-mail.com",
            "Jane Doe <user-be5ce12b@example.com>, user-5352dcf5\\u0040example.com",
        ),
    ],
)
def test_only_what_a_rule_changed_is_written_back_escaped(text: str, kept: str) -> None:
    rules = Sanitizer(CONFIG).text
    out = rules.apply(text)
    assert out == kept
    assert rules.apply(out) == out
