"""Sample outputs as an eval writes them, for results built in tests: a results file's
``counts`` must be what the outputs of its samples add up to, as it is read."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def run_output(
    final: str = "x",
    *,
    cited: Sequence[str] = (),
    fetched: Sequence[str] | None = None,
    input_tokens: int = 0,
    output_tokens: int = 0,
    steps: int = 0,
) -> dict[str, Any]:
    """The output of one run, citing ``cited`` (fetched too, unless ``fetched`` is given)."""
    return {
        "final": final,
        "citations": list(cited),
        "fetched": list(cited if fetched is None else fetched),
        "steps": steps,
        "tool_errors": 0,
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "error": None,
    }


ONE_RUN = run_output(cited=["doc-a"], input_tokens=5, output_tokens=5, steps=1)
"""The output of a one-sample case whose counts are
``CaseCounts(1, passed, 1, True, 1, 1, 1, 0, 5, 5, 1, cost)``."""
