"""``gate``, ``baseline update`` and ``upgrade``: eval results against the baseline.

Exit status: 0 when all is well, 1 when the gate (or the upgrade check) fails, 2 when
the command cannot run.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from replaygate.cli.json_docs import echo_json
from replaygate.cli.json_out import echo_document
from replaygate.cli.options import (
    TEXT,
    CommandError,
    chosen_format,
    config_option,
    errors_as_exit_2,
    file_option,
    format_option,
    in_project,
    json_option,
)
from replaygate.click_once import OnceCommand, OnceGroup
from replaygate.evals.baseline import load_gated, update_baseline
from replaygate.evals.config import Config, load_config
from replaygate.evals.errors import ResultsError
from replaygate.evals.gate import GateReport, gate_config, parse_limits, run_gate
from replaygate.evals.preflight import check_not_an_input
from replaygate.evals.reference import Reference, load_reference, load_run
from replaygate.evals.results import EvalResults, load_eval_results, project_path
from replaygate.evals.upgrade import UpgradeReport, classify_upgrade
from replaygate.reasons import reason_problem, unseen_escaped
from replaygate.shell_words import shell_join


def _limits(texts: tuple[str, ...], flag: str) -> dict[str, float] | None:
    """The limits of every ``flag`` given (``--max-drop A --max-drop B``), merged: a metric
    given by two of them is refused, as within one, never the last silently kept."""
    merged: dict[str, float] = {}
    given_in: dict[str, str] = {}
    for text in texts:
        _check_items(text, flag)
        for name, limit in parse_limits(text, flag).items():
            if name in merged:
                raise CommandError(
                    f"{flag} {given_in[name]!r} and {flag} {text!r}: {name} is given twice; "
                    "give each limit once"
                )
            merged[name], given_in[name] = limit, text
    return merged or None


_EXAMPLES = {"--max-drop": "success=0.02,citation=0.05", "--max-rise": "cost=0.10,steps=25%"}


def _check_items(text: str, flag: str) -> None:
    """Refuse a ``flag`` given no limit (``--max-drop "$LIMITS"`` of an empty variable) or
    an empty item (``success=0.1,``): the limits of the config and the defaults would
    stand in for what was meant, without a word (a usage error)."""
    items = [item.strip() for item in text.split(",")]
    example = f"{flag} {_EXAMPLES[flag]}"
    if not any(items):
        raise click.UsageError(
            f"{flag} {text!r}: no limit given; give METRIC=LIMIT items ({example}), or "
            f"leave {flag} out to use the limits of [tool.replaygate.gate] and the defaults"
        )
    if not all(items):
        raise click.UsageError(
            f"{flag} {text!r}: an empty item between commas; give METRIC=LIMIT items "
            f"separated by single commas ({example})"
        )


BASELINE_HELP = "The baseline file (default: [tool.replaygate] baseline)."


def _check_there(
    path: Path, flag: str, what: str, config: Config, otherwise: str | None = None
) -> None:
    """Refuse ``path``, given as ``flag``, when there is no such file, naming the folder it
    was looked for in (a relative path: the working folder), and where the project folder
    has it (:func:`~replaygate.cli.options.in_project`), else what to do ``otherwise``."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        pass
    except OSError:  # a folder above that is a file, a loop: reading it says why
        return
    else:
        return
    looked = f"there is no {os.path.abspath(path)}"
    if not path.is_absolute():
        looked += f" (a relative {flag} is read from the working folder, {Path.cwd()})"
    hint = in_project(path, flag, config) or otherwise
    raise CommandError(f"{path}: cannot read {what}: {looked}{f'; {hint}' if hint else ''}")


def _first_baseline(baseline: Path, results: Path) -> str:
    """How a project gated before it has a baseline makes its first one from ``results``."""
    words = ["--results", str(results), "--baseline", os.path.relpath(baseline)]
    return (
        "a project gated for the first time has no baseline yet: make it from a run's "
        f"results, `replaygate baseline update {shell_join(words)} --reason 'first "
        "baseline'`, and commit it"
    )


