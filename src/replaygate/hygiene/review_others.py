"""The files a fixture review passes over: replaygate's other files kept beside a store.

An eval cases file and a baseline are named as fixture files (``cases.jsonl``,
``baseline.json``) but hold none (:func:`~replaygate.fixtures.store.folder.other_kind`,
the rule ``verify`` and ``compact`` pass them over by). A review names those that changed,
with what changed: the cases added, removed or changed (``c1: floor: 4 != 3``), and for a
baseline the reason of its newest history entry, or that none was added (law 9).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from replaygate.errors import first_few
from replaygate.evals.traced import written_digest
from replaygate.fixtures.diff import field_diff

CASES_KIND = "eval cases"
"""The :data:`~replaygate.fixtures.store.folder.LINE_KINDS` name of an eval cases file."""
SHOWN = 3
"""How many cases a change names before ``...``."""


@dataclass(frozen=True)
class PassedOver:
    """A changed file that is one of replaygate's other files, not fixtures: its ``kind``
    and what changed in it, in a few words."""

    file: str
    kind: str
    change: str

    def __str__(self) -> str:
        return f"{self.file} ({self.kind}): {self.change}"


def other_file_change(file: str, kind: str, old: bytes | None, new: bytes | None) -> PassedOver:
    """What changed in ``file``, one of replaygate's other files of ``kind``, as it was
    (``old``, None when added) and is (``new``, None when removed)."""
    # what a baseline is tagged with, from the module reading them, which loads the eval
    # stack: a diff that meets none (most) starts without it
    from replaygate.evals.reference import BASELINE_FORMAT

    if new is None:
        return PassedOver(file, kind, "removed")
    said = "added" if old is None else "changed"
    if kind == BASELINE_FORMAT:
        return PassedOver(file, kind, _baseline_change(said, old, new))
    if kind == CASES_KIND:
        return PassedOver(file, kind, _cases_change(said, old, new))
    return PassedOver(file, kind, said)


def _document(data: bytes | None) -> dict[str, Any] | None:
    try:
        found = orjson.loads(data) if data is not None else None
    except orjson.JSONDecodeError:
        return None
    return found if isinstance(found, dict) else None


def _history(document: Mapping[str, Any] | None) -> list[Any]:
    history = (document or {}).get("history")
    return history if isinstance(history, list) else []


def _baseline_change(said: str, old: bytes | None, new: bytes) -> str:
    """``changed, reason of its newest history entry: '...'``; or that no entry was added
    (a hand edit: no reason kept for it), or that only the layout changed."""
    before, after = _document(old), _document(new)
    if after is None:
        return said
    if before is not None and written_digest(before) == written_digest(after):
        return f"{said}: the same metrics, cases and source (only how they are written)"
    history = _history(after)
    newest = history[-1] if history else None
    if not isinstance(newest, dict) or not isinstance(newest.get("reason"), str):
        return f"{said}, with no reason in its history"
    if newest in _history(before):
        return f"{said} with no history entry added: no reason kept for the change"
    shown = f"{said}, reason of its newest history entry: {newest['reason']!r}"
    digest = newest.get("digest")
    if isinstance(digest, str) and digest != written_digest(after):
        shown += " (but its metrics, cases or source are not what that update wrote: edited since)"
    return shown


def _cases(data: bytes | None) -> dict[str, Any] | None:
    """The cases of a cases file by id; None when a line is no case with an id."""
    found: dict[str, Any] = {}
    for line in (data or b"").splitlines():
        if not line.strip():
            continue
        try:
            case = orjson.loads(line)
        except orjson.JSONDecodeError:
            return None
        if not isinstance(case, dict) or not isinstance(case.get("id"), str):
            return None
        found[case["id"]] = case
    return found


def _cases_change(said: str, old: bytes | None, new: bytes) -> str:
    """``changed: case c1: floor: 4 != 3; cases added: c9``: what changed, case by case."""
    before, after = _cases(old), _cases(new)
    if before is None or after is None:
        return said
    if old is None:
        return f"{said}: {len(after)} case(s)"
    parts = [
        _case_change(name, before[name], after[name])
        for name in after
        if name in before and before[name] != after[name]
    ]
    for what, names in (
        ("added", [n for n in after if n not in before]),
        ("removed", [n for n in before if n not in after]),
    ):
        if names:
            parts.append(f"case(s) {what}: {first_few(names, SHOWN)}")
    if not parts:
        return f"{said}: the same cases (only how they are written)"
    more = f"; and {len(parts) - SHOWN} more" if len(parts) > SHOWN else ""
    return f"{said}: {'; '.join(parts[:SHOWN])}{more}"


def _case_change(name: str, old: Any, new: Any) -> str:
    lines = [difference.render() for difference in field_diff(old, new)]
    return f"case {name}: {first_few(lines, SHOWN)}"
