"""The quality gate (seed 000, 12.3): compare a run with the baseline, fail on a drop.

For each metric with a limit, the change from the baseline is checked: a share
(success, citation precision and recall, fabricated) in absolute points, an amount
(cost, tokens, steps) relative to the baseline. The metrics are compared over the cases
both hold (:func:`compared_metrics`): a case new in the run is shown apart, never mixed
into the run's side. Beyond that, a case whose every sample failed (``block``), a
baseline case missing from the run, a case that expects less than in the baseline
(fewer samples, a lower floor, a gate gone or made easier, its cost no longer counted:
:mod:`~replaygate.evals.case_changes`), a limited metric the baseline has but the run
does not (a cost with no price, say), and costs priced at two different price tables
or not shown to be priced at one (:mod:`~replaygate.evals.price_check`) fail the gate:
what cannot be checked is never passed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from replaygate.digits import number
from replaygate.errors import shown_file
from replaygate.evals.case_changes import case_changes
from replaygate.evals.config import GateConfig
from replaygate.evals.errors import LimitError, ResultsError
from replaygate.evals.kept import case_counts
from replaygate.evals.metrics import (
    METRICS,
    Metric,
    check_limit_names,
    expand_limits,
    known_metrics,
    percent_limit,
    share_limit_problem,
)
from replaygate.evals.price_check import price_difference
from replaygate.evals.reference import CaseSummary, Reference
from replaygate.evals.rendered import Rendered
from replaygate.evals.scorers import CaseCounts, Metrics, metrics_of
from replaygate.evals.table import markdown_table, markdown_text, text_table
from replaygate.unicode_forms import other_form, told

RowVerdict = Literal["ok", "FAIL", "n/a", "-"]
NO_COUNTS = (
    "the results keep no counts of their cases (a plain sampling results file, or one "
    "written without them): gate the results file `replaygate eval --out FILE` writes, "
    "which keeps them"
)
"""Why a limited metric of results read without counts has no value, and what to do."""
_EPSILON = 1e-9
HEADER = ("metric", "baseline", "now", "delta", "limit", "verdict")


def parse_limits(text: str, flag: str) -> dict[str, float]:
    """``success=0.02,citation=0.05,cost=10%`` as a mapping (a percentage, for an amount, as
    a fraction); :class:`LimitError` says what is wrong: a value not written in the digits
    0-9, below 0, or above 1 for a share (whose limit is in points)."""
    limits: dict[str, float] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, sep, raw = item.partition("=")
        name, raw = name.strip(), raw.strip()
        if not sep or not name:
            raise LimitError(f"{flag} {text!r}: expected METRIC=LIMIT items, got {item!r}")
        try:
            value = percent_limit(name, raw) if raw.endswith("%") else number(raw)
        except ValueError as error:
            raise LimitError(f"{flag} {item!r}: {error}") from None
        if not value >= 0:
            raise LimitError(f"{flag} {item!r}: a limit must be a number >= 0")
        if (problem := share_limit_problem(name, value)) is not None:
            raise LimitError(f"{flag} {item!r}: {problem}")
        if name in limits:
            raise LimitError(f"{flag} {text!r}: {name} is given twice; give each limit once")
        limits[name] = value
    unknown = check_limit_names(limits)
    if unknown:
        raise LimitError(f"{flag}: unknown metric {unknown[0]!r}; {known_metrics(unknown[0])}")
    return limits


@dataclass(frozen=True)
class Row:
    """One metric compared: values, change, limit and verdict."""

    metric: str
    baseline: float | None
    now: float | None
    delta: str
    limit: str
    verdict: RowVerdict
    explained: bool = False
    """A FAIL whose reason is one of the report's problems (costs of two price tables),
    counted there once."""

    def cells(self) -> list[str]:
        """The row's table cells."""
        info = METRICS.get(self.metric)
        show = info.format if info else (lambda v: "n/a" if v is None else f"{v:.4g}")
        return [
            self.metric,
            show(self.baseline),
            show(self.now),
            self.delta,
            self.limit,
            self.verdict,
        ]


