"""The JSON documents that ``--json`` prints, for results that have no JSON form of their own
(``diff``'s: :mod:`replaygate.cli.review_json`, apart so that ``verify`` does not import
the review).

Every shape is documented in ``docs/cli.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from replaygate.cli.json_out import echo_json
from replaygate.hygiene.verify import StoreProblem
from replaygate.jsondoc import json_fields

__all__ = ["echo_json", "verify_json"]


def verify_json(path: str, count: int, problems: Sequence[StoreProblem]) -> dict[str, Any]:
    """``verify``: the fixtures checked and every problem with its file and line."""
    return {
        "path": path,
        "fixtures": count,
        "problems": [json_fields(problem) for problem in problems],
    }
