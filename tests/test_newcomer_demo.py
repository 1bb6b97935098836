"""What ``replaygate demo`` tells a newcomer.

Run again with ``--keep DIR``, it says which cases it recorded and which were already
recorded, instead of "recorded" above "nothing new to record". Installed without the
``report`` extra, it says so before it records anything, not after half its work.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import pytest

from replaygate.extras import require_all
from run_cli import replaygate

# Its tests import the provider SDKs through replaygate (the example agent).
# Its tests draw the report's plots through replaygate (the demo).

# The whole demo's recording, twice.
pytestmark = pytest.mark.slow


def test_a_second_run_with_the_same_folder_says_each_case_was_already_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    command_module = importlib.import_module("replaygate.cli.demo")
    monkeypatch.setattr(command_module, "demo_loop", _no_eval_loop)  # only the first part
    two = command_module.load_cases()[:2]
    monkeypatch.setattr(command_module, "load_cases", lambda: two)  # quicker
    keep = tmp_path / "kept"
    first = replaygate("demo", "--keep", str(keep), "--out", str(tmp_path / "out"))
    assert first.returncode == 0, first.stderr
    lines = [line.strip() for line in first.stdout.splitlines() if "steps ->" in line]
    assert lines and all(line.startswith("recorded ") for line in lines), first.stdout
    again = replaygate("demo", "--keep", str(keep), "--out", str(tmp_path / "out"))
    assert again.returncode == 0, again.stderr
    lines = [line.strip() for line in again.stdout.splitlines() if "steps ->" in line]
    assert lines and all(line.startswith("already recorded ") for line in lines), again.stdout
    assert "nothing new to record" in again.stdout


def _no_eval_loop(out_dir: Path, **options: Any) -> Any:
    """Ends the command where the eval loop would start: this test is about the store."""
    raise SystemExit(0)


def test_without_matplotlib_the_demo_says_so_before_it_records_anything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    done = replaygate("demo", "--out", str(tmp_path / "out"))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "pip install 'replaygate[report]'" in done.stderr
    assert "simulator" not in done.stdout and not (tmp_path / "out").exists()


def test_without_anthropic_and_matplotlib_the_demo_names_both_extras_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A plain install was told to install the anthropic extra, then, that done, the report one
    monkeypatch.setitem(sys.modules, "anthropic", None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    done = replaygate("demo", "--out", str(tmp_path / "out"))
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr == (
        "Error: replaygate demo needs the 'anthropic' and 'matplotlib' packages, which are "
        "not installed: pip install 'replaygate[anthropic,report]'\n"
    )
    assert done.stdout == "" and not (tmp_path / "out").exists()


def test_the_extras_the_demo_needs_are_found_not_imported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # matplotlib's import warns on stderr where HOME cannot be written: the demo's check
    # of its extras imported it before anything ran, and printed those lines
    (tmp_path / "loud_extra_xyz.py").write_text("raise RuntimeError('imported')\n", "utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    require_all({"loud_extra_xyz": "report"}, "replaygate demo")  # found: nothing raised
    assert "loud_extra_xyz" not in sys.modules
