"""Sampled runs that would report a pass they did not earn, or fail with a raw error.

A model built without the sample index, a case of signals only, checks given as a list,
a measure whose message is no text, an output no results file can hold, and a session
interrupted before its results were complete.
"""

from __future__ import annotations

import functools
import json
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

from replaygate import FixtureStore
from replaygate.assertions import Check, citations_check, contains_check
from replaygate.models.fakes import Rule, RuleStub, ScriptedModel
from replaygate.models.replay import RecordingModel, ReplayModel
from replaygate.models.types import Message, ModelResponse
from replaygate.sampling import (
    SampleChecks,
    SamplingWarning,
    load_results,
    run_sampled,
    write_results,
)
from replaygate.sampling.index_use import ignores_index
from replaygate.sampling.results import KEPT_DEPTH, jsonable

SETTINGS: dict[str, Any] = {"model": "claude-sonnet-4-5", "max_tokens": 64}
QUESTION = [Message.user("What is RAG?")]
CITES = citations_check(["doc-rag"], kind="gate")
ANSWERS = ["A [doc-rag].", "B [doc-rag].", "C, uncited.", "D [doc-rag].", "E [doc-rag]."]


def record(path: Path) -> Path:
    """A store holding one request with the 5 samples of :data:`ANSWERS` (sample 2 uncited)."""
    for sample, text in enumerate(ANSWERS):
        live = ScriptedModel([ModelResponse(text=text)])
        recorder = RecordingModel(live, path, approve_live=True, sample=sample, **SETTINGS)
        recorder.complete(QUESTION, [])
    return path


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return record(tmp_path_factory.mktemp("guards") / "answers.jsonl")


def quiet_run(*args: Any, **kwargs: Any) -> Any:
    """``run_sampled`` with its advice warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SamplingWarning)
        return run_sampled(*args, **kwargs)


# -- the sample index ------------------------------------------------------------------


def test_run_sampled_refuses_a_function_that_never_reads_its_index(store: Path) -> None:
    def answer(sample: int) -> str:
        return ReplayModel(store, **SETTINGS).complete(QUESTION, []).text  # sample= forgotten

    def indexed(sample: int) -> str:
        return ReplayModel(store, sample=sample, **SETTINGS).complete(QUESTION, []).text

    with pytest.raises(ValueError, match="sample index unused") as err:
        quiet_run(answer, 5, 5, [CITES], case="rag")
    assert "the 5 samples of rag never read their sample index" in str(err.value)
    assert "(5 samples)" in str(err.value) and "sample=i" in str(err.value)
    # what is not refused: the index used, one sample, a function that replays nothing
    assert quiet_run(indexed, 5, 5, [CITES], case="rag").passes == 4
    assert quiet_run(answer, 1, 1, [CITES], case="one").passes == 1
    assert quiet_run(lambda sample: "RAG [doc-rag].", 5, 5, [CITES], case="fake").passes == 5


class Forgets:
    """A callable object whose ``__call__`` takes the sample index and never reads it."""

    def __init__(self, store: Path) -> None:
        self.store = store

    def __call__(self, sample: int) -> str:
        return ReplayModel(self.store, **SETTINGS).complete(QUESTION, []).text


def test_run_sampled_reads_a_partial_an_object_or_varargs_for_the_index(store: Path) -> None:
    # a functools.partial, a callable object or def fn(*args) were never read, so their
    # 5 samples of one recorded answer passed 5/5 where the recorded samples pass 4/5
    def answer(sample: int, where: Path) -> str:
        return ReplayModel(where, **SETTINGS).complete(QUESTION, []).text

    def indexed(where: Path, sample: int) -> str:
        return ReplayModel(where, sample=sample, **SETTINGS).complete(QUESTION, []).text

    def spread(*args: int) -> str:
        return ReplayModel(store, **SETTINGS).complete(QUESTION, []).text

    for unread in (functools.partial(answer, where=store), Forgets(store), spread):
        with pytest.raises(ValueError, match="sample index unused"):
            quiet_run(unread, 5, 4, [CITES], case="rag")
    assert quiet_run(functools.partial(indexed, store), 5, 4, [CITES], case="rag").passes == 4


def test_run_sampled_refuses_a_rule_stub_serving_one_sample_of_several(store: Path) -> None:
    # the stub replays the recorded fixture: sample 0 five times is one sample's pass rate
    (key,) = FixtureStore.open(store).keys()

    def answer(sample: int) -> str:
        stub = RuleStub([Rule(when="RAG", fixture=key)], store=FixtureStore.open(store))
        return stub.complete(QUESTION, []).text

    def indexed(sample: int) -> str:
        rule = Rule(when="RAG", fixture=key, sample=sample)
        return RuleStub([rule], store=FixtureStore.open(store)).complete(QUESTION, []).text

    with pytest.raises(ValueError, match="sample index unused"):
        quiet_run(answer, 5, 5, [CITES], case="stub")
    assert quiet_run(indexed, 5, 5, [CITES], case="stub").passes == 4


def test_an_assert_rewritten_by_pytest_is_no_read_of_the_index() -> None:
    # pytest's assert asks @py_builtins.locals() of each name it shows: no read of others
    def asserts(sample: int) -> None:
        answer = "A [doc-rag]."
        assert "[doc-rag]" in answer

    def reads_locals(sample: int) -> object:
        return locals()

    assert "locals" in asserts.__code__.co_names  # this module's asserts are rewritten
    assert ignores_index(asserts) and not ignores_index(reads_locals)


SAMPLED_TEST = """
import pytest

