"""Eval cases in JSONL: one case per line, every error with file and line.

A case::

    {"id": "rag-basics", "question": "What is RAG?",
     "must_contain": ["retrieval-augmented generation"],
     "aliases": {"retrieval-augmented generation": ["检索增强生成"]},
     "expected_doc_ids": ["doc-rag"], "schema": null,
     "samples": 5, "floor": 4, "tags": ["rag"], "signals": []}

``id``, ``question`` (or ``input``), ``samples`` and ``floor`` are required: a case
declares its sample count and pass floor beside its expectations (law 7). The
expectations (``must_contain`` with ``aliases``, ``expected_doc_ids``, ``schema``)
become checks; each is a gate unless named in ``signals``. ``"cost": false`` opts a
case out of the cost metrics (its model need not have a price); the results say so.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from replaygate import json_schema, jsondoc, strict_json
from replaygate.assertions.citations import citable
from replaygate.errors import (
    LFS_POINTER,
    checked_out_link,
    has_control,
    jsonl_not_utf8,
    lfs_pointer_reason,
    line_encoding_reason,
)
from replaygate.evals.errors import CaseFormatError
from replaygate.jsondoc import FieldError, count_field
from replaygate.jsonfields import lone_surrogate
from replaygate.jsonl_spread import array_reason, spread_at, spread_reason
from replaygate.reasons import BIDI_CONTROLS, DIRECTION_MARKS, LINE_SEPARATORS, ZERO_WIDTH
from replaygate.regular import is_blank, read_regular_bytes, text_lines
from replaygate.sampling.verdict import MAX_SAMPLES, SampleSpec, rate_note
from replaygate.unicode_forms import told

EXPECTATIONS = ("contains", "citations", "schema")
"""Names of the checks a case's expectations become."""
FIELDS = (
    "id",
    "question",
    "input",
    "must_contain",
    "aliases",
    "expected_doc_ids",
    "schema",
    "samples",
    "floor",
    "tags",
    "signals",
    "cost",
)


@dataclass(frozen=True)
class EvalCase:
    """One eval case: the question, what a good answer satisfies, samples and floor."""

    id: str
    question: str
    samples: int
    floor: int
    must_contain: tuple[str, ...] = ()
    aliases: Mapping[str, tuple[str, ...]] | None = None
    expected_doc_ids: tuple[str, ...] = ()
    schema: Mapping[str, Any] | None = None
    tags: tuple[str, ...] = ()
    signals: tuple[str, ...] = ()
    cost: bool = True
    file: str = ""
    line: int = 0

    def __post_init__(self) -> None:
        # A case built in code may give any iterable: a generator, read once by the first
        # check, left every later one nothing to require, and a string is no list of them.
        for name in ("must_contain", "expected_doc_ids", "tags", "signals"):
            value = getattr(self, name)
            if isinstance(value, str | bytes):
                raise TypeError(f"EvalCase.{name}: a list of strings, got {value!r}")
            object.__setattr__(self, name, tuple(value))

    @property
    def where(self) -> str:
        """``file:line`` of the case."""
        return f"{self.file}:{self.line}"


def load_eval_cases(path: str | os.PathLike[str]) -> list[EvalCase]:
    """Read eval cases from the JSONL file ``path``.

    Raises :class:`CaseFormatError` naming the file and line of the first bad case:
    malformed JSON, a missing or unknown field, a wrong type, a floor outside
    ``1..samples``, an alias for a term that is not required, an invalid schema or a
    duplicate id.
    """
    file = Path(path)
    name = str(file)
    try:
        data = read_regular_bytes(file)
    except OSError as err:
        raise CaseFormatError(name, 0, f"cannot read cases: {err.strerror}") from None
    if data.startswith(LFS_POINTER):
        raise CaseFormatError(name, 1, lfs_pointer_reason("eval cases"))
    link = checked_out_link(data)
    if link is not None:
        raise CaseFormatError(name, 1, link)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise CaseFormatError(name, *jsonl_not_utf8(data, err.start, name)) from None
    cases: list[EvalCase] = []
    seen: dict[str, int] = {}
    forms: dict[str, str] = {}  # each id as it prints -> the id written so first
    lines = [raw for _, raw in text_lines(text)]
    for number, raw in enumerate(lines, start=1):
        if is_blank(raw):
            continue
        try:
            case = parse_case(raw, name, number)
        except CaseFormatError:  # named as the store names it: the encoding, pretty JSON
            encoding = line_encoding_reason(raw.encode("utf-8", "surrogatepass"), name, number)
            reason = _zero_filled(raw) or encoding or _spread_reason(lines, number, name)
            if reason is None:
                raise
            raise CaseFormatError(name, number, reason) from None
        if case.id in seen:
            raise CaseFormatError(
                name, number, f"duplicate case id {case.id!r} (first at line {seen[case.id]})"
            )
        twin = forms.setdefault(_as_printed(case.id), case.id)
        if twin != case.id:
            raise CaseFormatError(name, number, _twin_reason(case.id, twin, seen[twin]))
        seen[case.id] = number
        cases.append(case)
    if not cases:
        raise CaseFormatError(name, 0, "no cases: the file holds no JSON line")
    return cases


