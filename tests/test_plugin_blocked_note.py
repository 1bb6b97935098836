"""The note under a refusal of the network block names the remedy a test that forgot the
``replaygate`` marker needs: the marker (or a client factory), beside the way to let a
test that should not use replaygate reach the network."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import pytest

from replaygate.errors import NetworkBlockedError
from replaygate.network import network_blocked
from replaygate.pytest_plugin.blocked import blocked_note
from replaygate.pytest_plugin.offline import OFFLINE, OfflineSession


def _unmarked_test(offline: OfflineSession) -> pytest.Item:
    """A test using no replaygate fixture and no marker, in a session kept offline."""
    plugins = SimpleNamespace(get_plugin=lambda name: offline if name == OFFLINE else None)
    item: Any = SimpleNamespace(
        nodeid="tests/test_own.py::test_unmarked",
        fixturenames=(),
        get_closest_marker=lambda name: None,
        config=SimpleNamespace(pluginmanager=plugins),
    )
    return cast(pytest.Item, item)


@pytest.mark.parametrize("recording", [False, True])
def test_an_unmarked_test_refused_in_an_offline_session_is_told_to_mark_it(
    recording: bool,
) -> None:
    offline = OfflineSession("in replay")
    offline.blocked = True
    offline.users["tests/test_own.py::test_marked"] = None
    refused = NetworkBlockedError("lookup of 'api.anthropic.com' refused")
    note = blocked_note(_unmarked_test(offline), refused, recording=recording)
    assert note is not None
    assert "tests/test_own.py::test_unmarked does not use replaygate" in note
    assert "mark it @pytest.mark.replaygate, or give it a client factory" in note
    assert 'pytest -m "not replaygate"' in note


def test_a_test_recording_its_own_session_in_the_run_s_mode_takes_the_session_offline() -> None:
    """A test given ``replaygate_mode`` for an intercept() or a RecordingModel of its own,
    in a run recording from the simulator, sent its requests to the real API: the session
    was offline only for tests using a store fixture or the marker."""
    item: Any = SimpleNamespace(
        nodeid="tests/test_own.py::test_own_block",
        fixturenames=("replaygate_mode",),
        get_closest_marker=lambda name: None,
    )
    config = SimpleNamespace(pluginmanager=SimpleNamespace(get_plugins=list))
    offline = OfflineSession("while recording from the simulator")
    offline.pytest_collection_finish(SimpleNamespace(items=[item], config=config))  # type: ignore[arg-type]
    with offline.block:
        assert offline.blocked and network_blocked()
        assert "tests/test_own.py::test_own_block" in offline.because()
    assert not network_blocked()


def test_a_request_a_test_s_own_block_sent_from_the_simulator_run_says_to_mark_the_test() -> None:
    """Told it called no provider's API, though it was a Chat Completions call its own
    intercept() made: the simulator answers the plugin's intercept alone."""
    offline = OfflineSession("while recording from the simulator")
    item: Any = SimpleNamespace(**{**vars(_unmarked_test(offline)), "fixturenames": ("x",)})
    refused = NetworkBlockedError("lookup of 'api.openai.com' refused")
    refused.sent_live = "POST /v1/chat/completions"
    note = blocked_note(cast(pytest.Item, item), refused, recording=True)
    assert note is not None and "no provider's API" not in note
    assert "by an intercept() block tests/test_own.py::test_unmarked enters itself" in note
    assert "Mark the test @pytest.mark.replaygate(fixtures=...) and drop its own block" in note
