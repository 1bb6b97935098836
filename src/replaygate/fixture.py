"""The 0.1 import path of :mod:`replaygate.fixtures.fixture`, kept so existing imports work."""

from replaygate.fixtures.fixture import *  # noqa: F403
from replaygate.fixtures.fixture import __all__ as __all__
