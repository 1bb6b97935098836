"""The files the sampling options write, checked when the session starts.

``--sampling-results``, ``--flaky-report`` and ``--observe-queue`` are written (or
appended to) after the tests ran. A path that names one of the session's inputs (a
Python module such as a test module or a conftest, the ini file, the fixture store,
the simulator's script, another output) is refused, and so are an existing file that
is not what the option writes (a README given as the results file, an eval run's
results, which ``gate`` and ``report`` read, given as the sampling results), a path that
could not be written and a FIFO that no process reads: before any test runs, as a usage
error naming the option and the path, with nothing created. A FIFO a process reads is
opened then, and gets the output as a stream when the tests have run.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from replaygate.described import describe
from replaygate.errors import ReplaygateError
from replaygate.outputs import close_fifos, open_fifo
from replaygate.pytest_plugin.options import refuse_unexpanded_tilde, simulator_behavior
from replaygate.pytest_plugin.store_paths import fixtures_dir
from replaygate.regular import backslashed_here
from replaygate.sampling.queue import DEFAULT_QUEUE, read_queue
from replaygate.strict_json import plain_loads

QUEUE = "--observe-queue"
OUTPUTS = {
    "--sampling-results": "replaygate_sampling_results",
    "--flaky-report": "replaygate_flaky_report",
    QUEUE: "replaygate_observe_queue",
}
"""Each option that names a file the session writes, and its ``dest``."""
_SCRIPT = "script:"
_REFUSED = "writing the output there would replace it; choose another file (nothing was written)"


def option_path(config: pytest.Config, dest: str) -> Path | None:
    """A path option, relative to the directory pytest was invoked from."""
    value = config.getoption(dest, None)
    return None if value is None else config.invocation_params.dir / str(value)


def _inputs(config: pytest.Config) -> dict[str, Path | None]:
    """What the session reads, by what each is."""
    try:
        behavior = simulator_behavior(config) or ""
    except ValueError:  # the recording plugin is not loaded (-p no:replaygate)
        behavior = ""
    script = behavior[len(_SCRIPT) :] if behavior.startswith(_SCRIPT) else ""
    return {
        "the ini file": config.inipath,
        "the fixture store": fixtures_dir(config),
        "the simulator's script": config.rootpath / script if script else None,
    }


def _check_not_read(out: Path, store: Path) -> None:
    """Refuse an existing Python module and an existing file of the fixture store."""
    if not out.exists():
        return
    if ".py" in (out.suffix, out.resolve().suffix):
        raise ReplaygateError(f"{out}: is a Python module (a test module, a conftest): {_REFUSED}")
    if out.resolve() != store.resolve() and out.resolve().is_relative_to(store.resolve()):
        raise ReplaygateError(f"{out}: is a file of the fixture store {store}: {_REFUSED}")


def _json_object(path: Path) -> dict[str, Any] | None:
    """The JSON object the file at ``path`` holds, else ``None``."""
    try:
        document = plain_loads(path.read_text(encoding="utf-8"))
    except (ValueError, RecursionError):
        return None
    return document if isinstance(document, dict) else None


def _is_results(path: Path) -> bool:
    """Whether ``path`` holds a sampling results file; one of an eval run (the same
    format, with the run's ``eval`` and ``metrics``) is refused, saying so."""
    from replaygate.sampling.results import FORMAT

    document = _json_object(path) or {}
    if document.get("format") == FORMAT and _EVAL_BLOCKS & document.keys():
        raise ReplaygateError(
            f"{path}: holds eval results (its `eval` and `metrics` are what `replaygate "
            f"gate`, `report`, `upgrade` and `eval merge` read), not a sampling results "
            f"file of a pytest session: {_REFUSED}"
        )
    return document.get("format") == FORMAT


_EVAL_BLOCKS = frozenset({"eval", "metrics"})
"""What an eval run's results add to a sampling results document."""


def _is_flaky_report(path: Path) -> bool:
    return {"runs", "flaky"} <= (_json_object(path) or {}).keys()


def _is_queue(path: Path) -> bool:
    try:
        read_queue(path)
    except ValueError:
        return False
    return True


_KINDS: dict[str, tuple[str, Callable[[Path], bool]]] = {
    "--sampling-results": ("a sampling results file", _is_results),
    "--flaky-report": ("a flaky report", _is_flaky_report),
    QUEUE: ("an observation queue", _is_queue),
}
"""What an existing file an option names must be, to be replaced (or appended to)."""


def _check_same_kind(flag: str, out: Path) -> None:
    """Refuse an existing, non-empty file that is not what ``flag`` writes (a README, a
    data file): only a document of the option's own kind is replaced."""
    try:
        if not out.is_file() or out.stat().st_size == 0:
            return
        what, holds = _KINDS[flag]
        kept = holds(out)
    except OSError:  # unreadable: the write names it
        return
    if not kept:
        raise ReplaygateError(f"{out}: is not {what}: {_REFUSED}")


def given_outputs(config: pytest.Config) -> dict[str, Path]:
    """The output options given, by their flag, and their paths."""
    given = {flag: option_path(config, dest) for flag, dest in OUTPUTS.items()}
    return {flag: path for flag, path in given.items() if path is not None}


def check_outputs(config: pytest.Config) -> None:
    """Refuse an output option naming an input, another output or a path that could not be
    written (:exc:`pytest.UsageError` naming the option and the path)."""
    given = given_outputs(config)
    if not given:
        return
    # the eval commands' checks, loaded only when an output is named: a session without
    # these options loads nothing of the eval package (its history, schemas, stores)
    from replaygate.evals.preflight import check_not_an_input, check_writable

    written = {**given, QUEUE: given.get(QUEUE, config.rootpath / DEFAULT_QUEUE)}
    config.add_cleanup(close_fifos)  # a FIFO's reader sees its end when the session ends
    for flag, out in given.items():
        raw = str(config.getoption(OUTPUTS[flag]))
        if not raw.strip():  # read as the directory pytest runs from: "Is a directory"
            raise pytest.UsageError(
                f"{flag}: no path given ({flag}={raw!r}); name the file to write, as in "
                f"{flag}=out.json"
            )
        refuse_unexpanded_tilde(flag, raw, config.invocation_params.dir)
        slashed = backslashed_here(raw, config.invocation_params.dir)
        if slashed is not None:  # an addopts written on Windows: a file so named here
            raise pytest.UsageError(f"{flag}: {slashed}")
        others = {f"the {other} file": path for other, path in written.items() if other != flag}
        try:
            _check_not_read(out, fixtures_dir(config))  # named as what it is, if it is
            check_not_an_input(out, {**_inputs(config), **others}, queue=flag == QUEUE)
            _check_same_kind(flag, out)
            check_writable(out)
            open_fifo(out)
        except (ReplaygateError, OSError) as err:
            raise pytest.UsageError(f"{flag}: {describe(err)}") from None
