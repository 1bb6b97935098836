"""The 0.1 import path of :mod:`replaygate.models.types`, kept so existing imports work."""

from replaygate.models.types import (
    STOP_REASONS,
    Message,
    Model,
    ModelResponse,
    Role,
    StopReason,
    ToolCall,
    ToolSpec,
    Usage,
)

__all__ = [
    "STOP_REASONS",
    "Message",
    "Model",
    "ModelResponse",
    "Role",
    "StopReason",
    "ToolCall",
    "ToolSpec",
    "Usage",
]
