"""The secret scan's gate: whether a value may hold a secret at all, decided without a walk.

A value is cut two levels down into parts (the containers there, a list of objects
as its objects, and the scalars gathered as ``[name, value]`` pairs, those of each
object apart); a part under an auth-like field name may hold a credential at once.
Otherwise each part is serialized, and the parts are searched together for what any
rule needs (:mod:`.secret_prefilter`). Parts found clean (a store's tools, system
prompt, the earlier turns of a conversation, repeated in many fixtures) are remembered
by their exact serialized bytes and not searched again.

Joining parts only widens the search: what flags a part alone flags any text holding
it (a part begins and ends with a bracket, which no token, anchor or field name the
search reads holds). Cutting a list between its items does not narrow it: what any
rule reads lies in a string or a field name, or in a run of characters that starts
right after a quote, never across the brackets and commas between two items. So the
parts of many values can be searched in one pass, :func:`clean_together`, and each
value is cleared when that pass finds nothing.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Sequence
from typing import Any

import orjson

from replaygate.sanitize.secret_decode import may_have_views
from replaygate.sanitize.secret_entropy import (
    AUTH_LIKE_NAMES,
    CONTEXT_MIN_LENGTH,
    auth_like,
    may_detect_context,
    may_have_auth_like_field,
)
from replaygate.sanitize.secret_prefilter import Runs
from replaygate.sanitize.secret_rules import may_match_family

FIXTURE_KEY = "key"
"""The field of a fixture holding its own key (hex digits): no credential context."""
_CLEAN_MIN_SIZE = 32
"""Smaller parts are searched again rather than looked up."""
_CUT_LEVELS = 3
"""How many levels down a value is cut into parts (:func:`_pending`)."""
_CLEAN_MAX_ENTRIES = 8192
"""Parts remembered in each of two generations (a few MiB at most)."""
_clean: dict[bytes, None] = {}
_clean_before: dict[bytes, None] = {}
"""The generation before :data:`_clean`: a part found here is kept on into the next."""
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

    A container's own name does not count at the top, where the parts are cut below it,
    nor a fixture's own key (:data:`FIXTURE_KEY`) or a string too short to be a
    credential. Names seen not to be auth-like are passed over together.
    """
    for name in mapping.keys() - _PLAIN_NAMES:
        item = mapping[name]
        if isinstance(item, dict) or (
            top and (name == FIXTURE_KEY or not isinstance(item, str | list))
        ):
            continue
        if not _auth_like_name(name):
            if len(_PLAIN_NAMES) < _PLAIN_MAX:
                _PLAIN_NAMES.add(name)
            continue
        if isinstance(item, str):
            if len(item) >= CONTEXT_MIN_LENGTH:
                return True
        elif _holds_text(item):
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

    The parts are the containers :data:`_CUT_LEVELS` levels down, in order, then the
    other scalars of each object as one list of ``[name, value]`` pairs, then the names
    of the containers cut off as one list (a container is cut off from its name, which
    a token may be). Three levels reach the turns of a conversation recorded at the HTTP
    layer (``request.body.messages``), so each turn is searched once, not again with
    every later request that resends it.
    """
    parts: list[Any] = []
    if not isinstance(value, dict):
        parts.append([["", value]])
    else:
        names: list[Any] = []
        if not _cut_object(value, _CUT_LEVELS, parts, names, top=True):
            return None
        if names:
            parts.append(names)
    clean, before = _clean, _clean_before
    pending = []
    try:
        for part in parts:
            data = orjson.dumps(part, option=_OPTION)
            if len(data) < _CLEAN_MIN_SIZE:
                pending.append(data)
            elif data not in clean:
                if data in before:
                    _keep_all((data,))
                else:
                    pending.append(data)
    except TypeError:
        return None
    return pending


def _cut_object(
    mapping: dict[Any, Any], levels: int, parts: list[Any], names: list[Any], *, top: bool = False
) -> bool:
    """Add the parts of ``mapping`` to ``parts``, its objects cut ``levels`` levels further
    down, the names of the containers cut off to ``names``; False when a field name flags
    it (:func:`_flags_a_name`; ``top``: ``mapping`` is the whole value)."""
    if _flags_a_name(mapping, top=top):
        return False
    pairs = []
    for name, item in mapping.items():
        if isinstance(item, dict):
            names.append(name)
            if levels <= 1:
                parts.append(item)
            elif not _cut_object(item, levels - 1, parts, names):
                return False
        elif isinstance(item, list):
            names.append(name)
            _add_list(parts, item)
        else:
            pairs.append([name, item])
    if pairs:
        parts.append(pairs)
    return True


def _add_list(parts: list[Any], items: list[Any]) -> None:
    """A list as one part, or a list of objects (turns, tools, blocks) as one part each."""
    if len(items) > 1 and all(type(item) is dict for item in items):
        parts.extend(items)
    else:
        parts.append(items)


def _remember(pending: list[bytes]) -> None:
    _keep_all({data for data in pending if len(data) >= _CLEAN_MIN_SIZE})


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


CUT = b'"},{"'
"""Where a written fixture is cut into pieces: the end of an object in a list, the next one's
first name."""
FIELD_CUT = b'","'
"""Where a piece not known clean is cut again: between two string fields of an object.

