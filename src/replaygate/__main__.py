"""``python -m replaygate``."""

from replaygate.cli import main

main()
