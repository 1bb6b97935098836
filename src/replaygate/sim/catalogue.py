"""The models the simulator lists and describes, as each API's models routes give them.

The models are those of the shipped price table (``replaygate/evals/data/prices.toml``),
fixed: Anthropic's ``GET /v1/models`` (newest first, ``limit``, ``after_id`` and
``before_id``, ``lifecycle``), OpenAI's ``GET /v1/models`` (one list, as the API gives
it) and Gemini's ``GET /{version}/models`` (``pageSize`` and ``pageToken``), and each
model by its id. A model it does not list is a 404, as the APIs answer one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, TypeVar
from urllib.parse import parse_qs

from replaygate.assertions.independence import split_snapshot
from replaygate.digits import integer
from replaygate.sim.validation import OWN_WORDING, Invalid

Answer = tuple[int, Any] | Invalid
Entry = TypeVar("Entry", bound=Sequence[Any])


class AnthropicModel(NamedTuple):
    """One of Anthropic's models as its models routes describe it."""

    id: str
    display_name: str
    released: str
    max_tokens: int
    """The most ``max_tokens`` a request may ask of it."""
    max_input_tokens: int = 200000
    retired: str | None = None
    """When it was retired (RFC 3339), or None while it is active: the API lists a
    retired model only when ``lifecycle[]=retired`` asks for it, and still describes it
    (its ``deprecated_at`` is not kept: null)."""
    effort: bool = False
    """Whether it takes ``output_config.effort`` (Claude Sonnet 4.6 does; Haiku 4.5, Sonnet
    4.5 and Opus 4.1 refuse it)."""


ANTHROPIC_MODELS: tuple[AnthropicModel, ...] = (
    AnthropicModel(
        "claude-sonnet-4-6",
        "Claude Sonnet 4.6",
        "2026-02-17T00:00:00Z",
        128000,
        1000000,
        effort=True,
    ),
    AnthropicModel("claude-haiku-4-5", "Claude Haiku 4.5", "2025-10-15T00:00:00Z", 64000),
    AnthropicModel(
        "claude-sonnet-4-5",
        "Claude Sonnet 4.5",
        "2025-09-29T00:00:00Z",
        64000,
        retired="2026-11-30T00:00:00Z",
    ),
    AnthropicModel("claude-opus-4-1", "Claude Opus 4.1", "2025-08-05T00:00:00Z", 32000),
)
"""Anthropic's models, newest first as the API lists them. A retired one is kept: a
store recorded before its retirement still names it, and its ``max_tokens`` is still
checked."""

ANTHROPIC_SNAPSHOTS: dict[str, str] = {
    "claude-haiku-4-5-20251001": "claude-haiku-4-5",
    "claude-sonnet-4-5-20250929": "claude-sonnet-4-5",
    "claude-opus-4-1-20250805": "claude-opus-4-1",
}
"""The dated snapshot of each of :data:`ANTHROPIC_MODELS` that has one (claude-sonnet-4-6
has none), the id an application pinning
its model asks for at start-up (``models.retrieve``): described as that model, under the
id asked for, as the API describes it."""

OPENAI_MODELS: tuple[tuple[str, int], ...] = (
    ("gpt-4o", 1715367049),
    ("gpt-4o-mini", 1721172741),
    ("gpt-5", 1754425928),
    ("gpt-5-mini", 1754425777),
    ("text-embedding-3-small", 1705948997),
    ("text-embedding-3-large", 1705953180),
    ("text-embedding-ada-002", 1671217299),
)
"""OpenAI's models: id and creation time."""

