"""``python -m replaygate``."""

from replaygate.cli import run

run()
