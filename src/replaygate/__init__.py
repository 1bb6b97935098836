"""replaygate: deterministic, offline, trustworthy tests for LLM agents.

Record real model interactions once, on explicit approval, as fixtures; replay them
offline, matched by the fingerprint of the canonical request; fail loudly, with a
field diff, on any request that was not recorded.
"""

from replaygate._version import __version__
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
from replaygate.fixtures.fingerprint import canonical_json, fixture_key
from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.store import FixtureStore
from replaygate.models.providers import (
    from_anthropic_request,
    from_anthropic_response,
    from_openai_request,
    from_openai_response,
    to_anthropic_request,
    to_anthropic_response,
    to_openai_request,
    to_openai_response,
)
from replaygate.models.replay import RecordingModel, ReplayModel, RequestSettings
from replaygate.models.types import (
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
