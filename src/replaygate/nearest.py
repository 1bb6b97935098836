"""Finding the recorded request nearest to one that missed, without loading every fixture.

Each indexed request is summarized by two small features, computed once while the
store is scanned: a hash of everything but the conversation (model, system, tools,
settings) and the hashes of its messages in order. The nearest request is the one
with the fewest differing parts (the settings, each message position), then the
longest common prefix of messages. Ranking a 100,000-fixture store is a loop over
integers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple, TypeVar

import orjson

from replaygate.fingerprint import MATCH_OPTIONS, parsed_match_form

T = TypeVar("T")
_OPTS = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS


class Features(NamedTuple):
    """The summary of one request used for ranking."""

    head: int
    messages: tuple[int, ...]


def _conversation_holder(request: Mapping[str, Any]) -> Mapping[str, Any]:
    """The object that holds ``messages``: the request, or the JSON body of an HTTP request."""
    body = request.get("body")
    return body if isinstance(body, Mapping) and "messages" in body else request


def _hash(value: Any) -> int:
    try:
        return hash(orjson.dumps(value, option=_OPTS))
    except TypeError:
        return hash(repr(value))


def _split_head(holder: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The holder's fields sorted before and after ``messages``."""
    before: dict[str, Any] = {}
    after: dict[str, Any] = {}
    for k, v in holder.items():
        if k != "messages":
            (before if str(k) < "messages" else after)[k] = v
    return before, after


def features(request: Mapping[str, Any]) -> Features:
    """The ranking features of ``request``."""
    holder = _conversation_holder(request)
    messages = holder.get("messages")
    items = messages if isinstance(messages, list) else []
    if holder is not request:
        head = {k: v for k, v in holder.items() if k != "messages"}
        head["__envelope__"] = {k: v for k, v in request.items() if k != "body"}
        return Features(_hash(head), tuple(_hash(m) for m in items))
    before, after = _split_head(holder)
    try:
        head_hash = hash(orjson.dumps(before, option=_OPTS) + orjson.dumps(after, option=_OPTS))
    except TypeError:
        head_hash = hash(repr((before, after)))
    return Features(head_hash, tuple(_hash(m) for m in items))


def summarize(request: dict[str, Any]) -> tuple[bytes, Features]:
    """The match form and the ranking features of a request parsed from JSON, in one pass.

    The match form is :func:`~replaygate.fingerprint.parsed_match_form` of ``request``,
    assembled from the serialized messages the features hash anyway.
    """
    messages = request.get("messages")
    body = request.get("body")
    if not isinstance(messages, list) or (isinstance(body, Mapping) and "messages" in body):
        return parsed_match_form(request), features(request)
    dumps, options = orjson.dumps, MATCH_OPTIONS
    forms = [dumps(m, option=options) for m in messages]
    head_before = dumps({k: v for k, v in request.items() if k < "messages"}, option=options)
    head_after = dumps({k: v for k, v in request.items() if k > "messages"}, option=options)
    form = b"".join(
        (
            head_before[:-1],
            b',"messages":[' if len(head_before) > 2 else b'"messages":[',
            b",".join(forms),
            b"]," + head_after[1:] if len(head_after) > 2 else b"]}",
        )
    )
    return form, Features(hash(head_before + head_after), tuple(map(hash, forms)))


def rank_key(target: Features, candidate: Features) -> tuple[int, int, int]:
    """Smaller is nearer: how many parts differ, then fewer shared leading messages, then order.

    The parts are the settings (everything but the conversation, as one) and each
    message position, a message missing on one side counting as a difference.
    """
    a, b = target.messages, candidate.messages
    same = 0
    prefix = -1
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x == y:
            same += 1
        elif prefix < 0:
            prefix = i
    if prefix < 0:
        prefix = min(len(a), len(b))
    differing = (candidate.head != target.head) + max(len(a), len(b)) - same
    return (differing, -prefix, abs(len(a) - len(b)))


def nearest(target: Features, candidates: Iterable[tuple[T, Features]]) -> T | None:
    """The candidate nearest to ``target`` (first one on ties), or None when there is none."""
    best: T | None = None
    best_key: tuple[int, int, int] | None = None
    for item, feats in candidates:
        key = rank_key(target, feats)
        if best_key is None or key < best_key:
            best, best_key = item, key
    return best
