"""``[tool.replaygate]`` configuration from ``pyproject.toml``, read with ``tomllib``.

Sections: ``[tool.replaygate]`` (paths and request settings),
``[tool.replaygate.prices]`` (see :mod:`replaygate.evals.prices`),
``[tool.replaygate.gate]`` (limits), ``[tool.replaygate.ci]`` (stages and change
classes), ``[tool.replaygate.report]`` (maintenance signals) and
``[tool.replaygate.patrol]`` (the age past which a fixture is stale). Relative paths are
taken from the directory of ``pyproject.toml``. Unknown keys and wrong types are
errors naming the file, the line and the key.

``hits`` (the folder of the hits log, :mod:`replaygate.fixtures.hits`) is read alone by
:func:`hits_folder` too: the pytest plugin needs no other setting, and a session does not
fail on a setting only the eval commands use.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import timedelta
from pathlib import Path
from typing import Literal

from replaygate.ages import age_of
from replaygate.config import (
    MAX_TOKENS,
    TOOL_KEYS,
    described,
    find_pyproject,
    project_folder,
    tool_table,
)
from replaygate.evals.metrics import (
    check_limit_names,
    expand_limits,
    known_metrics,
    percent_limit,
    share_limit_problem,
)
from replaygate.evals.prices import PriceTable, load_price_file, read_prices
from replaygate.evals.toml_reader import TableReader, load_toml
from replaygate.fixtures.hits import DEFAULT_DIR, hits_folder_problem
from replaygate.locale_names import names_as_utf8
from replaygate.regular import backslashed, not_regular, unreadable

When = Literal["every-commit", "pull-request", "merge-to-main"]
WHEN: tuple[When, ...] = ("every-commit", "pull-request", "merge-to-main")
"""Stage triggers, from the most frequent to the least."""

SECTION = "tool.replaygate"
DEFAULT_HISTORY = Path(".replaygate") / "history.db"
DEFAULT_BASELINE = Path("evals") / "baseline.json"

DEFAULT_MAX_DROP: Mapping[str, float] = {
    "success": 0.02,
    "citation_precision": 0.05,
    "citation_recall": 0.05,
}
"""Limits used when neither configuration nor flags give any (absolute points)."""
DEFAULT_MAX_RISE: Mapping[str, float] = {"fabricated": 0.0, "cost": 0.10, "steps": 0.25}
"""Rises allowed when none are configured (points for shares, fractions for amounts)."""


@dataclass(frozen=True)
class GateConfig:
    """Limits of the gate, by metric name (or alias), and the case rules.

    The limits given are taken over :data:`DEFAULT_MAX_DROP` and
    :data:`DEFAULT_MAX_RISE` metric by metric, as ``[tool.replaygate.gate]`` is:
    ``GateConfig(max_rise={"cost": 0.2})`` keeps every other default limit. With
    ``keep_defaults=False`` the limits given are the only ones (``max_drop={}`` then
    limits no drop). Aliases are expanded; a name of no metric, or a limit that is not
    a number >= 0 (from 0 to 1 for a share, or ``inf``), is a ValueError naming it."""

    max_drop: Mapping[str, float] = field(default_factory=dict)
    max_rise: Mapping[str, float] = field(default_factory=dict)
    fail_on_block: bool = True
    fail_on_missing: bool = True
    fail_on_fallen: bool = False
    """Whether a case whose verdict is worse than in the baseline fails the gate, where
    otherwise it is a note (a suite of many cases may let one fall within its limits)."""
    keep_defaults: bool = True

    def __post_init__(self) -> None:
        for key, default in (("max_drop", DEFAULT_MAX_DROP), ("max_rise", DEFAULT_MAX_RISE)):
            limits: Mapping[str, float] = getattr(self, key)
            _check_limits(key, limits)
            base = expand_limits(default) if self.keep_defaults else {}
            given = {name: abs(value) for name, value in expand_limits(limits).items()}
            object.__setattr__(self, key, {**base, **given})  # abs: -0 is shown as 0


def _check_limits(key: str, limits: object) -> None:
    """ValueError naming the first limit of ``limits`` (``max_drop`` or ``max_rise``)
    that names no metric, is no number >= 0, or is above 1 for a share."""
    if not isinstance(limits, Mapping):
        raise ValueError(f"GateConfig {key}: expected a mapping of metric to limit, got {limits!r}")
    unknown = check_limit_names(limits)
    if unknown:
        name = unknown[0]
        raise ValueError(f"GateConfig {key}[{name!r}]: names no metric: {known_metrics(name)}")
    for name, value in limits.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
            raise ValueError(
                f"GateConfig {key}[{name!r}]: a limit must be a number >= 0, got {value!r}"
            )
        if (problem := share_limit_problem(name, value)) is not None:
            raise ValueError(f"GateConfig {key}[{name!r}]: {problem}")


@dataclass(frozen=True)
class Stage:
    """A CI stage: when it runs, what it runs, with how many samples and which mock."""

    name: str
    when: When
    targets: tuple[str, ...] = ()
    markers: str | None = None
    samples: int = 1
    mock: str = "replay"

    def pytest_args(self) -> list[str]:
        """The pytest arguments of this stage."""
        args = list(self.targets)
        if self.markers:
            args += ["-m", self.markers]
        return args


@dataclass(frozen=True)
class ChangeClass:
    """A class of change: the path globs that belong to it and the stages it needs."""

    name: str
    paths: tuple[str, ...]
    stages: tuple[str, ...]


@dataclass(frozen=True)
class CIConfig:
    """Stages, change classes (tried in order) and where the hits log is."""

    stages: tuple[Stage, ...] = ()
    changes: tuple[ChangeClass, ...] = ()
    unclassified: tuple[str, ...] | None = None
    hits: Path = DEFAULT_DIR
    """Where ``ci plan`` reads the hits log: ``[tool.replaygate.ci] hits``, else
    :attr:`written`."""
    written: Path | None = None
    """Where the pytest plugin and ``replaygate eval`` write the log
    (``[tool.replaygate] hits``); None: :attr:`hits`."""

    @property
    def written_path(self) -> Path:
        """Where the hits log is written (:attr:`written`, else :attr:`hits`)."""
        return self.written if self.written is not None else self.hits

    def stage(self, name: str) -> Stage:
        """The stage called ``name``."""
        for stage in self.stages:
            if stage.name == name:
                return stage
        raise KeyError(name)


@dataclass(frozen=True)
class ReportConfig:
    """How maintenance signals are found in the history: over the last ``window``
    distinct recordings, once there are ``min_runs`` (at most ``window``)."""

    window: int = 8
    min_runs: int = 3
    trend: float = 0.02

    def __post_init__(self) -> None:
        if self.min_runs > self.window:
            raise ValueError(
                f"ReportConfig min_runs {self.min_runs} is more than window {self.window}: "
                "no signal could ever appear"
            )


@dataclass(frozen=True)
class PatrolConfig:
    """What ``replaygate patrol`` flags when its command line does not say: fixtures older
    than ``max_age`` (None: the command's default), shown as ``max_age_written``."""

    max_age: timedelta | None = None
    max_age_written: str | None = None
    """``max_age`` as the project wrote it (``12w``), which the patrol shows."""


@dataclass(frozen=True)
class Config:
    """The whole ``[tool.replaygate]`` configuration, paths resolved."""

    root: Path
    file: Path | None = None
    cases: Path | None = None
    fixtures: Path | None = None
    baseline: Path | None = None
    history: Path | None = None
    hits: Path | None = None
    """The hits log's folder (``[tool.replaygate] hits``); None: the default."""
    agent: str | None = None
    agent_from: str | None = None
    """Where ``agent`` was read (``pyproject.toml:2: tool.replaygate.agent``); its module
    is looked for beside the file too."""
    model: str | None = None
    max_tokens: int | None = None
    system: str | None = None
    prices: PriceTable | None = None
    max_cost: float | None = None
    """The spending cap of a live recording, in the price table's currency."""
    gate: GateConfig = field(default_factory=GateConfig)
    ci: CIConfig = field(default_factory=CIConfig)
    report: ReportConfig = field(default_factory=ReportConfig)
    patrol: PatrolConfig = field(default_factory=PatrolConfig)

    @property
    def history_path(self) -> Path:
        """The history database (default ``.replaygate/history.db`` under the root)."""
        return self.history or self.root / DEFAULT_HISTORY

    @property
    def baseline_path(self) -> Path:
        """The baseline file (default ``evals/baseline.json`` under the root)."""
        return self.baseline or self.root / DEFAULT_BASELINE

    @property
    def hits_path(self) -> Path:
        """The folder of the hits log (default ``.replaygate/hits`` under the root)."""
        return self.hits or self.root / DEFAULT_DIR


def load_config(
    path: str | os.PathLike[str] | None = None, *, near: str | os.PathLike[str] | None = None
) -> Config:
    """Read ``[tool.replaygate]`` from ``path``.

    Default: the ``pyproject.toml`` of the project that owns ``near`` (a store or a
    cases file), else the nearest one from the working directory. Without a file, or
    without the section, every setting has its default and the root is the working
    directory (or the file's directory).
    """
    file = Path(path) if path is not None else _owner(near)
    if file is None:
        return Config(root=Path.cwd())
    top, root = _top(file)
    section = top.table
    if "max_age" in section:  # the patrol's: a key of its own table
        raise top.error(
            "max_age", f"patrol's max age goes in its own table: [{SECTION}.patrol] max_age"
        )
    top.check_known(TOOL_KEYS)

    def path_of(key: str) -> Path | None:
        value = top.path(key)
        return root / value if value else None

    hits = _hits_folder(top, root) if "hits" in section else None
    max_tokens = (
        top.integer("max_tokens", 1, minimum=1, maximum=MAX_TOKENS)
        if "max_tokens" in section
        else None
    )
    return Config(
        root=root,
        file=file,
        cases=path_of("cases"),
        fixtures=path_of("fixtures"),
        baseline=path_of("baseline"),
        history=path_of("history"),
        hits=hits,
        agent=top.string("agent", nonempty=True),
        agent_from=top.where("agent") if "agent" in section else None,
        model=top.string("model", nonempty=True),
        max_tokens=max_tokens,
        system=top.string("system"),
        prices=_prices(top, root) if "prices" in section else None,
        max_cost=top.number("max_cost", 0.0) if "max_cost" in section else None,
        gate=_gate(top.sub("gate")),
        ci=_ci(top.sub("ci"), root, hits),
        report=_report(top.sub("report")),
        patrol=_patrol(top.sub("patrol")),
    )


def _top(file: Path) -> tuple[TableReader, Path]:
    """The reader of ``[tool.replaygate]`` in ``file`` (refused when it is no table), and
    the project folder, where its relative paths are taken from."""
    data, text = load_toml(file)
    section = tool_table(data)
    top = TableReader(str(file), text, SECTION, section if isinstance(section, Mapping) else {})
    if not isinstance(section, Mapping):
        raise top.error("", f"expected a table, got {described(section)}")
    return top, project_folder(file)


def hits_folder(pyproject: Path | None, root: Path) -> Path:
    """The folder of the hits log of the project at ``root`` (the pytest rootdir), whose
    ``pyproject.toml`` is ``pyproject`` (None: it has none): ``[tool.replaygate] hits``,
    else ``.replaygate/hits`` under ``root``. Only that key is read, and refused as
    :func:`_hits_folder` refuses it."""
    if pyproject is None:
        return root / DEFAULT_DIR
    top, folder = _top(pyproject)
    return _hits_folder(top, folder) if "hits" in top.table else root / DEFAULT_DIR


def _owner(near: str | os.PathLike[str] | None) -> Path | None:
    """The ``pyproject.toml`` owning ``near``, else the nearest from the working directory."""
    found = find_pyproject(near) if near is not None else None
    return found or find_pyproject()


def _prices(top: TableReader, root: Path) -> PriceTable:
    reader = top.sub("prices")
    named = reader.path("file", nonempty=False)
    if named:
        if len(reader.table) > 1:
            raise reader.error("file", "give either a price file or prices inline, not both")
        target = root / named
        if not target.is_file():
            raise reader.error("file", _not_a_price_file(target))
        # named from the project folder, as results keep it: alike in every checkout
        return replace(load_price_file(target), source=names_as_utf8(Path(named).as_posix()))
    return read_prices(reader, f"{Path(reader.file).name} [{reader.section}]")


def _not_a_price_file(target: Path) -> str:
    """Why ``target``, no regular file, cannot be the price file: absent, or what it is (a
    folder, a FIFO, a symlink to nothing), never "no such file" for a folder."""
    try:
        error: OSError = not_regular(target, os.stat(target).st_mode)
    except OSError as err:
        error = err
    if isinstance(error, FileNotFoundError) and not os.path.islink(target):
        return f"no such file: {target}"
    return f"{target} {unreadable(target, error, 'price file')}"


def _limits(reader: TableReader, key: str) -> Mapping[str, float]:
    """The limits of table ``key``; :class:`GateConfig` takes them over the defaults,
    metric by metric: a table naming one metric keeps every other default, as
    ``--max-drop`` and ``--max-rise`` do."""
    if key not in reader.table:
        return {}
    table = reader.sub(key)
    unknown = check_limit_names(table.table)
    if unknown:
        raise table.error(unknown[0], f"names no metric: {known_metrics(unknown[0])}")
    return {name: _limit(table, name, value) for name, value in table.table.items()}


def _limit(table: TableReader, name: str, value: object) -> float:
    """A limit: a number, or a percentage string (``"10%"``, in the digits 0-9) for an
    amount; a share's at most 1 (:func:`share_limit_problem`)."""
    if isinstance(value, str) and value.strip().endswith("%"):
        try:
            limit = percent_limit(name, value)
        except ValueError as error:
            raise table.error(name, str(error)) from None
        if not limit >= 0:  # named as written: -5%, not -0.05
            raise table.error(name, f"{value.strip()!r}: a limit must be a number >= 0")
        return limit
    limit = table.check_number(name, value)
    if (problem := share_limit_problem(name, limit)) is not None:
        raise table.error(name, problem)
    return limit


def _gate(reader: TableReader) -> GateConfig:
    reader.check_known(
        ("max_drop", "max_rise", "fail_on_block", "fail_on_missing", "fail_on_fallen")
    )
    return GateConfig(
        max_drop=_limits(reader, "max_drop"),
        max_rise=_limits(reader, "max_rise"),
        fail_on_block=reader.boolean("fail_on_block", True),
        fail_on_missing=reader.boolean("fail_on_missing", True),
        fail_on_fallen=reader.boolean("fail_on_fallen", False),
    )


def _stage(reader: TableReader) -> Stage:
    reader.check_known(("name", "when", "targets", "markers", "samples", "mock"))
    name = reader.label("name", "every stage needs a name")
    when = reader.string("when")
    if when is None:
        raise reader.error("when", f"every stage needs a when, one of {', '.join(WHEN)}")
    if when not in WHEN:
        raise reader.error("when", f"expected one of {', '.join(WHEN)}, got {when!r}")
    return Stage(
        name=name,
        when=_when(when),
        targets=reader.checked_strings("targets", _target_backslashed),
        markers=reader.string("markers"),
        samples=reader.integer("samples", 1, minimum=1),
        mock=reader.string("mock", "replay") or "replay",
    )


def _target_backslashed(target: str) -> str | None:
    """Why a stage's pytest path or node id ``target`` is refused for a backslash in its
    path (:func:`~replaygate.regular.backslashed`), or None; its test's id may hold one."""
    return backslashed(target.partition("::")[0])


def _glob_backslashed(glob: str) -> str | None:
    """Why a change class's glob separating folders with a backslash is refused, or None:
    git names a changed file with ``/`` on Windows too, so it would claim no file."""
    if "\\" not in glob:
        return None
    slashed = glob.replace("\\", "/")
    return (
        f"{glob!r} separates folders with a backslash, where git names each changed file "
        f"with / on every system, Windows too, so it would match none: write {slashed!r}"
    )


def _when(value: str) -> When:
    for known in WHEN:
        if value == known:
            return known
    raise ValueError(value)


def _ci(reader: TableReader, root: Path, written: Path | None) -> CIConfig:
    """``[tool.replaygate.ci]``; ``written`` is ``[tool.replaygate] hits`` (None: not set),
    the folder ``ci plan`` reads the hits log from unless the table names its own."""
    reader.check_known(("stages", "changes", "unclassified", "hits"))
    stages = tuple(_stage(r) for r in reader.tables("stages"))
    names = [s.name for s in stages]
    for i, name in enumerate(names):
        if name in names[:i]:
            raise reader.tables("stages")[i].error("name", f"two stages are named {name!r}")
    changes: list[ChangeClass] = []
    for entry in reader.tables("changes"):
        entry.check_known(("name", "paths", "stages"))
        class_name = entry.label("name", "every change class needs a name")
        if any(change.name == class_name for change in changes):
            raise entry.error("name", f"two change classes are named {class_name!r}")
        wanted = entry.strings("stages")
        for stage in wanted:
            if stage not in names:
                raise entry.error("stages", f"no stage named {stage!r} (stages: {names})")
        paths = entry.checked_strings("paths", _glob_backslashed)
        changes.append(ChangeClass(class_name, paths, wanted))
    unclassified = None
    if "unclassified" in reader.table:
        unclassified = reader.strings("unclassified")
        for stage in unclassified:
            if stage not in names:
                raise reader.error("unclassified", f"no stage named {stage!r}")
    default = DEFAULT_DIR.as_posix()
    if written is not None:  # as [tool.replaygate] hits gives it: relative, or absolute
        shown = written.relative_to(root) if written.is_relative_to(root) else written
        default = f"{shown.as_posix()}, which [tool.replaygate] hits names"
    read = _hits_folder(reader, root, default) if "hits" in reader.table else None
    written = written or root / DEFAULT_DIR
    return CIConfig(stages, tuple(changes), unclassified, read or written, written)


def _hits_folder(reader: TableReader, root: Path, default: str = DEFAULT_DIR.as_posix()) -> Path:
    """The ``hits`` folder of ``reader``'s table, from ``root`` (an absolute one as it is);
    one that is blank, that names a file, or that is the project folder or holds it, is
    refused at its line, naming ``default``, the folder taken where the key is left out."""
    hits = reader.path("hits", nonempty=False) or ""
    if not hits.strip():
        raise reader.error(
            "hits",
            f"{hits!r} names no folder: name the hits log's folder, or leave hits out for "
            f"the default ({default})",
        )
    folder = root / hits
    problem = hits_folder_problem(folder, default)
    if problem is not None:
        raise reader.error("hits", problem)
    if folder.resolve() in (root.resolve(), *root.resolve().parents):
        raise reader.error(
            "hits",
            f"{hits!r} is the project folder (or holds it): the hits log's files would lie "
            "among the project's (`ci plan` would take every change for one of them); name "
            f"a folder of its own (default {default})",
        )
    return folder


def _report(reader: TableReader) -> ReportConfig:
    reader.check_known(("window", "min_runs", "trend"))
    window = reader.integer("window", 8, minimum=2)
    min_runs = reader.integer("min_runs", 3, minimum=2)
    if min_runs > window:
        given = f"line {reader.line('window')}" if "window" in reader.table else "the default"
        raise reader.error(
            "min_runs",
            f"{min_runs} is more than window ({window}, {given}): the signals examine the "
            "last `window` distinct recordings once there are `min_runs`, so none could "
            "ever appear; lower min_runs or raise window",
        )
    return ReportConfig(window, min_runs, reader.number("trend", 0.02))


def _patrol(reader: TableReader) -> PatrolConfig:
    """``max_age``, written as ``--max-age`` is (``90d``) and read by its parser."""
    reader.check_known(("max_age",))
    text = reader.table.get("max_age")
    if text is None:
        return PatrolConfig()
    if not isinstance(text, str):
        raise reader.error(
            "max_age", f'expected an age as a string, like "90d" or "12w", got {described(text)}'
        )
    try:
        return PatrolConfig(age_of(text), text.strip())
    except ValueError as err:
        raise reader.error("max_age", f"{text!r}: {err}") from None