_NO_WIDTH = dict.fromkeys(map(ord, DIRECTION_MARKS + ZERO_WIDTH))
"""The characters an id prints as nothing, to delete (:meth:`str.translate`)."""


def _as_printed(case_id: str) -> str:
    """``case_id`` as it prints: in NFC, without the characters drawn as nothing."""
    return unicodedata.normalize("NFC", case_id).translate(_NO_WIDTH)


def _twin_reason(case: str, twin: str, line: int) -> str:
    """Why a case id that differs from an earlier one only in its Unicode form, or in
    characters drawn as nothing (``rag``, U+200B, ``basics`` beside ``ragbasics``), is
    refused: the two print alike, so no verdict, gate line or report row could tell them
    apart."""
    same_form = unicodedata.normalize("NFC", case) == unicodedata.normalize("NFC", twin)
    how = "its Unicode form" if same_form else "characters drawn as nothing"
    return (
        f"case id {case!r} differs from the id of line {line} only in {how} "
        f"({told(case)}; line {line}: {told(twin)}): the two print alike, so no verdict, "
        "gate line or report could tell them apart; name each case once, or rename one"
    )


def _zero_filled(raw: str) -> str | None:
    """Why a line of NUL bytes alone is refused (a crash leaves them where data was never
    written, as at the end of a file a crash extended): not the UTF-16 text whose last
    newline leaves one NUL; None for another line."""
    if not raw or raw.strip("\x00"):
        return None
    return (
        f"a line of {len(raw):,} NUL byte(s) and nothing else, where a crash leaves data "
        "that was never written: delete it"
    )


def _spread_reason(lines: list[str], number: int, file: str) -> str | None:
    """Why line ``number`` of ``lines`` is refused when it starts a case spread over
    lines (pretty JSON, an example pasted as wrapped) or a JSON array of cases, as a
    fixture store names the same mistake (:mod:`replaygate.jsonl_spread`); None when
    it starts neither."""
    spread = spread_at(lines, number - 1, number)
    if spread is None:
        return None
    value, first, last = spread.value, spread.first, spread.last
    if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        return array_reason("case", file, len(value), first, last)
    if isinstance(value, dict) and last > first:
        return spread_reason("case", file, first, last)
    return None


def parse_case(raw: str, file: str, line: int) -> EvalCase:
    """One JSONL line as an :class:`EvalCase`."""

    def fail(reason: str) -> CaseFormatError:
        return CaseFormatError(file, line, reason)

    try:  # as a fixture line is read: a key named twice would be read as its last value
        record = strict_json.loads(raw, strict_numbers=False)
    except strict_json.DuplicateKeyError as err:
        raise fail(str(err)) from None
    except json.JSONDecodeError as err:
        raise fail(f"invalid JSON: {jsondoc.syntax_error(err, line=False)}") from None
    except RecursionError:
        raise fail("invalid JSON: nested too deeply") from None
    except ValueError as err:  # an integer of more digits than Python converts
        raise fail(f"invalid JSON: {err}") from None
    if not isinstance(record, dict):
        raise fail(f"expected a JSON object, got {type(record).__name__}")
    problem = lone_surrogate(record)  # could be neither sent nor stored
    if problem is not None:
        raise fail(problem)
    unknown = sorted(set(record) - set(FIELDS))
    if unknown:
        raise fail(f"unknown field(s) {', '.join(unknown)} (allowed: {', '.join(FIELDS)})")
    if ("question" in record) == ("input" in record):
        raise fail("give exactly one of 'question' and 'input'")
    question_key = "question" if "question" in record else "input"
    missing = [key for key in ("id", "samples", "floor") if key not in record]
    if missing:
        raise fail(
            f"missing field(s) {', '.join(missing)}: a case declares its id, sample count "
            "and pass floor beside its expectations"
        )
    try:
        samples = count_field(record, "samples", 1, MAX_SAMPLES)
    except FieldError as err:
        raise fail(f"field 'samples' {err}") from None
    floor = _integer(record, "floor", fail)
    try:
        SampleSpec(samples, floor)
    except ValueError as err:
        raise fail(str(err)) from None
    must_contain = _strings(record, "must_contain", fail)
    expected = _strings(record, "expected_doc_ids", fail)
    for doc_id in expected:
        if not citable(doc_id):
            raise fail(
                f"expected_doc_ids: {doc_id!r} cannot be cited: an answer's [{doc_id}] is not "
                "read as a citation (an id is a letter or digit, then letters, digits, '_', "
                "'-', '.', ':' or '/', ending in a letter, digit or '_'), so every sample "
                "would fail its citations; give the document an id of that form"
            )
    schema = _schema(record, fail)
    signals = _strings(record, "signals", fail)
    for name in signals:
        if name not in EXPECTATIONS:
            raise fail(f"signals: unknown expectation {name!r} (known: {', '.join(EXPECTATIONS)})")
    case = EvalCase(
        id=_case_id(record, fail),
        question=_text(record, question_key, fail),
        samples=samples,
        floor=floor,
        must_contain=must_contain,
        aliases=_aliases(record, must_contain, fail),
        expected_doc_ids=expected,
        schema=schema,
        tags=_strings(record, "tags", fail),
        signals=signals,
        cost=_flag(record, "cost", fail),
        file=file,
        line=line,
    )
    if not (case.must_contain or case.expected_doc_ids or case.schema is not None):
        raise fail("no expectations: give must_contain, expected_doc_ids or schema")
    return case


