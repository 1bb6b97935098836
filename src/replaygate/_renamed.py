"""Old names of renamed public classes, still importable for a release, with a warning."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any


def old_names(module: str, renamed: dict[str, tuple[str, Any]]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that serves ``renamed`` (old name -> new name, object).

    Using an old name works and warns (:class:`DeprecationWarning`) with the new one;
    no two public classes share a name, so each old name is only an alias.
    """

    def __getattr__(name: str) -> Any:
        if name not in renamed:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        new_name, value = renamed[name]
        warn_renamed(module, name, new_name)
        return value

    return __getattr__


def warn_renamed(module: str, name: str, new_name: str) -> None:
    """Warn (:class:`DeprecationWarning`) that ``module.name`` is now ``module.new_name``,
    pointing at the code that used the old name."""
    warnings.warn(
        f"{module}.{name} is now {module}.{new_name}; the old name will be removed in 0.3",
        DeprecationWarning,
        stacklevel=3,
    )
