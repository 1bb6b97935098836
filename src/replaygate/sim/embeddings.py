"""OpenAI's embeddings (``POST /v1/embeddings``) and Gemini's (``:embedContent``,
``:batchEmbedContents``), answered without the model.

A vector is made from the model and the text alone (a hash seeds it), so the same text
gets the same vector, and is unit length, as OpenAI's are: ``text-embedding-3-large``'s
have 3072 numbers, the others' 1536, or ``dimensions`` when the request gives it. The
input is a string, a list of strings, a list of token ids or a list of those lists; the
vectors come as numbers or, with ``encoding_format: base64`` (the openai SDK's default),
as the base64 of their little-endian 32-bit floats. Gemini's come as ``values``, 3072 of
them for ``gemini-embedding-*`` (768 for the older models), cut to the request's
``outputDimensionality``.
"""

from __future__ import annotations

import base64
import hashlib
import math
import random
import struct
from collections.abc import Mapping
from typing import Any

import orjson

from replaygate.sim.catalogue import gemini_method_refused
from replaygate.sim.replies import openai_error
from replaygate.sim.tokens import tokens
from replaygate.sim.validation import (
    Invalid,
    gemini_enum_value,
    gemini_part_data,
    gemini_unknown,
    no_part_data,
)

MAX_INPUTS = 2048
"""The most inputs one request may embed."""
FORMATS = ("float", "base64")


def default_size(model: str) -> int:
    """How many numbers the model's vectors have when the request does not say."""
    return 3072 if "large" in model else 1536


def vector(model: str, text: str, size: int) -> list[float]:
    """The unit vector of ``text`` under ``model``, ``size`` numbers long."""
    seed = hashlib.sha256(f"{model}\0{text}".encode()).digest()
    rng = random.Random(int.from_bytes(seed, "big"))
    raw = [rng.uniform(-1.0, 1.0) for _ in range(size)]
    norm = math.sqrt(sum(x * x for x in raw)) or 1.0
    return [x / norm for x in raw]


def invalid_input(param: str) -> Invalid:
    """OpenAI's refusal of a request field ``param`` (``input``) its schema does not take."""
    return Invalid(
        f"'$.{param}' is invalid. Please check the API reference: "
        "https://platform.openai.com/docs/api-reference.",
        param,
    )


def _inputs(given: Any) -> list[str] | Invalid:
    """Each input as the text its vector is made of, or why the input is refused."""
    invalid = invalid_input("input")
    if isinstance(given, str):
        return [given] if given else invalid
    if not isinstance(given, list) or not given or len(given) > MAX_INPUTS:
        return invalid
    if all(isinstance(t, int) and not isinstance(t, bool) for t in given):
        return [repr(given)]
    texts = []
    for item in given:
        if isinstance(item, str) and item:
            texts.append(item)
        elif isinstance(item, list) and item and all(isinstance(t, int) for t in item):
            texts.append(repr(item))
        else:
            return invalid
    return texts


def _problem(body: Mapping[str, Any]) -> Invalid | None:
    model = body.get("model")
    if not isinstance(model, str) or not model:
        return Invalid(
            "Missing required parameter: 'model'.", "model", "missing_required_parameter"
        )
    if "input" not in body:
        return Invalid(
            "Missing required parameter: 'input'.", "input", "missing_required_parameter"
        )
    encoding = body.get("encoding_format", "float")
    if encoding not in FORMATS:
        return Invalid(
            f"Invalid value: {encoding!r}. Supported values are: 'float' and 'base64'.",
            "encoding_format",
            "invalid_value",
        )
    dimensions = body.get("dimensions")
    if dimensions is not None:
        if "ada" in model:
            return Invalid("This model does not support specifying dimensions.", "dimensions")
        if isinstance(dimensions, bool) or not isinstance(dimensions, int) or dimensions < 1:
            return Invalid(
                f"Invalid 'dimensions': expected a positive integer, got {dimensions!r}.",
                "dimensions",
            )
        if dimensions > default_size(model):  # as the API: and a vector made in bounds
            return Invalid(
                f"This model does not support more than {default_size(model)} dimensions, "
                f"got {dimensions}.",
                "dimensions",
            )
    return None


def answer(body: Any) -> tuple[int, dict[str, Any]]:
    """The status and JSON body answering an embeddings request ``body``."""
    if not isinstance(body, Mapping):
        body = {}
    problem = _problem(body)
    texts = _inputs(body.get("input")) if problem is None else problem
    if isinstance(texts, Invalid):
        return texts.status, openai_error(texts.message, param=texts.param, code=texts.code)
    model = str(body["model"])
    size = body.get("dimensions") or default_size(model)
    as_base64 = body.get("encoding_format") == "base64"
    data = []
    for index, text in enumerate(texts):
        numbers = vector(model, text, size)
        encoded: Any = numbers
        if as_base64:
            encoded = base64.b64encode(struct.pack(f"<{size}f", *numbers)).decode("ascii")
        data.append({"object": "embedding", "index": index, "embedding": encoded})
    used = sum(tokens(len(text)) for text in texts)
    return 200, {
        "object": "list",
        "data": data,
        "model": model,
        "usage": {"prompt_tokens": used, "total_tokens": used},
    }


