"""The shipped example is a user of the library: no library module imports it.

Only the demo (``replaygate.cli.demo`` and ``replaygate.demo``), which exists to
run the example, may. Checked by importing every other module in a process forked from
the test's, every replaygate module forgotten there first: each is imported again as in a
fresh interpreter, and the libraries they use, which never import the example, stay
imported (a fresh interpreter spent more than half of its CPU importing those again).
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
import traceback
from pathlib import Path

import pytest

import replaygate

PACKAGE = Path(replaygate.__file__).parent
ALLOWED = ("replaygate.examples", "replaygate.cli.demo", "replaygate.demo")
"""Modules that may import the example (and the example itself)."""


def library_modules() -> list[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = ("replaygate", *path.relative_to(PACKAGE).with_suffix("").parts)
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        if name != "replaygate.__main__" and not name.startswith(ALLOWED):
            names.append(name)
    return names


def import_each(modules: list[str], report: int) -> int:
    """In a forked process: forget every replaygate module, then import ``modules`` in
    turn, each checked not to have loaded the example; the exit status (0: none did), any
    failure's traceback written to the file descriptor ``report``."""
    for name in [name for name in sys.modules if name.partition(".")[0] == "replaygate"]:
        del sys.modules[name]
    known = set(sys.modules)
    try:
        for name in modules:
            importlib.import_module(name)
            # the modules it loaded: the test's process holds thousands (the SDKs), whose
            # names each import walked again (about 0.3 s of CPU in all, in the suite)
            new = sys.modules.keys() - known
            known |= new
            loaded = sorted(m for m in new if m.startswith("replaygate.examples"))
            assert not loaded, f"importing {name} loads {loaded}"
    except BaseException:
        os.write(report, traceback.format_exc().encode())
        return 1
    return 0


@pytest.mark.slow  # a process of its own imports every library module
def test_no_library_module_imports_the_example() -> None:
    modules = library_modules()
    assert "replaygate.evals.runner" in modules and "replaygate.sim.behaviors" in modules
    read, write = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(read)
        signal.alarm(120)  # an import that hangs ends the process, not the run
        os._exit(import_each(modules, write))  # not pytest's exit: the process ends here
    os.close(write)
    with os.fdopen(read, "rb") as said:
        failure = said.read().decode()
    _, status = os.waitpid(child, 0)
    assert (os.waitstatus_to_exitcode(status), failure) == (0, "")
