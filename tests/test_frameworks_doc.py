"""docs/frameworks.md keeps its generated support matrix: the markers, and a row per framework.

The matrix is rendered by ``python -m tests_frameworks.matrix`` from the results of the
framework environments (``make test-frameworks``); this suite only checks the page.
"""

from __future__ import annotations

import ast
import builtins
import re
import symtable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "frameworks.md"


@pytest.fixture
def matrix(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.syspath_prepend(str(ROOT))
    import tests_frameworks.matrix

    return tests_frameworks.matrix


def generated(matrix: Any, page: str) -> str:
    begin, end = matrix.BEGIN, matrix.END
    assert page.count(begin) == 1 and page.count(end) == 1, "the matrix markers are not intact"
    assert page.index(begin) < page.index(end)
    return page.split(begin, 1)[1].split(end, 1)[0].strip()


def test_the_matrix_has_a_row_per_framework_and_a_cell_per_column(matrix: Any) -> None:
    table = generated(matrix, PAGE.read_text(encoding="utf-8")).splitlines()
    columns = 3 + len(matrix.CELLS)
    assert all(line.count("|") == columns + 1 for line in table), table
    named = {line.split("|")[1].strip() for line in table[2:]}
    assert named == set(matrix.FRAMEWORKS.values())


def test_rendering_replaces_only_the_table_and_refuses_a_page_without_markers(
    matrix: Any,
) -> None:
    page = PAGE.read_text(encoding="utf-8")
    redone = matrix.render(page, "| new |", "docs/frameworks.md")
    assert generated(matrix, redone) == "| new |"
    assert redone.split(matrix.BEGIN)[0] == page.split(matrix.BEGIN)[0]
    with pytest.raises(matrix.MatrixError, match="markers"):
        matrix.render("# no table", "| new |", "x.md")


def test_a_documented_nox_run_with_k_selects_tests_of_that_framework() -> None:
    """``nox -s NAME -- -k WORD`` on the page selects tests: a run that selects none ends
    with pytest's exit status 5 and nox reports the session failed."""
    runs = re.findall(r"nox -s (\w+) -- -k (\S+)", PAGE.read_text(encoding="utf-8"))
    assert runs, "the page shows no nox run with -k"
    for session, word in runs:
        module = ROOT / "tests_frameworks" / f"test_{session}.py"
        names = re.findall(r"^(?:async )?def (test_\w+)", module.read_text("utf-8"), re.M)
        assert any(word.lower() in name.lower() for name in names), (session, word, names)


def test_every_python_block_of_the_page_parses() -> None:
    """A user copies the page's code as it is: each ``python`` block is valid Python (the
    framework environments check that what they import exists)."""
    blocks = re.findall(r"^```python\n(.*?)^```", PAGE.read_text(encoding="utf-8"), re.M | re.S)
    assert len(blocks) >= 8, len(blocks)
    for code in blocks:
        ast.parse(code)


RECIPES = [
    "Under pytest: the marker alone",
    "pydantic-ai",
    "OpenAI Agents SDK",
    "LangChain",
    "LiteLLM",
    "Instructor",
    "The official SDKs",
]


def _undefined(code: str) -> set[str]:
    """The global names ``code`` reads but neither imports, assigns nor finds in builtins."""
    top = symtable.symtable(code, "<recipe>", "exec")
    defined = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported()}
    read: set[str] = set()
    tables = [top]
    while tables:
        table = tables.pop()
        read |= {
            s.get_name()
            for s in table.get_symbols()
            if s.is_referenced() and (table is top or s.is_global())
        }
        tables += table.get_children()
    return read - defined - set(dir(builtins))


def test_undefined_names_are_found() -> None:
    code = "import a\nb = 1\nclass C:\n    x: int\ndef f():\n    return a, b, C, d, len\n"
    assert _undefined(code) == {"d"}


@pytest.mark.parametrize("heading", RECIPES)
def test_each_recipe_runs_as_copied_defining_every_name_it_uses(heading: str) -> None:
    """A recipe's blocks, in order, import or define every name they use: a user who
    copies them gets no ``NameError`` (``agent``, ``messages``, a model class)."""
    text = PAGE.read_text(encoding="utf-8")
    marker = f"\n## {heading}\n"
    assert marker in text, f"docs/frameworks.md has no section {heading!r}"
    section = text.split(marker, 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"^```python\n(.*?)^```", section, re.M | re.S)
    assert blocks, heading
    assert _undefined("\n".join(blocks)) == set(), heading
