"""The Messages API's prompt cache, as far as the simulator speaks of it.

The simulator keeps no cache: what it would read from one hangs on the order requests
arrive in, and a seeded recording must not. So it answers as the API answers a request
that caches nothing, with the cache's counts in its usage at 0 (code summing
``usage.cache_read_input_tokens`` gets a number, as live, not None), and refuses what
the API refuses of ``cache_control``: more than :data:`MAX_BREAKPOINTS` blocks marked, a
mark that is no object of the type ``ephemeral``, a ``ttl`` other than those of
:data:`TTLS`, a mark of a longer ``ttl`` after one of a shorter.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from replaygate.sim.validation import OWN_WORDING, Invalid

MAX_BREAKPOINTS = 4
"""The most blocks of one request the API takes ``cache_control`` on."""
TTLS = ("1h", "5m")
"""The lifetimes a ``cache_control`` takes (``5m`` when it names none), longest first: the
API takes the marks of a request, in the order it reads them (tools, system, messages),
only longest first."""


def uncached_usage(usage: Mapping[str, Any]) -> dict[str, Any]:
    """``usage`` (input and output tokens) with the fields the API adds to it, those of a
    request that read nothing from the cache and wrote nothing to it."""
    return {
        "input_tokens": usage["input_tokens"],
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
        "output_tokens": usage["output_tokens"],
        "service_tier": "standard",
    }


def _marked(body: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    """The blocks of ``body`` that may carry ``cache_control``, each with its path, in the
    order the API reads them: its tools, its system blocks, its messages' content blocks
    and the blocks of a tool result's content."""
    for name in ("tools", "system"):
        items = body.get(name)
        if isinstance(items, list):
            yield from ((f"{name}.{i}", item) for i, item in enumerate(items))
    messages = body.get("messages")
    for m, message in enumerate(messages if isinstance(messages, list) else []):
        content = message.get("content") if isinstance(message, Mapping) else None
        for b, block in enumerate(content if isinstance(content, list) else []):
            yield f"messages.{m}.content.{b}", block
            inner = block.get("content") if isinstance(block, Mapping) else None
            if isinstance(inner, list):
                yield from (
                    (f"messages.{m}.content.{b}.content.{i}", x) for i, x in enumerate(inner)
                )


def _marks(body: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """Each block's ``cache_control`` of ``body``, with the block's path."""
    return [
        (path, block["cache_control"])
        for path, block in _marked(body)
        if isinstance(block, Mapping) and block.get("cache_control") is not None
    ]


def cache_control_refused(body: Mapping[str, Any]) -> Invalid | None:
    """The refusal of ``body``'s ``cache_control`` marks, or None: the API's of more than
    :data:`MAX_BREAKPOINTS` blocks marked; the simulator's own (the API's wording is not
    known here, and a recording keeps none) of a mark :func:`_mark_refused` names (a
    block's, or the request's own ``cache_control``), or of a ``1h`` mark after a ``5m``
    one, either of which a recording from it would store where the live API refuses the
    request."""
    marks = _marks(body)
    if len(marks) > MAX_BREAKPOINTS:
        return Invalid(
            f"A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. "
            f"Found {len(marks)}."
        )
    automatic = body.get("cache_control")  # the request's own mark (automatic caching)
    if automatic is not None and (refused := _mark_refused("cache_control", automatic)):
        return refused
    shortest: tuple[str, int] | None = None
    for path, mark in marks:
        if refused := _mark_refused(f"{path}.cache_control", mark):
            return refused
        ttl = _ttl(mark)
        rank = TTLS.index(ttl)
        if shortest is not None and rank < shortest[1]:
            return Invalid(
                f"{path}.cache_control.ttl: {ttl!r} comes after the shorter "
                f"{TTLS[shortest[1]]!r} of {shortest[0]}; the Messages API takes the marks "
                f"of a longer ttl only before those of a shorter (tools, then system, then "
                f"messages) {OWN_WORDING}",
                own=True,
            )
        if shortest is None or rank > shortest[1]:
            shortest = path, rank
    return None


def _ttl(mark: Any) -> Any:
    """The ``ttl`` of a ``cache_control`` mark: ``5m`` when it names none."""
    return mark.get("ttl", TTLS[-1])


def _mark_refused(field: str, mark: Any) -> Invalid | None:
    """The simulator's refusal of the ``cache_control`` ``mark`` at ``field``, or None: one
    that is no object (``"ephemeral"`` given as a text), of a ``type`` other than
    ``ephemeral``, or of a ``ttl`` not in :data:`TTLS`."""
    if not isinstance(mark, Mapping):
        return Invalid(
            f"{field}: {mark!r} is not an object; the Messages API takes "
            f'{{"type": "ephemeral"}} (and an optional ttl) {OWN_WORDING}',
            own=True,
        )
    if mark.get("type") != "ephemeral":
        return Invalid(
            f"{field}.type: {mark.get('type')!r} is not a cache_control type the Messages API "
            f"takes ('ephemeral') {OWN_WORDING}",
            own=True,
        )
    ttl = _ttl(mark)
    if ttl not in TTLS:
        return Invalid(
            f"{field}.ttl: {ttl!r} is not a lifetime the Messages API takes "
            f"({' or '.join(map(repr, TTLS))}) {OWN_WORDING}",
            own=True,
        )
    return None
