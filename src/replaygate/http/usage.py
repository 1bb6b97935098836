"""Which fixtures of a store were answered, for ``--replaygate-strict``.

Every record/replay session (:class:`~replaygate.http.exchange.Exchange`) counts,
per fixture key, how many times it answered from or recorded into its store, and
registers that counter here under the store object. :func:`unused` lists the HTTP
fixtures a run left unused (never sent) or partly used (sent fewer times than
responses were recorded).
"""

from __future__ import annotations

import threading
import weakref
from collections import Counter

from replaygate.fixtures.store import FixtureStore

_counters: weakref.WeakKeyDictionary[FixtureStore, list[Counter[str]]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def counter_for(store: FixtureStore) -> Counter[str]:
    """A new use counter (fixture key -> answers) counted among ``store``'s uses."""
    counter: Counter[str] = Counter()
    with _lock:
        _counters.setdefault(store, []).append(counter)
    return counter


def uses(store: FixtureStore) -> dict[str, int]:
    """How many answers each fixture key of ``store`` gave (replayed or recorded)."""
    total: Counter[str] = Counter()
    with _lock:
        for counter in _counters.get(store, []):
            total.update(counter)
    return dict(total)


def reset_uses(store: FixtureStore) -> None:
    """Forget the uses counted for ``store`` so far."""
    with _lock:
        for counter in _counters.get(store, []):
            counter.clear()


def unused(store: FixtureStore) -> list[str]:
    """One line per HTTP fixture of ``store`` that was not, or not fully, used."""
    counts = uses(store)
    store.refresh()
    lines = []
    for fixture in store:
        if "method" not in fixture.request or "path" not in fixture.request:
            continue  # not an HTTP fixture: its uses are not counted here
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
