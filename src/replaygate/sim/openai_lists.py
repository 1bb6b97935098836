"""A page of one of OpenAI's lists, as its list routes give it: a conversation's items,
the batches.

``limit`` (1 to 100, default 20, or the route's own range and default: the files') and
``after`` (the id the page starts after) page it;
a route that takes an ``order`` (``asc`` or ``desc``, default ``desc``: newest first) is
given it, one that does not lists newest first.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from replaygate.digits import integer
from replaygate.sim.bounded import beside
from replaygate.sim.replies import openai_error

Answer = tuple[int, dict[str, Any]]
"""An HTTP status and its JSON body."""


def openai_page(
    items: Sequence[dict[str, Any]],
    query: Mapping[str, list[str]],
    *,
    ordered: bool,
    most: int = 100,
    default: int = 20,
    place: Callable[[str], int | None] | None = None,
) -> Answer:
    """The page of ``items`` (oldest first) the parsed ``query`` asks for, or the API's 400
    for a ``limit`` (1 to ``most``, ``default`` when not given) or, where the route is
    ``ordered``, an ``order`` it does not take. ``place`` places an item by its id among
    those deleted too (:meth:`~replaygate.sim.bounded.Bounded.place`), so that ``after``
    naming one deleted pages on from it."""
    order = (query.get("order") or ["desc"])[-1] if ordered else "desc"
    if order not in ("asc", "desc"):
        message = "Invalid value for 'order': expected 'asc' or 'desc'."
        return 400, openai_error(message, param="order")
    try:
        limit = integer((query.get("limit") or [str(default)])[-1])
    except ValueError:
        return 400, openai_error("Invalid type for 'limit': expected an integer.", param="limit")
    if not 1 <= limit <= most:
        message = f"Invalid 'limit': expected a value from 1 to {most}."
        return 400, openai_error(message, param="limit")
    listed = list(items) if order == "asc" else list(reversed(items))
    after = (query.get("after") or [""])[-1]
    if after and place is not None:
        listed = beside(listed, place, after, newer=order == "asc")
    elif after:
        ids = [item.get("id") for item in listed]
        listed = listed[ids.index(after) + 1 :] if after in ids else []
    return 200, list_body(listed[:limit], has_more=len(listed) > limit)


def list_body(data: list[dict[str, Any]], *, has_more: bool) -> dict[str, Any]:
    """OpenAI's list object holding ``data``."""
    return {
        "object": "list",
        "data": data,
        "first_id": data[0]["id"] if data else None,
        "last_id": data[-1]["id"] if data else None,
        "has_more": has_more,
    }
