"""A JSON Schema's ``format`` is checked, for every format the drafts define.

``jsonschema`` checks a format only where the library that reads it is installed; with
plain ``jsonschema`` a ``date-time``, ``uri`` or ``hostname`` passed whatever the value.
replaygate depends on the libraries of its ``format-nongpl`` extra, so each one is
checked; ``iri`` and ``iri-reference`` only where ``rfc3987-syntax`` is installed, which
replaygate leaves out (its import takes most of a second).
"""

from __future__ import annotations

import pytest

from replaygate.assertions import assert_structure, structure_check

FORMATS = [
    ("date-time", "2026-12-03T21:04:29Z", "yesterday"),
    ("date", "2026-12-03", "2026-13-45"),
    ("time", "21:04:29Z", "25:99"),
    ("duration", "P3DT4H", "forever"),
    ("email", "ada@example.com", "nope"),
    ("idn-email", "ada@例え.jp", "nope"),
    ("hostname", "api.example.com", "-bad-"),
    ("idn-hostname", "例え.jp", "-bad-"),
    ("ipv4", "192.0.2.1", "1.2.3"),
    ("ipv6", "2001:db8::1", "zz::1"),
    ("uri", "https://example.com/a?b=c", "not a uri"),
    ("uri-reference", "../a/b", "\\\\bad"),
    ("uri-template", "https://example.com/{id}", "{bad"),
    ("uuid", "00000000-0000-0000-0000-000000000001", "nope"),
    ("json-pointer", "/a/0", "no-slash"),
    ("relative-json-pointer", "1/a", "x"),
    ("regex", "^a+$", "("),
]


@pytest.mark.parametrize(("fmt", "good", "bad"), FORMATS, ids=[f for f, _, _ in FORMATS])
def test_each_format_is_checked(fmt: str, good: str, bad: str) -> None:
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "format": fmt}
    assert assert_structure(good, schema) == good
    with pytest.raises(AssertionError, match=f"is not a {fmt!r}"):
        assert_structure(bad, schema)


@pytest.mark.parametrize(
    "draft",
    [
        "http://json-schema.org/draft-04/schema#",
        "http://json-schema.org/draft-07/schema#",
        "https://json-schema.org/draft/2019-09/schema",
    ],
)
def test_formats_are_checked_in_every_draft(draft: str) -> None:
    schema = {"$schema": draft, "properties": {"when": {"format": "date-time"}}}
    with pytest.raises(AssertionError, match=r"\$\.when: 'yesterday' is not a 'date-time'"):
        assert_structure({"when": "yesterday"}, schema)


def test_a_structure_check_fails_a_value_of_the_wrong_format() -> None:
    schema = {"type": "object", "properties": {"when": {"type": "string", "format": "date-time"}}}
    check = structure_check(schema, kind="gate", from_json=True)
    failed = check.evaluate('{"when": "yesterday"}')
    assert not failed.passed and "'yesterday' is not a 'date-time'" in failed.message
    assert check.evaluate('{"when": "2026-12-03T21:04:29+01:00"}').passed
