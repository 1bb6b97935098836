"""A test carrying the marker of one of replaygate's two pytest plugins while that plugin
is not loaded (``-p no:replaygate``, plugin autoloading off) is refused by the other,
before any test runs. Unrefused, a ``replaygate`` test would run with no fixture store and
nothing blocking the network, its calls live (law 3: disabling a plugin approves no live
call); a ``sampled`` one would run once, its sample count and floor unchecked (law 7)."""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import pytest

from replaygate.pytest_plugin.refusals import refuse


@dataclass(frozen=True)
class _Plugin:
    """One of replaygate's pytest plugins, as the tests carrying its marker need it."""

    name: str  # its entry point's name, as ``-p`` takes it
    module: str
    role: str
    unrefused: str  # how a test carrying its marker would run without it


PLUGINS = {
    "replaygate": _Plugin(
        "replaygate",
        "replaygate.pytest_plugin.recording",
        "recording",
        "with no fixture store and nothing blocking the network, its calls live: disabling "
        "a plugin approves no live call (law 3)",
    ),
    "sampled": _Plugin(
        "replaygate_sampling",
        "replaygate.pytest_plugin.sampling",
        "sampling",
        "once, as if unsampled, its sample count and floor unchecked (law 7)",
    ),
}
"""replaygate's pytest plugins, by the marker each registers."""


def register_unloaded(config: pytest.Config, marker: str) -> None:
    """Register ``marker`` when its plugin is not loaded, so that under ``--strict-markers``
    the tests carrying it reach :func:`refuse_unloaded`, whose error says why, instead of
    failing their module's collection on a marker pytest does not know."""
    if not _loaded(config, PLUGINS[marker]):
        config.addinivalue_line("markers", f"{marker}: its plugin is not loaded: refused")


def refuse_unloaded(config: pytest.Config, items: Sequence[pytest.Item], marker: str) -> None:
    """Refuse the tests among ``items`` carrying ``marker`` when its plugin is not loaded."""
    plugin = PLUGINS[marker]
    marked = [item for item in items if item.get_closest_marker(marker) is not None]
    if not marked or _loaded(config, plugin):
        return
    blocked = _blocking(config, plugin)
    if blocked:
        why = f"disabled by -p no:{blocked}{_given(config, f'no:{blocked}')}"
        fix = f"drop -p no:{blocked}"
    else:
        why = "not loaded" + (" (plugin autoloading is off)" if _no_autoload(config) else "")
        fix = f"add -p {plugin.name}"
    said = f"replaygate's {plugin.role} plugin is {why}, but"
    after = (
        f"would run {plugin.unrefused}. To run such tests, {fix}; to run without them, "
        f'leave them out: -m "not {marker}"'
    )
    each = [
        (item, f"{said} {item.nodeid} carries @pytest.mark.{marker}: it {after}") for item in marked
    ]
    names = "".join(f"\n  {item.nodeid}" for item in marked)
    refuse(config, each, f"{said} these tests carry @pytest.mark.{marker}:{names}\nEach {after}.")


def _loaded(config: pytest.Config, plugin: _Plugin) -> bool:
    module = sys.modules.get(plugin.module)
    return module is not None and config.pluginmanager.is_registered(module)


def _blocking(config: pytest.Config, plugin: _Plugin) -> str | None:
    """The name ``-p no:`` blocked the plugin by, if it did."""
    manager = config.pluginmanager
    return next((n for n in (plugin.name, plugin.module) if manager.is_blocked(n)), None)


def _no_autoload(config: pytest.Config) -> bool:
    return bool(os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")) or bool(
        getattr(config.option, "disable_plugin_autoload", False)
    )


def _given(config: pytest.Config, value: str) -> str:
    """Where ``-p <value>`` was given, for the user to find it (empty if not found)."""
    ini = config.inipath.name if config.inipath else "the ini file"
    places = {
        "on the command line": list(config.invocation_params.args),
        "in PYTEST_ADDOPTS": shlex.split(os.environ.get("PYTEST_ADDOPTS", "")),
        f"in the addopts of {ini}": list(config.getini("addopts")),
    }
    found = [place for place, args in places.items() if _has_p(args, value)]
    return f" ({' and '.join(found)})" if found else ""


def _has_p(args: Sequence[str], value: str) -> bool:
    """Whether ``args`` hold ``-p value`` or ``-pvalue``."""
    pairs = zip(["", *args], args, strict=False)
    return any(arg == f"-p{value}" or (before == "-p" and arg == value) for before, arg in pairs)
