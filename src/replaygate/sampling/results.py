"""Results of sampled cases: passes and samples per case and per assertion, as JSON.

The file written by ``--sampling-results`` (and read by ``replaygate calibrate``)::

    {"format": "replaygate.sampling.results", "version": 1, "cases": [CASE, ...]}

See ``docs/sampling.md`` for the schema of a case.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from replaygate.assertions.kinds import (
    Category,
    Check,
    Kind,
    Outcome,
    check_category,
    check_kind,
)
from replaygate.errors import ReplaygateError, has_control, shown_file
from replaygate.file_kinds import RESULTS_FORMAT, other_document, read_document
from replaygate.jsondoc import (
    ErrorType,
    FieldError,
    check_document,
    count_field,
    got,
    json_fields,
    parse_items,
)
from replaygate.jsonfields import (
    agree,
    checked,
    count,
    each,
    escape_surrogates,
    flag,
    join,
    known_fields,
    lone_surrogate,
    mapping,
    optional_number,
    optional_text,
    present,
    text_field,
)
from replaygate.outputs import write_text
from replaygate.sampling.verdict import MAX_SAMPLES, SampleSpec, Verdict, verdict_of
from replaygate.strict_json import DuplicateKeyError, loads, nests_past
from replaygate.type_names import a_type

FORMAT = RESULTS_FORMAT
VERSION = 1
PLAIN_ASSERT = "assert"
"""The name under which a failed plain ``assert`` (not a check) is counted."""


def refuse_plain_assert_name(checks: Iterable[Check[Any]]) -> None:
    """Refuse a check named :data:`PLAIN_ASSERT`: a sample's failure outside its checks
    is counted under that name, and the two would be merged in one count."""
    for check in checks:
        if check.name == PLAIN_ASSERT:
            raise ValueError(
                f"a check is named {PLAIN_ASSERT!r}, the name under which a sampled case "
                "counts what fails a sample outside its checks (a plain assert, a skip, a "
                "sample that checked nothing): the two would be counted as one assertion; "
                "give the check another name"
            )


class ResultsFormatError(ReplaygateError):
    """A results file is not in the documented format (names the file and the field)."""


KEPT_DEPTH = 1000
"""The deepest an output may nest to be kept as it is: a results file holds it several
levels down and is read up to :data:`~replaygate.strict_json.MAX_DEPTH` (1,024) levels."""

_TOO_DEEP = "nested too deeply to be written"


def jsonable(value: Any) -> Any:
    """``value`` as JSON reads it back, if it is plain JSON nested at most
    :data:`KEPT_DEPTH` levels, else its ``repr``; a value nested deeper, or whose ``repr``
    cannot be made (an integer of more digits than Python writes), is kept as a short text
    saying so (:func:`_unwritten`), never an error of the sample. The depth is counted, not
    left to Python's writer, which stops near a thousand levels on 3.11 and writes thousands
    more on 3.13. What is kept is a copy taken now: an output the code goes on to change (a
    list the next sample appends to) is kept as its checks saw it. A dict whose keys JSON
    writes alike (``1`` and ``"1"``) is kept as its ``repr``, not as one of its values."""
    try:
        text = json.dumps(value, allow_nan=False)
        if nests_past(text, KEPT_DEPTH):
            return _unwritten(value, _TOO_DEEP)
        return loads(text)
    except (TypeError, ValueError, RecursionError):
        pass
    try:
        return repr(value)
    except RecursionError:
        return _unwritten(value, _TOO_DEEP)
    except ValueError as err:
        return _unwritten(value, f"not writable as text ({err})")


def _unwritten(value: Any, why: str) -> str:
    """What a results file keeps of an output that cannot be written out, and ``why``."""
    return f"<output not kept: {a_type(value)} {why}>"


def same_output(a: Any, b: Any) -> bool:
    """Whether the outputs ``a`` and ``b`` (as :func:`jsonable` keeps them) are written
    alike: ``1`` and ``True``, or ``1`` and ``1.0``, which Python finds equal, are not."""
    if a is b:
        return True
    try:
        return json.dumps(a) == json.dumps(b)
    except (TypeError, ValueError, RecursionError):
        return False


@dataclass(frozen=True)
class SampleResult:
    """One sample: its outcomes, the output they looked at, and a plain assertion failure.

    ``outputs`` holds, by the position of an outcome in ``outcomes``, the output that
    outcome's check looked at where it is not ``output`` (a test body that evaluates its
    checks on two turns, or on a field of the output); :meth:`output_of` gives either.
    """

    index: int
    outcomes: tuple[Outcome, ...] = ()
    output: Any = None
    failure: str | None = None
    outputs: Mapping[int, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        stray = sorted(set(self.outputs) - set(range(len(self.outcomes))))
        if stray:
            raise ValueError(
                f"sample {self.index}: outputs names outcome position(s) {stray}, but the "
                f"sample has {len(self.outcomes)} outcome(s)"
            )

    @property
    def passed(self) -> bool:
        """No failed gate and no failed plain assertion."""
        return self.failure is None and not any(o.blocks for o in self.outcomes)

    def output_of(self, position: int) -> Any:
        """The output the check of ``outcomes[position]`` looked at."""
        return self.outputs.get(position, self.output)

    def failing(self) -> list[str]:
        """Names of the gates and signals that failed (``assert`` for a plain failure)."""
        names = [o.name for o in self.outcomes if not o.passed]
        return [*names, PLAIN_ASSERT] if self.failure is not None else names

    def to_json(self) -> dict[str, Any]:
        """The stored JSON object: an outcome whose check looked at another output than
        the sample's keeps it as its own ``output``. A key the run's output, its failure
        or a check's message holds (an agent printing its configuration, an assertion
        quoting the answer) is masked (:func:`~replaygate.sanitize.secret_mask.masked_value`),
        since results and the history they go to are written to disk; the checks saw it
        as it was."""
        from replaygate.sanitize.secret_mask import masked_value  # the scanner: when written

        outcomes = [
            {**o.to_json(), "output": self.outputs[i]} if i in self.outputs else o.to_json()
            for i, o in enumerate(self.outcomes)
        ]
        stored: dict[str, Any] = {
            "output": self.output,
            "failure": self.failure,
            "outcomes": outcomes,
        }
        # An output inside itself (which the writer names) or nested some hundreds of
        # levels deep is kept unmasked: the walk does not reach so deep.
        with contextlib.suppress(RecursionError):
            stored = masked_value(stored)
        return {"index": self.index, "passed": self.passed, **stored}

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> SampleResult:
        """The inverse of :meth:`to_json`; an outcome without ``output`` (every outcome of
        a file written before outcomes kept one) looked at the sample's."""
        stored = list(obj.get("outcomes", ()))
        return SampleResult(
            index=int(obj["index"]),
            outcomes=tuple(Outcome.from_json(o) for o in stored),
            output=obj.get("output"),
            failure=obj.get("failure"),
            outputs={i: o["output"] for i, o in enumerate(stored) if "output" in o},
        )


