"""The sampling pytest plugin: verdicts, queue, summary, results, usage errors, reruns."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from nested_pytest import sessions_loading
from replaygate.models.fakes import ScriptedModel
from replaygate.models.replay import RecordingModel
from replaygate.models.types import Message, ModelResponse

# Each test runs pytest itself on a project of its own (pytester): end to end.
pytestmark = pytest.mark.slow


# what the sessions import, loaded once (pytester forgets what each session imports):
# the checks and the schema library a structure check validates with, the sampling
# advice, and the installed plugins the autoload_plugins tests' sessions load
sessions_find_their_modules = sessions_loading(
    "replaygate.assertions.checks",
    "replaygate.assertions.structure",
    "jsonschema",
    "replaygate.sampling.advice",
    "replaygate.sampling.index_use",
    "pytest_rerunfailures",
    "anyio.pytest_plugin",
    "pytest_recording.plugin",
)


SETTINGS: dict[str, object] = {"model": "claude-sonnet-4-5", "max_tokens": 64}
PATTERNS = {
    "pass?": [True, True, False, True, True],
    "observe?": [False, True, False, False, True],
    "block?": [False] * 5,
}

HEADER = """
import pytest
from replaygate.assertions import citations_check, contains_check
from replaygate.models.replay import ReplayModel
from replaygate.models.types import Message

CITES = citations_check(["doc-rag"], kind="gate")
CONTEXT = contains_check(["context"], kind="signal")


def answer(question, sample):
    model = ReplayModel("answers.jsonl", model="claude-sonnet-4-5", max_tokens=64, sample=sample)
    return model.complete([Message.user(question)], []).text
"""

VERDICTS = (
    HEADER
    + """
@pytest.mark.sampled(n=5, floor=4)
def test_pass(replaygate_sample, replaygate_checks):
    replaygate_checks.evaluate(answer("pass?", replaygate_sample), CITES, CONTEXT)


@pytest.mark.sampled(n=5, floor=4)
def test_observe(replaygate_sample, replaygate_checks):
    replaygate_checks.evaluate(answer("observe?", replaygate_sample), CITES, CONTEXT)


@pytest.mark.sampled(n=5, floor=4)
def test_block(replaygate_sample, replaygate_checks):
    replaygate_checks.evaluate(answer("block?", replaygate_sample), CITES)
