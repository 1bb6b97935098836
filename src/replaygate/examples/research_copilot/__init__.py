"""ResearchCopilot: the reference agent shipped with replaygate.

It searches a local corpus, fetches a document and answers with citations
``[doc-id]``. The pieces: the corpus and its BM25 search, the tool registry, the
agent loop :func:`run`, :class:`ResearchPolicy` (a deterministic stand-in for the
model) and the evaluation cases::

    from replaygate.examples.research_copilot import ResearchPolicy, build_registry, run

    result = run(ResearchPolicy(), build_registry(), "What is RAG?")
    result.final  # '... [doc-rag].'
"""

from __future__ import annotations

from replaygate.examples.research_copilot.agent import RunResult, Step, run, step_detail
from replaygate.examples.research_copilot.cases import Case, load_cases
from replaygate.examples.research_copilot.corpus import (
    Corpus,
    Document,
    SearchHit,
    default_corpus,
    load_corpus,
    tokenize,
)
from replaygate.examples.research_copilot.defaults import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_MODEL,
    DEFAULT_SYSTEM,
    shipped_fixtures,
)
from replaygate.examples.research_copilot.errors import DataFormatError, StepLimitExceeded
from replaygate.examples.research_copilot.policy import ResearchPolicy, search_query
from replaygate.examples.research_copilot.tools import (
    FETCH_TOOL,
    SEARCH_TOOL,
    Tool,
    ToolError,
    ToolRegistry,
    ToolResult,
    argument_problems,
    build_registry,
)

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_MODEL",
    "DEFAULT_SYSTEM",
    "FETCH_TOOL",
    "SEARCH_TOOL",
    "Case",
    "Corpus",
    "DataFormatError",
    "Document",
    "ResearchPolicy",
    "RunResult",
    "SearchHit",
    "Step",
    "StepLimitExceeded",
    "Tool",
    "ToolError",
    "ToolRegistry",
    "ToolResult",
    "argument_problems",
    "build_registry",
    "default_corpus",
    "load_cases",
    "load_corpus",
    "run",
    "search_query",
    "shipped_fixtures",
    "step_detail",
    "tokenize",
]
