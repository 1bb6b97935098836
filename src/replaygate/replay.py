"""The 0.1 import path of :mod:`replaygate.models.replay`, kept so existing imports work."""

from replaygate.models.replay import (
    MODES,
    RECORDING_MODES,
    Call,
    Mode,
    RecordingModel,
    ReplayModel,
    RequestSettings,
    WireModel,
    check_version,
)

__all__ = [
    "MODES",
    "RECORDING_MODES",
    "Call",
    "Mode",
    "RecordingModel",
    "ReplayModel",
    "RequestSettings",
    "WireModel",
    "check_version",
]
