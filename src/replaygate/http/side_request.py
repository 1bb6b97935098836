"""A request to no model API that a framework sends of its own, and how to stop it.

tiktoken (``ChatOpenAI.get_num_tokens``, ``OpenAIEmbeddings``) downloads its encoding from
``openaipublic.blob.core.windows.net`` on first use; LiteLLM fetches its model cost map
and Anthropic beta headers from ``raw.githubusercontent.com``. Such a request is no model
call: recorded, a store would hold a tokenizer or price file, and it is stopped where it is
sent instead. A miss of one says so, with the remedy of the library whose host it names.
"""

from __future__ import annotations

SIDE_REQUEST = "This request is to no model API"
"""How a miss of a request to no provider's API begins its note, whatever its host."""

REMEDIES = (
    ("openaipublic.blob.core.windows.net", "tiktoken: fill TIKTOKEN_CACHE_DIR beforehand"),
    (
        "raw.githubusercontent.com",
        "LiteLLM: LITELLM_OFFLINE_MODE=true, and LITELLM_LOCAL_MODEL_COST_MAP=True for "
        "releases that do not read it",
    ),
)
"""The hosts of the files frameworks fetch of their own, with how to stop each fetch."""


def side_request_note(host: str | None) -> str:
    """What a miss of a request to ``host``, a host of no provider's API, adds: to stop it
    at its source, with the remedy of the library fetching from there, or every remedy
    known when none fetches from ``host``."""
    known = [remedy for name, remedy in REMEDIES if host == name]
    remedies = "; ".join(known or (remedy for _, remedy in REMEDIES))
    return (
        f"{SIDE_REQUEST}: if the code under test sends it of its own (a framework fetching "
        "a price or tokenizer file, telemetry), stop it at its source rather than record it "
        f"({remedies}; see docs/frameworks.md)."
    )
