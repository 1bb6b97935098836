"""Reading vcrpy cassettes: the validated interactions of a YAML or JSON cassette file.

A cassette (vcrpy's format version 1) is ``{"version": 1, "interactions": [...]}``.
Each interaction holds a ``request`` (``method``, ``uri``, ``headers`` as name -> list
of values, ``body``) and a ``response`` (``status.code``, ``headers``, ``body.string``).
A body is text, bytes (YAML ``!!binary``), ``null``, or any of these under
``{"string": ...}``; a response in the form older vcrpy releases wrote for ``httpx``
(``status_code``, ``headers``, ``content``) is read too. A response body sent with
``content-encoding: gzip`` or ``deflate`` is decoded, as an HTTP client hands it to
its caller. Anything else is a :class:`CassetteError` naming the file, the
interaction and the field.

YAML, vcrpy's default serializer, needs PyYAML (``pip install 'replaygate[cassettes]'``);
JSON cassettes are read with the standard library.
"""

from __future__ import annotations

import codecs
import functools
import json
import os
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from replaygate import strict_json
from replaygate.errors import (
    ReplaygateError,
    first_few,
    kind_of,
    looks_like_wide_text,
    shown_file,
    undecodable_byte,
    wide_reason,
)
from replaygate.extras import require
from replaygate.fixtures.store.files import MAX_LINE_BYTES
from replaygate.fixtures.store.folder import FolderWalk
from replaygate.http.codings import DECODED, NoDecoder, PastRoom, is_text, undone
from replaygate.jsondoc import FieldError, version_of
from replaygate.regular import read_regular_bytes, unreadable

CASSETTE_SUFFIXES: tuple[str, ...] = (".yaml", ".yml", ".json")
"""The file names read as cassettes (JSON by ``.json``, YAML otherwise)."""

CASSETTE_VERSION = 1
Headers = tuple[tuple[str, str], ...]


class CassetteError(ReplaygateError):
    """A cassette that cannot be read: the file, and where known the interaction and field."""

    def __init__(
        self, file: Path, reason: str, *, index: int | None = None, field: str | None = None
    ) -> None:
        self.file = file
        self.index = index
        self.field = field
        where = [shown_file(str(file))]  # a name holding a newline stays on one line
        if index is not None:
            where.append(f"interaction {index}")
        if field is not None:
            where.append(field)
        super().__init__(f"{': '.join(where)}: {reason}")


@dataclass(frozen=True, slots=True)
class CassetteRequest:
    """A recorded request: method, absolute URI, headers in order, body bytes as sent."""

    method: str
    uri: str
    headers: Headers
    body: bytes


@dataclass(frozen=True, slots=True)
class CassetteResponse:
    """A recorded response: status, headers in order, and the decoded body bytes."""

    status: int
    headers: Headers
    body: bytes


@dataclass(frozen=True, slots=True)
class Interaction:
    """The ``index``-th (0-based) request of a cassette and the response it got."""

    index: int
    request: CassetteRequest
    response: CassetteResponse


@dataclass(frozen=True, slots=True)
class FoundCassettes:
    """The cassette files :func:`find_cassettes` found, and each folder it could not list."""

    files: list[Path]
    unlisted: list[CassetteError] = field(default_factory=list)


def find_cassettes(root: Path) -> FoundCassettes:
    """``root`` itself when it is not a folder, else every cassette file under it, sorted.

    The walk follows a symlink to a folder and lists each real folder once, as a folder
    store's walk does (:class:`~replaygate.fixtures.store.folder.FolderWalk`): a folder
    reached again (a link back up, a second link to one folder) is not walked again, nor
    is a tool's folder (``.venv``, ``node_modules``, a virtualenv: its
    :meth:`~replaygate.fixtures.store.folder.FolderWalk.project_folders`). A folder that
    cannot be listed (no permission, past the system's path limit) is named in
    :attr:`FoundCassettes.unlisted`, never passed over. What is not a regular file (a
    FIFO, a device, a symlink loop or to nothing) is listed too, to be refused by its
    name when it is read.
    """
    if not root.is_dir():
        return FoundCassettes([root])
    found = FoundCassettes([])

    def unlisted(err: OSError) -> None:
        if not isinstance(err, FileNotFoundError):  # gone since its folder was listed
            reason = unreadable(err.filename, err, "folder")
            found.unlisted.append(CassetteError(Path(err.filename), reason))

    for folder, _, names in FolderWalk(os.fspath(root)).project_folders(unlisted):
        found.files.extend(
            Path(folder, name) for name in names if Path(name).suffix in CASSETTE_SUFFIXES
        )
    found.files.sort()
    return found


