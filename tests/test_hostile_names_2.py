"""A store file named with a newline or an escape is printed on one line, escaped.

``patrol`` split the file's row in two at the newline (rich keeps a newline in a cell),
and ``compact`` printed the name as it was, so a name could start a line of its own or
act on the terminal.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from replaygate.examples.research_copilot import shipped_fixtures
from run_cli import replaygate

NAME = "a\nb\x1b[31mred.jsonl"
SHOWN = "'store/a\\nb\\x1b[31mred.jsonl"


def _store(tmp_path: Path) -> Path:
    (tmp_path / "store").mkdir()
    shutil.copy(shipped_fixtures(), tmp_path / "store" / NAME)
    return tmp_path


def test_patrol_shows_each_fixture_of_such_a_file_on_one_row(tmp_path: Path) -> None:
    done = replaygate("patrol", "store", cwd=_store(tmp_path))
    assert done.returncode == 0, done
    rows = [line for line in done.stdout.splitlines() if "unreferenced" in line]
    assert rows and all(row.startswith(SHOWN + ":") for row in rows), done.stdout
    assert "\x1b" not in done.stdout


def test_compact_names_such_a_folder_escaped(tmp_path: Path) -> None:
    folder = tmp_path / "st\nore"
    folder.mkdir()
    shutil.copy(shipped_fixtures(), folder / "rc.jsonl")  # compact already: nothing to fold
    done = replaygate("compact", "st\nore", cwd=tmp_path)
    assert done.stdout == "nothing to compact under 'st\\nore'\n", done


def test_record_and_eval_name_the_files_they_wrote_escaped(tmp_path: Path) -> None:
    # "recorded 0 new response(s) into a" then "b...red.jsonl" on a line of its own, and
    # "results: ..." so, where every other line escapes such a name
    from replaygate.examples.research_copilot import shipped_eval_cases

    _store(tmp_path)
    agent = ("--agent", "replaygate.examples.research_copilot:copilot")
    store = f"store/{NAME}"
    done = replaygate(
        "record", *agent, "--fixtures", store, "--approve-live", "--simulator", "What is RAG?",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done
    assert done.stdout.endswith(f"recorded 0 new response(s) into {SHOWN}'\n")
    first = json.loads(shipped_eval_cases().read_text("utf-8").splitlines()[0])
    (tmp_path / "case.jsonl").write_text(json.dumps({**first, "samples": 1, "floor": 1}) + "\n")
    cases = ("--cases", "case.jsonl", "--no-history")  # one run of the agent is enough
    done = replaygate("eval", *agent, "--fixtures", store, *cases, "--out", NAME, cwd=tmp_path)
    assert done.returncode == 0, done
    assert done.stdout.endswith("results: 'a\\nb\\x1b[31mred.jsonl'\n")
    assert (tmp_path / NAME).is_file()
