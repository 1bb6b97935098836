"""What a run is compared against: metrics, per-case pass counts, each case's counts and
the prices that priced them.

Both a baseline file and a results file give one (:func:`load_reference`), so
``gate`` and ``upgrade`` accept either.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from replaygate.assertions.kinds import check_category, check_kind
from replaygate.errors import shown_file
from replaygate.evals.errors import ResultsError
from replaygate.evals.metrics import check_agreement, check_metrics, every_metric
from replaygate.evals.prices import kept_prices
from replaygate.evals.results import (
    EvalResults,
    check_about,
    counts_from_json,
    declared_everywhere,
    declared_field,
    read_json,
    results_from_json,
)
from replaygate.evals.scorers import CaseCounts, Metrics, metrics_of
from replaygate.evals.shards import check_whole_run
from replaygate.evals.traced import untraced_change
from replaygate.file_kinds import BASELINE_FORMAT as BASELINE_FORMAT
from replaygate.file_kinds import other_document
from replaygate.jsondoc import (
    FieldError,
    json_fields,
    strings_field,
    version_of,
    version_refused,
)
from replaygate.jsonfields import (
    agree,
    checked,
    count,
    each,
    fields_of,
    flag,
    known_fields,
    mapping,
    optional_text,
    present,
    text_field,
    time_field,
    within,
)
from replaygate.regular import same_file
from replaygate.sampling import AssertionStats, SampledResult, verdict_of
from replaygate.sampling.results import ASSERTION_FIELDS, printed_name
from replaygate.sampling.results import FORMAT as RESULTS_FORMAT
from replaygate.sampling.verdict import MAX_SAMPLES

BASELINE_VERSION = 1
NO_CASE = "holds no case: a gate needs at least one on each side"
BASELINE_FIELDS = ("format", "version", "metrics", "cases", "source", "history")
"""The fields of a baseline file."""
CASE_FIELDS = ("samples", "floor", "passes", "verdict", "assertions", "declared", "counts")
"""The fields of a case of a baseline (its id is its key)."""
SOURCE_FIELDS = ("time", "mode", "model", "interface", "fixtures", "cases_file", "agent", "prices")
"""What a baseline keeps of the run information of the results it was made of."""
SOURCE_TEXT = ("mode", "model", "interface", "fixtures", "cases_file", "agent")
"""The fields of a baseline's ``source`` that are strings when given."""
CHANGE_FIELDS = (
    "date",
    "reason",
    "commit",
    "dirty",
    "results",
    "changes",
    "cases_added",
    "cases_removed",
    "cases_changed",
    "digest",
)
"""The fields of an entry of a baseline's ``history``, as ``baseline update`` writes it."""


@dataclass(frozen=True)
class CaseSummary:
    """A case's declared samples and floor, its passes, verdict and per-assertion counts,
    and the name of every check it declares (None when not known: a file written
    without them)."""

    case: str
    samples: int
    floor: int
    passes: int
    assertions: tuple[AssertionStats, ...] = ()
    declared: tuple[str, ...] | None = None

    @property
    def verdict(self) -> str:
        """``pass``, ``observe`` or ``block``."""
        return verdict_of(self.passes, self.samples, self.floor)

    @staticmethod
    def of(sampled: SampledResult, declared: tuple[str, ...] | None = None) -> CaseSummary:
        """The summary of a sampled result, declaring the checks ``declared``."""
        return CaseSummary(
            sampled.case,
            sampled.n,
            sampled.floor,
            sampled.passes,
            tuple(sampled.assertions()),
            declared,
        )

    def to_json(self) -> dict[str, Any]:
        """The stored object (the case id is its key)."""
        return {
            **json_fields(self, ("samples", "floor", "passes", "verdict")),
            "assertions": {a.name: a.to_json() for a in self.assertions},
            **({"declared": list(self.declared)} if self.declared is not None else {}),
        }

    @staticmethod
    def from_json(case: str, obj: Any) -> CaseSummary:
        """The inverse of :meth:`to_json`, as strict (a :class:`FieldError` names the
        field); a stated ``verdict`` must be the one its passes and floor give."""
        mapping(obj)
        printed_name(case, "")
        samples = count(obj, "samples", 1, MAX_SAMPLES)
        summary = CaseSummary(
            case,
            samples,
            count(obj, "floor", 1, samples),
            count(obj, "passes", 0, samples),
            tuple(each(obj, "assertions", _assertion, key="assertion name", required=False)),
            declared_field(obj),
        )
        agree(obj, "verdict", summary.verdict, "its passes and floor")
        return summary