def read_cassette(path: Path) -> tuple[Interaction, ...]:
    """Every interaction of the cassette at ``path``, in recorded order."""
    data = _parse(path)
    if not isinstance(data, Mapping):
        shape = "a list (vcrpy's format from before 1.0)" if isinstance(data, list) else "no object"
        raise CassetteError(path, f"not a vcrpy cassette: {shape}; expected an object")
    if "version" not in data:
        other = _other_recording(data)
        if other is not None:
            raise CassetteError(
                path,
                f"not a vcrpy cassette: it looks like {other}; replaygate imports vcrpy's "
                "and pytest-recording's cassettes only",
            )
        raise CassetteError(path, "missing field 'version'")
    try:
        version = version_of(data)
    except FieldError as err:
        raise CassetteError(path, str(err), field=err.field) from None
    if version != CASSETTE_VERSION:
        raise CassetteError(
            path,
            f"unknown cassette version {version!r}: replaygate reads vcrpy's "
            f"version {CASSETTE_VERSION}",
            field="version",
        )
    if "interactions" not in data:
        raise CassetteError(path, "missing field 'interactions' (a list)")
    interactions = data["interactions"]
    if not isinstance(interactions, list):
        raise CassetteError(path, _expected("a list", interactions), field="interactions")
    return tuple(_Fields(path, i).interaction(item) for i, item in enumerate(interactions))


_RECORDERS = {"betamax": "Betamax", "vcr": "Ruby VCR"}
"""The libraries that write ``http_interactions``, by the first word of ``recorded_with``."""


def _other_recording(data: Mapping[Any, Any]) -> str | None:
    """What other library's recording ``data`` (with no ``version``) looks like, with the
    fields that tell it, or None: Betamax's or Ruby VCR's (``http_interactions``, told
    apart by ``recorded_with``), a HAR file (``log``), a ``responses`` recorder's file
    (``responses``)."""
    if "http_interactions" in data:
        recorder = data.get("recorded_with")
        if not isinstance(recorder, str):
            return "a Betamax or Ruby VCR recording (http_interactions)"
        word = re.split("[^a-z]", recorder.lower(), maxsplit=1)[0]
        library = _RECORDERS.get(word, "Betamax or Ruby VCR")
        return f"a {library} recording (http_interactions, recorded_with {recorder!r})"
    if isinstance(data.get("log"), Mapping):
        return "a HAR file (log)"
    if "responses" in data:
        return "a responses recorder's file (responses)"
    return None


def _expected(what: str, value: Any) -> str:
    """``expected <what>, got <value>``: a field of the wrong kind, named in a user's words."""
    return f"expected {what}, got {kind_of(value)}"


class _LongInteger:
    """An integer of more digits than Python reads (``sys.get_int_max_str_digits()``),
    kept as its length: no field of a cassette holds one, and the error of the field it
    stands in names it so, where reading it failed with Python's advice to raise the
    limit."""

    def __init__(self, text: str) -> None:
        self.digits = sum(char.isdigit() for char in text)

    def __repr__(self) -> str:
        return f"an integer of {self.digits:,} digits (too long to read)"


def _integer(text: str) -> int | _LongInteger:
    """A JSON integer, or a :class:`_LongInteger` where Python reads none that long."""
    try:
        return int(text)
    except ValueError:  # beyond sys.get_int_max_str_digits()
        return _LongInteger(text)


YAML_STR = "tag:yaml.org,2002:str"
PYTHON_STRINGS = ("tag:yaml.org,2002:python/unicode", "tag:yaml.org,2002:python/str")
"""The tags of the Python 2 text a vcrpy cassette of Python 2 holds (``!!python/unicode
'text'``), read as text, as vcrpy reads them; no other Python tag is read."""


@functools.cache
def _yaml_loader() -> Any:
    """PyYAML's safe loader (its C one where built), reading an integer of too many
    digits as a :class:`_LongInteger`, and :data:`PYTHON_STRINGS` as text."""
    yaml = require("yaml", "cassettes", "replaygate import-cassettes (YAML cassettes)")
    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    def integer(loader: Any, node: Any) -> int | _LongInteger:
        try:
            return int(base.construct_yaml_int(loader, node))
        except ValueError:  # beyond sys.get_int_max_str_digits()
            return _LongInteger(node.value)

    loader: Any = type("Loader", (base,), {})
    loader.add_constructor("tag:yaml.org,2002:int", integer)
    for tag in PYTHON_STRINGS:
        loader.add_constructor(tag, base.construct_yaml_str)
    return loader


