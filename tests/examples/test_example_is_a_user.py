"""The shipped example is a user of the library: no library module imports it.

Only the demo (``replaygate.cli.demo`` and ``replaygate.demo``), which exists to
run the example, may. Checked by importing every other module in a fresh process.
"""

from __future__ import annotations

import subprocess
import sys
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


@pytest.mark.slow  # a fresh interpreter imports every library module
def test_no_library_module_imports_the_example() -> None:
    probe = (
        "import importlib, sys\n"
        "for name in sys.argv[1:]:\n"
        "    importlib.import_module(name)\n"
        "    loaded = [m for m in sys.modules if m.startswith('replaygate.examples')]\n"
        "    assert not loaded, f'importing {name} loads {loaded}'\n"
    )
    modules = library_modules()
    assert "replaygate.evals.runner" in modules and "replaygate.sim.behaviors" in modules
    done = subprocess.run(
        [sys.executable, "-c", probe, *modules],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