"""
)


def record_samples(path: Path) -> Path:
    """The 5-sample fixtures of :data:`PATTERNS`, recorded into ``path``."""
    for question, cited in PATTERNS.items():
        for sample, ok in enumerate(cited):
            text = "RAG retrieves first [doc-rag]." if ok else "RAG retrieves first."
            live = ScriptedModel([ModelResponse(text=text)])
            recorder = RecordingModel(live, path, approve_live=True, sample=sample, **SETTINGS)  # type: ignore[arg-type]
            recorder.complete([Message.user(question)], [])
    return path


@pytest.fixture
def recorded(pytester: pytest.Pytester) -> Path:
    """5-sample fixtures recorded into the pytester folder."""
    return record_samples(pytester.path / "answers.jsonl")


def test_pass_observe_block_on_recorded_samples(pytester: pytest.Pytester, recorded: Path) -> None:
    pytester.makepyfile(test_verdicts=VERDICTS)
    result = pytester.runpytest("--sampling-results=out/results.json")
    assert result.parseoutcomes() == {"passed": 1, "failed": 1, "observed": 1, "warnings": 1}
    lines = result.stdout.lines
    assert " replaygate sampled cases =" in lines[lines.index("1 pass, 1 observe, 1 block") - 1]
    for expected in (
        "test_verdicts.py .oF",
        "test_verdicts.py::test_block: 0/5 samples passed (floor 4) -> block; "
        "failing: citations [gate] 0/5 (every sample failed)",
        "  sample 0: citations: recall 0.00 < min_recall 1.00 (recall 0.00, precision 1.00); "
        "missing: ['doc-rag']; extra: []",
        "observe: test_verdicts.py::test_observe: 2/5 passed, floor 4; "
        "failing: citations 2/5, contains 0/5",
        f"observation queue: {pytester.path / '.replaygate' / 'observe.jsonl'}",
    ):
        assert any(line.startswith(expected) for line in lines), expected
    assert (
        "ObserveWarning: observe: test_verdicts.py::test_observe: 2/5 samples passed"
        in result.stdout.str()
    )
    # the warning names each sample that failed and why, as --observe-fails' failure does
    warned = lines.index(next(line for line in lines if "ObserveWarning: observe:" in line))
    assert [line.strip()[:27] for line in lines[warned + 1 : warned + 4]] == [
        f"sample {i}: citations: recall" for i in (0, 2, 3)
    ]
    queue = (pytester.path / ".replaygate" / "observe.jsonl").read_text().splitlines()
    assert len(queue) == 1
    entry = json.loads(queue[0])
    assert {k: entry[k] for k in ("case", "passes", "samples", "floor")} == {
        "case": "test_verdicts.py::test_observe", "passes": 2, "samples": 5, "floor": 4,
    }  # fmt: skip
    assert entry["failing"][0] == {"name": "citations", "kind": "gate", "passes": 2, "samples": 5}
    assert entry["time"].endswith("Z")
    cases = json.loads((pytester.path / "out" / "results.json").read_text())["cases"]
    assert [(c["case"].split("::")[1], c["passes"], c["verdict"]) for c in cases] == [
        ("test_pass", 4, "pass"), ("test_observe", 2, "observe"), ("test_block", 0, "block"),
    ]  # fmt: skip
    assert cases[0]["assertions"]["contains"] == {
        "kind": "signal", "category": "contains", "passes": 0, "samples": 5,
        "description": "the text mentions each of 'context'",
    }  # fmt: skip


def test_observe_fails_makes_observe_fail(pytester: pytest.Pytester, recorded: Path) -> None:
    pytester.makepyfile(test_verdicts=VERDICTS)
    result = pytester.runpytest("--observe-fails", "--observe-queue=q.jsonl", "-k", "observe")
    result.assert_outcomes(failed=1, deselected=2)
    assert (
        "2/5 samples passed (floor 4) -> observe; failing: citations [gate] 2/5, "
        "contains [signal] 0/5 (fewer samples passed than the floor, and --observe-fails is on)"
    ) in result.stdout.str()
    assert "  sample 0: citations: recall 0.00" in result.stdout.str()
    assert len((pytester.path / "q.jsonl").read_text().splitlines()) == 1


def test_the_plugin_is_inert_for_other_tests(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_plain():\n    assert True\n")
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)
    assert "replaygate sampled" not in result.stdout.str()
    assert not (pytester.path / ".replaygate").exists()


def test_plain_asserts_and_pytest_fail_count_as_failed_samples(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.sampled(n=4, floor=3)
        def test_plain(replaygate_sample):
            if replaygate_sample == 1:
                pytest.fail("sample one failed")
            assert replaygate_sample != 2, "sample two failed"
        """
    )
    result = pytester.runpytest("--observe-fails", "--sampling-results=r.json")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "2/4 samples passed (floor 3) -> observe; failing: assert [gate] 2/4 (" in out
    assert "  sample 1: sample one failed\n  sample 2: sample two failed\n    assert 2 != 2" in out
    case = json.loads((pytester.path / "r.json").read_text())["cases"][0]
    assert [s["failure"] is None for s in case["sample_results"]] == [True, False, False, True]