def require_yaml(files: Sequence[Path]) -> None:
    """PyYAML installed where ``files`` (cassettes to import) hold a YAML one: else one
    :class:`~replaygate.errors.MissingExtraError` naming them, before any is imported
    (each one's own error, the JSON ones imported, and the same install line each time)."""
    yamls = [str(file) for file in files if file.suffix != ".json"]
    if yamls:
        require("yaml", "cassettes", f"reading the YAML cassettes ({first_few(yamls, 3)})")


def _parse(path: Path) -> Any:
    """The parsed document; a syntax error names the file and its line."""
    try:
        raw = read_regular_bytes(path)
    except OSError as err:
        raise CassetteError(path, unreadable(path, err, "cassette file")) from None
    if path.suffix == ".json":
        try:
            return strict_json.loads(raw, strict_numbers=False, parse_int=_integer)
        except strict_json.DuplicateKeyError as err:
            raise _named_twice(path, err.path) from None
        except RecursionError:
            raise CassetteError(path, "not valid JSON: nested too deeply") from None
        except UnicodeDecodeError as err:  # UTF-8, or UTF-16 or -32 as its bytes say
            raise CassetteError(path, _undecodable(path, raw, err.start)) from None
        except ValueError as err:  # a syntax error
            line = f" at line {err.lineno}" if isinstance(err, json.JSONDecodeError) else ""
            raise CassetteError(path, f"not valid JSON{line}: {err}") from None
    yaml = require("yaml", "cassettes", "replaygate import-cassettes (YAML cassettes)")
    loader = _yaml_loader()
    problem = _not_yaml_text(path, raw)
    if problem is not None:
        raise CassetteError(path, problem)
    try:
        root = yaml.compose(raw, Loader=loader)
        problem = _alias_problem(root)
        if problem is not None:
            raise CassetteError(path, problem)
        twice = _key_named_twice(root)
        if twice is not None:
            raise _named_twice(path, *twice)
        return yaml.load(raw, Loader=loader)
    except yaml.YAMLError as err:
        raise CassetteError(path, _yaml_reason(err)) from None


def _yaml_reason(err: Any) -> str:
    """PyYAML's error ``err`` on one line, at the line and column of its mark. A reader
    error, which has none, is not left to PyYAML: :func:`_not_yaml_text` finds it first."""
    mark = getattr(err, "problem_mark", None)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    problem = getattr(err, "problem", None) or str(err)
    return f"not valid YAML{where}: {' '.join(problem.split())}"


def _not_yaml_text(path: Path, raw: bytes) -> str | None:
    """Why YAML cassette ``raw`` is no text, in the fixture store's words, or None: a
    byte that is not UTF-8 by its line and column, UTF-32, or UTF-16 without a byte
    order mark, with the commands that convert it; a character YAML does not allow
    (:func:`_unprintable`). UTF-16 with its byte order mark is read, as PyYAML reads it
    (UTF-32's little-endian mark starts as UTF-16's does), unless its bytes are not
    UTF-16. PyYAML's reader names each of these by a position, in bytes (libyaml) or in
    characters (its own reader), on a second line: they are named here by line and
    column instead."""
    utf16 = raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
    utf16 = utf16 and not raw.startswith(codecs.BOM_UTF32_LE)
    try:
        text = raw.decode("utf-16" if utf16 else "utf-8")
    except UnicodeDecodeError as err:
        return _not_utf16(raw, err) if utf16 else _undecodable(path, raw, err.start)
    if not utf16 and "\0" in text and looks_like_wide_text(raw):
        return wide_reason(str(path), raw, 1)
    return _unprintable(text.removeprefix("\ufeff"))


