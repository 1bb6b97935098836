"""Optional dependencies, imported where they are used, with the install line when missing.

A plain ``pip install replaygate`` holds the fixture core, the CLI and the simulator;
the official SDKs and matplotlib come with extras (``replaygate[anthropic]``,
``[openai]``, ``[report]``). :func:`require` imports one, or raises
:class:`~replaygate.errors.MissingExtraError` saying what needs it and what to install.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from replaygate.errors import MissingExtraError


def require(module: str, extra: str, purpose: str) -> ModuleType:
    """``module`` imported; ``purpose`` names what needs it (``"replaygate demo"``)."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as err:
        if err.name != module.partition(".")[0]:
            raise
        raise MissingExtraError(
            f"{purpose} needs the {module!r} package, which is not installed: "
            f"pip install 'replaygate[{extra}]'"
        ) from None
