"""The token log probabilities of an OpenAI answer, as the APIs give them when a request
asks for them: Chat Completions' ``logprobs: true``, the Responses API's ``include`` of
``message.output_text.logprobs``, with ``top_logprobs: K`` alternatives.

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


RESPONSES_INCLUDE = "message.output_text.logprobs"
"""The ``include`` entry asking the Responses API for the log probabilities of its text."""


def asked(body: Mapping[str, Any]) -> int | None:
    """The alternatives a request asks for at each token (``top_logprobs``, 0 when it
    names none), or None when it asks for no log probabilities."""
    include = body.get("include")
    wanted = isinstance(include, list) and RESPONSES_INCLUDE in include
    if body.get("logprobs") is not True and not wanted:
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
            "content": scored(message.get("content"), top),
            "refusal": scored(message.get("refusal"), top),
        },
    }


def scored_output(response: Mapping[str, Any], top: int) -> dict[str, Any]:
    """A Responses API ``response`` whose messages' ``output_text`` parts carry the log
    probabilities of their tokens."""
    return {**response, "output": [_scored_item(item, top) for item in response["output"]]}


def _scored_item(item: Mapping[str, Any], top: int) -> Mapping[str, Any]:
    if item.get("type") != "message":
        return item
    parts = [
        {**part, "logprobs": scored(part.get("text"), top) or []}
        if part.get("type") == "output_text"
        else part
        for part in item.get("content") or []
    ]
    return {**item, "content": parts}


def scored(text: Any, top: int) -> list[dict[str, Any]] | None:
    """The entries of ``text``'s tokens, one a token, or None for no text."""
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


def streamed(entries: Any) -> list[dict[str, Any]]:
    """The Responses API's ``entries`` (a text part's ``logprobs``) as its stream's text
    events give them: without ``bytes``, at each level, which the SDK's delta and done
    events have no field for (only the part in the response has them)."""
    shown: list[dict[str, Any]] = []
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, Mapping):
            kept = {key: value for key, value in entry.items() if key != "bytes"}
            if "top_logprobs" in kept:
                kept["top_logprobs"] = streamed(kept["top_logprobs"])
            shown.append(kept)
    return shown
