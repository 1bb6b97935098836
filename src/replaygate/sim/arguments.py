"""Arguments for a tool call the simulator must make (a request forcing one), and JSON
a request asks for, made from a JSON schema: the smallest value each part accepts.

An object gets its required properties (all of them when it names none), those its
``dependentRequired`` asks for beside them, and as many more as ``minProperties`` asks
for: its optional properties in order, then names of its ``patternProperties``, of its
``propertyNames`` or ``property_N`` (the last two unless ``additionalProperties`` is
false); a property takes the schemas of ``properties`` and of each ``patternProperties``
its name matches, else ``additionalProperties``. ``$ref`` is resolved within the schema
(``#/$defs/...``, ``#/definitions/...``); ``const``, the first ``enum`` value, the first
of ``anyOf``/``oneOf``, the parts of ``allOf`` as one schema; ``not``: the first of a few
values it does not match; ``if``: the value made again with the branch (``then`` or
``else``) it picks. A string is ``text`` (the answer the behaviour gave instead), a value
of its ``format``, or one its ``pattern`` matches (:mod:`replaygate.sim.patterns`); the
JSON text of a value of its ``contentSchema`` where its ``contentMediaType`` is JSON; all
of it encoded as its ``contentEncoding`` or ``format`` (``base64``) says; a
number its least within its bounds, or 0; an array its ``minItems`` items (a tuple's
``prefixItems`` first, the first ``minContains`` of them also of its ``contains``),
distinct ones where it says ``uniqueItems``. A schema that refers to itself without end
gives None where it loops. The value made is checked against the whole schema
(:mod:`replaygate.sim.checked`). A value the simulator cannot make, or one that fails
the check, is an :class:`UnmadeValue` naming where in the schema. Constraints an SDK
moved into a description are read back first (:mod:`replaygate.sim.described`).
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
import functools
import itertools
import json
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from replaygate.models.types import Message, ModelResponse, ToolCall, ToolSpec
from replaygate.pattern_search import SlowPatternError, searched
from replaygate.sanitize.secret_entropy import FREE_MIN_LENGTH
from replaygate.sim.checked import failure, matches, ref_where, validator
from replaygate.sim.described import described
from replaygate.sim.patterns import PatternStrings

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

MAX_DEPTH = 32
"""How deep a schema is followed before its value is None (a ``$ref`` loop)."""
MAX_VALUES = 10_000
"""How many values one answer is made of at most: nested ``minItems`` multiply, and the
server's one thread would otherwise build an answer of hundreds of megabytes."""
NOT_TRIES = 8
"""How many values are made for a schema with ``not`` before it is refused."""
EXTRA_TRIES = 64
"""How many names past those ``minProperties`` asks for are tried of each source."""
_START = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)


def _ipv4(n: int) -> str:
    """The ``n``-th IPv4 address: TEST-NET-1's first, then 10.x.y.z."""
    return f"10.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}" if n else "192.0.2.1"


def _ipv6(n: int) -> str:
    """The ``n``-th IPv6 address, in the documentation prefix."""
    return f"2001:db8::{n + 1:x}"


def _uuid(version: int, n: int) -> str:
    """The ``n``-th UUID of ``version`` (0 for the plain ``uuid`` format), of RFC 4122's
    variant where a version is asked for, as pydantic's ``UUID4`` checks it."""
    if not version:
        return f"00000000-0000-0000-0000-{n:012x}"
    return f"00000000-0000-{version}000-8000-{n:012x}"


