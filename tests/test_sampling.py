"""Verdicts, the library runner on recorded 5-sample fixtures, results, queue, advice."""

from __future__ import annotations

import errno
import json
import os
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from replaygate.assertions import Check, citations_check, contains_check, structure_check
from replaygate.cli.assert_cmds import calibrate
from replaygate.errors import FixtureMismatchError
from replaygate.evals.results import load_eval_results
from replaygate.fixtures.store import FixtureStore
from replaygate.models.fakes import ScriptedModel
from replaygate.models.replay import RecordingModel, ReplayModel
from replaygate.models.types import Message, ModelResponse
from replaygate.sampling import (
    Observation,
    ResultsFormatError,
    SampleChecks,
    SampledResult,
    SampleResult,
    SampleSpec,
    SamplingWarning,
    append_observation,
    load_results,
    read_queue,
    run_sampled,
    sample_count_advice,
    verdict_of,
    write_results,
)
from replaygate.sampling.calibration import CalibrationError, export_sheet

SETTINGS: dict[str, object] = {"model": "claude-sonnet-4-5", "max_tokens": 64}
CITED = "RAG retrieves passages first [doc-rag]."
UNCITED = "RAG retrieves passages first."
CITES = citations_check(["doc-rag"], kind="gate")
MENTIONS_CONTEXT = contains_check(["context"], kind="signal")
# the cases of this module that check it alone are about what their files hold, not gates
pytestmark = pytest.mark.filterwarnings(
    "ignore:.*every check is a signal, so the case gates nothing:UserWarning"
)
# which of the 5 samples cite their source, per question
PATTERNS = {
    "pass?": [True, True, False, True, True],
    "observe?": [False, True, False, False, True],
    "block?": [False] * 5,
}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One fixture per question, 5 samples each, recorded through RecordingModel."""
    path = tmp_path_factory.mktemp("sampled") / "answers.jsonl"
    for question, cited in PATTERNS.items():
        for sample, ok in enumerate(cited):
            live = ScriptedModel([ModelResponse(text=CITED if ok else UNCITED)])
            recorder = RecordingModel(live, path, approve_live=True, sample=sample, **SETTINGS)  # type: ignore[arg-type]
            recorder.complete([Message.user(question)], [])
    return path


def answer(store: Path, question: str, sample: int) -> str:
    model = ReplayModel(store, sample=sample, **SETTINGS)  # type: ignore[arg-type]
    return model.complete([Message.user(question)], []).text


# -- verdicts ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("passes", "verdict"), [(5, "pass"), (4, "pass"), (3, "observe"), (1, "observe"), (0, "block")]
)
def test_verdict_of(passes: int, verdict: str) -> None:
    assert verdict_of(passes, 5, 4) == verdict


def test_declarations_are_validated() -> None:
    with pytest.raises(ValueError, match="floor must be between 1 and n=5, got 6"):
        SampleSpec(5, 6)
    with pytest.raises(ValueError, match="n must be at least 1, got 0"):
        SampleSpec(0, 1)
    with pytest.raises(ValueError, match=r"floor must be an integer, got 3.5"):
        SampleSpec(5, 3.5)  # type: ignore[arg-type]
    with pytest.raises(
        ValueError, match=r"got 0.8; the floor counts samples, not a rate: .*floor=4"
    ):
        SampleSpec(5, 0.8)  # type: ignore[arg-type]
    # a floor given as a percent, or as the rate 1.0, named no count to give instead
    with pytest.raises(ValueError, match=r"got 80; the floor counts samples, not a percent: "):
        SampleSpec(5, 80)
    with pytest.raises(ValueError, match=r"how many of the n=10 samples .*\(floor=8 for 75%\)"):
        SampleSpec(10, 75)
    with pytest.raises(ValueError, match=r"got 1.0; the floor counts samples, not a rate"):
        SampleSpec(5, 1.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"n=5, got 6$"):
        SampleSpec(5, 6)
    with pytest.raises(ValueError, match="passes must be between 0 and n=5, got 6"):
        verdict_of(6, 5, 4)


# -- run_sampled on recorded 5-sample fixtures -------------------------------------------


def test_recorded_fixture_holds_5_samples(store: Path) -> None:
    assert [fixture.samples for fixture in FixtureStore.open(store)] == [5] * len(PATTERNS)


@pytest.mark.parametrize(
    ("question", "passes", "verdict"),
    [("pass?", 4, "pass"), ("observe?", 2, "observe"), ("block?", 0, "block")],
)
def test_run_sampled_verdicts(store: Path, question: str, passes: int, verdict: str) -> None:
    result = run_sampled(
        lambda i: answer(store, question, i), 5, 4, [CITES, MENTIONS_CONTEXT], case=question
    )
    assert (result.passes, result.verdict) == (passes, verdict)
    assert [s.passed for s in result.samples] == PATTERNS[question]
    cites, mentions = result.assertions()
    assert (cites.name, cites.kind, cites.passes, cites.samples) == ("citations", "gate", passes, 5)
    assert (mentions.kind, mentions.passes) == ("signal", 0)  # a failing signal never blocks


def test_summary_names_the_failing_assertions(store: Path) -> None:
    result = run_sampled(lambda i: answer(store, "observe?", i), 5, 4, [CITES], case="observe?")
    assert result.summary() == (
        "observe?: 2/5 samples passed (floor 4) -> observe; failing: citations [gate] 2/5"
    )


def test_more_samples_than_recorded_is_a_loud_mismatch(store: Path) -> None:
    with pytest.raises(
        FixtureMismatchError,
        match=r"no response for sample 5 \(recorded samples: \[0, 1, 2, 3, 4\]\)",
    ) as err:
        run_sampled(lambda i: answer(store, "pass?", i), 6, 4, [CITES], case="six")
    assert "raised in sample 5 of 6 of case six" in err.value.__notes__


def test_an_assertion_error_in_fn_fails_only_that_sample() -> None:
    def fn(i: int) -> str:
        assert i != 2, "sample two is broken"
        return CITED

    result = run_sampled(fn, 5, 4, [CITES])
    assert [s.passed for s in result.samples] == [True, True, False, True, True]
    assert (result.samples[2].failure or "").startswith("sample two is broken")
    assert result.samples[2].failing() == ["assert"]
    assert result.assertions()[-1].name == "assert"


def test_no_checks_is_refused_as_a_pass_that_checked_nothing() -> None:
    with pytest.raises(ValueError, match="case rag: no checks given, so every sample would pass"):
        run_sampled(lambda i: CITED, 3, 2, [], case="rag")
    checks = SampleChecks(1)
    with pytest.raises(
        ValueError, match="evaluate got no check in sample 1: the sample would pass"
    ):
        checks.evaluate(CITED)
    assert checks.result().outcomes == ()


@pytest.mark.parametrize(
    ("checks", "message"),
    [
        (CITES, "case rag: checks must be a list of Check objects, got a Check: give one check as"),
        ("citations", "case rag: checks must be a list of Check objects, got a str"),
        ([[CITES]], r"case rag: checks\[0\] is a list, not a Check"),
    ],
)
def test_checks_that_are_no_list_of_checks_are_named(checks: Any, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        run_sampled(lambda i: CITED, 3, 2, checks, case="rag")


def test_errors_of_a_run_without_a_case_name_name_no_case() -> None:
    # they read "case case: checks must be a list ...", the default name taken for one
    with pytest.raises(TypeError) as err:
        run_sampled(lambda i: CITED, 3, 2, CITES)  # type: ignore[arg-type]
    assert str(err.value).startswith("checks must be a list of Check objects, got a Check")
    with pytest.raises(ValueError) as err_none:
        run_sampled(lambda i: CITED, 3, 2, [])
    assert str(err_none.value).startswith("no checks given, so every sample would pass")
    with pytest.raises(KeyError) as raised:
        run_sampled(lambda i: {}["x"], 3, 2, [CITES])
    assert raised.value.__notes__ == ["raised in sample 0 of 3"]
    assert run_sampled(lambda i: CITED, 3, 2, [CITES]).case == "case"


def test_an_async_fn_is_refused_not_its_coroutine_judged() -> None:
    # An async agent's answer (a notebook's code is often async): the checks judged the
    # coroutine, "the text to search must be a string, got coroutine ... raised by check",
    # and Python warned that it was never awaited.
    async def answer(sample: int) -> str:
        return CITED

    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # closed: no "never awaited"
        with pytest.raises(TypeError) as err:
            run_sampled(answer, 3, 2, [CITES], case="rag")
    assert str(err.value).startswith(
        "fn returned a coroutine, not its output: run_sampled calls fn(i) without await"
    )
    assert err.value.__notes__ == ["raised in sample 0 of 3 of case rag"]


def test_an_async_generator_and_an_unawaited_output_to_evaluate_are_refused() -> None:
    # a streaming agent (async def with yield), and a sync test that forgot to await: a
    # check that takes any output passed them, unread
    from replaygate.sampling.recorder import SampleChecks

    async def stream(sample: int) -> Any:
        yield CITED

    anything = Check("any", "gate", lambda output: None)
    with pytest.raises(TypeError, match=r"^fn returned an async_generator, not its output"):
        run_sampled(stream, 3, 2, [anything], case="rag")

    async def answer() -> str:
        return CITED

    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # closed: no "never awaited"
        with pytest.raises(TypeError, match=r"^evaluate got a coroutine, not its output"):
            SampleChecks().evaluate(answer(), anything)


@pytest.mark.parametrize("case", ["", "  "])
def test_a_case_name_no_results_file_holds_is_refused_before_any_sample(case: str) -> None:
    ran: list[int] = []
    with pytest.raises(ValueError, match=r"^case must"):
        run_sampled(ran.append, 3, 2, [CITES], case=case)
    assert ran == []


def test_checks_given_as_a_generator_are_all_evaluated() -> None:
    result = run_sampled(lambda i: CITED, 3, 2, (c for c in [CITES]), case="rag")
    assert [o.name for o in result.samples[0].outcomes] == [CITES.name]


def test_a_check_that_raises_is_named_with_its_case_and_sample() -> None:
    # a model turn holding only tool calls gives no text: sample 2's output is None
    outputs = ["context", "Context", None]
    seen = Check("seen", "signal", lambda output: None)
    broken = contains_check(["context"], kind="gate", name="mentions")
    with pytest.raises(TypeError, match="the text to search must be a string") as err:
        run_sampled(lambda i: outputs[i], 3, 2, [seen, broken], case="rag")
    assert err.value.__notes__ == [
        "raised by check 'mentions'",
        "raised in sample 2 of 3 of case rag",
    ]


def test_duplicate_check_names_are_refused() -> None:
    with pytest.raises(ValueError, match="two checks are named 'citations'"):
        run_sampled(lambda i: CITED, 3, 2, [CITES, citations_check(["doc-b"], kind="signal")])


def test_sample_count_warnings() -> None:
    with pytest.warns(SamplingWarning, match="2 sample\\(s\\) on a semantic assertion cannot tell"):
        run_sampled(lambda i: CITED, 2, 2, [CITES])
    with pytest.warns(SamplingWarning, match="only structure checks, sampled 5 times"):
        run_sampled(lambda i: {}, 5, 4, [structure_check({"type": "object"}, kind="gate")])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run_sampled(lambda i: CITED, 5, 4, [CITES])
        run_sampled(lambda i: {}, 1, 1, [structure_check({"type": "object"}, kind="gate")])
    assert sample_count_advice("c", 1, None) is not None  # unknown checks count as semantic
    # checks seen before every sample stopped at a failed gate: more may follow, no advice
    assert sample_count_advice("c", 5, ["structure"], complete=False) is None
    assert "semantic" in (sample_count_advice("c", 2, ["structure", "set"], complete=False) or "")


# -- results JSON ------------------------------------------------------------------------


def test_results_round_trip_through_json(store: Path, tmp_path: Path) -> None:
    result = run_sampled(
        lambda i: answer(store, "observe?", i), 5, 4, [CITES, MENTIONS_CONTEXT], case="observe?"
    )
    path = write_results(tmp_path / "out" / "results.json", [result])
    document = json.loads(path.read_text())
    assert (document["format"], document["version"]) == ("replaygate.sampling.results", 1)
    case = document["cases"][0]
    assert {k: case[k] for k in ("case", "samples", "floor", "passes", "verdict")} == {
        "case": "observe?", "samples": 5, "floor": 4, "passes": 2, "verdict": "observe",
    }  # fmt: skip
    assert case["assertions"]["citations"] == {
        "kind": "gate", "category": "set", "passes": 2, "samples": 5,
        "description": "the extracted set covers {doc-rag}",
    }  # fmt: skip
    assert case["sample_results"][0]["output"] == UNCITED
    assert load_results(path) == [result]


def test_an_output_that_is_not_valid_text_is_written_and_read_back(tmp_path: Path) -> None:
    # half of a surrogate pair, as a JSON reply with a bad escape decodes: a session's
    # results must not end in a UnicodeEncodeError when they are written
    broken = "RAG \ud800 retrieves"
    result = run_sampled(lambda i: broken, 3, 2, [MENTIONS_CONTEXT], case="broken")
    path = write_results(tmp_path / "results.json", [result])
    assert "RAG \\ud800 retrieves" in path.read_text(encoding="utf-8")
    assert load_results(path)[0].samples[0].output == broken
    sheet, _, _, _, _ = export_sheet(path, tmp_path / "sheet.csv", n=1, seed=1)
    assert "RAG \\ud800 retrieves" in sheet.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "spoil",
    [
        lambda case: case.__setitem__("case", "rag \ud800"),
        lambda case: case["assertions"]["contains"].__setitem__("description", "a \udc00"),
        lambda case: case["sample_results"][0]["outcomes"][0].__setitem__("name", "c\ud800"),
    ],
    ids=["case", "description", "assertion name"],
)
def test_a_name_that_is_not_valid_text_is_refused_naming_the_file(
    tmp_path: Path, spoil: Callable[[dict[str, Any]], None], request: pytest.FixtureRequest
) -> None:
    # the JSON escape \ud800 is valid JSON but no text: an assertion name or description
    # could not be written to a calibration sheet; a sample's output and an assertion's
    # message (what the run gave) are kept as they were
    result = run_sampled(lambda i: "context", 3, 2, [MENTIONS_CONTEXT], case="rag")
    path = write_results(tmp_path / "results.json", [result])
    document = json.loads(path.read_text(encoding="utf-8"))
    document["cases"][0]["sample_results"][0]["outcomes"][0]["message"] = "got \ud800"
    document["cases"][0]["sample_results"][1].update(failure="got \ud800", passed=False)
    path.write_text(json.dumps(document), encoding="utf-8")
    assert load_results(path)[0].samples[1].failure == "got \ud800"
    spoil(document["cases"][0])
    path.write_text(json.dumps(document), encoding="utf-8")
    field = {
        "case": r"case",
        "description": r"assertions\.contains\.description",
        "assertion name": r"sample_results\[0\]\.outcomes\[0\]\.name",
    }[request.node.callspec.id]
    with pytest.raises(ResultsFormatError, match=rf"results\.json: cases\[0\]\.{field}: holds \\u"):
        load_results(path)
    sheet = str(tmp_path / "s.csv")
    out = CliRunner().invoke(calibrate, ["export", str(path), "--seed", "1", "--out", sheet])
    assert out.exit_code == 2, out.output
    assert "half of a surrogate pair" in out.output
    assert not (tmp_path / "s.csv").exists()


def test_what_a_run_gave_as_broken_text_is_read_back_by_the_eval_reader(tmp_path: Path) -> None:
    # a failure or an assertion message holding half of a surrogate pair is kept as it
    # was; gate, baseline update and upgrade read results files through the eval reader
    def fails(index: int) -> str:
        raise AssertionError("got \udc80 back")

    result = run_sampled(fails, 3, 2, [MENTIONS_CONTEXT], case="rag")
    path = write_results(tmp_path / "results.json", [result])
    assert load_results(path)[0].samples[0].failure == result.samples[0].failure
    (case,) = load_eval_results(path).cases
    assert case.id == "rag" and "\udc80" in str(result.samples[0].failure)
    assert case.sampled.samples[0].failure == result.samples[0].failure


def test_non_json_outputs_are_stored_as_repr(tmp_path: Path) -> None:
    result = run_sampled(lambda i: {1, 2}, 3, 2, [Check("seen", "signal", lambda output: None)])
    assert result.samples[0].output == "{1, 2}"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "not JSON: Expecting property name"),
        ('{"format": "x"}', "format: 'x' is none of replaygate's documents, where a results"),
        ("[]", "holds a list, where a results file"),
        ('{"format": "replaygate.sampling.results", "version": 9}', "version 9 was written by a"),
        # Python compares true and 1.0 equal to 1: neither is read as version 1
        (
            '{"format": "replaygate.sampling.results", "version": true, "cases": []}',
            "version: must be an integer, got true$",
        ),
        (
            '{"format": "replaygate.sampling.results", "version": 1.0, "cases": []}',
            "version: must be an integer, got 1.0$",
        ),
        (
            '{"format": "replaygate.sampling.results", "version": 1, "cases": [{"case": "c"}]}',
            r"cases\[0\]\.samples: is missing; it must be an integer",
        ),
        (  # a careless edit must not read as a passed outcome
            '{"format": "replaygate.sampling.results", "version": 1, "cases": [{"case": "c", '
            '"samples": 1, "floor": 1, "sample_results": [{"index": 0, "outcomes": '
            '[{"name": "cites", "kind": "gate", "passed": "false"}]}]}]}',
            r"cases\[0\]\.sample_results\[0\]\.outcomes\[0\]\.passed: must be true or false",
        ),
        (
            '{"format": "replaygate.sampling.results", "version": 1, "cases": [[]]}',
            r"cases\[0\]: must be an object, got a list",
        ),
        (  # beyond a float's range: no Python error's name (OverflowError) in the message
            '{"format": "replaygate.sampling.results", "version": 1, "cases": [{"case": "c", '
            '"samples": 1, "floor": 1, "sample_results": [{"index": 0, "outcomes": [{"name": '
            '"cites", "kind": "gate", "passed": true, "score": 1%s}]}]}]}' % ("0" * 400),
            r"cases\[0\]\.sample_results\[0\]\.outcomes\[0\]\.score: must be a number or "
            "null, got an integer of 401 digits$",
        ),
    ],
)
def test_bad_results_files_are_named(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "r.json"
    path.write_text(content)
    with pytest.raises(ResultsFormatError, match=f"{path}: {message}"):
        load_results(path)
    with pytest.raises(ResultsFormatError, match="cannot read results"):
        load_results(tmp_path / "absent.json")


def test_a_history_database_given_as_results_is_named_as_one(tmp_path: Path) -> None:
    # `calibrate export .replaygate/history.db` said "not UTF-8 text (byte 0xf8 at line
    # 3, column 7)", and a baseline "not a replaygate results file (format ...)".
    path = tmp_path / "history.db"
    path.write_bytes(b"SQLite format 3\x00" + b"\xf8" * 100)
    with pytest.raises(ResultsFormatError, match=f"{path}: holds a SQLite database"):
        load_results(path)
    path.write_text('{"format": "replaygate.eval.baseline", "version": 1}')
    with pytest.raises(ResultsFormatError, match=r"format: 'replaygate\.eval\.baseline': holds a"):
        load_results(path)


def test_a_result_must_hold_n_samples() -> None:
    with pytest.raises(ValueError, match="case c: 1 sample\\(s\\) for n=2"):
        SampledResult("c", 2, 1, (SampleResult(0),))


# -- the observation queue ---------------------------------------------------------------


def test_queue_append_and_read(store: Path, tmp_path: Path) -> None:
    result = run_sampled(lambda i: answer(store, "observe?", i), 5, 4, [CITES], case="observe?")
    entry = Observation.of(result, time="2026-01-01T00:00:00Z")
    queue = tmp_path / ".replaygate" / "observe.jsonl"
    append_observation(queue, entry)
    append_observation(queue, entry)
    assert json.loads(queue.read_text().splitlines()[0]) == {
        "case": "observe?", "passes": 2, "samples": 5, "floor": 4, "time": "2026-01-01T00:00:00Z",
        "failing": [{"name": "citations", "kind": "gate", "passes": 2, "samples": 5}],
    }  # fmt: skip
    assert read_queue(queue) == [entry, entry]
    assert entry.summary() == "observe?: 2/5 passed, floor 4; failing: citations 2/5"
    assert read_queue(tmp_path / "none.jsonl") == []
    queue.write_text('{"case": "x"}\n')
    with pytest.raises(ValueError, match=r"observe.jsonl:1: not an observation"):
        read_queue(queue)
    for line, message in (
        ('{"case": "x", "passes": true, "samples": 5, "floor": 4, "failing": [], "time": "t"}',
         "passes: must be an integer, got True"),
        ('{"case": "x", "passes": 2, "samples": 5, "floor": 4, "failing": "gate", "time": "t"}',
         "failing: must be a list, got 'gate'"),
        ('{"case": "x", "passes": 2, "samples": 5, "floor": 4, "failing": [{}], "time": "t"}',
         r"failing\[0\].name: is missing"),
    ):  # fmt: skip
        queue.write_text(line + "\n")
        with pytest.raises(ValueError, match=rf"observe.jsonl:1: not an observation: {message}"):
            read_queue(queue)
    queue.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(ValueError, match=r"observe.jsonl:1: not an observation"):
        read_queue(queue)
    queue.unlink()
    queue.mkdir()
    with pytest.raises(ValueError, match=r"observe.jsonl: cannot read the queue: is a folder"):
        read_queue(queue)


def test_an_append_after_a_line_left_without_its_newline_damages_neither(
    store: Path, tmp_path: Path
) -> None:
    result = run_sampled(lambda i: answer(store, "observe?", i), 5, 4, [CITES], case="observe?")
    entry = Observation.of(result, time="2026-01-01T00:00:00Z")
    queue = tmp_path / "observe.jsonl"
    append_observation(queue, entry)
    queue.write_text(queue.read_text().rstrip("\n"))  # an editor that drops the last newline
    append_observation(queue, entry)
    assert read_queue(queue) == [entry, entry]


def test_a_failed_append_leaves_the_queue_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry = Observation("c", 1, 3, 2, (), "2026-01-01T00:00:00Z")
    queue = tmp_path / "observe.jsonl"
    append_observation(queue, entry)
    before = queue.read_bytes()

    def disk_full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OSError, match="No space left on device"):
        append_observation(queue, entry)
    assert queue.read_bytes() == before


def test_a_case_id_that_is_not_valid_text_is_queued_and_read_back(tmp_path: Path) -> None:
    # a test module whose file name is not UTF-8: its node id holds \udce9; queueing its
    # observe verdict must not end the pytest session in a UnicodeEncodeError
    result = run_sampled(lambda i: "context" * (i % 2), 3, 3, [MENTIONS_CONTEXT], case="caf\udce9")
    entry = Observation.of(result, time="2026-01-01T00:00:00Z")
    queue = tmp_path / "observe.jsonl"
    append_observation(queue, entry)
    assert '"case": "caf\\udce9"' in queue.read_text(encoding="utf-8")
    assert read_queue(queue) == [entry]


# -- the in-test recorder ----------------------------------------------------------------


def test_sample_checks_raise_on_failed_gates_only() -> None:
    checks = SampleChecks(3)
    outcomes = checks.evaluate(UNCITED, MENTIONS_CONTEXT)
    assert not outcomes[0].passed
    with pytest.raises(AssertionError, match=r"gate 'citations' failed: recall 0.00"):
        checks.evaluate(UNCITED, CITES)
    result = checks.result("gate 'citations' failed")
    assert (result.index, result.passed, result.failure, result.output) == (3, False, None, UNCITED)
    with pytest.raises(ValueError, match="check 'citations' was evaluated twice in sample 3"):
        checks.evaluate(CITED, CITES)


def test_checks_on_a_field_of_the_output_keep_the_field(tmp_path: Path) -> None:
    raw = '{"summary": "RAG retrieves first [doc-rag]."}'
    checks = SampleChecks(0)
    checks.evaluate(raw, structure_check({"type": "object"}, kind="gate", from_json=True))
    checks.evaluate(json.loads(raw)["summary"], CITES, MENTIONS_CONTEXT)
    checks.evaluate(raw, contains_check(["summary"], kind="signal", name="raw"))
    sample = checks.result()
    assert sample.output == raw
    assert sample.outputs == {1: json.loads(raw)["summary"], 2: json.loads(raw)["summary"]}
    # one output for every check: the file is written as before, no outcome holds one
    same = SampleChecks(0)
    same.evaluate(CITED, CITES)
    same.evaluate(CITED, MENTIONS_CONTEXT)
    results = write_results(tmp_path / "r.json", [SampledResult("c", 1, 1, (same.result(),))])
    stored = json.loads(results.read_text(encoding="utf-8"))["cases"][0]["sample_results"][0]
    assert ["output" in o for o in stored["outcomes"]] == [False, False]


def test_calibrate_export_never_writes_over_a_file_that_is_no_sheet(tmp_path: Path) -> None:
    result = run_sampled(lambda i: "context", 3, 2, [MENTIONS_CONTEXT], case="rag")
    results = write_results(tmp_path / "results.json", [result])
    module = tmp_path / "test_agent.py"
    module.write_text("def test_a():\n    pass\n")
    with pytest.raises(CalibrationError, match=r"test_agent\.py: is not a calibration sheet"):
        export_sheet(results, module, n=1, seed=1)
    assert module.read_text() == "def test_a():\n    pass\n"
    (tmp_path / "sheet.verdicts.json").write_text('{"format": "other"}\n')
    with pytest.raises(CalibrationError, match=r"sheet\.verdicts\.json: holds no calibration"):
        export_sheet(results, tmp_path / "sheet.csv", n=1, seed=1)
    assert not (tmp_path / "sheet.csv").exists()
    sheet, side, _, _, _ = export_sheet(results, tmp_path / "again.csv", n=1, seed=1)
    assert export_sheet(results, sheet, n=1, seed=2)[1] == side  # an unlabelled sheet: redrawn
