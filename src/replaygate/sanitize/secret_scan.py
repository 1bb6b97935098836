"""The secret scan of a fixture (law 4: nothing secret is written).

:func:`find_secrets` walks a JSON value and returns every path holding a string that
a rule flags, so the error can name the field; :func:`find_fixture_secrets` adds the
text of each stream block joined across its events, and the text of adjacent text
blocks of one message joined (:mod:`.secret_blocks`). A string is read as it is and
in each decoded form (:mod:`.secret_decode`: base64, ``\\u`` escapes, percent-encoding,
JSON held as text, compressed data in base64: :mod:`.secret_compressed`), against the
token families (:mod:`.secret_rules`) and the context and entropy rules
(:mod:`.secret_entropy`).

It is fast on the common, clean fixture: a gate (:mod:`.secret_gate`) searches the
serialized value once for what any rule needs, and when nothing is there no leaf is
read; :func:`find_each_fixture_secrets` passes many fixtures through it at once, and
the lines of a store are first searched together in one pass (:mod:`.secret_lines`).
"""

from __future__ import annotations

import functools
import hashlib
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

import orjson

from replaygate import exact_json
from replaygate.interfaces import array_stream, interface_of
from replaygate.json_paths import path_step
from replaygate.sanitize.secret_allow import NOTHING_SAFE, KnownSafe
from replaygate.sanitize.secret_blocks import find_block_secrets, split_finding, streamed_runs
from replaygate.sanitize.secret_compressed import Budget, Unsearchable, expanded
from replaygate.sanitize.secret_decode import (
    BASE64_MIN_LENGTH,
    HEX_MIN_LENGTH,
    body_text,
    bytes_text,
    decode_base64,
    json_leaves,
    views,
)
from replaygate.sanitize.secret_entropy import (
    CONTEXT_MIN_LENGTH,
    WRAPPED_ENCODED,
    detect_context,
    encoded_field,
    is_encoded_path,
)
from replaygate.sanitize.secret_gate import FIXTURE_KEY, clean_together, may_hold_secret
from replaygate.sanitize.secret_rules import detect_family
from replaygate.sanitize.secret_tables import named_credential

__all__ = [
    "SecretFinding",
    "detect_in_text",
    "encoded_leaf",
    "find_each_fixture_secrets",
    "find_fixture_secrets",
    "find_secrets",
    "find_stream_secrets",
    "may_hold_secret",
    "secret_detector",
]

_MAX_DEPTH = 3
KEPT_FROM = 1 << 16
"""Characters from which a text's verdict is kept (:class:`_Verdicts`): a recording scans
an uploaded file's body before it is sent, as its fixture is made and as the store writes
it, each a second or more a megabyte of base64."""
BODY_TEXT = re.compile(r"(?:request|response|responses\[\d+\])\.text")
"""An HTTP body kept as text: a file uploaded or downloaded, whose JSON lines may be a
batch's results (:func:`~.secret_decode.json_leaves`), never a message's text."""
EVENT_DATA = re.compile(r"(?:response|responses\[\d+\])\.events\[\d+\]\.data")
"""The ``data`` of a recorded stream's event: its free-standing tokens are looked for in
the text joined across events (:func:`find_stream_secrets`) and in the JSON it holds."""


Unit = Literal["event", "line", "item"]
"""What the events of a stream scanned joined are: a stream's events, the lines of a body
kept as text, the items of a JSON array body (where a finding names them)."""


@dataclass(frozen=True)
class SecretFinding:
    """Where a secret-looking value sits and which detector saw it."""

    path: str
    detector: str


K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class _Recent(Generic[K, V]):
    """The values last put by key, at most ``size`` of them, the one least recently asked
    for or put forgotten first; safe to share between threads."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._kept: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> tuple[bool, V | None]:
        """Whether ``key`` is kept, and its value."""
        with self._lock:
            if key not in self._kept:
                return False, None
            self._kept.move_to_end(key)
            return True, self._kept[key]

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` by ``key``, forgetting the oldest beyond :attr:`size`."""
        with self._lock:
            self._kept[key] = value
            if len(self._kept) > self.size:
                self._kept.popitem(last=False)


