"""The patrol as a rich table with a summary."""

from __future__ import annotations

import io
import sys
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

from rich import box
from rich.console import Console, JustifyMethod
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from replaygate.errors import shell_path, shown_file
from replaygate.fixtures import hits
from replaygate.hygiene.patrol import Patrol, PatrolRow, shown

WIDTH = 160
DEFAULT_RUNS = 5  # prune's and patrol's --runs
COLUMNS = ("fixture", "key", "recorded", "age", "played", "refs", "flags")


def age_text(age: timedelta | None) -> str:
    """``12d``, ``5h``, ``future`` (a negative age) or ``unknown``."""
    if age is None:
        return "unknown"
    if age < timedelta(0):
        return "future"
    if age.days >= 1:
        return f"{age.days}d"
    return f"{max(0, int(age.total_seconds() // 3600))}h"


def flags(row: PatrolRow, runs: int) -> str:
    """FUTURE, STALE, UNUSED (or new: recorded since the runs counted started / unplayed /
    unreferenced / failed-test: kept for a test of its store that did not pass); a fixture
    whose use no run counted tells is never UNUSED nor unplayed."""
    out = ["FUTURE"] if row.future else []
    if row.stale:
        out.append("STALE")
    judged = runs and row.use_known
    if row.unused and judged:
        out.append("UNUSED")
    else:
        if judged and row.new:
            out.append("new")
        elif judged and row.plays == 0:
            out.append("unplayed")
        if not row.refs:
            out.append("unreferenced")
        if judged and row.held_by_failure:
            out.append("failed-test")
    return " ".join(out)


def new_line(result: Patrol) -> str | None:
    """What the fixtures recorded since the newest run counted started are, and what to do;
    None when there are none."""
    if not result.new:
        return None
    return (
        f"{len(result.new)} recorded after the newest run counted started (new): no run "
        "counted could play them, so they are kept; run the tests, then patrol again"
    )


def failed_tests_line(result: Patrol) -> str | None:
    """What the fixtures kept for tests that did not pass are, and what to do; None when
    there are none."""
    held, tests = result.held_by_failures, result.failed_tests
    if not held:
        return None
    others = f" and {len(tests) - 1} more" if len(tests) > 1 else ""
    return (
        f"{len(held)} fixture(s) neither played nor referenced are kept: their store was "
        f"played by a test that did not pass in the runs counted ({tests[0]}{others}: "
        "failed, errored, skipped as it ran or interrupted), which may need what it did "
        "not reach; prune once it passes"
    )


def unsearched(folder: Path) -> str:
    """That no reference was searched, the default ``--refs`` ``folder`` being absent, or
    holding fixture stores alone (a monorepo's stores, its tests being in its packages)."""
    why = "holds no file but fixture stores" if folder.is_dir() else "is no folder"
    return (
        f"no reference searched: {shown(folder)}, the default --refs (the project's tests "
        f"folder), {why}"
    )


def missing_refs_line(result: Patrol) -> str | None:
    """That no reference was searched (:func:`unsearched`); None when one was."""
    if result.missing_refs is None:
        return None
    return (
        f"{unsearched(result.missing_refs)}; name the folders of code that may name a "
        "store with --refs"
    )


def title(result: Patrol) -> str:
    """What was patrolled and against what."""
    refs = ", ".join(shown_file(shown(p)) for p in result.refs) or "none"
    return (
        f"patrol of {shown_file(shown(result.path))}: {len(result.rows)} fixture(s), "
        f"max age {result.max_age_shown or 'none'}, "
        f"last {len(result.runs)} of {result.recorded_runs} recorded run(s), references in {refs}"
    )


def prune_command(result: Patrol) -> str:
    """The ``prune`` command that lists what this patrol calls unused: same path, runs, refs."""
    words = ["replaygate", "prune", shell_path(shown(result.path)), "--unused"]
    if result.runs_asked != DEFAULT_RUNS:
        words += ["--runs", str(result.runs_asked)]
    if [shown(p) for p in result.refs] != ["tests"]:
        words += [w for p in result.refs for w in ("--refs", shell_path(shown(p)))]
    if shown(result.hits_dir) != hits.DEFAULT_DIR.as_posix():
        words += ["--hits-dir", shell_path(shown(result.hits_dir))]
    return " ".join(words)


