"""The files the sampling options write: an input or an unwritable path is refused first."""

from __future__ import annotations

from pathlib import Path

import pytest

from nested_pytest import UNUSED_PLUGINS, sessions_loading
from replaygate.sampling.results import load_results

# Each test runs pytest itself on a project of its own (pytester): end to end.
pytestmark = pytest.mark.slow


sessions_find_their_modules = sessions_loading()


MODULE = "def test_a():\n    open('ran.txt', 'w').close()\n"
OPTIONS = ("--sampling-results", "--flaky-report", "--observe-queue")


def _refused(pytester: pytest.Pytester, *args: str) -> str:
    """Run pytest with ``args``; it must stop with a usage error before any test ran."""
    result = pytester.runpytest(*args, *UNUSED_PLUGINS)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()
    assert not (pytester.path / "ran.txt").exists()
    return result.stderr.str()


@pytest.mark.parametrize("option", OPTIONS)
def test_an_output_naming_a_test_module_or_conftest_is_refused(
    pytester: pytest.Pytester, option: str
) -> None:
    module = pytester.makepyfile(test_m=MODULE)
    conftest = pytester.makeconftest("X = 1\n")
    for target in (module, conftest):
        before = target.read_bytes()
        err = _refused(pytester, "--flaky-runs=2", f"{option}={target.name}", "test_m.py")
        assert f"{option}: {target}: is a Python module" in err
        assert target.read_bytes() == before


def test_an_output_naming_an_input_or_another_output_is_refused(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_m=MODULE)
    ini = pytester.makeini("[pytest]\n")  # tox.ini
    ini_text = ini.read_text()
    script = pytester.path / "script.jsonl"
    script.write_text('{"text": "hi"}\n')
    fixture = pytester.path / "tests" / "fixtures" / "test_m" / "test_a.jsonl"
    fixture.parent.mkdir(parents=True)
    fixture.write_text("{}\n")
    cases = {
        "tox.ini": ("the ini file", ()),
        "script.jsonl": ("the simulator's script", ("--replaygate-simulator=script:script.jsonl",)),
        "tests/fixtures": ("the fixture store", ()),
        "tests/fixtures/test_m/test_a.jsonl": ("a file of the fixture store", ()),
        "q.jsonl": ("the --observe-queue file", ("--observe-queue=q.jsonl",)),
    }
    for path, (what, extra) in cases.items():
        err = _refused(pytester, f"--sampling-results={path}", *extra, "test_m.py")
        assert f"--sampling-results: {pytester.path / path}: is {what}" in err
    assert ini.read_text() == ini_text
    assert script.read_text() == '{"text": "hi"}\n'
    assert fixture.read_text() == "{}\n"
    assert not (pytester.path / "q.jsonl").exists()


@pytest.mark.parametrize("option", OPTIONS)
def test_an_output_that_cannot_be_written_is_refused_before_the_tests(
    pytester: pytest.Pytester, option: str
) -> None:
    pytester.makepyfile(test_m=MODULE)
    (pytester.path / "plain.txt").write_text("kept\n")
    (pytester.path / "folder").mkdir()
    for path, error in (
        ("plain.txt/out.json", "not a directory"),
        ("plain.txt/deeper/out.json", "not a directory"),
        ("folder", "is a directory"),
    ):
        err = _refused(pytester, "--flaky-runs=2", f"{option}={path}", "test_m.py")
        assert f"{option}: {pytester.path / path}: {error}\n" in err  # no "[Errno 21]"
    assert (pytester.path / "plain.txt").read_text() == "kept\n"
    assert sorted(p.name for p in (pytester.path / "folder").iterdir()) == []


def test_a_new_output_in_a_new_folder_is_written(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_m=MODULE)
    result = pytester.runpytest(
        "--sampling-results=out/new/results.json", "test_m.py", *UNUSED_PLUGINS
    )
    assert result.ret == pytest.ExitCode.OK
    assert Path(pytester.path / "out" / "new" / "results.json").is_file()


@pytest.mark.parametrize("option", OPTIONS)
def test_an_output_naming_a_collected_text_file_is_refused(
    pytester: pytest.Pytester, option: str
) -> None:
    doctest = pytester.path / "guide.txt"
    doctest.write_text(">>> open('ran.txt', 'w').close()\n")
    before = doctest.read_text()
    err = _refused(pytester, "--doctest-glob=*.txt", "--flaky-runs=2", f"{option}=guide.txt")
    assert f"{option}: {doctest}: is not a" in err
    assert doctest.read_text() == before


