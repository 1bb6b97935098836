"""The 0.1 import path of :mod:`replaygate.models.live`, kept so existing imports work."""

from replaygate.models.live import *  # noqa: F403
from replaygate.models.live import __all__ as __all__
