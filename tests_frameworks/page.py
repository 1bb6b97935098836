"""The code of docs/frameworks.md as a user copies it: its blocks, and what they import.

Each framework's tests check that the page's blocks for that framework parse and that
every module and name they import exists at the framework's tested version, so a
renamed import on the page fails in that framework's environment.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

PAGE = Path(__file__).resolve().parent.parent / "docs" / "frameworks.md"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.M | re.S)


def section(heading: str) -> str:
    """The text under ``## heading`` of the page, up to the next ``## `` heading."""
    text = PAGE.read_text(encoding="utf-8")
    marker = f"\n## {heading}\n"
    assert marker in text, f"docs/frameworks.md has no section {heading!r}"
    return text.split(marker, 1)[1].split("\n## ", 1)[0]


def python_blocks(heading: str) -> list[str]:
    """The ``python`` code blocks of the page's section ``heading``."""
    return BLOCK.findall(section(heading))


def unresolved_imports(code: str) -> list[str]:
    """The imports of ``code`` that fail here: ``module`` or ``module.name``."""
    missing: list[str] = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                missing += _absent(alias.name, None)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                missing += _absent(node.module, alias.name)
    return missing


def _absent(module: str, name: str | None) -> list[str]:
    try:
        imported = importlib.import_module(module)
    except ImportError:
        return [module]
    if name is None or hasattr(imported, name):
        return []
    try:
        importlib.import_module(f"{module}.{name}")
    except ImportError:
        return [f"{module}.{name}"]
    return []


def assert_page_imports_resolve(heading: str) -> None:
    """The section's blocks parse, and all they import exists in this environment."""
    blocks = python_blocks(heading)
    assert blocks, f"the section {heading!r} of docs/frameworks.md shows no python block"
    missing = [name for code in blocks for name in unresolved_imports(code)]
    assert not missing, f"docs/frameworks.md, {heading!r}: no such import {missing}"
