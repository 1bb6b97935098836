"""Every `replaygate` command line the docs show parses with the command's own parser.

The commands a page runs (``<!-- doctest -->``) are run by test_docs.py; the others (a
live recording, a drift against the real API, a synopsis such as ``replaygate gate
--baseline B [--format markdown]``, a CI step) are not, so a renamed or misspelled
option in one of them would reach the reader unnoticed. Each is parsed here as the
command line would parse it: a synopsis with its optional parts in and the first of
each ``a|b`` choice, the files it names made empty first where an option wants them
to exist.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from test_cli_help import make_paths_of, parse

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
SHELL = re.compile(r"```(?:sh|bash)\n(.*?)```", re.DOTALL)
ENV = re.compile(r"^(?:[A-Z_][A-Z0-9_]*=\S*\s+)+")


def command_lines(page: Path) -> list[str]:
    """The ``replaygate`` lines of a page's shell blocks, continuations joined, without
    comments, a leading ``NAME=value`` or a redirection, a synopsis written out in full."""
    found = []
    for block in SHELL.findall(page.read_text(encoding="utf-8")):
        for line in re.sub(r"\\\n\s*", " ", block).splitlines():
            line = ENV.sub("", line.split(" #")[0].strip())
            if not line.startswith("replaygate "):
                continue
            line = line.replace("[", "").replace("]", "")
            words = []
            for word in shlex.split(line):
                if word in (">", ">>", "|"):
                    break  # where the output goes is the shell's business
                if word != "...":
                    words.append(word.split("|")[0])
            found.append(shlex.join(words))
    return found


EVERY = [(page.name, line) for page in PAGES for line in command_lines(page)]


def test_the_docs_show_commands() -> None:
    assert len(EVERY) > 40
    assert ("README.md", "replaygate checksum tests/fixtures") in EVERY


@pytest.mark.parametrize(("page", "line"), EVERY, ids=[f"{p}: {line}" for p, line in EVERY])
def test_a_command_of_the_docs_parses(
    page: str, line: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    make_paths_of(line, tmp_path)
    assert parse(line).command_path.startswith("replaygate ")


def test_the_readme_lists_every_page_of_the_docs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    pages = sorted(p.name for p in (ROOT / "docs").glob("*.md"))
    assert [p for p in pages if f"](docs/{p})" not in readme] == []
