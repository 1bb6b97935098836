"""Collection: a sampled test's declaration is checked before anything runs (law 7)."""

from __future__ import annotations

import difflib
import inspect
import unittest
from typing import TYPE_CHECKING, Any

import pytest

from replaygate.pytest_plugin.fixture_info import argnames, fixture_defs, needing, requested_by
from replaygate.pytest_plugin.refusals import fail_refused, refuse
from replaygate.pytest_plugin.repeats import repetitions
from replaygate.pytest_plugin.reruns import RERUNS_REFUSED, item_retries
from replaygate.pytest_plugin.sampling_state import CHECKS_FIXTURE, MARKER, SAMPLE_FIXTURE, SPEC
from replaygate.pytest_plugin.unloaded import refuse_unloaded

if TYPE_CHECKING:
    from replaygate.sampling.verdict import SampleSpec


class _Refused(Exception):
    """A sampled test declared in a way that cannot give a trustworthy verdict."""


def _closest_marker(item: pytest.Item) -> pytest.Mark | None:
    """The closest ``sampled`` mark; two on the same test, class or module are refused:
    either count could be the one meant, and the other was silently dropped. A class's
    own mark wins over one it inherits."""
    found = [(node, mark) for node, mark in item.iter_markers_with_node(MARKER)]
    if not found:
        return None
    node = found[0][0]
    same = _declared(node) or [mark for other, mark in found if other is node]
    if len(same) > 1:
        where = "test" if node is item else f"{type(node).__name__.lower()} {node.name}"
        declared = ", ".join(f"{mark.args!r} {mark.kwargs!r}" for mark in same)
        raise _Refused(
            f"{item.nodeid}: @pytest.mark.{MARKER} is declared {len(same)} times on the "
            f"{where} ({declared}): declare the sample count and floor once (law 7)"
        )
    return same[0]


def _declared(node: Any) -> list[pytest.Mark]:
    """The ``sampled`` marks a test class declares itself, or else those of the nearest
    class it inherits from that declares any (pytest gives a class its bases' marks too);
    none for another node."""
    if not isinstance(node, pytest.Class):
        return []
    for cls in inspect.getmro(node.obj):
        given = cls.__dict__.get("pytestmark", [])
        marks = [getattr(m, "mark", m) for m in (given if isinstance(given, list) else [given])]
        own = [mark for mark in marks if isinstance(mark, pytest.Mark) and mark.name == MARKER]
        if own:
            return own
    return []


def _spec(item: pytest.Item) -> SampleSpec | None:
    marker = _closest_marker(item)
    if marker is None:
        return None
    from replaygate.sampling.verdict import SampleSpec

    positional = dict(zip(("n", "floor"), marker.args, strict=False))
    twice = sorted(set(positional) & set(marker.kwargs))
    if twice:
        raise _Refused(
            f"{item.nodeid}: @pytest.mark.{MARKER} gives {' and '.join(twice)} twice, by "
            f"position and by name: {marker.args!r} {marker.kwargs!r}; give each once"
        )
    arguments = {**positional, **marker.kwargs}
    unknown = sorted(set(arguments) - {"n", "floor"})
    if unknown:
        raise _Refused(
            f"{item.nodeid}: @pytest.mark.{MARKER} takes n and floor only, not "
            f"{', '.join(unknown)}: got {marker.args!r} {marker.kwargs!r}"
        )
    if len(marker.args) > 2 or "n" not in arguments or "floor" not in arguments:
        raise _Refused(
            f"{item.nodeid}: declare @pytest.mark.{MARKER}(n=..., floor=...) with both the "
            f"sample count and the pass floor (law 7); got {marker.args!r} {marker.kwargs!r}"
        )
    try:
        return SampleSpec(arguments["n"], arguments["floor"])
    except ValueError as err:
        raise _Refused(f"{item.nodeid}: @pytest.mark.{MARKER}: {err}") from None


OURS = (MARKER, "replaygate")
"""The markers replaygate registers, whose misspellings are refused."""


def registered_marks(config: pytest.Config) -> set[str]:
    """The names of the markers registered with pytest (its own, plugins', the ini's)."""
    lines: list[str] = config.getini("markers")
    return {line.split(":", 1)[0].split("(", 1)[0].strip() for line in lines}


def _check_spelling(item: pytest.Item, registered: set[str]) -> None:
    """Refuse a mark pytest does not know that is one of replaygate's misspelled
    (``sample``, ``Sampled``, ``replaygat``): the test would run as if unmarked, a
    sampled one once, and pass with only pytest's unknown-mark warning. One of them spelt
    right is unregistered when its plugin is not loaded (:mod:`.unloaded`)."""
    for mark in item.iter_markers():
        if mark.name in registered or mark.name in OURS:
            continue
        meant = difflib.get_close_matches(mark.name.lower(), OURS, n=1, cutoff=0.8)
        if meant:
            raise _Refused(
                f"{item.nodeid}: @pytest.mark.{mark.name} is no marker pytest knows: did you "
                f"mean @pytest.mark.{meant[0]}? As written, the test runs as if unmarked "
                "(a marker of your own: register it in pytest's markers ini value)"
            )