@dataclass(frozen=True)
class GateReport(Rendered):
    """Every metric row, the case problems, and whether the gate passed."""

    rows: tuple[Row, ...]
    problems: tuple[str, ...]
    notes: tuple[str, ...] = ()
    results: Reference | None = None
    """What was gated: the results (its file and run) compared with the baseline."""

    @property
    def failures(self) -> list[str]:
        """What failed: metric rows, then case problems."""
        failed = [
            f"{r.metric}: {r.delta} exceeds {r.limit}"
            for r in self.rows
            if r.verdict == "FAIL" and not r.explained
        ]
        return [*failed, *self.problems]

    @property
    def passed(self) -> bool:
        """True when nothing failed."""
        return not self.failures

    def text(self) -> str:
        """The table, the problems and notes, and the verdict line."""
        lines = [text_table(HEADER, [r.cells() for r in self.rows])]
        lines += [f"FAIL {p}" for p in self.problems]
        lines += [f"note {n}" for n in self.notes]
        lines.append(self._verdict_line())
        return "\n".join(lines)

    def markdown(self) -> str:
        """The same, as Markdown for a pull-request comment."""
        lines = [f"### replaygate gate: {'passed' if self.passed else 'FAILED'}", ""]
        lines.append(markdown_table(HEADER, [r.cells() for r in self.rows]))
        if self.problems or self.notes:
            lines.append("")
        lines += [f"- **FAIL** {markdown_text(p)}" for p in self.problems]
        lines += [f"- note: {markdown_text(n)}" for n in self.notes]
        lines += ["", self._verdict_line()]
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """The report as JSON."""
        return {
            "passed": self.passed,
            "rows": [
                {
                    "metric": r.metric,
                    "baseline": r.baseline,
                    "now": r.now,
                    "delta": r.delta,
                    "limit": r.limit,
                    "verdict": r.verdict,
                }
                for r in self.rows
            ],
            "problems": list(self.problems),
            "notes": list(self.notes),
        }

    def _verdict_line(self) -> str:
        if self.passed:
            return "gate: PASS"
        return f"gate: FAIL ({len(self.failures)} violation(s))"


def _change(metric: Metric, before: float, after: float) -> float:
    if metric.scale == "share":
        return after - before
    if before == 0:
        return 0.0 if after == 0 else float("inf")
    return (after - before) / before


def _unit(metric: Metric) -> tuple[int, str, int]:
    """How ``metric``'s changes and limits are shown: the factor, the unit, the decimals
    (a share in points, 0.020; an amount in percent, 10.0%)."""
    return (1, "", 3) if metric.scale == "share" else (100, "%", 1)


def _show_change(metric: Metric, change: float, past: float | None = None) -> str:
    """``change`` as the table shows it. One past its limit ``past`` gets the decimals
    that tell it from that limit: a FAIL never reads ``+0.000`` against ``rise <= 0.000``,
    or ``-0.020`` against ``drop <= 0.020``, which passes."""
    if change == math.inf:
        return "+inf"
    factor, unit, places = _unit(metric)
    text = f"{change * factor:+.{places}f}"
    while past is not None and abs(float(text)) <= past * factor and places < 12:
        places += 1
        text = f"{change * factor:+.{places}f}"
    return text + unit


def _show_limit(metric: Metric, word: str, limit: float) -> str:
    """``word <= limit``, the limit whole: with more decimals where it has them (a drop
    of 0.0205 is not shown as 0.021, which a change of -0.021 would seem to meet)."""
    factor, unit, places = _unit(metric)
    text = f"{limit * factor:.{places}f}"
    while abs(float(text) - limit * factor) > 1e-12 and places < 12:
        places += 1
        text = f"{limit * factor:.{places}f}"
    return f"{word} <= {text}{unit}"


