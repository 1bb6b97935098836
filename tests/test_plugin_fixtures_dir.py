"""``--replaygate-dir`` is taken from the rootdir, whatever folder pytest runs from: the
same stores are found from any folder. A relative folder that is only under the folder
pytest runs from is a usage error naming the spelling that reaches it, where every test
missed (or a recording made a new folder beside the stores)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow  # each test runs a pytest session of its own

TEST = """
def test_store(replaygate_store):
    assert replaygate_store.path.parent.parent.name == "fixtures"
"""
RECORD = ("--replaygate-record-mode=record-missing", "--replaygate-approve-live")


def test_a_folder_under_where_pytest_runs_but_not_the_rootdir_is_a_usage_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeini("[pytest]\n")  # the rootdir
    pytester.mkdir("tests").joinpath("fixtures").mkdir()
    pytester.path.joinpath("tests/test_x.py").write_text(TEST)
    monkeypatch.chdir(pytester.path / "tests")
    for mode in ((), RECORD):
        result = pytester.runpytest(*mode, "test_x.py", "--replaygate-dir", "fixtures")
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines(
            [
                f"*--replaygate-dir fixtures is taken from the rootdir ({pytester.path}), "
                "where there is no fixtures; the folder fixtures where pytest runs is "
                "--replaygate-dir=tests/fixtures"
            ]
        )
        assert not pytester.path.joinpath("fixtures").exists()
    result = pytester.runpytest("test_x.py", "--replaygate-dir", "tests/fixtures")
    result.assert_outcomes(passed=1)
    # a folder of that name under the rootdir is the one taken, as ever
    pytester.mkdir("fixtures")
    pytester.runpytest("test_x.py", "--replaygate-dir", "fixtures").assert_outcomes(passed=1)


def test_a_folder_where_pytest_runs_outside_the_rootdir_is_named_by_its_whole_path(
    pytester: pytest.Pytester,
) -> None:
    project = pytester.mkdir("project")
    project.joinpath("pytest.ini").write_text("[pytest]\n")  # the rootdir, below the cwd
    project.joinpath("test_x.py").write_text(TEST)
    pytester.mkdir("fixtures")
    result = pytester.runpytest("project/test_x.py", "--replaygate-dir", "fixtures")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            f"*--replaygate-dir fixtures is taken from the rootdir ({project}), where there is "
            "no fixtures; the folder fixtures where pytest runs is "
            f"--replaygate-dir={pytester.path / 'fixtures'}"
        ]
    )


def test_the_default_folder_is_not_refused_where_pytest_runs(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a package's own tests/fixtures (data of its own, the commonest name) under the folder
    # pytest ran from stopped every run, even one using no store: the option was not given
    pytester.makeini("[pytest]\n")  # the rootdir, with no tests/fixtures
    package = pytester.mkdir("package")
    package.joinpath("tests/fixtures").mkdir(parents=True)
    package.joinpath("tests/fixtures/data.json").write_text("{}")
    package.joinpath("tests/test_plain.py").write_text("def test_plain():\n    pass\n")
    monkeypatch.chdir(package)
    pytester.runpytest().assert_outcomes(passed=1)
    given = pytester.runpytest("--replaygate-dir", "tests/fixtures")  # given: refused
    assert given.ret == pytest.ExitCode.USAGE_ERROR
    given.stderr.fnmatch_lines(["*the folder tests/fixtures where pytest runs is *"])