def _assertion(name: str, obj: Any) -> AssertionStats:
    """One assertion's counts of a case summary, each field checked."""
    known_fields(mapping(obj), ASSERTION_FIELDS)
    present(obj, "kind", "'gate' or 'signal'")
    samples = count(obj, "samples", 0)
    return AssertionStats(
        name,
        checked(obj, "kind", check_kind, None),
        checked(obj, "category", check_category, "custom"),
        count(obj, "passes", 0, samples),
        samples,
        optional_text(obj, "description") or "",
    )


@dataclass(frozen=True)
class Reference:
    """Metrics and case summaries of a baseline or a results file."""

    metrics: Metrics
    cases: tuple[CaseSummary, ...]
    source: str
    run: EvalResults | None = None
    """The results it was made of, when it is a results file."""
    counts: Mapping[str, CaseCounts] = field(default_factory=dict)
    """The counts a baseline keeps of its cases (a results file's are in ``run``)."""
    about: Mapping[str, Any] = field(default_factory=dict)
    """What a baseline keeps of the run it was made of (``source``: model, prices...)."""
    untraced: str | None = None
    """Why a baseline is not what its last update wrote (edited by hand, or two updates
    merged), when it is not: :func:`~replaygate.evals.traced.untraced_change`."""

    @cached_property
    def _by_id(self) -> dict[str, CaseSummary]:
        """Each case by its id, built once: a gate looks up every case of a run."""
        return {c.case: c for c in self.cases}

    def case(self, case_id: str) -> CaseSummary | None:
        """The summary of ``case_id``, if the reference has it."""
        return self._by_id.get(case_id)

    @staticmethod
    def of(results: EvalResults, source: str) -> Reference:
        """The reference an eval run makes."""
        cases = tuple(CaseSummary.of(c.sampled, c.declared) for c in results.cases)
        return Reference(results.metrics, cases, source, results)


def reference_from_json(obj: Any, name: str) -> Reference:
    """A parsed baseline or results document as a :class:`Reference`: a baseline's with
    the counts of its cases and its ``source``, where it keeps them."""
    if isinstance(obj, dict) and obj.get("format") == RESULTS_FORMAT:
        results = results_from_json(obj, name)
        if not results.cases:
            raise ResultsError(f"{shown_file(name)}: cases: {NO_CASE}")
        with fields_of(name, ResultsError), within("eval"):
            kept_prices(results.info)
        return Reference.of(results, name)
    if not isinstance(obj, dict) or obj.get("format") != BASELINE_FORMAT:
        wanted = f"a baseline ({BASELINE_FORMAT!r}) or a results file ({RESULTS_FORMAT!r})"
        raise other_document(obj, name, wanted, ResultsError)
    with fields_of(name, ResultsError):
        version = version_of(obj)
    if version != BASELINE_VERSION:
        raise ResultsError(
            f"{shown_file(name)}: baseline {version_refused(version, BASELINE_VERSION)}"
        )
    with fields_of(name, ResultsError):
        printed_keys(obj, "cases")
        cases = each(obj, "cases", _baseline_case, key="case id")
        if not cases:
            raise FieldError("cases", NO_CASE)
        declared_everywhere(
            [(case.case, case.declared is not None) for case in cases],
            lambda i: f"cases.{cases[i].case}",
        )
        metrics = check_run_metrics(obj)
        with within("metrics"):
            _check_baseline_metrics(metrics, cases)
        about = mapping(obj.get("source", {}), "source")
        with within("source"):
            kept_prices(about)
        _check_source(about)
        each(obj, "history", _change, required=False)
        counts = _kept_counts(obj["cases"], cases, metrics)
        known_fields(obj, BASELINE_FIELDS)
    untraced = untraced_change(obj, name)
    return Reference(metrics, tuple(cases), name, counts=counts, about=about, untraced=untraced)


def _baseline_case(case: str, obj: Any) -> CaseSummary:
    """A case of a baseline (:meth:`CaseSummary.from_json`), a field it does not hold
    refused by its path (``cases.<id>: unknown field ...``)."""
    return CaseSummary.from_json(case, known_fields(mapping(obj), CASE_FIELDS))


def _check_source(about: Mapping[str, Any]) -> None:
    """Refuse a field of a baseline's ``source`` it does not keep, and one of
    :data:`SOURCE_TEXT` that is not a string (its ``time`` an ISO 8601 time)."""
    with within("source"):
        known_fields(about, SOURCE_FIELDS)
        check_about(about, SOURCE_TEXT)