def _row(
    name: str, before: float | None, after: float | None, drop: float | None, rise: float | None
) -> Row:
    metric = METRICS.get(name) or Metric(name, "", "amount", "higher")
    drop, rise = (None if v == math.inf else v for v in (drop, rise))  # inf: a limit lifted
    limits = [
        _show_limit(metric, w, v) for w, v in (("drop", drop), ("rise", rise)) if v is not None
    ]
    limit = "; ".join(limits) or "-"
    if before is None or after is None:
        return Row(name, before, after, "n/a", limit, "n/a" if limits else "-")
    change = _change(metric, before, after)
    if not limits:
        return Row(name, before, after, _show_change(metric, change), limit, "-")
    past = next(  # the limit the change went past, if any
        (
            v
            for v, moved in ((drop, -change), (rise, change))
            if v is not None and moved > v + _EPSILON
        ),
        None,
    )
    shown = _show_change(metric, change, past)
    return Row(name, before, after, shown, limit, "ok" if past is None else "FAIL")


def compared_metrics(
    baseline: Reference, now: Reference
) -> tuple[Metrics, Metrics, list[str], list[str]]:
    """The metrics of each side over the cases both hold, notes saying so, and problems.
    Cases the run adds (or drops) would move every share and mean of its side: ten new
    easy cases would hide a regression of the old ones. Each side's counts give its
    metrics over the shared cases; a baseline that keeps no counts (written before it
    kept them, or a plain sampling results file) gives its own metrics when the results
    hold all its cases, and when they do not, what cannot be compared is a problem,
    never passed. Results read without counts give the success of the shared cases (from
    their verdicts) and no other metric. The two hold a case in common: :func:`run_gate`
    refuses them first when they do not."""
    both = [c.case for c in now.cases if baseline.case(c.case) is not None]
    if len(both) == len(now.cases) == len(baseline.cases):
        return baseline.metrics, now.metrics, [], []
    old, new = case_counts(baseline), case_counts(now)
    whole = (
        f"the metrics compare the {len(baseline.cases)} case(s) of the baseline with the "
        f"{len(now.cases)} of the results"
    )
    if all(i in old for i in both):
        before = metrics_of([old[i] for i in both])
    elif len(both) == len(baseline.cases):  # its metrics are those of the cases both hold
        before = baseline.metrics
    else:
        why = (
            "the baseline keeps no counts of its cases to compare them over the "
            f"{len(both)} case(s) both hold: run `replaygate baseline update --reason ...` "
            "to keep them"
        )
        return baseline.metrics, now.metrics, [], [f"{whole}: {why}"]
    if not all(i in new for i in both):
        if now.run is None:
            why = f"the results keep no counts of their cases to compare them over the {len(both)}"
            return baseline.metrics, now.metrics, [], [f"{whole}: {why} case(s) both hold"]
        # read without counts: their verdicts give the success of the cases both hold, and
        # nothing gives the other metrics, whose limits then fail (run_gate says why)
        shared = set(both)
        verdicts = [
            CaseCounts(c.samples, c.verdict == "pass") for c in now.cases if c.case in shared
        ]
        after = metrics_of(verdicts)
    else:
        after = metrics_of([new[i] for i in both])
    added = [new[c.case] for c in now.cases if baseline.case(c.case) is None and c.case in new]
    note = f"the metrics are compared over the {len(both)} case(s) both hold"
    if added:
        apart = metrics_of(added)
        shown = ", ".join(
            f"{name} {METRICS[name].format(apart[name])}"
            for name in ("success", "citation_recall", "cost")
            if apart.get(name) is not None
        )
        note += f"; the {len(added)} new case(s) alone: {shown}"
    return before, after, [note], []


def without_counts(results: Reference) -> bool:
    """Whether a case of the results file ``results`` was read without its counts (a plain
    sampling results file): it gives its verdict, never the sums the other metrics are
    computed from."""
    return results.run is not None and not all(c.counts_known for c in results.run.cases)


def unseen_cost_opt_outs(baseline: Reference, now: Reference) -> list[str]:
    """Notes for the cases of both that do not count their cost (``"cost": false``) where
    the baseline keeps no counts to say whether they did: a case newly opted out would
    leave the cost metrics unseen."""
    old, new = case_counts(baseline), case_counts(now)
    return [
        f'case {c.case} does not count its cost ("cost": false); the baseline keeps no '
        "counts to say whether it did (`replaygate baseline update --reason ...` keeps them)"
        for c in now.cases
        if baseline.case(c.case) is not None
        and c.case not in old
        and c.case in new
        and new[c.case].cost_skipped
    ]


