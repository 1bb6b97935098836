"""Constraints an SDK moved out of a JSON schema into its description, read back.

The anthropic SDK's structured outputs (``messages.parse`` with ``output_format``, and the
frameworks built on it) send Anthropic a schema of the keywords its structured outputs
take, and append the others to the field's description for the model to follow:
``"A code\\n\\n{pattern: ^[A-Z]{3}$}"``, ``"{uniqueItems: True, minItems: 3}"``,
``"{prefixItems: [{'type': 'integer'}], minItems: 1}"``, a pydantic ``Json`` field's
``"{contentMediaType: application/json, contentSchema: {...}}"``. The model reads them, and so does
the simulator: each constraint of such a last paragraph the schema does not give itself
is taken as its own, so the answer validates as the SDK's model class. LiteLLM does the
same for Anthropic's models in words of its own, a sentence ending the description:
``"Tags Note: minimum number of items: 2, maximum value: 60."``; those are read too.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

_PAIR = re.compile(r"(?:^|, )([A-Za-z_$][\w$]*): ")
"""Where one ``name: value`` pair begins in the paragraph's braces."""


def _whole(raw: str) -> int | None:
    return int(raw) if re.fullmatch(r"-?\d+", raw) else None


def _number(raw: str) -> int | float | None:
    whole = _whole(raw)
    if whole is not None:
        return whole
    try:
        value = float(raw)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _literal(raw: str) -> Any:
    """The Python literal ``raw`` (a ``dict`` or a ``list`` of schemas), or None."""
    try:
        return ast.literal_eval(raw)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def _schemas(raw: str) -> list[Any] | None:
    value = _literal(raw)
    return value if isinstance(value, list) else None


def _schema(raw: str) -> dict[str, Any] | None:
    value = _literal(raw)
    return value if isinstance(value, dict) else None


_READERS: dict[str, Callable[[str], Any]] = {
    **dict.fromkeys(("minItems", "maxItems", "minLength", "maxLength"), _whole),
    **dict.fromkeys(
        ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"), _number
    ),
    "pattern": str,
    "format": str,
    "contentEncoding": str,
    "contentMediaType": str,
    "contentSchema": _schema,
    "uniqueItems": lambda raw: True if raw == "True" else None,
    "prefixItems": _schemas,
}
"""How the value of each constraint read back is written (Python's ``str`` of it)."""


_LABELS = {
    "minimum number of items": "minItems",
    "maximum number of items": "maxItems",
    "minimum value": "minimum",
    "maximum value": "maximum",
    "exclusive minimum value": "exclusiveMinimum",
    "exclusive maximum value": "exclusiveMaximum",
    "minimum length": "minLength",
    "maximum length": "maxLength",
    "must be a multiple of": "multipleOf",
    "all array items must be unique": "uniqueItems",
}
"""LiteLLM's words for a constraint it moved into a description -> the constraint."""
_NOTE = re.compile(r"(?:^| )Note: (.*)\.\Z", re.S)
_NOTED = re.compile(
    r"(?:^|, )(all array items must be unique|must be a multiple of|[a-z ]+?)(?:: | )?"
    r"(-?[\d.eE+]+)?(?=, |\Z)"
)
"""One constraint of LiteLLM's note: its words, then its value (none for ``uniqueItems``)."""


def _braced(description: str) -> dict[str, str]:
    """The ``name: value`` pairs of the description's last paragraph in braces, as written."""
    tail = description.rsplit("\n\n", 1)[-1]
    pairs = list(_PAIR.finditer(tail[1:-1]))
    if not (tail.startswith("{") and tail.endswith("}") and pairs and pairs[0].start() == 0):
        return {}
    return {
        pair.group(1): tail[1:-1][pair.end() : after.start() if after else None]
        for pair, after in zip(pairs, [*pairs[1:], None], strict=True)
    }


def _noted(description: str) -> dict[str, str]:
    """The constraints of LiteLLM's ``Note: ...`` ending the description, as written
    (``True`` for ``uniqueItems``)."""
    note = _NOTE.search(description)
    if note is None:
        return {}
    found = {}
    for words, raw in _NOTED.findall(note.group(1)):
        name = _LABELS.get(words)
        if name is not None and bool(raw) != (name == "uniqueItems"):
            found[name] = raw or "True"
    return found


def described(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """``schema`` with the constraints of its description's last paragraph (``{name:
    value, ...}``), or of LiteLLM's note ending it, that it does not give itself;
    ``schema`` itself when there are none."""
    description = schema.get("description")
    if not isinstance(description, str):
        return schema
    found: dict[str, Any] = {}
    for name, raw in (_braced(description) or _noted(description)).items():
        value = _READERS[name](raw) if name in _READERS and name not in schema else None
        if value is not None:
            found[name] = value
    return {**schema, **found} if found else schema
