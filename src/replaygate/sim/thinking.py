"""Thinking and reasoning as the simulator gives them: the text, its seals, its wire items.

A request that asks for thinking (Anthropic's ``thinking`` of type ``enabled``, OpenAI's
reasoning models and ``reasoning`` efforts) is answered with a thought first: a few
sentences drawn under the seed for that answer (the conversation and how often it was
answered, as :mod:`~replaygate.sim.draws` numbers it), so the same seed thinks the same.
What a client must send back unchanged is sealed: an Anthropic thinking block's
``signature`` is a keyed digest of its text, a redacted thinking block's ``data`` and a
reasoning item's ``encrypted_content`` hold the text with its digest. They are opaque to
a client, made the same on any machine, and checked when they come back
(:func:`signed`, :func:`unsealed`): one changed by a byte is refused as the APIs refuse it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
from collections.abc import Mapping, Sequence
from typing import Any

from replaygate.models.types import Message
from replaygate.sim.draws import Draw

MIN_BUDGET = 1024
"""The smallest ``thinking.budget_tokens`` the Messages API takes."""

REDACTING = (
    "ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING_"
    "46C9A13E193C177646C7398A98432ECCCE4C1253D5E2D82641AC0E52CC2876CB"
)
"""The string that, in a user turn, makes the Messages API answer with redacted thinking
(the test trigger its documentation gives): the simulator does the same."""

EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")
"""OpenAI's reasoning efforts (``reasoning.effort``, Chat Completions' ``reasoning_effort``)."""

SUMMARIES = ("auto", "concise", "detailed")
"""The reasoning summaries a Responses request may ask for (``reasoning.summary``)."""

ENCRYPTED_REASONING = "reasoning.encrypted_content"
"""The ``include`` entry asking for a reasoning item's ``encrypted_content``."""

_SENTENCES = {"minimal": 1, "low": 2, "medium": 3, "high": 4, "xhigh": 5, "max": 6}
"""How many sentences a thought has at each effort (none at ``none``)."""

ANTHROPIC_SENTENCES = _SENTENCES["medium"]
"""How many sentences an Anthropic thought has."""

_KEY = b"replaygate-simulator-thinking-v1"
_MARK = b"rgsim1"
_DIGEST = hashlib.sha256().digest_size

_REASONING_MODEL = re.compile(r"(?:o[1-9]|gpt-5)(?![\w.-]*-chat)")
"""OpenAI's reasoning model names: the o-series (``o1``, ``o3-mini``, ``o4-mini``) and
``gpt-5`` (``gpt-5.1``, ``gpt-5-mini``), but for its chat model (``gpt-5-chat-latest``);
a provider prefix (``openai/``) is passed over."""

_UNREASONING_MODEL = re.compile(r"(?:gpt-3\.5|gpt-4|chatgpt-|gpt-5-chat)")
"""OpenAI's models that do not reason (``gpt-4o``, ``gpt-4.1``, ``gpt-5-chat-latest``):
the API refuses a reasoning effort for them (``reasoning.effort`` alone: a ``reasoning``
asking only for a ``summary`` is taken). Another server's model names (a local model's,
an OpenAI-compatible provider's) are not among them."""

_EFFORTS_TAKEN = (
    (
        re.compile(r"gpt-5(?:-mini|-nano)?(?:-\d{4}-\d{2}-\d{2})?"),
        ("minimal", "low", "medium", "high"),
    ),
    (re.compile(r"gpt-5\.1(?:-\d{4}-\d{2}-\d{2})?"), ("none", "low", "medium", "high")),
    (re.compile(r"o(?:1|3|3-mini|4-mini)(?:-\d{4}-\d{2}-\d{2})?"), ("low", "medium", "high")),
)
"""The efforts the first GPT-5 models (``gpt-5``, ``gpt-5-mini``, ``gpt-5-nano``, their
snapshots), which reason at ``medium`` unless told and cannot reason at ``none``,
``gpt-5.1``, which reasons at ``none`` unless told and has no ``minimal``, and the
o-series models (``o1``, ``o3``, ``o3-mini``, ``o4-mini``), which came before
``minimal`` and ``none``, take."""

_UNREASONING_DEFAULT = re.compile(r"gpt-5\.1(?:-\d{4}-\d{2}-\d{2})?")
"""The reasoning models that reason at ``none`` unless told (``gpt-5.1``)."""

_FIRST_GPT5 = re.compile(r"gpt-5(?![.\d])(?![\w.-]*-chat)")
"""The GPT-5 models before ``gpt-5.1`` (``gpt-5``, ``gpt-5-mini``, ``gpt-5-nano``,
``gpt-5-pro``, their snapshots), but for the chat model, which always reason."""

_OPENINGS = ("The user asks: {asked}", "The question is: {asked}", "I am asked: {asked}")
_AFTER_TOOL = (
    "A tool has answered; I read its result before going on.",
    "The tool's result is in, so I look at what it says.",
)
_STEPS = (
    "A short, direct answer fits here.",
    "I restate the question to myself, then answer it.",
    "Nothing here needs a guess: the answer follows from what was said.",
    "I keep the wording plain.",
    "I check the question once more before replying.",
    "If a tool can settle it, I use the tool.",
    "I answer only what was asked.",
    "The earlier turns already hold what I need.",
)