def summary(result: Patrol) -> list[str]:
    """The counts, and what to do about them."""
    limit = result.max_age_shown
    stale = f"older than {limit}" if limit else "no max age"
    misdated = sum(row.misdated for row in result.rows)
    verify = f"`replaygate verify {shell_path(shown(result.path))}` names it"
    why = "no meta.recorded_at"
    if misdated == len(result.unknown_age) and misdated:
        why = f"a meta.recorded_at that is no ISO 8601 time: {verify}"
    elif misdated:
        why += f", or for {misdated} one that is no ISO 8601 time: {verify}"
    lines = [
        f"{len(result.stale)} stale ({stale}), {len(result.unknown_age)} of unknown age ({why})"
    ]
    if result.future:
        lines.append(
            f"{len(result.future)} recorded in the future (meta.recorded_at after "
            f"{result.now.isoformat(timespec='seconds')}): a wrong clock or an edited date; "
            "check them and re-record or correct the date"
        )
    if not result.runs:
        lines.append(
            f"no test run in the hits log at {shown(result.hits_dir)}: run the tests "
            "(the pytest plugin logs which fixtures they replay), or `replaygate eval` "
            "for an eval's store, to see use"
        )
    else:
        unknown = result.use_unknown
        if unknown and result.unplayed_eval_stores:
            (store, named), *more = result.unplayed_eval_stores
            others = f" and {len(more)} more" if more else ""
            evals = len(result.runs) - result.test_sessions
            counted = (
                f"none of the {evals} eval run(s) in the hits log at {shown(result.hits_dir)}"
                " plays it"
                if evals
                else f"no eval run in the hits log at {shown(result.hits_dir)}, only "
                f"{result.test_sessions} test session(s)"
            )
            lines += [
                f"{counted}: the use of the {len(unknown)} fixture(s) of the eval's store "
                f"{shown(store)}{others} is unknown (played: -),",
                f"as {named} names it: run `replaygate eval` (it logs which fixtures it "
                "replays), then patrol again",
            ]
        elif unknown:
            lines += [
                f"no test session in the hits log at {shown(result.hits_dir)}, only "
                f"{len(result.runs)} eval run(s): the use of the {len(unknown)} fixture(s) "
                "outside the eval's stores is unknown (played: -);",
                "run the test suite (the pytest plugin logs which fixtures each session "
                "replays), then patrol again",
            ]
        # prune refuses while a fixture of unknown use is referenced by nothing
        refused = any(not row.refs for row in unknown)
        lines.append(
            f"{len(result.unplayed)} not played in the last {len(result.runs)} run(s), "
            f"{len(result.unused)} neither played nor referenced"
            + ("" if refused or not result.unused else f" (`{prune_command(result)}` lists them)")
        )
        lines += filter(None, [failed_tests_line(result), new_line(result)])
    lines += filter(None, [missing_refs_line(result)])
    if result.unread:
        file, why = result.unread[0]
        lines.append(
            f"{len(result.unread)} file(s) under the reference folders could not be read, "
            f"so a reference in them is not seen: {shown(file)} ({why})"
        )
    if result.recorded_runs and result.recorded_runs < result.runs_asked:
        lines.append(
            f"only {result.recorded_runs} run(s) recorded, fewer than --runs {result.runs_asked}"
        )
    return lines


def render_patrol(result: Patrol, limit: int | None = None, more: str = "") -> str:
    """The table and summary as text (no colour when not on a terminal); with ``limit``,
    the table holds the first ``limit`` rows (the oldest), and ``more`` follows it."""
    runs = len(result.runs)
    rows = [
        (
            shown_file(row.where),  # a name holding a newline would split its row
            row.key,
            row.recorded_at.date().isoformat() if row.recorded_at else "unknown",
            age_text(row.age),
            str(row.plays) if runs and row.use_known else "-",
            str(len(row.refs)),
            flags(row, runs),
        )
        for row in result.rows[:limit]
    ]
    # the title and the summary are written as they are: a console would wrap a line
    # holding a long path (a `replaygate prune ...` command split in two) and read
    # `:smile:` in a folder's name as an emoji
    shown_more = [more] if limit is not None and len(result.rows) > limit else []
    text = "".join(
        [title(result) + "\n", plain_table(rows) or rich_table(rows)]
        + [line + "\n" for line in [*shown_more, *summary(result)]]
    )
    return "".join(line.rstrip() + "\n" for line in text.splitlines())


_RIGHT = ("age", "played", "refs")
"""The columns whose cells are set to the right."""
_GAP = 3
"""The spaces between two columns (a cell's padding on each side, and the rule between)."""


def _console(file: io.StringIO) -> Console:
    return Console(file=file, width=WIDTH, color_system=None, force_terminal=False)


def rich_table(rows: Sequence[tuple[str, ...]]) -> str:
    """The table of ``rows`` (cells in the order of :data:`COLUMNS`) as rich draws it."""
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    for name in COLUMNS:
        justify: JustifyMethod = "right" if name in _RIGHT else "left"
        table.add_column(name, justify=justify, no_wrap=name in ("key", "recorded"))
    for cells in rows:
        table.add_row(*(Text(cell) for cell in cells))  # as written: test_x[a].jsonl is no markup
    buffer = io.StringIO()
    console = _console(buffer)
    # as wide as the table: a fixture's path is never cut to `tests/fixtures/very_long_…`
    unbounded = console.options.update_width(sys.maxsize)
    console.width = max(WIDTH, Measurement.get(console, unbounded, table).maximum)
    console.print(table)
    return buffer.getvalue()


def plain_table(rows: Sequence[tuple[str, ...]]) -> str | None:
    """The table :func:`rich_table` draws, written line by line, where no cell needs rich to
    place it (each cell printable ASCII with no space at either end), else None: rich
    takes about a minute for 100,000 rows."""
    if not all(_plain(cell) for cells in rows for cell in cells):
        return None
    widths = [
        max([len(name), *(len(cells[i]) for cells in rows)]) for i, name in enumerate(COLUMNS)
    ]
    gap = " " * _GAP

    def line(cells: tuple[str, ...]) -> str:
        placed = (
            cell.rjust(width) if name in _RIGHT else cell.ljust(width)
            for name, cell, width in zip(COLUMNS, cells, widths, strict=True)
        )
        return gap.join(placed) + "\n"

    rule = "\u2500" * (sum(widths) + _GAP * (len(widths) - 1)) + "\n"
    return line(COLUMNS) + rule + "".join(line(cells) for cells in rows)


def _plain(cell: str) -> bool:
    return cell.isascii() and cell.isprintable() and cell == cell.strip(" ")
