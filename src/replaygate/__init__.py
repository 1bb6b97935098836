"""replaygate: deterministic, offline, trustworthy tests for LLM agents.

Record real model interactions once, on explicit approval, as fixtures; replay them
offline, matched by the fingerprint of the canonical request; fail loudly, with a
field diff, on any request that was not recorded.
"""

__version__ = "0.1.0"

from replaygate.errors import (
    CanonicalFormError,
    FixtureFormatError,
    FixtureMismatchError,
    LiveCallNotApproved,
    NetworkBlockedError,
    NoRuleMatchedError,
    ReplaygateError,
    ScriptExhaustedError,
    SecretInFixtureError,
    WireFormatError,
)
from replaygate.fingerprint import canonical_json, fixture_key
from replaygate.fixture import Fixture
from replaygate.providers import (
    from_anthropic_request,
    from_anthropic_response,
    from_openai_request,
    from_openai_response,
    to_anthropic_request,
    to_anthropic_response,
    to_openai_request,
    to_openai_response,
)
from replaygate.replay import RecordingModel, ReplayModel, RequestSettings
from replaygate.store import FixtureStore
from replaygate.types import (
    Message,
    Model,
    ModelResponse,
    ToolCall,
    ToolSpec,
    Usage,
)

__all__ = [
    "CanonicalFormError",
    "Fixture",
    "FixtureFormatError",
    "FixtureMismatchError",
    "FixtureStore",
    "LiveCallNotApproved",
    "Message",
    "Model",
    "ModelResponse",
    "NetworkBlockedError",
    "NoRuleMatchedError",
    "RecordingModel",
    "ReplayModel",
    "ReplaygateError",
    "RequestSettings",
    "ScriptExhaustedError",
    "SecretInFixtureError",
    "ToolCall",
    "ToolSpec",
    "Usage",
    "WireFormatError",
    "__version__",
    "canonical_json",
    "fixture_key",
    "from_anthropic_request",
    "from_anthropic_response",
    "from_openai_request",
    "from_openai_response",
    "to_anthropic_request",
    "to_anthropic_response",
    "to_openai_request",
    "to_openai_response",
]
