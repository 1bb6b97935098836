"""File names and arguments holding bytes that are not UTF-8, where a UTF-8 file is written.

``report --fixtures`` naming a store whose file name is not UTF-8 ended in a
UnicodeEncodeError when the page (which names the stores) was written; ``baseline
update`` did the same with such a ``--results`` name or ``--reason``, whose text the
baseline keeps.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate.cli import main
from replaygate.evals import History, update_baseline
from replaygate.evals.errors import BaselineError
from replaygate.examples.research_copilot import shipped_fixtures
from run_cli import replaygate
from test_history import run
from unplotted_reports import unplot

NAME = os.fsdecode(b"\xff\xfe-store.jsonl")  # how Python gives such a name: as surrogates


@pytest.fixture
def project(tmp_path: Path) -> Path:
    with History.open(tmp_path / "history.db") as history:
        history.append(run("2026-12-01T00:00:00Z", 4))
    run("2026-12-01T00:00:00Z", 4).write(tmp_path / "results.json")
    return tmp_path


def test_the_report_names_a_store_whose_name_is_not_utf8_by_its_bytes(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The page's words name the store; its plots (drawn and checked in test_report.py)
    # hold no name, so they are left out here.
    unplot(monkeypatch)
    shutil.copy(shipped_fixtures(), project / NAME)
    monkeypatch.chdir(project)  # the name as a command line gives it: relative, as surrogates
    args = ["report", "--history", "history.db", "--fixtures", NAME, "--out", "r.html"]
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 0, done.output
    page = (project / "r.html").read_text(encoding="utf-8")
    assert "in: \\xff\\xfe-store.jsonl." in page


def test_a_baseline_reason_that_is_not_utf8_is_refused_and_nothing_written(
    project: Path,
) -> None:
    reason = os.fsdecode(b"new corpus \xff")
    with pytest.raises(BaselineError, match=r"the reason 'new corpus \\udcff' is not UTF-8"):
        update_baseline(project / "baseline.json", run("2026-12-01T00:00:00Z", 4), reason=reason)
    assert not (project / "baseline.json").exists()


def test_a_utf8_reason_given_under_an_ascii_locale_is_kept_as_its_text(project: Path) -> None:
    # LC_ALL=C decodes the argument's UTF-8 bytes one by one as surrogates: it was refused
    # as 'not UTF-8 text', though it is
    reason = "caf\udcc3\udca9 \udce6\udc97\udca5"  # "café 日" as Python gives it there
    done = replaygate(
        "baseline", "update", "--results", "results.json", "--reason", reason,
        "--baseline", "baseline.json", cwd=project,
    )  # fmt: skip
    assert done.returncode == 0, done
    (entry,) = json.loads((project / "baseline.json").read_text("utf-8"))["history"]
    assert entry["reason"] == "café 日"


def test_a_results_file_named_not_in_utf8_is_kept_in_the_baseline_as_its_escape(
    project: Path,
) -> None:
    name = os.fsdecode(b"results-\xff.json")
    shutil.copy(project / "results.json", project / name)
    done = replaygate(
        "baseline", "update", "--results", name, "--reason", "first",
        "--baseline", "baseline.json", cwd=project,
    )  # fmt: skip
    assert done.returncode == 0, done
    (entry,) = json.loads((project / "baseline.json").read_text("utf-8"))["history"]
    assert entry["results"] == "results-\\udcff.json"


def test_calibrate_export_keeps_a_results_name_that_is_not_utf8_as_its_escape(
    project: Path,
) -> None:
    # the sheet was written, then its verdicts file failed: a sheet with no verdicts
    name = os.fsdecode(b"results-\xff.json")
    results = run("2026-12-01T00:00:00Z", 4)
    results.write(project / name)
    done = replaygate(
        "calibrate", "export", name, "--seed", "1", "--n", "2", "--out", "sheet.csv",
        cwd=project,
    )  # fmt: skip
    assert done.returncode == 0, done
    verdicts = json.loads((project / "sheet.verdicts.json").read_text("utf-8"))
    assert verdicts["results"] == "results-\\udcff.json"


AGENT = ("--agent", "replaygate.examples.research_copilot:copilot")
NOT_TEXT = os.fsdecode(b"caf\xe9")  # Latin-1 from a shell: half of a surrogate pair


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (("record", *AGENT, "--fixtures", "n.jsonl", "--approve-live", "--simulator",
          "--note", NOT_TEXT, "q"), "--note"),
        (("run", *AGENT, "--fixtures", "n.jsonl", NOT_TEXT), "[QUESTION]..."),
        (("run", *AGENT, "--fixtures", "n.jsonl", "--system", NOT_TEXT, "q"), "--system"),
        (("run", *AGENT, "--fixtures", "n.jsonl", "--model", NOT_TEXT, "q"), "--model"),
        (("baseline", "update", "--results", "results.json", "--reason", NOT_TEXT), "--reason"),
        (("diff", "n.jsonl", "--allow-response-change", "--reason", NOT_TEXT), "--reason"),
    ],
    ids=["record --note", "run QUESTION", "--system", "--model", "baseline --reason", "diff"],
)  # fmt: skip
def test_text_that_is_not_utf8_is_a_usage_error_naming_the_option(
    project: Path, args: tuple[str, ...], option: str
) -> None:
    # record --note said "cannot fingerprint request" and exited 1
    done = replaygate(*args, cwd=project)
    assert done.returncode == 2, done
    assert done.stderr.endswith(
        f"Error: Invalid value for '{option}': 'caf\\udce9' is not UTF-8 text (a byte that is "
        "not UTF-8 is shown as \\udcXX): give it as UTF-8\n"
    ), done.stderr
    assert not (project / "n.jsonl").exists()