_FORMATS: dict[str, Callable[[int], str]] = {
    "date": lambda n: (_START + datetime.timedelta(days=n)).strftime("%Y-%m-%d"),
    "date-time": lambda n: (_START + datetime.timedelta(seconds=n)).strftime("%Y-%m-%dT%H:%M:%SZ"),
    "time": lambda n: (_START + datetime.timedelta(seconds=n)).strftime("%H:%M:%SZ"),
    "email": lambda n: f"user{n or ''}@example.com",
    "uri": lambda n: f"https://example.com/{n or ''}",
    "uuid": functools.partial(_uuid, 0),
    **{f"uuid{v}": functools.partial(_uuid, v) for v in (1, 3, 4, 5, 6, 7, 8)},
    "ipv4": _ipv4,
    "ipv6": _ipv6,
    "ipvanyaddress": _ipv4,
    "ipv4network": lambda n: f"{_ipv4(n)}/32",
    "ipv4interface": lambda n: f"{_ipv4(n)}/32",
    "ipvanynetwork": lambda n: f"{_ipv4(n)}/32",
    "ipvanyinterface": lambda n: f"{_ipv4(n)}/32",
    "ipv6network": lambda n: f"{_ipv6(n)}/128",
    "ipv6interface": lambda n: f"{_ipv6(n)}/128",
    "hostname": lambda n: f"host{n}.example.com" if n else "example.com",
    "duration": lambda n: f"P{n + 1}D",
    "directory-path": lambda n: "/".join([".."] * n) or ".",
}
"""The ``n``-th value of each common string ``format`` (a string of another takes the
text), pydantic's own among them: ``uuid4`` and the other versions (``UUID4``), the
addresses, networks and interfaces of ``ipaddress`` and ``IPvAnyAddress``, and the
current directory and those above it (``.``, ``..``, ``../..``) of a ``DirectoryPath``,
which every process has."""


_ENCODINGS: dict[str, Callable[[bytes], bytes]] = {
    "base64": base64.b64encode,
    "base64url": base64.urlsafe_b64encode,
    "base32": base64.b32encode,
    "base16": base64.b16encode,
}
"""The encodings a string's ``contentEncoding`` (or pydantic's ``format``, ``base64`` of
``Base64Str`` and ``Base64Bytes``, ``base64url`` of their URL-safe kin) names."""
_UNTOLD_FORMATS = {
    "multi-host-uri": "a URL of a scheme the schema does not name (pydantic's PostgresDsn, "
    "MongoDsn, NatsDsn: each takes only its own schemes)",
    "file-path": "the path of a file that exists where the answer is validated (pydantic's "
    "FilePath)",
}
"""The string formats whose values the simulator cannot tell, each with why."""


def _encoding(schema: Mapping[str, Any]) -> str | None:
    """The encoding of a string of ``schema``: its ``contentEncoding``, else its
    ``format`` where that is one (pydantic's ``base64``); None for none."""
    for keyword in ("contentEncoding", "format"):
        said = schema.get(keyword)
        if isinstance(said, str) and said.lower() in _ENCODINGS:
            return said.lower()
    return None


def _json_media(schema: Mapping[str, Any]) -> bool:
    """Whether a string of ``schema`` holds JSON text: its ``contentMediaType`` is
    ``application/json`` or another ``+json`` type (pydantic's ``Json``)."""
    media = schema.get("contentMediaType")
    if not isinstance(media, str):
        return False
    kind = media.split(";")[0].strip().lower()
    return kind == "application/json" or kind.endswith("+json")


ENCODED_ROOM = FREE_MIN_LENGTH - 1
"""The most characters of encoded text made, where ``maxLength`` allows more: one more is
as long as a free-standing token the secret check refuses at recording (the base64 of
``echo: Weather in Paris?`` reads as a key). A longer one ``minLength`` asks for is
``x`` encoded (``eHh4...``), whose few letters the check takes."""


class UnmadeValue(ValueError):
    """A value the schema asks for that the simulator cannot make (a ``pattern`` it cannot
    satisfy, ``uniqueItems`` of too few distinct values), naming where in the schema."""


