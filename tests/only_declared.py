"""Run replaygate as if only its declared dependencies were installed.

``python tests/only_declared.py ARGS...`` runs ``replaygate ARGS...`` in a process whose
import system refuses every top-level module that is neither in the standard library
nor part of a distribution ``replaygate`` requires (without its own extras, with those a
requirement names: ``jsonschema[format-nongpl]``), directly or
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

_REQUIREMENT = re.compile(r"([A-Za-z0-9._-]+)\s*(?:\[([^\]]*)\])?")
_EXTRA = re.compile(r"extra\s*==\s*['\"]([^'\"]+)['\"]")


def _wanted(requirement: str, extras: frozenset[str]) -> tuple[str, frozenset[str]] | None:
    """The distribution a requirement names and the extras it asks of it; None when the
    requirement belongs to an extra not in ``extras`` (those asked of its distribution)."""
    needs = _EXTRA.search(requirement)
    if needs is not None and needs.group(1) not in extras:
        return None
    match = _REQUIREMENT.match(requirement)
    if match is None:
        return None
    asked = frozenset(e.strip() for e in (match.group(2) or "").split(",") if e.strip())
    return match.group(1), asked


def declared_modules(root: str = "replaygate") -> set[str]:
    """Top-level modules of ``root`` and of every distribution it needs without extras of
    its own, directly or through the others (with the extras each requirement names, as
    ``jsonschema[format-nongpl]``)."""
    wanted: list[tuple[str, frozenset[str]]] = [(root, frozenset())]
    seen: set[tuple[str, frozenset[str]]] = set()
    while wanted:
        name, extras = wanted.pop()
        dist = name.lower().replace("_", "-")
        if (dist, extras) in seen:
            continue
        seen.add((dist, extras))
        try:
            requires = metadata.requires(dist) or []
        except metadata.PackageNotFoundError:
            continue
        wanted.extend(w for r in requires if (w := _wanted(r, extras)) is not None)
    modules = {root}
    for dist in {dist for dist, _ in seen}:  # theirs alone, not every installed one's
        for found in metadata.distributions(name=dist):
            modules |= _top_level(found)
    return modules


def _top_level(dist: metadata.Distribution) -> set[str]:
    """The top-level modules of ``dist``, as :func:`importlib.metadata.packages_distributions`
    reads them (``top_level.txt``, else the first part of each ``.py`` file's path)."""
    declared = (dist.read_text("top_level.txt") or "").split()
    if declared:
        return set(declared)
    return {
        file.parts[0] if len(file.parts) > 1 else file.with_suffix("").name
        for file in dist.files or ()
        if file.suffix == ".py"
    }


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
