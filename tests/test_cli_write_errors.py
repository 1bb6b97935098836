"""A file a command cannot write ends it with ``Error: <path>: <reason>`` and exit 2.

A read-only folder, a path under a file, a full disk: every writer (the results, a
baseline, a report, an export, a labelling sheet, a drift report, a rewritten store)
names the path, whichever command met it. Tests may run as root, where a read-only
folder can still be written: a path under a regular file (and ``/dev/full``) fails for
anyone, and the read-only folder cases are skipped for root.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from replaygate.cli import COMMANDS, main
from replaygate.cli.options import input_error
from replaygate.examples.research_copilot import shipped_eval_cases, shipped_fixtures
from run_cli import Done, replaygate

# Its tests import the provider SDKs through replaygate (the example agent).

# The shipped cases sample once, as a demo does: the advice to sample more is expected.
pytestmark = pytest.mark.filterwarnings("ignore::replaygate.sampling.advice.SamplingWarning")

AGENT = ["--agent", "replaygate.examples.research_copilot:copilot"]
AS_ROOT = os.geteuid() == 0


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped fixtures, their cases (one sample each), results and a history."""
    root = tmp_path_factory.mktemp("writers")
    shutil.copyfile(shipped_fixtures(), root / "f.jsonl")
    shipped = shipped_eval_cases().read_text(encoding="utf-8").splitlines()
    cases = [{**json.loads(line), "samples": 1, "floor": 1} for line in shipped if line]
    (root / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    done = replaygate("eval", *AGENT, "--cases", "cases.jsonl", "--fixtures", "f.jsonl",
                      "--out", "results.json", "--history", "history.db", cwd=root)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return root


WRITERS = {
    "baseline update": ["baseline", "update", "--results", "results.json", "--baseline",
                        "OUT/baseline.json", "--reason", "first"],
    "eval --out": ["eval", *AGENT, "--cases", "cases.jsonl", "--fixtures", "f.jsonl",
                   "--no-history", "--out", "OUT/results.json"],
    "report --out": ["report", "--history", "history.db", "--out", "OUT/report"],
    "history export": ["history", "export", "--history", "history.db", "--out", "OUT/h.json"],
    "calibrate export": ["calibrate", "export", "results.json", "--seed", "1", "--out",
                         "OUT/sheet.csv"],
    "drift --report": ["drift", "f.jsonl", "--against", "f.jsonl", "--report", "OUT/drift.md"],
}  # fmt: skip
"""Each command that writes a file, writing it under ``OUT``."""


def run_into(project: Path, args: list[str], out: str) -> Done:
    return replaygate(*(a.replace("OUT", out) for a in args), cwd=project)


def assert_named(done: Done, path: str) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert f"Error: {path}" in done.stderr, done.stderr


@pytest.mark.parametrize("command", WRITERS)
def test_a_path_under_a_file_is_named(command: str, project: Path) -> None:
    (project / "a-file").write_text("not a folder\n")
    done = run_into(project, WRITERS[command], "a-file")
    assert_named(done, "a-file")
    assert "not a folder" in done.stderr or "not a directory" in done.stderr


@pytest.fixture
def read_only(project: Path) -> Iterator[str]:
    """A folder of ``project`` that cannot be written (skipped for root)."""
    if AS_ROOT:
        pytest.skip("root writes into a read-only folder")
    folder = project / "read-only"
    folder.mkdir(exist_ok=True)
    folder.chmod(0o500)
    yield folder.name
    folder.chmod(0o700)


@pytest.mark.parametrize("command", WRITERS)
def test_a_read_only_folder_is_named(command: str, project: Path, read_only: str) -> None:
    done = run_into(project, WRITERS[command], read_only)
    assert_named(done, read_only)
    assert "permission denied" in done.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_a_full_disk_is_named(project: Path) -> None:
    done = replaygate("history", "export", "--history", "history.db", "--out", "/dev/full",
                      cwd=project)  # fmt: skip
    assert_named(done, "/dev/full: no space left on device")


def test_a_failed_sheet_write_leaves_the_sheet_as_it_was(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    export = ["calibrate", "export", "results.json", "--out", "kept/sheet.csv"]
    assert CliRunner().invoke(main, [*export, "--n", "1", "--seed", "1"]).exit_code == 0
    before = Path("kept/sheet.csv").read_bytes()

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")  # found as the data is flushed

    monkeypatch.setattr(os, "fsync", full)
    done = CliRunner().invoke(main, [*export, "--n", "5", "--seed", "2"])
    assert done.exit_code == 2, done.output
    assert "Error: kept/sheet.csv: no space left on device" in done.output
    assert Path("kept/sheet.csv").read_bytes() == before
    assert sorted(p.name for p in Path("kept").iterdir()) == ["sheet.csv", "sheet.verdicts.json"]


def damaged(store: Path) -> Path:
    """The shipped fixtures with an interrupted last line (``verify --repair`` cuts it)."""
    store.write_bytes(shipped_fixtures().read_bytes() + b'{"key": "abc')
    return store


def test_a_lock_that_cannot_be_taken_is_named(project: Path) -> None:
    store = damaged(project / "locked.jsonl")
    (project / "locked.jsonl.lock").mkdir()
    before = store.read_bytes()
    done = replaygate("verify", "--repair", store.name, cwd=project)
    lock = f"{store.name}.lock"  # as given, not the whole path filelock names
    assert_named(done, f"{store.name}: cannot repair it: its lock {lock} is a folder; ")
    assert store.read_bytes() == before


def test_a_repair_in_a_read_only_folder_is_named(project: Path, read_only: str) -> None:
    folder = project / read_only
    folder.chmod(0o700)
    store = damaged(folder / "s.jsonl")
    folder.chmod(0o500)
    done = replaygate("verify", "--repair", str(store), cwd=project)
    assert_named(done, str(folder))
    assert "permission denied" in done.stderr.lower()


def test_a_store_record_cannot_write_exits_2(tmp_path: Path) -> None:
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "anthropic.messages@2023-06-01").write_text("a file, not a folder")
    done = replaygate("record", *AGENT, "--fixtures", "store", "--approve-live", "--simulator",
                      "What is RAG?", cwd=tmp_path)  # fmt: skip
    assert_named(done, "store: cannot record here: store/anthropic.messages@2023-06-01 is no")
    assert "(nothing was sent)" in done.stderr  # refused before the live call, not after it


def test_a_sanitize_config_error_ends_run_with_exit_2(tmp_path: Path) -> None:
    shutil.copyfile(shipped_fixtures(), tmp_path / "f.jsonl")
    config = "[tool.replaygate.sanitize]\nids = 3\n"
    (tmp_path / "pyproject.toml").write_text(config, encoding="utf-8")
    done = replaygate("run", *AGENT, "--fixtures", "f.jsonl", "What is RAG?", cwd=tmp_path)
    assert_named(done, f"{(tmp_path / 'pyproject.toml').resolve()}:2: ")
    assert "tool.replaygate.sanitize.ids" in done.stderr


def test_a_miss_still_ends_run_with_exit_1(tmp_path: Path) -> None:
    shutil.copyfile(shipped_fixtures(), tmp_path / "f.jsonl")
    done = replaygate("run", *AGENT, "--fixtures", "f.jsonl", "Never recorded?", cwd=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr


@click.command()
@click.argument("kind")
def boom(kind: str) -> None:
    """Raise what ``kind`` names."""
    if kind == "bug":
        raise OSError("not a failed file operation: no errno")
    raise FileNotFoundError(errno.ENOENT, "No such file or directory", "gone.json")


def test_only_a_failed_file_operation_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(COMMANDS, "boom", "test_cli_write_errors:boom")
    named = CliRunner().invoke(main, ["boom", "file"])
    assert named.exit_code == 2 and "Error: gone.json: no such file or directory" in named.output
    bug = CliRunner().invoke(main, ["boom", "bug"])
    assert isinstance(bug.exception, OSError) and not isinstance(bug.exception, SystemExit)
    assert not input_error(BrokenPipeError(errno.EPIPE, "Broken pipe"))  # click's to handle
    assert not input_error(KeyError("x")) and input_error(PermissionError(13, "denied", "x"))