Fail = Callable[[str], CaseFormatError]


def _text(record: Mapping[str, Any], key: str, fail: Fail) -> str:
    value = record[key]
    if not isinstance(value, str) or not value.strip():
        raise fail(f"field {key!r} must be a non-empty string, got {value!r}")
    return value


def _case_id(record: Mapping[str, Any], fail: Fail) -> str:
    """The case's id: a name printed on terminals and pages, so no control character
    (a newline would split a summary line, an escape would act on the terminal), nor
    spaces at its start or end (it would print as the id without them)."""
    value = _text(record, "id", fail)
    if has_control(value):
        raise fail(
            f"field 'id' must hold no control character (a newline, a tab, an escape), "
            f"got {value!r}"
        )
    reordering = next((char for char in value if char in BIDI_CONTROLS), None)
    if reordering is not None:
        raise fail(
            f"field 'id' holds U+{ord(reordering):04X} {BIDI_CONTROLS[reordering]}, which "
            "changes the order a terminal or a page shows what follows it in (FAIL lines, "
            f"pull-request comments); write the id without it, got {value!r}"
        )
    breaking = next((char for char in value if char in LINE_SEPARATORS), None)
    if breaking is not None:
        raise fail(
            f"field 'id' holds U+{ord(breaking):04X} {LINE_SEPARATORS[breaking]}, where a log "
            "read line by line or a page breaks the line, so a verdict or a FAIL line would "
            f"read as two; write the id without it, got {value!r}"
        )
    if value != value.strip():
        raise fail(
            f"field 'id' has spaces at its start or end, which print as nothing: 'expenses ' "
            "reads as the baseline's 'expenses' in every FAIL line and report, yet is another "
            f"case; write the id without them, got {value!r}"
        )
    return value


def _integer(record: Mapping[str, Any], key: str, fail: Fail) -> int:
    value = record[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise fail(f"field {key!r} must be an integer, got {value!r}{rate_note(key, value)}")
    return value


def _flag(record: Mapping[str, Any], key: str, fail: Fail) -> bool:
    value = record.get(key, True)
    if not isinstance(value, bool):
        raise fail(f"field {key!r} must be true or false, got {value!r}")
    return value


def _strings(record: Mapping[str, Any], key: str, fail: Fail) -> tuple[str, ...]:
    value = record.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise fail(f"field {key!r} must be a list of non-empty strings, got {value!r}")
    return tuple(value)


def _aliases(
    record: Mapping[str, Any], required: tuple[str, ...], fail: Fail
) -> Mapping[str, tuple[str, ...]] | None:
    value = record.get("aliases")
    if value is None:
        return None
    if not isinstance(value, dict):
        raise fail(f"field 'aliases' must be an object of term -> [alias, ...], got {value!r}")
    aliases: dict[str, tuple[str, ...]] = {}
    for term, forms in value.items():
        if term not in required:
            raise fail(f"aliases: {term!r} is not in must_contain; key each alias list by its term")
        if not isinstance(forms, list) or not all(isinstance(f, str) and f.strip() for f in forms):
            raise fail(f"aliases: {term!r} must map to a list of non-empty strings")
        aliases[term] = tuple(forms)
    return aliases


def _schema(record: Mapping[str, Any], fail: Fail) -> Mapping[str, Any] | None:
    value = record.get("schema")
    if value is None:
        return None
    if not isinstance(value, dict):
        raise fail(f"field 'schema' must be a JSON Schema object, got {value!r}")
    try:
        # a value checked: what the validator alone finds (a loop under a nested $id)
        any(json_schema.errors(json_schema.cached_validator(value), None))
    except json_schema.InvalidSchema as err:
        raise fail(f"schema{'.' if err.where else ''}{err.where}: {err.why}") from None
    return value


def cases_digest(cases: Sequence[EvalCase]) -> str:
    """A SHA-256 (hex) of what ``cases`` ask and expect, in order (not where they were
    read from): two shards of one run read cases with one digest
    (:func:`~replaygate.evals.shards.merge` refuses others)."""
    where = {"file", "line"}
    stated = [
        {f.name: getattr(case, f.name) for f in dataclasses.fields(case) if f.name not in where}
        for case in cases
    ]
    text = json.dumps(stated, sort_keys=True, ensure_ascii=False, default=dict)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