def run_gate(
    baseline: Reference,
    now: Reference,
    config: GateConfig,
) -> GateReport:
    """Compare ``now`` with ``baseline`` under ``config``'s limits and case rules.
    :class:`ResultsError` when the two hold no case in common (the results of another
    suite, or a cases file whose ids were all renamed): nothing would be compared, and
    with ``fail_on_missing`` off the gate would pass whatever the scores."""
    if not {c.case for c in now.cases} & {c.case for c in baseline.cases}:
        raise ResultsError(
            f"{shown_file(now.source)}: no case in common with {shown_file(baseline.source)}: "
            "there is nothing to compare (the results of another suite, or cases whose ids "
            "all changed); run the baseline's cases, or make these results the baseline with "
            "`replaygate baseline update --reason ...`"
        )
    drops, rises = expand_limits(config.max_drop), expand_limits(config.max_rise)
    before, after, notes, problems = compared_metrics(baseline, now)
    problems[:0] = [baseline.untraced] if baseline.untraced else []
    notes += unseen_cost_opt_outs(baseline, now)
    names = list(dict.fromkeys([*METRICS, *before, *after]))
    rows = tuple(
        _row(n, before.get(n), after.get(n), drops.get(n), rises.get(n))
        for n in names
        if n in before or n in after
    )
    for case in now.cases:
        if case.verdict == "block":
            text = f"case {case.case}: every sample failed ({case.passes}/{case.samples}, block)"
            (problems if config.fail_on_block else notes).append(text)
    (problems if config.fail_on_fallen else notes).extend(fallen_cases(baseline, now))
    now_ids = {c.case for c in now.cases}
    base_ids = {c.case for c in baseline.cases}
    renamed = _renamed(baseline, now)
    for missing in sorted(base_ids - now_ids):
        twin = other_form(missing, now_ids - base_ids)
        text = f"case {missing} is in the baseline but not in the results " + _why_missing(
            missing, twin, renamed.get(missing)
        )
        (problems if config.fail_on_missing else notes).append(text)
    was = {new: old for old, new in renamed.items()}
    for new in sorted(now_ids - base_ids):
        twin = other_form(new, base_ids - now_ids)
        notes.append(f"case {new} is new (not in the baseline){_why_new(new, twin, was.get(new))}")
    for change in case_changes(baseline, now):
        if change.weakened:
            problems.append(
                f"case {change.case} expects less than in the baseline ({change.text()}): "
                "a weakened case is a baseline change, made with `replaygate baseline update "
                "--reason ...`"
            )
        else:
            notes.append(
                f"case {change.case} expects otherwise than in the baseline ({change.text()})"
            )
    notes += _models_note(baseline, now)
    rows = _priced(rows, baseline, now, problems, notes)
    for row in rows:
        if row.verdict == "n/a" and row.baseline is not None:
            why = NO_COUNTS if without_counts(now) else NO_VALUE.get(row.metric, "")
            problems.append(
                f"{row.metric}: the results have no value, so its limit ({row.limit}) cannot "
                f"be checked{f': {why}' if why else ''}"
            )
        elif row.verdict == "n/a" and row.now is not None:
            notes.append(
                f"{row.metric}: the baseline has no value (it measured none: "
                f"{NO_VALUE.get(row.metric, 'no sample to measure')}), so its limit "
                f"({row.limit}) is not checked; take a run that has one in with `replaygate "
                "baseline update --reason ...`"
            )
    notes += _improved(rows, drops, rises)
    return GateReport(rows, tuple(problems), tuple(notes), now)


