"""The pytest plugin's command-line options and ini settings.

Every option has a ``--replaygate-`` spelling. The short spellings ``--record-mode`` and
``--approve-live`` are added too, but only where no other plugin owns them: not when
pytest-recording or pytest-vcr is installed (whichever plugin pytest loads first, both
would claim ``--record-mode``), and not when a plugin loaded earlier already registered
one of them. ``pytest --help`` says which spellings are active and why.
"""

from __future__ import annotations

import argparse
import os
import shlex
from collections.abc import Iterable
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path
from typing import Any

import pytest

from replaygate import digits
from replaygate.fixtures.modes import MODES
from replaygate.missing import typo_of
from replaygate.pytest_plugin.store_names import DEFAULT_DIR
from replaygate.regular import backslashed_here, not_a_folder, spelled_otherwise
from replaygate.seed import SIMULATOR_SEED
from replaygate.shell_words import shell_quote

MODE = "replaygate_record_mode"
APPROVE = "replaygate_approve_live"
SIMULATOR = "replaygate_simulator"
SIM_SEED = "replaygate_sim_seed"
SIM_BATCH_POLLS = "replaygate_sim_batch_polls"
MAX_COST = "replaygate_max_cost"
SHORT_OWNERS = ("pytest-recording", "pytest-vcr")
"""Installed distributions whose plugin registers ``--record-mode`` itself."""
_NO_SIMULATOR = "none"
MODE_ATTRS: dict[str, Any] = {
    "dest": MODE,
    "choices": MODES,
    "default": "replay",
    "help": "replay (default, never live), record-missing or rerecord; "
    "the recording modes need --replaygate-approve-live",
}
APPROVE_ATTRS: dict[str, Any] = {
    "dest": APPROVE,
    "action": "store_true",
    "default": False,
    "help": "approve live model calls for this run (required by the recording modes)",
}
SHORT = {
    "--record-mode": ("--replaygate-record-mode", MODE_ATTRS),
    "--approve-live": ("--replaygate-approve-live", APPROVE_ATTRS),
}
"""Each short spelling, the option it stands for and that option's settings."""
_APPROVALS = frozenset({"--replaygate-approve-live", "--approve-live"})
"""The spellings of the approval."""


def check_approval_given(config: pytest.Config, mode: str) -> None:
    """Refuse an approval of live calls that approves none of this run's: one given to a
    run that replays (``mode`` ``replay``, the default), which records nothing; and a
    recording approved only by a default every run inherits, the approval flag in the ini
    file's ``addopts`` or in ``PYTEST_ADDOPTS``, not on the run's own command line (law 3:
    an approval is made for that run)."""
    where = _approval_default(config)
    if mode == "replay":
        remedy = f"remove it from {where}" if where else "leave it out to replay"
        raise pytest.UsageError(
            "--replaygate-approve-live approves the live calls of a recording mode, and this "
            "run replays (--replaygate-record-mode is replay, the default): it records "
            f"nothing. {remedy[0].upper()}{remedy[1:]}, or give the mode that records, on "
            "the command line of that run: pytest --replaygate-record-mode=record-missing "
            f"--replaygate-approve-live{_other_record_mode(config)}"
        )
    if where is None:
        return
    raise pytest.UsageError(
        f"--replaygate-record-mode={mode}: the approval of live calls comes from {where}, "
        "where every run inherits it: an approval is given on the command line of the run "
        "that records, never as a default. Remove it from there and give it to that run: "
        f"pytest --replaygate-record-mode={mode} --replaygate-approve-live"
    )


def _other_record_mode(config: pytest.Config) -> str:
    """A note for a run given ``--record-mode`` where another plugin owns that spelling
    (pytest-recording's mode of vcrpy cassettes), else nothing."""
    owner = _installed_owner()
    given = any(str(arg).startswith("--record-mode") for arg in config.invocation_params.args)
    if owner is None or not given:
        return ""
    return f" (the --record-mode given is {owner}'s, for its cassettes: not replaygate's)"


def _approval_default(config: pytest.Config) -> str | None:
    """Where a run's approval comes from when not from its own command line: the
    environment variable ``PYTEST_ADDOPTS`` or the ini file's ``addopts``."""
    if _APPROVALS.intersection(config.invocation_params.args):
        return None
    if _APPROVALS.intersection(shlex.split(os.environ.get("PYTEST_ADDOPTS", ""))):
        return "the environment variable PYTEST_ADDOPTS"
    if _APPROVALS.intersection(map(str, config.getini("addopts"))):
        return f"the addopts of {config.inipath or 'the ini file'}"
    return None


