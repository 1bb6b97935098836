"""The simulator's default seed, shared by the command line and the pytest plugin."""

SIMULATOR_SEED = 7
"""The seed of the simulator every command starts; the shipped fixtures were recorded with it."""