OPENAI_SNAPSHOTS: dict[str, str] = {
    "gpt-4o": "gpt-4o-2024-08-06",
    "gpt-4o-mini": "gpt-4o-mini-2024-07-18",
    "gpt-4.1": "gpt-4.1-2025-04-14",
    "gpt-4.1-mini": "gpt-4.1-mini-2025-04-14",
    "gpt-4.1-nano": "gpt-4.1-nano-2025-04-14",
    "gpt-5": "gpt-5-2025-08-07",
    "gpt-5-mini": "gpt-5-mini-2025-08-07",
    "gpt-5-nano": "gpt-5-nano-2025-08-07",
    "o1": "o1-2024-12-17",
    "o3": "o3-2025-04-16",
    "o3-mini": "o3-mini-2025-01-31",
    "o4-mini": "o4-mini-2025-04-16",
}
"""The dated snapshot each of these OpenAI model aliases points at: an answer to a request
for the alias names it as its model (``gpt-4.1`` is answered by ``gpt-4.1-2025-04-14``)."""


def openai_answering(model: str) -> str:
    """The model an OpenAI answer to a request for ``model`` names: the snapshot an alias
    points at (:data:`OPENAI_SNAPSHOTS`); a snapshot, a fine-tuned model or another
    server's model as it was asked for."""
    return OPENAI_SNAPSHOTS.get(model, model)


OPENAI_OUTPUT_LIMITS: dict[str, int] = {
    "gpt-4o": 16384,
    "gpt-4o-mini": 16384,
    "gpt-5": 128000,
    "gpt-5-mini": 128000,
}
"""The most completion tokens a Chat Completions request may ask of each of OpenAI's chat
models the simulator lists (or of one of its dated snapshots)."""

GEMINI_MODELS: tuple[tuple[str, str], ...] = (
    ("gemini-2.5-pro", "Gemini 2.5 Pro"),
    ("gemini-2.5-flash", "Gemini 2.5 Flash"),
    ("gemini-2.5-flash-lite", "Gemini 2.5 Flash-Lite"),
    ("gemini-embedding-001", "Gemini Embedding 001"),
)
"""Gemini's models: id and display name."""

_ANTHROPIC_LIMIT = (20, 1000)
_GEMINI_PAGE = (50, 1000)
"""The default and the largest page of each listing."""


def _asked(query: str, name: str) -> str | None:
    """The last value of the query parameter ``name``, or None."""
    values = parse_qs(query).get(name)
    return values[-1] if values else None


def _size(query: str, name: str, bounds: tuple[int, int]) -> int | None:
    """The page size ``name`` of ``query`` (``bounds``' default without one), or None for
    one that is no whole number."""
    given = _asked(query, name)
    try:
        return bounds[0] if given is None else integer(given)
    except ValueError:
        return None


def _anthropic_model(entry: AnthropicModel) -> dict[str, Any]:
    return {
        "type": "model",
        "id": entry.id,
        "display_name": entry.display_name,
        "created_at": entry.released,
        "lifecycle": "active" if entry.retired is None else "retired",
        "deprecated_at": None,
        "retires_at": entry.retired,
        "line": entry.id.split("-")[1],
        "max_input_tokens": entry.max_input_tokens,
        "max_tokens": entry.max_tokens,
    }


def _anthropic_window(query: str, ids: Sequence[str], limit: int) -> tuple[int, int] | Invalid:
    """The start and end in ``ids`` of the page of ``limit`` models ``after_id`` or
    ``before_id`` asks for; one naming a model not listed is the simulator's own refusal."""
    after, before = _asked(query, "after_id"), _asked(query, "before_id")
    cursor = before if before is not None else after
    if cursor is not None and cursor not in ids:
        name = "before_id" if before is not None else "after_id"
        message = f"{name}: the simulator lists no model '{cursor}' (it lists {', '.join(ids)})"
        return Invalid(message, own=True)
    if before is not None:
        end = ids.index(before)
        return max(end - limit, 0), end
    start = ids.index(after) + 1 if after is not None else 0
    return start, min(start + limit, len(ids))


