"""Sampled cases: n samples, a pass floor, and a verdict (seed 003, chapter 6).

A case declares ``n`` samples and a ``floor`` beside its assertions. Sample ``i``
replays the ``i``-th recorded response of each request. The verdict is ``pass``
(passes >= floor), ``observe`` (some passed: queued, not blocking) or ``block``
(every sample failed). Nothing is ever retried (law 7)::

    from replaygate.sampling import run_sampled

    result = run_sampled(lambda i: answer_for(sample=i), 5, 4, [citations_gate])
    result.verdict  # 'pass' | 'observe' | 'block'

In pytest, ``@pytest.mark.sampled(n=5, floor=4)`` and the ``replaygate_sample``
fixture do the same (:mod:`replaygate.pytest_plugin.sampling`). Human calibration of the
assertions on a results file: :mod:`replaygate.sampling.calibration`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from replaygate._lazy import lazy_names

if TYPE_CHECKING:
    from replaygate.sampling.advice import ObserveWarning, SamplingWarning, sample_count_advice
    from replaygate.sampling.calibration import CalibrationError
    from replaygate.sampling.flaky import FlakyTest, find_flaky
    from replaygate.sampling.queue import DEFAULT_QUEUE, Observation, append_observation, read_queue
    from replaygate.sampling.recorder import SampleChecks
    from replaygate.sampling.results import (
        AssertionStats,
        ResultsFormatError,
        SampledResult,
        SampleResult,
        load_results,
        write_results,
    )
    from replaygate.sampling.runner import run_sampled
    from replaygate.sampling.verdict import SampleSpec, Verdict, verdict_of

_EXPORTS = {
    "append_observation": "replaygate.sampling.queue",
    "AssertionStats": "replaygate.sampling.results",
    "CalibrationError": "replaygate.sampling.calibration",
    "DEFAULT_QUEUE": "replaygate.sampling.queue",
    "find_flaky": "replaygate.sampling.flaky",
    "FlakyTest": "replaygate.sampling.flaky",
    "load_results": "replaygate.sampling.results",
    "Observation": "replaygate.sampling.queue",
    "ObserveWarning": "replaygate.sampling.advice",
    "read_queue": "replaygate.sampling.queue",
    "ResultsFormatError": "replaygate.sampling.results",
    "run_sampled": "replaygate.sampling.runner",
    "sample_count_advice": "replaygate.sampling.advice",
    "SampleChecks": "replaygate.sampling.recorder",
    "SampledResult": "replaygate.sampling.results",
    "SampleResult": "replaygate.sampling.results",
    "SampleSpec": "replaygate.sampling.verdict",
    "SamplingWarning": "replaygate.sampling.advice",
    "Verdict": "replaygate.sampling.verdict",
    "verdict_of": "replaygate.sampling.verdict",
    "write_results": "replaygate.sampling.results",
}
"""Each public name and the module it is imported from on first use."""

__all__ = [
    "DEFAULT_QUEUE",
    "AssertionStats",
    "CalibrationError",
    "FlakyTest",
    "Observation",
    "ObserveWarning",
    "ResultsFormatError",
    "SampleChecks",
    "SampleResult",
    "SampleSpec",
    "SampledResult",
    "SamplingWarning",
    "Verdict",
    "append_observation",
    "find_flaky",
    "load_results",
    "read_queue",
    "run_sampled",
    "sample_count_advice",
    "verdict_of",
    "write_results",
]

if not TYPE_CHECKING:  # to a type checker, a name not declared above is an error
    __getattr__, __dir__ = lazy_names(__name__, _EXPORTS)
