"""OpenAI's moderations (``POST /v1/moderations``, ``client.moderations.create``),
answered without the model.

Each input is scored in every category OpenAI's moderation models name, a low score made
from the model and the input alone (a hash seeds it), so the same input gets the same
scores and is not flagged. A text holding :data:`FLAG` and a category's name
(``[replaygate:flag violence]``) is flagged in that category, with a score of 0.9, so a
test can record the branch that handles a flagged input. The input is a string, a list
of strings (a result each) or a list of text and image parts, scored together as one
result whose ``category_applied_input_types`` say which kinds of part each category
read (text only for those that read no image).
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from typing import Any

from replaygate.sim.draws import Draw, Draws, digest_of
from replaygate.sim.embeddings import invalid_input
from replaygate.sim.validation import OWN_WORDING, Invalid

DEFAULT_MODEL = "omni-moderation-latest"
"""The model the API moderates with when the request names none."""

CATEGORIES: tuple[tuple[str, bool], ...] = (
    ("harassment", False),
    ("harassment/threatening", False),
    ("hate", False),
    ("hate/threatening", False),
    ("illicit", False),
    ("illicit/violent", False),
    ("self-harm", True),
    ("self-harm/instructions", True),
    ("self-harm/intent", True),
    ("sexual", True),
    ("sexual/minors", False),
    ("violence", True),
    ("violence/graphic", True),
)
"""Each category a moderation scores, and whether it reads images too (the openai SDK's
``CategoryAppliedInputTypes``)."""

FLAG = "[replaygate:flag "
"""How a text asks to be flagged: ``[replaygate:flag CATEGORY]``."""

_FLAGGED = re.compile(re.escape(FLAG) + r"([a-z/-]+)\]")
_FLAGGED_SCORE = 0.9
_PART_TYPES = ("text", "image_url")


def _part_problem(part: Any, where: str) -> Invalid | None:
    """The API's refusal of a multi-modal input part that is neither a text nor an image
    given by its URL (the SDK's ``ModerationMultiModalInputParam``)."""
    if not isinstance(part, Mapping) or part.get("type") not in _PART_TYPES:
        return invalid_input(where)
    if part["type"] == "text" and not isinstance(part.get("text"), str):
        return invalid_input(f"{where}.text")
    image = part.get("image_url")
    if part["type"] == "image_url" and not (
        isinstance(image, Mapping) and isinstance(image.get("url"), str)
    ):
        return invalid_input(f"{where}.image_url")
    return None


def _inputs(given: Any, model: str) -> list[list[Mapping[str, Any]]] | Invalid:
    """The input as the parts of each result (a text is one text part), or its refusal."""
    if isinstance(given, str):
        return [[{"type": "text", "text": given}]]
    if not isinstance(given, list) or not given:
        return invalid_input("input")
    if all(isinstance(item, str) for item in given):
        return [[{"type": "text", "text": item}] for item in given]
    for i, part in enumerate(given):
        problem = _part_problem(part, f"input[{i}]")
        if problem is not None:
            return problem
    if model.startswith("text-moderation") and any(p["type"] != "text" for p in given):
        return Invalid(
            f"input: {model} moderates text only, not images; omni-moderation-latest reads "
            f"both {OWN_WORDING}",
            "input",
            own=True,
        )
    return [list(given)]


def _result(model: str, parts: list[Mapping[str, Any]]) -> dict[str, Any]:
    """The moderation of one input (its ``parts``, scored together)."""
    rng = random.Random(int.from_bytes(digest_of(model, parts), "big"))
    text = " ".join(str(p.get("text", "")) for p in parts)
    flagged = set(_FLAGGED.findall(text))
    images = any(p["type"] == "image_url" for p in parts)
    texts = any(p["type"] == "text" for p in parts)
    categories, scores, applied = {}, {}, {}
    for name, reads_images in CATEGORIES:
        low = round(rng.uniform(1e-6, 1e-3), 8)
        scores[name] = _FLAGGED_SCORE if name in flagged else low
        categories[name] = name in flagged
        applied[name] = ["text"] * texts + ["image"] * (images and reads_images)
    return {
        "flagged": any(categories.values()),
        "categories": categories,
        "category_scores": scores,
        "category_applied_input_types": applied,
    }


def answer(body: Any, draw: Draw, seed: int) -> tuple[int, dict[str, Any]] | Invalid:
    """The status and JSON body answering a moderation request ``body``, its id from
    ``draw`` (the requests of the same body, counted) under ``seed``, or its refusal."""
    given = body if isinstance(body, Mapping) else {}
    if "input" not in given:
        return Invalid(
            "Missing required parameter: 'input'.", "input", "missing_required_parameter"
        )
    model = given.get("model", DEFAULT_MODEL)
    if not isinstance(model, str) or not model:
        return invalid_input("model")
    inputs = _inputs(given["input"], model)
    if isinstance(inputs, Invalid):
        return inputs
    results = [_result(model, parts) for parts in inputs]
    return 200, {"id": f"modr-sim_{draw.tag(seed)}", "model": model, "results": results}


class Moderations:
    """The moderations a simulator made: each id counts the requests of the same body."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self._made = Draws()

    def answer(self, body: Any) -> tuple[int, dict[str, Any]] | Invalid:
        """:func:`answer`, the request counted."""
        return answer(body, self._made.counted(digest_of(body)), self.seed)

    def learn(self, body: Any) -> None:
        """Count ``body`` as answered here (a recording replayed its answer)."""
        self._made.counted(digest_of(body))
