"""replaygate: deterministic, offline, trustworthy tests for LLM agents.

Record real model interactions once, on explicit approval, as fixtures; replay them
offline, matched by the fingerprint of the canonical request; fail loudly, with a
field diff, on any request that was not recorded.
"""

__version__ = "0.1.0"

from replaygate.errors import (  # noqa: E402
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
from replaygate.fingerprint import canonical_json, fixture_key  # noqa: E402
from replaygate.fixture import Fixture  # noqa: E402
from replaygate.providers import (  # noqa: E402
    from_anthropic_request,
    from_anthropic_response,
    from_openai_request,
    from_openai_response,
    to_anthropic_request,
    to_anthropic_response,
    to_openai_request,
    to_openai_response,
)
from replaygate.replay import RecordingModel, ReplayModel, RequestSettings  # noqa: E402
from replaygate.store import FixtureStore  # noqa: E402
from replaygate.types import (  # noqa: E402
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
