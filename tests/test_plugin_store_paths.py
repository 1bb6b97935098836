"""Tests that would share a fixture store by accident (modules of one file name in two
folders, parametrized ids alike but for characters a file name cannot hold) are refused
at setup, naming each other: sharing, each replayed what the other recorded, and a
changed request passed on the other test's fixture."""

from __future__ import annotations

import pytest

from nested_pytest import sessions_loading
from sdks import anthropic

pytestmark = pytest.mark.slow  # each test runs a pytest session of its own

# what the sessions import, loaded once: a store class or an SDK a session loaded anew,
# kept by a module loaded before, was not the one a later session checked against
sessions_find_their_modules = sessions_loading(anthropic)

# Each test runs pytest itself on a project of its own (pytester).

USES_STORE = """
import pytest

def test_answer(replaygate_store):
    pass
"""

PARAMETRIZED = """
import pytest

@pytest.mark.parametrize("q", ["a/b", "a_b", "c"])
def test_case(replaygate_store, q):
    pass
"""


def _errors(result: pytest.RunResult) -> str:
    return "\n".join(line for line in result.outlines if "cannot set up" in line)


def test_modules_of_one_name_in_two_folders_are_refused_naming_each_other(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        **{
            "unit/test_api": USES_STORE,
            "integration/test_api": USES_STORE,
            "test_other": USES_STORE,
        }
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "--import-mode=importlib")
    result.assert_outcomes(passed=1, errors=2)
    errors = _errors(result)
    store = pytester.path / "tests" / "fixtures" / "test_api" / "test_answer.jsonl"
    assert f"cannot set up unit/test_api.py::test_answer: its fixture store {store} " in errors
    assert "is also that of integration/test_api.py::test_answer" in errors
    assert "is also that of unit/test_api.py::test_answer" in errors


def test_parametrized_ids_alike_but_for_unsafe_characters_are_refused_even_one_selected(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_cases=PARAMETRIZED)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=2)
    assert "test_case[a/b]: its fixture store" in _errors(result)
    assert "is also that of test_cases.py::test_case[a_b]" in _errors(result)
    assert "each character outside A-Z a-z 0-9 _ . - [ ] = , + written _" in _errors(result)
    alone = pytester.runpytest("-p", "no:cacheprovider", "-k", "a/b")
    alone.assert_outcomes(errors=1, deselected=2)
    assert "give it another id" in _errors(alone)


def test_tests_whose_stores_differ_only_in_case_are_refused_naming_each_other(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_case=USES_STORE + USES_STORE.replace("test_answer", "test_Answer"))
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=2)
    store = pytester.path / "tests" / "fixtures" / "test_case" / "test_Answer.jsonl"
    assert (
        f"is also that of test_case.py::test_Answer (whose store {store} is that same file on "
        "macOS and Windows)"
    ) in _errors(result)


def test_a_test_whose_store_windows_cannot_hold_is_refused_naming_why(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_u="""
import unittest, pytest

@pytest.mark.usefixtures("replaygate_store")
class Aux(unittest.TestCase):
    def test_x(self):
        pass
"""
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    store = pytester.path / "tests" / "fixtures" / "test_u" / "Aux.test_x.jsonl"
    assert (
        f"cannot set up test_u.py::Aux::test_x: its fixture store {store} cannot be checked out "
        "on Windows: 'Aux.test_x.jsonl' is a device's name on Windows"
    ) in _errors(result)


MARKED = """
import pytest

@pytest.mark.replaygate(fixtures="Shared.jsonl")
def test_one(replaygate_store):
    pass

@pytest.mark.replaygate(fixtures="shared.jsonl")
def test_two(replaygate_store):
    pass

@pytest.mark.replaygate(fixtures="aux/answers.jsonl")
def test_aux(replaygate_store):
    pass

@pytest.mark.replaygate(fixtures="shared.jsonl")
def test_three(replaygate_store):
    pass

@pytest.mark.replaygate(fixtures=__file__ + "/../aux/outside.jsonl")
def test_absolute(replaygate_store):
    pass  # in no checkout: taken
"""


def test_stores_named_by_markers_that_windows_cannot_hold_or_differ_in_case_are_refused(
    pytester: pytest.Pytester,
) -> None:
    # Recorded on Linux, a macOS checkout kept one of Shared/shared.jsonl, Windows no aux/.
    pytester.makepyfile(test_m=MARKED)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=4, passed=1)
    errors = _errors(result)
    shared = pytester.path / "tests" / "fixtures" / "shared.jsonl"
    assert (
        "cannot set up test_m.py::test_one: its fixture store "
        f"{shared.with_name('Shared.jsonl')} is also that of test_m.py::test_two (whose store "
        f"{shared} is that same file on macOS and Windows): a checkout there keeps one"
    ) in errors
    assert "cannot set up test_m.py::test_three: its fixture store" in errors
    assert (
        "cannot set up test_m.py::test_aux: its fixture store "
        f"{shared.with_name('aux') / 'answers.jsonl'} cannot be checked out on Windows: 'aux' "
        "is a device's name on Windows"
    ) in errors
    assert not shared.parent.exists()