def _installed_owner() -> str | None:
    for name in SHORT_OWNERS:
        try:
            distribution(name)
        except PackageNotFoundError:
            continue
        return name
    return None


def _add_short_spellings(parser: pytest.Parser) -> str:
    """Add the short spellings no other plugin owns; say which are active and why."""
    owner = _installed_owner()
    if owner is not None:
        return f"only the --replaygate- spellings: {owner} is installed and owns --record-mode"
    group = parser.getgroup(
        "replaygate-short", "replaygate: short spellings (no other plugin owns them here)"
    )
    taken = []
    for short, (long, attrs) in SHORT.items():
        try:
            group.addoption(short, **{**attrs, "help": f"short for {long}"})
        except argparse.ArgumentError:
            taken.append(short)
    active = [short for short in SHORT if short not in taken]
    note = f"{' and '.join(active)} work{'s' if len(active) == 1 else ''} too" if active else ""
    if taken:
        note += "; " if note else ""
        owned = "is another plugin's" if len(taken) == 1 else "are another plugin's"
        note += f"{' and '.join(taken)} {owned}: use the --replaygate- spelling"
    return note


def add_options(parser: pytest.Parser) -> None:
    """Register the options, ini settings and, where free, the short spellings."""
    note = _add_short_spellings(parser)
    group = parser.getgroup("replaygate", f"replaygate: record and replay model calls ({note})")
    for long, attrs in SHORT.values():
        group.addoption(long, **attrs)
    group.addoption(
        "--replaygate-dir",
        dest="replaygate_dir",
        default=None,  # DEFAULT_DIR (stores_dir): None tells that the option was not given
        metavar="DIR",
        help=f"folder of the fixture stores, relative to the rootdir from whatever folder "
        f"pytest runs (default {DEFAULT_DIR})",
    )
    group.addoption(
        "--replaygate-strict",
        dest="replaygate_strict",
        action="store_true",
        default=False,
        help="fail a test that leaves recorded HTTP fixtures of its store unused, and a run "
        "that leaves fixtures of a shared store (fixtures=) unused by all its tests",
    )
    group.addoption(
        "--replaygate-simulator",
        dest=SIMULATOR,
        nargs="?",
        const="research-copilot",
        default=None,
        metavar="BEHAVIOR",
        help="record from the in-process simulator: research-copilot (the default BEHAVIOR), "
        "echo, or script:FILE (a JSONL file, one response a line); ignored in replay mode",
    )
    group.addoption(
        "--replaygate-sim-seed",
        dest=SIM_SEED,
        type=digits.integer,
        default=None,
        metavar="SEED",
        help=f"the simulator's seed (default {SIMULATOR_SEED})",
    )
    group.addoption(
        "--replaygate-sim-batch-polls",
        dest=SIM_BATCH_POLLS,
        type=digits.integer,
        default=None,
        metavar="N",
        help="polls of a batch the simulator answers still in progress before one finds it "
        "ended (default 0: the first)",
    )
    group.addoption(
        "--replaygate-max-cost",
        dest=MAX_COST,
        type=digits.number,
        default=None,
        metavar="AMOUNT",
        help="stop recording before a live call could take the session's spending past AMOUNT "
        "(default: max_cost in [tool.replaygate], else 5.00 without the simulator)",
    )
    parser.addini(
        SIMULATOR,
        f"record from the simulator: research-copilot, echo, script:FILE or {_NO_SIMULATOR}",
        default=_NO_SIMULATOR,
    )
    parser.addini(SIM_SEED, f"the simulator's seed (default {SIMULATOR_SEED})", default="")
    parser.addini(
        SIM_BATCH_POLLS, "polls of a batch the simulator answers still in progress", default=""
    )
    parser.addini(MAX_COST, "the session's spending cap when recording", default="")


def check_simulator_option(config: pytest.Config) -> None:
    """Refuse a test path read as the simulator's behaviour, in every mode.

    The option's value is optional, so ``--replaygate-simulator tests/test_x.py`` reads
    the path as the behaviour: recording then fails on an unknown behaviour, but a replay
    (which uses no simulator) would run the whole suite instead of that file.
    """
    given = config.getoption(SIMULATOR, None)
    if not given or given.startswith("script:"):
        return
    if "/" in given or "::" in given or given.endswith(".py") or Path(given).exists():
        raise pytest.UsageError(
            f"--replaygate-simulator read {given!r} as its behaviour, and it names a test path: "
            "write --replaygate-simulator=BEHAVIOR (research-copilot, echo, script:FILE), "
            "or the option alone, after the paths"
        )


