"""Where text rules changed a text: the stretches of the text before and after that are
the same, and those between them that the rules changed (:class:`Edited`).

Text rules replace what they match and leave the rest, so what they changed is known as
they change it: each replacement is recorded against the stretches the text still shares
with the text the rules started from, and whatever lies between two shared stretches is a
change. Each rule costs one pass over its matches and the shared stretches (a text of
megabytes with a change every line is read in time that grows with its length), and a
change is cut exactly where the rules replaced text, never wider.
"""

from __future__ import annotations

import re
from collections.abc import Callable

Stretch = tuple[int, int, int, int, bool]
"""``(start, end in the text before, start, end in the text after, whether the same)``."""


class Plain:
    """A text as text rules change it, where nothing needs to know what they changed."""

    def __init__(self, text: str) -> None:
        self.text = text

    def sub(self, pattern: re.Pattern[str], replace: Callable[[re.Match[str]], str]) -> None:
        """``pattern.sub(replace, ...)`` of the text."""
        self.text = pattern.sub(replace, self.text)


class Edited:
    """A text as text rules change it (:meth:`sub`), and its stretches against the text
    the rules started from (:meth:`stretches`)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._before = len(text)
        self._shared: list[tuple[int, int, int]] = [(0, 0, len(text))] if text else []
        """``(start in the text before, start in the text now, length)`` of each stretch the
        two still share, in order."""

    def sub(self, pattern: re.Pattern[str], replace: Callable[[re.Match[str]], str]) -> None:
        """Replace each match of ``pattern`` with what ``replace`` gives for it, as
        ``pattern.sub`` does, keeping the shared stretches in step."""
        text = self.text
        edits = []
        for match in pattern.finditer(text):
            new = replace(match)
            if new != match.group():
                edits.append((match.start(), match.end(), new))
        if not edits:
            return
        parts: list[str] = []
        at = 0
        for start, end, new in edits:
            parts += (text[at:start], new)
            at = end
        parts.append(text[at:])
        self.text = "".join(parts)
        self._shared = _kept(self._shared, edits)

    def stretches(self) -> list[Stretch]:
        """The stretches of the text before and the text now, in order: those they share and,
        between them, those the rules changed."""
        found: list[Stretch] = []
        i = j = 0
        for start, now, length in self._shared:
            if (i, j) != (start, now):
                found.append((i, start, j, now, False))
            i, j = start + length, now + length
            found.append((start, i, now, j, True))
        if (i, j) != (self._before, len(self.text)):
            found.append((i, self._before, j, len(self.text), False))
        return found


def _kept(
    shared: list[tuple[int, int, int]], edits: list[tuple[int, int, str]]
) -> list[tuple[int, int, int]]:
    """What of the ``shared`` stretches (by their place in the text) the ``edits``
    (``(start, end, new text)``, in order, apart) leave, placed in the text they make."""
    kept = []
    shift = 0  # how much longer the edits before a place made the text
    k = 0
    for start, now, length in shared:
        end = now + length
        at = now  # the stretch's rest, from here, is still to place
        while k < len(edits):
            edit_start, edit_end, new = edits[k]
            if edit_start >= end:
                break  # an edit of a later stretch (or of none)
            if edit_end > at or edit_start > at:  # it cuts into what is left of the stretch
                if edit_start > at:
                    kept.append((start + at - now, at + shift, edit_start - at))
                if edit_end > end:
                    at = end  # it runs on into the stretches after this one
                    break
                at = max(at, edit_end)
            shift += len(new) - (edit_end - edit_start)
            k += 1
        if at < end:
            kept.append((start + at - now, at + shift, end - at))
    return kept