def _improved(
    rows: tuple[Row, ...], drops: Mapping[str, float], rises: Mapping[str, float]
) -> list[str]:
    """A note naming the limited metrics that moved the good way by more than their limit
    allows the bad way: the baseline still holds the old values, so a fall back to them
    would pass the gate until an update takes the new ones in."""
    better = []
    for row in rows:
        if row.verdict != "ok" or row.baseline is None or row.now is None:
            continue
        metric = METRICS.get(row.metric) or Metric(row.metric, "", "amount", "higher")
        change = _change(metric, row.baseline, row.now)
        drop, rise = drops.get(row.metric, math.inf), rises.get(row.metric, math.inf)
        if change > drop + _EPSILON or -change > rise + _EPSILON:
            _, before, now, *_ = row.cells()
            better.append(f"{row.metric} {before} -> {now}")
    if not better:
        return []
    return [
        f"the results are better than the baseline by more than a limit ({', '.join(better)}): "
        "the baseline still holds the old values, so a fall back to them would pass the "
        "gate; take these results in with `replaygate baseline update --reason ...`"
    ]


_RANK = {"block": 0, "observe": 1, "pass": 2}
"""Verdicts from worst to best."""


def fallen_cases(baseline: Reference, now: Reference) -> list[str]:
    """A line for each case of both whose verdict is worse than in the baseline (a block
    is a problem of its own), naming the gates that passed fewer samples: a note, or a
    problem under ``fail_on_fallen``. A metric row says how far the suite fell, this says
    where (``case rag-basics fell from pass (4/5 samples passed, floor 4) to observe
    (3/5): citations [gate] 4/5 -> 3/5``)."""
    notes = []
    for case in now.cases:
        before = baseline.case(case.case)
        if before is None or case.verdict == "block":
            continue
        if _RANK[case.verdict] < _RANK[before.verdict]:
            fell = f"{before.verdict} ({before.passes}/{before.samples} samples passed, "
            fell += f"floor {before.floor}) to {case.verdict} ({case.passes}/{case.samples})"
            notes.append(f"case {case.case} fell from {fell}{_fewer_passes(before, case)}")
    return notes


def _fewer_passes(before: CaseSummary, now: CaseSummary) -> str:
    """``: citations [gate] 4/5 -> 3/5``: the gates of ``now`` passing a smaller share of
    their samples than in ``before``."""
    old = {a.name: a for a in before.assertions}
    shown = [
        f"{a.name} [{a.kind}] {old[a.name].passes}/{old[a.name].samples} -> {a.passes}/{a.samples}"
        for a in now.assertions
        if a.kind == "gate"
        and a.name in old
        and a.passes * old[a.name].samples < old[a.name].passes * a.samples
    ]
    return f": {', '.join(shown)}" if shown else ""


def _model_of(reference: Reference) -> Any:
    """The model a results file's run asked, or the one a baseline keeps in ``source``."""
    about = reference.run.info if reference.run is not None else reference.about
    return about.get("model")


def _models_note(baseline: Reference, now: Reference) -> list[str]:
    """A note when the results were run on another model than the baseline: a change of
    cost or score may be the model's, not the agent's."""
    before, after = _model_of(baseline), _model_of(now)
    if before is None or after is None or before == after:
        return []
    return [
        f"the results were run on model {after!r}, the baseline on {before!r}: the table "
        "compares two models, so a change may be the model's rather than the agent's"
    ]


def _why_missing(missing: str, twin: str | None, renamed: str | None) -> str:
    """What the gate says after a baseline case ``missing`` from the results: the id of
    another Unicode form ``twin``, or the new case it looks ``renamed`` to, they hold."""
    if twin is not None:
        return (
            f"as written: the results hold case {twin}, whose id differs from it only in its "
            f"Unicode form ({_forms(missing, twin)}); ids are compared as written, so write "
            "the id in the cases file as the baseline does, or take the new one in with "
            "`replaygate baseline update --reason ...`"
        )
    if renamed is not None:
        return (
            f"(renamed? the results hold the new case {renamed}, which declares the same "
            "samples, floor and checks; a rename is a baseline change, made with `replaygate "
            "baseline update --reason ...`)"
        )
    return "(remove it with `replaygate baseline update --reason ...`)"


