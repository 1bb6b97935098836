"""Eval results: the sampling results file, extended with counts, metrics and run info.

The file is a :mod:`replaygate.sampling.results` document (so ``load_results`` and
``replaygate calibrate`` read it) with three additions::

    {"format": "replaygate.sampling.results", "version": 1,
     "eval": {"time": ..., "commit": ..., "mode": "replay", "model": ..., ...},
     "metrics": {"success": 0.75, "citation_precision": 1.0, ...},
     "cases": [{...sampled case..., "declared": [...], "tags": [...], "counts": {...},
                "metrics": {...}}]}

See ``docs/evals.md`` for every field.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from replaygate import jsondoc
from replaygate.errors import shown_file
from replaygate.evals.errors import ResultsError
from replaygate.evals.filenames import text_problem
from replaygate.evals.giveups import gave_up
from replaygate.evals.metrics import check_agreement, check_metrics
from replaygate.evals.prices import kept_prices, kept_table
from replaygate.evals.scorers import (
    SUMMED,
    CaseCounts,
    Metrics,
    OutputSums,
    metrics_of,
    output_sums,
)
from replaygate.file_kinds import other_document, read_document
from replaygate.jsondoc import ErrorType, FieldError, check_document, got, strings_field
from replaygate.jsonfields import (
    agree,
    each,
    fields_of,
    known_fields,
    listed_once,
    mapping,
    optional_text,
    present,
    same,
    time_field,
    within,
)
from replaygate.locale_names import names_as_utf8
from replaygate.outputs import write_text
from replaygate.sampling import SampledResult
from replaygate.sampling.results import (
    EVAL_TOP_FIELDS,
    FORMAT,
    PLAIN_ASSERT,
    RUN_TEXT,
    TOP_FIELDS,
    VERSION,
    printed_name,
    read_back,
    sampled_from_json,
    unwritten,
)


@dataclass(frozen=True)
class CaseResult:
    """One eval case: its sampled result, its counts and its tags."""

    sampled: SampledResult
    counts: CaseCounts
    tags: tuple[str, ...] = ()
    declared_known: bool = True
    """Whether ``sampled.descriptions`` names every check the case declares; false for a
    case read from a results file written without ``declared``."""
    counts_known: bool = True
    """Whether ``counts`` are the case's own; false for a case read without ``counts`` (a
    plain sampling results file), whose counts hold its samples and verdict only."""

    @property
    def id(self) -> str:
        """The case id."""
        return self.sampled.case

    @property
    def declared(self) -> tuple[str, ...] | None:
        """The name of every check the case declares, evaluated or not (None: not known);
        the test body's plain ``assert`` is no declared check."""
        if not self.declared_known:
            return None
        return tuple(name for name in self.sampled.descriptions if name != PLAIN_ASSERT)

    def to_json(self) -> dict[str, Any]:
        """The case object: the sampling case plus ``declared``, ``tags``, ``counts`` and
        ``metrics``; a case read without counts is written without them (and its
        metrics), as it was read: made-up zero counts would read back as its own."""
        counted = (
            {"counts": self.counts.to_json(), "metrics": metrics_of([self.counts])}
            if self.counts_known
            else {}
        )
        return {
            **self.sampled.to_json(),
            **({"declared": list(self.declared)} if self.declared is not None else {}),
            "tags": list(self.tags),
            **counted,
        }

    @staticmethod
    def from_json(obj: Any) -> CaseResult:
        """The inverse of :meth:`to_json`, as strict (a :class:`FieldError` names the
        field): what a case states beside its samples (``passes``, ``verdict``,
        ``counts``: :func:`_summed_counts`, ``metrics``) must be what they give. A plain
        sampling case gets minimal counts."""
        sampled = sampled_from_json(mapping(obj))
        agree(obj, "passes", sampled.passes, "its sample_results")
        agree(obj, "verdict", sampled.verdict, "its sample_results")
        _agreeing_assertions(obj, sampled)
        counts = CaseCounts(samples=sampled.n, passed=sampled.verdict == "pass")
        if obj.get("counts") is not None:
            counts = counts_from_json(obj["counts"])
            sums = output_sums(sampled)  # an output's field is named from the case
            with within("counts"):
                agree(obj["counts"], "samples", sampled.n, "its samples")
                agree(obj["counts"], "passed", sampled.verdict == "pass", "its verdict")
                _summed_counts(obj["counts"], counts, sampled, sums)
        if "metrics" in obj:
            with within("metrics"):
                check_agreement(check_metrics(obj["metrics"]), metrics_of([counts]), "its counts")
        known = obj.get("counts") is not None
        if "declared" not in obj:
            tags = strings_field(obj, "tags")
            return CaseResult(sampled, counts, tags, declared_known=False, counts_known=known)
        declared = dict.fromkeys(declared_field(obj) or (), "")
        sampled = replace(sampled, descriptions={**declared, **sampled.descriptions})
        return CaseResult(sampled, counts, strings_field(obj, "tags"), counts_known=known)


