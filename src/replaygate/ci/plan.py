"""The stage plan of a change: changed files -> change classes -> stages, with reasons.

Classes are tried in their configured order; the first whose globs match a file
claims it. A file no class claims runs the ``unclassified`` stages (every stage when
none are configured). The class named ``fixtures`` is special: its files run only
the tests that played the changed fixtures (from the hits log), and its own stages
only when no test is known to use them. Stages whose ``when`` is rarer than the
event (``merge-to-main`` stages on a pull request) are skipped, with the reason.
replaygate's own working files (:func:`is_own_file`) are never changes.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from replaygate.ci.fixture_users import FixtureUsers, changed_keys, node_to_run
from replaygate.ci.globs import glob_match
from replaygate.ci.stages import FIXTURE_STAGE, check_stages
from replaygate.errors import first_few
from replaygate.evals.config import WHEN, CIConfig, Stage
from replaygate.evals.errors import EvalError
from replaygate.evals.table import text_table
from replaygate.fixtures.hits import DEFAULT_DIR, is_log_file
from replaygate.fixtures.store import LOCK_NAME
from replaygate.fixtures.store.side_files import is_side_file
from replaygate.locale_names import names_as_utf8
from replaygate.pytest_plugin.rootdirs import config_below

FIXTURES_CLASS = "fixtures"

OldText = Callable[[Path], str | None]

OWN_FOLDER = ".replaygate"


@dataclass(frozen=True)
class Change:
    """A changed file (relative to the root) and the class that claimed it."""

    path: str
    change_class: str | None


@dataclass(frozen=True)
class PlannedStage:
    """A stage to run: its pytest arguments, samples, mock, and why it runs."""

    name: str
    when: str
    pytest_args: tuple[str, ...]
    samples: int
    mock: str
    reasons: tuple[str, ...]

    def matrix_entry(self) -> dict[str, Any]:
        """One ``include`` item of a GitHub Actions matrix."""
        return {
            "stage": self.name,
            "pytest_args": shlex.join(self.pytest_args),
            "samples": self.samples,
            "mock": self.mock,
        }


@dataclass(frozen=True)
class Plan:
    """What a change must run on an event, and what it skips."""

    event: str
    changes: tuple[Change, ...]
    stages: tuple[PlannedStage, ...]
    skipped: tuple[tuple[str, str], ...]
    notes: tuple[str, ...] = ()

    def text(self) -> str:
        """The stages as a table, the skipped stages, and the changes by class."""
        if not self.changes and not self.stages:
            return "\n".join(
                [f"no changed files: nothing to run ({self.event})", *self._note_lines()]
            )
        rows = [
            [s.name, s.when, shlex.join(s.pytest_args) or "(all)", str(s.samples), s.mock,
             "; ".join(s.reasons)]
            for s in self.stages
        ]  # fmt: skip
        changed = f"{len(self.changes)} changed file(s)" if self.changes else "no base"
        lines = [f"event: {self.event}; {changed}"]
        lines.append(text_table(("stage", "when", "runs", "samples", "mock", "why"), rows))
        lines += [f"skip {name}: {why}" for name, why in self.skipped]
        lines += self._note_lines()
        if not self.stages:
            lines.append("nothing to run")
        return "\n".join(lines)

    def _note_lines(self) -> list[str]:
        return [f"note {note}" for note in self.notes]

    def to_json(self) -> dict[str, Any]:
        """The plan, with a ready GitHub Actions ``matrix``."""
        return {
            "event": self.event,
            "changes": [{"path": c.path, "class": c.change_class} for c in self.changes],
            "stages": [
                {**s.matrix_entry(), "when": s.when, "reasons": list(s.reasons)}
                for s in self.stages
            ],
            "skipped": [{"stage": n, "why": w} for n, w in self.skipped],
            "notes": list(self.notes),
            "matrix": {"include": [s.matrix_entry() for s in self.stages]},
        }

    def github_output(self) -> str:
        """``matrix=...`` and ``has_stages=...`` lines for ``$GITHUB_OUTPUT``."""
        matrix = json.dumps(self.to_json()["matrix"], separators=(",", ":"))
        return f"matrix={matrix}\nhas_stages={'true' if self.stages else 'false'}\n"

    def render(self, fmt: str) -> str:
        """``table``, ``json`` or ``github``."""
        if fmt == "json":
            return json.dumps(self.to_json(), indent=2)
        if fmt == "github":
            return self.github_output().rstrip("\n")
        return self.text()


def _located(path: Path) -> Path:
    """``path`` with its folders resolved but not its own name: a changed symlink is the
    link itself (``prompts/system.txt``), never the file it points to (``docs/v2.md``),
    whose class would decide the stages of a change to the link."""
    if path.name in ("", ".", ".."):
        return path.resolve()
    return path.parent.resolve() / path.name


def _no_log(ci: CIConfig, root: Path) -> str:
    """Why the hits log ``ci plan`` reads (``ci.hits``) named no test, and what to do: the
    folder is not there, or holds no hit; when ``[tool.replaygate.ci] hits`` sends the plan
    to another folder than the log is written to, that folder too."""
    where = _label(ci.hits, root)
    state = "holds no hit" if ci.hits.is_dir() else "is not there"
    written = ci.written if ci.written is not None else root / DEFAULT_DIR
    if _located(ci.hits) == _located(written):
        return (
            f"no run in the hits log at {where} (the folder {state}): the pytest plugin "
            "writes it as the tests replay, and replaygate eval as it runs; run them, or "
            "restore the log kept from earlier runs (docs/ci.md), for a changed fixture to "
            "run only the tests that play it"
        )
    return (
        f"no run in the hits log at {where} (the folder {state}), which [tool.replaygate.ci] "
        f"hits names: the pytest plugin and replaygate eval write the log to "
        f"{_label(written, root)} ([tool.replaygate] hits), which ci plan does not read "
        "while [tool.replaygate.ci] hits is set; set it to the folder a CI job restores the "
        f"log to, or remove it to read {_label(written, root)}"
    )


def _relative(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` (POSIX), or as given when outside it; a UTF-8 name
    as its text in any locale (an ASCII one holds its bytes as surrogates)."""
    try:
        return names_as_utf8(_located(path).relative_to(root.resolve()).as_posix())
    except ValueError:
        return names_as_utf8(path.as_posix())