_UNPRINTABLE = re.compile("[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
"""A character YAML text cannot hold (PyYAML's and libyaml's reader refuse it): a control
character other than tab, line feed, carriage return and NEL, or U+FFFE or U+FFFF."""
_YAML_BREAK = re.compile("\r\n?|[\n\x85\u2028\u2029]")
"""A line break as YAML counts lines (PyYAML's marks)."""


def _unprintable(text: str) -> str | None:
    """Why YAML ``text`` (its byte order mark left out) cannot be read, or None: the
    first character it cannot hold, by its code point, line and column, with what to
    write instead."""
    found = _UNPRINTABLE.search(text)
    if found is None:
        return None
    char = found.group()
    what = "a control character" if unicodedata.category(char) == "Cc" else "a noncharacter"
    escape = char.encode("unicode_escape").decode("ascii")
    return (
        f"not valid YAML at {_place(text, found.start())}: {what} (U+{ord(char):04X}), which "
        f'YAML text cannot hold: delete it, or write it as "{escape}" in a double-quoted string'
    )


def _place(text: str, at: int) -> str:
    """``line 3, column 12``: where character ``at`` of YAML ``text`` is, counted from 1
    as PyYAML's marks are (a line ends at CR, LF, CR LF, NEL, U+2028 or U+2029)."""
    breaks = list(_YAML_BREAK.finditer(text, 0, at))
    start = breaks[-1].end() if breaks else 0
    return f"line {len(breaks) + 1}, column {at - start + 1}"


def _not_utf16(raw: bytes, err: UnicodeDecodeError) -> str:
    """Why ``raw``, UTF-16 by its byte order mark, is not: the bytes the codec refused, by
    their line and column and its reason (half of a surrogate pair, an odd byte at the end)."""
    head = raw[: err.start].decode("utf-16").removeprefix("\ufeff")
    shown = " ".join(f"0x{byte:02x}" for byte in raw[err.start : err.end])
    return f"not UTF-16 text (bytes {shown} at {_place(head, len(head))}: {err.reason})"


def _undecodable(path: Path, raw: bytes, start: int) -> str:
    """Why cassette ``raw``, not UTF-8 from byte ``start``, cannot be read: UTF-32 or
    UTF-16 (cut short, or without a byte order mark) with the commands that convert it,
    else the byte by its line and column."""
    if looks_like_wide_text(raw):
        return wide_reason(str(path), raw, 1)
    return undecodable_byte(raw, start, whole=True)[1]


MAX_EXPANDED_VALUES = 5_000_000
"""The most values a cassette may hold once its YAML aliases are expanded."""
MAX_EXPANDED_TEXT = 1 << 28
"""The most characters its texts may hold once expanded (256 Mi)."""


def _alias_problem(root: Any) -> str | None:
    """Why the composed YAML document ``root`` cannot be imported, or None: an alias that
    holds itself, or aliases that expand to more values or text than any cassette holds
    (a "billion laughs": a 700-byte file held 10**9 values, and importing it took
    gigabytes and never ended). Each node is sized once: an alias is the node it names."""
    if root is None:
        return None
    sizes: dict[int, tuple[int, int]] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            open_nodes.discard(key)
            values, text = 1, 0
            for child in _children(node):
                child_values, child_text = sizes[id(child)]
                values, text = values + child_values, text + child_text
            if values > MAX_EXPANDED_VALUES or text > MAX_EXPANDED_TEXT:
                return (
                    "its YAML aliases (&name, *name) expand to more than "
                    f"{MAX_EXPANDED_VALUES:,} values or {MAX_EXPANDED_TEXT:,} characters "
                    f"(from line {node.start_mark.line + 1}): no cassette holds that much"
                )
            sizes[key] = (values, text)
            continue
        if key in sizes:
            continue
        if key in open_nodes:
            return f"a YAML alias holds itself (at line {node.start_mark.line + 1})"
        if not _children(node):
            sizes[key] = (1, len(node.value) if isinstance(node.value, str) else 0)
            continue
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in sizes)
    return None


def _key_named_twice(root: Any) -> tuple[str, int] | None:
    """The field path and line of the first key a mapping of the composed YAML document
    ``root`` names twice (YAML keeps the last value, as if the first were not there), or
    None. Each node is looked at once: an alias is the node it names."""
    seen: set[int] = set()
    stack: list[tuple[str, Any]] = [("", root)] if root is not None else []
    while stack:
        path, node = stack.pop()
        if id(node) in seen or not isinstance(node.value, list):
            continue
        seen.add(id(node))
        if not node.value or not isinstance(node.value[0], tuple):  # a sequence
            stack.extend(reversed([(f"{path}[{i}]", item) for i, item in enumerate(node.value)]))
            continue
        named: set[tuple[str, str]] = set()
        inside: list[tuple[str, Any]] = []
        for key, value in node.value:
            field = f"{path}.{key.value}" if path else str(key.value)
            if isinstance(key.value, str):  # a scalar key (its text, whatever its type)
                tag = YAML_STR if key.tag in PYTHON_STRINGS else key.tag
                if (tag, key.value) in named:
                    return field, key.start_mark.line + 1
                named.add((tag, key.value))
            inside.append((field, value))
        stack.extend(reversed(inside))
    return None