@dataclass(frozen=True)
class AssertionStats:
    """How one assertion fared over the samples that evaluated it."""

    name: str
    kind: Kind
    category: Category
    passes: int
    samples: int
    description: str = ""

    def to_json(self) -> dict[str, Any]:
        """The stored JSON object."""
        return json_fields(self, ("kind", "category", "description", "passes", "samples"))


@dataclass(frozen=True)
class SampledResult:
    """A sampled case: its declared ``n`` and ``floor``, and every sample's result."""

    case: str
    n: int
    floor: int
    samples: tuple[SampleResult, ...]
    descriptions: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        SampleSpec(self.n, self.floor)
        if len(self.samples) != self.n:
            raise ValueError(f"case {self.case}: {len(self.samples)} sample(s) for n={self.n}")

    @property
    def passes(self) -> int:
        """How many samples passed."""
        return sum(1 for s in self.samples if s.passed)

    @property
    def verdict(self) -> Verdict:
        """``pass``, ``observe`` or ``block``."""
        return verdict_of(self.passes, self.n, self.floor)

    def assertions(self) -> list[AssertionStats]:
        """Per assertion: passes over the samples that evaluated it, in first-seen order.

        Plain assertions of the test body count as one gate named ``assert``, over all
        samples, when any of them failed.
        """
        stats: dict[str, list[Any]] = {}
        for sample in self.samples:
            for o in sample.outcomes:
                entry = stats.setdefault(o.name, [o.kind, o.category, 0, 0])
                entry[2] += int(o.passed)
                entry[3] += 1
        if any(sample.failure is not None for sample in self.samples):
            plain = sum(1 for sample in self.samples if sample.failure is None)
            stats[PLAIN_ASSERT] = ["gate", "custom", plain, self.n]
        return [
            AssertionStats(name, kind, cat, passes, n, self.descriptions.get(name, ""))
            for name, (kind, cat, passes, n) in stats.items()
        ]

    def failing(self) -> list[AssertionStats]:
        """The assertions that failed in at least one sample."""
        return [a for a in self.assertions() if a.passes < a.samples]

    def summary(self) -> str:
        """One line: case, passes over samples, floor, verdict, failing assertions."""
        failing = ", ".join(f"{a.name} [{a.kind}] {a.passes}/{a.samples}" for a in self.failing())
        tail = f"; failing: {failing}" if failing else ""
        return (
            f"{self.case}: {self.passes}/{self.n} samples passed (floor {self.floor}) "
            f"-> {self.verdict}{tail}"
        )

    def to_json(self) -> dict[str, Any]:
        """The stored JSON object of this case."""
        return {
            "case": self.case,
            "samples": self.n,
            "floor": self.floor,
            "passes": self.passes,
            "verdict": self.verdict,
            "assertions": {a.name: a.to_json() for a in self.assertions()},
            "sample_results": [s.to_json() for s in self.samples],
        }

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> SampledResult:
        """The inverse of :meth:`to_json`."""
        assertions = obj.get("assertions", {})
        return SampledResult(
            case=str(obj["case"]),
            n=count_field(obj, "samples", 1, MAX_SAMPLES),
            floor=count_field(obj, "floor", 1),
            samples=tuple(SampleResult.from_json(s) for s in obj["sample_results"]),
            descriptions={k: str(v.get("description") or "") for k, v in assertions.items()},
        )