def _resolved(schema: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """``schema`` with its ``$ref`` followed within ``root``, or None if it points nowhere."""
    ref = schema.get("$ref")
    if not isinstance(ref, str):
        return schema
    node: Any = root
    for part in ref.removeprefix("#").strip("/").split("/") if ref.startswith("#") else [None]:
        if part is None or not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    if not isinstance(node, Mapping):
        return None
    rest = {k: v for k, v in schema.items() if k != "$ref"}
    return {**node, **rest}


@dataclasses.dataclass
class _Maker:
    """Makes the values of one schema (``root``), its strings ``text``, at most
    :data:`MAX_VALUES` of them."""

    root: Mapping[str, Any]
    text: str
    check: Validator | None = None
    """The root's validator (:mod:`replaygate.sim.checked`): what tells whether a value
    made passes ``not``, ``if`` and ``propertyNames``."""
    left: int = MAX_VALUES
    patterns: dict[tuple[str, int, float], PatternStrings] = dataclasses.field(default_factory=dict)
    """The strings of each pattern (and lengths) asked for, made once."""

    def value(self, schema: Any, where: str, depth: int = 0, variant: int = 0) -> Any:
        """The ``variant``-th value of ``schema`` (found at ``where`` in the root): the
        smallest the schema accepts first, each later one differing from those before."""
        self.left -= 1
        if depth > MAX_DEPTH or self.left < 0 or not isinstance(schema, Mapping):
            return None
        resolved = _resolved(schema, self.root)
        if resolved is not schema:  # a $ref, followed (None: it points nowhere)
            ref = ref_where(str(schema["$ref"]))
            return None if resolved is None else self.value(resolved, ref, depth + 1, variant)
        schema = described(schema)
        if "not" in schema:
            return self._not(schema, where, depth, variant)
        if "if" in schema:
            return self._if(schema, where, depth, variant)
        if "const" in schema:
            return schema["const"]
        enum = schema.get("enum")
        if isinstance(enum, list) and enum:
            return enum[variant] if variant < len(enum) else enum[0]
        for key in ("anyOf", "oneOf"):
            options = schema.get(key)
            if isinstance(options, list) and options:
                return self.value(options[0], f"{where}.{key}.0", depth + 1, variant)
        parts = schema.get("allOf")
        if isinstance(parts, list) and parts:
            merged: Mapping[str, Any] = _without(schema, "allOf")
            for part in parts:
                merged = _merged(merged, self._part(part))
            return self.value(merged, f"{where}.allOf", depth + 1, variant)
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "null")
        if isinstance(kind, str):
            kind = kind.lower()  # Gemini's OpenAPI schemas spell types in upper case
        if kind == "object" or (kind is None and "properties" in schema):
            return self._object(schema, where, depth, variant)
        if kind == "array":
            return self._array(schema, where, depth, variant)
        if kind in ("integer", "number"):
            return _number(schema, kind == "integer", variant)
        if kind == "boolean":
            return variant % 2 == 1
        if kind == "null":
            return None
        if _json_media(schema) or _encoding(schema):
            return self._content(schema, where, depth, variant)
        return self._string(schema, where, variant)

    def _content(self, schema: Mapping[str, Any], where: str, depth: int, variant: int) -> str:
        """A string holding content: the compact JSON text of a value of its
        ``contentSchema`` (any JSON without one) where its media type is JSON (a later
        variant of the same JSON spaced after it, a distinct string), else the text
        (cut to :data:`ENCODED_ROOM` characters encoded); encoded as it says; made as long
        as ``minLength`` asks by spaces after the JSON or ``x`` before encoding. An
        :class:`UnmadeValue` where ``maxLength`` leaves too little room for it."""
        shortest, longest = _length(schema, "minLength") or 0, _length(schema, "maxLength")
        encoding = _encoding(schema)
        encode = _ENCODINGS[encoding] if encoding else lambda raw: raw
        if _json_media(schema):
            inner_schema, inner_where = schema.get("contentSchema", {}), f"{where}.contentSchema"
            inner = self.value(inner_schema, inner_where, depth + 1, variant)
            raw, filler = json.dumps(inner, ensure_ascii=False, separators=(",", ":")), " "
            if variant and inner == self.value(inner_schema, inner_where, depth + 1):
                raw += " " * variant  # the same JSON, a distinct string (uniqueItems)
        else:  # encoded text reads as a token the secret check refuses from its length
            room = ENCODED_ROOM if longest is None else min(longest, ENCODED_ROOM)
            number, text = f" {variant + 1}" if variant else "", self.text
            while text and len(encode((text + number).encode())) > room:
                text = text[:-1]  # cut to fit, its number kept (uniqueItems)
            raw, filler = (text + number if shortest <= room else number.strip()), "x"
        made = encode(raw.encode()).decode("ascii")
        while len(made) < shortest and len(raw) < shortest + 100_000:
            raw += filler
            made = encode(raw.encode()).decode("ascii")
        if longest is not None and len(made) > longest:
            what = "the JSON made of its contentSchema" if filler == " " else "the text"
            how = f", {encoding}-encoded," if encoding else ""
            raise UnmadeValue(
                f"{where}.maxLength: {what}{how} is {len(made)} characters long, "
                f"longer than the {longest} it allows"
            )
        return made

    def _part(self, part: Any) -> Mapping[str, Any]:
        """A part of a schema (of its ``allOf``, its ``contains``...), its ``$ref``
        followed: nothing to add (``{}``) where it is no schema or points nowhere."""
        resolved = _resolved(part, self.root) if isinstance(part, Mapping) else None
        return resolved or {}

    def _not(self, schema: Mapping[str, Any], where: str, depth: int, variant: int) -> Any:
        """The first of the ``variant``-th value of the schema without its ``not`` and
        the :data:`NOT_TRIES` after it that its ``not`` rejects."""
        rest = _without(schema, "not")
        for tried in range(variant, variant + NOT_TRIES):
            made = self.value(rest, where, depth + 1, tried)
            if matches(self.check, made, schema["not"]) is not True:
                return made
        raise UnmadeValue(
            f"{where}.not: the {NOT_TRIES} values the simulator made of the schema all match it"
        )

    def _if(self, schema: Mapping[str, Any], where: str, depth: int, variant: int) -> Any:
        """The value of the schema without its ``if``, ``then`` and ``else``, made again
        with the branch it picks (``then`` where it passes ``if``) merged in."""
        rest = _without(schema, "if", "then", "else")
        made = self.value(rest, where, depth + 1, variant)
        passed = matches(self.check, made, schema["if"])
        branch = "then" if passed else "else"
        if passed is None or not isinstance(schema.get(branch), Mapping):
            return made
        merged = _merged(rest, self._part(schema[branch]))
        return self.value(merged, f"{where}.{branch}", depth + 1, variant)

    def _object(self, schema: Mapping[str, Any], where: str, depth: int, variant: int) -> Any:
        """Its required properties (every one when it names none), then those its
        ``dependentRequired`` asks for and as many more as ``minProperties`` asks for
        (:meth:`_names`), each the ``variant``-th value of its own schema: that of
        ``properties`` and of each ``patternProperties`` its name matches, else
        ``additionalProperties``. Written in the order of ``properties``, as the APIs
        write an object of a schema whatever order ``required`` names them in
        (Instructor sorts it), the other names after them."""
        properties = schema.get("properties")
        properties = properties if isinstance(properties, Mapping) else {}
        required = schema.get("required")
        names = required if isinstance(required, list) else list(properties)
        names = [name for name in names if isinstance(name, str)]
        chosen = self._names(schema, properties, names, where, depth, variant)
        made = {}
        for name in [
            *(n for n in properties if n in chosen),
            *(n for n in chosen if n not in properties),
        ]:
            own, place = self._property(schema, properties, name, where)
            made[name] = self.value(own, place, depth + 1, variant)
        return made

    def _property(
        self, schema: Mapping[str, Any], properties: Mapping[str, Any], name: str, where: str
    ) -> tuple[Any, str]:
        """The schema of the property ``name`` and where it is: its own in
        ``properties`` with that of each ``patternProperties`` whose pattern its name
        matches, as one; else ``additionalProperties`` (any value where that is none)."""
        parts = [(properties[name], f"{where}.properties.{name}")] if name in properties else []
        patterned = schema.get("patternProperties")
        if isinstance(patterned, Mapping):
            for pattern, part in patterned.items():
                at = f"{where}.patternProperties.{pattern}"
                try:
                    if isinstance(pattern, str) and _found(pattern, name):
                        parts.append((part, at))
                except SlowPatternError as err:
                    raise UnmadeValue(f"{at}: {err}") from None
        if not parts:
            extra = schema.get("additionalProperties")
            return extra if isinstance(extra, Mapping) else {}, f"{where}.additionalProperties"
        if len(parts) == 1:
            return parts[0]
        merged: Mapping[str, Any] = {}
        for part, _ in parts:
            merged = _merged(merged, self._part(part))
        return merged, parts[0][1]

    def _names(
        self,
        schema: Mapping[str, Any],
        properties: Mapping[str, Any],
        names: list[str],
        where: str,
        depth: int,
        variant: int,
    ) -> list[str]:
        """``names``, each with the names ``dependentRequired`` (or draft 7's
        ``dependencies``) asks for beside it, then more until ``minProperties`` is
        met: the optional properties in order, then names made (:meth:`_extra`)."""
        depends = {
            name: needed
            for key in ("dependencies", "dependentRequired")
            if isinstance(schema.get(key), Mapping)
            for name, needed in schema[key].items()
            if isinstance(needed, list)
        }
        chosen: dict[str, None] = {}

        def add(name: str) -> None:
            if name not in chosen:
                chosen[name] = None
                for other in depends.get(name, []):
                    if isinstance(other, str):
                        add(other)

        for name in names:
            add(name)
        least = _length(schema, "minProperties") or 0
        more = itertools.chain(
            (name for name in properties if isinstance(name, str)),
            self._extra(schema, where, depth, variant, min(least, MAX_VALUES) + EXTRA_TRIES),
        )
        while len(chosen) < least:
            extra = next(more, None)
            if extra is None:
                raise UnmadeValue(
                    f"{where}.minProperties: it asks for {least} properties, and the "
                    f"simulator finds {len(chosen)} names the schema allows"
                )
            add(extra)
        return list(chosen)

    def _extra(
        self, schema: Mapping[str, Any], where: str, depth: int, variant: int, tries: int
    ) -> Iterator[str]:
        """Names for more properties (``tries`` of each source at most), each one
        ``propertyNames`` accepts: strings of each ``patternProperties`` pattern, then,
        unless ``additionalProperties`` is false, values of ``propertyNames`` (where it
        says more than a type) or ``property_N``."""
        patterned = schema.get("patternProperties")
        patterned = patterned if isinstance(patterned, Mapping) else {}
        named = schema.get("propertyNames")
        given = isinstance(named, Mapping) and not {"type"}.issuperset(named)
        sources: list[Callable[[int], Any]] = [
            functools.partial(self._pattern_string, pattern, 0, math.inf)
            for pattern in patterned
            if isinstance(pattern, str)
        ]
        if schema.get("additionalProperties") is not False:
            sources.append(
                (lambda n: self.value(named, f"{where}.propertyNames", depth + 1, variant + n))
                if given
                else (lambda n: f"property_{n + 1}")
            )
        for source in sources:
            for n in range(tries):
                try:
                    name = source(n)
                except ValueError:  # an UnmadeValue too: the source has no more
                    break
                if isinstance(name, str) and (
                    named is None or matches(self.check, name, named) is not False
                ):
                    yield name

    def _array(self, schema: Mapping[str, Any], where: str, depth: int, variant: int) -> Any:
        """Its ``minItems`` items, at least ``minContains`` (1 by default) of them where it
        has ``contains``, those first made of their own schema and ``contains`` as one;
        distinct ones (the ``variant``-th and those after it) where it says
        ``uniqueItems``."""
        count = _length(schema, "minItems") or 0
        contains = schema.get("contains")
        containing = 0
        if isinstance(contains, Mapping):
            least = _length(schema, "minContains")
            containing = 1 if least is None else max(least, 0)
            count = max(count, containing)
        count = min(count, max(self.left, 0))
        items, unique = schema.get("items", {}), schema.get("uniqueItems") is True
        prefix = schema.get("prefixItems", items if isinstance(items, list) else [])
        prefix = prefix if isinstance(prefix, list) else []
        rest = schema.get("additionalItems", {}) if isinstance(items, list) else items
        made = []
        for index in range(count):
            own, place = (
                (prefix[index], f"{where}.prefixItems.{index}")
                if index < len(prefix)
                else (rest, f"{where}.items")
            )
            if index < containing:
                own, place = _merged(self._part(own), self._part(contains)), f"{where}.contains"
            made.append(self.value(own, place, depth + 1, variant + index if unique else variant))
        if unique and len({_key(item) for item in made}) < len(made):
            raise UnmadeValue(
                f"{where}: uniqueItems asks for {count} distinct items, and the simulator "
                f"makes fewer distinct values of {where}.items"
            )
        return made

    def _string(self, schema: Mapping[str, Any], where: str, variant: int) -> str:
        """The text (numbered after the first), or the value of the schema's
        ``format``, made as long as ``minLength`` and ``maxLength`` allow; one its
        ``pattern`` makes where that one does not match it (never the first, the text
        again)."""
        form = schema.get("format")
        if isinstance(form, str) and form in _UNTOLD_FORMATS:
            raise UnmadeValue(
                f"{where}.format: {form!r} asks for {_UNTOLD_FORMATS[form]}, which the "
                "simulator cannot tell"
            )
        value = self._plain(schema, variant)
        pattern = schema.get("pattern")
        if not isinstance(pattern, str):
            return value
        shortest, longest = _length(schema, "minLength"), _length(schema, "maxLength")
        bounds = (pattern, shortest or 0, math.inf if longest is None else longest)
        try:  # a ValueError: no string is made, or a search backtracks past its bound
            if _found(pattern, value):
                return value
            made = self._pattern_string(*bounds, variant)
            first = self._plain(schema, 0)
            if variant and made == first and _found(pattern, first):
                made = self._pattern_string(*bounds, 0)  # the text took the first's place
        except ValueError as err:
            raise UnmadeValue(f"{where}.pattern: {err}") from None
        return made

    def _pattern_string(self, pattern: str, shortest: int, longest: float, variant: int) -> str:
        """The ``variant``-th string of ``pattern`` within the lengths; a ValueError
        saying why there is none."""
        bounds = (pattern, shortest, longest)
        if bounds not in self.patterns:
            self.patterns[bounds] = PatternStrings(*bounds)
        return self.patterns[bounds].nth(variant)

    def _plain(self, schema: Mapping[str, Any], variant: int) -> str:
        """The text (numbered after the first), or the value of the schema's
        ``format``, made as long as ``minLength`` and ``maxLength`` allow."""
        form = schema.get("format")
        formatted = _FORMATS.get(form) if isinstance(form, str) else None
        value = (
            formatted(variant) if formatted else self.text + (f" {variant + 1}" if variant else "")
        )
        shortest, longest = _length(schema, "minLength"), _length(schema, "maxLength")
        if longest is not None and len(value) > longest:
            cut = len(value) - max(longest, 0) if variant and not formatted else 0  # keep " 2"
            value = value[cut : cut + max(longest, 0)]
        if shortest is not None and len(value) < shortest:
            value += "x" * min(shortest - len(value), 100_000)
        return value


