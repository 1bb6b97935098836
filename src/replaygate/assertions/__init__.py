"""Assertions for outputs that vary: structure, containment, sets, an independent judge.

You cannot assert what a model returned, only what it satisfies. Each ``assert_*``
raises :class:`AssertionError` whose message names the failure (every failing path,
each missing piece, the missing and extra items); each ``measure_*`` returns the
same finding without raising. A :class:`Check` declares an assertion a ``gate``
(fails the test) or a ``signal`` (recorded only)::

    from replaygate.assertions import assert_contains, citations_check, extract_citations

    assert_contains("RAG uses 检索增强生成.", ["retrieval-augmented generation"],
                    aliases={"retrieval-augmented generation": ["检索增强生成"]})
    cites = citations_check({"doc-rag"}, kind="gate")
    cites.evaluate("RAG retrieves first [doc-rag].").passed  # True

Human calibration of these assertions on sampled results lives in
:mod:`replaygate.sampling.calibration`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from replaygate._lazy import lazy_names

if TYPE_CHECKING:
    from replaygate.assertions.checks import (
        citations_check,
        contains_check,
        set_check,
        structure_check,
    )
    from replaygate.assertions.citations import extract_citations
    from replaygate.assertions.contains import ContainsResult, assert_contains, measure_contains
    from replaygate.assertions.errors import JudgeIndependenceError, JudgeReplyError
    from replaygate.assertions.independence import (
        FamilyRule,
        exact_only,
        model_id_of,
        normalize_model_id,
        prefix_family,
        same_model,
        split_snapshot,
        vendor_family,
    )
    from replaygate.assertions.judge import Grade, Judge
    from replaygate.assertions.kinds import Category, Check, Kind, Measure, Outcome
    from replaygate.assertions.sets import SetResult, assert_set, measure_set
    from replaygate.assertions.structure import (
        StructureProblem,
        StructureResult,
        assert_json,
        assert_structure,
        measure_structure,
    )

    Problem = StructureProblem  # its old name, kept for a release

_EXPORTS = {
    "assert_contains": "replaygate.assertions.contains",
    "assert_json": "replaygate.assertions.structure",
    "assert_set": "replaygate.assertions.sets",
    "assert_structure": "replaygate.assertions.structure",
    "Category": "replaygate.assertions.kinds",
    "Check": "replaygate.assertions.kinds",
    "citations_check": "replaygate.assertions.checks",
    "contains_check": "replaygate.assertions.checks",
    "ContainsResult": "replaygate.assertions.contains",
    "exact_only": "replaygate.assertions.independence",
    "extract_citations": "replaygate.assertions.citations",
    "FamilyRule": "replaygate.assertions.independence",
    "Grade": "replaygate.assertions.judge",
    "Judge": "replaygate.assertions.judge",
    "JudgeIndependenceError": "replaygate.assertions.errors",
    "JudgeReplyError": "replaygate.assertions.errors",
    "Kind": "replaygate.assertions.kinds",
    "Measure": "replaygate.assertions.kinds",
    "measure_contains": "replaygate.assertions.contains",
    "measure_set": "replaygate.assertions.sets",
    "measure_structure": "replaygate.assertions.structure",
    "model_id_of": "replaygate.assertions.independence",
    "normalize_model_id": "replaygate.assertions.independence",
    "Outcome": "replaygate.assertions.kinds",
    "prefix_family": "replaygate.assertions.independence",
    "same_model": "replaygate.assertions.independence",
    "set_check": "replaygate.assertions.checks",
    "SetResult": "replaygate.assertions.sets",
    "split_snapshot": "replaygate.assertions.independence",
    "structure_check": "replaygate.assertions.checks",
    "StructureProblem": "replaygate.assertions.structure",
    "StructureResult": "replaygate.assertions.structure",
    "vendor_family": "replaygate.assertions.independence",
}
"""Each public name and the module it is imported from on first use."""

__all__ = [
    "Category",
    "Check",
    "ContainsResult",
    "FamilyRule",
    "Grade",
    "Judge",
    "JudgeIndependenceError",
    "JudgeReplyError",
    "Kind",
    "Measure",
    "Outcome",
    "SetResult",
    "StructureProblem",
    "StructureResult",
    "assert_contains",
    "assert_json",
    "assert_set",
    "assert_structure",
    "citations_check",
    "contains_check",
    "exact_only",
    "extract_citations",
    "measure_contains",
    "measure_set",
    "measure_structure",
    "model_id_of",
    "normalize_model_id",
    "prefix_family",
    "same_model",
    "set_check",
    "split_snapshot",
    "structure_check",
    "vendor_family",
]

if not TYPE_CHECKING:  # to a type checker, a name not declared above is an error
    __getattr__, __dir__ = lazy_names(__name__, _EXPORTS, renamed={"Problem": "StructureProblem"})