A piece or part is searched wrapped in :data:`CUT`, whichever cut stood around it: both
are a quote, then commas or braces, then a quote, and every rule reads within the piece,
the quote before it and the comma or brace before that, and the quote after it and the
two bytes after that (never ``:``). A run, a token or an escape holds no quote; a field
name is read up to its closing quote and the three bytes after it (``":"`` or ``":[``,
neither of which a cut starts with); the text a context rule reads before a value holds
no comma and no brace; ``"base64":`` starts at the quote before a piece at the furthest."""
KEY_FIRST = b'{"key":"'
"""How a fixture as ``orjson.dumps`` writes it starts."""


def cut_written(line: bytes) -> list[bytes] | None:
    """``line``, a fixture as ``orjson.dumps`` writes it, cut for :func:`clean_written`
    (the ``key`` field's name left out: it is not auth-like, as the walk of
    :func:`may_hold_secret` knows); None when it does not start with that field."""
    return line[len(KEY_FIRST) :].split(CUT) if line.startswith(KEY_FIRST) else None


def clean_written(lines: Sequence[list[bytes] | None]) -> list[bool]:
    """For each of ``lines``, True when the fixture it holds is known to hold no secret.

    Each line is given cut by :func:`cut_written` (None: not known). It must be exactly
    what ``orjson.dumps`` writes for the parsed fixture (compact, its fields in their
    order): it then holds every part :func:`clean_together` would read, each with what
    surrounds it, and more (every field name at its place). False means "not known", as
    for :func:`clean_together`.

    A line is cut into pieces at :data:`CUT` (the turns of a conversation, the tools, the
    blocks of a response), and a piece not found clean before is cut again at
    :data:`FIELD_CUT` (its fields: a new question or answer among fields that repeat);
    what is not known clean is searched together, each wrapped in :data:`CUT`.
    """
    known = [pieces for pieces in lines if pieces is not None]
    if _cleared(list(itertools.chain.from_iterable(known))):
        return [pieces is not None for pieces in lines]
    # Something in the batch may need a look: clear the lines that hold none of it.
    return [pieces is not None and _cleared(pieces) for pieces in lines]


def _cleared(pieces: Sequence[bytes]) -> bool:
    """Whether ``pieces`` are known clean, what is not known searched together (and
    remembered once found clean). They are searched in the order given, each once, so
    the verdict on a line does not hang on the order a set would give its pieces (a tag's
    ``<`` in one field read before a credential word of an earlier one)."""
    search, learn = _unknown(pieces)
    if search and _anchored(CUT + CUT.join(search) + CUT):
        return False
    _keep_all(learn)
    return True


def _unknown(pieces: Sequence[bytes]) -> tuple[list[bytes], list[bytes]]:
    """What of ``pieces`` to search (the parts of each piece not known clean that are
    not known clean either), and what to remember once it is found clean: those parts,
    and each unknown piece whose parts were all known; both in order, each once."""
    search: dict[bytes, None] = {}
    learn: dict[bytes, None] = {}
    for piece in _not_clean(pieces):
        parts = piece.split(FIELD_CUT)
        unknown = _not_clean(parts) if len(parts) > 1 else [piece]
        for part in unknown:
            search[part] = learn[part] = None
        if not unknown:
            learn[piece] = None
    return list(search), list(learn)


def _not_clean(pieces: Sequence[bytes]) -> list[bytes]:
    """Those of ``pieces`` not known clean (one found clean a generation ago is kept on),
    in order, each once."""
    unknown = set(pieces).difference(_clean)
    if unknown and _clean_before:
        again = {piece for piece in unknown if piece in _clean_before}
        if again:
            _keep_all(again)
            unknown -= again
    if len(unknown) < 2:
        return list(unknown)
    return [piece for piece in dict.fromkeys(pieces) if piece in unknown]


def _keep_all(pieces: Collection[bytes]) -> None:
    """Remember ``pieces`` as clean."""
    global _clean, _clean_before
    if len(_clean) + len(pieces) > _CLEAN_MAX_ENTRIES:
        _clean_before, _clean = _clean, {}
    _clean.update(dict.fromkeys(pieces))