def _merged(schema: Mapping[str, Any], part: Mapping[str, Any]) -> Mapping[str, Any]:
    """``schema`` with the keywords of ``part`` (one of its ``allOf``): their properties
    and required names together (all of a part's properties where it names none
    required, as an object alone gives them), its other keywords over the schema's."""
    merged = {**schema, **part}
    required: list[Any] = []
    properties: dict[str, Any] = {}
    for one in (schema, part):
        own = one.get("properties")
        own = own if isinstance(own, Mapping) else {}
        properties.update(own)
        names = one.get("required", list(own))
        required += names if isinstance(names, list) else []
    if properties:
        merged["properties"] = properties
    if required:
        merged["required"] = list(dict.fromkeys(required))
    return merged


def _without(schema: Mapping[str, Any], *names: str) -> dict[str, Any]:
    """``schema`` without the keywords ``names``."""
    return {key: value for key, value in schema.items() if key not in names}


def _length(schema: Mapping[str, Any], name: str) -> int | None:
    value = schema.get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _found(pattern: str, value: str) -> bool:
    """Whether ``pattern`` matches somewhere in ``value`` (False when it is no pattern); a
    :class:`~replaygate.pattern_search.SlowPatternError` when the search backtracks
    past its time bound."""
    try:
        return searched(pattern, value)
    except (re.error, OverflowError, RecursionError):
        return False


