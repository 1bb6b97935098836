"""``python -m replaygate``: the one program the console script ``replaygate`` runs too
(:func:`replaygate.cli.run`).

``python -m`` puts the working folder first on the import path, where the console script
puts its own folder: it is taken off (unless replaygate itself was found there), so that
a module of the folder a command runs from is found as the console script finds it (an
agent's module: in the folder looked in first, :func:`replaygate.evals.agents.load_agent`),
not ahead of every other.
"""

import os
import sys

import replaygate

if (
    not sys.flags.safe_path
    and sys.path
    and sys.path[0] == os.getcwd()
    and os.path.dirname(os.path.dirname(os.path.abspath(replaygate.__file__))) != sys.path[0]
):
    del sys.path[0]

from replaygate.cli import run

run()
