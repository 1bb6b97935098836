"""The evaluation cases shipped with ResearchCopilot."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from replaygate.examples.research_copilot import _jsonl

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
    return _jsonl.load_unique(
        path, CASES_FILE, ("id", "question", "expected_doc_ids", "must_contain"), _case, "case id"
    )


def _case(name: str, line: int, record: Mapping[str, Any]) -> Case:
    return Case(
        id=_jsonl.text_field(name, line, record, "id"),
        question=_jsonl.text_field(name, line, record, "question"),
        expected_doc_ids=_jsonl.text_list_field(name, line, record, "expected_doc_ids"),
        must_contain=_jsonl.text_list_field(name, line, record, "must_contain"),
    )
