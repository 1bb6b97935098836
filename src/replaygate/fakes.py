"""The 0.1 import path of :mod:`replaygate.models.fakes`, kept so existing imports work."""

from replaygate.models.fakes import *  # noqa: F403
from replaygate.models.fakes import __all__ as __all__