AGAIN = "make the results again (`replaygate eval --out FILE`), or restore the file (from git)"
"""What to do with results whose counts are not what their samples give."""
_SUMMED_AS = {
    "runs": "each sample whose output is an object",
    "cited": "the ids each output cites",
    "fabricated": "the ids each output cites but never fetched",
    "input_tokens": "each output's input_tokens, summed",
    "output_tokens": "each output's output_tokens, summed",
    "steps": "each output's steps, summed",
}
"""How the outputs of a case's samples give each count of :data:`SUMMED`."""


def _summed_counts(
    stored: Mapping[str, Any], counts: CaseCounts, sampled: SampledResult, sums: OutputSums
) -> None:
    """Refuse ``counts`` (read from ``stored``) that are not what the outputs of
    ``sampled``'s samples give (``sums``, as an eval scores them): each count of
    :data:`SUMMED`; ``expected``, the ids the case expects (which a results file does not
    keep) times its samples; ``scored`` exactly when it expects some; ``correct`` at most
    what the cited ids can hold of them; no ``cost`` when ``cost_skipped``. A hand edit of
    counts (and the metrics made of them) would otherwise hide a regression the samples
    still show. A :class:`FieldError` names the count, ``sampled.case`` and what to do."""
    case = f"case {sampled.case!r}"

    def refuse(name: str, says: Any, why: str) -> None:
        said = f"says {got(says)}" if name in stored else "is missing"
        raise FieldError(name, f"{said}, but {why}; {AGAIN}")

    for name in SUMMED:
        given = getattr(sums, name)
        if getattr(counts, name) != given:
            refuse(
                name,
                getattr(counts, name),
                f"the sample_results of {case} give {given} "
                f"({_SUMMED_AS[name]}): counts are what the samples give",
            )
    n = sampled.n
    if counts.expected % n:
        refuse(
            "expected",
            counts.expected,
            f"{case} expects the same ids in each of its {n} samples, so it is a multiple of {n}",
        )
    if counts.scored != (counts.expected > 0):
        refuse(
            "scored",
            counts.scored,
            f"counts.expected is {counts.expected}: a case is scored exactly when it expects ids",
        )
    most = sums.most_correct(counts.expected // n)
    if counts.correct > most:
        refuse(
            "correct",
            counts.correct,
            f"the sample_results of {case} cite at most {most} "
            f"of the {counts.expected // n} id(s) it expects in each sample",
        )
    if counts.cost_skipped and counts.cost is not None:
        refuse("cost", counts.cost, f"counts.cost_skipped is true: {case} opts out of cost")


def _priced_as_kept(results: EvalResults) -> None:
    """Refuse a case's ``counts.cost`` that is not its tokens priced at the table the run
    keeps (``eval.prices``) for its model (``eval.model``), as the run priced them: none
    when the table is null. Not checked for a case that opts out of cost, nor where the run
    keeps no table, or one without its prices (written before results kept them), or none
    of its model (the gate compares no such costs)."""
    info = results.info
    given = info.get("prices", {})
    if isinstance(given, Mapping) and "models" not in given:
        return
    with within("eval"):
        kept = kept_prices(info)
    table = None if kept is None else kept_table(kept)
    model = info.get("model")
    for i, case in enumerate(results.cases):
        counts = case.counts
        if not case.counts_known or counts.cost_skipped:
            continue
        if table is None:
            why = "the run keeps no price table (eval.prices is null), so it priced nothing"
            cost = None
        elif isinstance(model, str) and model in table.models:
            cost = table.cost(model, counts.input_tokens, counts.output_tokens)
            why = (
                f"its tokens priced at the run's prices for {model} (eval.prices) give {got(cost)}"
            )
        else:
            continue
        if not same(counts.cost, cost):
            raise FieldError(
                f"cases[{i}].counts.cost",
                f"says {got(counts.cost)}, but {why} (case {case.id!r}); {AGAIN}",
            )


COUNTS_FIELDS = tuple(f.name for f in dataclasses.fields(CaseCounts))
"""The fields of a case's ``counts`` (every version wrote these, or fewer)."""


def counts_from_json(obj: Any) -> CaseCounts:
    """A case's ``counts`` (:meth:`CaseCounts.from_json`), a field it does not hold
    refused by its path (``counts: unknown field ...``)."""
    with within("counts"):
        known_fields(mapping(obj), COUNTS_FIELDS)
    return CaseCounts.from_json(obj)


def declared_everywhere(declared: Sequence[tuple[str, bool]], at: Callable[[int], str]) -> None:
    """Refuse cases of which some keep ``declared`` and others not: replaygate writes it
    on every case of a file or on none (a file written before it kept it), and a case
    without it tells no check removed, so its deletion would pass a gate removed from
    the case. ``declared`` is each case's id and whether it keeps it; ``at(i)`` is the
    field path of the ``i``-th case."""
    kept = [i for i, (_, has) in enumerate(declared) if has]
    lacking = [i for i, (_, has) in enumerate(declared) if not has]
    if kept and lacking:
        first, other = lacking[0], kept[0]
        raise FieldError(
            f"{at(first)}.declared",
            f"is missing from case {declared[first][0]!r}, while case {declared[other][0]!r} "
            "has it: replaygate writes declared on every case of a file or on none, and "
            "without it a check removed from the case goes unseen; restore it (from git), or "
            "make the file again",
        )


def declared_field(obj: Mapping[str, Any]) -> tuple[str, ...] | None:
    """The ``declared`` check names of a case, each printable and listed once; None when
    the case has no ``declared`` (written before results kept it)."""
    if "declared" not in obj:
        return None
    names = strings_field(obj, "declared")
    for i, name in enumerate(names):
        printed_name(name, f"declared[{i}]")
    listed_once(names, "declared", "check", "a case declares each check once")
    return names


def _agreeing_assertions(obj: Mapping[str, Any], sampled: SampledResult) -> None:
    """Refuse an assertion of ``obj`` whose stated ``kind``, ``category``, ``passes`` or
    ``samples`` are not what the case's ``sample_results`` give (the report would print
    both, contradicting each other; a gate edited into a signal there would be read as
    the gate its outcomes keep, unseen)."""
    stated = obj.get("assertions")
    if not isinstance(stated, Mapping):
        return
    for stats in sampled.assertions():
        given = stated.get(stats.name)
        if isinstance(given, Mapping):
            with within(f"assertions.{stats.name}"):
                agree(given, "kind", stats.kind, "its sample_results")
                agree(given, "category", stats.category, "its sample_results")
                agree(given, "samples", stats.samples, "its sample_results")
                agree(given, "passes", stats.passes, "its sample_results")


@dataclass(frozen=True)
class EvalResults:
    """Every case of one eval run, and what the run was (``info``)."""

    cases: tuple[CaseResult, ...]
    info: Mapping[str, Any] = field(default_factory=dict)

    @property
    def metrics(self) -> Metrics:
        """The run's metrics (see :mod:`replaygate.evals.scorers`)."""
        return metrics_of([c.counts for c in self.cases])

    def case(self, case_id: str) -> CaseResult:
        """The case called ``case_id``."""
        for case in self.cases:
            if case.id == case_id:
                return case
        raise KeyError(case_id)

    def to_json(self) -> dict[str, Any]:
        """The whole results document."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "eval": dict(self.info),
            "metrics": self.metrics,
            "cases": [c.to_json() for c in self.cases],
        }

    def write(self, path: str | os.PathLike[str]) -> Path:
        """Write the document to ``path`` (pretty, UTF-8, non-ASCII kept); one that would
        not read back (a cost past what a results file holds, from a fixture's usage of
        billions of billions of tokens; NaN in ``info``) is a :class:`ResultsError` and
        nothing is written: ``gate`` would refuse the file. The text is checked as
        :func:`load_eval_results` reads it, parsed back (:func:`read_back`)."""
        target = Path(path)
        name = unwritten(target)
        text, document = read_back_text(self.to_json(), name, ResultsError)
        results_from_json(document, name)
        target.parent.mkdir(parents=True, exist_ok=True)
        write_text(target, text)
        return target

    def summary(self) -> list[str]:
        """One line per case, as :meth:`SampledResult.summary` prints it, and the samples
        in which the agent gave up (:mod:`~replaygate.evals.giveups`)."""
        lines = []
        for case in self.cases:
            given_up = gave_up(case.sampled)
            lines.append(case.sampled.summary() + (f"; {given_up.words()}" if given_up else ""))
        return lines


def results_from_json(obj: Any, name: str) -> EvalResults:
    """Validate a parsed results document; :class:`ResultsError` names the field.

    The run's ``metrics`` (required once the file has ``eval`` or ``metrics``) must be
    those its cases give, and each case's counts those its samples give (their costs
    priced at the run's ``eval.prices``): a hand edit of one is refused, naming both values.
    """
    if not isinstance(obj, dict) or obj.get("format") != FORMAT:
        raise other_document(obj, name, f"a results file ({FORMAT!r})", ResultsError)
    document = check_document(
        obj,
        name,
        format=FORMAT,
        version=VERSION,
        what="a replaygate results file",
        error=ResultsError,
    )
    with fields_of(name, ResultsError):
        known_fields(document, TOP_FIELDS + EVAL_TOP_FIELDS)
        cases = each(document, "cases", lambda _i, case: CaseResult.from_json(case))
        why = "a case is listed once (its metrics would count twice)"
        listed_once((case.id for case in cases), "cases", "case", why)
        declared_everywhere(
            [(case.id, case.declared_known) for case in cases], lambda i: f"cases[{i}]"
        )
        results = EvalResults(tuple(cases), run_info(document.get("eval", {})))
        _priced_as_kept(results)
        if _of_an_eval(document):
            present(document, "eval", "an object of the run's information, as an eval writes it")
            stored = present(document, "metrics", "an object of the run's metrics")
            with within("metrics"):
                check_agreement(check_metrics(stored), results.metrics, "its cases")
    return results


def _of_an_eval(document: Mapping[str, Any]) -> bool:
    """Whether ``document`` holds what only an eval run writes, always with its ``eval``
    and ``metrics``: either of those, or a case's ``counts`` (a plain sampling results
    file has none of these, and a results file may be written without counts)."""
    if any(field in document for field in EVAL_TOP_FIELDS):
        return True
    cases = document.get("cases")
    return isinstance(cases, list) and any(
        isinstance(case, Mapping) and case.get("counts") is not None for case in cases
    )


INFO_TEXT = (
    "mode",
    "model",
    "interface",
    "fixtures",
    "cases_file",
    "cases_digest",
    "agent",
    "fixtures_digest",
    "settings_digest",
    "recording",
    "replaygate_version",
)
"""The fields of a run's information that are strings when given."""