def test_an_error_in_a_sample_is_an_error_not_a_failed_sample(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.sampled(n=5, floor=4)
        def test_broken(replaygate_sample):
            if replaygate_sample == 3:
                raise KeyError("no such fixture")
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*KeyError: 'no such fixture'", "E * raised in sample 3 of 5; no sample is retried"]
    )
    # the summary's counts of verdicts do not leave it out as if no sampled test failed
    result.stdout.fnmatch_lines(
        [
            "*= replaygate sampled cases =*",
            "0 pass, 0 observe, 0 block",
            "1 failed with no verdict, its samples not judged (see its failure above): "
            "test_an_error_in_a_sample_is_an_error_not_a_failed_sample.py::test_broken",
        ]
    )


def test_two_tests_failed_with_no_verdict_are_said_in_the_plural(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.sampled(n=3, floor=2)
        @pytest.mark.parametrize("case", ["a", "b"])
        def test_broken(replaygate_sample, case):
            raise KeyError(case)
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "2 failed with no verdict, their samples not judged (see their failures above): "
            "*test_broken[[]a[]], *test_broken[[]b[]]",
        ]
    )


def test_unsampled_checks_are_recorded_as_one_sample(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from replaygate.assertions import contains_check, structure_check

        def test_shape(replaygate_checks):
            replaygate_checks.evaluate({"a": 1}, structure_check({"required": ["a"]}, kind="gate"))
            replaygate_checks.evaluate("text", contains_check(["missing"], kind="signal"))
        """
    )
    result = pytester.runpytest("--sampling-results=r.json")
    result.assert_outcomes(passed=1)
    case = json.loads((pytester.path / "r.json").read_text())["cases"][0]
    assert (case["samples"], case["floor"], case["verdict"]) == (1, 1, "pass")
    assert case["assertions"]["contains"]["passes"] == 0
    assert "replaygate sampled cases" not in result.stdout.str()


def test_few_samples_on_a_semantic_assertion_warn(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest
        from replaygate.assertions import contains_check

        @pytest.mark.sampled(n=2, floor=2)
        def test_two(replaygate_sample, replaygate_checks):
            replaygate_checks.evaluate("context", contains_check(["context"], kind="gate"))
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, warnings=1)
    result.stdout.fnmatch_lines(
        ["*SamplingWarning: *2 sample(s) on a semantic assertion cannot tell noise from a *"]
    )


def test_samples_stopped_at_a_structure_gate_are_not_told_to_run_once(
    pytester: pytest.Pytester,
) -> None:
    # every sample raised at the structure gate, so the semantic gates after it never ran:
    # "only structure checks ... run it once (n=1)" would have left them at one sample
    pytester.makepyfile(
        """
        import pytest
        from replaygate.assertions import citations_check, contains_check, structure_check

        STRUCT = structure_check({"type": "object"}, kind="gate")
        MENTIONS = contains_check(["RAG"], kind="gate")
        CITES = citations_check({"doc-rag"}, kind="gate")

        @pytest.mark.sampled(n=5, floor=4)
        def test_stopped(replaygate_sample, replaygate_checks):
            text = '{"summary": "RAG retrieves [doc-rag]."}'
            replaygate_checks.evaluate(text, STRUCT)
            replaygate_checks.evaluate(text, MENTIONS, CITES)

        @pytest.mark.sampled(n=5, floor=4)
        def test_only_structure(replaygate_sample, replaygate_checks):
            replaygate_checks.evaluate({} if replaygate_sample else "{}", STRUCT)
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, failed=1, warnings=1)
    result.stdout.fnmatch_lines(
        ["*SamplingWarning: test_*.py::test_only_structure: only structure checks, sampled 5 *"]
    )
    result.stdout.no_fnmatch_line("*test_stopped: only structure checks*")


