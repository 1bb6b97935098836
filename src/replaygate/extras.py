"""Optional dependencies, imported where they are used, with the install line when missing.

A plain ``pip install replaygate`` holds the fixture core, the CLI and the simulator;
the official SDKs and matplotlib come with extras (``replaygate[anthropic]``,
``[openai]``, ``[report]``). :func:`require` imports one, or raises
:class:`~replaygate.errors.MissingExtraError` saying what needs it and what to install.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Mapping
from types import ModuleType

from replaygate.errors import MissingExtraError

EXTRA_OF: dict[str, str] = {
    "anthropic": "anthropic",
    "openai": "openai",
    "google": "gemini",
    "google.genai": "gemini",
    "httpx": "httpx",
    "httpx2": "httpx2",
    "aiohttp": "aiohttp",
    "requests": "requests",
    "boto3": "bedrock",
    "botocore": "bedrock",
    "matplotlib": "report",
    "yaml": "cassettes",
}
"""A module not found (``ModuleNotFoundError.name``) -> the extra of replaygate that
installs it."""


def install_hint(missing: str | None) -> str:
    """``" (pip install 'replaygate[EXTRA]' installs it)"`` for a module an extra installs
    (a user's agent that imports the SDK it calls), else ``""``."""
    extra = EXTRA_OF.get(missing or "")
    return f" (pip install 'replaygate[{extra}]' installs it)" if extra else ""


def require(module: str, extra: str, purpose: str) -> ModuleType:
    """``module`` imported; ``purpose`` names what needs it (``"replaygate demo"``)."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as err:
        if not err.name or not f"{module}.".startswith(f"{err.name}."):  # of another module
            raise
        raise MissingExtraError(
            f"{purpose} needs the {module!r} package, which is not installed: "
            f"pip install 'replaygate[{extra}]'"
        ) from None


def require_all(needs: Mapping[str, str], purpose: str) -> None:
    """Each module of ``needs`` (module -> its extra) installed, found without importing it
    (matplotlib's import writes to stderr where the home folder cannot be written; a
    report's drawing imports it quietly), or one
    :class:`~replaygate.errors.MissingExtraError` naming every one missing and one install
    line for all their extras, never one extra after the other."""
    missing = {module: extra for module, extra in needs.items() if not installed(module)}
    if missing:
        names = " and ".join(repr(module) for module in missing)
        packages = "package, which is" if len(missing) == 1 else "packages, which are"
        extras = ",".join(dict.fromkeys(missing.values()))
        raise MissingExtraError(
            f"{purpose} needs the {names} {packages} not installed: "
            f"pip install 'replaygate[{extras}]'"
        )


def installed(module: str) -> bool:
    """Whether ``module`` can be imported, found without importing it."""
    try:
        return importlib.util.find_spec(module) is not None
    except ValueError:  # imported already, by a module with no spec
        return sys.modules.get(module) is not None
    except ImportError:  # its parent package is not installed, or a finder refuses it
        return False
