"""The provider SDKs (and aiohttp, vcrpy) as the test modules name them, imported on first
use.

Importing ``anthropic`` costs a process about 2.8 s of CPU, ``openai`` 0.8 s,
``google.genai`` 0.7 s, ``vcr`` 0.9 s and ``aiohttp`` 0.3 s, and a pytest process
imports every test module it collects.
``from sdks import anthropic`` gives a stand-in that imports the real module at the first
attribute asked of it (``anthropic.Anthropic``, ``anthropic.types``): a process that runs
none of the tests using it never pays for it. The test modules importing from here
go in two groups, each run in one share of the suite (tests/shares.py), so that few
processes import the SDKs: those taking only openai, and those taking anthropic or
another SDK. One taking only aiohttp, cheap to import, is left free to go in any share.
A module whose tests run the example's agent, as ``replaygate record --simulator`` does,
imports anthropic through replaygate: one of the inner loop says so
(``shares.SDKS_THROUGH_REPLAYGATE``) and goes with those taking anthropic.

The stand-ins are not put in ``sys.modules``: replaygate, which looks there for the SDKs
a process has loaded (to derive its passthrough errors from their base errors), sees
them once a test has used them, as in a user's process.
"""

from __future__ import annotations

import gc
import importlib
import sys
from types import ModuleType
from typing import Any

SDK_GROUP = "sdks"
"""The unit of the test modules taking anthropic, google.genai or vcrpy from here (with
openai or not), all in one share (tests/shares.py)."""


class Sdk:
    """A module imported when one of its public attributes is first asked for (private
    names are not looked for in it)."""

    __slots__ = ("_module_name",)

    def __init__(self, module_name: str) -> None:
        self._module_name = module_name

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("_"):  # what pytest's collection probes for (_mock_name)
            raise AttributeError(attribute)
        return getattr(sys.modules.get(self._module_name) or imported(self._module_name), attribute)

    def __repr__(self) -> str:
        return f"<{self._module_name}, imported on first use>"


def module_name(sdk: Sdk) -> str:
    """The name of the module ``sdk`` stands in for (an attribute of the stand-in would
    hide the module's own of that name)."""
    return sdk._module_name


def imported(name: str) -> ModuleType:
    """Module ``name`` imported with the garbage collector paused: it builds thousands of
    model classes and little garbage, which the collector would only walk again and again
    (as in collection: ``pytest_collection_finish`` in tests/conftest.py)."""
    paused = gc.isenabled()
    gc.disable()
    try:
        return importlib.import_module(name)
    finally:
        if paused:
            gc.enable()


anthropic = Sdk("anthropic")
openai = Sdk("openai")
aiohttp = Sdk("aiohttp")
genai = Sdk("google.genai")
vcr = Sdk("vcr")
