"""Errors of eval suites, gates, baselines, history and CI planning.

Each names the file (and line or key, when there is one), what is wrong, and what
to do next.
"""

from __future__ import annotations

from replaygate.errors import LocatedError, ReplaygateError


class EvalError(ReplaygateError):
    """Base class of the errors raised by :mod:`replaygate.evals`."""


class CaseFormatError(EvalError, LocatedError, ValueError):
    """An eval case file holds a line that is not a valid case (names file and line)."""


class ConfigError(EvalError, LocatedError, ValueError):
    """A ``[tool.replaygate...]`` value is missing, of the wrong type or out of range.

    Names the file, the line when it can be found, and the dotted key.
    """

    def __init__(self, file: str, line: int, key: str, reason: str) -> None:
        super().__init__(file, line, f"{key}: {reason}" if key else reason)
        self.key = key
        self.reason = reason


class ResultsError(EvalError, ValueError):
    """A results or baseline file is not in the documented format."""


class BaselineError(EvalError):
    """A baseline cannot be written: no reason given, or the results are unusable."""


class HistoryError(EvalError):
    """The history database or an exported history file is unusable."""


class LimitError(EvalError, ValueError):
    """A gate limit such as ``success=0.02`` cannot be parsed or names no known metric."""


class RateLimitError(EvalError, ValueError):
    """A rate limit that is no rate: NaN, zero or below, or too small to wait for."""


class PriceError(EvalError):
    """The price table has no price for the model a run is scored on (``no price for model X``)."""


class AgentLoadError(EvalError):
    """``--agent module:function`` does not name an importable callable."""


class AgentRunError(EvalError, TypeError):
    """The agent returned something that is not a run result, or ended the process."""