def test_an_observation_that_cannot_be_queued_fails_the_session_naming_the_queue(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_s="""
        import pytest

        @pytest.mark.sampled(n=3, floor=3)
        def test_s(replaygate_sample):
            assert replaygate_sample != 1
        """
    )
    (pytester.path / ".replaygate").write_text("not a folder\n")  # the default queue's folder
    result = pytester.runpytest(*UNUSED_PLUGINS)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    result.stdout.fnmatch_lines(
        ["observe: test_s.py::test_s: 2/3 passed*", "observation queue: cannot write *.replaygate*"]
    )
    assert (pytester.path / ".replaygate").read_text() == "not a folder\n"


def test_an_output_of_keys_json_writes_alike_is_kept_as_its_text(
    pytester: pytest.Pytester,
) -> None:
    # an output of two keys JSON makes one: written, the file was refused by every reader;
    # refused by the writer, the session failed; read back from its JSON, one value was lost
    pytester.makepyfile(
        test_s="""
        import pytest
        from replaygate.assertions import structure_check

        OBJECT = structure_check({"type": "object"}, kind="gate")

        @pytest.mark.sampled(n=1, floor=1)
        def test_s(replaygate_sample, replaygate_checks):
            replaygate_checks.evaluate({1: 2, "1": 3}, OBJECT)
        """
    )
    result = pytester.runpytest("--sampling-results=r.json", *UNUSED_PLUGINS)
    assert result.ret == pytest.ExitCode.OK
    (case,) = load_results(pytester.path / "r.json")
    assert case.samples[0].output == "{1: 2, '1': 3}"


def test_a_usage_error_at_collection_keeps_the_files_of_the_last_run(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_s="""
        import pytest

        @pytest.mark.sampled(n=3)  # no floor: refused before any test runs
        def test_s(replaygate_sample):
            pass
        """
    )
    last = {
        "results.json": '{"format": "replaygate.sampling.results", "version": 1, "cases": []}',
        "flaky.json": '{"runs": 2, "tests": 0, "flaky": [], "failed_every_run": []}',
    }
    for name, text in last.items():
        (pytester.path / name).write_text(text)
    err = _refused(
        pytester, "--sampling-results=results.json", "--flaky-runs=2", "--flaky-report=flaky.json"
    )
    assert "declare @pytest.mark.sampled(n=..., floor=...)" in err
    for name, text in last.items():
        assert (pytester.path / name).read_text() == text


@pytest.mark.parametrize(
    ("option", "what"),
    [
        ("--sampling-results", "a sampling results file"),
        ("--flaky-report", "a flaky report"),
        ("--observe-queue", "an observation queue"),
    ],
)
def test_an_existing_file_of_another_kind_is_refused(
    pytester: pytest.Pytester, option: str, what: str
) -> None:
    pytester.makepyfile(test_m=MODULE)
    readme = pytester.path / "README.md"
    readme.write_text("# the project\n")
    err = _refused(pytester, "--flaky-runs=2", f"{option}=README.md", "test_m.py")
    assert f"{option}: {readme}: is not {what}" in err
    assert readme.read_text() == "# the project\n"


@pytest.mark.parametrize("option", OPTIONS)
def test_an_output_given_no_path_is_refused_saying_so(
    pytester: pytest.Pytester, option: str
) -> None:
    # an empty value was the directory pytest ran from: "[Errno 21] Is a directory: '/...'"
    pytester.makepyfile(test_m=MODULE)
    err = _refused(pytester, "--flaky-runs=2", f"{option}=", "test_m.py")
    assert f"{option}: no path given ({option}=''); name the file to write, as in " in err
    assert "Is a directory" not in err


@pytest.mark.parametrize("runs_none", ["--collect-only", "--setup-only", "--setup-plan"])
def test_a_session_that_runs_no_test_keeps_the_files_of_the_last_run(
    pytester: pytest.Pytester, runs_none: str
) -> None:
    # --collect-only wrote `"cases": []` over the results of the last run
    pytester.makepyfile(test_m=MODULE)
    last = {  # "last": what the last run wrote, not what an empty run writes
        "results.json": '{"format": "replaygate.sampling.results", "version": 1, "cases": [], '
        '"last": 1}',
        "flaky.json": '{"runs": 2, "tests": 0, "flaky": [], "failed_every_run": [], "last": 1}',
    }
    for name, text in last.items():
        (pytester.path / name).write_text(text)
    args = ("--sampling-results=results.json", "--flaky-runs=2", "--flaky-report=flaky.json")
    result = pytester.runpytest(*args, runs_none, *UNUSED_PLUGINS)
    assert result.ret == pytest.ExitCode.OK
    for name, text in last.items():
        assert (pytester.path / name).read_text() == text
    assert not (pytester.path / "ran.txt").exists()