def _key(value: Any) -> str:
    """``value`` as JSON Schema's equality sees it: 1 and 1.0 alike, keys in any order."""

    def plain(item: Any) -> Any:
        if isinstance(item, float) and item.is_integer():
            return int(item)
        if isinstance(item, dict):
            return {k: plain(v) for k, v in item.items()}
        return [plain(v) for v in item] if isinstance(item, list) else item

    return json.dumps(plain(value), sort_keys=True)


def _number(schema: Mapping[str, Any], integer: bool, variant: int) -> int | float:
    """The ``variant``-th number within ``minimum`` and ``maximum`` (their exclusive
    kin, numbers or draft 4's booleans), a multiple of ``multipleOf``: upwards from the
    least, else downwards from the most (or 0), else between the two; the first (or 0)
    when there are too few."""
    least, above, most, below, step = (
        _bound(schema, name)
        for name in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf")
    )
    if schema.get("exclusiveMinimum") is True:
        least, above = None, least
    if schema.get("exclusiveMaximum") is True:
        most, below = None, most

    def within(value: float) -> bool:
        return not (
            (least is not None and value < least)
            or (above is not None and value <= above)
            or (most is not None and value > most)
            or (below is not None and value >= below)
            or (step is not None and step > 0 and not (value / step).is_integer())
        )

    lowest = max((b for b in (least, above) if b is not None), default=None)
    highest = min((b for b in (most, below) if b is not None), default=None)
    unit = _unit(step, integer)
    made: list[float] = []
    for value in _numbers(lowest, highest, unit, variant + 64):
        if within(value) and value not in made:
            made.append(value)
            if len(made) > variant:
                return int(value) if integer else value
    if variant:
        return _number(schema, integer, 0)
    return 0 if integer else 0.0


