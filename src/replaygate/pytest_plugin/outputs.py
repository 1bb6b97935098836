"""The files the sampling options write, checked when the session starts.

``--sampling-results``, ``--flaky-report`` and ``--observe-queue`` are written (or
appended to) after the tests ran. A path that names one of the session's inputs (a
Python module such as a test module or a conftest, the ini file, the fixture store,
the simulator's script, another output) is refused, and so is a path that could not be
written: before any test runs, as a usage error naming the option and the path, with
nothing created.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from replaygate.errors import ReplaygateError
from replaygate.evals.preflight import check_not_an_input, check_writable
from replaygate.pytest_plugin.options import simulator_behavior
from replaygate.pytest_plugin.recording import fixtures_dir
from replaygate.sampling.queue import DEFAULT_QUEUE

OUTPUTS = {
    "--sampling-results": "replaygate_sampling_results",
    "--flaky-report": "replaygate_flaky_report",
    "--observe-queue": "replaygate_observe_queue",
}
"""Each option that names a file the session writes, and its ``dest``."""
QUEUE = "--observe-queue"
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
    if out.resolve().is_relative_to(store.resolve()):
        raise ReplaygateError(f"{out}: is a file of the fixture store {store}: {_REFUSED}")


def given_outputs(config: pytest.Config) -> dict[str, Path]:
    """The output options given, by their flag, and their paths."""
    given = {flag: option_path(config, dest) for flag, dest in OUTPUTS.items()}
    return {flag: path for flag, path in given.items() if path is not None}


def check_outputs(config: pytest.Config) -> None:
    """Refuse an output option naming an input, another output or a path that could not be
    written (:exc:`pytest.UsageError` naming the option and the path)."""
    given = given_outputs(config)
    written = {**given, QUEUE: given.get(QUEUE, config.rootpath / DEFAULT_QUEUE)}
    for flag, out in given.items():
        others = {f"the {other} file": path for other, path in written.items() if other != flag}
        try:
            check_not_an_input(out, {**_inputs(config), **others})
            _check_not_read(out, fixtures_dir(config))
            check_writable(out)
        except (ReplaygateError, OSError) as err:
            raise pytest.UsageError(f"{flag}: {err}") from None


def check_not_collected(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Refuse an output option naming a collected test file that is no Python module (a
    doctest text file, another plugin's test file)."""
    collected = {item.path for item in items}
    for flag, out in given_outputs(config).items():
        try:
            for path in collected:
                check_not_an_input(out, {"a collected test file": path})
        except ReplaygateError as err:
            raise pytest.UsageError(f"{flag}: {err}") from None