def results_document(cases: Iterable[SampledResult]) -> dict[str, Any]:
    """The whole results file as a JSON object."""
    return {"format": FORMAT, "version": VERSION, "cases": [c.to_json() for c in cases]}


def document_text(document: Any) -> str:
    """``document`` as pretty JSON text, non-ASCII kept, that UTF-8 can always write: half
    of a surrogate pair (an output that was not valid text) is kept as its JSON escape
    ``\\ud800``, which reads back as the same string, instead of failing the write."""
    return escape_surrogates(json.dumps(document, ensure_ascii=False, indent=2) + "\n")


def write_results(path: str | os.PathLike[str], cases: Sequence[SampledResult]) -> Path:
    """Write ``cases`` to ``path`` (pretty, UTF-8, non-ASCII kept); return the path.

    The text is first read back through :func:`load_results`'s own checks: what they
    would refuse (a case id that is no non-empty string, a check name holding half of a
    surrogate pair, a message that is no string, an output whose keys JSON makes one)
    is a :class:`ResultsFormatError` naming the field as the reader would, and nothing
    is written (a file already at ``path`` is left as it was), where the run's results
    were lost only when someone read them. Nothing is converted to pass the checks."""
    target = Path(path)
    name = unwritten(target)
    text, document = read_back(results_document(cases), name, ResultsFormatError)
    _cases_of(document, name)
    target.parent.mkdir(parents=True, exist_ok=True)
    write_text(target, text)
    return target


def unwritten(target: Path) -> str:
    """How a refused write names the results file ``target``: ``results.json: not
    written: the results``, before the reader's words (``: cases[0].case: ...``)."""
    return f"{shown_file(str(target))}: not written: the results"


def read_back(document: Any, name: str, error: ErrorType) -> tuple[str, Any]:
    """The text :func:`document_text` writes of ``document``, and that text parsed as
    the readers parse a file (:func:`~replaygate.jsondoc.read_json`), for a writer to
    run the reader's checks on before it writes. What no reader reads back as it is,
    ``error`` naming ``name`` (the file): a key JSON names twice (``{1: 2, "1": 3}``,
    by its path, as the reader names it), NaN or infinity, an integer of more digits
    than are read, a value that is no JSON (the last three by their path too, which the
    reader of a file cannot give). Nothing is converted."""
    try:
        text = document_text(document)
    except RecursionError:
        raise error(f"{name}: not JSON this reader accepts: nested too deeply") from None
    except (TypeError, ValueError) as err:  # no JSON value (a set), an integer too long
        raise error(f"{name}: {_unreadable_at(document)}{err}") from None
    try:
        return text, loads(text)
    except DuplicateKeyError as err:
        raise error(f"{name}: not JSON this reader accepts: {err}") from None
    except RecursionError:
        raise error(f"{name}: not JSON this reader accepts: nested too deeply") from None
    except ValueError as err:  # NaN, Infinity
        where = _unreadable_at(document)
        raise error(f"{name}: not JSON this reader accepts: {where}{err}") from None