BAD_DECLARATIONS = {
    "test_no_floor": (
        "@pytest.mark.sampled(n=5)\ndef test_x(replaygate_sample): pass",
        "test_no_floor.py::test_x: declare @pytest.mark.sampled(n=..., floor=...) with both the "
        "sample count and the pass floor (law 7); got () {'n': 5}",
    ),
    "test_floor_above_n": (
        "@pytest.mark.sampled(n=3, floor=4)\ndef test_x(replaygate_sample): pass",
        "test_floor_above_n.py::test_x: @pytest.mark.sampled: "
        "floor must be between 1 and n=3, got 4",
    ),
    "test_three_args": (
        "@pytest.mark.sampled(5, 4, 3)\ndef test_x(replaygate_sample): pass",
        "test_three_args.py::test_x: declare @pytest.mark.sampled(n=..., floor=...) with both the "
        "sample count and the pass floor (law 7); got (5, 4, 3) {}",
    ),
    "test_no_sample_fixture": (
        "@pytest.mark.sampled(n=5, floor=4)\ndef test_x(): pass",
        "test_no_sample_fixture.py::test_x (sampled n=5, floor=4): the test does not request the "
        "replaygate_sample fixture, so every sample would replay the same recorded response; "
        "take replaygate_sample as an argument and build the model with sample=replaygate_sample",
    ),
    "test_client_no_sample_fixture": (
        "@pytest.mark.sampled(n=5, floor=4)\ndef test_x(anthropic_client): pass",
        "test_client_no_sample_fixture.py::test_x (sampled n=5, floor=4): the test does not "
        "request the replaygate_sample fixture; a sampled test takes it as an argument: add "
        "replaygate_sample to its arguments. The clients of anthropic_client need nothing more "
        "(they answer the samples' sends in order, sample 0's first); a model the test builds "
        "itself takes sample=replaygate_sample, or every sample would replay the same recorded "
        "response",
    ),
    "test_fixture_needs_sample": (
        "@pytest.fixture\ndef model(replaygate_sample): return replaygate_sample\n\n"
        "@pytest.mark.sampled(n=5, floor=4)\ndef test_x(model, replaygate_sample): pass",
        "test_fixture_needs_sample.py::test_x (sampled n=5, floor=4): fixture(s) model request "
        "replaygate_sample, but fixtures are set up once per test, not once per sample; request "
        "replaygate_sample in the test function and build per-sample objects there",
    ),
    "test_only_a_fixture_needs_sample": (
        "@pytest.fixture\ndef model(replaygate_sample): return replaygate_sample\n\n"
        "@pytest.mark.sampled(n=5, floor=4)\ndef test_x(model): pass",
        "test_only_a_fixture_needs_sample.py::test_x (sampled n=5, floor=4): fixture(s) model "
        "request replaygate_sample, but fixtures are set up once per test, not once per sample; "
        "request replaygate_sample in the test function and build per-sample objects there",
    ),
    "test_mistyped_marker": (
        "@pytest.mark.sample(n=5, floor=4)\ndef test_x(replaygate_sample): pass",
        "test_mistyped_marker.py::test_x: @pytest.mark.sample is no marker pytest knows: did "
        "you mean @pytest.mark.sampled? As written, the test runs as if unmarked (a marker of "
        "your own: register it in pytest's markers ini value)",
    ),
    "test_mistyped_argument": (
        "@pytest.mark.sampled(n=5, flor=4)\ndef test_x(replaygate_sample): pass",
        "test_mistyped_argument.py::test_x: @pytest.mark.sampled takes n and floor only, not "
        "flor: got () {'n': 5, 'flor': 4}",
    ),
    "test_async": (
        "@pytest.mark.sampled(n=5, floor=4)\nasync def test_x(replaygate_sample): pass",
        "test_async.py::test_x (sampled n=5, floor=4): async tests cannot be sampled; sample a "
        "sync wrapper",
    ),
}


