"""The HTML page: latest run, gate, maintenance signals and the three plots, in one file.

Nothing is loaded from elsewhere: styles are inline, plots are inline SVG, and the
page holds no script.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from html import escape
from pathlib import Path

from replaygate.evals.config import ReportConfig
from replaygate.evals.errors import HistoryError
from replaygate.evals.gate import HEADER as GATE_HEADER
from replaygate.evals.gate import GateReport
from replaygate.evals.history import History, HistoryRun, check_not_future
from replaygate.evals.metrics import METRICS
from replaygate.jsondoc import FieldError
from replaygate.jsonfields import described, parse_time
from replaygate.outputs import open_fifo, write_text
from replaygate.report.costs import apart_words, latest_priced, priced_apart, pricing
from replaygate.report.data import fixture_ages, metric_series, weekly_pass_rates
from replaygate.report.evidence import distinct_runs, recordings_text
from replaygate.report.gated import gated_run
from replaygate.report.plots import ages_plot, metrics_plot, weekly_plot
from replaygate.report.signals import Signal, find_signals
from replaygate.report.suites import NAMING_NONE, Suite, suite_runs
from replaygate.report.words import case_words, failed_assertions, visible
from replaygate.wall_clock import wall_now

SCOPE = "replaygate-report"
"""The class of the element that holds the page's content, and that each rule of its style
names: shown inside another page (a notebook's output, ``IPython.display.HTML``), the
report restyles nothing of that page (its body, tables, headings)."""

_STYLE = f"""
.{SCOPE} {{ font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 70rem;
  color: #222; padding: 0 1rem; }}
.{SCOPE} h1 {{ font-size: 1.6rem; }} .{SCOPE} h2 {{ font-size: 1.2rem; margin-top: 2rem; }}
.{SCOPE} table {{ border-collapse: collapse; margin: .5rem 0; max-width: 100%; }}
.{SCOPE} th, .{SCOPE} td {{ border: 1px solid #ccc; padding: .25rem .6rem; text-align: left;
  font-size: .9rem; }}
.{SCOPE} p, .{SCOPE} td, .{SCOPE} li, .{SCOPE} figcaption {{ overflow-wrap: anywhere; }}
.{SCOPE} td {{ max-width: 25rem; }}
.{SCOPE} tr.failed td {{ background: #fdecee; }}
.{SCOPE} summary {{ color: #555; cursor: pointer; }}
.{SCOPE} th {{ background: #f3f3f3; }}
.{SCOPE} .fail {{ color: #b00020; font-weight: bold; }} .{SCOPE} .ok {{ color: #1b7f3b; }}
.{SCOPE} figure {{ margin: 1rem 0; }} .{SCOPE} figure svg {{ width: 100%; height: auto; }}
.{SCOPE} figcaption {{ font-size: .85rem; color: #555; }}
.{SCOPE} .muted {{ color: #666; }}
"""


FOLDED = 1000
"""Characters of a text shown open; a longer one (a note naming many cases, say) shows
its start, and its rest behind a ``<details>`` the reader opens."""


def _text(text: str) -> str:
    """``text`` as HTML, whole: markup escaped, each character of
    :data:`~replaygate.report.words.UNSEEN` written as its ``\\uXXXX``."""
    return escape(visible(text))


def _shown(text: str) -> str:
    """``text`` as HTML where a block may stand (a cell, an item), whole: one longer than
    :data:`FOLDED` shows its start, up to a space, and its rest behind a ``<details>``
    that says how many characters it holds."""
    text = visible(text)
    if len(text) <= FOLDED:
        return escape(text)
    space = text.rfind(" ", FOLDED // 2, FOLDED)
    start = text[: space + 1 if space > 0 else FOLDED]
    rest = text[len(start) :]
    return (
        f"{escape(start)}<details><summary>{len(rest):,} more characters</summary>"
        f"{escape(rest)}</details>"
    )


def _table(
    header: Sequence[str], rows: Sequence[Sequence[str]], failed: Sequence[bool] = ()
) -> str:
    """A table of ``rows``, those ``failed`` flags tinted red (a failed case, a metric)."""
    head = "".join(f"<th>{_shown(h)}</th>" for h in header)
    marks = [" class='failed'" if flag else "" for flag in failed] or [""] * len(rows)
    body = "".join(
        f"<tr{mark}>" + "".join(f"<td>{_shown(cell)}</td>" for cell in row) + "</tr>"
        for mark, row in zip(marks, rows, strict=True)
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _latest(run: HistoryRun | None) -> str:
    if run is None:
        return "<p class='muted'>No run in the history yet: run <code>replaygate eval</code>.</p>"
    prices = run.info.get("prices")  # a merged export's info is kept as it came
    named = prices.get("currency") if isinstance(prices, Mapping) else None
    currency = f" ({named})" if isinstance(named, str) and named else ""
    metrics = [
        (
            name,
            METRICS[name].format(run.metrics.get(name)),
            METRICS[name].description + (currency if name.startswith("cost") else ""),
        )
        for name in METRICS
        if name in run.metrics
    ]
    gave_up = run.gave_up
    cases = [
        (case.case, case_words(case), failed_assertions(case, gave_up.get(case.case)))
        for case in run.cases
    ]
    commit = (run.commit or "unknown")[:12]
    return (
        f"<p>Run <code>{_text(run.id)}</code> at {_text(run.time)}, commit "
        f"<code>{_text(commit)}</code>.</p>"
        + _table(("metric", "value", "meaning"), metrics)
        + _table(
            ("case", "verdict", "what failed"),
            cases,
            [case.verdict != "pass" for case in run.cases],
        )
    )


def _gate(report: GateReport | None, runs: Sequence[HistoryRun]) -> str:
    if report is None:
        return ""
    status = (
        "<span class='ok'>passed</span>" if report.passed else "<span class='fail'>failed</span>"
    )
    items = "".join(f"<li class='fail'>{_shown(p)}</li>" for p in report.problems)
    items += "".join(f"<li>{_shown(n)}</li>" for n in report.notes)
    return (
        f"<h2>Gate</h2>{_gated(report, runs)}<p>The gate {status}.</p>"
        + _table(
            GATE_HEADER,
            [r.cells() for r in report.rows],
            [r.verdict == "FAIL" for r in report.rows],
        )
        + (f"<ul>{items}</ul>" if items else "")
    )


def _gated(report: GateReport, runs: Sequence[HistoryRun]) -> str:
    """Which results the gate judged, and whether they are the latest run shown above."""
    if report.results is None:
        return ""
    gated = gated_run(report.results, runs)
    mismatch = gated.mismatch()
    said = f"<p>The gate judges {_text(gated.about())}"
    if mismatch is None:
        return f"{said}: the latest run shown above.</p>"
    return f"{said}.</p><p class='fail'>{_text(mismatch)}</p>"


def _signals(signals: Sequence[Signal], note: str) -> str:
    if not signals:
        body = "<p>No maintenance signal.</p>"
    else:
        body = _table(
            ("signal", "about", "evidence"), [(s.kind, s.subject, s.detail) for s in signals]
        )
    return f"<h2>Maintenance signals</h2><p class='muted'>{_text(note)}.</p>{body}"


def _left_out(notes: Sequence[str]) -> str:
    if not notes:
        return ""
    items = "".join(f"<li>{_shown(note)}</li>" for note in notes)
    return (
        f"<p class='fail'>{len(notes)} damaged run(s) of the history are left out "
        f"(the history file keeps them):</p><ul>{items}</ul>"
    )


def _suite(suite: Suite) -> str:
    """Which cases file the runs shown ran, and the runs of other cases files left out."""
    if not suite.others:
        if suite.cases_file is None:
            return ""
        return f"<p class='muted'>Runs of the cases file {_text(suite.cases_file)}.</p>"
    items = "".join(f"<li>{_shown(note)}</li>" for note in suite.left_out())
    which = f"of the cases file {_text(suite.cases_file)}" if suite.cases_file else NAMING_NONE
    return (
        f"<p class='fail'>Runs {which} only: the runs of other "
        "cases files measure other cases, so they are left out of the latest run, the "
        "signals and the plots (<code>replaygate report --cases FILE</code> reports on "
        f"one of them):</p><ul>{items}</ul>"
    )


def _costs(apart: Sequence[HistoryRun], reference: HistoryRun | None) -> str:
    """Which runs' costs were priced otherwise than the latest's, and left out."""
    if reference is None or not apart:
        return ""
    items = "".join(f"<li>{_shown(line)}</li>" for line in apart_words(apart))
    compared = f"{pricing(reference.info)}, as the latest run with a cost ({reference.time}) was"
    return (
        f"<p class='fail'>Costs priced at {_text(compared)}, only: costs of other prices "
        "(another currency, another price of the model) are not compared, so these are "
        "left out of the signals and the plots:</p>"
        f"<ul>{items}</ul>"
    )


def _future_fixtures(count: int) -> str:
    """The caption's words for fixtures dated later than now, left out of the ages."""
    if not count:
        return ""
    return (
        f" {count} fixture(s) dated later than now are left out: their meta.recorded_at "
        "came from a wrong clock, so their age is unknown (re-record them, or correct it)."
    )


def _figure(svg: str, caption: str) -> str:
    return f"<figure>{svg}<figcaption>{_shown(caption)}</figcaption></figure>"


def run_labels(runs: Sequence[HistoryRun]) -> list[str]:
    """Each run's time on the plots' axis (UTC), so no two points read alike: to the
    minute, or to the second when two runs share a minute (a run and its merged shards,
    say), with the year when the runs span more than one; runs of one instant numbered
    after the first (``(2)``)."""
    times = [parse_time(run.time).astimezone(UTC) for run in runs]
    day = "%Y-%m-%d" if len({t.year for t in times}) > 1 else "%m-%d"
    for clock in ("%H:%M", "%H:%M:%S"):
        labels = [t.strftime(f"{day} {clock}") for t in times]
        if len(set(labels)) == len(labels):
            return labels
    seen: Counter[str] = Counter()
    numbered = []
    for label in labels:
        seen[label] += 1
        numbered.append(label if seen[label] == 1 else f"{label} ({seen[label]})")
    return numbered


def build_report(
    runs: Sequence[HistoryRun],
    *,
    stores: Sequence[str | os.PathLike[str]] = (),
    config: ReportConfig | None = None,
    gate: GateReport | None = None,
    title: str = "replaygate eval report",
    now: datetime | None = None,
    left_out: Sequence[str] = (),
    cases: str | os.PathLike[str] | None = None,
    prefer: str | os.PathLike[str] | None = None,
) -> str:
    """The report page for ``runs`` (oldest first) and the fixtures of ``stores``;
    ``left_out`` describes the damaged runs of the history it does not show.

    Only the runs of one cases file are shown (:func:`~replaygate.report.suites.suite_runs`):
    of ``cases``, else of ``prefer`` when some run ran it, else of the latest run's; the
    runs of other cases files are named as left out.
    """
    config = config or ReportConfig()
    moment = now or wall_now()
    suite = suite_runs(runs, cases, prefer=prefer)
    runs = suite.runs
    labels = run_labels(runs)
    weeks, rates = weekly_pass_rates(runs)
    ages = fixture_ages(stores, now=moment)
    signals, note = find_signals(runs, config)
    priced = latest_priced(runs)
    apart = priced_apart(runs, priced)
    left_out_costs = {id(run) for run in apart}
    flagged = [id(run) in left_out_costs for run in runs]
    store_names = ", ".join(str(f) for f in stores) or "none given"
    parts = [
        "<!doctype html>",
        "<html lang='en'><head><meta charset='utf-8'>",
        f"<title>{_text(title)}</title><style>{_STYLE}</style></head>",
        f"<body><div class='{SCOPE}'>",
        f"<h1>{_text(title)}</h1>",
        f"<p class='muted'>Generated {moment.strftime('%Y-%m-%d %H:%M UTC')} from "
        f"{_text(recordings_text(len(distinct_runs(runs)), len(runs)))}.</p>",
        _left_out(left_out),
        _suite(suite),
        _costs(apart, priced),
        "<h2>Latest run</h2>",
        _latest(runs[-1] if runs else None),
        _gate(gate, runs),
        _signals(signals, note),
        "<h2>Metrics over time</h2>",
        _figure(
            metrics_plot(metric_series(runs), labels, flagged),
            "Each point is one eval run; replays of the same recordings repeat the same "
            "values, and a run without a value of a metric leaves a gap in its line"
            + (", as does a cost priced at other prices (named above)." if apart else "."),
        ),
        "<h2>Weekly pass rate per assertion</h2>",
        _figure(
            weekly_plot(weeks, rates),
            "Passes over samples of each assertion, summed over the cases and distinct "
            "recordings of a week (a replay of answers already counted adds nothing).",
        ),
        "<h2>Fixture age</h2>",
        _figure(
            ages_plot(ages.days, ages.undated, ages.future),
            f"Days since each fixture's meta.recorded_at; {len(ages.days)} fixture(s) "
            f"in: {store_names}.{_future_fixtures(ages.future)}",
        ),
        "</div></body></html>",
    ]
    return "\n".join(parts) + "\n"


def _dated(run: HistoryRun, now: datetime, notes: list[str]) -> bool:
    """Whether ``run`` is dated no later than ``now`` (:func:`check_not_future`); a later
    one, which would stand as the latest run for ever, is described in ``notes``."""
    try:
        check_not_future(run.time, now)
    except FieldError as err:
        notes.append(f"run {run.id!r}: {described(err)}")
        return False
    return True


def write_report(
    out: str | os.PathLike[str],
    *,
    history: str | os.PathLike[str] | History,
    stores: Sequence[str | os.PathLike[str]] = (),
    config: ReportConfig | None = None,
    gate: GateReport | None = None,
    now: datetime | None = None,
    left_out: list[str] | None = None,
    cases: str | os.PathLike[str] | None = None,
    prefer: str | os.PathLike[str] | None = None,
    other_cases: list[str] | None = None,
) -> Path:
    """Write the report of ``history`` (a path or an open history) to ``out``; the age of
    the fixtures in ``stores`` is shown beside the trends. A damaged run of the history
    is left out, said so on the page and described in ``left_out`` when given. Runs of
    a cases file other than ``cases`` (see :func:`build_report`, and ``prefer``) are left
    out too, said so on the page and described in ``other_cases`` when given. An ``out``
    that is a FIFO is opened once the history is read, before the charts are drawn."""
    notes: list[str] = [] if left_out is None else left_out
    if isinstance(history, History):
        runs = history.runs(skipped=notes)
    else:
        if not os.path.lexists(history):  # a symlink loop, or to nothing: open says so
            raise HistoryError(f"no history at {history}: run `replaygate eval` first")
        with History.open(history, read_only=True) as opened:
            runs = opened.runs(skipped=notes)
    moment = now or wall_now()
    runs = [run for run in runs if _dated(run, moment, notes)]
    left_out_cases = suite_runs(runs, cases, prefer=prefer).left_out()  # --cases no run ran
    if other_cases is not None:
        other_cases.extend(left_out_cases)
    target = Path(out)
    open_fifo(target)  # once the inputs are read, before the charts are drawn
    page = build_report(
        runs,
        stores=stores,
        config=config,
        gate=gate,
        now=moment,
        left_out=notes,
        cases=cases,
        prefer=prefer,
    )
    target.parent.mkdir(parents=True, exist_ok=True)
    write_text(target, page)
    return target
