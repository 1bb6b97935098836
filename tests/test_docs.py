"""The code in the docs really runs: every block after a ``<!-- doctest -->`` marker.

Python blocks of one page run in order in one namespace, in a temporary working
directory; shell blocks run each line that starts with ``replaygate`` (the docs say once
to activate the project's venv, then use bare commands), in this process (``run_cli``:
the same click command a process would run).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from run_cli import replaygate

# Every page's commands, end to end.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
BLOCK = re.compile(r"<!-- doctest -->\s*\n```(python|sh)\n(.*?)```", re.DOTALL)


def _blocks(page: Path) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in BLOCK.finditer(page.read_text(encoding="utf-8"))]


PAGES_WITH_BLOCKS = [p for p in PAGES if _blocks(p)]


@pytest.mark.parametrize("page", PAGES_WITH_BLOCKS, ids=lambda p: p.name)
def test_doc_blocks_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": f"doc_{page.stem}"}
    for language, code in _blocks(page):
        if language == "python":
            exec(compile(code, f"{page.name} block", "exec"), namespace)
            continue
        for line in code.splitlines():
            if not line.startswith("replaygate "):
                continue
            args = shlex.split(line.split("  #")[0])[1:]
            done = replaygate(*args, env={"ANTHROPIC_API_KEY": ""})
            assert done.returncode == 0, f"{page.name}: {line}\n{done.stdout}\n{done.stderr}"