def _unreadable_at(document: Any) -> str:
    """``<path>: `` of the first value of ``document`` no reader of its JSON text reads
    as it is (NaN or infinity, an integer of more digits than are read, a value or key
    that is no JSON, a list or object inside itself); ``""`` when there is none, or it
    is ``document`` itself."""
    stack: list[tuple[str, Any, frozenset[int]]] = [("", document, frozenset())]
    while stack:
        path, item, outer = stack.pop()  # outer: the lists and objects holding item
        if isinstance(item, dict):
            keyed = all(isinstance(k, str | int | float | bool) or k is None for k in item)
            children = [(join(path, str(k)), v) for k, v in item.items()] if keyed else None
        elif isinstance(item, list | tuple):
            children = [(f"{path}[{i}]", v) for i, v in enumerate(item)]
        elif _plain(item):
            continue
        else:
            children = None
        if children is None or id(item) in outer:
            return f"{path}: " if path else ""
        inner = outer | {id(item)}
        stack += reversed([(at, value, inner) for at, value in children])
    return ""


def _plain(value: Any) -> bool:
    """Whether ``value`` (no list or object) is written as JSON that reads back as it."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, int):
        try:
            str(value)  # past the digits Python converts (and the reader reads): refused
        except ValueError:
            return False
    return value is None or isinstance(value, str | int)


TOP_FIELDS = ("format", "version", "cases")
"""The fields of a results file; an eval's adds :data:`EVAL_TOP_FIELDS`."""
EVAL_TOP_FIELDS = ("eval", "metrics")
"""What an eval run adds to a results file: the run's information and its metrics."""
CASE_FIELDS = ("case", "samples", "floor", "passes", "verdict", "assertions", "sample_results")
"""The fields of a case; an eval's adds :data:`EVAL_CASE_FIELDS`."""
EVAL_CASE_FIELDS = ("declared", "tags", "counts", "metrics")
"""What an eval run adds to a case: its declared checks, tags, counts and metrics."""
ASSERTION_FIELDS = ("kind", "category", "description", "passes", "samples")
"""The fields of an assertion of a case (in results and baselines alike)."""
SAMPLE_FIELDS = ("index", "passed", "output", "failure", "outcomes")
"""The fields of a sample of ``sample_results``."""
OUTCOME_FIELDS = ("name", "kind", "category", "passed", "message", "score", "output")
"""The fields of an outcome of a sample; ``output`` only where its check looked at another
output than the sample's (a file written before holds none, and reads as it did)."""


RUN_TEXT = frozenset({"output", "failure", "message"})
"""The fields holding what a run gave (a sample's output, an assertion's message), kept
as it was, even half of a surrogate pair; every other string must be Unicode text."""


def sampled_from_json(obj: dict[str, Any]) -> SampledResult:
    """A sampling results case, each field checked (a :class:`FieldError` names it)."""
    known_fields(obj, CASE_FIELDS + EVAL_CASE_FIELDS)
    printed_name(text_field(obj, "case"), "case")
    n = count(obj, "samples", 1, MAX_SAMPLES)
    count(obj, "floor", 1, n)
    samples = each(obj, "sample_results", lambda _i, sample: _sample(sample))
    if len(samples) != n:
        raise FieldError("sample_results", f"holds {len(samples)} sample(s), but samples is {n}")
    _indexed_once(samples, n)
    if isinstance(obj.get("assertions"), Mapping):  # before a name shows up in a field path
        for name in obj["assertions"]:
            printed_name(str(name), "assertions")
    each(obj, "assertions", _description, key="assertion name", required=False)
    return SampledResult.from_json(obj)


