"""A results file written is a results file read: the writers refuse what the readers would.

``write_results`` and ``EvalResults.write`` wrote a case id that was no string, a check
name holding half of a surrogate pair, a message that was no string, an output whose
keys JSON makes one (``{1: 2, "1": 3}``) and NaN in a run's information, each a file
``load_results`` (or the eval reader) then refused: the run's results were lost only
when someone read them. The writers now read their text back through the readers'
own checks: each is refused, naming the field as the reader names it, and nothing is
written (a file already there is left as it was). A score beyond a float's range is
refused where the outcome is made, naming ``score``, instead of a bare OverflowError.
"""

from __future__ import annotations

import math
import re
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from replaygate.assertions import Check, contains_check
from replaygate.assertions.kinds import CATEGORIES, KINDS, Outcome
from replaygate.evals.errors import ResultsError
from replaygate.evals.results import CaseResult, EvalResults, load_eval_results
from replaygate.evals.scorers import CaseCounts
from replaygate.sampling import run_sampled
from replaygate.sampling.results import (
    ResultsFormatError,
    SampledResult,
    SampleResult,
    document_text,
    load_results,
    results_document,
    write_results,
)
from unicode_text import unicode_text

OLD = "an earlier file, kept as it was\n"
UNWRITTEN = "not written: the results: "


def sampled(fn: Callable[[int], Any], check: Check[Any], **case: Any) -> SampledResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the sample count advice
        return run_sampled(fn, 3, 1, [check], **case)


def with_message(message: Any) -> SampledResult:
    """A sampled case whose first outcome's message is ``message``: an outcome built by
    hand (a check refuses to make one whose message is no string)."""
    result = sampled(lambda i: "a", Check("c", "gate", lambda v: None))
    first = result.samples[0]
    outcome = replace(first.outcomes[0], message=message)
    return replace(result, samples=(replace(first, outcomes=(outcome,)), *result.samples[1:]))


def with_output(output: Any) -> SampledResult:
    """A sampled case whose first sample's output is ``output`` as given: set by hand (a
    sampled run keeps an output of keys JSON writes alike as its text)."""
    result = sampled(lambda i: "a", Check("c", "gate", lambda v: None))
    first = replace(result.samples[0], output=output)
    return replace(result, samples=(first, *result.samples[1:]))


def with_check_name(name: str) -> SampledResult:
    """A sampled case whose outcomes all name the check ``name``: outcomes built by hand (a
    check refuses to be made with a name no results file holds)."""
    result = sampled(lambda i: "a", contains_check(["a"], kind="gate", name="x"))
    samples = [
        replace(s, outcomes=tuple(replace(o, name=name) for o in s.outcomes))
        for s in result.samples
    ]
    return replace(result, samples=tuple(samples))


BAD_CASES: dict[str, Callable[[], SampledResult]] = {
    "case=None": lambda: replace(
        sampled(lambda i: "a", contains_check(["a"], kind="gate")), case=None
    ),
    "name=x\\ud800": lambda: with_check_name("x\ud800"),
    "message=5": lambda: with_message(5),
    "output {1: 2, '1': 3}": lambda: with_output({1: 2, "1": 3}),
}
REASONS = {
    "case=None": "cases[0].case: must be a non-empty string, got null",
    "name=x\\ud800": r"cases[0].assertions: a key holds \ud800, half of a surrogate pair",
    "message=5": "cases[0].sample_results[0].outcomes[0].message: must be a string, got 5",
    "output {1: 2, '1': 3}": (
        "not JSON this reader accepts: duplicate key cases[0].sample_results[0].output.1: "
        "an object names it twice; keep one"
    ),
}


def reader_reason(path: Path, text: str, read: Callable[[Path], object]) -> str:
    """What ``read`` says of a file holding ``text`` (the writer's text, written as it
    was before the writers checked it), after the file's name."""
    path.write_text(text, encoding="utf-8")
    with pytest.raises((ResultsFormatError, ResultsError)) as refused:
        read(path)
    return str(refused.value).removeprefix(f"{path}: ")


def refused_unwritten(write: Callable[[Path], object], folder: Path) -> str:
    """What ``write`` says refusing a file: an existing one is left as it was, a new
    one (in a new folder) not made; the words after ``not written: the results: ``."""
    kept = folder / "kept.json"
    kept.write_text(OLD, encoding="utf-8")
    with pytest.raises((ResultsFormatError, ResultsError)) as refused:
        write(kept)
    assert kept.read_text(encoding="utf-8") == OLD
    assert sorted(p.name for p in folder.iterdir()) == ["kept.json"]  # no temporary file
    message = str(refused.value)
    assert message.startswith(f"{kept}: {UNWRITTEN}"), message
    with pytest.raises((ResultsFormatError, ResultsError)):
        write(folder / "new" / "results.json")
    assert not (folder / "new").exists()
    return message.removeprefix(f"{kept}: {UNWRITTEN}")