def anthropic_models(query: str) -> Answer:
    """A page of Anthropic's model list (``{"data", "has_more", "first_id", "last_id"}``),
    of the models in the ``lifecycle`` stages asked for (``active`` and ``deprecated``
    unless told: a retired model only when ``retired`` is asked for)."""
    limit = _size(query, "limit", _ANTHROPIC_LIMIT)
    if limit is None or not 1 <= limit <= _ANTHROPIC_LIMIT[1]:
        return Invalid(f"limit: Input should be a whole number from 1 to {_ANTHROPIC_LIMIT[1]}")
    stages = parse_qs(query).get("lifecycle[]", ["active", "deprecated"])
    listed = [
        m for m in ANTHROPIC_MODELS if ("active" if m.retired is None else "retired") in stages
    ]
    window = _anthropic_window(query, [entry[0] for entry in listed], limit)
    if isinstance(window, Invalid):
        return window
    start, end = window
    page = [_anthropic_model(entry) for entry in listed[start:end]]
    backward = _asked(query, "before_id") is not None
    return 200, {
        "data": page,
        "has_more": start > 0 if backward else end < len(listed),
        "first_id": page[0]["id"] if page else None,
        "last_id": page[-1]["id"] if page else None,
    }


def anthropic_model(model_id: str) -> Answer:
    """One of Anthropic's models, by its id or its dated snapshot's
    (:data:`ANTHROPIC_SNAPSHOTS`), or the API's 404 for one it does not list."""
    found = _found(ANTHROPIC_MODELS, ANTHROPIC_SNAPSHOTS.get(model_id, model_id))
    if found is None:
        return Invalid(f"model: {model_id}", status=404)
    return 200, {**_anthropic_model(found), "id": model_id}


def _openai_model(entry: tuple[str, int]) -> dict[str, Any]:
    return {"id": entry[0], "object": "model", "created": entry[1], "owned_by": "system"}


def openai_models() -> Answer:
    """OpenAI's model list, whole (``{"object": "list", "data"}``)."""
    return 200, {"object": "list", "data": [_openai_model(entry) for entry in OPENAI_MODELS]}


def openai_model(model_id: str) -> Answer:
    """One of OpenAI's models, or the API's 404 ``model_not_found``."""
    found = _found(OPENAI_MODELS, model_id)
    if found is None:
        message = f"The model '{model_id}' does not exist"
        return Invalid(message, param="model", code="model_not_found", status=404)
    return 200, _openai_model(found)


def _gemini_model(entry: tuple[str, str]) -> dict[str, Any]:
    """The API's description of a model: a text model's, or an embedding model's (it
    embeds and counts, with no sampling settings)."""
    named = {"name": f"models/{entry[0]}", "version": "001", "displayName": entry[1]}
    if "embedding" in entry[0]:
        methods = ["embedContent", "countTextTokens", "countTokens", "asyncBatchEmbedContent"]
        return {
            **named,
            "inputTokenLimit": 2048,
            "outputTokenLimit": 1,
            "supportedGenerationMethods": methods,
        }
    return {
        **named,
        "inputTokenLimit": 1048576,
        "outputTokenLimit": 65536,
        "supportedGenerationMethods": ["generateContent", "countTokens"],
        "temperature": 1,
        "topP": 0.95,
        "topK": 64,
        "maxTemperature": 2,
        "thinking": True,
    }


def gemini_models(query: str) -> Answer:
    """A page of Gemini's model list (``{"models", "nextPageToken"}``, the token left out
    on the last page): ``pageSize`` models (0 or none: the default, at most the largest)
    from the one ``pageToken`` names, which is the name of the first model of the page."""
    size = _size(query, "pageSize", _GEMINI_PAGE)
    if size is None or size < 0:
        return Invalid(f"Invalid value at 'page_size' (TYPE_INT32), {_asked(query, 'pageSize')}")
    names = [f"models/{entry[0]}" for entry in GEMINI_MODELS]
    token = _asked(query, "pageToken")
    if token is not None and token not in names:
        message = f"pageToken: the simulator made no page token '{token}'"
        return Invalid(message, own=True)
    start = names.index(token) if token is not None else 0
    end = start + min(size or _GEMINI_PAGE[0], _GEMINI_PAGE[1])
    answer: dict[str, Any] = {"models": [_gemini_model(e) for e in GEMINI_MODELS[start:end]]}
    if end < len(names):
        answer["nextPageToken"] = names[end]
    return 200, answer