def run_info(obj: Any) -> dict[str, Any]:
    """The ``eval`` object of a results file: its ``time`` an ISO 8601 time, its
    ``commit`` a string or null, and each of :data:`INFO_TEXT` a string, when given (a
    history run keeps them). It may hold more: ``run_eval(..., info=...)`` adds the
    caller's run information to it, kept as given."""
    with within("eval"):
        info = mapping(obj)
        check_about(info, INFO_TEXT)
        optional_text(info, "commit")
    return info


def check_about(about: Mapping[str, Any], texts: Sequence[str]) -> None:
    """Check what a run says of itself (a results file's ``eval``, a baseline's
    ``source``): its ``time`` an ISO 8601 time and each of ``texts`` a string, when given
    (a :class:`~replaygate.jsondoc.FieldError` names the field)."""
    if "time" in about:
        time_field(about, "time")
    for name in texts:
        if name in about and not isinstance(about[name], str):
            raise FieldError(name, f"must be a string, got {jsondoc.got(about[name])}")


def read_json(path: str | os.PathLike[str], what: str, error: ErrorType = ResultsError) -> Any:
    """Parse the JSON file at ``path``; ``error`` says why it cannot be read (or that a
    string in it is no Unicode text: it could be neither printed nor stored; what a run
    gave, kept as it was (:data:`~replaygate.sampling.results.RUN_TEXT`), may be anything,
    and a file name of the run information may be not UTF-8: :mod:`.filenames`).

    A file that is none because it is another of replaygate's files (a history database,
    eval cases, a fixture store) is named as such
    (:func:`~replaygate.file_kinds.read_document`), not by the byte or line where it stops
    being JSON."""
    parsed = read_document(path, what, error)
    return _unicode_text(parsed, shown_file(str(path)), error)


