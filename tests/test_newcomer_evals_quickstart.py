"""The quick start of docs/evals.md, done as written in an empty folder.

The page's first shell block copies the example's cases (the test keeps two of the
eight, to be quick), its ``toml`` block is the ``pyproject.toml``, and every command
of the next shell block runs in order and succeeds: record from the simulator,
replay, set the baseline, gate, report. Then the commands of its model upgrade section
that make the two results files ``upgrade`` compares.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from run_cli import replaygate

# Its tests import the provider SDKs through replaygate (the example agent).
# Its tests draw the report's plots through replaygate (the report).

# A whole eval recorded from the simulator and replayed.
pytestmark = pytest.mark.slow

PAGE = Path(__file__).resolve().parent.parent / "docs" / "evals.md"
RESULTS = ("old_results.json", "new_results.json")


def quick_start() -> tuple[list[str], str, list[str]]:
    """The setup commands, the ``pyproject.toml`` and the loop's commands of the page."""
    section = PAGE.read_text(encoding="utf-8").split("## Quick start", 1)[1].split("\n## ", 1)[0]
    shell = re.findall(r"```sh\n(.*?)```", section, re.DOTALL)
    toml = re.findall(r"```toml\n(.*?)```", section, re.DOTALL)
    assert len(shell) >= 2 and toml, "the quick start lost a block"
    return shell[0].splitlines(), toml[0], shell[1].splitlines()


@pytest.fixture(scope="module")
def quick_started(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty folder where every command of the quick start ran, in order, and
    succeeded (run once: the model upgrade steps go on from it)."""
    folder = tmp_path_factory.mktemp("quick-start")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        setup, toml, loop = quick_start()
        for line in setup:
            args = shlex.split(line)
            if args[0] == "python":  # python -c CODE: the code, run here
                assert args[1] == "-c" and len(args) == 3, line
                exec(compile(args[2], "<string>", "exec"), {"__name__": "__main__"})
            else:
                subprocess.run(args, check=True)
        cases = Path("evals/cases.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
        assert len(cases) == 8
        Path("evals/cases.jsonl").write_text("".join(cases[:2]), encoding="utf-8")  # quicker
        Path("pyproject.toml").write_text(toml, encoding="utf-8")
        for line in loop:
            assert line.startswith("replaygate "), line
            done = replaygate(*shlex.split(line)[1:], env={"ANTHROPIC_API_KEY": ""})
            assert done.returncode == 0, f"{line}\n{done.stdout}\n{done.stderr}"
    return folder


def test_the_quick_start_runs_as_written(quick_started: Path) -> None:
    assert (quick_started / "report.html").exists()
    assert (quick_started / "evals/baseline.json").exists()


def test_the_model_upgrade_steps_run_after_the_quick_start(
    quick_started: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page's commands that make the two results files ``upgrade`` compares, with
    the quick start's configuration, the new model recorded from the simulator."""
    monkeypatch.chdir(quick_started)
    section = PAGE.read_text(encoding="utf-8").split("## Model upgrades", 1)[1]
    steps = re.findall(r"```sh\n(.*?)```", section.split("\n## ", 1)[0], re.DOTALL)[1]
    for line in steps.splitlines():
        args = shlex.split(line)[1:]
        if "--record-mode" in args:
            args.append("--simulator")
        done = replaygate(*args, env={"ANTHROPIC_API_KEY": ""})
        assert done.returncode == 0, f"{line}\n{done.stdout}\n{done.stderr}"
    assert done.stdout.startswith("upgrade: ")
    models = [json.loads(Path(f).read_text("utf-8"))["eval"]["model"] for f in RESULTS]
    assert models == ["claude-sonnet-4-6", "claude-haiku-4-5"]