from replaygate.assertions import citations_check
from replaygate.models.replay import ReplayModel
from replaygate.models.types import Message

CITES = citations_check({"doc-rag"}, kind="gate")


@pytest.mark.sampled(n=5, floor=5)
def test_unused(replaygate_sample, replaygate_checks):
    model = ReplayModel("answers.jsonl", model="claude-sonnet-4-5", max_tokens=64)
    replaygate_checks.evaluate(model.complete([Message.user("What is RAG?")], []).text, CITES)


@pytest.mark.sampled(n=5, floor=4)
def test_used(replaygate_sample, replaygate_checks):
    model = ReplayModel("answers.jsonl", model="claude-sonnet-4-5", max_tokens=64,
                        sample=replaygate_sample)
    replaygate_checks.evaluate(model.complete([Message.user("What is RAG?")], []).text, CITES)
"""


@pytest.mark.slow  # a pytest session of its own
def test_a_sampled_test_that_never_passes_its_index_fails(pytester: pytest.Pytester) -> None:
    record(pytester.path / "answers.jsonl")
    pytester.makepyfile(test_index=SAMPLED_TEST)
    result = pytester.runpytest("-p", "no:cacheprovider", "--sampling-results=r.json")
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(
        [
            "*sample index unused: the 5 samples of test_index.py::test_unused never read "
            "their sample index*(ReplayModel(..., sample=replaygate_sample), or a RuleStub's "
            "Rule(..., sample=...))"
        ]
    )
    [used] = load_results(pytester.path / "r.json")  # the failed test makes no case
    assert (used.case, used.passes) == ("test_index.py::test_used", 4)


# -- signals only ----------------------------------------------------------------------


def test_run_sampled_warns_that_a_case_of_signals_only_gates_nothing() -> None:
    signal = contains_check(["context"], kind="signal")
    with pytest.warns(SamplingWarning, match="every check is a signal, so the case gates"):
        result = run_sampled(lambda i: "nothing", 3, 3, [signal], case="signals")
    assert result.verdict == "pass"  # the verdict is as computed: signals never gate
    with warnings.catch_warnings():  # a case with a gate is not warned
        warnings.simplefilter("error", SamplingWarning)
        run_sampled(lambda i: "[doc-rag] context", 3, 3, [CITES, signal], case="gated")


@pytest.mark.slow  # a pytest session of its own
def test_a_sampled_test_of_signals_only_is_warned(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_signals="""
import pytest
from replaygate.assertions import contains_check

SIGNAL = contains_check(["context"], kind="signal")

@pytest.mark.sampled(n=3, floor=3)
def test_signals(replaygate_sample, replaygate_checks):
    replaygate_checks.evaluate("nothing here", SIGNAL)
