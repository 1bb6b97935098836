"""The sanitize pipeline: one :class:`Sanitizer` for every record path.

Responses go through, in order: trim, volatile ids, times, usage, text rules (user
rules, then personal data). Requests go through the text rules only (and, at the
HTTP layer, the session's id map), and replay runs the same request-side steps
before fingerprinting, so a redacted fixture matches the live-shaped request.

Two shapes are handled: the engine's wire request and response dicts, and the HTTP
layer's request envelope and recorded response (plain body or server-sent events; a
Gemini stream sent as one JSON array is read as its chunks, as events are).
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from replaygate import exact_json
from replaygate.interfaces import array_stream
from replaygate.sanitize.config import (
    SECTION,
    SanitizeConfig,
    SanitizeConfigError,
    load_config,
    store_config,
)
from replaygate.sanitize.encoded import form_values, is_form, path_parts
from replaygate.sanitize.ids import IdMap, IdRewriter
from replaygate.sanitize.pii import TextRules
from replaygate.sanitize.protocol import rewritten_word, rule_named
from replaygate.sanitize.secret_entropy import HELD_ENCODED_NAMES, encoded_field
from replaygate.sanitize.secret_held import held_json
from replaygate.sanitize.stream import apply_in_place, event_data, redact_fragments
from replaygate.sanitize.times import fix_times
from replaygate.sanitize.trim import dropped_fields, trim_event, trim_object
from replaygate.sanitize.usage import normalize_usage
from replaygate.sanitize.walk import map_strings, map_text

_UNPARSED = object()


def answer_data(name: str, siblings: Mapping[str, Any], holder: str, outer: str) -> bool:
    """Whether the string under ``name`` of an answer's object (under the field ``holder``
    of an object under ``outer``) is encoded data the text rules leave as it is: an
    embedding or an image (:data:`HELD_ENCODED_NAMES`), or what
    :func:`~.secret_entropy.encoded_field` names (an image's or audio's ``data``, the
    ``result`` of an image generation call, a thinking block's ``signature``,
    ``encrypted_content``...). It holds no words, and a rule matching a run of its
    characters would leave it no longer decodable, or a signature the API refuses."""
    return name in HELD_ENCODED_NAMES or encoded_field(name, siblings, holder, outer)


class Sanitizer:
    """Applies a :class:`SanitizeConfig` to requests and responses (pure, thread-safe)."""

    def __init__(self, config: SanitizeConfig | None = None) -> None:
        self.config = config if config is not None else SanitizeConfig()
        self.text = TextRules(self.config.personal_data, self.config.rules)
        self.request_side = bool(self.text)
        """Whether requests are changed at all (else replay skips the request pass)."""
        self._dropped = {
            interface: dropped_fields(interface, keep)
            for interface, keep in self.config.trim.items()
        }

    @classmethod
    def from_pyproject(cls, pyproject: str | os.PathLike[str] | None = None) -> Sanitizer:
        """The sanitizer configured in ``pyproject`` (default: the nearest from the current folder).

        A store's sanitizer is :func:`sanitizer_for`, read from the project that owns it.
        """
        return cls(load_config(pyproject))

    def __repr__(self) -> str:
        return f"Sanitizer({self.config!r})"

    def without_each(self) -> Iterator[tuple[str, Sanitizer]]:
        """For each rule and personal data class that rewrites requests, when there are two
        or more of them: how it is named, with the file and line it was read from
        (``pyproject.toml:14: tool.replaygate.sanitize.rules[1]: the rule (literal 'RAG')``),
        and this sanitizer without it. A replay miss of a request recorded before one of
        them was added finds its fixture by it."""
        config = self.config
        if len(config.rules) + len(config.personal_data) < 2:
            return
        fewer: list[tuple[str, str, dict[str, Any]]] = [
            (f"{SECTION}.rules[{i}]", rule_named(rule), {"rules": _but(config.rules, i)})
            for i, rule in enumerate(config.rules)
        ]
        fewer += [
            (
                f"{SECTION}.personal_data",
                f"the personal data class {name!r}",
                {"personal_data": _but(config.personal_data, i)},
            )
            for i, name in enumerate(config.personal_data)
        ]
        for key, named, change in fewer:
            try:
                other = Sanitizer(dataclasses.replace(config, **change))
            except SanitizeConfigError:  # the rules left would be refused: no such past
                continue
            yield str(config.error(key, named)), other

    # -- engine shapes -------------------------------------------------------------------

    def request(self, request: Any, ids: IdMap | None = None) -> Any:
        """The form of ``request`` that is stored and keyed (``request`` itself if unchanged)."""
        if ids is not None and len(ids):
            request = ids.rewrite(request)
        if self.text:
            request = map_strings(request, self.text.apply)
        return request

    def response(
        self,
        response: Any,
        *,
        key: str,
        interface: str,
        ids: IdMap | None = None,
        answer: int = 0,
    ) -> Any:
        """The stored form of a wire response recorded as the ``answer``-th (a sample index)
        to the request of ``key``."""
        rewriter = IdRewriter(key, ids, answer)
        return self._json(response, self._dropped.get(interface), rewriter)

    def _json(
        self,
        value: Any,
        dropped: frozenset[str] | None,
        rewriter: IdRewriter,
        *,
        text: bool = True,
    ) -> Any:
        config = self.config
        if dropped:
            value = trim_object(value, dropped)
        if config.ids:
            value = rewriter.rewrite(value)
        if config.times:
            value = fix_times(value)
        if config.normalize_usage:
            value = normalize_usage(value)
        if text and self.text:
            value = map_text(value, self.text.apply, answer_data)
        return value

    def check_stable(self, request: Any, sent: str | None = None) -> None:
        """Refuse rules that would change the stored request again (replay could never match).

        Raises :class:`~replaygate.sanitize.config.SanitizeConfigError` naming the path
        (and ``sent``, the request being recorded: ``POST /v1/messages``).
        """
        if not self.text:
            return
        found = _first_unstable(request, self.text.apply, "")
        if found is not None:
            path, before, after = found
            raise self._refusal(
                f"{SECTION}.rules",
                f"running the rules again changes request.{path} from {before!r} to {after!r}; "
                "a replayed request would not match its fixture. Choose replacements that "
                "no rule matches.",
                sent,
            )

    def check_words(self, before: Any, after: Any, side: str, sent: str | None = None) -> None:
        """Refuse rules that rewrote a word of the API in ``after`` (the stored form of
        ``before``, a ``request`` or ``response`` of ``sent``, the request being recorded:
        ``POST /v1/messages``): :func:`.protocol.rewritten_word`."""
        if not self.text:
            return
        found = rewritten_word(self.text, before, after, side)
        if found is not None:
            raise self._refusal(*found, sent)

    def _refusal(self, key: str, reason: str, sent: str | None) -> SanitizeConfigError:
        """The refusal of the rule at ``key`` while recording ``sent``: naming the file and
        line the configuration was read from."""
        return self.config.error(key, f"recording {sent}, {reason}" if sent else reason)

    # -- HTTP shapes ---------------------------------------------------------------------

    def envelope(self, envelope: dict[str, Any], ids: IdMap | None = None) -> dict[str, Any]:
        """The stored form of an HTTP request envelope: its ``body`` or ``text`` (the
        values of a form body percent-decoded), the segments of its ``path`` and the
        values of its query string."""
        out = envelope
        for name in ("body", "text"):
            if name in envelope:
                value = envelope[name]
                if name == "text" and isinstance(value, str) and is_form(value):
                    changed = form_values(value, lambda part: self.request(part, ids))
                    differs = changed != value  # text: one comparison of two strings
                else:  # the same object back when nothing changed: no walk to compare it
                    changed = self.request(value, ids)
                    differs = changed is not value
                if differs:
                    out = {**out, name: changed}
        path = envelope.get("path")
        if isinstance(path, str):
            changed = path_parts(path, lambda part: self.request(part, ids))
            if changed != path:
                out = {**out, "path": changed}
        return out

    def recorded(
        self,
        record: dict[str, Any],
        *,
        key: str,
        interface: str,
        ids: IdMap | None = None,
        answer: int = 0,
    ) -> dict[str, Any]:
        """The stored form of a recorded HTTP response (plain body or events), the
        ``answer``-th to the request of ``key`` (the place of a repeated send)."""
        rewriter = IdRewriter(key, ids, answer)
        status = record.get("status")
        dropped = self._dropped.get(interface) if isinstance(status, int) and status < 300 else None
        out = dict(record)
        headers = record.get("headers")
        if self.config.ids and isinstance(headers, dict):
            headers = out["headers"] = rewriter.headers(headers)
        if self.text and isinstance(headers, dict):  # a kept header may echo an address
            out["headers"] = map_strings(headers, self.text.apply)
        body = record.get("body")
        if array_stream(body, interface):  # its chunks, as the events of a stream
            out["body"] = self._chunks(body, dropped, rewriter)
        elif body is not None:
            out["body"] = self._json(body, dropped, rewriter)
        if isinstance(record.get("text"), str) and self.text:
            out["text"] = self._text_body(record["text"])
        if isinstance(record.get("events"), list):
            out["events"] = self._events(record["events"], dropped, rewriter)
        return out

    def _text_body(self, text: str) -> str:
        """A response's ``text`` body through the text rules. The JSON it holds (a batch's
        results file, an answer a line) is read as a JSON body is: the rules rewrite its
        string values, never its field names, numbers or punctuation (``"status_code":
        200``), nor an answer's encoded data (its base64 embeddings, :func:`answer_data`)."""
        pieces: list[str] = []
        at = 0
        for start, end, value, _ in held_json(text):
            encoded = set(_answer_data(value))
            pieces.append(self.text.apply(text[at:start]))
            at = start
            for match in _JSON_STRING.finditer(text, start, end):
                inner = match.group(1)
                if match.group(2) or inner in encoded:  # a field name, or encoded data
                    continue
                changed = self.text.apply(inner)
                if changed != inner:
                    pieces += (text[at : match.start(1)], changed)
                    at = match.end(1)
            pieces.append(text[at:end])
            at = end
        if not at:
            return self.text.apply(text)
        pieces.append(self.text.apply(text[at:]))
        return "".join(pieces)

    def _events(
        self, events: list[Any], dropped: frozenset[str] | None, rewriter: IdRewriter
    ) -> list[Any]:
        parsed = [event_data(event, _UNPARSED) for event in events]
        done = self._chunks(parsed, dropped, rewriter)
        out = []
        for event, before, after in zip(events, parsed, done, strict=True):
            if after is _UNPARSED or after == before:
                out.append(event)
            else:
                out.append({**event, "data": exact_json.dumps(after).decode("utf-8")})
        return out

    def _chunks(
        self, chunks: list[Any], dropped: frozenset[str] | None, rewriter: IdRewriter
    ) -> list[Any]:
        """The parsed chunks of one stream through every step, the text rules run on the
        text of each block joined across them (an unparsed one is left as it is)."""
        done = [
            value if value is _UNPARSED else self._json_event(value, dropped, rewriter)
            for value in chunks
        ]
        if self.text:
            live = [value for value in done if value is not _UNPARSED]
            skip = redact_fragments(live, self.text.apply)
            for value in live:
                apply_in_place(value, self.text.apply, skip, answer_data)
        return done

    def _json_event(self, event: Any, dropped: frozenset[str] | None, rewriter: IdRewriter) -> Any:
        """One event's data through every step but the text rules (run on whole blocks)."""
        if dropped:
            event = trim_event(event, dropped)
        return _fresh(self._json(event, None, rewriter, text=False))