@click.command("gate", cls=OnceCommand)
@file_option("--baseline", "baseline_path", help=BASELINE_HELP)
@file_option("--results", "results_path", required=True, help="The results of `replaygate eval`.")
@click.option(
    "--max-drop",
    multiple=True,
    help=f"e.g. {_EXAMPLES['--max-drop']} (points for shares, from 0 to 1); repeatable.",
)
@click.option(
    "--max-rise",
    multiple=True,
    help=f"e.g. {_EXAMPLES['--max-rise']} (fractions or percentages for amounts); repeatable.",
)
@format_option
@json_option
@config_option
@errors_as_exit_2
def gate_cmd(
    baseline_path: Path | None,
    results_path: Path,
    max_drop: tuple[str, ...],
    max_rise: tuple[str, ...],
    fmt: str,
    as_json: bool,
    config_path: Path | None,
) -> None:
    """Compare RESULTS with the baseline; exit 1 when a metric drops beyond its limit.

    Limits come from [tool.replaygate.gate] (of the pyproject.toml of the project
    holding the baseline, else the results) and --max-drop / --max-rise (flags win,
    per metric; each flag may be given more than once, each metric once), over the
    cases both files hold. A case whose every sample failed, a baseline case missing
    from the results, a case expecting less than in the baseline (fewer samples, a
    lower floor, a gate made a signal or easier, its cost no longer counted), or costs
    of two price tables fail the gate too. The results of one shard are refused: merge
    the shards first. --json is --format json.

    Example:

    \b
        replaygate gate --results results.json --max-drop success=0.02
    """
    shape = chosen_format(fmt, as_json)
    # the limits of the project the gated files belong to, wherever the gate runs from
    config = load_config(config_path, near=baseline_path or results_path)
    limits = gate_config(
        config.gate, _limits(max_drop, "--max-drop"), _limits(max_rise, "--max-rise")
    )
    baseline_file = baseline_path or config.baseline_path
    first = _first_baseline(baseline_file, results_path) if results_path.is_file() else None
    _check_there(baseline_file, "--baseline", "baseline or results", config, first)
    _check_there(results_path, "--results", "results", config)
    baseline, now = load_gated(baseline_file, results_path)
    report = run_gate(baseline, now, limits)
    _print(report, shape)
    if not report.passed:
        raise SystemExit(1)


@click.group("baseline", cls=OnceGroup)
def baseline_group() -> None:
    """The committed eval baseline: make a results file the new one, with a reason.

    Example:

    \b
        replaygate baseline update --results results.json --reason "new prompt"
    """


@baseline_group.command("update")
@file_option("--results", "results_path", required=True, help="The results of `replaygate eval`.")
@click.option(
    "--reason", type=TEXT, help="Why the baseline changes (required; kept in its history)."
)
@file_option("--baseline", "baseline_path", help=BASELINE_HELP)
@json_option
@config_option
@errors_as_exit_2
def baseline_update(
    results_path: Path,
    reason: str | None,
    baseline_path: Path | None,
    as_json: bool,
    config_path: Path | None,
) -> None:
    """Make RESULTS the new baseline; refused without --reason.

    The baseline's history gets the reason, the date, the git commit, the
    metrics that changed and the cases added, removed or expecting otherwise
    (samples, floor, assertions).

    Example:

    \b
        replaygate baseline update --results results.json --reason "new prompt"
    """
    config = load_config(config_path, near=baseline_path)
    target = baseline_path or config.baseline_path
    if not reason:
        raise CommandError(
            f"refusing to update {target} without --reason: a changed baseline must say why. "
            "Nothing was written."
        )
    if (problem := reason_problem(reason)) is not None:
        raise CommandError(
            f"refusing to update {target}: --reason: {problem}; a changed baseline must say "
            "why in text a reviewer can read. Nothing was written."
        )
    check_not_an_input(target, {"the results file": results_path}, baseline=True)
    results = load_eval_results(results_path)
    # named from the project folder, as the results name their files: alike in every checkout
    named = project_path(results_path, config.root)
    created = not os.path.lexists(target)
    previous = _previous(target)
    baseline = update_baseline(target, results, reason=reason, results_name=named)
    entry = baseline.history[-1]
    if previous is not None and previous.untraced:
        click.echo(
            f"note: {target} was not what its last update wrote (edited by hand, or two "
            "updates joined by a merge); the reason given here is the one its history keeps "
            "for that change",
            err=True,
        )
    if previous is not None and not {c.case for c in previous.cases} & {
        c.id for c in results.cases
    }:
        click.echo(
            f"note: {target} shared no case with {results_path} (the results of another "
            f"suite{_suites(previous, results)}, or every case id changed): it now holds "
            "none of the cases it held; if that was not meant, restore it from git",
            err=True,
        )
    if as_json:
        echo_json({"baseline": str(target), "created": created, **entry})
        return
    at = f"at commit {entry['commit']}" if entry["commit"] else "(no git commit found)"
    # a new file named where it can be found: a relative path is the working folder's
    shown = os.path.abspath(target) if created else str(target)
    lines = [f"baseline {shown} {'created' if created else 'updated'} {at}"]
    for name, change in entry["changes"].items():
        lines.append(f"  {name}: {_change(change['from'], change['to'])}")
    for word in ("added", "removed"):
        if entry[f"cases_{word}"]:
            lines.append(f"  cases {word}: {', '.join(entry[f'cases_{word}'])}")
    for case, change in entry["cases_changed"].items():
        weaker = " (expects less than before)" if change["weakened"] else ""
        lines.append(f"  case {case}: {change['summary']}{weaker}")
    click.echo(unseen_escaped("\n".join(lines)))  # a case id's U+202E turns a line round
    elsewhere = in_project(target, "--baseline", config) if created else None
    if elsewhere is not None:
        click.echo(
            f"note: {target} is read from the working folder, {Path.cwd()}; {elsewhere}, "
            "left as it is",
            err=True,
        )


