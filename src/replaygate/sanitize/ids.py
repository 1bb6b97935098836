"""Volatile ids: provider-made ids replaced by stable ones derived from the fixture key.

An id is volatile when it sits in a field named ``id`` or ``*_id`` (or in a
``request-id`` header) and starts with one of :data:`VOLATILE_PREFIXES`, or when it
is the value of a :data:`VOLATILE_FIELDS` field. Its stable replacement keeps the
prefix and reads ``<prefix>rg_<fixture key>_<n>`` for the first answer to a request
and ``<prefix>rg_<fixture key>_s<i>_<n>`` for its answer ``i`` (a sample, a repeated
send): ``n`` counts the distinct ids of that prefix in one response, in the order
they appear. The same response recorded again gets the same ids; every turn of a
conversation has its own key and every answer to one request its own index, so ids
stay unique within a store: a request continuing one answer never matches the
continuation of another.

A response's tool-use id is echoed by the next request. Where the client reads the
live response (the HTTP layer), an :class:`IdMap` kept for the session remembers
``real -> stable`` and the next request is rewritten with it before it is keyed
(:meth:`IdMap.rewrite`: a string that is an id, and an id standing as a whole token
inside a longer string, such as a tool result that names its call), so the recorded
request carries the stable id the replayed response will hand out.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from replaygate import exact_json
from replaygate.sanitize.walk import map_fields, map_strings

VOLATILE_PREFIXES: tuple[str, ...] = (
    "msg_",
    "toolu_",
    "tooluse_",
    "srvtoolu_",
    "mcptoolu_",
    "container_",
    "msgbatch_",
    "req_",
    "chatcmpl-",
    "call_",
    "resp_",
    "fc_",
    "rs_",
    "batch_",
    "file-",
    "gen-",
)
"""Id prefixes of the Anthropic and OpenAI APIs whose values change on every call
(Anthropic's ``mcptoolu_`` of an MCP server's tool call, ``container_`` of a code
execution container and ``msgbatch_`` of a message batch, OpenAI's ``batch_`` of a batch
and ``file-`` of a file among them, Bedrock Converse's ``tooluse_`` of a tool call), and of
OpenRouter's answers
(``gen-<time>-<20 letters and digits>``)."""

VOLATILE_FIELDS = frozenset({"responseId"})
"""Fields whose whole value is a provider-made id, whatever it looks like (Gemini's
``responseId`` has no prefix): it becomes ``rg_<fixture key>_<n>``."""

ID_FIELDS = frozenset({"toolUseId"})
"""Fields in camelCase that hold an id (Bedrock Converse's ``toolUse.toolUseId``, echoed by
the next request's ``toolResult.toolUseId``): volatile with a volatile prefix, as ``*_id``."""

_PREFIX = "|".join(re.escape(p) for p in VOLATILE_PREFIXES)
_VOLATILE = re.compile(rf"({_PREFIX})[A-Za-z0-9_\-]+")
STABLE_ID = re.compile(rf"({_PREFIX})?rg_[0-9a-f]{{6,64}}(?:_s[0-9]+)?_[0-9]+")
"""The form of a stable id: never rewritten again."""

_TOKEN = re.compile(r"[A-Za-z0-9_\-]+")
"""A run of the characters of an id: an id inside a longer text is one whole such run."""
_SHORTEST_BARE_TOKEN = 8
"""The shortest id without a known prefix (Gemini's ``responseId``) that is replaced
inside a longer text: a shorter one could be an ordinary word or number there."""

REQUEST_ID_HEADERS = frozenset({"request-id", "x-request-id", "x-amzn-requestid"})
"""Response headers holding the request's id: made stable when volatile."""

WHOLE_ID_HEADERS = frozenset({"x-amzn-requestid"})
"""Request id headers whose whole value is a provider-made id, whatever it looks like
(Amazon Bedrock's is a UUID): it becomes ``rg_<fixture key>_<n>``."""

ACCOUNT_HEADERS: Mapping[str, str] = {
    "anthropic-organization-id": "00000000-0000-4000-8000-000000000000",
    "anthropic-workspace-id": "wrkspc_rg",
}
"""Response headers naming the account a key belongs to (the anthropic SDK hands them over
as ``_workspace_id``), with the fixed value each becomes: the same in every answer to one
key, another for a teammate's or a CI job's, so a re-recording from another key changed
every fixture it touched, request unchanged, and each store kept the organization's id."""


def is_id_field(name: str) -> bool:
    """Whether a field of this name holds an id: ``id``, ``*_id``, one of :data:`ID_FIELDS`
    or a :data:`VOLATILE_FIELDS`."""
    return name == "id" or name.endswith("_id") or name in ID_FIELDS or name in VOLATILE_FIELDS


def volatile_prefix(value: str) -> str | None:
    """The prefix of a volatile id, or None (a stable id is not volatile)."""
    match = _VOLATILE.fullmatch(value)
    if match is None or STABLE_ID.fullmatch(value):
        return None
    return match.group(1)


def free_answer(key: str, responses: Sequence[Any]) -> int:
    """The first answer index whose stable ids none of ``responses``, the answers recorded
    for fixture ``key``, carries: past them, and past every answer index their ids name
    (an answer stored before the place it was sent at, when a send before it got none)."""
    text = exact_json.dumps(list(responses)).decode("utf-8")
    named = re.findall(rf"rg_{re.escape(key)}_s([0-9]+)_", text)
    return max([len(responses), *(int(index) + 1 for index in named)])


class IdMap:
    """``real -> stable`` ids seen in one session's responses (thread-safe)."""

    def __init__(self) -> None:
        self._ids: dict[str, str] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._ids)

    def get(self, real: str) -> str | None:
        """The stable id given to ``real``, if any."""
        return self._ids.get(real)

    def add(self, real: str, stable: str) -> None:
        """Remember that ``real`` was replaced by ``stable``."""
        with self._lock:
            self._ids.setdefault(real, stable)

    def snapshot(self) -> dict[str, str]:
        """A copy of the map."""
        with self._lock:
            return dict(self._ids)

    def rewrite(self, value: Any) -> Any:
        """``value`` with each id this map replaced given its stable form (:func:`replace_ids`)."""
        return replace_ids(value, self.snapshot())


def replace_ids(value: Any, ids: Mapping[str, str]) -> Any:
    """``value`` with each id of ``ids`` (``real -> stable``) given its stable form: a
    string that is the id, and the id standing as a whole token (no id character either
    side) in a longer string (copy-on-write). A string holding none of :func:`anchors` of
    the ids (a megabyte of base64, most text) is passed over in one search per anchor."""
    if not ids:
        return value
    get = ids.get
    found = anchors(ids)

    def token(match: re.Match[str]) -> str:
        text = match.group()
        stable = get(text)
        if stable is None or (len(text) < _SHORTEST_BARE_TOKEN and not volatile_prefix(text)):
            return text
        return stable

    def rewritten(text: str) -> str:
        whole = get(text)
        if whole is not None:
            return whole
        if not any(anchor in text for anchor in found):
            return text
        return _TOKEN.sub(token, text)

    return map_strings(value, rewritten)


def anchors(ids: Collection[str]) -> set[str]:
    """Texts of which every id of ``ids`` replaced inside a longer string holds one: the
    common start of the ids of each volatile prefix (``toolu_01``), and each id without
    one long enough to be replaced there (:data:`_SHORTEST_BARE_TOKEN`)."""
    by_prefix: dict[str, list[str]] = {}
    bare = set()
    for real in ids:
        prefix = volatile_prefix(real)
        if prefix is not None:
            by_prefix.setdefault(prefix, []).append(real)
        elif len(real) >= _SHORTEST_BARE_TOKEN:
            bare.add(real)
    return bare | {_common_start(group) for group in by_prefix.values()}


def _common_start(texts: list[str]) -> str:
    """The longest start ``texts`` share (that of the first and last in sorted order)."""
    first, last = min(texts), max(texts)
    size = 0
    while size < len(first) and first[size] == last[size]:
        size += 1
    return first[:size]


class IdRewriter:
    """Gives the volatile ids of one recorded response, the ``answer``-th to the request of
    fixture ``key``, their stable replacements."""

    def __init__(self, key: str, session: IdMap | None = None, answer: int = 0) -> None:
        self.key = key
        self.session = session
        self.tag = f"{key}_s{answer}" if answer else key
        """What the stable ids of this answer (the ``answer``-th to the request) carry."""
        self._local: dict[str, str] = {}
        self._counts: dict[str, int] = {}

    def stable(self, value: str, field: str | None = None) -> str:
        """The stable id of ``value`` (``value`` itself when it is not volatile); any value
        but a stable id is volatile in a :data:`VOLATILE_FIELDS` ``field`` or a
        :data:`WHOLE_ID_HEADERS` header."""
        known = self._local.get(value)
        if known is not None:
            return known
        prefix = volatile_prefix(value)
        whole = field in VOLATILE_FIELDS or field in WHOLE_ID_HEADERS
        if prefix is None and whole and value and not STABLE_ID.fullmatch(value):
            prefix = ""
        if prefix is None:
            return value
        earlier = self.session.get(value) if self.session is not None else None
        if earlier is None:
            n = self._counts.get(prefix, 0) + 1
            self._counts[prefix] = n
            earlier = f"{prefix}rg_{self.tag}_{n}"
            if self.session is not None:
                self.session.add(value, earlier)
        elif earlier.startswith(own := f"{prefix}rg_{self.tag}_") and earlier[len(own) :].isdigit():
            # given by a look at this answer's start (a stream still read): counted as then
            n = int(earlier[len(own) :])
            self._counts[prefix] = max(self._counts.get(prefix, 0), n)
        self._local[value] = earlier
        return earlier

    def rewrite(self, value: Any) -> Any:
        """``value`` with the volatile ids of its id fields replaced, and then wherever else
        it names one of them as a whole token (a batch's ``results_url``, which the client
        fetches next), copy-on-write."""
        value = map_fields(
            value,
            lambda text, field: self.stable(text, field) if field and is_id_field(field) else text,
        )
        return replace_ids(value, self._local)

    def headers(self, headers: dict[str, Any]) -> dict[str, Any]:
        """Recorded response headers with the request id made stable, and the account's
        ids (:data:`ACCOUNT_HEADERS`) fixed."""
        out = dict(headers)
        for name in REQUEST_ID_HEADERS & out.keys():
            if isinstance(out[name], str):
                out[name] = self.stable(out[name], name)
        for name in ACCOUNT_HEADERS.keys() & out.keys():
            if isinstance(out[name], str):
                out[name] = ACCOUNT_HEADERS[name]
        return out
