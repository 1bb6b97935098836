"""``python -m replaygate``: the one program the console script ``replaygate`` runs too
(:func:`replaygate.cli.run`).

``python -m`` puts the working folder first on the import path, where the console script
puts its own folder: it is taken off (unless replaygate itself was found there), so that
a module of the folder a command runs from is found as the console script finds it (an
agent's module: in the folder looked in first, :func:`replaygate.evals.agents.load_agent`),
not ahead of every other. A working folder removed under the shell is no folder to take
off: the command runs, and says so if it needs the folder.
"""

import os
import sys

import replaygate


def _working_folder() -> str | None:
    """The working folder, or None when it was removed (``os.getcwd()`` fails)."""
    try:
        return os.getcwd()
    except OSError:
        return None


if (
    not sys.flags.safe_path
    and sys.path
    and sys.path[0] == _working_folder()
    and os.path.dirname(os.path.dirname(os.path.abspath(replaygate.__file__))) != sys.path[0]
):
    del sys.path[0]

from replaygate.cli import run  # noqa: E402 (after the import path is set)

run()
