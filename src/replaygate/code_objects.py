"""The code a frame or a function runs, with the code of the functions defined in it."""

from __future__ import annotations

from types import CodeType


def code_within(code: CodeType) -> frozenset[CodeType]:
    """``code`` and the code of the functions defined in it, at any depth (a coroutine run
    with ``asyncio.run``, a helper closure)."""
    found: set[CodeType] = set()
    stack = [code]
    while stack:
        current = stack.pop()
        found.add(current)
        stack.extend(c for c in current.co_consts if isinstance(c, CodeType))
    return frozenset(found)
