"""A report's output named over a file replaygate keeps, or that is a FIFO or a socket,
is refused before anything is sent.

``drift --report`` and ``--json-out`` wrote wherever they were told: over the fixture
store being compared (``drift rc.jsonl --against old.jsonl --report rc.jsonl``), the
baseline, the eval cases. ``report --out results.json``, a slip for ``--results``,
replaced the eval results with the HTML page. ``calibrate export --out`` naming a FIFO
waited for ever (the sheet is read before it is replaced), and a socket was found only
when the work was done, as "no such device or address".
"""

from __future__ import annotations

import os
import shutil
import socket
from pathlib import Path

import pytest

from deadline import finishes
from replaygate.evals import History
from replaygate.examples.research_copilot import shipped_fixtures
from replaygate.sampling.results import FORMAT
from run_cli import replaygate
from test_history import run
from test_hostile_outputs import BASELINE, CASE

RESULTS = f'{{\n  "format": "{FORMAT}",\n  "version": 1,\n  "cases": []\n}}\n'
HITS = '{"run": "r1", "store": "rc.jsonl", "key": "abc"}\n'
KEPT = {
    "rc.jsonl": "is the fixture set compared",
    "old.jsonl": "is the other fixture set",
    "evals/baseline.json": "holds a baseline",
    "evals/cases.jsonl": "holds eval cases",
    "results.json": "holds eval results",
    ".replaygate/hits/r1.jsonl": "holds a hits log",
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copy(shipped_fixtures(), tmp_path / "rc.jsonl")
    shutil.copy(shipped_fixtures(), tmp_path / "old.jsonl")
    for name, text in [
        ("evals/baseline.json", BASELINE),
        ("evals/cases.jsonl", CASE),
        ("results.json", RESULTS),
        (".replaygate/hits/r1.jsonl", HITS),
    ]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def _files(folder: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize("option", ["--report", "--json-out"])
@pytest.mark.parametrize("name", list(KEPT))
def test_a_drift_report_over_a_kept_file_is_refused(project: Path, option: str, name: str) -> None:
    before = _files(project)
    done = replaygate("drift", "rc.jsonl", "--against", "old.jsonl", option, name, cwd=project)
    assert done.returncode == 2, done
    assert done.stderr.startswith(f"Error: {name}: {KEPT[name]}"), done.stderr
    assert "writing the output there would replace it" in done.stderr
    assert done.stdout == ""  # refused before the comparison
    assert _files(project) == before


def test_a_drift_report_is_written_and_written_again(project: Path) -> None:
    for _ in range(2):
        done = replaygate(
            "drift", "rc.jsonl", "--against", "old.jsonl", "--report", "drift.txt",
            "--json-out", "drift.json", cwd=project,
        )  # fmt: skip
        assert done.returncode == 0, done
    assert (project / "drift.txt").read_text().startswith("drift: rc.jsonl vs old.jsonl")


@pytest.mark.parametrize(("name", "what"), [("results.json", "eval results")])
def test_the_html_report_over_eval_results_is_refused(project: Path, name: str, what: str) -> None:
    before = _files(project)
    done = replaygate("report", "--out", name, "--history", "none.db", cwd=project)
    assert done.returncode == 2, done
    assert f"Error: {name}: holds {what}: writing the output there would replace it" in (
        done.stderr
    )
    assert _files(project) == before


def _socket_at(path: Path) -> socket.socket:
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(path))
    return listener


@pytest.mark.parametrize("fifo", ["sheet.csv", "sheet.verdicts.json"])
def test_a_calibration_sheet_or_verdicts_file_that_is_a_fifo_is_refused_at_once(
    tmp_path: Path, fifo: str
) -> None:
    # the sheet is read to see what it holds before it is replaced: that waited for ever
    results = run("2026-12-01T00:00:00Z", 4).write(tmp_path / "results.json")
    os.mkfifo(tmp_path / fifo)
    done = finishes(
        lambda: replaygate(
            "calibrate",
            "export",
            str(results),
            "--seed",
            "1",
            "--out",
            "sheet.csv",
            cwd=tmp_path,
        )
    )
    assert done.returncode == 2, done
    assert done.stderr == f"Error: {fifo}: is a FIFO, where a file is expected\n"


@pytest.mark.parametrize(
    "command",
    [
        ["report", "--history", "none.db", "--out"],
        ["drift", "rc.jsonl", "--against", "old.jsonl", "--report"],
        ["drift", "rc.jsonl", "--against", "old.jsonl", "--json-out"],
        ["history", "export", "--history", "h.db", "--out"],
    ],
    ids=["report", "drift --report", "drift --json-out", "history export"],
)
def test_an_output_that_is_a_socket_is_named_as_one_before_the_work(
    project: Path, command: list[str]
) -> None:
    History.open(project / "h.db").close()
    listener = _socket_at(project / "out.sock")
    try:
        done = replaygate(*command, "out.sock", cwd=project)
    finally:
        listener.close()
    assert done.returncode == 2, done
    assert done.stderr == "Error: out.sock: is a socket, where a file is expected\n"
    assert done.stdout == ""


PRICES = '"claude-sonnet-4-5" = { input = 3.0, output = 15.0 }\n'
EVAL = ("eval", "--cases", "cases.jsonl", "--fixtures", "f.jsonl", "--agent", "json:dumps",
        "--model", "m", "--max-tokens", "8", "--no-history")  # fmt: skip
CONFIG = '[tool.replaygate]\nhistory = "h.db"\n'


@pytest.mark.parametrize(
    ("args", "name", "what"),
    [
        ((*EVAL, "--prices", "p.toml", "--out", "p.toml"), "p.toml", "the price table"),
        ((*EVAL, "--config", "cfg.toml", "--out", "cfg.toml"), "cfg.toml", "the config"),
        (("report", "--config", "cfg.toml", "--out", "cfg.toml"), "cfg.toml", "the config"),
        (("history", "export", "--config", "cfg.toml", "--out", "cfg.toml"), "cfg.toml",
         "the config"),
    ],
    ids=["eval --prices", "eval --config", "report --config", "history export --config"],
)  # fmt: skip
def test_an_output_over_the_commands_own_toml_input_is_refused(
    tmp_path: Path, args: tuple[str, ...], name: str, what: str
) -> None:
    (tmp_path / "p.toml").write_text(PRICES)
    (tmp_path / "cfg.toml").write_text(CONFIG)
    (tmp_path / "cases.jsonl").write_text(CASE)
    History.open(tmp_path / "h.db").close()
    before = (tmp_path / name).read_bytes()
    done = replaygate(*args, cwd=tmp_path)
    assert done.returncode == 2, done
    assert done.stderr.startswith(f"Error: {name}: is {what}: writing the output there"), done
    assert (tmp_path / name).read_bytes() == before
