"""The fixture: one recorded interaction, and its on-disk JSON forms.

A fixture is ``{"key", "request", "response"}`` (the seed-000 form) or
``{"key", "request", "responses": [...]}`` when several samples of the same request
were recorded (index = sample index), plus a ``meta`` object. Every fixture
replaygate writes has a complete one (:func:`make_meta`): ``interface`` and
``interface_version`` (what the fixture is bound to), ``recorded_at``, ``source``
(``live``, ``sim``, ``hand``, ``scripted``), ``replaygate_version`` and an optional
``note``. Seed-style fixtures without ``meta`` still load; ``replaygate verify``
flags them unless told they are allowed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson

from replaygate import __version__
from replaygate.errors import FixtureFormatError, FixtureMismatchError
from replaygate.fingerprint import fixture_key

FIELDS = frozenset({"key", "request", "response", "responses", "meta"})
SOURCES = ("live", "sim", "hand", "scripted")
META_FIELDS = ("interface", "interface_version", "recorded_at", "source", "replaygate_version")
"""The ``meta`` fields every fixture written by replaygate has (``note`` is optional)."""


@dataclass(frozen=True)
class Fixture:
    """A request and what was recorded for it, one response per sample index."""

    key: str
    request: dict[str, Any]
    responses: tuple[Any, ...]
    meta: dict[str, Any] | None = None

    @staticmethod
    def create(
        request: dict[str, Any], responses: list[Any], meta: dict[str, Any] | None = None
    ) -> Fixture:
        """A fixture whose key is computed from ``request``."""
        return Fixture(fixture_key(request), request, tuple(responses), meta)

    @property
    def response(self) -> Any:
        """The response of sample 0."""
        return self.responses[0]

    def sample(self, index: int) -> Any:
        """The response recorded for sample ``index``, or None if that sample never sent it."""
        return self.responses[index] if 0 <= index < len(self.responses) else None

    @property
    def samples(self) -> int:
        """How many samples were recorded."""
        return len(self.responses)

    def with_response(self, sample: int, response: Any, meta: dict[str, Any] | None) -> Fixture:
        """A copy with ``response`` stored at ``sample``.

        Samples of a multi-step run diverge: a request first sent by sample ``i`` gets
        ``null`` for the samples ``0..i-1`` that never sent it.
        """
        responses = list(self.responses)
        responses.extend([None] * (sample + 1 - len(responses)))
        responses[sample] = response
        return Fixture(self.key, self.request, tuple(responses), meta or self.meta)

    def to_json(self) -> dict[str, Any]:
        """The stored JSON object (``response`` when there is one sample)."""
        obj: dict[str, Any] = {"key": self.key, "request": self.request}
        if len(self.responses) == 1:
            obj["response"] = self.responses[0]
        else:
            obj["responses"] = list(self.responses)
        if self.meta is not None:
            obj["meta"] = self.meta
        return obj

    def to_line(self) -> bytes:
        """One JSONL line, newline included (compact, non-ASCII kept as is).

        The request is written with its keys sorted, the form lookups compare; the
        responses and meta keep the order they were recorded in.
        """
        obj = self.to_json()
        obj["request"] = orjson.Fragment(orjson.dumps(self.request, option=orjson.OPT_SORT_KEYS))
        return orjson.dumps(obj) + b"\n"

    def to_pretty(self) -> bytes:
        """The review-friendly one-file form: sorted keys, 2-space indent, trailing newline."""
        return (
            orjson.dumps(self.to_json(), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"
        )


def from_json(obj: Any, file: str, line: int) -> Fixture:
    """Validate a parsed JSON value as a fixture; :class:`FixtureFormatError` says why not."""

    def fail(reason: str) -> FixtureFormatError:
        return FixtureFormatError(file, line, reason)

    if not isinstance(obj, Mapping):
        raise fail(f"expected a JSON object, got {type(obj).__name__}")
    unknown = sorted(set(obj) - FIELDS)
    if unknown:
        raise fail(f"unknown field(s) {', '.join(map(repr, unknown))}")
    key = obj.get("key")
    if not isinstance(key, str) or not key:
        raise fail("field 'key' is missing or not a non-empty string")
    request = obj.get("request")
    if not isinstance(request, dict):
        raise fail("field 'request' is missing or not an object")
    if ("response" in obj) == ("responses" in obj):
        raise fail("exactly one of 'response' and 'responses' is required")
    if "responses" in obj:
        responses = obj["responses"]
        if not isinstance(responses, list) or not responses:
            raise fail("field 'responses' must be a non-empty list (one item per sample)")
    else:
        responses = [obj["response"]]
    meta = obj.get("meta")
    if meta is not None and not isinstance(meta, dict):
        raise fail("field 'meta' must be an object")
    return Fixture(key, request, tuple(responses), meta)


def now_iso() -> str:
    """The current UTC time, second precision, ISO 8601."""
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def check_source(source: str) -> None:
    """Refuse a ``meta.source`` that is not one of :data:`SOURCES`."""
    if source not in SOURCES:
        raise ValueError(f"source must be one of {', '.join(SOURCES)}, got {source!r}")


def make_meta(
    interface: str,
    interface_version: str,
    source: str,
    note: str | None = None,
    *,
    recorded_at: str | None = None,
) -> dict[str, Any]:
    """The ``meta`` of a fixture written now (``source`` is one of :data:`SOURCES`).

    Hand-written fixtures take ``source="hand"``::

        Fixture.create(request, [response], make_meta("anthropic.messages", "2023-06-01", "hand"))
    """
    check_source(source)
    meta: dict[str, Any] = {
        "interface": interface,
        "interface_version": interface_version,
        "recorded_at": recorded_at or now_iso(),
        "source": source,
        "replaygate_version": __version__,
    }
    if note:
        meta["note"] = note
    return meta


def meta_problems(meta: Mapping[str, Any]) -> list[str]:
    """What is wrong with a ``meta`` object, one sentence each (empty when it is complete)."""
    problems = []
    for name in META_FIELDS:
        value = meta.get(name)
        if value is None:
            problems.append(f"meta.{name} is missing")
        elif not isinstance(value, str) or not value:
            problems.append(f"meta.{name} must be a non-empty string, got {value!r}")
    note = meta.get("note")
    if note is not None and not isinstance(note, str):
        problems.append(f"meta.note must be a string, got {note!r}")
    source = meta.get("source")
    if isinstance(source, str) and source and source not in SOURCES:
        problems.append(f"meta.source {source!r} is not one of {', '.join(SOURCES)}")
    recorded_at = meta.get("recorded_at")
    if isinstance(recorded_at, str) and recorded_at:
        try:
            datetime.fromisoformat(recorded_at)
        except ValueError:
            problems.append(f"meta.recorded_at {recorded_at!r} is not an ISO 8601 time")
    return problems


def interface_folder(meta: Mapping[str, Any] | None) -> str | None:
    """The folder of the folder layout a fixture belongs in: ``<interface>@<version>``.

    ``<interface>`` alone when the meta has no version; None without an interface.
    """
    interface = (meta or {}).get("interface")
    if not isinstance(interface, str) or not interface:
        return None
    version = (meta or {}).get("interface_version")
    return f"{interface}@{version}" if isinstance(version, str) and version else interface


class InterfaceVersionError(FixtureMismatchError):
    """A fixture was recorded for another interface or interface version than the one asked for.

    Replaying it would hand out a response in a shape the code may no longer get;
    re-record it for the version in use, or replay with the version it was made for.
    """


def version_mismatch(
    meta: Mapping[str, Any] | None, interface: str, version: str
) -> tuple[str, str] | None:
    """``(recorded interface, recorded version)`` when ``meta`` names another one, else None.

    A fixture without ``meta`` or without those fields is not checked.
    """
    if not meta:
        return None
    recorded = meta.get("interface")
    recorded_version = meta.get("interface_version")
    if not isinstance(recorded, str) or not isinstance(recorded_version, str):
        return None
    if recorded == interface and recorded_version == version:
        return None
    return recorded, recorded_version
