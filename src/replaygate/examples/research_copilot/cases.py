"""The evaluation cases shipped with ResearchCopilot."""

from __future__ import annotations

import os
from dataclasses import dataclass

from replaygate.examples.research_copilot import _jsonl
from replaygate.examples.research_copilot.errors import DataFormatError

CASES_FILE = "cases.jsonl"
"""Name of the packaged cases file under ``data/``."""


@dataclass(frozen=True)
class Case:
    """One evaluation case.

    A good answer to ``question`` cites every id of ``expected_doc_ids`` as
    ``[doc-id]`` and contains every term of ``must_contain`` (compared
    case-insensitively).
    """

    id: str
    question: str
    expected_doc_ids: tuple[str, ...]
    must_contain: tuple[str, ...]


def load_cases(path: str | os.PathLike[str] | None = None) -> list[Case]:
    """Load cases from a JSONL file of ``{"id", "question", "expected_doc_ids",
    "must_contain"}`` objects; without ``path``, the packaged cases.

    A malformed line, a missing or unknown field, a wrong type or a duplicate id
    raises :class:`DataFormatError` naming the file and the line.
    """
    name, text = _jsonl.read_source(path, CASES_FILE)
    cases: list[Case] = []
    seen: set[str] = set()
    for line, record in _jsonl.records(name, text):
        _jsonl.check_keys(
            name, line, record, ("id", "question", "expected_doc_ids", "must_contain")
        )
        case = Case(
            id=_jsonl.text_field(name, line, record, "id"),
            question=_jsonl.text_field(name, line, record, "question"),
            expected_doc_ids=_jsonl.text_list_field(name, line, record, "expected_doc_ids"),
            must_contain=_jsonl.text_list_field(name, line, record, "must_contain"),
        )
        if case.id in seen:
            raise DataFormatError(name, line, f"duplicate case id {case.id!r}")
        seen.add(case.id)
        cases.append(case)
    return cases