_JSON_STRING = re.compile(r'"([^"\\]*(?:\\.[^"\\]*)*)"(\s*:)?')
"""A string of JSON written as text, its content, and the colon after it if it names a field."""


def _answer_data(value: Any) -> list[str]:
    """Each string of ``value`` that is an answer's encoded data (:func:`answer_data`)."""
    found: list[str] = []

    def keep(name: str, siblings: Mapping[str, Any], holder: str, outer: str) -> bool:
        if answer_data(name, siblings, holder, outer):
            found.append(siblings[name])
            return True
        return False

    map_text(value, str, keep)
    return found


def _but(items: tuple[Any, ...], index: int) -> tuple[Any, ...]:
    """``items`` without its item at ``index``."""
    return items[:index] + items[index + 1 :]


def _fresh(value: Any) -> Any:
    """A private copy (the text pass changes events in place)."""
    return exact_json.loads(exact_json.dumps(value))


def _first_unstable(
    value: Any, apply: Callable[[str], str], path: str
) -> tuple[str, str, str] | None:
    if isinstance(value, str):
        again = apply(value)
        return (path or "<root>", value, again) if again != value else None
    if isinstance(value, dict):
        for k, v in value.items():
            found = _first_unstable(v, apply, f"{path}.{k}" if path else str(k))
            if found:
                return found
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found = _first_unstable(v, apply, f"{path}[{i}]")
            if found:
                return found
    return None


