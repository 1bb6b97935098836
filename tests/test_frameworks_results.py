"""The framework environments' results: what the pytest plugin writes, what the matrix reads.

``tests_frameworks.results`` folds each marked test into its matrix cell and writes one
JSON file per framework; ``tests_frameworks.matrix`` renders those files, refusing a
missing one by name.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent

MARKED_TESTS = """
import pytest

@pytest.mark.matrix("Model A", "plain")
def test_plain():
    pass

@pytest.mark.matrix("Model A", "stream")
def test_stream_one():
    pass

@pytest.mark.matrix("Model A", "stream")
def test_stream_two():
    assert False

@pytest.mark.matrix("Model B", "async")
def test_later():
    pytest.skip("waits for the aiohttp seam")
"""


@pytest.fixture
def importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(ROOT))


def run_marked(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, source: str, *args: str
) -> tuple[pytest.RunResult, Path]:
    results = pytester.path / "results"
    monkeypatch.setenv("REPLAYGATE_RESULTS", str(results))
    monkeypatch.setenv("REPLAYGATE_FRAMEWORK", "demo")
    monkeypatch.setenv("REPLAYGATE_PACKAGES", "pytest,not-a-distribution")
    # the session needs pytest and the results plugin only: the installed plugins
    # (replaygate's, xdist, Hypothesis...) loaded and registered took most of its time
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyfile(test_marked=source)
    # --tb=no: a failing test's traceback is not read here, and printing it first looks up
    # the module of every frame among all those loaded (both SDKs: about 0.3 s)
    run = pytester.runpytest_inprocess("-p", "tests_frameworks.results", "--tb=no", *args)
    return run, results / "demo.json"


@pytest.mark.slow
@pytest.mark.usefixtures("importable")
def test_each_cell_is_its_worst_outcome_and_the_versions_are_those_installed(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    run, written = run_marked(pytester, monkeypatch, MARKED_TESTS)
    run.assert_outcomes(passed=2, failed=1, skipped=1)
    document: dict[str, Any] = json.loads(written.read_text(encoding="utf-8"))
    assert document["framework"] == "demo"
    assert [name for name, _ in document["packages"]] == ["pytest"]
    assert document["rows"] == {
        "Model A": {"plain": "pass", "stream": "fail"},
        "Model B": {"async": "skip: waits for the aiohttp seam"},
    }


@pytest.mark.slow
@pytest.mark.usefixtures("importable")
@pytest.mark.parametrize(
    "args", [("-k", "plain"), ("test_marked.py::test_plain",), ("-x",)], ids=["-k", "named", "-x"]
)
def test_a_run_leaving_tests_out_writes_no_results(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...]
) -> None:
    """``nox -s <framework> -- -k 429``, as docs/frameworks.md shows, wrote the cells it
    ran only, and the matrix rendered every other one as n/a (not applicable)."""
    run, written = run_marked(pytester, monkeypatch, MARKED_TESTS, *args)
    run.stdout.fnmatch_lines(["matrix results of demo not written: the run left tests out*"])
    assert not written.exists()


@pytest.mark.slow
@pytest.mark.usefixtures("importable")
def test_an_unknown_cell_is_refused_by_name(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = 'import pytest\n\n@pytest.mark.matrix("Model A", "speed")\ndef test_x():\n    pass\n'
    run, written = run_marked(pytester, monkeypatch, source)
    assert run.ret == pytest.ExitCode.USAGE_ERROR
    run.stderr.fnmatch_lines(["*test_x*unknown matrix cell*speed*"])
    assert not written.exists()


@pytest.mark.usefixtures("importable")
def test_the_matrix_names_a_framework_without_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests_frameworks.matrix import main

    page = tmp_path / "frameworks.md"
    page.write_text("# page\n", encoding="utf-8")
    assert main([str(tmp_path / "none"), str(page)]) == 2
    error = capsys.readouterr().err
    assert error.startswith("Error: no results for sdks at ")
    assert "make test-frameworks" in error
    assert page.read_text(encoding="utf-8") == "# page\n"
