"""The secret scan's gate: whether a value may hold a secret at all, decided without a walk.

A value is cut two levels down into parts (the containers there, and the scalars
gathered as ``[name, value]`` pairs); a part under an auth-like field name may hold
a credential at once. Otherwise each part is serialized, and the parts are searched
together for what any rule needs (:mod:`.secret_prefilter`). Large parts found clean
(a store's tool list and system prompt, repeated in every fixture) are remembered by
their exact serialized bytes and not searched again.

Joining parts only widens the search: what flags a part alone flags any text holding
it (a part begins and ends with a bracket, which no token, anchor or field name the
search reads holds). So the parts of many values can be searched in one pass,
:func:`clean_together`, and each value is cleared when that pass finds nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from replaygate.sanitize.secret_decode import may_have_views
from replaygate.sanitize.secret_entropy import (
    AUTH_LIKE_NAMES,
    auth_like,
    may_detect_context,
    may_have_auth_like_field,
)
from replaygate.sanitize.secret_prefilter import Runs
from replaygate.sanitize.secret_rules import may_match_family

_CLEAN_MIN_SIZE = 256
_CLEAN_MAX_ENTRIES = 256
_clean: dict[bytes, None] = {}
_OPTION = orjson.OPT_NON_STR_KEYS
_PLAIN_NAMES: set[Any] = set()
"""Field names seen not to be auth-like (at most :data:`_PLAIN_MAX`)."""
_PLAIN_MAX = 4096


def _holds_text(value: Any) -> bool:
    """Whether a field's value has a string leaf that keeps the field's name (not in an object)."""
    if isinstance(value, str):
        return True
    return isinstance(value, list) and any(_holds_text(item) for item in value)


def _auth_like_name(key: Any) -> bool:
    flag = AUTH_LIKE_NAMES.get(key)
    return auth_like(str(key)) if flag is None else flag


def _flags_a_name(mapping: dict[Any, Any], top: bool) -> bool:
    """Whether a field of ``mapping`` holds text under an auth-like name.

    A container's own name does not count at the top, where the parts are cut below it.
    Names seen not to be auth-like are passed over together.
    """
    for name in mapping.keys() - _PLAIN_NAMES:
        item = mapping[name]
        if isinstance(item, dict) or (top and not isinstance(item, str | list)):
            continue
        if not _auth_like_name(name):
            if len(_PLAIN_NAMES) < _PLAIN_MAX:
                _PLAIN_NAMES.add(name)
            continue
        if isinstance(item, str) or _holds_text(item):
            return True
    return False


def _anchored(text: bytes) -> bool:
    runs = Runs.of(text)
    return (
        may_have_auth_like_field(text)
        or may_match_family(runs)
        or may_detect_context(runs)
        or may_have_views(runs)
    )


def _pending(value: Any) -> list[bytes] | None:
    """The serialized parts of ``value`` not known clean; None when a field name flags it.

    The parts are the containers two levels down, in order, then the other scalars
    of those levels as one list of ``[name, value]`` pairs.
    """
    parts: list[Any]
    if not isinstance(value, dict):
        parts = [[["", value]]]
    elif _flags_a_name(value, top=True):
        return None
    else:
        parts, rest = [], []
        for key, child in value.items():
            if isinstance(child, dict):
                if _flags_a_name(child, top=False):
                    return None
                for name, item in child.items():
                    if isinstance(item, dict | list):
                        parts.append(item)
                    else:
                        rest.append([name, item])
            elif isinstance(child, list):
                parts.append(child)
            else:
                rest.append([key, child])
        parts.append(rest)
    clean = _clean
    pending = []
    try:
        for part in parts:
            data = orjson.dumps(part, option=_OPTION)
            if len(data) < _CLEAN_MIN_SIZE or data not in clean:
                pending.append(data)
    except TypeError:
        return None
    return pending


def _remember(pending: list[bytes]) -> None:
    for data in pending:
        if len(data) >= _CLEAN_MIN_SIZE:
            if len(_clean) >= _CLEAN_MAX_ENTRIES:
                del _clean[next(iter(_clean))]
            _clean[data] = None


def may_hold_secret(value: Any) -> bool:
    """False only when no leaf of ``value`` can match a built-in detector (a fast check)."""
    pending = _pending(value)
    if pending is None or _anchored(b"".join(pending)):
        return True
    _remember(pending)
    return False


def clean_together(values: Sequence[Any]) -> list[bool]:
    """For each of ``values``, True when it is known to hold no secret; one pass for all.

    False means "not known": :func:`may_hold_secret` decides it alone. Parts that
    several values share are searched once.
    """
    pendings = [_pending(value) for value in values]
    known = [pending for pending in pendings if pending is not None]
    together = dict.fromkeys(data for pending in known for data in pending)
    if not known or _anchored(b"".join(together)):
        return [False] * len(values)
    for pending in known:
        _remember(pending)
    return [pending is not None for pending in pendings]
