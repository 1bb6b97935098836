"""Packages whose public names are imported on first use.

Importing a submodule runs its package's ``__init__`` first. The pytest plugins import
a few small submodules in every pytest process; a package ``__init__`` that imported
all its public names would load the stores, the converters and jsonschema with them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from replaygate._renamed import warn_renamed


def lazy_names(
    package: str,
    exports: Mapping[str, str],
    *,
    renamed: Mapping[str, str] | None = None,
    subpackages: bool = False,
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``.

    ``exports`` maps each public name to the module it is imported from on first use.
    ``renamed`` maps an old name to its new one: it still works, with a
    :class:`DeprecationWarning`. With ``subpackages``, ``package.sub`` imports ``sub``.
    """
    module = importlib.import_module(package)
    old = dict(renamed or {})

    def __getattr__(name: str) -> Any:
        if name in old:
            warn_renamed(package, name, old[name])
            return getattr(module, old[name])
        source = exports.get(name)
        if source is not None:
            value = getattr(importlib.import_module(source), name)
            setattr(module, name, value)
            return value
        if subpackages:
            try:
                return importlib.import_module(f"{package}.{name}")
            except ModuleNotFoundError as err:
                if err.name != f"{package}.{name}":
                    raise
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted({*vars(module), *exports})

    return __getattr__, __dir__