def thought(seed: int, draw: Draw, messages: Sequence[Message], sentences: int) -> str:
    """The thought of answer ``draw`` under ``seed``: what the last turn asks or that a
    tool answered, then ``sentences - 1`` steps drawn from a stream of its own."""
    rng = draw.rng(seed, b":thinking")
    last = messages[-1] if messages else Message.user("")
    if last.role == "tool":
        opening = rng.choice(_AFTER_TOOL)
    else:
        asked = " ".join(last.content.split())
        asked = asked if len(asked) <= 80 else asked[:79] + "…"
        opening = rng.choice(_OPENINGS).format(asked=f"“{asked}”")
    return " ".join([opening, *rng.sample(_STEPS, max(0, min(sentences, len(_STEPS)) - 1))])


def _digest(raw: bytes) -> bytes:
    return hmac.digest(_KEY, raw, "sha256")


def signature(text: str) -> str:
    """The ``signature`` of a thinking block holding ``text``."""
    return base64.b64encode(_MARK + _digest(text.encode("utf-8"))).decode("ascii")


def signed(text: str, given: str) -> bool:
    """Whether ``given`` is the signature the simulator made for ``text``."""
    return hmac.compare_digest(signature(text), given)


def sealed(text: str) -> str:
    """``text`` sealed: a redacted thinking block's ``data``, a reasoning item's
    ``encrypted_content``."""
    raw = text.encode("utf-8")
    return base64.b64encode(_MARK + _digest(raw) + raw).decode("ascii")


def unsealed(data: str) -> str | None:
    """The text :func:`sealed` put in ``data``, or None when ``data`` is not one it made
    (changed, cut, or another server's)."""
    try:
        raw = base64.b64decode(data.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        return None
    start = len(_MARK) + _DIGEST
    digest, text = raw[len(_MARK) : start], raw[start:]
    if not raw.startswith(_MARK) or not hmac.compare_digest(digest, _digest(text)):
        return None
    return text.decode("utf-8")  # what :func:`sealed` made of a text


def thinking_block(text: str, *, redacted: bool) -> dict[str, Any]:
    """The Messages API content block of the thought ``text``: a ``thinking`` block with
    its signature, or a ``redacted_thinking`` block holding it sealed."""
    if redacted:
        return {"type": "redacted_thinking", "data": sealed(text)}
    return {"type": "thinking", "thinking": text, "signature": signature(text)}


def redacting(body: Mapping[str, Any]) -> bool:
    """Whether a Messages API request's user turns hold :data:`REDACTING`."""
    messages = body.get("messages")
    return any(
        isinstance(m, Mapping) and m.get("role") == "user" and REDACTING in str(m.get("content"))
        for m in (messages if isinstance(messages, list) else [])
    )


def reasoning_model(model: str) -> bool:
    """Whether ``model`` names one of OpenAI's reasoning models (:data:`_REASONING_MODEL`)."""
    return _REASONING_MODEL.match(model.rsplit("/", 1)[-1]) is not None


def efforts_taken(model: str) -> tuple[str, ...] | None:
    """The reasoning efforts OpenAI's ``model`` takes: none for a model that does not
    reason (:data:`_UNREASONING_MODEL`), those of :data:`_EFFORTS_TAKEN` for the models
    there, None (any of :data:`EFFORTS`) for the others."""
    name = model.rsplit("/", 1)[-1]
    if _UNREASONING_MODEL.match(name):
        return ()
    return next((taken for names, taken in _EFFORTS_TAKEN if names.fullmatch(name)), None)


def fixed_sampling(model: str, effort: Any) -> bool:
    """Whether OpenAI's ``model``, reasoning at ``effort`` (the request's, or None), samples
    at the default ``temperature`` and ``top_p`` only, refusing others, and gives no log
    probabilities: an o-series model
    and a GPT-5 model before ``gpt-5.1`` always, a later one when it is told to reason
    (an effort other than ``none``); a chat model never."""
    name = model.rsplit("/", 1)[-1]
    if not reasoning_model(name):
        return False
    if name.startswith("o") or _FIRST_GPT5.match(name):
        return True
    return isinstance(effort, str) and effort != "none"


def fixed_verbosity(model: str) -> bool:
    """Whether OpenAI's ``model`` writes at the ``medium`` verbosity only, refusing
    another: a model that does not reason (``gpt-4o``, ``gpt-4.1``, ``gpt-5-chat-latest``,
    :data:`_UNREASONING_MODEL`); the GPT-5 models take ``low`` and ``high`` too."""
    return _UNREASONING_MODEL.match(model.rsplit("/", 1)[-1]) is not None


def default_effort(model: str) -> str | None:
    """The effort OpenAI's ``model`` reasons at unless told: ``medium`` for a reasoning
    model, ``none`` for ``gpt-5.1``, None for a model that does not reason."""
    if not reasoning_model(model):
        return None
    return "none" if _UNREASONING_DEFAULT.fullmatch(model.rsplit("/", 1)[-1]) else "medium"


def reasoning_sentences(model: str, effort: Any) -> int:
    """How many sentences an OpenAI model reasons at ``effort`` (the request's, or None):
    an effort given decides, else the model's :func:`default_effort`."""
    if not isinstance(effort, str):
        effort = default_effort(model)
    return _SENTENCES.get(effort, 0) if isinstance(effort, str) else 0


def reasoning_item(item_id: str, text: str, *, summary: bool, encrypted: bool) -> dict[str, Any]:
    """The Responses API ``reasoning`` output item of the thought ``text``: its summary
    when the request asked for one, its ``encrypted_content`` when it asked to include it."""
    item: dict[str, Any] = {
        "id": item_id,
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": text}] if summary else [],
    }
    if encrypted:
        item["encrypted_content"] = sealed(text)
    return item
