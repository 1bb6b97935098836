"""The duplicate check of ``replaygate verify``: a request recorded twice with different responses.

For each request of a store it keeps where it was first recorded and a digest of its
responses: 16 bytes of the request's digest as the key, the responses' 16-byte digest,
the file (by number) and the line, about 150 bytes a fixture in all.
"""

from __future__ import annotations

import struct

_FIRST = struct.Struct("<16sIQ")


class FirstSeen:
    """Where each request of one store was first recorded, and what its responses were."""

    def __init__(self) -> None:
        self._files: list[str] = []
        self._numbers: dict[str, int] = {}
        self._first: dict[bytes, bytes] = {}

    def conflict(
        self, request: bytes, responses: bytes, file: str, line: int
    ) -> tuple[str, int] | None:
        """Where ``request`` was first recorded, when that was with other responses; else None."""
        number = self._numbers.get(file)
        if number is None:
            number = self._numbers[file] = len(self._files)
            self._files.append(file)
        first = self._first.setdefault(request, _FIRST.pack(responses, number, line))
        if first[:16] == responses:
            return None
        _, at, at_line = _FIRST.unpack(first)
        return self._files[at], at_line
