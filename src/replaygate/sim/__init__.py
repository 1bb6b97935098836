"""A loopback simulator of the Anthropic Messages, OpenAI Chat Completions and Responses,
and Google Gemini ``generateContent`` APIs, and of the cloud platforms' routes to them
(Azure OpenAI, Anthropic on Vertex AI and on Amazon Bedrock: :mod:`.platforms`).

The official SDKs pointed at :attr:`Simulator.url` work unchanged: plain JSON and
streaming, validation and error bodies like the real APIs, seeded behaviours, and
injected faults and drift::

    with Simulator(behavior="echo", faults=FaultPlan.sequence(["429", None])) as sim:
        client = anthropic.Anthropic(api_key="test", base_url=sim.url)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from replaygate._lazy import lazy_names

if TYPE_CHECKING:
    from replaygate.sim.app import SimApp
    from replaygate.sim.behaviors import (
        Behavior,
        EchoBehavior,
        ScriptBehavior,
        ScriptFormatError,
        make_behavior,
    )
    from replaygate.sim.drift import DriftPlan, DriftRule, DriftSpecError
    from replaygate.sim.faults import FAULT_KINDS, FaultDrawer, FaultKind, FaultPlan, FaultSpecError
    from replaygate.sim.server import ReceivedRequest, Simulator
    from replaygate.sim.streaming import anthropic_events, openai_chunks

_EXPORTS = {
    "anthropic_events": "replaygate.sim.streaming",
    "Behavior": "replaygate.sim.behaviors",
    "DriftPlan": "replaygate.sim.drift",
    "DriftRule": "replaygate.sim.drift",
    "DriftSpecError": "replaygate.sim.drift",
    "EchoBehavior": "replaygate.sim.behaviors",
    "FAULT_KINDS": "replaygate.sim.faults",
    "FaultDrawer": "replaygate.sim.faults",
    "FaultKind": "replaygate.sim.faults",
    "FaultPlan": "replaygate.sim.faults",
    "FaultSpecError": "replaygate.sim.faults",
    "make_behavior": "replaygate.sim.behaviors",
    "openai_chunks": "replaygate.sim.streaming",
    "ReceivedRequest": "replaygate.sim.server",
    "ScriptBehavior": "replaygate.sim.behaviors",
    "ScriptFormatError": "replaygate.sim.behaviors",
    "SimApp": "replaygate.sim.app",
    "Simulator": "replaygate.sim.server",
}
"""Each public name and the module it is imported from on first use: a command that
only names a behaviour (``--behavior``) does not load the server."""

__all__ = [
    "FAULT_KINDS",
    "Behavior",
    "DriftPlan",
    "DriftRule",
    "DriftSpecError",
    "EchoBehavior",
    "FaultDrawer",
    "FaultKind",
    "FaultPlan",
    "FaultSpecError",
    "ReceivedRequest",
    "ScriptBehavior",
    "ScriptFormatError",
    "SimApp",
    "Simulator",
    "anthropic_events",
    "make_behavior",
    "openai_chunks",
]

if not TYPE_CHECKING:  # to a type checker, a name not declared above is an error
    __getattr__, __dir__ = lazy_names(__name__, _EXPORTS)