def _fixtures_requesting(item: pytest.Item, fixture: str) -> list[str]:
    """The fixtures of ``item`` that request ``fixture`` (directly or through others)."""
    defs = fixture_defs(item)
    return sorted(name for name in defs if name != fixture and fixture in requested_by(defs, name))


def _check_sampled(item: pytest.Item, spec: SampleSpec) -> None:
    where = f"{item.nodeid} (sampled n={spec.n}, floor={spec.floor})"
    if not isinstance(item, pytest.Function):
        raise _Refused(f"{where}: only test functions can be sampled")
    if inspect.iscoroutinefunction(item.obj):
        raise _Refused(f"{where}: async tests cannot be sampled; sample a sync wrapper")
    if isinstance(item.cls, type) and issubclass(item.cls, unittest.TestCase):
        raise _Refused(
            f"{where}: a unittest.TestCase method takes no fixtures, so it cannot get "
            f"{SAMPLE_FIXTURE}: write the sampled test as a test function (or a method of a "
            f"plain class) taking {SAMPLE_FIXTURE}"
        )
    needing = _fixtures_requesting(item, SAMPLE_FIXTURE)
    if needing:
        raise _Refused(
            f"{where}: fixture(s) {', '.join(needing)} request {SAMPLE_FIXTURE}, but fixtures "
            f"are set up once per test, not once per sample; request {SAMPLE_FIXTURE} in the "
            "test function and build per-sample objects there"
        )
    checking = _fixtures_requesting(item, CHECKS_FIXTURE)
    if checking:
        raise _Refused(
            f"{where}: fixture(s) {', '.join(checking)} request {CHECKS_FIXTURE}, but fixtures "
            "are set up once per test, not once per sample: what they evaluate would count "
            f"in no sample; request {CHECKS_FIXTURE} in the test function and pass it on"
        )
    if SAMPLE_FIXTURE not in argnames(item):
        raise _Refused(
            f"{where}: the test does not request the {SAMPLE_FIXTURE} fixture" + _unsampled(item)
        )
    repeats = repetitions(item)
    if repeats:
        raise _Refused(
            f"{where}: pytest-repeat runs it {repeats} times (--count, or a repeat marker), "
            "so each run would be a case of its own and its samples would count "
            f"{repeats} times: declare more samples (n) instead (law 7)"
        )
    plugin, reruns = item_retries(item)
    if reruns:
        raise _Refused(
            f"{where}: {plugin} would rerun it up to {reruns} time(s): " + RERUNS_REFUSED
        )


EXCHANGE_FIXTURE = "replaygate_exchange"
"""The plugin's fixture over the test's store, which its client fixtures request."""


def _unsampled(item: pytest.Item) -> str:
    """What to do for a sampled test that does not take the sample index: its model
    takes it, while the plugin's clients (``anthropic_client``...) need only the
    argument, answering the samples' sends in order."""
    clients = [name for name in needing(item, EXCHANGE_FIXTURE) if name in argnames(item)]
    if not clients:
        return (
            f", so every sample would replay the same recorded response; take {SAMPLE_FIXTURE} "
            f"as an argument and build the model with sample={SAMPLE_FIXTURE}"
        )
    return (
        f"; a sampled test takes it as an argument: add {SAMPLE_FIXTURE} to its arguments. "
        f"The clients of {', '.join(clients)} need nothing more (they answer the samples' "
        f"sends in order, sample 0's first); a model the test builds itself takes "
        f"sample={SAMPLE_FIXTURE}, or every sample would replay the same recorded response"
    )


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Validate every sampled test's declaration before anything runs; report all at once
    (:func:`~.refusals.refuse`). A ``replaygate`` test while the recording plugin is not
    loaded is refused first (:mod:`.unloaded`)."""
    refuse_unloaded(config, items, "replaygate")
    refused: list[tuple[pytest.Item, str]] = []
    registered = registered_marks(config)
    for item in items:
        try:
            _check_spelling(item, registered)
            spec = _spec(item)
            if spec is not None:
                _check_sampled(item, spec)
                item.stash[SPEC] = spec
        except _Refused as err:
            refused.append((item, str(err)))
    refuse(config, refused, "\n".join(reason for _, reason in refused))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Error a test a pytest-xdist worker refused at collection."""
    fail_refused(item)