"""
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*SamplingWarning*every check is a signal, so the case gates*"])


# -- evaluate's arguments and a measure's message ----------------------------------------


def test_evaluate_refuses_checks_given_as_a_list() -> None:
    with pytest.raises(TypeError, match="a list, not a Check; checks are Check objects given"):
        SampleChecks(1).evaluate("no citation", [CITES])  # type: ignore[list-item]


def test_evaluate_refuses_the_output_and_a_check_swapped() -> None:
    with pytest.raises(TypeError, match="the output comes first"):
        SampleChecks(0).evaluate(CITES, "no citation")  # type: ignore[arg-type]


def test_two_checks_of_one_default_name_are_told_apart_from_one_evaluated_twice() -> None:
    # a gate and a signal both left named 'contains' read "check 'contains' was evaluated
    # twice", though each was evaluated once
    checks = SampleChecks(0)
    checks.evaluate("RAG", contains_check(["RAG"], kind="gate"))
    with pytest.raises(ValueError, match=r"two checks are named 'contains' in sample 0, a gate"):
        checks.evaluate("RAG", contains_check(["retriev"], kind="signal"))
    with pytest.raises(ValueError, match="check 'contains' was evaluated twice in sample 0"):
        checks.evaluate("RAG", contains_check(["RAG"], kind="gate"))  # the same, built anew


def test_a_check_named_assert_is_refused() -> None:
    # its outcomes were counted with the sample's plain assertions, as one gate 'assert':
    # a signal failed in sample 0 and an assert in sample 2 read 'failing: assert [gate] 2/3'
    named_assert = contains_check(["RAG"], kind="signal", name="assert")
    with pytest.raises(ValueError, match="a check is named 'assert', the name under which"):
        SampleChecks(0).evaluate("RAG", named_assert)
    with pytest.raises(ValueError, match="give the check another name"):
        run_sampled(lambda i: "RAG", 3, 2, [named_assert], case="rag")


@pytest.mark.parametrize("case", ["rag\nbasics", "rag\x1b[2J"])
def test_a_case_no_results_file_holds_is_refused_before_any_sample_runs(case: str) -> None:
    # every sample ran (perhaps live), then write_results refused the case's name
    ran: list[int] = []
    with pytest.raises(ValueError, match="case must hold no control character"):
        run_sampled(lambda i: ran.append(i) or "RAG", 3, 2, [CITES], case=case)
    assert ran == []


def test_an_output_read_once_is_refused_before_its_checks_read_it() -> None:
    # a streaming agent's generator: the first check read it all, and the gate that no
    # secret is in the answer passed on what was left, nothing
    def answer(sample: int) -> Any:
        yield "RAG [doc-rag] "
        yield "sk-SECRET"

    def no_secret(chunks: Any) -> None:
        assert "SECRET" not in "".join(chunks), "a secret in the answer"

    checks = [Check("cites", "gate", lambda chunks: None), Check("no-secret", "gate", no_secret)]
    with pytest.raises(TypeError, match=r"fn returned a generator, which is read once: .*list"):
        run_sampled(answer, 3, 3, checks)
    with pytest.raises(TypeError, match=r"evaluate got a map, which is read once"):
        SampleChecks(0).evaluate(map(str, "ab"), *checks)


class NoMessage:
    """A measure whose message is None."""

    passed, message, score = True, None, None


def test_a_measure_whose_message_is_not_text_is_refused_naming_the_check() -> None:
    check = Check("tone", "gate", lambda value: NoMessage())
    with pytest.raises(TypeError, match="check 'tone': the measure's message must be text"):
        check.evaluate("text")


# -- outputs no results file can hold ----------------------------------------------------


def nested(depth: int) -> list[Any]:
    outer: list[Any] = []
    inner = outer
    for _ in range(depth):
        inner.append([])
        inner = inner[0]
    return outer


@pytest.mark.parametrize(
    ("output", "kept"),
    [
        (nested(5000), "<output not kept: a list nested too deeply to be written>"),
        ({"count": 10**5000}, "<output not kept: a dict not writable as text (Exceeds"),
    ],
    ids=["deep", "huge-int"],
)
def test_an_output_that_cannot_be_written_is_kept_as_a_short_text(
    output: Any, kept: str, tmp_path: Path
) -> None:
    check = Check("any", "gate", lambda value: None)
    result = quiet_run(lambda i: output, 3, 2, [check], case="odd")
    assert all(sample.output.startswith(kept) for sample in result.samples)
    write_results(tmp_path / "r.json", [result])
    assert load_results(tmp_path / "r.json")[0].samples[0].output.startswith(kept)


def test_an_output_the_code_changes_later_is_kept_as_its_checks_saw_it() -> None:
    # one list the samples append to: every sample was written with the last one's items,
    # so the results and a calibration sheet showed sample 0 failing on a list it passed
    grown: dict[str, list[str]] = {"ids": []}

    def answer(sample: int) -> dict[str, list[str]]:
        grown["ids"].append(f"doc-{sample}")
        return grown

    check = Check("any", "gate", lambda value: None)
    result = quiet_run(answer, 3, 2, [check], case="grows")
    assert [s.output["ids"] for s in result.samples] == [
        ["doc-0"],
        ["doc-0", "doc-1"],
        ["doc-0", "doc-1", "doc-2"],
    ]
    checks = SampleChecks(0)
    checks.evaluate(grown, check)
    grown["ids"].clear()
    assert checks.result().output == {"ids": ["doc-0", "doc-1", "doc-2"]}
    # keys JSON writes alike: read back, one value would be lost
    assert jsonable({1: "a", "1": "b"}) == "{1: 'a', '1': 'b'}"


def test_an_output_nested_deeper_than_a_results_file_is_read_is_not_kept_on_any_python(
    tmp_path: Path,
) -> None:
    # Python 3.13 writes a list nested 1,100 levels as JSON (3.11 stops near a thousand,
    # and does not here, under a higher limit): it was kept, and the reader's 1,024
    # levels refused the whole results file
    check = Check("any", "gate", lambda value: None)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(20_000)
    deepest_kept = nested(KEPT_DEPTH - 1)
    try:
        result = quiet_run(lambda i: nested(1100), 3, 2, [check], case="odd")
        assert jsonable(deepest_kept) == deepest_kept
    finally:
        sys.setrecursionlimit(limit)
    assert result.samples[0].output == "<output not kept: a list nested too deeply to be written>"
    write_results(tmp_path / "r.json", [result])


# -- an interrupted session --------------------------------------------------------------


INTERRUPTED = """
import os
import pytest
from replaygate.assertions import citations_check

