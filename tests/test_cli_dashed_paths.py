"""A store path starting with a dash, given as it is, is an unknown option to click: the
error says how to name such a file, where it only said ``No such option '-x'``."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate.cli import main


def test_an_unknown_option_that_is_a_file_there_says_how_to_name_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("-x.jsonl").write_bytes(b"")
    done = CliRunner().invoke(main, ["verify", "-x.jsonl"])
    assert done.exit_code == 2
    assert done.output.splitlines()[-1] == (
        "Error: No such option '-x'. -x.jsonl is a file or folder there: name a path that "
        "starts with '-' as ./-x.jsonl, or after -- (`-- -x.jsonl`)"
    )
    unknown = CliRunner().invoke(main, ["verify", "-y.jsonl"])  # no such file: as click says
    assert unknown.output.splitlines()[-1] == "Error: No such option '-y'."
