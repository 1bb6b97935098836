"""pytest-recording's record mode ``rewrite`` in a session the plugin keeps offline.

``rewrite`` deletes a ``vcr`` test's cassette before the test runs, to record it anew;
in a session replaygate keeps offline (:mod:`.offline`) that recording is refused, and
the cassette is lost. Such a session is refused before any test runs; a test whose
``vcr_config`` fixture says ``rewrite``, which is not known before the test is set up,
errors in its setup before pytest-recording's ``vcr`` fixture deletes anything.
pytest-recording's other modes delete nothing: a cassette they cannot record stays as it
was.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pytest

from replaygate.errors import first_few

OPTION = "record_mode"
"""Where pytest-recording keeps its ``--record-mode`` (replaygate's own is elsewhere)."""


REWRITE_ADVICE = (
    "Rewrite the cassettes in a run that selects no test using replaygate "
    '(pytest -m "vcr and not replaygate" --record-mode=rewrite, when those tests are '
    "marked), or one where replaygate records from the live API too "
    "(--replaygate-record-mode=rerecord --replaygate-approve-live)."
)
"""What a refusal of a rewrite in an offline session says to run instead."""


def rewrites(item: pytest.Item, given: object, configured: object = None) -> bool:
    """Whether pytest-recording deletes ``item``'s cassette before it runs: a ``vcr`` test
    whose closest mark giving ``record_mode`` says ``rewrite``, or, with none, whose
    ``vcr_config`` (``configured``, when known) says so, or else whose run says so
    (``given``, ``--record-mode``)."""
    marks = list(item.iter_markers("vcr"))
    if not marks:
        return False
    if isinstance(configured, Mapping) and "record_mode" in configured:
        given = configured["record_mode"]
    modes = (mark.kwargs["record_mode"] for mark in marks if "record_mode" in mark.kwargs)
    return next(modes, given) == "rewrite"


def recording_loaded(config: pytest.Config) -> bool:
    """Whether pytest-recording's plugin takes part in this run: installed, it is left
    out by ``-p no:recording``, and then no cassette is deleted."""
    return any(
        getattr(plugin, "__name__", "").startswith("pytest_recording")
        for plugin in config.pluginmanager.get_plugins()
    )


def refuse_rewrite(config: pytest.Config, items: Iterable[pytest.Item], offline: str) -> None:
    """Refuse a session that is offline (``offline`` says why) and in which
    pytest-recording would delete cassettes it cannot record again: a usage error naming
    the tests and what to run instead."""
    if not recording_loaded(config):  # -p no:recording: nothing deletes a cassette
        return
    given = config.getoption(OPTION, None)
    lost = [item.nodeid for item in items if rewrites(item, given)]
    if not lost:
        return
    how = (
        "--record-mode=rewrite deletes the cassette of each vcr test"
        if given == "rewrite"
        else "record_mode='rewrite' of a vcr mark deletes the cassette of its test"
    )
    raise pytest.UsageError(
        f"pytest-recording's {how} "
        f"before it runs, to record it anew, but the session is offline {offline}: the "
        f"recording would be refused and the cassette lost ({first_few(lost, 3)}). Nothing "
        f"was run. {REWRITE_ADVICE}"
    )


def refuse_configured_rewrite(request: pytest.FixtureRequest, offline: str) -> None:
    """Fail the setup of a test whose ``vcr_config`` says ``rewrite`` in a session that is
    offline (``offline`` says why), before pytest-recording's ``vcr`` fixture deletes its
    cassette: the recording would be refused and the cassette lost."""
    configured = request.getfixturevalue("vcr_config")
    if not rewrites(request.node, request.config.getoption(OPTION, None), configured):
        return
    pytest.fail(
        "pytest-recording's record_mode 'rewrite' of vcr_config deletes the cassette of "
        f"{request.node.nodeid} before it runs, to record it anew, but the session is "
        f"offline {offline}: the recording would be refused and the cassette lost. The "
        f"test was not run and its cassette is kept. {REWRITE_ADVICE}",
        pytrace=False,
    )