def _unit(step: float | None, integer: bool) -> float | None:
    """The step between the numbers made: ``multipleOf`` (for an integer, its least whole
    multiple), 1 for an integer, None for any number."""
    if step is None or step <= 0:
        return 1.0 if integer else None
    return float(Fraction(step).limit_denominator(10**6).numerator) if integer else step


def _numbers(
    low: float | None, high: float | None, unit: float | None, count: int
) -> Iterator[float]:
    """Numbers to try, in order: multiples of ``unit`` upwards from ``low`` (else
    downwards from ``high`` or 0, else upwards from 0); without a unit, ``low`` and
    upwards, ``high`` and downwards, then between the two."""
    if unit is not None:
        if low is not None:
            first = math.ceil(low / unit)
            yield from (_times(n, unit) for n in range(first, first + count))
        elif high is not None:
            first = math.floor(min(high, 0.0) / unit)
            yield from (_times(n, unit) for n in range(first, first - count, -1))
        else:
            yield from (_times(n, unit) for n in range(count))
        return
    if low is not None:
        yield from (low + n for n in range(count))
    if high is not None:
        yield from (high - n for n in range(count))
    if low is not None and high is not None:
        yield from (low + (high - low) / (n + 2) for n in range(count))
    if low is None and high is None:
        yield from (float(n) for n in range(count))


