"""Whether a baseline is what its last ``baseline update`` wrote (law 9).

Each history entry keeps a digest of the metrics, cases and source the update wrote. A
baseline whose content no longer has the digest of its last entry was changed without a
reason: edited by hand, or joined from two updates by a merge (git merges the metrics
of one branch with the cases of the other, and keeps one of the two entries).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from replaygate.errors import shown_file

DIGESTED = ("metrics", "cases", "source")
"""The fields of a baseline its history's digests cover."""


def written_digest(document: Mapping[str, Any]) -> str:
    """``sha256:...`` of a baseline document's :data:`DIGESTED` fields, keys sorted and
    numbers as floats: the same for the same values however the file is laid out."""
    kept = {field: _plain(document.get(field)) for field in DIGESTED}
    text = json.dumps(kept, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _plain(value: Any) -> Any:
    """``value`` with every number a float (``1`` and ``1.0`` are one value)."""
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return value


def untraced_change(document: Mapping[str, Any], name: str) -> str | None:
    """Why the checked baseline ``document`` (read from ``name``) is not what its last
    update wrote, or None when it is, or when its history keeps no digest (written
    before digests were kept). A baseline whose history holds no entry was written by
    no update (each appends one): its history was deleted, or the file made by hand."""
    history = document.get("history") or []
    if not history:
        return (
            f"{shown_file(name)}: its history holds no entry, where every `baseline update` "
            "appends one with the reason for what it wrote: the history was deleted, or the "
            "file was written by hand, and no reason for its metrics and cases is kept (nor "
            f"can an edit of them be seen). {_remedy()}"
        )
    if not any("digest" in entry for entry in history):
        return None
    last = history[-1]
    at = f"{last['date']}, reason {last['reason']!r}"
    if "digest" not in last:
        return (
            f"{shown_file(name)}: history[{len(history) - 1}] ({at}) keeps no digest of what "
            "it wrote, while an earlier entry does: `baseline update` writes one in each "
            f"entry, so this one was written by hand. {_remedy()}"
        )
    if last["digest"] == written_digest(document):
        return None
    return (
        f"{shown_file(name)}: its metrics, cases or source are not what its last update "
        f"wrote ({at}){_differences(document, history)}: it was edited by hand, or a merge "
        f"joined two updates, and no reason for that change is kept. {_remedy()}"
    )


def _remedy() -> str:
    return (
        "Run the eval and make its results the baseline with `replaygate baseline update "
        "--results FILE --reason ...` (after a merge, on the merged tree), or restore the "
        "file from git"
    )


def _differences(document: Mapping[str, Any], history: Sequence[Mapping[str, Any]]) -> str:
    """`` (metrics.success is 0.75 where its history last set 0.875; case secrets is
    missing, though no update removed it)``: what the history's changes, replayed, tell
    apart from the file; empty when they tell nothing (a floor or a count edited)."""
    metrics: dict[str, Any] = {}
    cases: set[str] = set()
    for entry in history:
        changes = entry.get("changes", {}).items()
        metrics.update({k: c["to"] for k, c in changes if isinstance(c, Mapping) and "to" in c})
        cases = (cases | set(entry.get("cases_added", ()))) - set(entry.get("cases_removed", ()))
    now = document.get("metrics", {})
    shown = [
        f"metrics.{k} is {now[k]} where its history last set {v}"
        for k, v in metrics.items()
        if k in now and now[k] != v
    ]
    held = set(document.get("cases", {}))
    shown += [f"case {c} is missing, though no update removed it" for c in sorted(cases - held)]
    shown += [f"case {c} is there, though no update added it" for c in sorted(held - cases)]
    return f" ({'; '.join(shown)})" if shown else ""
