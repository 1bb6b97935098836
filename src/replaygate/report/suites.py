"""Which runs of the history the report compares: those of one cases file.

A history may hold runs of several cases files (the full suite, and a one-case smoke
run made with ``--cases``): their metrics measure different things, so the latest
run, the trends and the signals are drawn from the runs of one cases file only, and
the others are named as left out. A run names its cases file in ``info["cases_file"]``
as ``replaygate eval`` wrote it: relative to the project, relative to where the
command ran (older runs) or absolute, so two names are one file when they are equal,
or when one is relative and its path components end the other's.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath, PureWindowsPath

from replaygate.errors import shown_file
from replaygate.evals.errors import HistoryError
from replaygate.evals.history import HistoryRun
from replaygate.report.evidence import plural

NO_CASES_FILE = "no cases file (runs made in Python)"
"""How runs that name no cases file (from ``run_eval`` without ``info``) are called."""
NAMING_NONE = "naming no cases file (made in Python)"
"""The same, said of runs after their count: ``1 run naming no cases file ...``."""


def cases_file_of(run: HistoryRun) -> str | None:
    """The cases file ``run`` names in its ``info``, or ``None``."""
    named = run.info.get("cases_file")
    return named if isinstance(named, str) and named else None


def _parts(name: str) -> tuple[bool, tuple[str, ...]]:
    """Whether ``name`` is absolute (POSIX or Windows), and its components in ``/`` form."""
    absolute = PurePosixPath(name).is_absolute() or PureWindowsPath(name).is_absolute()
    plain = posixpath.normpath(name.replace("\\", "/"))
    return absolute, tuple(part for part in plain.split("/") if part not in ("", "."))


def same_cases_file(first: str | None, second: str | None) -> bool:
    """Whether two runs' names of their cases file name one file: equal, or one relative
    and ending the other (``evals/cases.jsonl`` and ``/ci/proj/evals/cases.jsonl``).
    ``None`` (no name) is only the same as ``None``."""
    if first is None or second is None:
        return first is second
    (first_absolute, first_parts), (second_absolute, second_parts) = (
        _parts(first),
        _parts(second),
    )
    if first_absolute and second_absolute:
        return first_parts == second_parts
    shorter, longer = sorted((first_parts, second_parts), key=len)
    return bool(shorter) and longer[len(longer) - len(shorter) :] == shorter


@dataclass(frozen=True)
class Suite:
    """The runs of one cases file, and those of the others (the report leaves them out)."""

    cases_file: str | None
    """The cases file as its latest run names it (``None``: runs that name none)."""
    runs: tuple[HistoryRun, ...]
    others: tuple[tuple[str | None, tuple[HistoryRun, ...]], ...] = ()
    """Each other cases file (as its latest run names it) and its runs, oldest first."""

    def left_out(self) -> list[str]:
        """Each other cases file in words: ``1 run of smoke.jsonl, the latest at T``."""
        return [
            f"{plural(len(runs), 'run')} {_of(name)}, the latest at {runs[-1].time}"
            for name, runs in self.others
        ]


def _of(name: str | None) -> str:
    """Which cases file runs ran, after their count: ``of smoke.jsonl``."""
    return f"of {shown_file(name)}" if name else NAMING_NONE


def _named(name: str | None) -> str:
    """A cases file's name on one line (:func:`~replaygate.errors.shown_file`), or that
    the runs name none."""
    return shown_file(name) if name else NO_CASES_FILE


def _ran(group: Sequence[HistoryRun], name: str | None) -> bool:
    """Whether a run of ``group`` names the cases file ``name``."""
    return any(same_cases_file(cases_file_of(run), name) for run in group)


def _grouped(runs: Sequence[HistoryRun]) -> list[list[HistoryRun]]:
    """The runs per cases file, oldest first, groups in order of their first run."""
    groups: list[list[HistoryRun]] = []
    for run in runs:
        name = cases_file_of(run)
        group = next((g for g in groups if _ran(g, name)), None)
        if group is None:
            groups.append([run])
        else:
            group.append(run)
    return groups


def suite_runs(
    runs: Sequence[HistoryRun],
    cases: str | os.PathLike[str] | None = None,
    *,
    prefer: str | os.PathLike[str] | None = None,
) -> Suite:
    """The runs (oldest first) of the cases file ``cases``; without it, of ``prefer``
    (the project's configured cases file) when some run ran it, else of the latest run's.

    Raises :class:`~replaygate.evals.errors.HistoryError` when no run ran ``cases``,
    naming the cases files the runs ran.
    """
    groups = _grouped(runs)
    if not groups:
        return Suite(os.fspath(cases) if cases is not None else None, ())

    def of(path: str | os.PathLike[str]) -> list[HistoryRun] | None:
        return next((g for g in groups if _ran(g, os.fspath(path))), None)

    if cases is not None:
        chosen = of(cases)
        if chosen is None:
            ran = ", ".join(_named(cases_file_of(g[-1])) for g in groups)
            raise HistoryError(
                f"no run of the cases file {_named(os.fspath(cases))} in the history: its runs "
                f"ran {ran}"
            )
    else:
        preferred = of(prefer) if prefer is not None else None
        chosen = preferred or next(g for g in groups if g[-1] is runs[-1])
    others = tuple(
        (cases_file_of(group[-1]), tuple(group)) for group in groups if group is not chosen
    )
    return Suite(cases_file_of(chosen[-1]), tuple(chosen), others)
