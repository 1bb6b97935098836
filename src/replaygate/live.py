"""The 0.1 import path of :mod:`replaygate.models.live`, kept so existing imports work."""

from replaygate.models.live import (
    AnthropicModel,
    OpenAIModel,
)

__all__ = [
    "AnthropicModel",
    "OpenAIModel",
]
