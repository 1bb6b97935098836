"""Which runs of the history the report compares: those of one cases file.

A history may hold runs of several cases files (the full suite, and a one-case smoke
run made with ``--cases``): their metrics measure different things, so the latest
run, the trends and the signals are drawn from the runs of one cases file only, and
the others are named as left out. A run names its cases file in ``info["cases_file"]``
as ``replaygate eval`` wrote it: relative to the project, or absolute (older runs, and
a file outside the project). Two relative names are one file only when they are equal
(``cases.jsonl`` is not ``smoke/cases.jsonl``); an absolute name and a relative one are
one file when the relative one's path components end the absolute one's (an older run's
absolute name goes with the longest relative name of the runs that ends it).
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable, Sequence
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
    """Whether two runs' names of their cases file name one file: equal (once
    normalised), or one absolute and the other relative and ending it
    (``evals/cases.jsonl`` and ``/ci/proj/evals/cases.jsonl``). Two relative names are
    both relative to the project, so they are one file only when equal. ``None`` (no
    name) is only the same as ``None``."""
    if first is None or second is None:
        return first is second
    (first_absolute, first_parts), (second_absolute, second_parts) = (
        _parts(first),
        _parts(second),
    )
    if first_absolute == second_absolute:
        return first_parts == second_parts
    if first_absolute:
        return _ending(first_parts, second_parts)
    return _ending(second_parts, first_parts)


def _ending(absolute: tuple[str, ...], relative: tuple[str, ...]) -> bool:
    """Whether the components of a relative name end those of an absolute one."""
    return bool(relative) and absolute[len(absolute) - len(relative) :] == relative


_Key = tuple[bool, tuple[str, ...]] | None
"""A cases file as the runs are grouped by it: absolute or not, and its components."""


def _key(name: str | None, relative: Iterable[tuple[str, ...]]) -> _Key:
    """The cases file ``name`` names: an absolute name is the longest of the ``relative``
    names (the runs') that ends it, else itself."""
    if name is None:
        return None
    absolute, parts = _parts(name)
    if not absolute:
        return False, parts
    ending = [r for r in relative if _ending(parts, r)]
    return (False, max(ending, key=len)) if ending else (True, parts)


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


def _grouped(runs: Sequence[HistoryRun]) -> dict[_Key, list[HistoryRun]]:
    """The runs per cases file, oldest first, groups in order of their first run."""
    relative = _relative(runs)
    groups: dict[_Key, list[HistoryRun]] = {}
    for run in runs:
        groups.setdefault(_key(cases_file_of(run), relative), []).append(run)
    return groups


def _relative(runs: Sequence[HistoryRun]) -> set[tuple[str, ...]]:
    """The components of the relative names of the runs' cases files."""
    parts = (_parts(name) for name in map(cases_file_of, runs) if name is not None)
    return {components for absolute, components in parts if not absolute}


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
        key = _key(os.fspath(path), _relative(runs))
        if key in groups:
            return groups[key]
        if key is None or key[0]:
            return None
        ended = [g for k, g in groups.items() if k is not None and k[0] and _ending(k[1], key[1])]
        return ended[-1] if ended else None  # runs of older versions, named absolute

    if cases is not None:
        chosen = of(cases)
        if chosen is None:
            ran = ", ".join(_named(cases_file_of(g[-1])) for g in groups.values())
            raise HistoryError(
                f"no run of the cases file {_named(os.fspath(cases))} in the history: its runs "
                f"ran {ran}"
            )
    else:
        preferred = of(prefer) if prefer is not None else None
        chosen = preferred or next(g for g in groups.values() if g[-1] is runs[-1])
    others = tuple(
        (cases_file_of(group[-1]), tuple(group)) for group in groups.values() if group is not chosen
    )
    return Suite(cases_file_of(chosen[-1]), tuple(chosen), others)