def test_a_store_named_by_the_marker_is_not_shared_by_accident(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_cases=PARAMETRIZED.replace(
            "def test_case",
            '@pytest.mark.replaygate(fixtures="cases.jsonl")\ndef test_case',
        )
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=3)


@pytest.mark.parametrize(
    ("mark", "outcomes", "named"),
    [
        # a store given by position was taken for the test's own, shared with a_b's
        ('pytest.mark.replaygate("own.jsonl")', {"passed": 3}, None),
        # a wrong argument is named on its test alone, and blames no other test
        ("pytest.mark.replaygate(fixtures=0)", {"passed": 2, "errors": 1}, "fixtures must be"),
    ],
    ids=["by-position", "wrong-type"],
)
def test_the_marks_of_a_test_are_read_alike_for_its_store_and_for_sharing(
    pytester: pytest.Pytester, mark: str, outcomes: dict[str, int], named: str | None
) -> None:
    pytester.makepyfile(
        test_cases=PARAMETRIZED.replace('"a/b"', f'pytest.param("a/b", marks={mark})')
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(**outcomes)
    assert "INTERNALERROR" not in result.stdout.str()
    if named is not None:
        result.stdout.fnmatch_lines(
            [f"*@pytest.mark.replaygate on test_cases.py::test_case[[]a/b[]]: {named}*"]
        )


ADDED_AT_SETUP = """
import pytest

@pytest.fixture(autouse=True)
def own_store(request):
    request.applymarker(pytest.mark.replaygate(fixtures="added.jsonl"))

@pytest.mark.replaygate(note="collected")
def test_answer(replaygate_store):
    assert replaygate_store.path.name == "added.jsonl"
"""


def test_a_mark_a_fixture_adds_before_the_store_is_set_up_names_the_store(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_added=ADDED_AT_SETUP)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)


DOCTESTED = '''
def ask():
    """
    >>> store = getfixture("replaygate_store").path
    >>> store.relative_to(getfixture("pytestconfig").rootpath).as_posix()
    'tests/fixtures/mod_doc/mod_doc.ask.jsonl'
    """
'''


@pytest.mark.parametrize("mode", ["prepend", "importlib"])
def test_a_doctest_has_one_store_whatever_the_import_mode_names_its_module(
    pytester: pytest.Pytester, mode: str
) -> None:
    # importlib names the module sub.mod_doc, prepend mod_doc: the store is the same file
    pytester.makepyfile(**{"sub/mod_doc": DOCTESTED})
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--doctest-modules", f"--import-mode={mode}"
    )
    result.assert_outcomes(passed=1)