@pytest.mark.parametrize("label", list(BAD_CASES))
def test_write_results_refuses_what_load_results_refuses_naming_the_same_field(
    label: str, tmp_path: Path
) -> None:
    result = BAD_CASES[label]()
    reason = refused_unwritten(lambda path: write_results(path, [result]), tmp_path)
    assert reason.startswith(REASONS[label]), reason
    text = document_text(results_document([result]))  # what was written before
    assert reason == reader_reason(tmp_path / "as-was.json", text, load_results)


@pytest.mark.parametrize("label", list(BAD_CASES))
def test_eval_results_write_refuses_what_the_eval_reader_refuses(
    label: str, tmp_path: Path
) -> None:
    result = BAD_CASES[label]()
    counts = CaseCounts(samples=result.n, passed=result.verdict == "pass")
    results = EvalResults((CaseResult(result, counts),), {"mode": "replay"})
    reason = refused_unwritten(results.write, tmp_path)
    assert reason.startswith(REASONS[label]), reason
    text = document_text(results.to_json())
    assert reason == reader_reason(tmp_path / "as-was.json", text, load_eval_results)


def eval_results(info: dict[str, Any]) -> EvalResults:
    result = sampled(lambda i: "a", Check("c", "gate", lambda v: None), case="c1")
    return EvalResults((CaseResult(result, CaseCounts(samples=3, passed=True)),), info)


@pytest.mark.parametrize(
    ("value", "written"), [(math.nan, "NaN"), (math.inf, "Infinity"), (-math.inf, "-Infinity")]
)
def test_eval_results_write_refuses_nan_in_the_run_info_naming_where(
    value: float, written: str, tmp_path: Path
) -> None:
    results = eval_results({"x": [1, {"y": value}]})
    reason = refused_unwritten(results.write, tmp_path)
    said = reader_reason(
        tmp_path / "as-was.json", document_text(results.to_json()), load_eval_results
    )
    refused = f"{written} is not a number JSON can hold"
    # the reader of a file names its line and column; the writer, which has the value, its path
    assert re.fullmatch(rf"{re.escape(reason)} at line \d+, column \d+", said), said
    assert reason == f"not JSON this reader accepts: eval.x[1].y: {refused}"


@pytest.mark.parametrize(
    ("output", "field", "reason"),
    [
        ({"a": [1, {2, 3}]}, "output.a[1]", "Object of type set is not JSON serializable"),
        ([10**5000], "output[0]", "Exceeds the limit"),
        ({(1, 2): "a"}, "output", "keys must be str, int, float, bool or None"),
    ],
    ids=["set", "5001 digits", "tuple key"],
)
def test_a_value_no_json_holds_is_refused_naming_where(
    output: Any, field: str, reason: str, tmp_path: Path
) -> None:
    # what the runners store is JSON or its repr; a SampleResult made by hand may hold
    # anything: refused, by its path, before anything is written
    result = SampledResult("c", 1, 1, (SampleResult(0, (), output),))
    said = refused_unwritten(lambda path: write_results(path, [result]), tmp_path)
    assert said.startswith(f"cases[0].sample_results[0].{field}: {reason}"), said


def test_an_output_inside_itself_is_refused(tmp_path: Path) -> None:
    loop: list[Any] = [1]
    loop.append(loop)
    result = SampledResult("c", 1, 1, (SampleResult(0, (), {"a": loop}),))
    said = refused_unwritten(lambda path: write_results(path, [result]), tmp_path)
    assert said == "cases[0].sample_results[0].output.a[1]: Circular reference detected"


def test_what_the_readers_read_is_written_as_before(tmp_path: Path) -> None:
    # an output or failure that is not valid text is kept (its JSON escape), as before
    result = sampled(lambda i: {"k": "RAG \ud800"}, Check("c", "gate", lambda v: None), case="c1")
    path = write_results(tmp_path / "results.json", [result])
    assert path.read_text(encoding="utf-8") == document_text(results_document([result]))
    assert load_results(path) == [result]
    written = eval_results({"time": "2026-11-30T06:08:09Z", "commit": None}).write(
        tmp_path / "eval.json"
    )
    assert load_eval_results(written).info["time"] == "2026-11-30T06:08:09Z"


@pytest.mark.parametrize("score", [10**400, -(10**400), 10**5000], ids=["401", "-401", "5001"])
def test_a_score_beyond_a_float_is_a_value_error_naming_score(score: int) -> None:
    with pytest.raises(ValueError, match=r"^score must be a finite number or None, got an integer"):
        Outcome("c", "gate", True, "", score)

    class Huge:
        passed, message = True, ""

    Huge.score = score  # type: ignore[attr-defined]
    check = Check("huge", "signal", lambda v: Huge())
    with pytest.raises(ValueError, match=r"^check 'huge': score must be a finite number"):
        check.evaluate("a")


