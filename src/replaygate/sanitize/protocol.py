"""Text rules rewrite data, never the words of the API: a recording whose rules would is
refused, naming the rule (its file and line where it was read from one), the request
being recorded and the field path.

A rule written for a word of the data (`"user"`, a customer called `Claude`, `id`) also
matches the words the API itself is made of: a role, a content block's or an event's
`type`, a model, a stop reason, a tool's name, the route of the request, the keys of
JSON held as text (tool arguments, a tool result). Rewritten, the stored request still
matches at replay, but the replayed response hands the SDK and the agent a role, a block
type or a tool the API never sends (`role: "client"`, a call to `lookup_client`), and
nothing says why. Checked only while recording: replay is not slowed.
"""

from __future__ import annotations

import json
from typing import Any

from replaygate.interfaces import interface_of
from replaygate.json_paths import path_step
from replaygate.sanitize.config import SECTION
from replaygate.sanitize.pii import RedactionRule, TextRules
from replaygate.sanitize.secret_held import held_json

PROTOCOL_FIELDS = frozenset(
    {"role", "type", "object", "model", "stop_reason", "finish_reason", "status", "content-type"}
)
"""Fields whose value is a word of the API, wherever they stand in a request or response
(or a streamed event's data)."""

_TOOL_MEMBERS = frozenset({"input", "arguments", "args", "input_schema", "parameters"})
"""Members of an object that describes a tool or a call of one (beside its ``name``, which
is the API's): the call's arguments or the tool's schema, the caller's data."""

Found = tuple[str, str]
"""``(the text the rules changed, what and where it is)``."""


def rewritten_word(rules: TextRules, before: Any, after: Any, side: str) -> tuple[str, str] | None:
    """The configuration key of the rule and the reason to refuse ``after`` (``before`` as
    the sanitize steps left it, ``side`` being ``request`` or ``response``) if the text
    ``rules`` rewrote a word of the API; None if they did not."""
    found = _route(before, after, side) or _walk(before, after, side, None, None, True)
    if found is None:
        return None
    text, what = found
    key, rule = _culprit(rules, text)
    remedy = (
        "A built-in class cannot be narrowed: send such a value where it is data (a value, "
        "not a key or a word of the API), or leave the class out of personal_data"
        if key.endswith(".personal_data")
        else "Narrow the rule to the data (fixed text or a lookaround beside the match)"
    )
    return key, (
        f"{rule} rewrites {what}: the fixture would hold, and replay hand the SDK and the "
        f"agent, what was never sent. {remedy}; nothing was written."
    )


def _route(before: Any, after: Any, side: str) -> Found | None:
    """An HTTP request whose path the rules moved to another interface (or to none)."""
    if not (isinstance(before, dict) and isinstance(after, dict)):
        return None
    path, stored = before.get("path"), after.get("path")
    if not (isinstance(path, str) and isinstance(stored, str)) or path == stored:
        return None
    if interface_of(path) == interface_of(stored):
        return None
    return path, _word("route", f"{side}.path", path.split("?", 1)[0])


def _walk(
    before: Any, after: Any, path: str, key: str | None, parent: Any, protocol: bool
) -> Found | None:
    """The first rewritten word of the API in ``after`` against ``before``.

    ``protocol``: whether the fields here are the API's (not inside JSON held as text,
    other than an event's data).
    """
    if after is before:
        return None
    if isinstance(before, dict) and isinstance(after, dict):
        if not protocol:
            renamed = next((k for k in before if k not in after), None)
            if renamed is not None:
                where = path_step(path, renamed)
                return renamed, f"the key {renamed!r} at {where} of JSON held as text, not data"
        for k, value in before.items():
            if k in after:
                here = protocol and not _is_tool_data(k, before)
                found = _walk(value, after[k], path_step(path, k), k, before, here)
                if found:
                    return found
    elif isinstance(before, list) and isinstance(after, list):
        for i, (old, new) in enumerate(zip(before, after, strict=False)):
            found = _walk(old, new, f"{path}[{i}]", None, parent, protocol)
            if found:
                return found
    elif isinstance(before, str) and isinstance(after, str) and before != after:
        return _text(before, after, path, key, parent, protocol)
    return None


def _text(
    before: str, after: str, path: str, key: str | None, parent: Any, protocol: bool
) -> Found | None:
    """A changed string: a word of the API, or JSON held as text whose shape changed."""
    if protocol and _is_word(key, parent):
        return before, _word(str(key), path, before)
    if before.lstrip()[:1] not in ("{", "["):
        return _held_lines(before, after, path)
    try:
        old = json.loads(before)
    except (ValueError, RecursionError):
        return _held_lines(before, after, path)
    try:
        new = json.loads(after)
    except (ValueError, RecursionError):
        return before, f"the JSON held as text at {path} into text that is no JSON"
    return _walk(old, new, path, key, None, protocol and key == "data")


def _held_lines(before: str, after: str, path: str) -> Found | None:
    """JSON held in the lines of a text that is not one JSON value (a JSONL body, a file of
    requests uploaded for a batch in a multipart form: :func:`.secret_held.held_json`)
    whose shape the rules changed, a line at a time (they do not add or remove lines)."""
    written = after.split("\n")
    line = at = 0
    for start, end, value, _ in held_json(before):
        line, at = line + before.count("\n", at, start), start
        old = before[start:end]
        new = "\n".join(written[line : line + old.count("\n") + 1])
        if new == old:
            continue
        try:
            changed = json.loads(new)
        except (ValueError, RecursionError):
            where = f"{path} (line {line + 1})"
            return old, f"the JSON held as text at {where} into text that is no JSON"
        found = _walk(value, changed, f"{path} (line {line + 1})", None, None, False)
        if found:
            return found
    return None


def _word(name: str, path: str, text: str) -> str:
    """How a word of the API the rules rewrote is named."""
    return f"the {name} at {path} ({text!r}), a word of the API, not data"


def _is_word(key: str | None, parent: Any) -> bool:
    """Whether the value of ``key`` in ``parent`` is a word of the API."""
    if key in PROTOCOL_FIELDS:
        return True
    return key == "name" and isinstance(parent, dict) and not _TOOL_MEMBERS.isdisjoint(parent)


def _is_tool_data(key: str, parent: dict[str, Any]) -> bool:
    """Whether the value of ``key`` in ``parent`` is a tool call's arguments or a tool's
    schema (:data:`_TOOL_MEMBERS` beside a ``name``): data, whatever its fields are called
    (an argument named ``type`` or ``status``)."""
    return key in _TOOL_MEMBERS and "name" in parent


def rule_named(rule: RedactionRule) -> str:
    """How an error names ``rule``: ``the rule (literal 'ACME Corp')``, or its pattern."""
    said = f"literal {rule.literal!r}" if rule.literal is not None else f"pattern {rule.pattern!r}"
    return f"the rule ({said})"


def _culprit(rules: TextRules, text: str) -> tuple[str, str]:
    """The configuration key and a description of the first rule that changes ``text``."""
    for i, rule in enumerate(rules.rules):
        if TextRules(rules=(rule,)).apply(text) != text:
            return f"{SECTION}.rules[{i}]", rule_named(rule)
    for builtin in rules.builtins:
        if TextRules(classes=(builtin.name,)).apply(text) != text:
            return f"{SECTION}.personal_data", f"the personal data class {builtin.name!r}"
    return f"{SECTION}.rules", "the rules, together,"