def _named_twice(file: Path, path: str, line: int | None = None) -> CassetteError:
    """The error for a key named twice at field ``path`` (``interactions[0].request.method``),
    naming the interaction and the field apart, and the line when known."""
    at = f" (line {line})" if line is not None else ""
    reason = (
        f"duplicate key{at}: an object names it twice, and only its last value would be "
        "read; keep one"
    )
    head, dot, rest = path.partition(".")
    if head.startswith("interactions[") and head.endswith("]") and dot:
        index = int(head[len("interactions[") : -1])
        return CassetteError(file, reason, index=index, field=rest)
    return CassetteError(file, reason, field=path)


def _children(node: Any) -> list[Any]:
    """The nodes a composed YAML node holds (a mapping's keys and values)."""
    value = node.value
    if not isinstance(value, list):
        return []
    return [part for item in value for part in (item if isinstance(item, tuple) else (item,))]


class _Fields:
    """Reads the fields of interaction ``index`` of ``file``; a wrong one is named."""

    def __init__(self, file: Path, index: int) -> None:
        self.file = file
        self.index = index

    def fail(self, field: str, reason: str) -> CassetteError:
        return CassetteError(self.file, reason, index=self.index, field=field)

    def get(self, obj: Any, field: str) -> Any:
        """``obj[last part of field]``, or an error naming ``field`` as missing (or the
        object holding it, when that is not an object)."""
        parent, _, name = field.rpartition(".")
        if not isinstance(obj, Mapping):
            raise CassetteError(
                self.file, _expected("an object", obj), index=self.index, field=parent or None
            )
        if name not in obj:
            raise self.fail(field, "missing field")
        return obj[name]

    def interaction(self, item: Any) -> Interaction:
        request = self.get(item, "request")
        response = self.get(item, "response")
        return Interaction(self.index, self.request(request), self.response(response))

    def request(self, obj: Any) -> CassetteRequest:
        method = self.get(obj, "request.method")
        if not isinstance(method, str) or not method:
            raise self.fail("request.method", f"expected an HTTP method, got {method!r}")
        uri = self.get(obj, "request.uri")
        if not isinstance(uri, str) or not uri.startswith(("http://", "https://")):
            raise self.fail("request.uri", f"expected an absolute http(s) URI, got {uri!r}")
        headers = self.headers(self.get(obj, "request.headers"), "request.headers")
        sent = self.get(obj, "request.body")
        if isinstance(sent, list) or (isinstance(sent, Mapping) and "string" not in sent):
            body = self.sent_json(sent)
        else:
            body = self.json_body(self.body(sent, "request.body"), "request.body")
        return CassetteRequest(method, uri, headers, body)

    def sent_json(self, value: Any) -> bytes:
        """The body aiohttp sent for ``json=value``, which vcrpy's aiohttp stub records as
        the object itself, not as text: ``json.dumps`` of it, as aiohttp writes it."""
        try:
            return json.dumps(value, allow_nan=False).encode("utf-8")
        except (TypeError, ValueError) as err:
            raise self.fail("request.body", f"an object that is not JSON ({err})") from None

    def response(self, obj: Any) -> CassetteResponse:
        """A response; ``status_code`` and ``content`` are the form older vcrpy releases
        wrote for ``httpx``, whose ``content`` is the body httpx handed over, already
        decoded, under the ``content-encoding`` header the server sent: no coding is
        undone for it."""
        legacy = isinstance(obj, Mapping) and "status_code" in obj and "status" not in obj
        if legacy:
            code_field, body_field, status = "response.status_code", "response.content", obj
        else:
            code_field, body_field = "response.status.code", "response.body"
            status = self.get(obj, "response.status")
        code = self.get(status, code_field)
        if not isinstance(code, int) or isinstance(code, bool) or not 100 <= code <= 599:
            raise self.fail(code_field, f"expected an HTTP status, got {code!r}")
        headers = self.headers(self.get(obj, "response.headers"), "response.headers")
        body = self.body(self.get(obj, body_field), body_field)
        if legacy:
            headers = tuple((k, v) for k, v in headers if k.lower() != "content-encoding")
        else:
            body = self.decoded(body, headers)
        return CassetteResponse(code, headers, self.json_body(body, body_field))

    def headers(self, obj: Any, field: str) -> Headers:
        """Headers as (name, value) pairs; a value is a string or a list of strings."""
        if obj is None:
            return ()
        if not isinstance(obj, Mapping):
            raise self.fail(field, _expected("an object of header names", obj))
        pairs: list[tuple[str, str]] = []
        for name, values in obj.items():
            listed = values if isinstance(values, list) else [values]
            if not all(isinstance(v, str) for v in listed):
                raise self.fail(f"{field}.{name}", f"expected strings, got {values!r}")
            pairs.extend((str(name), value) for value in listed)
        return tuple(pairs)

    def body(self, obj: Any, field: str) -> bytes:
        """The body bytes of ``null``, text, bytes, or ``{"string": ...}`` of one of them;
        ``{}`` is none (vcrpy's aiohttp stub writes it for a response it read no body of)."""
        if isinstance(obj, Mapping):
            if not obj:
                return b""
            return self.content(self.get(obj, f"{field}.string"), f"{field}.string")
        return self.content(obj, field)

    def content(self, obj: Any, field: str) -> bytes:
        """The bytes of the body ``obj`` at ``field``: ``null``, text or bytes."""
        if obj is None:
            return b""
        if isinstance(obj, bytes):
            return obj
        if isinstance(obj, str):
            try:
                return obj.encode("utf-8")
            except UnicodeEncodeError as err:
                raise self.fail(field, f"text that is not UTF-8: {err.reason}") from None
        raise self.fail(field, f"expected text or bytes, got {kind_of(obj)}")

    def json_body(self, body: bytes, field: str) -> bytes:
        """``body``, refused when it is JSON whose object names a key twice: the fixture
        would hold only the last value, a request or an answer nobody sent."""
        try:
            strict_json.loads(body, strict_numbers=False)
        except strict_json.DuplicateKeyError as err:
            raise self.fail(field, f"its JSON has a {err}") from None
        except (ValueError, RecursionError):  # not JSON (text, events): stored as it is
            pass
        return body

    def decoded(self, body: bytes, headers: Headers) -> bytes:
        """``body`` with its ``content-encoding`` undone (as a request body's, see
        :mod:`replaygate.http.codings`), last applied first. A body that is UTF-8 text where
        a coding fails, which a compressed body almost never is, was decoded already
        (vcrpy's aiohttp stub records the body aiohttp handed over under the server's
        ``content-encoding``): it is kept as it is."""
        codings = [
            coding.strip().lower()
            for name, value in headers
            if name.lower() == "content-encoding"
            for coding in value.split(",")
        ]
        for coding in reversed(codings):
            if coding in ("identity", ""):
                continue
            try:
                decoded, needs = self.undo(coding, body), None
            except NoDecoder as missing:
                decoded, needs = None, str(missing)
            if decoded is not None:
                body = decoded
            elif is_text(body):
                return body
            elif needs is None:
                raise self.fail(
                    "response.body",
                    f"not {coding} data as its content-encoding says (cut short, or other "
                    "bytes after its end)",
                )
            else:
                what = f"here: it needs {needs}" if needs else f"(replaygate decodes {DECODED})"
                raise self.fail(
                    "response.headers.content-encoding",
                    f"content-encoding {coding!r} cannot be decoded {what}",
                )
        return body

    def undo(self, coding: str, body: bytes) -> bytes | None:
        """``body`` with ``coding`` undone, decoded to no more than a fixture holds (a
        compressed body can grow a thousandfold: one that decodes to more is refused, never
        decoded whole); an empty body (of a ``HEAD``, a 204) is left as it is; None when its
        bytes are not of that coding; :class:`~replaygate.http.codings.NoDecoder` when that
        coding cannot be decoded here."""
        if not body:
            return body
        try:
            data = undone(coding, body, MAX_LINE_BYTES)
        except PastRoom:
            reason = (
                f"decodes to more than {MAX_LINE_BYTES:,} bytes ({coding}), more than a fixture "
                "can hold; it was not decoded further"
            )
            raise self.fail("response.body", reason) from None
        return data