CITES = citations_check({"doc-rag"}, kind="gate")

@pytest.mark.sampled(n=3, floor=3)
def test_first(replaygate_sample, replaygate_checks):
    replaygate_checks.evaluate("[doc-rag]", CITES)

@pytest.mark.sampled(n=3, floor=3)
def test_second(replaygate_sample, replaygate_checks):
    replaygate_checks.evaluate("[doc-rag]", CITES)
    if os.environ.get("INTERRUPT"):
        raise KeyboardInterrupt
"""


@pytest.mark.slow  # pytest sessions of its own
def test_an_interrupted_session_keeps_the_last_results_file(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_int=INTERRUPTED)
    pytester.runpytest("-p", "no:cacheprovider", "--sampling-results=r.json")
    complete = (pytester.path / "r.json").read_text(encoding="utf-8")
    assert [c["case"] for c in json.loads(complete)["cases"]] == [
        "test_int.py::test_first",
        "test_int.py::test_second",
    ]
    monkeypatch.setenv("INTERRUPT", "1")  # the session ends as Ctrl-C ends it, in process
    result = pytester.runpytest_inprocess(
        "-p", "no:cacheprovider", "--sampling-results=r.json", no_reraise_ctrlc=True
    )
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert (pytester.path / "r.json").read_text(encoding="utf-8") == complete
    result.stdout.fnmatch_lines(
        ["*--sampling-results: the session was interrupted, so *r.json was not written*"]
    )


STOPPED = """
import pytest

@pytest.mark.sampled(n=2, floor=1)
def test_blocks(replaygate_sample):
    assert False

@pytest.mark.sampled(n=2, floor=1)
def test_never_runs(replaygate_sample):
    pass
"""


@pytest.mark.slow  # runs a pytest session of its own
def test_a_session_stopped_by_x_keeps_the_last_results_file(pytester: pytest.Pytester) -> None:
    """``-x`` ends a serial session as failed (a pytest-xdist one as interrupted): its
    results would hold the cases before the stop only, so neither writes them."""
    pytester.makepyfile(test_stop=STOPPED)
    (pytester.path / "r.json").write_text("", encoding="utf-8")
    result = pytester.runpytest("-p", "no:cacheprovider", "-x", "--sampling-results=r.json")
    result.stdout.fnmatch_lines(
        [
            "*--sampling-results: the session stopped early (stopping after 1 failures), "
            "so *r.json was not written*"
        ]
    )
    assert (pytester.path / "r.json").read_text(encoding="utf-8") == ""
