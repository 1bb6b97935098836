"""Long work shows a progress bar on a terminal, and nothing at all on a pipe.

The terminal is a rich console forced to behave as one, writing into a string; the
pipe is click's test runner, whose stderr is not a terminal.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from replaygate.evals import progress
from run_cli import replaygate

# Its tests import the provider SDKs through replaygate (the example agent).

AGENT = "replaygate.examples.research_copilot:copilot"
BAR = "━"
"""What rich draws a bar with."""


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> io.StringIO:
    """A fake terminal for the bars; whatever they draw ends up in the returned string."""
    screen = io.StringIO()

    def console() -> Console:
        return Console(file=screen, force_terminal=True, width=120)

    monkeypatch.setattr(progress, "stderr_console", console)
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("TERM", raising=False)  # a terminal that redraws, wherever this runs
    return screen


@pytest.fixture
def slow(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any work counts as long: small jobs show their bar too."""
    monkeypatch.setattr(progress, "SLOW", 0.0)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One question recorded from the simulator."""
    path = tmp_path_factory.mktemp("progress") / "rc.jsonl"
    done = replaygate("record", "--agent", AGENT, "--fixtures", str(path), "--approve-live",
                      "--simulator", "What is RAG?")  # fmt: skip
    assert done.returncode == 0, done.stderr
    return path


@pytest.fixture(scope="module")
def many_files(store: Path) -> Path:
    """60 stores of one fixture each: more files than a bar waits for."""
    folder = store.parent / "many"
    folder.mkdir()
    line = store.read_text(encoding="utf-8").splitlines(keepends=True)[0]
    for index in range(60):
        (folder / f"test_{index:02d}.jsonl").write_text(line, encoding="utf-8")
    return folder


def test_verify_of_many_files_draws_a_bar_on_a_terminal(
    many_files: Path, terminal: io.StringIO
) -> None:
    done = replaygate("verify", str(many_files))
    assert done.returncode == 0, done.stdout
    drawn = terminal.getvalue()
    assert BAR in drawn and "verify" in drawn and "60/60" in drawn
    assert BAR not in done.stdout and "60 fixture(s) checked, 0 problem(s)" in done.stdout


@pytest.mark.slow  # a drift check against the simulator
def test_nothing_is_drawn_on_a_pipe(many_files: Path, store: Path, tmp_path: Path) -> None:
    checks = [
        ("verify", str(many_files)),
        ("record", "--agent", AGENT, "--fixtures", str(tmp_path / "new.jsonl"),
         "--approve-live", "--simulator", "What is RAG?"),
        ("drift", str(store), "--live-sample", "2", "--approve-live", "--simulator"),
    ]  # fmt: skip
    for args in checks:
        done = replaygate(*args)
        assert done.returncode in (0, 1), done.stderr
        assert BAR not in done.stderr + done.stdout, args


@pytest.mark.usefixtures("slow")
@pytest.mark.slow  # a drift check against the simulator
def test_record_and_drift_draw_their_bars_once_the_work_is_long(
    store: Path, tmp_path: Path, terminal: io.StringIO
) -> None:
    done = replaygate("record", "--agent", AGENT, "--fixtures", str(tmp_path / "new.jsonl"),
                      "--approve-live", "--simulator", "What is RAG?", "What is RAG?")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "record" in terminal.getvalue() and "2/2" in terminal.getvalue()
    terminal.truncate(0)
    done = replaygate("drift", str(store), "--live-sample", "2", "--approve-live", "--simulator")
    assert done.returncode in (0, 1), done.stderr
    assert "drift" in terminal.getvalue() and "2/2" in terminal.getvalue()


@pytest.mark.usefixtures("slow")
@pytest.mark.slow  # a real git repository
def test_eval_draws_its_bar_and_keeps_json_on_stdout(
    store: Path, tmp_path: Path, terminal: io.StringIO
) -> None:
    cases = tmp_path / "cases.jsonl"
    case = {
        "id": "rag",
        "question": "What is RAG?",
        "must_contain": ["RAG"],
        "samples": 1,
        "floor": 1,
    }
    cases.write_text(json.dumps(case) + "\n", encoding="utf-8")
    done = replaygate("eval", "--agent", AGENT, "--cases", str(cases), "--fixtures", str(store),
                      "--no-history", "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["cases"][0]["case"] == "rag"
    assert BAR in terminal.getvalue() and "rag: pass" in terminal.getvalue()
    # one line, not Python's form naming replaygate's source file and the code there
    assert "warning: rag: 1 sample(s) on a semantic assertion" in done.stderr
    assert "casework.py" not in done.stderr


def test_a_bar_is_drawn_at_once_only_for_big_inputs(terminal: io.StringIO) -> None:
    with progress.reporter(progress.BIG + 1, label="big"):
        pass
    assert "big" in terminal.getvalue()
    terminal.truncate(0)
    terminal.seek(0)
    with progress.reporter(3, label="small") as bar:
        bar.advance("one")  # quick: not worth a bar
    assert terminal.getvalue() == ""


def test_nothing_is_drawn_on_a_terminal_that_cannot_redraw_a_line(
    terminal: io.StringIO, monkeypatch: pytest.MonkeyPatch
) -> None:
    # TERM=dumb got the bar once, at the end, 80 columns wide on a terminal of 20
    monkeypatch.setenv("TERM", "dumb")
    with progress.reporter(progress.BIG + 1, label="big") as bar:
        bar.advance("one")
    assert terminal.getvalue() == ""