def resolve(
    sanitize: Sanitizer | SanitizeConfig | None,
    store: str | os.PathLike[str] | None = None,
    *,
    root: str | os.PathLike[str] | None = None,
) -> Sanitizer:
    """A :class:`Sanitizer` from what a caller passed.

    None: the one configured for the project that owns ``store`` (``root``: the pytest
    rootdir, when no ``pyproject.toml`` is above the store); without a store, the
    nearest ``pyproject.toml`` from the current folder.
    """
    if isinstance(sanitize, Sanitizer):
        return sanitize
    if isinstance(sanitize, SanitizeConfig):
        return Sanitizer(sanitize)
    if sanitize is None:
        return Sanitizer(store_config(store, root))
    raise TypeError(f"sanitize must be a Sanitizer or a SanitizeConfig, got {sanitize!r}")


def sanitizer_for(
    store: str | os.PathLike[str],
    sanitize: Sanitizer | SanitizeConfig | None = None,
    root: str | os.PathLike[str] | None = None,
) -> Sanitizer:
    """The sanitizer of ``store``: ``sanitize`` if given, else its owning project's.

    What every record and replay path over a store calls, so a store is sanitized and
    matched the same way from any working directory (see :mod:`replaygate.config`).
    """
    return resolve(sanitize, store, root=root)
