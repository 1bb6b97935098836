"""``python -m replaygate``: the one program the console script ``replaygate`` runs too
(:func:`replaygate.cli.run`)."""

from replaygate.cli import run

run()
