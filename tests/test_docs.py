"""The code in the docs really runs: every block after a ``<!-- doctest -->`` marker.

Python blocks of one page run in order in one namespace, in a temporary working
directory; shell blocks run each line that starts with ``replaygate`` (the docs say once
to activate the project's venv, then use bare commands), in this process (``run_cli``:
the same click command a process would run). A ``text`` block after a
``<!-- doctest output -->`` marker is what the shell block before it prints: each of
its lines (but those with ``...``) is in that output, up to dates, revisions
and runs of spaces.
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
BLOCK = re.compile(
    r"<!-- doctest -->\s*\n```(python|sh)\n(.*?)```"
    r"|<!-- doctest output -->\s*\n```(text)\n(.*?)```",
    re.DOTALL,
)
DATE = re.compile(r"\d{4}-\d\d-\d\d(T\d\d:\d\d:\d\dZ)?")
REVISION = re.compile(r"\b(HEAD|origin/main) \([0-9a-f]{7,40}\)")


def _blocks(page: Path) -> list[tuple[str, str]]:
    return [
        (m.group(1) or m.group(3), m.group(2) if m.group(1) else m.group(4))
        for m in BLOCK.finditer(page.read_text(encoding="utf-8"))
    ]


def _normal(line: str) -> str:
    """A line as compared: dates and revisions blanked, runs of spaces made one."""
    line = REVISION.sub(r"\1 (<rev>)", DATE.sub("<date>", line))
    return " ".join(line.split())


def _assert_printed(expected: str, printed: str, where: str) -> None:
    """Each line of ``expected`` but the elided ones is a line of ``printed``.

    Not in order: rows recorded within the same second (a patrol's, oldest first) may
    come in another order than the page's, recorded a few seconds apart.
    """
    lines = {_normal(line) for line in printed.splitlines()}
    for line in expected.splitlines():
        wanted = _normal(line)
        if not wanted or "..." in wanted or not wanted.strip("─"):
            continue
        assert wanted in lines, f"{where}: the docs show {line!r}, not printed:\n{printed}"


PAGES_WITH_BLOCKS = [p for p in PAGES if _blocks(p)]


@pytest.mark.parametrize("page", PAGES_WITH_BLOCKS, ids=lambda p: p.name)
def test_doc_blocks_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": f"doc_{page.stem}"}
    printed = ""
    for language, code in _blocks(page):
        if language == "python":
            exec(compile(code, f"{page.name} block", "exec"), namespace)
            continue
        if language == "text":
            _assert_printed(code, printed, page.name)
            continue
        printed = ""
        for line in code.splitlines():
            if not line.startswith("replaygate "):
                continue
            args = shlex.split(line.split("  #")[0])[1:]
            done = replaygate(*args, env={"ANTHROPIC_API_KEY": ""})
            assert done.returncode == 0, f"{page.name}: {line}\n{done.stdout}\n{done.stderr}"
            printed += done.stdout + done.stderr
