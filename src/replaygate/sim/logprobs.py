"""The token log probabilities of a Chat Completions answer, as the API gives them when a
request asks for them (``logprobs: true``, ``top_logprobs: K``).

A token is 4 characters of the answer, as the simulator counts tokens
(:mod:`replaygate.sim.tokens`), so the tokens of a choice spell its text. Each token's
log probability is drawn from the token itself, so the same text scores the same, and
its ``K`` alternatives are the token first, then others less likely.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from typing import Any

TOKEN_CHARS = 4
"""The characters of one token, as :func:`replaygate.sim.tokens.tokens` counts them."""


def asked(body: Mapping[str, Any]) -> int | None:
    """The alternatives a request asks for at each token (``top_logprobs``, 0 when it
    names none), or None when it asks for no log probabilities."""
    if body.get("logprobs") is not True:
        return None
    top = body.get("top_logprobs")
    return top if isinstance(top, int) and not isinstance(top, bool) and top > 0 else 0


def scored_choice(choice: Mapping[str, Any], top: int) -> dict[str, Any]:
    """``choice`` with its ``logprobs``: those of its content's tokens and its refusal's
    (``null`` where the message has none, a message of tool calls alone)."""
    message = choice.get("message") or {}
    return {
        **choice,
        "logprobs": {
            "content": _scored(message.get("content"), top),
            "refusal": _scored(message.get("refusal"), top),
        },
    }


def _scored(text: Any, top: int) -> list[dict[str, Any]] | None:
    if not isinstance(text, str) or not text:
        return None
    pieces = [text[i : i + TOKEN_CHARS] for i in range(0, len(text), TOKEN_CHARS)]
    return [_entry(piece, top) for piece in pieces]


def _entry(token: str, top: int) -> dict[str, Any]:
    """One token's entry: its log probability and ``top`` alternatives, itself first."""
    logprob = -(zlib.crc32(token.encode()) % 1000) / 2000  # from -0.4995 to 0
    alternatives = [_scoring(token, logprob)]
    alternatives += [_scoring(f"{token}#{k}", logprob - 2.0 * k) for k in range(1, top)]
    return {**_scoring(token, logprob), "top_logprobs": alternatives[:top]}


def _scoring(token: str, logprob: float) -> dict[str, Any]:
    return {"token": token, "logprob": logprob, "bytes": list(token.encode())}