def simulator_behavior(config: pytest.Config) -> str | None:
    """The simulator behaviour asked for (option, else ini), or None for the real API."""
    given = config.getoption(SIMULATOR, None)
    if given is None:
        given = str(config.getini(SIMULATOR)).strip()
    return None if given in ("", _NO_SIMULATOR) else str(given)


def number(config: pytest.Config, name: str, kind: type[int] | type[float]) -> float | None:
    """The option ``name``, else its ini setting, as ``kind``; an ini value that is no
    such number in the digits 0-9 (:mod:`replaygate.digits`) is a usage error naming the
    setting."""
    given = config.getoption(name, None)
    if given is not None:
        return kind(given)
    text = str(config.getini(name)).strip()
    if not text:
        return None
    try:
        return digits.integer(text) if kind is int else digits.number(text)
    except ValueError:
        where = config.inipath or "the ini file"
        raise pytest.UsageError(
            f"{where}: {name} = {text!r} is not a{'n integer' if kind is int else ' number'}"
        ) from None


def spending_cap_option(config: pytest.Config) -> float | None:
    """The run's spending cap (``--replaygate-max-cost``, else its ini setting), or None.

    A cap that is no amount (:func:`~replaygate.fixtures.spending.amount_problem`, the
    one test of the CLI, the config and the cap itself) is a usage error: NaN compares
    false with every amount, so it would cap nothing, and a negative one would stop the
    first call as if money had been spent.
    """
    given = number(config, MAX_COST, float)
    if given is None:
        return None
    from replaygate.fixtures.spending import amount_problem  # only a recording run asks

    problem = amount_problem(given)
    if problem is None:
        return given
    if config.getoption(MAX_COST, None) is not None:
        raise pytest.UsageError(f"--replaygate-max-cost: {problem}")
    where = config.inipath or "the ini file"
    text = str(config.getini(MAX_COST)).strip()
    raise pytest.UsageError(f"{where}: {MAX_COST} = {text!r}: {problem}")


def refuse_unexpanded_tilde(flag: str, given: str, base: Path) -> None:
    """A usage error for a path whose ``~`` no shell expanded (``--replaygate-dir=~/f``):
    it named a new folder called ``~`` under ``base`` (unless one is there)."""
    from replaygate.regular import unexpanded_tilde

    problem = unexpanded_tilde(given, base)
    if problem is not None:
        raise pytest.UsageError(f"{flag}: {problem}")


def _refuse_folder_meant_from_here(given: str, root: Path, here: Path) -> None:
    """A usage error for a relative ``--replaygate-dir`` that is nothing under the rootdir
    ``root`` but a folder under ``here``, the folder pytest runs from (``cd tests; pytest
    --replaygate-dir fixtures``): every test would miss, or record into a new folder
    beside the stores it meant."""
    meant = here / given
    if Path(given).is_absolute() or os.path.lexists(root / given) or not meant.is_dir():
        return
    try:
        spelled = os.fspath(meant.resolve().relative_to(root.resolve()))
    except ValueError:  # outside the rootdir: its whole path
        spelled = os.fspath(meant.resolve())
    raise pytest.UsageError(
        f"--replaygate-dir {given} is taken from the rootdir ({os.fspath(root)}), where there "
        f"is no {given}; the folder {given} where pytest runs is --replaygate-dir={spelled}"
    )


def stores_dir(config: pytest.Config) -> str:
    """``--replaygate-dir`` as given, else :data:`DEFAULT_DIR` (relative to the rootdir)."""
    given = config.getoption("replaygate_dir", None)
    return DEFAULT_DIR if given is None else str(given)


def record_options(config: pytest.Config, mode: str, nodeids: Iterable[str] = ()) -> str:
    """The options of a pytest command that records in ``mode`` with this run's
    ``--replaygate-dir`` and simulator (option, else ini), and its rootdir where the tests
    ``nodeids``, named alone, would take another (:func:`_rootdir_kept`)."""
    words = [f"--replaygate-record-mode={mode} --replaygate-approve-live"]
    if _rootdir_kept(config, nodeids):
        here = Path(config.invocation_params.dir)
        words.append(f"--rootdir={shell_quote(os.path.relpath(config.rootpath, here))}")
    folder = stores_dir(config)
    if folder != DEFAULT_DIR:
        words.append(f"--replaygate-dir={shell_quote(str(folder))}")
    behavior = simulator_behavior(config)
    if behavior:
        words.append(f"--replaygate-simulator={shell_quote(behavior)}")
    return " ".join(words)


