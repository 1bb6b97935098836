"""Where a text rule changed a text: the stretches of the text before and after that are
the same, and those between them that the rules changed (:func:`stretches`).

Text rules replace what they match and leave the rest, so the texts are walked side by
side: a stretch the two share is passed over whole, and at a difference the change ends
where :data:`SYNC` characters of the text after it are met again in the text before it.
Whatever is found, the stretches told the same are the same and join to both texts: only
how finely a change is cut depends on it.
"""

from __future__ import annotations

SYNC = 3
"""Characters in a row of the text after a change, met again in the text before it, that
end the change."""
_REACH = 4096
"""Characters of a change looked through for its end; a longer one runs to the end of the
stretch the texts do not share at their start and end."""
_STEP = 4096


def _same(a: str, i: int, b: str, j: int, most: int) -> int:
    """How many characters from ``a[i]`` and ``b[j]`` on are the same (at most ``most``)."""
    n, step = 0, _STEP
    while step:
        if n + step <= most and a[i + n : i + n + step] == b[j + n : j + n + step]:
            n += step
        else:
            step //= 2
    return n


def _shared_end(a: str, b: str, most: int) -> int:
    """How many characters ``a`` and ``b`` end with alike (at most ``most``)."""
    return _same(a[::-1], 0, b[::-1], 0, most)


def stretches(before: str, after: str) -> list[tuple[int, int, int, int, bool]]:
    """``(start, end in before, start, end in after, whether the same)`` of each stretch of
    the two texts, in order: those they share and those a rule changed."""
    n, m = len(before), len(after)
    head = _same(before, 0, after, 0, min(n, m))
    tail = _shared_end(before, after, min(n, m) - head)
    last_i, last_j = n - tail, m - tail
    found = [(0, head, 0, head, True)] if head else []
    i = j = head
    while i < last_i or j < last_j:
        same = _same(before, i, after, j, min(last_i - i, last_j - j))
        if same:
            found.append((i, i + same, j, j + same, True))
            i, j = i + same, j + same
            continue
        end_i, end_j = last_i, last_j
        for at in range(j, min(last_j - SYNC + 1, j + _REACH)):
            met = before.find(after[at : at + SYNC], i, last_i)
            if met >= 0:
                end_i, end_j = met, at
                break
        found.append((i, end_i, j, end_j, False))
        i, j = end_i, end_j
    if tail:
        found.append((last_i, n, last_j, m, True))
    return found
