"""docs/quickstart-own-project.md does what it says: its files are written, its commands
run in order in a new folder, each with the exit status and key output lines shown.

Markers (an HTML comment before a fenced block):

- ``<!-- quickstart file: PATH -->``: the block is the file PATH;
- ``<!-- quickstart edit: PATH -->``: a ``diff`` block, each ``-`` line of PATH replaced
  by the ``+`` line after it;
- ``<!-- quickstart run -->`` (``run, fails``: exit status 1): each line is a command;
- ``<!-- quickstart output -->``: each line is in the output of the commands just run.

``pytest`` and ``replaygate`` are this interpreter's: ``make test-wheel`` runs this file
in a new environment holding only the built wheel, ``anthropic`` and ``pytest``, as the
page's ``pip install`` makes it. The CI job's steps after its ``pip install`` must be
commands the page ran successfully after its last edit.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parent.parent / "docs" / "quickstart-own-project.md"
STEP = re.compile(
    r"<!-- quickstart (file|edit|run|run, fails|output)(?:: (\S+))? -->\s*\n```\w*\n(.*?)```", re.S
)
CI_FILE = ".github/workflows/tests.yml"


def steps() -> list[tuple[str, str, str]]:
    """The page's marked blocks, in order: (kind, path, text)."""
    return [(m.group(1), m.group(2) or "", m.group(3)) for m in STEP.finditer(PAGE.read_text())]


def command(line: str) -> list[str]:
    """A command line of the page, with this interpreter's pytest and replaygate."""
    words = shlex.split(line.split("  #")[0])
    tools = {
        "pytest": [sys.executable, "-m", "pytest"],
        "replaygate": [sys.executable, "-m", "replaygate"],
    }
    return tools.get(words[0], words[:1]) + words[1:]


def run(line: str, folder: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command(line), cwd=folder, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def edit(path: Path, diff: str) -> None:
    text = path.read_text()
    lines = diff.splitlines()
    for old, new in zip(lines[::2], lines[1::2], strict=True):
        assert old.startswith("-") and new.startswith("+"), diff
        assert old[1:] in text, f"{path}: no line {old[1:]!r}"
        text = text.replace(old[1:], new[1:])
    path.write_text(text)


def project_env() -> dict[str, str]:
    """The environment of a user's shell: no API key, no pytest options of this suite, and
    Python writing its bytecode caches, as it does by default."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYTEST_", "ANTHROPIC_", "REPLAYGATE_"))
        and k != "PYTHONDONTWRITEBYTECODE"
    }
    git = {"NAME": "Quick Start", "EMAIL": "quick@example.invalid"}
    for who in ("AUTHOR", "COMMITTER"):
        env.update({f"GIT_{who}_{k}": v for k, v in git.items()})
    return env


def test_the_page_marks_its_steps() -> None:
    kinds = [kind for kind, _, _ in steps()]
    assert kinds.count("file") == 6 and "edit" in kinds and "run, fails" in kinds
    assert [path for kind, path, _ in steps() if kind == "file"][-1] == CI_FILE


@pytest.mark.slow
def test_the_quickstart_runs_as_written(tmp_path: Path) -> None:
    folder, env = tmp_path / "trip-agent", project_env()
    (folder / ".venv").mkdir(parents=True)  # the page's install step, made outside the test
    (folder / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    output, since_edit = "", set[str]()  # commands that passed since the last edit
    for kind, path, text in steps():
        if kind == "file":
            (folder / path).parent.mkdir(parents=True, exist_ok=True)
            (folder / path).write_text(text)
        elif kind == "edit":
            edit(folder / path, text)
            since_edit.clear()
        elif kind == "output":
            for line in text.splitlines():
                assert line in output, f"{line!r} not in the output:\n{output}"
        else:
            output = ""
            for line in text.splitlines():
                done = run(line, folder, env)
                output += done.stdout + done.stderr
                expected = 1 if kind == "run, fails" else 0
                assert done.returncode == expected, f"{line}: exit {done.returncode}\n{output}"
                if done.returncode == 0:
                    since_edit.add(line)
    committed = run("git ls-files", folder, env).stdout.split()
    assert "tests/fixtures/test_agent/test_plan.jsonl" in committed, committed
    own = [
        p for p in committed if p.endswith((".lock", ".pyc")) or ".bak" in p or ".replaygate/" in p
    ]
    assert own == [], committed
    assert CI_FILE in committed, committed
    assert run("git status --porcelain", folder, env).stdout == ""  # nothing left out of git
    workflow = (folder / CI_FILE).read_text()
    ci_steps = re.findall(r"^ +- run: (.+)$", workflow, re.M)
    assert ci_steps[0] == "pip install 'replaygate[anthropic]' pytest"
    assert set(ci_steps[1:]) <= since_edit, (ci_steps, since_edit)