def gemini_model(model_id: str, version: str) -> Answer:
    """One of Gemini's models, or the API's 404 ``NOT_FOUND`` for one it does not list."""
    found = _found(GEMINI_MODELS, model_id)
    if found is None:
        return Invalid(f"models/{model_id} is not found for API version {version}.", status=404)
    return 200, _gemini_model(found)


GEMINI_RETIRED = re.compile(r"gemini-1\.[05]-.+|gemini-pro(?:-vision)?")
"""Gemini's retired models (Gemini 1.0 and 1.5, and ``gemini-pro``, not the current
``gemini-pro-latest``): the API answers a call naming one as it answers an unknown model."""


def gemini_retired(model: str, version: str, method: str) -> Invalid | None:
    """The API's 404 for ``method`` asked of a model it retired (:data:`GEMINI_RETIRED`)."""
    return _gemini_not_found(model, version, method) if GEMINI_RETIRED.fullmatch(model) else None


def gemini_method_refused(model: str, version: str, method: str) -> Invalid | None:
    """The API's 404 for ``method`` (``generateContent``, ``batchEmbedContents``...) asked of
    a model that does not offer it: a model it retired (:func:`gemini_retired`), an
    embedding model asked to generate, and any other asked to embed, since only an
    embedding model (``gemini-embedding-001``, ``text-embedding-004``) embeds."""
    embeds = "embedding" in model
    if embeds == (method in ("embedContent", "batchEmbedContents")):
        return gemini_retired(model, version, method)
    return _gemini_not_found(model, version, method)


def _gemini_not_found(model: str, version: str, method: str) -> Invalid:
    """The API's 404 for ``method`` asked of ``model``, which it does not serve so."""
    return Invalid(
        f"models/{model} is not found for API version {version}, or is not supported for "
        f"{method}. Call ListModels to see the list of available models and their supported "
        "methods.",
        status=404,
    )


ANTHROPIC_RETIRED = re.compile(
    r"claude-(?:instant-)?1\.\d|claude-2\.[01]|claude-3-(?:sonnet|opus)-20240229"
    r"|claude-3-opus-latest|claude-3-5-sonnet-(?:20240620|20241022|latest)"
    r"|claude-3-7-sonnet-(?:20250219|latest)"
)
"""Anthropic's retired models the simulator does not list (Claude 1 and 2, retired by
2025-07-21; Claude 3 Sonnet and Opus, 3.5 Sonnet and 3.7 Sonnet, by 2026-02-19), as the
Messages API takes them: ``claude-3-5-sonnet-20240620``, LiteLLM's and smolagents'
``LiteLLMModel`` default, was answered, where the API answers it with a 404."""


def anthropic_model_retired(model: str) -> Invalid | None:
    """The Messages API's 404 for a model it retired (by its id or its dated snapshot's,
    or one of :data:`ANTHROPIC_RETIRED`): a request naming one is refused as the API
    refuses it since its retirement."""
    found = _found(ANTHROPIC_MODELS, ANTHROPIC_SNAPSHOTS.get(model, model))
    if (found is None or found.retired is None) and not ANTHROPIC_RETIRED.fullmatch(model):
        return None
    return Invalid(f"model: {model}", status=404)


_PLATFORM_ID = re.compile(
    r"(?:(?:[a-z]{2,7}\.)?anthropic\.)?(?P<name>claude-[a-z0-9.-]+?)"
    r"(?:@(?P<date>\d{8}))?(?:-v\d+(?::\d+)?)?"
)
"""A Claude model's id on Amazon Bedrock (``us.anthropic.claude-sonnet-4-6``,
``anthropic.claude-haiku-4-5-20251001-v1:0``) or Vertex AI (``claude-haiku-4-5@20251001``)."""


