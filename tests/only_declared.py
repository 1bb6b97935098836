"""Run replaygate as if only its declared dependencies were installed.

``python tests/only_declared.py ARGS...`` runs ``replaygate ARGS...`` in a process whose
import system refuses every top-level module that is neither in the standard library
nor part of a distribution ``replaygate`` requires (without extras), directly or
through them: pytest, the SDKs, httpx and matplotlib are then as absent as after a
plain ``pip install replaygate``. At exit it prints, on stderr, the third-party top-level
modules that were imported, after the line ``IMPORTED:``.
"""

from __future__ import annotations

import atexit
import importlib.abc
import re
import sys
from importlib import metadata


def _name(requirement: str) -> str | None:
    """The distribution a requirement names, or None when it needs an extra."""
    if "extra ==" in requirement:
        return None
    match = re.match(r"[A-Za-z0-9._-]+", requirement)
    return match.group(0) if match else None


def declared_modules(root: str = "replaygate") -> set[str]:
    """Top-level modules of ``root`` and of every distribution it needs without extras."""
    by_module = metadata.packages_distributions()
    wanted, seen = [root], set()
    while wanted:
        dist = wanted.pop().lower().replace("_", "-")
        if dist in seen:
            continue
        seen.add(dist)
        try:
            requires = metadata.requires(dist) or []
        except metadata.PackageNotFoundError:
            continue
        wanted.extend(name for r in requires if (name := _name(r)) is not None)
    return {
        module
        for module, dists in by_module.items()
        if any(d.lower().replace("_", "-") in seen for d in dists)
    } | {root}


class _Refuse(importlib.abc.MetaPathFinder):
    def __init__(self, allowed: set[str]) -> None:
        self.allowed = allowed

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        top = name.partition(".")[0]
        if top in self.allowed or top in sys.stdlib_module_names or top.startswith("_"):
            return None
        raise ModuleNotFoundError(f"No module named {top!r}", name=top)


def install() -> None:
    """From now on, refuse to import what a plain ``pip install replaygate`` lacks."""
    sys.meta_path.insert(0, _Refuse(declared_modules()))


def imported() -> set[str]:
    """The top-level modules imported so far that are not in the standard library."""
    return {m.partition(".")[0] for m in sys.modules} - set(sys.stdlib_module_names)


def main() -> None:
    install()
    before = imported()
    atexit.register(lambda: print("IMPORTED:", *sorted(imported() - before), file=sys.stderr))
    from replaygate.cli import main as cli

    cli(sys.argv[1:], prog_name="replaygate")


if __name__ == "__main__":
    main()
