"""A page of one of Anthropic's lists (the Message Batches, the Files API's beta list), as
its list routes give it: ``limit`` (1 to 1000, default 20), newest first, paged by
``after_id`` (the older ones after it) or ``before_id`` (the newer ones just before it), a
cursor naming an item deleted since still paging from its place (:func:`bounded.beside`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from replaygate.digits import integer
from replaygate.sim.bounded import Item, beside
from replaygate.sim.validation import Invalid


def anthropic_page(
    newest: Sequence[Item], place: Callable[[str], int | None], query: Mapping[str, list[str]]
) -> tuple[list[Item], bool] | Invalid:
    """The page of ``newest`` the parsed ``query`` asks for and whether more follow it, or
    the API's 400 for a ``limit`` it does not take; ``place`` places an id in the list."""
    try:
        limit = integer((query.get("limit") or ["20"])[-1])
    except ValueError:
        return Invalid("limit: Input should be a valid integer")
    if not 1 <= limit <= 1000:
        return Invalid("limit: Input should be between 1 and 1000")
    after, before = (query.get("after_id") or [""])[-1], (query.get("before_id") or [""])[-1]
    if before:  # the page just before it: the newer ones
        newer = beside(newest, place, before, newer=True)
        return newer[-limit:], len(newer) > limit
    older = beside(newest, place, after, newer=False) if after else list(newest)
    return older[:limit], len(older) > limit


def page_body(data: list[Any], *, has_more: bool) -> dict[str, Any]:
    """The list object holding ``data`` (each an item with its ``id``)."""
    return {
        "data": data,
        "has_more": has_more,
        "first_id": data[0]["id"] if data else None,
        "last_id": data[-1]["id"] if data else None,
    }