def _anthropic_listed(model: str) -> tuple[AnthropicModel | None, bool]:
    """The entry of :data:`ANTHROPIC_MODELS` that ``model`` names (its id, its dated
    snapshot's, or a platform's id of either), and whether it was named by a platform's id."""
    found = _found(ANTHROPIC_MODELS, ANTHROPIC_SNAPSHOTS.get(model, model))
    match = None if found is not None else _PLATFORM_ID.fullmatch(model)
    if match is None:
        return found, False
    name = match["name"] if match["date"] is None else f"{match['name']}-{match['date']}"
    return _found(ANTHROPIC_MODELS, ANTHROPIC_SNAPSHOTS.get(name, name)), True


def anthropic_output_refused(model: str, body: Mapping[str, Any]) -> Invalid | None:
    """The Messages API's error for a ``max_tokens`` over the most the model may write,
    for a model the simulator lists (by its id or its dated snapshot's), naming the
    snapshot the API serves the request from; on Bedrock or Vertex AI (a platform's id
    of the model), the simulator's own refusal, as their words are not known here."""
    found, on_platform = _anthropic_listed(model)
    asked = body.get("max_tokens")
    if found is None or type(asked) is not int or asked <= found.max_tokens:
        return None
    served = next((s for s, listed in ANTHROPIC_SNAPSHOTS.items() if listed == found.id), model)
    said = (
        f"max_tokens: {asked} > {found.max_tokens}, which is the maximum allowed number of output "
        f"tokens for {served}"
    )
    if on_platform:
        return Invalid(f"{said} {OWN_WORDING}", own=True)
    return Invalid(said)


def anthropic_settings_refused(model: str, body: Mapping[str, Any]) -> Invalid | None:
    """The Messages API's error for settings a model the simulator lists (by its id or its
    dated snapshot's) does not take: a ``temperature`` beside a ``top_p``, of which each
    takes one at most, as Claude Opus 4.1 and the models after it do; an
    ``output_config.effort`` of a model that takes none (:attr:`AnthropicModel.effort`).
    A recording sending them (pydantic-ai's ``ModelSettings(temperature=..., top_p=...)``,
    its ``anthropic_effort`` on claude-haiku-4-5) passed here and failed live; so does a
    platform's id of the model (Bedrock's, Vertex AI's), which passes these words on."""
    found = _anthropic_listed(model)[0]
    if found is None:
        return None
    if body.get("temperature") is not None and body.get("top_p") is not None:
        return Invalid(
            "`temperature` and `top_p` cannot both be specified for this model. "
            "Please use only one."
        )
    config = body.get("output_config")
    if isinstance(config, Mapping) and "effort" in config and not found.effort:
        return Invalid("This model does not support the effort parameter.")
    return None


def openai_output_refused(model: str, body: Mapping[str, Any]) -> Invalid | None:
    """Chat Completions' error for a ``max_completion_tokens`` (or ``max_tokens``) over the
    most completion tokens the model supports (:data:`OPENAI_OUTPUT_LIMITS`; a snapshot,
    ``gpt-4o-2024-08-06``, or a prefixed id, ``openai/gpt-4o``, as its model:
    :func:`~replaygate.assertions.independence.split_snapshot`)."""
    most = OPENAI_OUTPUT_LIMITS.get(split_snapshot(model)[0])
    for name in ("max_completion_tokens", "max_tokens"):
        asked = body.get(name)
        if most is not None and type(asked) is int and asked > most:
            return Invalid(
                f"{name} is too large: {asked}. This model supports at most {most} "
                f"completion tokens, whereas you provided {asked}.",
                name,
                "invalid_value",
            )
    return None


def _found(entries: Sequence[Entry], model_id: str) -> Entry | None:
    """The entry of ``entries`` whose id (its first field) is ``model_id``, or None."""
    return next((entry for entry in entries if entry[0] == model_id), None)
