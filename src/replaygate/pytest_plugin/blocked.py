"""What a test refused by the network block is told about its cause under the plugin.

The block's own message (:data:`replaygate.network.HOW_TO_FIX`) lists every remedy,
recording with approval among them. Under the plugin the cause is often known: a marked
test that asks for a fixture over its store (a client factory) is given no
``replaygate_intercept``, so the clients it and the code under test build themselves
are not answered; a test that does not use replaygate is refused because the session
runs others that do (pytest-recording recording a ``vcr`` test's cassette, say); and a
run that records from the simulator is recording already. A request the test's intercept
did send while recording from the simulator is one to no provider's API (a tokenizer
file): sent where it is addressed, it is refused there; one an intercept() block of the
test's own sent was sent there since the simulator answers the plugin's intercept alone.
"""

from __future__ import annotations

import pytest

from replaygate.errors import NetworkBlockedError, exception_chain
from replaygate.pytest_plugin.fixture_info import needing

INTERCEPT = "replaygate_intercept"

SIDE_REQUEST = (
    "replaygate: the test's intercept sent {request} where it is addressed: it calls no "
    "provider's API, so it does not go to the simulator, and nothing beyond loopback is "
    "reached while recording from it. If the code under test sends it of its own (a "
    "framework fetching a tokenizer or price file, telemetry), stop it at its source rather "
    "than record it (tiktoken: fill TIKTOKEN_CACHE_DIR beforehand; see docs/frameworks.md)."
)
"""The note of a request the test's intercept sent live and the block refused."""

OWN_BLOCK = (
    "replaygate: {request} was sent where it is addressed by an intercept() block {nodeid} "
    "enters itself: the run's --replaygate-simulator reaches the plugin's clients alone, "
    "and nothing beyond loopback is reached while recording from it. Mark the test "
    "@pytest.mark.replaygate(fixtures=...) and drop its own block, so that the simulator "
    "answers what it sends."
)
"""The note of a request a test's own intercept() sent live, recording from the
simulator: the plugin's simulator answers only its own intercept."""


def blocked_note(item: pytest.Item, failed: BaseException, *, recording: bool) -> str | None:
    """The note for ``item``'s failure ``failed`` when it carries a refusal of the network
    block, naming what the plugin knows of its cause; None otherwise."""
    refused = [e for e in exception_chain(failed) if isinstance(e, NetworkBlockedError)]
    if not refused:
        return None
    sent = refused[0].sent_live
    names = getattr(item, "fixturenames", ())
    if recording and sent is not None:
        if INTERCEPT in names or item.get_closest_marker("replaygate") is not None:
            return SIDE_REQUEST.format(request=sent)
        return OWN_BLOCK.format(request=sent, nodeid=item.nodeid)
    from replaygate.pytest_plugin.offline import USES_REPLAYGATE, uses_replaygate

    lines = []
    if recording:
        lines.append(
            "replaygate: this run records from the simulator, with approval: recording "
            "again does not reach a client replaygate does not see."
        )
    asked = next(iter(needing(item, USES_REPLAYGATE)), None)  # the test's own, say a factory
    unintercepted = refused[0].unintercepted  # no intercept of the test's would answer it
    if (
        item.get_closest_marker("replaygate") is not None
        and asked
        and INTERCEPT not in names
        and not unintercepted
    ):
        lines.append(
            f"replaygate: the marker intercepts no client of {item.nodeid}, since it asks "
            f"for {asked}: only the clients wired to its store (those the factories make) "
            f"are answered. Add {INTERCEPT} to the test's arguments to answer the clients "
            "the test and the code under test build too."
        )
    elif not uses_replaygate(item) and (offline := _offline_because(item)) is not None:
        lines.append(
            f"replaygate: {item.nodeid} does not use replaygate, but the session is offline "
            f"{offline}, from the end of collection to its end. For its calls to be "
            "replayed from fixtures (and recorded with approval) as those tests' are, mark it "
            "@pytest.mark.replaygate, or give it a client factory (anthropic_client, "
            "openai_client). For this test to reach the network (pytest-recording "
            "recording its cassette, say), run it in a session that selects no test using "
            'replaygate (pytest -m "not replaygate", when those are marked).'
        )
    elif recording and not unintercepted:
        lines.append(
            "replaygate: the client that sent it was built outside the test's intercept (a "
            f"module- or session-scoped fixture, a setUpClass, a test without {INTERCEPT} or "
            "the replaygate marker): build it in the test, or in a function-scoped fixture "
            "of a marked test."
        )
    return "\n".join(lines) or None


def _offline_because(item: pytest.Item) -> str | None:
    """Why the plugin keeps ``item``'s session offline, or None when it does not."""
    from replaygate.pytest_plugin.offline import OFFLINE, OfflineSession

    offline = item.config.pluginmanager.get_plugin(OFFLINE)
    if isinstance(offline, OfflineSession) and offline.blocked:
        return offline.because()
    return None
