"""The 0.1 import path of :mod:`replaygate.models.types`, kept so existing imports work."""

from replaygate.models.types import *  # noqa: F403
from replaygate.models.types import __all__ as __all__