def test_bad_declarations_are_usage_errors_reported_together(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        **{name: f"import pytest\n\n{source}\n" for name, (source, _) in BAD_DECLARATIONS.items()}
    )
    pytester.makepyfile(test_fine="def test_fine():\n    raise AssertionError('ran')\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = result.stderr.str()
    assert not re.search(r"\d+ (passed|failed)", result.stdout.str())  # no test ran
    for _, message in BAD_DECLARATIONS.values():
        assert message in errors


SAMPLED = (
    "import pytest\n\n@pytest.mark.sampled(n=5, floor=4)\n"
    "def test_s(replaygate_sample):\n    pass\n"
)


def refusal(module: str, times: int) -> str:
    return (
        f"{module}.py::test_s (sampled n=5, floor=4): pytest-rerunfailures would rerun it up to "
        f"{times} time(s): no automatic retries (law 7)"
    )


@pytest.mark.autoload_plugins  # pytest-rerunfailures
def test_reruns_of_a_sampled_test_are_refused(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_marker_3=SAMPLED.replace(
            "@pytest.mark.sampled", "@pytest.mark.flaky(reruns=3)\n@pytest.mark.sampled"
        ),
        test_marker_bare=SAMPLED.replace(
            "@pytest.mark.sampled", "@pytest.mark.flaky\n@pytest.mark.sampled"
        ),
    )
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert refusal("test_marker_3", 3) in result.stderr.str()
    assert refusal("test_marker_bare", 1) in result.stderr.str()
    pytester.makepyfile(test_option=SAMPLED)
    result = pytester.runpytest("--reruns", "2", "test_option.py")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        refusal("test_option", 2) + ": a rerun turns a failing sample into noise"
        in result.stderr.str()
    )


@pytest.mark.autoload_plugins  # pytest-rerunfailures
def test_reruns_from_the_ini_are_refused_and_unsampled_tests_may_rerun(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeini("[pytest]\nreruns = 1\n")
    pytester.makepyfile(test_s=SAMPLED)
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert refusal("test_s", 1) in result.stderr.str()
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    pytester.runpytest("test_plain.py").assert_outcomes(passed=1)


REPEAT_CONFTEST = """
import pytest

def pytest_configure(config):
    config.addinivalue_line("markers", "repeat(n): run the test n times")

@pytest.fixture
def __pytest_repeat_step_number(request):
    return request.param

def pytest_generate_tests(metafunc):
    marker = metafunc.definition.get_closest_marker("repeat")
    if marker is not None:
        metafunc.fixturenames.append("__pytest_repeat_step_number")
        metafunc.parametrize("__pytest_repeat_step_number", range(marker.args[0]), indirect=True)
"""


def test_a_sampled_test_that_pytest_repeat_repeats_is_refused(pytester: pytest.Pytester) -> None:
    """pytest-repeat makes each repetition a case of its own: the samples would count as
    many times (its parametrization stands in for the plugin here)."""
    pytester.makeconftest(REPEAT_CONFTEST)
    pytester.makepyfile(
        test_s=SAMPLED.replace(
            "@pytest.mark.sampled", "@pytest.mark.repeat(3)\n@pytest.mark.sampled"
        )
    )
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        "test_s.py::test_s[0] (sampled n=5, floor=4): pytest-repeat runs it 3 times"
        in result.stderr.str()
    )


DOCS = Path(__file__).resolve().parent.parent / "docs" / "sampling.md"


def test_the_documented_pytest_example_runs(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = DOCS.read_text(encoding="utf-8")
    record = re.search(r"<!-- doctest -->\s*\n```python\n(.*?)```", text, re.DOTALL)
    example = re.search(r"<!-- pytester -->\s*\n```python\n(.*?)```", text, re.DOTALL)
    assert record is not None and example is not None
    monkeypatch.chdir(pytester.path)
    exec(compile(record.group(1), "sampling.md recording block", "exec"), {})
    pytester.makepyfile(test_documented=example.group(1))
    result = pytester.runpytest("--sampling-results=results.json")
    result.assert_outcomes(passed=1)
    case = json.loads((pytester.path / "results.json").read_text())["cases"][0]
    assert (case["samples"], case["floor"], case["passes"], case["verdict"]) == (5, 4, 4, "pass")