@click.command("upgrade", cls=OnceCommand)
@file_option(
    "--baseline", "baseline_path", required=True, help="Results (or baseline) of today's model."
)
@file_option("--candidate", "candidate_path", required=True, help="Results of the candidate model.")
@format_option
@json_option
@errors_as_exit_2
def upgrade_cmd(baseline_path: Path, candidate_path: Path, fmt: str, as_json: bool) -> None:
    """Classify each failure of a candidate model's results against the baseline's.

    Structure changed, distribution shifted, broken, or expectation changed (the
    case's samples, floor or assertion differ from the baseline's); warns to suspect the
    assertions when most semantic assertions flip at once, and lists the baseline's
    cases the candidate lacks. Exit 1 when the candidate has a failure the baseline
    did not have, or lacks a case of the baseline; one shard of a run, or the results
    of another suite, is refused (exit 2). --json is --format json.

    Example:

    \b
        replaygate upgrade --baseline results.json --candidate candidate.json
    """
    shape = chosen_format(fmt, as_json)
    report = classify_upgrade(
        load_reference(baseline_path), load_run(candidate_path, baseline_path)
    )
    _print(report, shape)
    if report.failed:
        raise SystemExit(1)


def _print(report: GateReport | UpgradeReport, shape: str) -> None:
    """``report`` on stdout in ``shape``: text for a terminal, or a document (Markdown,
    JSON) in UTF-8, the JSON as every ``--json`` document is written."""
    if shape == "json":
        echo_json(report.to_json())
    elif shape == "markdown":
        echo_document(report.render(shape) + "\n")
    else:
        click.echo(report.render(shape))


def _previous(target: Path) -> Reference | None:
    """The baseline at ``target`` before an update, when it is there and readable (the
    update names a damaged one)."""
    try:
        return load_reference(target) if os.path.isfile(target) else None
    except ResultsError:
        return None


def _suites(baseline: Reference, results: EvalResults) -> str:
    """``, evals/cases.jsonl where the baseline ran svc/evals/cases.jsonl``: the cases
    files of both, when they name two."""
    before, now = baseline.about.get("cases_file"), results.info.get("cases_file")
    if isinstance(before, str) and isinstance(now, str) and before != now:
        return f", of {now} where the baseline's were of {before}"
    return ""


def _change(before: object, after: object) -> str:
    """``0.0021125 -> 0.0023``: a metric's change, each value without the noise of binary
    fractions (``0.0021125000000000002``), unless that would show two values alike."""
    exact = _shown(before) == _shown(after)
    return f"{_shown(before, exact=exact)} -> {_shown(after, exact=exact)}"


def _shown(value: object, *, exact: bool = False) -> str:
    """A metric's value in a change line: ``(none)`` where it had none (a first baseline),
    a float to 15 significant digits, or exactly (its ``repr``) when ``exact``."""
    if value is None:
        return "(none)"
    if isinstance(value, float) and not exact:
        return repr(float(f"{value:.15g}"))
    return str(value)
