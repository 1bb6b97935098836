"""A results file (and the history it goes to) masks a key a run's output, its failure or
a check's message holds (an agent that prints its configuration, an assertion quoting the
answer), where only the error of a run the agent gave up on was masked and the answer was
written whole; the checks saw the output as it was."""

from __future__ import annotations

from pathlib import Path

from replaygate.assertions.kinds import Outcome
from replaygate.sampling.results import SampledResult, SampleResult, load_results, write_results

KEY = "sk-proj-" + "Qz7Lm2Xv9Rt4Kp8Wn3Bc6Hy1Jd5Fs0Ga2UeTo4Ni7Mb9Vc" + "Xy"  # no real key
SHOWN = "<OpenAI API key #1, 56 characters>"


def sample(index: int) -> SampleResult:
    answer = f"done\n[debug] OPENAI_API_KEY={KEY}"
    outcome = Outcome("no-key", "gate", False, message=f"found {KEY} in the answer")
    return SampleResult(
        index,
        (outcome,),
        output={"final": answer, "steps": 2},
        failure=f"AssertionError: {KEY}",
        outputs={0: answer},
    )


def test_a_key_in_an_output_failure_or_message_is_masked_where_results_are_written(
    tmp_path: Path,
) -> None:
    case = SampledResult("c1", 1, 1, (sample(0),))
    path = write_results(tmp_path / "results.json", [case])
    text = path.read_text()
    assert KEY[8:] not in text
    (read,) = load_results(path)
    (stored,) = read.samples
    assert stored.output == {"final": f"done\n[debug] OPENAI_API_KEY={SHOWN}", "steps": 2}
    assert stored.failure == f"AssertionError: {SHOWN}"
    assert stored.outcomes[0].message == f"found {SHOWN} in the answer"
    assert stored.outputs == {0: f"done\n[debug] OPENAI_API_KEY={SHOWN}"}
    assert case.samples[0].output["final"].endswith(KEY)  # what the checks read is kept whole
