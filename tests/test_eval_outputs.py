"""``replaygate eval`` (and ``eval merge``) refuse a results file or a history they could
not write before anything runs, with the error the write would give, creating nothing."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from types import FrameType

import pytest
from click.testing import CliRunner, Result

from forked_cli import Forker
from replaygate.cli import main
from replaygate.evals.history import History, check_run
from replaygate.evals.preflight import check_history, check_writable
from replaygate.examples.research_copilot import shipped_eval_cases, shipped_fixtures

pytestmark = pytest.mark.filterwarnings("ignore::replaygate.sampling.advice.SamplingWarning")

AGENT = "replaygate.examples.research_copilot:copilot"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The first shipped case, sampled once, and a file that is no folder."""
    first = json.loads(shipped_eval_cases().read_text(encoding="utf-8").splitlines()[0])
    (tmp_path / "cases.jsonl").write_text(json.dumps({**first, "samples": 1, "floor": 1}) + "\n")
    (tmp_path / "a-file").write_text("not a folder\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CI", "1")
    return tmp_path


def run(*args: str) -> Result:
    base = ["--agent", AGENT, "--cases", "cases.jsonl", "--fixtures", str(shipped_fixtures())]
    return CliRunner().invoke(main, ["eval", *base, *args])


def assert_refused_before_running(result: Result, message: str) -> None:
    assert result.exit_code == 2, result.output
    assert f"Error: {message}" in result.output
    assert "rag-basics" not in result.output  # no case ran


@pytest.mark.slow  # a real git repository
def test_an_out_path_under_a_file_is_refused_before_the_eval(project: Path) -> None:
    result = run("--no-history", "--out", "a-file/results.json")
    assert_refused_before_running(result, "a-file/results.json: not a directory")


@pytest.mark.slow  # a real git repository
def test_a_damaged_history_is_refused_before_the_eval_and_no_results_are_written(
    project: Path,
) -> None:
    (project / "h.db").write_bytes(b"not a database\n")
    result = run("--history", "h.db", "--out", "results.json")
    assert_refused_before_running(result, "h.db: not a replaygate history database")
    assert not (project / "results.json").exists()
    assert (project / "h.db").read_bytes() == b"not a database\n"


@pytest.mark.slow  # a real git repository
def test_a_history_under_a_file_is_refused_before_the_eval(project: Path) -> None:
    # as in a checkout that cannot be written in: the error says how to run all the same
    result = run("--history", "a-file/h.db")
    assert_refused_before_running(result, "a-file/h.db: not a directory")
    assert "give --no-history, or --history FILE (history in [tool.replaygate]" in result.output


@pytest.mark.slow  # a real git repository
def test_writable_outputs_in_new_folders_still_run_and_are_written(project: Path) -> None:
    result = run("--history", "new/h.db", "--out", "deeper/still/results.json")
    assert result.exit_code == 0, result.output
    assert "rag-basics" in result.output
    assert (project / "deeper/still/results.json").is_file()
    assert (project / "new/h.db").is_file()


@pytest.mark.slow  # a real git repository
def test_merge_refuses_a_damaged_history_before_writing_the_merged_file(project: Path) -> None:
    assert run("--shard", "1/1", "--out", "shard.json").exit_code == 0
    (project / "h.db").write_bytes(b"not a database\n")
    merged = CliRunner().invoke(
        main, ["eval", "merge", "shard.json", "--out", "merged.json", "--history", "h.db"]
    )
    assert merged.exit_code == 2, merged.output
    assert "Error: h.db: not a replaygate history database" in merged.output
    assert not (project / "merged.json").exists()


def test_the_checks_create_nothing(tmp_path: Path) -> None:
    check_writable(tmp_path / "a" / "b" / "results.json")
    check_history(tmp_path / "c" / "h.db")
    existing = tmp_path / "kept.json"
    existing.write_text("kept\n")
    check_writable(existing)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.json"]
    assert existing.read_text() == "kept\n"
    with pytest.raises(IsADirectoryError):
        check_writable(tmp_path)