class _Verdicts:
    """The verdicts of the last long texts scanned whole (:data:`KEPT_FROM` characters or
    more), by a digest of the text and how it was read: a verdict depends on nothing else
    (the rules are fixed; a project's known-safe values are blanked out of the text
    first). A verdict given within a budget spent by other fields of a fixture is kept
    too: the same text scanned anew gets the same refusal or, read whole once, nothing."""

    def __init__(self, size: int = 16) -> None:
        self._kept: _Recent[tuple[bytes, str, bool, bool], str | None] = _Recent(size)

    def verdict(
        self, text: str, read: tuple[str, bool, bool], scan: Callable[[], str | None]
    ) -> str | None:
        """The kept verdict on ``text`` read as ``read``, else ``scan()``'s, kept."""
        digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        key = (digest, *read)
        known, found = self._kept.get(key)
        if not known:
            found = scan()
            self._kept.put(key, found)
        return found


_VERDICTS = _Verdicts()


def detect_in_text(
    text: str,
    field_name: str = "",
    depth: int = 0,
    *,
    encoded: bool = False,
    budget: Budget | None = None,
    results: bool = False,
) -> str | None:
    """The name of the rule that flags ``text`` (a string under ``field_name``, encoded
    data when ``encoded``: :func:`~.secret_entropy.is_encoded_path`; an HTTP body of its
    own when ``results``, :data:`BODY_TEXT`), or None.

    The text is read as it is, then each decoding of it (:mod:`.secret_decode`): a
    finding in a decoded form names the decoding, ``GitHub token (in base64 text)``.
    Compressed data is read decompressed within ``budget`` (one per fixture; a new one
    when not given), and what cannot be read whole is named as the finding. A long text's
    verdict is kept for its next scan (:class:`_Verdicts`), and a short one's
    (:data:`SHORT_BELOW`).
    """
    if depth == 0 and len(text) >= KEPT_FROM:
        return _VERDICTS.verdict(
            text,
            (field_name, encoded, results),
            lambda: _detect(text, field_name, depth, encoded, budget, results),
        )
    if depth == 0 and len(text) < SHORT_BELOW and field_name != "base64":
        key = (text, field_name, encoded, results)
        try:  # one lookup: another thread may clear it meanwhile
            return _SHORT[key]
        except KeyError:
            pass
        found = _detect(text, field_name, depth, encoded, budget, results)
        if len(_SHORT) >= _SHORT_MAX:
            _SHORT.clear()
        _SHORT[key] = found
        return found
    return _detect(text, field_name, depth, encoded, budget, results)


SHORT_BELOW = min(BASE64_MIN_LENGTH, HEX_MIN_LENGTH)
"""Characters below which a text's verdict is remembered (:data:`_SHORT`): no base64 or hex
run fits in it, so no compressed data is read and the verdict depends on the text, its
field's name and how it is read only (each decoding of it, and each string of the JSON it
holds, is shorter still). The roles, types, names and models of a fixture repeat in every
fixture of a store."""
_SHORT: dict[tuple[str, str, bool, bool], str | None] = {}
_SHORT_MAX = 8192