def test_a_run_from_a_subfolder_of_a_project_with_no_config_file_names_where_its_stores_are(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the rootdir is then the folder pytest ran from: the test would miss, or record anew
    pytester.makepyfile(**{"sub/test_b": USES_STORE})
    stored = pytester.path / "tests" / "fixtures" / "test_b" / "test_answer.jsonl"
    stored.parent.mkdir(parents=True)
    stored.write_text("", encoding="utf-8")
    assert pytester.runpytest("-p", "no:cacheprovider").ret == 0
    monkeypatch.chdir(pytester.path / "sub")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    errors = _errors(result)
    assert f"test_b.py::test_answer: its fixture store {pytester.path}/sub/tests/" in errors
    assert f"is not there, but {stored} is: pytest found no config file" in errors
    assert f"Run pytest from {pytester.path}, or give the project a config file" in errors


MARKED_ODDLY = """
import pytest

@pytest.mark.replaygate(fixtures="~/answers.jsonl")
def test_home(replaygate_store):
    pass

@pytest.mark.replaygate(fixtures=".")
def test_here(replaygate_store):
    pass

@pytest.mark.replaygate(fixtures="..")
def test_above(replaygate_store):
    pass
"""


def test_a_marker_naming_an_unexpanded_home_or_the_stores_folder_is_refused_naming_it(
    pytester: pytest.Pytester,
) -> None:
    # "~" named a new folder called ~ under the stores folder; "." and ".." a folder
    # store holding every test's store, recorded into among them
    pytester.makepyfile(test_marked=MARKED_ODDLY)
    stores = pytester.path / "tests" / "fixtures"
    stores.mkdir(parents=True)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=3)
    errors = _errors(result)
    assert "test_home: its marker's fixtures '~/answers.jsonl': the ~ was not expanded" in errors
    assert f"test_here: its marker's fixtures='.' names the stores folder {stores}:" in errors
    assert f"fixtures='..' names {stores.parent}, which holds the stores folder" in errors
    assert not (stores / "~").exists()


def test_a_monorepo_package_run_from_inside_it_names_the_store_its_top_recorded(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # config files at the top and in the package: run from the package, the rootdir is
    # the package's, and the store the top's run recorded was reported as never recorded
    pytester.makepyprojecttoml("[tool.pytest.ini_options]\n")
    package = pytester.path / "services" / "a"
    pytester.makepyfile(**{"services/a/tests/test_b": USES_STORE})
    (package / "pyproject.toml").write_text("[tool.pytest.ini_options]\n", encoding="utf-8")
    stored = pytester.path / "tests" / "fixtures" / "test_b" / "test_answer.jsonl"
    stored.parent.mkdir(parents=True)
    stored.write_text("", encoding="utf-8")
    monkeypatch.chdir(package)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    errors = " ".join(_errors(result).split())
    assert f"its fixture store {package}/tests/fixtures/test_b/test_answer.jsonl" in errors
    assert f"is not there, but {stored} is: the stores are under the rootdir, {package}," in errors
    assert f"(from {pytester.path}, or with --rootdir={pytester.path})" in errors
    again = pytester.runpytest_inprocess("-p", "no:cacheprovider", f"--rootdir={pytester.path}")
    again.assert_outcomes(passed=1)


ASKS = """
def test_ask(anthropic_client):
    anthropic_client().messages.create(
        model="claude-sonnet-4-5", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
    )
"""


@pytest.mark.slow
@pytest.mark.native_tracebacks  # the miss's words, not the SDK's source
def test_the_command_to_record_a_monorepo_package_s_test_from_its_top_keeps_the_rootdir(
    pytester: pytest.Pytester,
) -> None:
    # named alone, the test's file gave pytest the package's config file and rootdir: the
    # command recorded a store under the package, which the run from the top never read
    pytester.makepyprojecttoml("[tool.pytest.ini_options]\n")
    pytester.makepyfile(**{"services/a/tests/test_b": ASKS})
    package = pytester.path / "services" / "a" / "pyproject.toml"
    package.write_text("[tool.pytest.ini_options]\n", encoding="utf-8")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    command = (
        "`pytest 'services/a/tests/test_b.py::test_ask' --replaygate-record-mode=record-missing"
        " --replaygate-approve-live --rootdir=.`"
    )
    assert command in result.stdout.str()
