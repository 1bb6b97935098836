"""The JSON document that ``replaygate diff --json`` prints (its shape: ``docs/cli.md``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from replaygate.fixtures.diff import FieldDifference
from replaygate.hygiene.review import Alarm, RecordedTwice, ResponseChanged, Review, SecretHeld
from replaygate.hygiene.snapshot import Entry
from replaygate.jsondoc import json_fields

__all__ = ["review_json"]


def _entry(entry: Entry) -> dict[str, Any]:
    return {"file": entry.file, "line": entry.line, "key": entry.fixture.key}


def _differences(differences: Sequence[FieldDifference]) -> list[str]:
    return [difference.render() for difference in differences]


def _alarm(alarm: Alarm) -> dict[str, Any]:
    """An alarm of ``diff``: the fixture, its differences, and for a request recorded
    twice, the other fixture of it (``of``); for a response changed under an unchanged
    request, whether it was recorded again (``recorded_again``: ``meta.recorded_at``
    changed with it) or edited by hand; for a secret-looking value, where it is and
    the rule that found it (``secret``), never the value."""
    found = {**_entry(alarm.new), "differences": _differences(alarm.differences)}
    if isinstance(alarm, ResponseChanged):
        return {**found, "recorded_again": alarm.recorded_again}
    if isinstance(alarm, SecretHeld):
        return {**found, "secret": {"path": alarm.finding.path, "rule": alarm.finding.detector}}
    return {**found, "of": _entry(alarm.old)} if isinstance(alarm, RecordedTwice) else found


def review_json(result: Review, allowed_reason: str | None) -> dict[str, Any]:
    """``diff``: each class of change with its fixtures (file, line, key) and field paths."""
    return {
        **json_fields(result, ("path", "base", "head", "files_compared", "files_changed")),
        "alarms": [_alarm(a) for a in result.alarms],
        "allowed_reason": allowed_reason,
        "paired": [
            {
                "old": _entry(p.old),
                "new": _entry(p.new),
                "response_changed": p.response_changed,
                "differences": _differences(p.differences),
            }
            for p in result.paired
        ],
        "added": [_entry(e) for e in result.added],
        "removed": [_entry(e) for e in result.removed],
        "copied": [{**_entry(c.new), "of": _entry(c.old)} for c in result.copied],
        "samples_added": [{**_entry(s.new), "added": s.added} for s in result.samples_added],
        "meta_changed": [
            {**_entry(m.new), "differences": _differences(m.differences)}
            for m in result.meta_changed
        ],
        "renamed": [json_fields(r) for r in result.renamed],
        "files_removed": list(result.files_removed),
        "files_added": list(result.files_added),
        "passed_over": [json_fields(o) for o in result.passed_over],
    }
