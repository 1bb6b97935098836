"""Copy-on-write maps over JSON values: only the containers that change are copied."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

TextFn = Callable[[str], str]
FieldTextFn = Callable[[str, str | None], str]
MemberFn = Callable[[str | None, Any], Any]
KeepFn = Callable[[str, Mapping[str, Any], str, str], bool]
"""Whether the string under a name of an object (itself under the field ``holder`` of an
object under ``outer``) is left as it is: ``keep(name, siblings, holder, outer)``."""


def map_fields(value: Any, fn: FieldTextFn, field: str | None = None) -> Any:
    """``value`` with ``fn(text, field)`` applied to every string leaf.

    ``field`` is the object key the string is the value of (None for a list item or
    the top level). Object keys themselves are left alone. Returns ``value`` itself
    when nothing changed, so a caller can test ``is``.
    """
    if isinstance(value, str):
        out = fn(value, field)
        return value if out == value else out
    return map_members(value, lambda key, member: map_fields(member, fn, key))


def map_text(value: Any, fn: TextFn, keep: KeepFn, holder: str = "", outer: str = "") -> Any:
    """``value`` with ``fn`` applied to every string leaf but those ``keep`` names
    (``value`` under the field ``holder`` of an object under ``outer``; copy-on-write, as
    :func:`map_fields`)."""
    if isinstance(value, str):
        out = fn(value)
        return value if out == value else out
    if isinstance(value, dict):
        return map_members(
            value,
            lambda name, member: (
                member
                if isinstance(member, str) and keep(str(name), value, holder, outer)
                else map_text(member, fn, keep, str(name), holder)
            ),
        )
    return map_members(value, lambda _name, member: map_text(member, fn, keep, holder, outer))


def map_members(value: Any, fn: MemberFn) -> Any:
    """``value`` with each member of an object or list replaced by ``fn(key, member)``.

    ``key`` is the member's object key (None for a list item); any other value is
    returned as it is. Returns ``value`` itself when no member changed.
    """
    members: Iterable[tuple[Any, Any]]
    slot: Any
    if isinstance(value, dict):
        members, keyed = value.items(), True
    elif isinstance(value, list):
        members, keyed = enumerate(value), False
    else:
        return value
    copy: Any = None
    for slot, member in members:
        new = fn(slot if keyed else None, member)
        if new is not member:
            if copy is None:
                copy = dict(value) if isinstance(value, dict) else list(value)
            copy[slot] = new
    return value if copy is None else copy


def map_strings(value: Any, fn: TextFn) -> Any:
    """``value`` with ``fn`` applied to every string leaf (copy-on-write, as :func:`map_fields`)."""
    return map_fields(value, lambda text, _field: fn(text))