GEMINI_BATCH = 100
"""The most requests one Gemini ``batchEmbedContents`` request may hold."""


def gemini_size(model: str) -> int:
    """How many numbers a Gemini embedding model's vectors have: 3072 for
    ``gemini-embedding-*``, 768 for the older ``text-embedding-004`` and ``embedding-001``."""
    return 3072 if model.startswith("gemini-embedding") else 768


_EMBED_FIELDS = frozenset(("model", "content", "taskType", "title", "outputDimensionality"))
"""The fields of an ``EmbedContentRequest``, in camelCase."""
_TASK_TYPES = frozenset(
    (
        "TASK_TYPE_UNSPECIFIED",
        "RETRIEVAL_QUERY",
        "RETRIEVAL_DOCUMENT",
        "SEMANTIC_SIMILARITY",
        "CLASSIFICATION",
        "CLUSTERING",
        "QUESTION_ANSWERING",
        "FACT_VERIFICATION",
        "CODE_RETRIEVAL_QUERY",
    )
)
"""The names of the API's ``TaskType`` enum."""


def _gemini_fields(request: Any, at: str) -> Invalid | None:
    """The API's refusal of one ``EmbedContentRequest`` at ``at`` (``requests[0]`` in a
    batch, "" alone): a field it does not have, or a ``taskType`` none of its enum's
    (google-genai sends ``EmbedContentConfig(task_type=...)`` as given)."""
    if not isinstance(request, Mapping):
        return None
    unknown = gemini_unknown(request, _EMBED_FIELDS, at)
    if unknown is not None:
        return unknown
    task = request.get("taskType", request.get("task_type"))
    if task is None or task in _TASK_TYPES:
        return None
    return gemini_enum_value(f"{at}.task_type" if at else "task_type", "TaskType", task)


def _gemini_text(request: Any, where: str) -> str | Invalid:
    """The text of one ``EmbedContentRequest``'s ``content`` parts, or the API's refusal of
    a request with no parts or a part holding no data (an empty text)."""
    content = request.get("content") if isinstance(request, Mapping) else None
    parts = content.get("parts") if isinstance(content, Mapping) else None
    if not isinstance(parts, list) or not parts:
        return Invalid(f"* {where}.content: contents is not specified")
    for j, part in enumerate(parts):
        if gemini_part_data(part) is None:
            return no_part_data(f"{where}.content.parts[{j}]")
    return "".join(str(p.get("text", "")) for p in parts)


def _gemini_embedding(
    model: str, request: Mapping[str, Any], text: str
) -> dict[str, Any] | Invalid:
    """One ``ContentEmbedding``: the model's unit vector cut to ``outputDimensionality``
    (so a shorter one is not unit length, as the API's are not); one longer than the
    model's, or no positive whole number, is the simulator's own refusal, which makes none
    such."""
    size = gemini_size(model)
    asked = request.get("outputDimensionality") or request.get("output_dimensionality")
    if asked is None:
        return {"values": vector(model, text, size)}
    if isinstance(asked, bool) or not isinstance(asked, int) or not 0 < asked <= size:
        return Invalid(
            f"outputDimensionality: the simulator makes vectors of 1 to {size} numbers for "
            f"{model}, not {orjson.dumps(asked).decode()}",
            own=True,
        )
    return {"values": vector(model, text, size)[:asked]}


def gemini_answer(model: str, method: str, version: str, body: Any) -> tuple[int, Any] | Invalid:
    """The status and body answering Gemini's ``embedContent`` (``{"embedding": ...}``) or
    ``batchEmbedContents`` (``{"embeddings": [...]}``, google-genai's ``embed_content``) of
    ``model``, or the API's refusal: a model that embeds nothing (a generation model), a
    request without content, more than :data:`GEMINI_BATCH` in a batch."""
    unserved = gemini_method_refused(model, version, method)
    if unserved is not None:
        return unserved
    batch = method == "batchEmbedContents"
    given = body if isinstance(body, Mapping) else {}
    requests = given.get("requests") if batch else [given]
    where = "BatchEmbedContentsRequest.requests" if batch else "EmbedContentRequest"
    if not isinstance(requests, list) or not requests:
        return Invalid(f"* {where}: requests must not be empty")
    if len(requests) > GEMINI_BATCH:
        return Invalid(f"* {where}: at most {GEMINI_BATCH} requests can be in one batch")
    made = []
    for i, request in enumerate(requests):
        refused = _gemini_fields(request, f"requests[{i}]" if batch else "")
        if refused is not None:
            return refused
        text = _gemini_text(request, f"{where}[{i}]" if batch else where)
        if isinstance(text, Invalid):
            return text
        embedding = _gemini_embedding(model, request, text)
        if isinstance(embedding, Invalid):
            return embedding
        made.append(embedding)
    return 200, {"embeddings": made} if batch else {"embedding": made[0]}
