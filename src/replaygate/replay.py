"""The 0.1 import path of :mod:`replaygate.models.replay`, kept so existing imports work."""

from replaygate.models.replay import *  # noqa: F403
from replaygate.models.replay import __all__ as __all__