def _kept_counts(
    cases_obj: Mapping[str, Any], cases: Sequence[CaseSummary], metrics: Mapping[str, Any]
) -> dict[str, CaseCounts]:
    """The ``counts`` of each case of a baseline's ``cases`` object that has them, each
    agreeing with its case (samples, verdict); when every case has them, the baseline's
    ``metrics`` must be theirs. A :class:`~replaygate.jsondoc.FieldError` names the field."""
    counts: dict[str, CaseCounts] = {}
    for summary in cases:
        obj = cases_obj[summary.case]
        if "counts" not in obj:
            continue
        with within(f"cases.{summary.case}"):
            kept = counts_from_json(obj["counts"])
            with within("counts"):
                agree(obj["counts"], "samples", summary.samples, "its samples")
                agree(obj["counts"], "passed", summary.verdict == "pass", "its verdict")
        counts[summary.case] = kept
    if counts and len(counts) == len(cases):
        with within("metrics"):
            check_agreement(metrics, metrics_of(list(counts.values())), "its cases' counts")
    return counts


def printed_keys(obj: Mapping[str, Any], field: str) -> None:
    """Refuse a key of the object ``obj[field]`` (a case id) holding a control character
    (:func:`~replaygate.sampling.results.printed_name`), before any error puts the key in
    a field path and prints it as it is."""
    keyed = obj.get(field)
    if isinstance(keyed, Mapping):
        for key in keyed:
            printed_name(str(key), field)


def _change(_index: str, obj: Any) -> None:
    """Check an entry of a baseline's ``history``, as ``baseline update`` writes it."""
    time_field(known_fields(mapping(obj), CHANGE_FIELDS), "date")
    text_field(obj, "reason")
    optional_text(obj, "commit")
    optional_text(obj, "results")
    flag(obj, "dirty")
    mapping(obj.get("changes", {}), "changes")
    strings_field(obj, "cases_added")
    strings_field(obj, "cases_removed")
    mapping(obj.get("cases_changed", {}), "cases_changed")
    optional_text(obj, "digest")


def check_run_metrics(obj: Mapping[str, Any]) -> Metrics:
    """The ``metrics`` of a baseline or a history run: present, each metric in its range."""
    stored = present(obj, "metrics", "an object of the run's metrics")
    with within("metrics"):
        return check_metrics(stored)


def _check_baseline_metrics(metrics: Metrics, cases: Sequence[CaseSummary]) -> None:
    """A baseline holds every metric a results file holds (a number, or null when the run
    measured none), and its ``success`` is what its (non-empty) ``cases`` give
    (:func:`check_success`): a metric deleted by hand cannot pass a gate unchecked."""
    present(metrics, "success", "the share of cases whose verdict is pass")
    every_metric(metrics, "every results file")
    check_success(metrics, cases)


def check_success(metrics: Metrics, cases: Sequence[CaseSummary]) -> None:
    """``success``, when given, of a run with cases, is the share of its ``cases`` whose
    verdict is ``pass``: the one metric case summaries give on their own, so a hand edit
    cannot show a success its cases do not give."""
    if cases:
        passed = sum(case.verdict == "pass" for case in cases)
        agree(metrics, "success", passed / len(cases), "its cases")


def load_reference(path: str | os.PathLike[str]) -> Reference:
    """Read a baseline or a results file, to compare a run with: a baseline with the
    counts and prices it keeps, so that the gate compares the metrics over the cases both
    hold and refuses costs of two price tables (:mod:`~replaygate.evals.kept`); the
    results of one shard of a run are refused
    (:func:`~replaygate.evals.shards.check_whole_run`)."""
    reference = reference_from_json(read_json(path, "baseline or results"), str(path))
    if reference.run is not None:
        use = "as the baseline it would check only its own cases and take the others as new"
        check_whole_run(reference.run, shown_file(str(path)), use)
    return reference


def load_run(path: str | os.PathLike[str], baseline: str | os.PathLike[str] | None) -> Reference:
    """Read the results of a run for the gate against ``baseline`` (``gate``, ``report
    --results``): a baseline given as the results, or the baseline file itself, is
    refused, as the gate would compare the baseline with itself and pass, whatever the
    run gave."""
    document = read_json(path, "results")
    name = shown_file(str(path))
    if isinstance(document, dict) and document.get("format") == BASELINE_FORMAT:
        raise ResultsError(
            f"{name}: is a baseline, not the results of a run: compare the results "
            "`replaygate eval --out FILE` writes with it"
        )
    if baseline is not None and same_file(path, baseline):
        raise ResultsError(
            f"{name}: is also the baseline: a file compared with itself passes whatever it "
            "holds; give the results of the run"
        )
    return reference_from_json(document, str(path))