def _label(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` as a table shows it: on one line, a name holding a
    newline or another control character quoted with escapes."""
    name = _relative(path, root)
    return name if name.isprintable() else json.dumps(name, ensure_ascii=False)


def _names(files: Sequence[Path], root: Path) -> str:
    """The first three of ``files``, and how many more."""
    more = f" and {len(files) - 3} more" if len(files) > 3 else ""
    return ", ".join(_label(f, root) for f in files[:3]) + more


def is_own_file(path: Path, ci: CIConfig, root: Path) -> bool:
    """True for a file replaygate writes as it works, never a change to plan for: one in a
    ``.replaygate`` folder of the project, a file of a run in the hits log folder (the one
    read or the one written: :func:`~replaygate.fixtures.hits.is_log_file`; a fixture store
    there is a change), a
    store file's lock (``x.jsonl.lock``), a folder store's ``.replaygate.lock``, a backup
    or a temporary file a store writes beside its files (:func:`~.side_files.is_side_file`)."""
    return (
        OWN_FOLDER in Path(_relative(path, root)).parts[:-1]
        or (
            is_log_file(path.name)
            and _located(path).parent in (ci.hits.resolve(), ci.written_path.resolve())
        )
        or path.name == LOCK_NAME
        or (path.suffix == ".lock" and path.stem.endswith((".json", ".jsonl")))
        or is_side_file(path.name)
    )


def classify(path: str, ci: CIConfig) -> str | None:
    """The first change class whose globs match ``path``."""
    for change_class in ci.changes:
        if any(glob_match(path, pattern) for pattern in change_class.paths):
            return change_class.name
    return None


def _eligible(stage: Stage, event: str) -> bool:
    return WHEN.index(stage.when) <= [str(w) for w in WHEN].index(event)


NO_BASE = re.compile(r"0{40}|0{64}")
"""A revision of zeros only: what GitHub gives as the commit before a branch's first push
(``github.event.before``), and git as the old value of a ref that did not exist."""


def every_stage(ci: CIConfig, *, event: str, why: str) -> Plan:
    """The plan when there is no base to compare with: every stage that runs on
    ``event``, each for ``why``, which a note repeats."""
    _check(ci, event)
    planned, skipped = _planned(ci, event, {stage.name: [why] for stage in ci.stages})
    return Plan(event, (), tuple(planned), tuple(skipped), (f"{why}: every stage runs",))


def _planned(
    ci: CIConfig, event: str, reasons: Mapping[str, Sequence[str]]
) -> tuple[list[PlannedStage], list[tuple[str, str]]]:
    """The stages of ``ci`` that ``reasons`` gives a reason to run (stage name -> why), in
    their order: those that run on ``event``, and (name, why not) for those that do not."""
    planned: list[PlannedStage] = []
    skipped: list[tuple[str, str]] = []
    for stage in ci.stages:
        why = reasons.get(stage.name)
        if not why:
            continue
        if not _eligible(stage, event):
            skipped.append((stage.name, f"runs on {stage.when}, not on {event}"))
            continue
        planned.append(
            PlannedStage(
                stage.name, stage.when, tuple(stage.pytest_args()), stage.samples, stage.mock,
                tuple(why),
            )
        )  # fmt: skip
    return planned, skipped


def _check(ci: CIConfig, event: str) -> None:
    if event not in WHEN:
        raise EvalError(f"unknown event {event!r}; expected one of {', '.join(WHEN)}")
    if not ci.stages:
        raise EvalError(
            "no CI stages configured: add [[tool.replaygate.ci.stages]] to pyproject.toml "
            "(see docs/ci.md)"
        )
    check_stages(ci)


def make_plan(
    changed: Sequence[Path],
    ci: CIConfig,
    *,
    root: Path,
    event: str,
    users: FixtureUsers | None = None,
    old_text: OldText | None = None,
) -> Plan:
    """The plan for ``changed`` files (absolute, or relative to ``root``) on ``event``.

    ``users`` maps fixtures to tests (default: read from ``ci.hits``); ``old_text``
    gives a file's content at the base revision, so only the fixtures whose lines
    changed count (without it, every fixture of a changed file does).
    """
    _check(ci, event)
    files = [p if p.is_absolute() else root / p for p in changed]
    files = [p for p in files if not is_own_file(p, ci, root)]
    changes = tuple(Change(_relative(p, root), classify(_relative(p, root), ci)) for p in files)
    reasons: dict[str, list[str]] = {}

    def need(stages: Sequence[str], why: str) -> None:
        for stage in stages:
            reasons.setdefault(stage, []).append(why)

    by_class: dict[str | None, list[Path]] = {}
    for change, file in zip(changes, files, strict=True):
        by_class.setdefault(change.change_class, []).append(file)
    fixture_tests: set[str] = set()
    fixture_reasons: list[str] = []
    gone: set[str] = set()
    widened: dict[str, str] = {}
    no_log: str | None = None
    for change_class in ci.changes:
        claimed = by_class.get(change_class.name, [])
        if not claimed:
            continue
        if change_class.name != FIXTURES_CLASS:
            need(change_class.stages, f"{change_class.name}: {_names(claimed, root)}")
            continue
        if users is None:
            try:
                users = FixtureUsers.from_log(ci.hits, root)
            except ValueError as err:
                raise EvalError(f"damaged hits log: {err}") from None
            if not users.runs:
                no_log = _no_log(ci, root)
        for file in claimed:
            keys = changed_keys(file, old_text(file) if old_text else None)
            label = _label(file, root)
            if keys is not None and not keys:
                continue
            played = users.tests_for(file, keys)
            runs = {test: node_to_run(test, root) for test in played}
            gone |= {test for test, run in runs.items() if run is None}
            widened |= {t: run for t, run in runs.items() if run is not None and run != t}
            tests = {run for run in runs.values() if run is not None}
            if tests:
                fixture_tests |= tests
                kept = sum(run is not None for run in runs.values())
                fixture_reasons.append(f"fixtures: {label} is played by {kept} test(s)")
            elif played:
                need(
                    change_class.stages,
                    f"fixtures: every test in the hits log that played the changed fixtures "
                    f"of {label} is gone",
                )
            elif no_log is not None:
                need(
                    change_class.stages,
                    f"fixtures: no run in the hits log at {_label(ci.hits, root)}, so no test "
                    f"is known to play the changed fixtures of {label}",
                )
            else:
                need(
                    change_class.stages,
                    f"fixtures: no test in the hits log played the changed fixtures of {label}",
                )
    unclassified = by_class.get(None, [])
    if unclassified:
        stages = ci.unclassified if ci.unclassified is not None else [s.name for s in ci.stages]
        need(stages, f"unclassified: {_names(unclassified, root)}")
    planned, skipped = _planned(ci, event, reasons)
    classes = {run for run in widened.values() if run is not None}
    fixture_tests = {t for t in fixture_tests if not any(t.startswith(f"{c}::") for c in classes)}
    if fixture_tests:
        # named alone, a monorepo package's test would take the package's rootdir, and
        # miss the stores the run that logged it played under the project's
        tested = [root / test.partition("::")[0] for test in fixture_tests]
        rootdir = ("--rootdir=.",) if config_below(root, tested) else ()
        planned.append(
            PlannedStage(
                FIXTURE_STAGE, event, (*rootdir, *sorted(fixture_tests)), 1, "replay",
                tuple(fixture_reasons),
            )
        )  # fmt: skip
    notes = [no_log] if no_log is not None else []
    if gone:
        notes.append(
            f"left out {len(gone)} test(s) the hits log names that are no longer in the "
            f"project (renamed or removed; pytest would stop at them): {first_few(sorted(gone), 3)}"
        )
    if widened:
        notes.append(
            f"ran {len(widened)} test(s) the hits log names through their class, their own "
            "name being nowhere in their file (inherited, or renamed; pytest would stop at "
            f"them): {first_few([f'{t} as {run}' for t, run in sorted(widened.items())], 3)}"
        )
    return Plan(event, changes, tuple(planned), tuple(skipped), tuple(notes))
