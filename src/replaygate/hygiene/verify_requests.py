"""The requests of one store, as ``replaygate verify`` needs them across its files.

For each request (16 bytes naming it: :func:`.verify_checks.request_identity`) it keeps
where it was first recorded (the file by number, the line, where the line starts), to
compare the responses of the same request recorded again with those; and, for the sample
lines, which file last recorded it with a matching key and how its responses are read.
About 140 bytes a request in all.
"""

from __future__ import annotations

import struct

_ENTRY = struct.Struct("<IQQIB")
_NOWHERE = 0xFFFFFFFF


class StoreRequests:
    """What one store recorded for each request, in the order its lines are read."""

    def __init__(self) -> None:
        self._files: list[str] = []
        self._numbers: dict[str, int] = {}
        self._entries: dict[bytes, bytes] = {}
        self.repeated = False
        """A request was recorded again with the same responses on its own line."""
        self.conflicts = 0
        """How many times a request was recorded again with other responses on its own line."""
        self.empty: dict[bytes, list[int]] = {}
        """The lines of the file being read whose fixture holds no response (every one
        ``null``), by request, until a sample line with a response fills the last one."""

    def number(self, file: str) -> int:
        """The number ``file`` goes by in :meth:`add` (one more file is numbered once)."""
        number = self._numbers.get(file)
        if number is None:
            number = self._numbers[file] = len(self._files)
            self._files.append(file)
        return number

    def add(
        self,
        request: bytes,
        number: int,
        line: int,
        offset: int,
        takes_samples: bool,
        reader: int,
    ) -> tuple[str, int, int] | None:
        """Note a fixture of file ``number`` (:meth:`number`) at ``line``, starting at byte
        ``offset``; where ``request`` was first recorded (its file, line and offset) when
        it was recorded before.

        ``takes_samples``: its key starts its digest, so the sample lines below it in
        its file apply to it; ``reader`` says how its responses are read.
        """
        here = number if takes_samples else _NOWHERE
        entry = self._entries.get(request)
        if entry is None:
            self._entries[request] = _ENTRY.pack(number, line, offset, here, reader)
            return None
        at, at_line, at_offset, _, _ = _ENTRY.unpack(entry)
        if takes_samples:
            self._entries[request] = _ENTRY.pack(at, at_line, at_offset, here, reader)
        return self._files[at], at_line, at_offset

    def repeat(self, same: bool) -> None:
        """A request recorded again (:meth:`add`) holds the same responses as where it was
        first recorded, or other ones."""
        if same:
            self.repeated = True
        else:
            self.conflicts += 1

    def filled(self, request: bytes) -> None:
        """A sample line with a response applied to the last fixture of ``request``."""
        lines = self.empty.get(request)
        if lines:
            lines.pop()

    def reader_in(self, request: bytes, file: str) -> int | None:
        """How the fixture a sample line of ``file`` applies to is read; None if there is none."""
        entry = self._entries.get(request)
        if entry is None:
            return None
        _, _, _, last, reader = _ENTRY.unpack(entry)
        return reader if last == self._numbers.get(file) else None