@pytest.mark.slow  # a real git repository
def test_an_output_that_is_an_input_is_refused_and_the_input_kept(project: Path) -> None:
    store = project / "f.jsonl"
    store.write_bytes(shipped_fixtures().read_bytes())
    (project / "link.jsonl").symlink_to(store)
    base = ["--agent", AGENT, "--cases", "cases.jsonl", "--fixtures", "f.jsonl"]
    assert run("--history", "h.db", "--out", "results.json").exit_code == 0
    kept = {p: p.read_bytes() for p in (store, project / "cases.jsonl", project / "h.db")}
    for args, message in [
        (["eval", *base, "--no-history", "--out", "f.jsonl"], "f.jsonl: is the fixture store"),
        (["eval", *base, "--no-history", "--out", "link.jsonl"], "link.jsonl: is the fixture"),
        (["eval", *base, "--no-history", "--out", "./cases.jsonl"], "cases.jsonl: is the cases"),
        (["eval", *base, "--history", "h.db", "--out", "h.db"], "h.db: is the history"),
        (["history", "export", "--history", "h.db", "--out", "h.db"], "h.db: is the history"),
        (["report", "--history", "h.db", "--fixtures", "f.jsonl", "--out", "f.jsonl"], "store"),
        (
            ["baseline", "update", "--results", "results.json", "--baseline", "results.json",
             "--reason", "r"],
            "results.json: is the results file",
        ),
    ]:  # fmt: skip
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2, result.output
        assert f"Error: {message}" in result.output or message in result.output
        assert "writing the output there would replace it" in result.output
    assert {p: p.read_bytes() for p in kept} == kept


@pytest.mark.slow  # a real git repository
def test_an_out_that_holds_a_history_export_is_refused_and_the_export_kept(
    project: Path,
) -> None:
    # eval --out runs.json replaced an export (a CI artifact, to merge) with results.
    assert run("--history", "h.db").exit_code == 0
    exported = CliRunner().invoke(
        main, ["history", "export", "--history", "h.db", "--out", "runs.json"]
    )
    assert exported.exit_code == 0, exported.output
    kept = (project / "runs.json").read_bytes()
    for args in (
        ["--no-history", "--out", "runs.json"],
        ["--history", "h.db", "--out", "runs.json"],
    ):
        assert_refused_before_running(
            run(*args),
            "runs.json: holds an exported history (merge it with `replaygate history merge`): "
            "writing the output there would replace it; choose another file (nothing was written)",
        )
    assert (project / "runs.json").read_bytes() == kept
    again = CliRunner().invoke(
        main, ["history", "export", "--history", "h.db", "--out", "runs.json"]
    )
    assert again.exit_code == 0, again.output  # its own export, it replaces


@pytest.mark.slow  # a real git repository
def test_each_run_written_to_the_history_is_checked_once(project: Path) -> None:
    # The command checked the run before printing it, and the history checked it again.
    calls = []

    def profile(frame: FrameType, event: str, _arg: object) -> None:
        if event == "call" and frame.f_code is check_run.__code__:
            calls.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        result = run("--history", "h.db")
    finally:
        sys.setprofile(None)
    assert result.exit_code == 0, result.output
    assert "appended to h.db" in result.output
    assert calls == ["check_run"]


@pytest.mark.slow  # replaygate eval in a process of its own
@pytest.mark.parametrize("as_json", [False, True])
def test_a_reader_of_stdout_that_leaves_early_loses_neither_results_nor_history(
    forker: Forker, project: Path, as_json: bool
) -> None:
    """``replaygate eval --out r.json | head -n 1``: the pipe is closed before the first
    line, yet the results file and the history run are both written, nothing more is
    said, and the run's exit status is 0."""
    read, write = os.pipe()
    os.close(read)  # the reader has gone: every write to stdout is a broken pipe
    args = ["--agent", AGENT, "--cases", "cases.jsonl", "--fixtures", str(shipped_fixtures())]
    command = ["eval", *args, "--out", "r.json", "--history", "h.db"]
    with os.fdopen(write, "wb") as stdout, (project / "stderr").open("w+b") as stderr:
        status = forker.start(  # `python -m replaygate ARGS`, forked
            [*command, *(["--json"] if as_json else [])],
            stdout=stdout.fileno(), stderr=stderr.fileno(), cwd=project, env=dict(os.environ),
        ).wait(60)  # fmt: skip
        stderr.seek(0)
        said = stderr.read().decode()  # the sampling warning (and with --json what was written)
    assert status == 0, said
    assert "rror" not in said and "Exception" not in said
    assert ("results: r.json" in said) is as_json
    assert json.loads((project / "r.json").read_text(encoding="utf-8"))["cases"]
    with History.open(project / "h.db") as history:
        assert len(history) == 1
