"""``demo --out`` naming a folder that holds what the demo did not write is refused.

The eval loop deletes ``eval_fixtures.jsonl`` under ``--out`` and replaces its
``results.json`` and ``report.html``: ``replaygate demo --out .`` in a project replaced
the project's own results file without a word.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from replaygate.cli.demo import _claim
from replaygate.cli.options import CommandError
from replaygate.evals import History
from run_cli import replaygate
from test_demo_mark import vouch
from test_history import run


@pytest.mark.slow  # the demo command itself: the SDK and matplotlib imported
@pytest.mark.parametrize(
    ("files", "named"),
    [
        ({"pyproject.toml": "[project]\n", "results.json": "{}"}, "'pyproject.toml'"),
        ({"results.json": '{"mine": 1}\n'}, "'results.json'"),
    ],
    ids=["a project", "a results.json of another kind"],
)
def test_an_out_folder_holding_other_files_is_refused_before_anything_runs(
    tmp_path: Path, files: dict[str, str], named: str
) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    before = {p: p.read_bytes() for p in tmp_path.iterdir()}
    done = replaygate("demo", "--out", ".", cwd=tmp_path)
    assert done.returncode == 2, done
    assert done.stderr.startswith(f"Error: --out .: holds files the demo did not write ({named}")
    assert "Recording" not in done.stdout
    assert {p: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_a_new_empty_or_earlier_demo_folder_is_taken(tmp_path: Path) -> None:
    _claims(tmp_path, None)  # empty
    out = tmp_path / "new"
    _claims(out, None)
    run("2026-12-01T00:00:00Z", 4).write(out / "results.json")
    History.open(out / "history.db").close()
    for name in ("report.html", "eval_fixtures.jsonl", "eval_fixtures.jsonl.lock"):
        (out / name).write_text("")
    vouch(out)
    (out / ".results.json.123.tmp").write_text("")  # an interrupted write's leftover
    _claims(out, None)
    # the store --keep keeps there is the demo's own when it keeps it in the same folder
    for name in ("research_copilot.jsonl", "research_copilot.jsonl.lock"):
        (out / name).write_text("")
    _claims(out, out)
    with pytest.raises(CommandError, match=r"'research_copilot\.jsonl'"):
        _claims(out, tmp_path / "elsewhere")
    # kept there by an earlier run: named as such, not as a file of unknown origin
    kept = rf"'research_copilot\.jsonl' \(the store an earlier run given --keep {out} kept there"
    with pytest.raises(CommandError, match=kept):
        _claims(out, None)
    (out / "notes.md").write_text("mine")
    with pytest.raises(CommandError, match=r"'notes\.md'"):
        _claims(out, out)


def _claims(out: Path, keep: Path | None) -> None:
    """The demo command holds ``out`` for a run, with ``--keep keep``."""
    with contextlib.ExitStack() as stack:
        _claim(stack, out, keep)