def _rootdir_kept(config: pytest.Config, nodeids: Iterable[str]) -> bool:
    """Whether a command naming the tests ``nodeids`` needs ``--rootdir`` to record under
    this run's rootdir: this run was given one, or a folder of a test's file below the
    rootdir holds a pytest config file (a monorepo's package run from its top:
    :func:`~replaygate.pytest_plugin.rootdirs.config_below`)."""
    from replaygate.pytest_plugin.rootdirs import config_below

    if config.getoption("rootdir", None):
        return True
    root = Path(config.rootpath)
    return config_below(root, (root / nodeid.partition("::")[0] for nodeid in nodeids))


def quoted_nodeid(nodeid: str) -> str:
    """``nodeid`` quoted for a shell, always (a node id holds ``::``, ``[``); a
    character the output cannot show is escaped in ``$'...'``
    (:func:`~replaygate.shell_words.shell_quote`)."""
    return shell_quote(nodeid, always=True)


def nodeid_here(config: pytest.Config, nodeid: str) -> str:
    """Test ``nodeid`` (its file relative to the rootdir) as a command run from the folder
    this run was takes it (``cd tests; pytest test_x.py::test_y``), quoted for a shell."""
    path, sep, rest = nodeid.partition("::")
    root, here = Path(config.rootpath), Path(config.invocation_params.dir)
    named = nodeid if here == root else os.path.relpath(root / path, here) + sep + rest
    return quoted_nodeid(named)


def check_fixtures_dir(config: pytest.Config) -> None:
    """Refuse a ``--replaygate-dir`` that names no folder: an empty one (which would be
    the rootdir itself), a relative one found only under the folder pytest runs from
    (it is taken from the rootdir; the default is not refused so: a folder of that name
    where pytest runs may hold anything, and the run may use no store), one whose folders
    a backslash separates where only Windows reads it so, one not there whose name differs
    in case only from one there (:func:`~replaygate.regular.spelled_otherwise`), or,
    replaying, one not there that misspells a folder there (:func:`~replaygate.missing.typo_of`),
    one naming a file, a FIFO, a device, a symlink loop or a symlink to nothing, or a
    path under one (each test would fail saying its store is missing and should be
    recorded; a recording test refuses it itself, naming its store, before anything is
    sent)."""
    given = stores_dir(config)
    if not given.strip():
        raise pytest.UsageError(
            "--replaygate-dir is empty: name the folder of the fixture stores "
            f"(default {DEFAULT_DIR}, under the rootdir)"
        )
    root = Path(config.rootpath)
    refuse_unexpanded_tilde("--replaygate-dir", given, root)
    slashed = backslashed_here(given, root)
    if slashed is not None:  # addopts a Windows checkout wrote: a new folder named so here
        raise pytest.UsageError(f"--replaygate-dir: {slashed}")
    given_here = config.getoption("replaygate_dir", None) is not None  # not the default
    meant = spelled_otherwise(root / given) if given_here else None
    if meant is not None:  # addopts a macOS checkout wrote: found there, not on Linux
        spelled = os.path.relpath(meant, root) if not Path(given).is_absolute() else meant
        raise pytest.UsageError(
            f"--replaygate-dir {given}: {root / given} is not there, but {meant} is: their "
            "names differ in case only, one folder on macOS and Windows, which do not tell "
            f"case apart, and two on Linux: write --replaygate-dir={spelled}"
        )
    if given_here:
        _refuse_folder_meant_from_here(given, root, Path(config.invocation_params.dir))
    if config.getoption(MODE, "replay") != "replay":
        return
    folder = root / given
    typo = typo_of(folder) if given_here else None
    if typo is not None:  # every test would miss, and a recording make a second folder
        spelled = os.path.relpath(typo, root) if not Path(given).is_absolute() else typo
        raise pytest.UsageError(
            f"--replaygate-dir {given}: {folder} is not there, but {typo} is: did you mean "
            f"--replaygate-dir={spelled}?"
        )
    there = next(path for path in (folder, *folder.parents) if os.path.lexists(path))
    if there.is_dir():  # the folder, or the one a recording would make it in
        return
    what = "" if there == folder else f" is under {os.fspath(there)}, which"
    raise pytest.UsageError(f"--replaygate-dir: {os.fspath(folder)}{what} {not_a_folder(there)}")
