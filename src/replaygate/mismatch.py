"""The loud error of a replay miss: key, store, size, and the nearest request's field diff."""

from __future__ import annotations

from typing import Any

from replaygate.diff import field_diff
from replaygate.errors import FixtureMismatchError
from replaygate.store import FixtureStore

MAX_DIFF_LINES = 12


def mismatch_error(
    store: FixtureStore, request: Any, key: str, *, what: str = "request"
) -> FixtureMismatchError:
    """The :class:`FixtureMismatchError` for ``request`` (key ``key``) missing from ``store``."""
    lines = [
        f"no fixture recorded for this {what}: key {key} not in {store.path} "
        f"({len(store)} fixture{'s' if len(store) != 1 else ''})"
    ]
    differences: tuple[str, ...] = ()
    near = store.nearest(request)
    if near is None:
        if not store.path.exists():
            lines.append(f"there is no store at {store.path}: record it first")
        elif len(store) == 0:
            lines.append("the store is empty: record it first")
        else:
            lines.append("no recorded request to compare it with")
    else:
        loc, fixture = near
        differences = tuple(d.render() for d in field_diff(fixture.request, request))
        lines.append(
            f"nearest recorded request: key {fixture.key} at {loc} (recorded != requested)"
        )
        lines.extend(f"  {d}" for d in differences[:MAX_DIFF_LINES])
        if len(differences) > MAX_DIFF_LINES:
            lines.append(f"  ... and {len(differences) - MAX_DIFF_LINES} more differences")
    lines.append(
        "If the change was meant, re-record: `replaygate record --approve-live` or pytest "
        "`--record-mode=record-missing --approve-live`. Otherwise revert the change."
    )
    return FixtureMismatchError(
        "\n".join(lines), key=key, store=str(store.path), differences=differences
    )