def _times(n: int, unit: float) -> float:
    """``n`` times ``unit``, reckoned in decimal: ``3 * 0.07`` is ``0.21``, where in binary
    it is ``0.21000000000000002``, which pydantic's ``Decimal`` (``multiple_of``) refuses as
    no multiple of ``0.07``."""
    return float(Decimal(n) * Decimal(repr(unit)))


def _bound(schema: Mapping[str, Any], name: str) -> float | None:
    value = schema.get(name)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def schema_example(schema: Mapping[str, Any], text: str) -> Any:
    """The smallest value ``schema`` accepts, its strings ``text``; an
    :class:`UnmadeValue` when the simulator cannot make one, or the one it made fails
    the schema (as ``jsonschema`` checks it), naming where and why."""
    check = validator(schema)
    maker = _Maker(schema, text, check)
    made = maker.value(schema, "schema")
    problem = failure(check, made) if maker.left >= 0 else None  # cut short: None past it
    if problem is not None:
        raise UnmadeValue(problem)
    return made


def forced_call(
    response: ModelResponse, tools: Sequence[ToolSpec], messages: Sequence[Message], call_id: str
) -> ModelResponse:
    """``response`` as a request forcing a tool call gets it: unchanged when it calls one,
    else a call ``call_id`` of :func:`forced_tool` with arguments made from its schema (its
    strings the text the behaviour answered)."""
    if response.tool_calls or not tools:
        return response
    tool = forced_tool(tools, messages)
    try:
        arguments = schema_example(tool.input_schema, response.text or tool.name)
    except UnmadeValue as err:
        raise UnmadeValue(f"tool {tool.name!r}: its input {err}") from None
    call = ToolCall(
        id=call_id,
        name=tool.name,
        arguments=arguments if isinstance(arguments, dict) else {},
    )
    return ModelResponse(tool_calls=(call,), stop_reason="tool_use")


