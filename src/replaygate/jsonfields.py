"""The field checks every eval document shares: results, baselines and history runs.

Each check raises :class:`~replaygate.jsondoc.FieldError` with the field's path and
what was expected and found; :func:`fields_of` adds the file, so an error reads
``runs.json: runs[0].time: must be an ISO 8601 time ..., got 'yesterday'``.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, TypeVar

import orjson

from replaygate.jsondoc import ErrorType, FieldError, count_field, got, shown

T = TypeVar("T")


_SURROGATE = re.compile("[\ud800-\udfff]")
"""Half of a surrogate pair: a string holding one is not valid text (UTF-8 cannot write it)."""


def _escaped(found: re.Match[str]) -> str:
    """The half of a surrogate pair ``found`` as its escape ``\\ud800``."""
    return found.group().encode("unicode_escape").decode("ascii")


def escape_surrogates(text: str) -> str:
    """``text`` with each half of a surrogate pair written as its escape ``\\ud800``."""
    return _SURROGATE.sub(_escaped, text)


def lone_surrogate(
    document: Any, *, skip: frozenset[str] = frozenset(), at: str = ""
) -> str | None:
    """Why parsed JSON is no Unicode text, if it is not: a string holding half of a
    surrogate pair (the escape ``\\ud800``, valid JSON), which could be neither printed
    nor stored, named by its field path (``runs[0].id: holds ...``; ``at`` is the path of
    ``document`` itself); ``None`` when every string is text. The values of keys in
    ``skip`` (a sample's output, kept as it was given) are not looked at.

    A document orjson writes holds no half of a surrogate pair anywhere (it refuses one,
    as any other string that is not UTF-8): it is not walked. One it refuses (for a half
    pair, maybe in a value of ``skip``, or for an integer wider than 64 bits) is."""
    try:
        orjson.dumps(document)
    except TypeError:  # orjson.JSONEncodeError among them
        pass
    else:
        return None
    stack: list[tuple[str, Any]] = [(at, document)]
    while stack:
        path, item = stack.pop()
        texts: list[tuple[str, Any]] = [("", item)] if isinstance(item, str) else []
        if isinstance(item, dict):
            texts += [("a key ", key) for key in item]
            stack += reversed([(join(path, k), v) for k, v in item.items() if k not in skip])
        elif isinstance(item, list):
            stack += reversed([(f"{path}[{i}]", value) for i, value in enumerate(item)])
        for what, text in texts:
            found = _SURROGATE.search(text) if isinstance(text, str) else None
            if found:
                reason = (
                    f"{what}holds {_escaped(found)}, half of a surrogate pair: not Unicode text"
                )
                return f"{path}: {reason}" if path else reason
    return None


def join(*parts: str) -> str:
    """A field path from its parts: ``join("runs[0]", "time")`` is ``runs[0].time``."""
    return ".".join(part for part in parts if part)


@contextmanager
def within(path: str) -> Iterator[None]:
    """Put ``path`` before the field of a :class:`FieldError` raised inside."""
    try:
        yield
    except FieldError as err:
        raise FieldError(join(path, err.field), str(err)) from None


@contextmanager
def fields_of(name: str, error: ErrorType) -> Iterator[None]:
    """Turn a :class:`FieldError` raised inside into ``error`` naming the file ``name``."""
    try:
        yield
    except FieldError as err:
        raise error(f"{name}: {described(err)}") from None


def described(err: FieldError) -> str:
    """``field: what is wrong`` (just what is wrong when it is the whole item)."""
    return f"{err.field}: {err}" if err.field else str(err)


def mapping(value: Any, field: str = "") -> dict[str, Any]:
    """``value`` if it is a JSON object, else :class:`FieldError`."""
    if not isinstance(value, dict):
        raise FieldError(field, f"must be an object, got {got(value)}")
    return value


def present(obj: Mapping[str, Any], field: str, what: str) -> Any:
    """``obj[field]``; a missing field is a :class:`FieldError` saying it is ``what``."""
    if field not in obj:
        raise FieldError(field, f"is missing; it must be {what}")
    return obj[field]


def _shown(key: str) -> str:
    """``key`` as a field path shows it: as it is, or quoted and escaped when it holds a
    character a terminal would act on (an escape sequence, a line break)."""
    return key if key.isprintable() else repr(key)


def each(
    obj: Mapping[str, Any],
    field: str,
    parse: Callable[[str, Any], T],
    *,
    key: str = "",
    required: bool = True,
) -> list[T]:
    """``parse(key, item)`` of each item of the list ``obj[field]`` (keys ``"0"``...) or,
    given what ``key`` it is keyed by, of the object ``obj[field]``; a :class:`FieldError`
    is put under ``field[i]`` or ``field.<key>``. A field not ``required`` may be missing."""
    shape = f"an object keyed by {key}" if key else "a list"
    if not required and field not in obj:
        return []
    value = present(obj, field, shape)
    if not isinstance(value, dict if key else list):
        raise FieldError(field, f"must be {shape}, got {got(value)}")
    if key and "" in value:
        raise FieldError(field, f"a {key} must be a non-empty string, got ''")
    pairs = value.items() if isinstance(value, dict) else enumerate(value)
    parsed = []
    for name, item in pairs:
        with within(f"{field}.{_shown(str(name))}" if key else f"{field}[{name}]"):
            parsed.append(parse(str(name), item))
    return parsed


def listed_once(ids: Iterable[str], field: str, what: str, why: str) -> None:
    """Refuse an id found twice in the list ``field``, naming both places and ``why``."""
    first: dict[str, int] = {}
    for i, item in enumerate(ids):
        if item in first:
            where = f"{field}[{first[item]}]"
            raise FieldError(f"{field}[{i}]", f"{what} {item!r} is already at {where}; {why}")
        first[item] = i


def count(obj: Mapping[str, Any], field: str, minimum: int, maximum: int | None = None) -> int:
    """``obj[field]``, an integer from ``minimum`` (to ``maximum``), present."""
    present(obj, field, "an integer")
    return count_field(obj, field, minimum, maximum)


def checked(obj: Mapping[str, Any], field: str, check: Callable[[Any], T], default: Any) -> T:
    """``check(obj[field])`` (of ``default`` when missing); its ``ValueError`` (``"kind
    must be ..."``) becomes a :class:`FieldError`."""
    try:
        return check(obj.get(field, default))
    except ValueError as err:
        raise FieldError(field, str(err).removeprefix(f"{field} ")) from None


def known_fields(obj: Mapping[str, Any], fields: Sequence[str]) -> Mapping[str, Any]:
    """``obj``, or a :class:`FieldError` on ``obj`` itself naming its first key not in
    ``fields``: a field no reader reads would pass every check unread, and a writer that
    rewrites the file (``baseline update``) would drop it without a word."""
    for name in obj:
        if name not in fields:
            raise FieldError(
                "",
                f"unknown field {shown(name)}: replaygate neither reads nor keeps it "
                f"(known: {', '.join(fields)})",
            )
    return obj


def text_field(obj: Mapping[str, Any], field: str) -> str:
    """``obj[field]``, a non-empty string."""
    value = present(obj, field, "a non-empty string")
    if not isinstance(value, str) or not value.strip():
        raise FieldError(field, f"must be a non-empty string, got {got(value)}")
    return value


def optional_text(obj: Mapping[str, Any], field: str) -> str | None:
    """``obj[field]``, a string or null (null when missing)."""
    value = obj.get(field)
    if value is not None and not isinstance(value, str):
        raise FieldError(field, f"must be a string or null, got {got(value)}")
    return value


def flag(obj: Mapping[str, Any], field: str) -> bool:
    """``obj[field]``, true or false (a string "false" is not read as true)."""
    value = present(obj, field, "true or false")
    if not isinstance(value, bool):
        raise FieldError(field, f"must be true or false, got {got(value)}")
    return value


def optional_number(
    obj: Mapping[str, Any], field: str, minimum: float | None = None
) -> float | None:
    """``obj[field]``, a number (at least ``minimum``, within a float's range) or null
    (null when missing)."""
    value = obj.get(field)
    if value is None:
        return None
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if not number or abs(value) > sys.float_info.max or (minimum is not None and value < minimum):
        least = "" if minimum is None else f" at least {minimum:g}"
        raise FieldError(field, f"must be a number{least} or null, got {got(value)}")
    return float(value)


class NoUtcTimeError(ValueError):
    """An ISO 8601 time whose offset puts it before year 1 or after 9999 in UTC."""


def parse_time(text: str) -> datetime:
    """An ISO 8601 time (``Z`` allowed) as an aware datetime (UTC when it names no zone);
    :class:`NoUtcTimeError` for one that names no time in UTC."""
    value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if not value.tzinfo:
        return value.replace(tzinfo=UTC)
    try:
        value.astimezone(UTC)  # 0001-01-01T00:00:00+01:00 names no time in UTC
    except OverflowError:
        raise NoUtcTimeError(
            f"{text} has no UTC equivalent (it falls before 0001-01-01T00:00:00Z or after "
            "9999-12-31T23:59:59Z)"
        ) from None
    return value


def time_field(obj: Mapping[str, Any], field: str) -> str:
    """``obj[field]``, an ISO 8601 time such as ``2026-11-30T06:08:09Z``."""
    value = present(obj, field, "an ISO 8601 time")
    try:
        parse_time(value)
    except NoUtcTimeError as err:
        raise FieldError(field, str(err)) from None
    except (TypeError, ValueError, AttributeError):
        raise FieldError(
            field, f"must be an ISO 8601 time such as 2026-11-30T06:08:09Z, got {got(value)}"
        ) from None
    return str(value)


def same(stored: Any, computed: Any) -> bool:
    """Whether a value a file states is the one recomputed (of its type; floats to 1e-9)."""
    if isinstance(computed, float) and type(stored) in (int, float):
        return math.isclose(stored, computed, rel_tol=1e-9, abs_tol=1e-12)
    return type(stored) is type(computed) and bool(stored == computed)


def agree(obj: Mapping[str, Any], field: str, computed: Any, source: str) -> None:
    """Refuse ``obj[field]`` (when given) unless it is ``computed``, what ``source`` give."""
    if field in obj and not same(obj[field], computed):
        raise FieldError(field, f"says {got(obj[field])}, but {source} give {got(computed)}")