def _indexed_once(samples: Sequence[SampleResult], n: int) -> None:
    """Refuse two samples of one ``index``: each sample is one run of the case, replayed
    from its own recording, so a sample given twice would count one run twice; and an
    index outside ``0..n-1``, which no run of the case's ``n`` samples had."""
    first: dict[int, int] = {}
    for i, sample in enumerate(samples):
        if sample.index >= n:
            raise FieldError(
                f"sample_results[{i}].index",
                f"sample {sample.index} of a case of {n} sample(s), whose indices are 0 to {n - 1}",
            )
        if sample.index in first:
            raise FieldError(
                f"sample_results[{i}].index",
                f"sample {sample.index} is already at sample_results[{first[sample.index]}]; "
                "each sample of a case has its own index",
            )
        first[sample.index] = i


def printed_name(value: str, field: str) -> str:
    """``value``, a name printed on terminals and pages (a case id); a :class:`FieldError`
    on ``field`` when it holds a control character: a newline would write a line of its
    own into a log, an escape sequence would act on the terminal."""
    if has_control(value):
        raise FieldError(
            field,
            "must hold no control character (a newline, a tab, an escape): it is printed on "
            f"terminals and pages, got {value!r}",
        )
    return value


def _description(_name: str, stats: Any) -> str | None:
    """The description of an assertion of a sampling case (the counts are recomputed)."""
    known_fields(mapping(stats), ASSERTION_FIELDS)
    return optional_text(stats, "description")


def _sample(obj: Any) -> SampleResult:
    """A sample of ``sample_results``, each field checked; a stated ``passed`` must agree."""
    known_fields(mapping(obj), SAMPLE_FIELDS)
    count(obj, "index", 0)
    optional_text(obj, "failure")
    each(obj, "outcomes", lambda _i, outcome: _outcome(outcome), required=False)
    sample = SampleResult.from_json(obj)
    agree(obj, "passed", sample.passed, "its outcomes and failure")
    return sample


def _outcome(obj: Any) -> None:
    """Check an outcome of a sample: name, kind, passed, score, category, message."""
    known_fields(mapping(obj), OUTCOME_FIELDS)
    printed_name(text_field(obj, "name"), "name")
    present(obj, "kind", "'gate' or 'signal'")
    checked(obj, "kind", check_kind, None)
    checked(obj, "category", check_category, "custom")
    flag(obj, "passed")
    optional_number(obj, "score")
    if not isinstance(obj.get("message", ""), str):
        raise FieldError("message", f"must be a string, got {got(obj['message'])}")


def _parse_case(obj: Any, where: str) -> SampledResult:
    """A case of a results file, each field checked (a :class:`FieldError` names it); a
    name, kind or description that is no Unicode text (half of a surrogate pair, which
    could be neither printed nor stored) is refused."""
    if not isinstance(obj, dict):
        raise ResultsFormatError(f"{where}: must be an object, got {got(obj)}")
    problem = lone_surrogate(obj, skip=RUN_TEXT, at=where)
    if problem is not None:
        raise ResultsFormatError(problem)
    try:
        return sampled_from_json(obj)
    except FieldError as err:
        if err.field:
            raise
        raise ResultsFormatError(f"{where}: {err}") from None  # the case itself


def load_results(path: str | os.PathLike[str]) -> list[SampledResult]:
    """Read a results file; :class:`ResultsFormatError` names the file and what is wrong."""
    return _cases_of(read_document(path, "results", ResultsFormatError), shown_file(str(path)))


def _cases_of(document: Any, name: str) -> list[SampledResult]:
    """The cases of the parsed results document of the file ``name``, each checked as
    :func:`load_results` checks them, for :func:`write_results` too."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        wanted = f"a results file ({FORMAT!r})"
        raise other_document(document, name, wanted, ResultsFormatError)
    document = check_document(
        document,
        name,
        format=FORMAT,
        version=VERSION,
        what="a replaygate results file",
        error=ResultsFormatError,
    )
    try:
        known_fields(document, TOP_FIELDS + EVAL_TOP_FIELDS)
    except FieldError as err:
        raise ResultsFormatError(f"{shown_file(name)}: {err}") from None
    return parse_items(document, "cases", name, _parse_case, ResultsFormatError)


__all__ = [
    "FORMAT",
    "PLAIN_ASSERT",
    "VERSION",
    "AssertionStats",
    "ResultsFormatError",
    "SampleResult",
    "SampledResult",
    "jsonable",
    "load_results",
    "results_document",
    "write_results",
]