def _why_new(new: str, twin: str | None, renamed: str | None) -> str:
    """What the gate adds after a case ``new`` to the baseline: the id of another Unicode
    form ``twin``, or the missing case it looks ``renamed`` from, the baseline holds."""
    if twin is not None:
        return (
            f", though it differs from the baseline's case {twin} only in its Unicode form "
            f"({_forms(twin, new)})"
        )
    if renamed is not None:
        return (
            f", with the samples, floor and checks of the baseline's case {renamed}, which the "
            "results lack (renamed?)"
        )
    return ""


def _renamed(baseline: Reference, now: Reference) -> dict[str, str]:
    """Each case of ``baseline`` missing from ``now`` that a new case of ``now`` looks
    renamed from (its id to the new id): the one new case, and the one missing, with its
    samples, floor and checks (kinds and descriptions, which name the terms and ids
    expected), where those describe what they check."""
    now_ids = {c.case for c in now.cases}
    base_ids = {c.case for c in baseline.cases}
    gone = [c for c in baseline.cases if c.case not in now_ids]
    new = [c for c in now.cases if c.case not in base_ids]
    found: dict[str, str] = {}
    for case in gone:
        same = [c.case for c in new if _looks_alike(case, c)]
        if len(same) == 1 and sum(_looks_alike(c, case) for c in gone) == 1:
            found[case.case] = same[0]
    return found


def _looks_alike(one: CaseSummary, other: CaseSummary) -> bool:
    """Whether two cases declare the same samples, floor and described checks."""

    def checks(case: CaseSummary) -> frozenset[tuple[str, str, str]]:
        return frozenset((a.name, a.kind, a.description) for a in case.assertions)

    described = all(a.description for a in one.assertions) and bool(one.assertions)
    return (
        described
        and (one.samples, one.floor) == (other.samples, other.floor)
        and checks(one) == checks(other)
    )


def _forms(baseline: str, results: str) -> str:
    """``baseline caf\\u00e9, NFC; results cafe\\u0301, NFD``: each id with its characters
    past ASCII escaped, and its normal form."""
    return f"baseline {told(baseline)}; results {told(results)}"


_NO_CITATION = "no sample of the cases compared cited a document: it is a share of the ids cited"
_NO_COST = "a run without a price table, or every case compared opted out of cost"
NO_VALUE = {
    "citation_precision": _NO_CITATION,
    "fabricated": _NO_CITATION,
    "citation_recall": "no case compared expects a document (expected_doc_ids)",
    "cost": _NO_COST,
    "cost_total": _NO_COST,
}
"""Why a run's metric has no value (``null``), by the metric: what it is a share of, or
what prices it, is empty."""
PRICED = ("cost", "cost_total")
"""The metrics a price table gives."""


def _priced(
    rows: tuple[Row, ...],
    baseline: Reference,
    now: Reference,
    problems: list[str],
    notes: list[str],
) -> tuple[Row, ...]:
    """``rows`` with the cost rows of two price tables (or of tables not shown to be one)
    made incomparable: no change is shown, and a limited one fails (its reason added to
    ``problems``, else to ``notes``)."""
    priced = [r for r in rows if r.metric in PRICED and None not in (r.baseline, r.now)]
    difference = price_difference(baseline, now) if priced else None
    if difference is None:
        return rows
    limited = not difference.compared and any(r.limit != "-" for r in priced)
    (problems if limited else notes).append(difference.text)
    if difference.compared:
        return rows
    return tuple(
        replace(
            r,
            delta="n/a",
            verdict="FAIL" if r.limit != "-" else "-",
            explained=r.limit != "-",
        )
        if r in priced
        else r
        for r in rows
    )


def gate_config(
    base: GateConfig,
    max_drop: Mapping[str, float] | None = None,
    max_rise: Mapping[str, float] | None = None,
) -> GateConfig:
    """``base`` with the limits given on the command line taking precedence, per metric."""
    return replace(
        base,
        max_drop={**base.max_drop, **expand_limits(max_drop or {})},
        max_rise={**base.max_rise, **expand_limits(max_rise or {})},
    )
