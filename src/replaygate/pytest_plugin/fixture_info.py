"""What pytest knows of the fixtures a test uses, read from its private fixture info.

pytest keeps the fixtures a test function requests and their definitions on
``item._fixtureinfo``, with no public API for them. They are read here alone, guarded:
an item without that info (a doctest, another plugin's item) or a pytest that renamed
it reads as requesting nothing, each fixture as one pytest has no definition of.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest


def argnames(item: pytest.Item) -> tuple[str, ...]:
    """The names of the fixtures the test function requests."""
    info = getattr(item, "_fixtureinfo", None)
    return tuple(getattr(info, "argnames", ()))


def fixture_defs(item: pytest.Item) -> Mapping[str, Sequence[Any]]:
    """pytest's definitions of each fixture ``item`` uses, by name (an override's last)."""
    info = getattr(item, "_fixtureinfo", None)
    defs = getattr(info, "name2fixturedefs", None)
    return defs if isinstance(defs, Mapping) else {}


def scope_of(defs: Mapping[str, Sequence[Any]], name: str) -> str | None:
    """The scope of the definition of fixture ``name`` that is used, or None for one
    pytest has no definition of."""
    found = defs.get(name)
    return str(getattr(found[-1], "scope", "function")) if found else None


def requested_by(defs: Mapping[str, Sequence[Any]], name: str) -> frozenset[str]:
    """The fixtures the definition of ``name`` that is used requests, with those of each
    definition it overrides and requests in turn (``name`` itself left out)."""
    found = list(defs.get(name) or ())
    asked: set[str] = set()
    while found:
        args = set(getattr(found.pop(), "argnames", ()))
        asked |= args - {name}
        if name not in args:  # the definition it overrides is not used
            break
    return frozenset(asked)


def needing(item: pytest.Item, wanted: str) -> list[str]:
    """The fixtures ``item`` uses that are ``wanted`` or request it, directly or through
    others, in the order pytest sets them up (the test's own before those they request)."""
    defs = fixture_defs(item)
    found: dict[str, bool] = {wanted: True}

    def needs(name: str) -> bool:
        if name not in found:
            found[name] = False  # a cycle adds nothing
            found[name] = any(needs(arg) for arg in requested_by(defs, name))
        return found[name]

    return [name for name in getattr(item, "fixturenames", ()) if needs(name)]