def _detect(
    text: str,
    field_name: str,
    depth: int,
    encoded: bool,
    budget: Budget | None,
    results: bool,
) -> str | None:
    """:func:`detect_in_text`, scanned."""
    held = depth < _MAX_DEPTH  # the JSON held in the text is read below, string by string
    name = (
        detect_family(text, encoded=encoded)
        or detect_context(text, field_name, encoded, held)
        or named_credential(text)
    )
    if name is not None or depth >= _MAX_DEPTH:
        return name
    budget = Budget() if budget is None else budget
    try:
        raw = decode_base64(text) if field_name == "base64" else None
        if raw is not None:  # a body kept as base64: read here once, not again as a base64 run
            if name := detect_in_text(body_text(raw), "", depth + 1, budget=budget):
                return f"{_bare(name)} (in a base64 body)"
            for label, member in expanded(raw, budget):
                if name := detect_in_text(bytes_text(member), "", depth + 1, budget=budget):
                    return f"{_bare(name)} (in {label} in a base64 body)"
        for view in views(text, budget, base64=raw is None):
            if view.families_only:
                name = detect_family(view.text)
            else:
                wrapped = encoded and field_name in WRAPPED_ENCODED
                name = detect_in_text(
                    view.text, field_name, depth + 1, encoded=wrapped, budget=budget
                )
            if name is not None:
                return f"{_bare(name)} (in {view.label} text)"
    except Unsearchable as problem:
        return str(problem)
    for inner_field, inner, inner_encoded in json_leaves(text, results):
        found = detect_in_text(inner, inner_field, depth + 1, encoded=inner_encoded, budget=budget)
        if found:
            return found
    return None


def _bare(name: str) -> str:
    return name.split(" (in ", 1)[0]


