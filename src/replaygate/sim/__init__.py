"""A loopback simulator of the Anthropic Messages, OpenAI Chat Completions and Responses,
and Google Gemini ``generateContent`` APIs.

The official SDKs pointed at :attr:`Simulator.url` work unchanged: plain JSON and
streaming, validation and error bodies like the real APIs, seeded behaviours, and
injected faults and drift::

    with Simulator(behavior="echo", faults=FaultPlan.sequence(["429", None])) as sim:
        client = anthropic.Anthropic(api_key="test", base_url=sim.url)
"""

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
