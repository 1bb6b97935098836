"""replaygate: deterministic, offline, trustworthy tests for LLM agents.

Record real model interactions once, on explicit approval, as fixtures; replay them
offline, matched by the fingerprint of the canonical request; fail loudly, with a
field diff, on any request that was not recorded.

The names below are imported on first use, so that importing a submodule (the pytest
plugin, a command) does not load the stores, the converters and the models with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from replaygate._lazy import lazy_names
from replaygate._version import __version__

if TYPE_CHECKING:
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

_EXPORTS = {
    "canonical_json": "replaygate.fixtures.fingerprint",
    "CanonicalFormError": "replaygate.errors",
    "Fixture": "replaygate.fixtures.fixture",
    "fixture_key": "replaygate.fixtures.fingerprint",
    "FixtureFormatError": "replaygate.errors",
    "FixtureMismatchError": "replaygate.errors",
    "FixtureStore": "replaygate.fixtures.store",
    "from_anthropic_request": "replaygate.models.providers",
    "from_anthropic_response": "replaygate.models.providers",
    "from_openai_request": "replaygate.models.providers",
    "from_openai_response": "replaygate.models.providers",
    "LiveCallNotApproved": "replaygate.errors",
    "Message": "replaygate.models.types",
    "Model": "replaygate.models.types",
    "ModelResponse": "replaygate.models.types",
    "NetworkBlockedError": "replaygate.errors",
    "NoRuleMatchedError": "replaygate.errors",
    "RecordingModel": "replaygate.models.replay",
    "ReplaygateError": "replaygate.errors",
    "ReplayModel": "replaygate.models.replay",
    "RequestSettings": "replaygate.models.replay",
    "ScriptExhaustedError": "replaygate.errors",
    "SecretInFixtureError": "replaygate.errors",
    "to_anthropic_request": "replaygate.models.providers",
    "to_anthropic_response": "replaygate.models.providers",
    "to_openai_request": "replaygate.models.providers",
    "to_openai_response": "replaygate.models.providers",
    "ToolCall": "replaygate.models.types",
    "ToolSpec": "replaygate.models.types",
    "Usage": "replaygate.models.types",
    "WireFormatError": "replaygate.errors",
}
"""Each public name and the module it is imported from on first use."""


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

if not TYPE_CHECKING:  # to a type checker, a name not declared above is an error
    __getattr__, __dir__ = lazy_names(__name__, _EXPORTS, subpackages=True)