def _leaves(
    value: Any,
    path: str,
    field_name: str,
    safe: KnownSafe = NOTHING_SAFE,
    encoded: bool = False,
    outer: str = "",
) -> Iterator[tuple[str, str, str, bool]]:
    """``(path, field name, text, whether it is encoded data)`` of each string of ``value``
    (under ``field_name`` of an object under ``outer``):
    its values (:func:`~.secret_entropy.encoded_field`; a fixture's own key under no field
    name, :data:`~.secret_gate.FIXTURE_KEY`), and a field name that a token family or
    the free-standing entropy rule flags once its ``safe`` values are blanked out (named
    by the path of its object, never shown)."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            name = str(key)
            if _secret_looking_name(safe.mask(name)):
                yield f"{path or '(the top level)'} (a field name)", "", name, False
                name = "<a secret-looking field name>"
            inner = path_step(path, name)
            field = "" if inner == FIXTURE_KEY else name
            encoded = encoded_field(name, value, field_name, outer)
            yield from _leaves(item, inner, field, safe, encoded, field_name)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _leaves(item, f"{path}[{i}]", field_name, safe, encoded, outer)
    elif isinstance(value, str):
        yield path, field_name, value, encoded


@functools.lru_cache(maxsize=4096)
def _secret_looking_name(name: str) -> bool:
    """Whether a field name reads as a token: one of a family, or a free-standing
    high-entropy one (a field name gives no context of its own; one shorter than any
    such finding, as most are, is not read for one). Kept for the names last asked
    about: every fixture of a store repeats most of its names."""
    if detect_family(name) is not None:
        return True
    return len(name) >= CONTEXT_MIN_LENGTH and detect_context(name, "", False, False) is not None


def encoded_leaf(path: str, by_object: bool) -> bool:
    """Whether the leaf at ``path`` gets no free-standing check: encoded data by the
    object it stands in (``by_object``) or by where it stands, or a stream event's
    ``data`` (:data:`EVENT_DATA`)."""
    return by_object or is_encoded_path(path) or EVENT_DATA.fullmatch(path) is not None


def find_secrets(
    value: Any,
    detect: Callable[[str, str], str | None] | None = None,
    safe: KnownSafe = NOTHING_SAFE,
    budget: Budget | None = None,
) -> list[SecretFinding]:
    """Every leaf of ``value`` that a detector flags, by path: ``detect(text, field name)``,
    or :func:`detect_in_text` (told which leaves are encoded data by where they stand,
    compressed data read within ``budget``, the fixture's: a new one when not given);
    the ``safe`` values (:mod:`.secret_allow`) are blanked out of each value and field
    name first."""
    if detect is None and not may_hold_secret(value):
        return []
    found = []
    budget = Budget() if budget is None else budget
    for path, field_name, text, encoded in _leaves(value, "", "", safe):
        masked = safe.mask(text)
        if detect is None:
            encoded = encoded_leaf(path, encoded)
            results = BODY_TEXT.fullmatch(path) is not None
            name = detect_in_text(
                masked, field_name, encoded=encoded, budget=budget, results=results
            )
        else:
            name = detect(masked, field_name)
        if name is not None:
            found.append(SecretFinding(path, name))
    return found


def secret_detector(text: str) -> str | None:
    """What finds a secret-looking value in ``text`` (a reason, a test's id: something a
    person typed that is written where it is kept or shown), or None."""
    found = find_secrets(text)
    return found[0].detector if found else None


def find_stream_secrets(
    events: Any,
    path: str,
    safe: KnownSafe = NOTHING_SAFE,
    budget: Budget | None = None,
    *,
    unit: Unit = "event",
) -> list[SecretFinding]:
    """Secrets split across the events of a recorded stream, by the events' path.

    A streamed text arrives in fragments, so a key may straddle two events and
    match in no single one. The fragments of each block of an Anthropic or OpenAI
    stream are joined and scanned whole (see :mod:`replaygate.sanitize.stream`), and
    so is the text of the events whose ``data`` is not JSON (a plain ``data:``
    stream), in order; so are adjacent text blocks of one answer, joined
    (:func:`~.secret_blocks.streamed_runs`), and each field of the events of a shape of a
    server's own (:func:`~.stream.field_fragments`), read as encoded data is: for the token
    families and written credentials. A finding's path names the first and last event
    joined: ``response.events[3..7].data``; with ``unit`` ``line`` (the events are the
    lines of a body), ``response.text (lines 2..8)``; with ``item`` (the chunks of a JSON
    array), ``response.body[2..8]``. ``safe`` values are blanked out before the scan;
    compressed data is read within ``budget``, the fixture's (a new one when not given).
    """
    if not isinstance(events, list):
        return []
    from replaygate.sanitize.stream import all_fragments, event_data

    parsed = [event_data(event, _PLAIN) for event in events]
    owner: dict[int, int] = {}

    def spots(parts: list[tuple[dict[str, Any], str]]) -> list[int]:
        if not owner:  # which event holds each container: asked only of a finding
            for i, event in enumerate(parsed):
                for container in _containers(event):
                    owner[id(container)] = i
        return _spots(parts, owner)

    structured = [event for event in parsed if event is not _PLAIN]
    texts, encoded_data, fields = all_fragments(structured)
    joined: list[tuple[list[Any], str, bool]] = [
        (parts, _whole(parts), encoded)
        for encoded, groups in ((False, texts), (True, encoded_data), (True, fields))
        for parts in groups.values()
    ]
    plain = [(i, text) for i, event in enumerate(parsed) if (text := _text(event, events[i]))]
    runs = [[_whole(texts[group]) for _, group in run] for run in streamed_runs(texts)]
    scanned = [whole for _, whole, _ in joined]
    scanned += ["".join(text for _, text in plain)] if plain else []
    scanned += ["".join(run) for run in runs]  # a split finding is one of the run joined
    if not scanned or all(clean_together(scanned)):  # what each is read as is no wider
        return []
    findings = []
    budget = Budget() if budget is None else budget
    for parts, whole, encoded in joined:
        name = detect_in_text(safe.mask(whole), encoded=encoded, budget=budget)
        if name is not None:
            findings.append(SecretFinding(_where(path, spots(parts), unit), name))
    if plain:
        whole = "".join(text for _, text in plain)
        name = detect_in_text(safe.mask(whole), encoded=False, budget=budget)
        if name is not None:
            findings.append(SecretFinding(_where(path, [i for i, _ in plain], unit), name))
    # the text blocks of one answer, joined: first, a block alone may be flagged for less
    split = []
    for run, blocks_texts in zip(streamed_runs(texts), runs, strict=True):
        found = split_finding(
            blocks_texts, lambda text: detect_in_text(safe.mask(text), budget=budget)
        )
        if found is not None:
            first, last, name = found
            parts = [part for _, group in run[first : last + 1] for part in texts[group]]
            blocks = f"text blocks {run[first][0]}..{run[last][0]}"
            where = _where(path, spots(parts), unit)
            split.append(SecretFinding(where, f"{name} (split across {blocks})"))
    return [*split, *findings]


def _spots(parts: list[tuple[dict[str, Any], str]], owner: dict[int, int]) -> list[int]:
    """The events (their positions) that the fragments ``parts`` stand in, in order."""
    return sorted(owner.get(id(container), -1) for container, _ in parts)


def _whole(parts: list[tuple[dict[str, Any], str]]) -> str:
    """The text of fragments joined."""
    return "".join(container[name] for container, name in parts)


def _where(path: str, spots: list[int], unit: Unit) -> str:
    """``path[3..7].data``: the first and last of the events ``spots`` (``[3]`` for one);
    ``path (lines 4..8)`` when they are the lines of a body (counted from 1), ``path[3..7]``
    when they are the items of a JSON array."""
    first, last = spots[0], spots[-1]
    if unit == "line":
        return (
            f"{path} (line {first + 1})"
            if first == last
            else f"{path} (lines {first + 1}..{last + 1})"
        )
    items = f"{path}[{first}]" if first == last else f"{path}[{first}..{last}]"
    return items if unit == "item" else f"{items}.data"


class _CleanStreams:
    """The streams last found clean when scanned joined (:func:`find_stream_secrets`), by a
    digest of their events as ``orjson`` writes them, how they are read (their unit) and
    the project's known-safe values (where they stand names a finding only): a recording
    scans a stream's answer as it is prepared and again as its fixture is written. Only a
    scan that read no compressed data (that left its ``budget``, shared with the other
    fields of a fixture, as it was) is kept: the same events scanned anew find nothing,
    whatever the budget."""

    def __init__(self, size: int = 64) -> None:
        self._kept: _Recent[tuple[bytes, Unit, KnownSafe], None] = _Recent(size)

    def findings(
        self, events: Any, path: str, safe: KnownSafe, budget: Budget, unit: Unit
    ) -> list[SecretFinding]:
        """:func:`find_stream_secrets` of ``events``: none when they were found clean."""
        try:
            data = orjson.dumps(events, option=orjson.OPT_NON_STR_KEYS)
        except TypeError:  # an integer beyond 64 bits: scanned every time
            return find_stream_secrets(events, path, safe, budget, unit=unit)
        key = (hashlib.blake2b(data, digest_size=16).digest(), unit, safe)
        if self._kept.get(key)[0]:
            return []
        left, read = budget.left, dict(budget.read)
        found = find_stream_secrets(events, path, safe, budget, unit=unit)
        if not found and budget.left == left and budget.read == read:
            self._kept.put(key, None)
        return found


_STREAMS = _CleanStreams()


_JSON_LINES = re.compile(r"ndjson|jsonl|json-seq|jsonlines", re.IGNORECASE)
"""Content types of a body of JSON lines a server may stream (Ollama's ``application/x-ndjson``)."""


def _line_events(response: Mapping[str, Any]) -> list[dict[str, str]] | None:
    """The lines of a response kept as text whose content type says JSON lines, each as the
    ``data`` of an event (a blank line as an empty one, so a line keeps its number); else None."""
    text, headers = response.get("text"), response.get("headers")
    kind = headers.get("content-type") if isinstance(headers, dict) else None
    if not isinstance(text, str) or not isinstance(kind, str) or not _JSON_LINES.search(kind):
        return None
    return [{"data": line} for line in text.split("\n")]


def _array_events(request: Any, response: Mapping[str, Any]) -> list[dict[str, str]] | None:
    """The chunks of a stream a response to ``request`` holds as one JSON array body
    (:func:`~replaygate.interfaces.array_stream`), each as the ``data`` of an event; else
    None."""
    path = request.get("path") if isinstance(request, Mapping) else None
    body = response.get("body")
    if not isinstance(path, str) or not array_stream(body, interface_of(path)):
        return None
    return [{"data": exact_json.dumps(chunk).decode("utf-8")} for chunk in body]


_PLAIN = object()
"""The parsed form of an event whose ``data`` is text, not JSON."""


def _text(parsed: Any, event: Any) -> str | None:
    """The text an event adds to a plain stream: its ``data`` unless that is a JSON object or array.

    A JSON string counts as the string it holds; ``[DONE]`` adds nothing.
    """
    if isinstance(parsed, str):
        return parsed
    data = event.get("data") if isinstance(event, dict) else None
    if isinstance(parsed, dict | list) or not isinstance(data, str):
        return None
    return data if data.strip() != "[DONE]" else None


def _containers(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        yield value
        for child in value.values():
            yield from _containers(child)
    elif isinstance(value, list):
        for child in value:
            yield from _containers(child)


def find_fixture_secrets(
    fixture: Mapping[str, Any], safe: KnownSafe = NOTHING_SAFE, budget: Budget | None = None
) -> list[SecretFinding]:
    """:func:`find_secrets` of a fixture's JSON, plus secrets split across stream events.

    ``safe`` holds the project's known-safe values (:mod:`.secret_allow`); compressed data
    anywhere in the fixture is read within one ``budget`` (a new one when not given).
    """
    return _fixture_secrets(fixture, safe, known_clean=False, budget=budget)


def find_each_fixture_secrets(
    fixtures: Sequence[Mapping[str, Any]],
    safe: KnownSafe = NOTHING_SAFE,
    cleared: Sequence[bool | None] | None = None,
) -> list[list[SecretFinding]]:
    """:func:`find_fixture_secrets` of each fixture; the clean ones are told apart in one pass.

    ``cleared``, when given, holds for each fixture what
    :func:`~replaygate.sanitize.secret_lines.clean_lines` found for the line it was
    read from, when that line is exactly what ``orjson.dumps`` writes for it (None for
    a fixture without such a line): the others are told apart as values.
    """
    if cleared is None:
        clean = clean_together(fixtures)
    else:
        others = [value for value, known in zip(fixtures, cleared, strict=True) if known is None]
        by_value = iter(clean_together(others)) if others else iter(())
        clean = [next(by_value) if known is None else known for known in cleared]
    return [
        _fixture_secrets(fixture, safe, known_clean=known)
        for fixture, known in zip(fixtures, clean, strict=True)
    ]


def _fixture_secrets(
    fixture: Mapping[str, Any], safe: KnownSafe, known_clean: bool, budget: Budget | None = None
) -> list[SecretFinding]:
    # One budget for the fixture, however its data is spread over fields and streams.
    budget = Budget() if budget is None else budget
    findings = [] if known_clean else find_secrets(fixture, safe=safe, budget=budget)
    if "response" in fixture:
        recorded = [("response", fixture["response"])]
    else:
        responses = fixture.get("responses")
        items = responses if isinstance(responses, list) else []
        recorded = [(f"responses[{i}]", r) for i, r in enumerate(items)]
    for path, response in recorded:
        if isinstance(response, dict) and "events" in response:
            events = response["events"]
            findings.extend(_STREAMS.findings(events, f"{path}.events", safe, budget, "event"))
        elif isinstance(response, dict) and (lines := _line_events(response)) is not None:
            findings.extend(_STREAMS.findings(lines, f"{path}.text", safe, budget, "line"))
        elif isinstance(response, dict) and (
            chunks := _array_events(fixture.get("request"), response)
        ):
            findings.extend(_STREAMS.findings(chunks, f"{path}.body", safe, budget, "item"))

    def detect(text: str) -> str | None:
        return detect_in_text(safe.mask(text), "text", budget=budget)

    # first: a block alone may be flagged for less (the random end of a key)
    split = find_block_secrets(fixture, recorded, detect)
    return [*(SecretFinding(path, name) for path, name in split), *findings]