def read_back_text(document: Any, name: str, error: ErrorType) -> tuple[str, Any]:
    """:func:`~replaygate.sampling.results.read_back`, its strings then checked as
    :func:`read_json` checks a file's (:func:`_unicode_text`): the text a writer of an
    eval file writes of ``document``, and the document its reader would read."""
    text, parsed = read_back(document, name, error)
    return text, _unicode_text(parsed, name, error)


def _unicode_text(document: Any, name: str, error: ErrorType) -> Any:
    """``document``, parsed from the file ``name``, if its strings are Unicode text (see
    :func:`read_json`); else ``error`` naming the file and the field."""
    problem = text_problem(document, skip=RUN_TEXT)
    if problem is not None:
        raise error(f"{name}: {problem}")
    return document


def load_eval_results(path: str | os.PathLike[str]) -> EvalResults:
    """Read an eval results file (a plain sampling results file works too)."""
    return results_from_json(read_json(path, "results"), str(path))


def project_path(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> str:
    """How a run's information names the file ``path`` (relative to the working directory,
    or absolute): relative to the project folder ``root``, in ``/`` form, where it is under
    it, so results and baselines name it alike on every machine and checkout (the shards
    of one run checked out at two paths merge); else its absolute path. A link is
    followed only where the path is not under ``root`` as written (a link loop is left
    to the reader of the file to name). A name in UTF-8 is its text in every locale
    (:func:`~replaygate.locale_names.names_as_utf8`; an ASCII one holds its bytes)."""
    absolute = Path(os.path.abspath(path))
    top = Path(os.path.abspath(root))
    if absolute.is_relative_to(top):
        return names_as_utf8(absolute.relative_to(top).as_posix())
    real, real_top = Path(os.path.realpath(absolute)), Path(os.path.realpath(top))
    if real.is_relative_to(real_top):
        return names_as_utf8(real.relative_to(real_top).as_posix())
    return names_as_utf8(str(absolute))


def case_ids(results: Sequence[CaseResult]) -> list[str]:
    """The ids of ``results``, in order."""
    return [c.id for c in results]