def forced_tool(tools: Sequence[ToolSpec], messages: Sequence[Message]) -> ToolSpec:
    """The tool a forced call takes: the first of ``tools`` not called since the last user
    turn, else (every one was called) the last. So an agent that must call a tool each
    turn and ends on one of them, as a framework's structured output does (pydantic-ai's
    ``final_result`` after its function tools), calls each tool once, then the last one
    again and again, instead of its first tool for ever."""
    called: set[str] = set()
    for message in reversed(messages):
        if message.role == "user":
            break
        called.update(call.name for call in message.tool_calls)
    return next((tool for tool in tools if tool.name not in called), tools[-1])


def in_json(response: ModelResponse, schema: Mapping[str, Any]) -> ModelResponse:
    """``response`` as a request asking for JSON of ``schema`` gets it: unchanged when it
    calls a tool, refuses (the API's refusal is words, no JSON), its text is JSON
    already, or it is JSON cut short at the token limit (a ``max_tokens`` answer opening
    an object or array: the truncated document a fake scripts, which made whole would
    parse where the API's does not), else JSON made from the schema (its strings the
    text the behaviour answered)."""
    if response.tool_calls or response.stop_reason == "refusal":
        return response
    if response.stop_reason == "max_tokens" and response.text.lstrip().startswith(("{", "[")):
        return response
    try:
        json.loads(response.text)
    except ValueError:
        try:
            made = schema_example(schema, response.text)
        except UnmadeValue as err:
            raise UnmadeValue(f"the JSON asked for: its {err}") from None
        text = json.dumps(made, ensure_ascii=False)
        return ModelResponse(text, (), response.stop_reason, response.usage)
    return response
