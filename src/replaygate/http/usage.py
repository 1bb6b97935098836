"""Which fixtures of a store were replayed, for ``--replaygate-strict``.

Every record/replay transport and :func:`~replaygate.http.intercept` notes, per
store object, how many times each recorded request was answered. :func:`unused`
lists the fixtures a run left unused (never sent) or partly used (sent fewer times
than responses were recorded).
"""

from __future__ import annotations

import threading
import weakref
from collections import Counter

from replaygate.store import FixtureStore

_uses: weakref.WeakKeyDictionary[FixtureStore, Counter[str]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def note_use(store: FixtureStore, key: str) -> None:
    """Count one answer given from the fixture ``key`` of ``store``."""
    with _lock:
        counter = _uses.get(store)
        if counter is None:
            counter = _uses[store] = Counter()
        counter[key] += 1


def uses(store: FixtureStore) -> dict[str, int]:
    """How many answers each fixture key of ``store`` gave (replayed or recorded)."""
    with _lock:
        return dict(_uses.get(store, {}))


def reset_uses(store: FixtureStore) -> None:
    """Forget the uses noted for ``store``."""
    with _lock:
        _uses.pop(store, None)


def unused(store: FixtureStore) -> list[str]:
    """One line per HTTP fixture of ``store`` that was not, or not fully, used."""
    counts = uses(store)
    store.refresh()
    lines = []
    for fixture in store:
        if "method" not in fixture.request or "path" not in fixture.request:
            continue  # not an HTTP fixture: its uses are not tracked here
        used = counts.get(fixture.key, 0)
        if used == 0:
            lines.append(f"{fixture.key} {_describe(fixture.request)}: never requested")
        elif used < fixture.samples:
            lines.append(
                f"{fixture.key} {_describe(fixture.request)}: requested {used} time(s), "
                f"{fixture.samples} responses recorded"
            )
    return lines


def _describe(request: dict[str, object]) -> str:
    method, path = request.get("method"), request.get("path")
    return f"({method} {path})" if method and path else ""
