"""An output file named over something stored is refused before anything is written.

``eval --out evals/baseline.json`` replaced the committed baseline with results (no
reason given, no trace: law 9), ``history export --out`` replaced whatever it named:
the eval cases, a fixture store, ``pyproject.toml``. Only the command's inputs were
refused, and those files are not inputs of every command.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate import Fixture
from replaygate.cli import main
from replaygate.evals.history import History
from replaygate.fixtures.fixture import make_meta

META = make_meta("anthropic.messages", "2023-06-01", "hand", recorded_at="2025-01-01T00:00:00Z")
REQUEST = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}
RESPONSE = {"type": "message", "role": "assistant", "content": [], "stop_reason": "end_turn"}
CASE = '{"id": "c", "question": "hi", "must_contain": ["x"], "samples": 1, "floor": 1}\n'
BASELINE = '{\n  "format": "replaygate.eval.baseline",\n  "version": 1,\n  "metrics": {}\n}\n'
STORED = {
    "evals/baseline.json": ("a baseline", BASELINE.encode()),
    "pyproject.toml": ("the project's configuration", b"[tool.replaygate]\n"),
    "other/cases.jsonl": ("eval cases", CASE.encode()),
    "other/store.jsonl": ("fixtures", Fixture.create(REQUEST, [RESPONSE], META).to_line()),
    "other/abc123def456.json": ("fixtures", Fixture.create(REQUEST, [RESPONSE], META).to_pretty()),
    "other/old-history.db": ("a SQLite database", b""),
}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name, (_, data) in STORED.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    History.open(tmp_path / "other/old-history.db").close()
    History.open(tmp_path / "history.db").close()
    (tmp_path / "cases.jsonl").write_text(CASE)
    return tmp_path


EVAL = ["eval", "--cases", "cases.jsonl", "--fixtures", "f.jsonl", "--agent", "json:dumps"]


@pytest.mark.parametrize("name", list(STORED))
@pytest.mark.parametrize(
    "command",
    [
        [*EVAL, "--model", "m", "--max-tokens", "8", "--no-history", "--out"],
        ["history", "export", "--history", "history.db", "--out"],
    ],
    ids=["eval", "history export"],
)
def test_an_output_over_something_stored_is_refused(
    project: Path, command: list[str], name: str
) -> None:
    before = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    done = CliRunner().invoke(main, [*command, name])
    assert done.exit_code == 2 and isinstance(done.exception, SystemExit), done.output
    what = STORED[name][0]
    assert f"Error: {name}: holds {what}" in done.stderr, done.stderr
    assert "nothing was written" in done.stderr
    assert {p: p.read_bytes() for p in project.rglob("*") if p.is_file()} == before


def test_an_earlier_export_is_still_replaced(project: Path) -> None:
    export = ["history", "export", "--history", "history.db", "--out", "export.json"]
    for _ in range(2):
        done = CliRunner().invoke(main, export)
        assert done.exit_code == 0, done.output


@pytest.mark.parametrize(
    "inputs",
    [
        {"the shard results-0.json": Path("results-0.json")},  # eval merge
        {"the results file": Path("results.json")},  # report, calibrate export
        {"the --sampling-results file": Path("sampling.json")},  # the pytest plugin
    ],
)
def test_only_baseline_update_replaces_a_baseline(project: Path, inputs: dict[str, Path]) -> None:
    # an input whose description held the word "results" let any output replace it
    from replaygate.evals.errors import EvalError
    from replaygate.evals.preflight import check_not_an_input

    baseline = project / "evals/baseline.json"
    with pytest.raises(EvalError, match="holds a baseline"):
        check_not_an_input(baseline, inputs)
    check_not_an_input(baseline, inputs, baseline=True)
