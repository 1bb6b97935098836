"""The requests of one store, as ``replaygate verify`` needs them across its files.

For each request (16 bytes naming it: :func:`.verify_checks.request_identity`) it keeps
a digest of the responses first recorded for it and where (the file by number, the
line), to find the same request recorded again with other responses; and, for the
sample lines, which file last recorded it with a matching key and how its responses are
read. About 150 bytes a request in all.
"""

from __future__ import annotations

import struct

_ENTRY = struct.Struct("<16sIQIB")
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
        responses: bytes,
        number: int,
        line: int,
        takes_samples: bool,
        reader: int,
    ) -> tuple[str, int] | None:
        """Note a fixture of file ``number`` (:meth:`number`); where ``request`` was first
        recorded when that was with other responses.

        ``takes_samples``: its key starts its digest, so the sample lines below it in
        its file apply to it; ``reader`` says how its responses are read.
        """
        here = number if takes_samples else _NOWHERE
        entry = self._entries.get(request)
        if entry is None:
            self._entries[request] = _ENTRY.pack(responses, number, line, here, reader)
            return None
        first, at, at_line, _, _ = _ENTRY.unpack(entry)
        if takes_samples:
            self._entries[request] = _ENTRY.pack(first, at, at_line, here, reader)
        if first == responses:
            self.repeated = True
            return None
        self.conflicts += 1
        return self._files[at], at_line

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
