"""The 0.1 import path of :mod:`replaygate.models.fakes`, kept so existing imports work."""

from replaygate.models.fakes import (
    Call,
    FunctionModel,
    Rule,
    RuleStub,
    ScriptedModel,
)

__all__ = [
    "Call",
    "FunctionModel",
    "Rule",
    "RuleStub",
    "ScriptedModel",
]
