"""The error every hygiene command raises on purpose."""

from __future__ import annotations

from replaygate.errors import ReplaygateError


class HygieneError(ReplaygateError):
    """A hygiene command cannot do what was asked: says what, where, and what to do next."""
