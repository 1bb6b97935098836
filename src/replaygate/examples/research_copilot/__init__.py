"""ResearchCopilot: the reference agent shipped with replaygate.

It searches a local corpus, fetches a document and answers with citations
``[doc-id]``. The pieces: the corpus and its BM25 search, the tool registry, the
agent loop :func:`run`, :class:`ResearchPolicy` (the simulator's rule-based
stand-in for the model), the evaluation cases and the entry point replaygate's commands run,
``--agent replaygate.examples.research_copilot:copilot``::

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
    shipped_baseline,
    shipped_eval_cases,
    shipped_fixtures,
)
from replaygate.examples.research_copilot.entry import SETTINGS, answer, copilot
from replaygate.examples.research_copilot.errors import DataFormatError, StepLimitExceeded
from replaygate.examples.research_copilot.tools import (
    Tool,
    ToolError,
    ToolRegistry,
    ToolResult,
    argument_problems,
    build_registry,
)
from replaygate.sim.research_policy import FETCH_TOOL, SEARCH_TOOL, ResearchPolicy, search_query

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_MODEL",
    "DEFAULT_SYSTEM",
    "FETCH_TOOL",
    "SEARCH_TOOL",
    "SETTINGS",
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
    "answer",
    "argument_problems",
    "build_registry",
    "copilot",
    "default_corpus",
    "load_cases",
    "load_corpus",
    "run",
    "search_query",
    "shipped_baseline",
    "shipped_eval_cases",
    "shipped_fixtures",
    "step_detail",
    "tokenize",
]