# -- what the writer accepts, the reader reads back equal --------------------------------

TEXT = st.text(st.characters(), max_size=4)  # any code point: half a surrogate pair, controls
PRINTED = st.text(st.characters(exclude_categories=("Cs", "Cc")), min_size=1, max_size=6)
json_leaves = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**400), max_value=10**400)  # wider than a float: read as is
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT  # what a run gave is kept as it was, even half of a surrogate pair
)


def json_values(leaves: st.SearchStrategy[Any], *, one_key: bool) -> st.SearchStrategy[Any]:
    """Outputs from ``leaves``; with ``one_key``, objects whose two keys JSON makes one."""

    def extend(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        nested = st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3)
        return nested | st.builds(lambda v, w: {1: v, "1": w}, inner, inner) if one_key else nested

    return st.recursive(leaves, extend, max_leaves=8)


READABLE = {  # values every reader reads back as they are
    "name": PRINTED.filter(str.strip),
    "message": TEXT,
    "output": json_values(json_leaves, one_key=False),
    "description": unicode_text(max_size=4),
}
ANY = {  # and values some reader refuses: an empty or unprintable name, a message that is
    # no string, NaN, a set, an object of two keys JSON makes one, half a surrogate pair
    "name": TEXT | PRINTED,
    "message": TEXT | st.integers(-5, 5) | st.none(),
    "output": json_values(
        json_leaves | st.sampled_from([math.nan, math.inf, -math.inf, frozenset({1})]),
        one_key=True,
    ),
    "description": TEXT,
}


@st.composite
def sampled_results(draw: st.DrawFn, values: dict[str, st.SearchStrategy[Any]]) -> SampledResult:
    n = draw(st.integers(1, 3))
    floor = draw(st.integers(1, n))
    names = draw(st.lists(values["name"], min_size=1, max_size=3, unique=True))
    kinds = {name: draw(st.sampled_from(KINDS)) for name in names}
    categories = {name: draw(st.sampled_from(CATEGORIES)) for name in names}
    samples = []
    for index in range(n):
        if draw(st.integers(0, 4)) == 0:
            samples.append(SampleResult(index, failure=draw(TEXT)))
            continue
        outcomes = tuple(
            Outcome(
                name,
                kinds[name],
                draw(st.booleans()),
                draw(values["message"]),
                draw(st.none() | st.floats(allow_nan=False, allow_infinity=False)),
                categories[name],  # type: ignore[arg-type]
            )
            for name in names
        )
        # the output a check looked at where it is not the sample's (a second turn)
        own = st.dictionaries(st.integers(0, len(names) - 1), values["output"], max_size=2)
        samples.append(SampleResult(index, outcomes, draw(values["output"]), None, draw(own)))
    keys = st.sampled_from([*names, "not evaluated"])
    described = draw(st.dictionaries(keys, values["description"], max_size=3))
    case = draw(values["name"])
    return SampledResult(case, n, floor, tuple(samples), described)


def as_read(case: SampledResult) -> SampledResult:
    """``case`` as a results file holds it: the description of each assertion it counts."""
    return replace(case, descriptions={a.name: a.description for a in case.assertions()})


@given(
    cases=st.lists(sampled_results(READABLE), max_size=3)
    | st.lists(sampled_results(ANY) | sampled_results(READABLE), min_size=1, max_size=3)
    | st.builds(lambda case: [replace(case, case=None)], sampled_results(READABLE))
)
def test_what_write_results_accepts_load_results_reads_back_equal(
    cases: list[SampledResult],
) -> None:
    # and what it refuses, the reader refuses, saying the same
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "results.json"
        try:
            write_results(path, cases)
        except ResultsFormatError as err:
            event("refused")
            assert not path.exists()
            said = str(err).removeprefix(f"{path}: {UNWRITTEN}")
            try:
                text = document_text(results_document(cases))
            except (TypeError, ValueError):
                return  # no JSON text at all (a set, an integer of 5,000 digits)
            # the reader refuses the text the writer refused, for the same reason
            read = reader_reason(Path(folder) / "as-was.json", text, load_results)
            nan = "not JSON this reader accepts: "
            if read.startswith(nan) and "duplicate key" not in read:
                # the writer names the value's path, the reader its path, line and column
                refused = re.sub(r" at line \d+, column \d+$", "", read.removeprefix(nan))
                assert said.startswith(nan) and said.endswith(refused.rsplit(": ")[-1]), said
            else:
                assert said == read
            return
        event("accepted")
        assert load_results(path) == [as_read(case) for case in cases]
