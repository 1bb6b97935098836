"""Drift injection: change the shape of response bodies the way a provider update might.

``add-field:PATH`` sets a dotted path to a placeholder (``"drift"``, or the JSON value
after ``=``, as in ``add-field:usage.foo=0``); ``drop-field:PATH`` removes it. Setting a
field to the value it holds (the same JSON value, of the same JSON type: ``1`` is not
``1.0``) changes nothing, and counts as no change. A path
segment that is a number indexes a list (``choices.0.message.refusal``); drift's own
``content[].type`` notation is refused, naming the index form. A rule whose path runs
through something that is not an object or a list leaves the body alone, and so does one
whose index names an item of a list the body does not have (``choices.0...`` on an
Anthropic answer): objects are made for the missing fields of a path, never an object
keyed ``"0"`` for a list. A plan is
immutable; each check applies it through its own :class:`DriftInjection`, which keeps
which rules changed a body in that check (:meth:`DriftInjection.unmatched`), so a rule
that never applied (a misspelt field) can be named rather than pass as a drift injected.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias, cast

from replaygate.strict_json import plain_loads

DriftOp = Literal["add-field", "drop-field"]
DriftSpec: TypeAlias = "DriftPlan | str | Sequence[str] | None"
PLACEHOLDER = "drift"


class DriftSpecError(ValueError):
    """A drift specification names an unknown operation or an empty path."""


MAX_RULE_DEPTH = 200
"""How deep a rule may reach, its path and its value's nesting together: an answer that
carries it must still be a JSON document a fixture line can hold (254 levels)."""


def _value(item: str, text: str) -> Any:
    try:
        return plain_loads(text)
    except json.JSONDecodeError:
        return text
    except RecursionError:
        raise DriftSpecError(_too_deep(item, "its value nests")) from None


def _nesting(value: Any) -> int:
    """How many levels of objects and lists ``value`` holds (0 for a scalar)."""
    deepest, pending = 0, [(value, 0)]
    while pending:
        node, level = pending.pop()
        if isinstance(node, dict | list):
            pending.extend((child, level + 1) for child in _children(node))
            deepest = max(deepest, level + 1)
    return deepest


def _children(node: dict[str, Any] | list[Any]) -> Any:
    return node.values() if isinstance(node, dict) else node


def _too_deep(item: str, what: str) -> str:
    shown = item if len(item) <= 60 else f"{item[:57]}..."
    return f"drift rule {shown!r}: {what} more than {MAX_RULE_DEPTH} levels deep"


@dataclass(frozen=True)
class DriftRule:
    """One change: add (set) or drop the field at ``path``."""

    op: DriftOp
    path: tuple[str, ...]
    value: Any = PLACEHOLDER

    @staticmethod
    def parse(item: str) -> DriftRule:
        """A rule from ``add-field:PATH[=VALUE]`` or ``drop-field:PATH``."""
        op, sep, rest = item.strip().partition(":")
        if not sep or op not in ("add-field", "drop-field"):
            raise DriftSpecError(
                f"drift rule {item!r}: expected add-field:PATH[=VALUE] or drop-field:PATH"
            )
        path_text, eq, raw = rest.partition("=")
        path = tuple(path_text.strip().split("."))
        if path == ("",):
            raise DriftSpecError(f"drift rule {item!r}: empty path")
        if "" in path:
            raise DriftSpecError(
                f"drift rule {item!r}: the path {path_text.strip()!r} has an empty segment "
                "(two dots, or a dot at an end)"
            )
        if "[]" in path_text:
            raise DriftSpecError(
                f"drift rule {item!r}: a list item is named by its index "
                f"({path_text.replace('[]', '.0').strip()}), not by []"
            )
        if op == "drop-field" and eq:
            raise DriftSpecError(f"drift rule {item!r}: drop-field takes no value")
        value = _value(item, raw.strip()) if eq else PLACEHOLDER
        if len(path) + _nesting(value) > MAX_RULE_DEPTH:
            raise DriftSpecError(_too_deep(item, "its path and value reach"))
        return DriftRule(op=cast(DriftOp, op), path=path, value=value)

    def __str__(self) -> str:
        text = f"{self.op}:{'.'.join(self.path)}"
        return text if self.value == PLACEHOLDER else f"{text}={json.dumps(self.value)}"

    def apply(self, body: Any) -> bool:
        """Apply the rule to ``body`` in place; whether it changed anything."""
        *parents, last = self.path
        node = body
        for depth, segment in enumerate(parents):
            child = _child(node, segment)
            if child is _MISSING:
                if self.op == "drop-field" or not isinstance(node, dict):
                    return False
                if any(part.isdigit() for part in self.path[depth:]):
                    return False  # an index names an item of a list this body lacks
                child = node[segment] = {}
            node = child
        if isinstance(node, dict):
            if self.op == "add-field":
                if last.isdigit() and last not in node:
                    return False  # an index, not an object's new key
                if last in node and same_json(node[last], self.value):
                    return False  # the value it already holds: nothing changes
                node[last] = copy.deepcopy(self.value)
                return True
            return node.pop(last, _MISSING) is not _MISSING
        if isinstance(node, list) and last.isdigit() and int(last) < len(node):
            if self.op == "drop-field":
                del node[int(last)]
            elif same_json(node[int(last)], self.value):
                return False
            else:
                node[int(last)] = copy.deepcopy(self.value)
            return True
        return False


def same_json(one: Any, other: Any) -> bool:
    """Whether two values are one JSON value: of the same JSON type as well as equal, so
    ``1``, ``1.0`` and ``true`` differ (Python holds them equal), as do ``"1"`` and ``1``;
    the keys of an object in any order."""
    return json.dumps(one, sort_keys=True) == json.dumps(other, sort_keys=True)


_MISSING: Any = object()


def _child(node: Any, segment: str) -> Any:
    if isinstance(node, dict):
        return node.get(segment, _MISSING)
    if isinstance(node, list) and segment.isdigit() and int(segment) < len(node):
        return node[int(segment)]
    return _MISSING


@dataclass(frozen=True)
class DriftPlan:
    """The drift rules applied, in order, to every response body; immutable, so one plan
    may serve several checks (:class:`DriftInjection` keeps what each one matched)."""

    rules: tuple[DriftRule, ...] = ()

    @staticmethod
    def parse(spec: str, *, allow_empty: bool = True) -> DriftPlan:
        """Rules from ``"add-field:usage.foo,drop-field:stop_sequence"``; a spec with no
        rule (blank) is the plan of none, or refused unless ``allow_empty`` (a spec given
        on purpose that injects nothing proves nothing: an unset variable, say)."""
        plan = DriftPlan(tuple(DriftRule.parse(i) for i in spec.split(",") if i.strip()))
        if not plan and not allow_empty:
            raise DriftSpecError(
                f"drift spec {spec!r} names no rule: give add-field:PATH[=VALUE] or "
                "drop-field:PATH, comma-separated"
            )
        return plan

    @staticmethod
    def coerce(value: DriftSpec) -> DriftPlan:
        """A plan from any accepted form: a plan, a spec string, a list of rule strings."""
        if value is None:
            return DriftPlan()
        if isinstance(value, DriftPlan):
            return value
        if isinstance(value, str):
            return DriftPlan.parse(value)
        items = list(value) if isinstance(value, Iterable) else [value]
        for item in items:
            if not isinstance(item, str):
                raise DriftSpecError(
                    "drift: expected a spec such as 'drop-field:id', a list of such rules "
                    f"or a DriftPlan, got {type(item).__name__}"
                )
        return DriftPlan(tuple(DriftRule.parse(item) for item in items))

    def __bool__(self) -> bool:
        return bool(self.rules)

    def changes(self, body: dict[str, Any]) -> tuple[dict[str, Any], frozenset[int]]:
        """A drifted copy of ``body`` (``body`` itself when there are no rules), and the
        indexes of the rules that changed it: none when the rules together leave it as it
        was (one adds a field another drops)."""
        if not self.rules:
            return body, frozenset()
        drifted = copy.deepcopy(body)
        matched = frozenset(i for i, rule in enumerate(self.rules) if rule.apply(drifted))
        if matched and same_json(drifted, body):
            return drifted, frozenset()
        return drifted, matched

    def apply(self, body: dict[str, Any]) -> dict[str, Any]:
        """A drifted copy of ``body`` (``body`` itself when there are no rules)."""
        return self.changes(body)[0]

    def unmatched(self, matched: Collection[int]) -> tuple[DriftRule, ...]:
        """The rules whose index is not in ``matched``, in order."""
        return tuple(rule for i, rule in enumerate(self.rules) if i not in matched)


@dataclass
class DriftInjection:
    """One check's use of a plan (a simulator's run): the plan, and which of its rules
    changed a body so far, so that a rule that never applied can be named."""

    plan: DriftPlan = field(default_factory=DriftPlan)
    matched: set[int] = field(default_factory=set)

    def apply(self, body: dict[str, Any]) -> dict[str, Any]:
        """A drifted copy of ``body``; the rules that changed it are counted as matched."""
        drifted, matched = self.plan.changes(body)
        self.matched |= matched
        return drifted

    def unmatched(self) -> tuple[DriftRule, ...]:
        """The rules that have changed no body in this check (their path was in none)."""
        return self.plan.unmatched(self.matched)
