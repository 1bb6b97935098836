"""The pytest plugin: per-test fixture stores, SDK clients wired to them, and the run's mode.

A thin layer over :mod:`replaygate.http`. It does nothing unless a test asks for one
of its fixtures or carries its marker (or a recording mode is asked for on the command
line).

Options (:mod:`.options`; ``--record-mode`` and ``--approve-live`` are short spellings
where no other plugin owns them):

- ``--replaygate-record-mode=replay|record-missing|rerecord`` (default ``replay``);
- ``--replaygate-approve-live``: the explicit approval the recording modes need (without
  it a recording mode is a usage error, before any test runs);
- ``--replaygate-dir`` (default ``tests/fixtures``, relative to the rootdir);
- ``--replaygate-strict``: a test that leaves HTTP fixtures of its own store unused
  (never requested, or requested fewer times than responses were recorded) fails at
  teardown. A store named by the marker may be shared between tests: it is checked at
  the end of a run that collected and ran every test naming it (:mod:`.strict_shared`).
- ``--replaygate-simulator[=BEHAVIOR]``, ``--replaygate-sim-seed``,
  ``--replaygate-sim-batch-polls``, ``--replaygate-max-cost``: the recording session's
  simulator and spending cap (:mod:`.recording_run`).

A store named by the marker is opened once per process and brought up to date at each
test (:mod:`.stores`), so one store shared by many tests is indexed once, not per test.

``replaygate_config`` (a fixture returning a dict, overridable in a conftest or a module)
sets every test's session; the marker's arguments override it (:mod:`.settings`). A miss
names the pytest command that re-records the test.

Fixtures: ``replaygate_mode``; ``replaygate_config`` (the session settings, see
below); ``replaygate_store`` (per test,
``<dir>/<test module>/<test name>.jsonl``); ``replaygate_exchange`` (the test's
record/replay session, shared by everything below); ``anthropic_client``,
``async_anthropic_client``, ``openai_client``, ``async_openai_client`` (factories taking
the SDK's keyword arguments, e.g. ``base_url``, and returning a client over the
test's store; recording from the simulator, ``base_url`` defaults to it);
``replaygate_intercept`` (covers clients the code under test builds; recording from
the simulator, what they send to a model API goes to it).

Marker: ``@pytest.mark.replaygate(fixtures="path", interface=..., source=...,
repeat_last=False, expect_requests=True, expect_caught_errors=False, match_host=False,
note=None)``: ``fixtures``
replaces the test's store (a ``.jsonl`` file or a folder, relative to
``--replaygate-dir``); ``interface``, ``source`` and ``note`` go into recorded fixtures'
meta; ``repeat_last=True`` lets a send past the recorded answers get the last one again
(not in a sampled test: each sample gets its own recorded answer or a miss);
``expect_requests=False`` marks a test that may legitimately send nothing (below);
``expect_caught_errors=True`` one whose code under test (or the test, with a clause
that does not name it) is meant to catch a replay error (below). Any other argument is
an error. A marked test that asks for none of the fixtures over a store gets
``replaygate_intercept``, as pytest-recording's ``vcr`` marker does; so does a test a
``pytest_collection_modifyitems`` hook marks (a conftest's, in any order).

Nothing recorded: in a recording mode, a test that asked for the test's session
(``replaygate_exchange``, a client factory or ``replaygate_intercept``) and ends without
that session having seen a single request fails at teardown, naming the libraries
intercepted: its client sends through something replaygate does not see, and nothing
would be replayed. Replaying under ``--replaygate-strict``, so does such a test whose
store holds no fixture (absent, or empty): it was never recorded, and passed only
because something answered it without a request (a response cache an earlier test
warmed, as LiteLLM's ``litellm.cache``), so run alone it would miss. A test that only asks for
``replaygate_store``, or is marked ``expect_requests=False``, is not checked.

Caught errors (law 2): a replay error (a miss, a damaged store, a refused live answer)
that the code under test caught on its way to the test (a framework's fallback, an
``except`` clause), or that the test caught with a clause that does not name it
(``pytest.raises(anthropic.AnthropicError)``, ``except Exception``, then maybe a skip),
fails the test at teardown with that error (:mod:`replaygate.pytest_plugin.caught`),
unless the test is marked ``expect_caught_errors=True``; a test that fails on another
replay error after one was caught gets a note on its error naming the caught one. A test
marked ``xfail`` that fails on a replay error fails, unless the mark's ``raises=`` names
it, and so does its teardown error for a caught one (never ``XFAIL at teardown``).

Sanitizing: a store is recorded and matched with the ``[tool.replaygate.sanitize]`` of
the project that owns it (the nearest ``pyproject.toml`` above it, else the rootdir's),
whatever folder pytest runs from.

In replay mode, and recording from the simulator, a session that collects a test using
replaygate is offline from the end of collection to interpreter exit, and lists the
attempts it refused (:mod:`replaygate.pytest_plugin.offline`); a test that asks for
``replaygate_store`` at run time is offline from its setup to its teardown.

Hits: every test session logs which fixtures its tests replay to
``.replaygate/hits/`` under the rootdir, or the folder ``[tool.replaygate] hits`` of the
rootdir's ``pyproject.toml`` names (:mod:`replaygate.fixtures.hits`), one file per
process; xdist workers share the controller's run id (``REPLAYGATE_RUN_ID``). The session
notes how each test ended beside them (:class:`~replaygate.fixtures.hits.OutcomeLog`),
from the process that reports the tests (the xdist controller, which also reports a
crashed worker's test): ``replaygate patrol`` and ``prune`` read both, and keep the whole
store of a test that did not pass.
"""

from __future__ import annotations

import functools
import os
import signal
import sys
import threading
from collections.abc import Callable, Generator, Iterator
from contextlib import ExitStack
from pathlib import Path
from types import FrameType, ModuleType
from typing import TYPE_CHECKING, Any, NoReturn

import pytest

from replaygate.errors import (
    LiveCallNotApproved,
    MissingExtraError,
    ReplaygateError,
    exception_chain,
)
from replaygate.extras import require
from replaygate.fixtures.modes import require_approval
from replaygate.fixtures.running import RunningMark
from replaygate.pytest_plugin.blocked import INTERCEPT, blocked_note
from replaygate.pytest_plugin.caught import (
    ALLOW_FLAG,
    CHECKED,
    CaughtReplayError,
    caught_errors,
    checked_raised,
    hidden_errors,
    hidden_note,
    replay_failure,
    test_code,
    xfail_expects,
    xfail_message,
)
from replaygate.pytest_plugin.fixture_info import fixture_defs, scope_of
from replaygate.pytest_plugin.late_sends import PLUGIN as LATE_SENDS
from replaygate.pytest_plugin.late_sends import LateSends
from replaygate.pytest_plugin.options import (
    APPROVE,
    MODE,
    add_options,
    check_approval_given,
    check_fixtures_dir,
    check_simulator_option,
    nodeid_here,
    quoted_nodeid,
    record_options,
    simulator_behavior,
)
from replaygate.pytest_plugin.recording_run import RUN, RecordingRun
from replaygate.pytest_plugin.refusals import fail_refused
from replaygate.pytest_plugin.repeats import repetitions, unrepeated
from replaygate.pytest_plugin.sampling_state import SPEC
from replaygate.pytest_plugin.secret_locals import forget_secret_locals
from replaygate.pytest_plugin.store_paths import (
    chosen_problem,
    chosen_store,
    default_store,
    fixtures_dir,
    marker_kwargs,
    note_shared_stores,
    rootdir_problem,
    sharing_problem,
    spelling_problem,
    windows_problem,
)
from replaygate.pytest_plugin.stores import close_shared, shared_store
from replaygate.pytest_plugin.suite_run import whole_suite_of_one
from replaygate.pytest_plugin.unloaded import refuse_unloaded, register_unloaded

if TYPE_CHECKING:
    from replaygate.fixtures.hits import HitLog, OutcomeLog
    from replaygate.fixtures.store import FixtureStore
    from replaygate.http.exchange import Exchange
    from replaygate.pytest_plugin.strict_shared import SharedStrict

REPLAY_API_KEY = "replaygate-replay-no-key"


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register the replaygate options (:mod:`replaygate.pytest_plugin.options`)."""
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker (and the sampling plugin's, when it is not loaded: see
    :mod:`.unloaded`); refuse a recording mode without approval; start the hits log; keep a
    session that replays or records from the simulator offline; leave the SDK's and the
    HTTP client's frames out of a replay error's report (:mod:`.library_frames`)."""
    config.addinivalue_line(
        "markers",
        "replaygate(fixtures=None, interface=None, source=None, repeat_last=False, "
        "expect_requests=True, expect_caught_errors=False, match_host=False, note=None): "
        "the test's fixture store (relative to --replaygate-dir), the meta of what it "
        "records, whether a send past the recorded answers gets the last one again, "
        "whether recording it may see no request, whether its code under test may catch "
        "a replay error; they override replaygate_config",
    )
    register_unloaded(config, "sampled")
    check_simulator_option(config)
    check_fixtures_dir(config)
    if config.getoption("replaygate_strict", False):
        from replaygate.pytest_plugin.strict_shared import PLUGIN, SharedStrict

        config.pluginmanager.register(SharedStrict(), PLUGIN)
    mode = config.getoption(MODE, "replay")
    approved = config.getoption(APPROVE, False) is True
    if approved:
        check_approval_given(config, mode)
    how = f"--replaygate-record-mode={mode} needs --replaygate-approve-live"
    try:
        require_approval(mode, approved, how=how, simulator=simulator_behavior(config) is not None)
    except LiveCallNotApproved as err:
        raise pytest.UsageError(str(err)) from None
    _start_hits(config)
    from replaygate.network import watch_listeners

    watch_listeners()  # a live server the tests start serves their app: reached, not recorded
    from replaygate.pytest_plugin import key_note, library_frames
    from replaygate.pytest_plugin.offline import OFFLINE, OfflineSession

    sends = "replay" if mode == "replay" else "simulator" if simulator_behavior(config) else "live"
    config.pluginmanager.register(key_note.KeyNote(sends), key_note.PLUGIN)
    config.pluginmanager.register(library_frames.LibraryFrames(), library_frames.PLUGIN)
    config.pluginmanager.register(LateSends(), LATE_SENDS)

    if mode == "replay":
        from replaygate.pytest_plugin.misses import PLUGIN, MissSummary

        config.pluginmanager.register(OfflineSession(), OFFLINE)
        config.pluginmanager.register(MissSummary(), PLUGIN)
        from replaygate.pytest_plugin import randomly_note

        if randomly_note.reseeds_random(config):
            config.pluginmanager.register(randomly_note.RandomlyNote(), randomly_note.PLUGIN)
        return
    run = RecordingRun(config, fixtures_dir(config))
    config.pluginmanager.register(run, RUN)
    if run.source == "sim":  # nothing beyond loopback, from collection on, as in replay
        offline = OfflineSession("while recording from the simulator")
        config.pluginmanager.register(offline, OFFLINE)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_collection_modifyitems(
    config: pytest.Config, items: list[pytest.Item]
) -> Generator[None, None, None]:
    """A test that carries the marker and asks for none of the fixtures over a store gets
    ``replaygate_intercept``, as pytest-recording's ``vcr`` marker does: the clients it
    and the code under test build are answered from its store, and recording it sends
    through replaygate instead of past it. It is set up before the test's other fixtures
    of its scope (and torn down after them), so what they send is answered too. Tests
    that would share a store by accident are noted
    (:func:`~.store_paths.note_shared_stores`).

    Decided once every other implementation of this hook has run, so that a mark one of
    them adds (a conftest's ``item.add_marker``, in any order) applies in full, and over
    the tests as collected, before ``-k``, ``-m`` or any other deselection took some
    away: tests sharing a store see each other. A ``sampled`` test among those left to
    run while the sampling plugin is not loaded is refused (:mod:`.unloaded`)."""
    from replaygate.pytest_plugin.offline import USES_REPLAYGATE, uses_replaygate

    collected = list(items)
    yield
    refuse_unloaded(config, items, "sampled")
    tests = list(dict.fromkeys([*collected, *items]))  # and any a hook added
    for item in tests:
        if (
            isinstance(item, pytest.Function)
            and item.get_closest_marker("replaygate") is not None
            and USES_REPLAYGATE not in item.fixturenames
        ):
            names = list(item.fixturenames)
            names.insert(_first_per_test(item, names), INTERCEPT)
            item.fixturenames = names
    note_shared_stores(config, filter(uses_replaygate, tests))
    strict = _strict_shared(config)
    if strict is not None:
        strict.collected(*_named_stores(config, tests))


def _named_stores(
    config: pytest.Config, items: list[pytest.Item]
) -> tuple[list[tuple[pytest.Item, Path]], set[Path]]:
    """Each test whose marker names a store (``fixtures=``), and that store; each test
    whose own store is one of those (it shares it with the tests naming it), or that
    pytest-repeat repeats (its repetitions share it: each may send other requests, one
    seeded by pytest-randomly from its own id, say); and the stores only such
    repetitions share."""
    from replaygate.pytest_plugin.offline import uses_replaygate

    named: dict[Path, None] = {}
    pairs: list[tuple[pytest.Item, Path]] = []
    own: list[tuple[pytest.Item, Path]] = []
    for item in filter(uses_replaygate, items):
        try:
            chosen = marker_kwargs(item).get("fixtures")
        except pytest.fail.Exception:  # a wrong mark: the test fails at its setup, named
            continue
        if chosen:
            named[chosen_store(config, chosen)] = None
            pairs.append((item, chosen_store(config, chosen)))
        else:
            own.append((item, default_store(config, item)))
    pairs += [(item, path) for item, path in own if path in named or repetitions(item)]
    repeated = {path for item, path in own if path not in named and repetitions(item)}
    return pairs, repeated


def _strict_shared(config: pytest.Config) -> SharedStrict | None:
    """The end-of-run check of the shared stores (None without ``--replaygate-strict``)."""
    from replaygate.pytest_plugin.strict_shared import PLUGIN, SharedStrict

    plugin = config.pluginmanager.get_plugin(PLUGIN)
    return plugin if isinstance(plugin, SharedStrict) else None


def _first_per_test(item: pytest.Function, names: list[str]) -> int:
    """Where the first function-scoped fixture of ``names`` is (pytest sets fixtures up in
    the order of ``names``, the broader scopes first): where an autouse fixture of the
    test's own would be."""
    defs = fixture_defs(item)
    for index, name in enumerate(names):
        if scope_of(defs, name) in (None, "function"):
            return index
    return len(names)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    """Before its fixtures are set up, a test using replaygate whose id holds a
    secret-looking value fails (:func:`_refuse_a_secret_id`). After them, so does one
    given a ``replaygate`` marker once it was collected (``request.applymarker`` in a
    fixture, a setup hook): whether a test is answered from a store (its
    ``replaygate_intercept``) and whether the session is offline were decided at
    collection, so its clients would reach the network, the live API's included. A test
    refused at collection on a pytest-xdist worker errors first (:mod:`.refusals`)."""
    from replaygate.pytest_plugin.offline import USES_REPLAYGATE, uses_replaygate

    fail_refused(item)
    if uses_replaygate(item):
        _refuse_a_secret_id(item)
    done = yield
    names = getattr(item, "fixturenames", ())
    if (
        isinstance(item, pytest.Function)
        and INTERCEPT not in names
        and USES_REPLAYGATE not in names
        and item.get_closest_marker("replaygate") is not None
    ):
        raise pytest.fail.Exception(
            f"replaygate: the replaygate marker of {item.nodeid} was added after the test "
            "was collected (request.applymarker in a fixture, or a setup hook), so nothing "
            "answers its clients from a store: a test is wired to its store as it is "
            "collected. Add the marker at collection: a decorator, a module's pytestmark, "
            "or a conftest's pytest_collection_modifyitems (item.add_marker).",
            pytrace=False,
        )
    return done


@functools.lru_cache(maxsize=64)
def secret_in_id(nodeid: str) -> str | None:
    """What finds a secret-looking value in test id ``nodeid``, or None. Kept for the last
    ids asked about: a test using replaygate is asked about as it is set up and again as
    its outcome is written.

    The parts pytest joins with ``::`` are read one by one: a file named for an auth word
    before a test's name (``tests/test_tokens.py::test_tokens_anthropic``) is no name
    written before its value (``token: ...``). The parameters' id, from the first ``[``,
    is read with the test's name, whatever it holds."""
    names, bracket, params = nodeid.partition("[")
    *parents, name = names.split("::")
    found = map(_secret_in_part, parents)  # a module's path and class, asked about once
    return next(filter(None, found), None) or _secret_detector()(name + bracket + params)


@functools.lru_cache(maxsize=256)
def _secret_in_part(part: str) -> str | None:
    return _secret_detector()(part)


def _secret_detector() -> Callable[[str], str | None]:
    from replaygate.sanitize.secret_scan import secret_detector

    return secret_detector


def _no_secret_in_id(nodeid: str) -> bool:
    """Whether test id ``nodeid`` may be written to a file: a test whose id holds a
    secret-looking value (refused at its setup, :func:`_refuse_a_secret_id`) played
    nothing, and its id must reach no file."""
    return secret_in_id(nodeid) is None


def _refuse_a_secret_id(item: pytest.Item) -> None:
    """Fail the setup of a test using replaygate whose id holds a secret-looking value (a
    key passed as a parameter): the id names the test's fixture store, a file that is
    committed, and is written to the hits log (law 4). The message does not repeat it."""
    detector = secret_in_id(item.nodeid)
    if detector is not None:
        raise pytest.fail.Exception(
            f"replaygate: this test's id holds a secret-looking value ({detector}), "
            "and would name its fixture store and be written to the hits log: give the "
            "parameter an id of its own (parametrize's ids=, or pytest.param(..., id=...)). "
            "Nothing was recorded or replayed.",
            pytrace=False,
        )


_RAISED = pytest.StashKey[BaseException]()
"""What a test's setup or call failed with, for the check that no replay error was caught
on its way."""

_EXCHANGE = pytest.StashKey["Exchange"]()
"""The test's session, while the test runs: what its failure may be noted with."""

_CAUGHT = pytest.StashKey[BaseException]()
"""What the test's session failed it with at teardown (a replay error caught on its way,
a recording that sent nothing): ``--replaygate-strict`` does not fail it again."""


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Note what the test's setup (a fixture) or call failed with
    (:mod:`replaygate.pytest_plugin.caught`): read after the other hooks, since a unittest
    ``TestCase`` hands pytest its error there. Before the report is made, a failure that
    followed a replay error the code under test caught gets a note naming that error.
    A replay error an ``xfail`` mark took for the test's expected failure is reported as
    the failure it is (:func:`_not_expected`). A refusal of the network block gets a note
    naming its cause where the plugin knows it (:mod:`.blocked`), and a send through a
    client a factory closed, what to ask for (:func:`_closed_client_note`). A live answer
    refused for a secret, or a miss of a request holding one, leaves no locals in the
    report (:mod:`.secret_locals`)."""
    raised = checked_raised(item)
    if raised and call.excinfo is not None:
        failed = call.excinfo.value
        hidden = hidden_errors(raised, failed, test_code(getattr(item, "function", None)))
        _note(failed, hidden_note(hidden, failed) if hidden else None)
    if call.excinfo is not None:
        forget_secret_locals(call.excinfo.value)
        run = _run(item.config)
        recording = run is not None and run.source == "sim"
        _note(call.excinfo.value, blocked_note(item, call.excinfo.value, recording=recording))
        if call.when == "call":
            _note(call.excinfo.value, _answered_from_store(item, call.excinfo.value))
            _note(call.excinfo.value, _replayed_error_answer(item, call.excinfo.value))
        _note(call.excinfo.value, _closed_client_note(item, call.excinfo.value))
    report = yield
    if call.excinfo is not None:
        if call.when in ("setup", "call"):
            item.stash[_RAISED] = call.excinfo.value
        if hasattr(report, "wasxfail"):
            _not_expected(item, report, call.excinfo.value)
    return report


def _note(failed: BaseException, note: str | None) -> None:
    """Add ``note`` to ``failed`` unless it is None or there already."""
    if note is not None and note not in getattr(failed, "__notes__", ()):
        failed.add_note(note)


CLIENT_FACTORIES = (
    "anthropic_client",
    "async_anthropic_client",
    "openai_client",
    "async_openai_client",
)
"""The plugin's client factories."""

CLOSED_CLIENT = "Cannot send a request, as the client has been closed"
"""The start of httpx's (and httpx2's) refusal of a send through a closed client."""


def _closed_client_note(item: pytest.Item, failed: BaseException) -> str | None:
    """Said of a test asking for a client factory that failed on a send through a closed
    client: the factory closes its clients as it is torn down, so a fixture set up before
    it (one not asking for it) that sends in its teardown sends through a closed client,
    which the SDK reports as a connection error."""
    factory = next((f for f in CLIENT_FACTORIES if f in getattr(item, "fixturenames", ())), None)
    if factory is None or not _closed_client(failed):
        return None
    return (
        f"replaygate: this client was closed: {factory} closes the clients it made as it "
        f"is torn down, at the end of the test that asked for it, before the fixtures set "
        f"up ahead of it. A fixture that sends through such a client in its teardown asks "
        f"for {factory} itself (`def my_fixture({factory}):`), so that pytest tears that "
        f"fixture down before {factory}; a client kept for another test is made in that test."
    )


def _closed_client(failed: BaseException) -> bool:
    """Whether ``failed``, or an error it was raised from, is httpx's refusal of a send
    through a closed client."""
    return any(
        isinstance(error, RuntimeError) and str(error).startswith(CLOSED_CLIENT)
        for error in exception_chain(failed)
    )


def _answered_from_store(item: pytest.Item, failed: BaseException) -> str | None:
    """Said of a test that failed recording what its store lacks (``record-missing``) after
    some of its requests were answered from the store: those were not asked again, so a
    wrong answer among them (written by an earlier recording that failed, or from another
    simulator behaviour or script) fails the test in every such run, which records nothing
    new; ``rerecord`` asks them all again. None for a failure replaygate explains itself."""
    exchange = item.stash.get(_EXCHANGE, None)
    if exchange is None or exchange.mode != "record-missing" or not exchange.replays:
        return None
    if isinstance(failed, pytest.fail.Exception | pytest.skip.Exception):
        return None
    if replay_failure(failed, checked_raised(item)) is not None:
        return None
    return (
        f"replaygate: {exchange.replays} of this test's requests were answered from its store "
        "and not asked again (record-missing sends only the requests the store lacks): if a "
        "wrong answer among them failed the test (one an earlier recording that failed wrote, "
        "or one of another simulator behaviour or script), record the test anew: "
        f"{exchange.session.rerecord_all}."
    )


def _replayed_error_answer(item: pytest.Item, failed: BaseException) -> str | None:
    """Said of a replaying test that failed on an SDK's error of an HTTP status its store
    answered (a 500 the API gave while it was recorded, kept as every answer is): bare, the
    SDK's error reads as if the API had been reached. None for any other failure."""
    exchange = item.stash.get(_EXCHANGE, None)
    if exchange is None or exchange.mode != "replay" or not exchange.error_answers:
        return None
    statuses = {getattr(error, "status_code", None) for error in exception_chain(failed)}
    status, at = next(
        ((status, at) for status, at in reversed(exchange.error_answers) if status in statuses),
        (None, None),
    )
    if status is None:
        return None
    return (
        f"replaygate: this {status} answer was replayed from {at}, as it was recorded: the API "
        "answered so while the test was recorded, and nothing was sent now. If the API was "
        "failing only for a while (an outage, an overload), record the test anew: "
        f"{exchange.session.rerecord_all}."
    )


def _not_expected(item: pytest.Item, report: pytest.TestReport, failed: BaseException) -> None:
    """Make ``report``, an expected failure of an ``xfail`` test, the failure it is when
    ``failed`` is or carries a replay error the mark's ``raises=`` does not name: a miss
    is never the known failure an xfail is about (law 2); nor is one the code under test
    caught, which fails the test's teardown (:class:`~.caught.CaughtReplayError`)."""
    error = replay_failure(failed, checked_raised(item))
    if error is None or xfail_expects(item.iter_markers("xfail"), error):
        return
    report.outcome = "failed"
    del report.wasxfail
    report.sections.append(("replaygate", xfail_message(error)))


_HITS = pytest.StashKey[tuple["HitLog | None", str | None, bool]]()
_MARK = pytest.StashKey[RunningMark]()


def _start_hits(config: pytest.Config) -> None:
    """Log replay hits for this session; a controller gives its workers its run id."""
    from replaygate.fixtures import hits

    root = Path(config.rootpath)
    folder = _hits_folder(root)
    worker = hasattr(config, "workerinput")
    env_before = os.environ.get(hits.RUN_ENV)
    run = env_before if worker and env_before else hits.new_run_id(folder)
    if not worker:
        os.environ[hits.RUN_ENV] = run
    config.stash[_HITS] = (hits.active(), env_before, worker)
    if not worker:
        hits.trim(folder)
        # held for the whole session, its workers' tests too: prune deletes nothing till it ends
        mark = config.stash[_MARK] = RunningMark(folder, run)
        mark.hold()
    hits.enable(folder, run=run, root=root)
    # the controller reports them; an id holding a secret-looking value must reach no file
    outcomes = None if worker else hits.OutcomeLog(folder, run, _no_secret_in_id)
    writer = HitsWriter(outcomes, config.stash.get(_MARK, None))
    config.pluginmanager.register(writer, "replaygate-hits")


def _hits_folder(root: Path) -> Path:
    """The hits log's folder of the project at the rootdir ``root``: ``[tool.replaygate]
    hits`` of its ``pyproject.toml`` (:func:`replaygate.evals.config.hits_folder`, only
    imported when the key is there), else ``.replaygate/hits`` under it. A value it
    refuses, a key ``[tool.replaygate]`` does not define (a typo, refused as
    :func:`~replaygate.evals.config.load_config` refuses it, naming its line), or a
    ``pyproject.toml`` that cannot be read, stops the session."""
    from replaygate.config import TOOL_KEYS, read_toml, store_pyproject, tool_table
    from replaygate.fixtures.hits import DEFAULT_DIR

    try:
        pyproject = store_pyproject(None, root)
        table = tool_table(read_toml(pyproject).data) if pyproject is not None else {}
        if isinstance(table, dict) and not set(table) <= set(TOOL_KEYS):
            from replaygate.evals.config import load_config

            load_config(pyproject)  # refuses the first key it does not define
        if not isinstance(table, dict) or "hits" not in table:
            return root / DEFAULT_DIR
        from replaygate.evals.config import hits_folder

        return hits_folder(pyproject, root)
    except ReplaygateError as err:
        raise pytest.UsageError(f"replaygate: {err}") from None


STRICT_UNUSED = "--replaygate-strict: "
"""How the failure of a test that left fixtures of its own store unused begins."""


def _strict_unused(report: pytest.TestReport) -> bool:
    """Whether ``report`` is a teardown that ``--replaygate-strict`` failed, alone."""
    return report.when == "teardown" and str(report.longrepr).startswith(STRICT_UNUSED)


PASSED = "passed"
"""A test's outcome when every phase passed (:data:`replaygate.fixtures.hits.PASSED`)."""
_HITS_ERROR = "replaygate-hits-error"
"""The key a pytest-xdist worker sends a hits log it could not write under."""


class HitsWriter:
    """Writes the session's replay hits after each test (a worker may be stopped without
    notice), and with ``outcomes`` how each test ended. A log it cannot write (a file where
    its folder goes, a full disk) is said at the end, and fails the session: ``prune``
    would take what this run played for unused."""

    def __init__(self, outcomes: OutcomeLog | None = None, mark: RunningMark | None = None) -> None:
        self.error: str | None = None
        self.outcomes = outcomes
        self.mark = mark
        """The session's mark of a run in progress, held once the hits folder is there."""
        self.ended: dict[str, str] = {}
        """How each test being reported has ended so far, by node id."""

    def flush(self) -> None:
        """Write the hits noted so far; keep the first error."""
        from replaygate.fixtures import hits

        log = hits.active()
        if log is None:
            return
        try:
            log.flush()
        except OSError as err:
            if self.error is None:
                self.error = f"{err.filename or log.file}: {err.strerror or err}"

    def pytest_runtest_logstart(self, nodeid: str) -> None:
        """Note that a test started."""
        if self.outcomes is not None:
            self.ended[nodeid] = PASSED

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Keep the worst outcome of a test's phases: failed, else skipped, else passed. A
        teardown failed by ``--replaygate-strict`` alone, on fixtures the test left unused,
        is no failure here: those are what ``prune`` removes, as its message says."""
        if self.outcomes is None or self.ended.get(report.nodeid) == "failed":
            return
        if report.failed and not _strict_unused(report):
            self.ended[report.nodeid] = "failed"
        elif report.skipped:
            self.ended[report.nodeid] = "skipped"

    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        """Write the hits of the test just finished, and how it ended; hold the session's
        mark if the first hits made the folder."""
        self.flush()
        ended = self.ended.pop(nodeid, None)
        if ended is not None:
            self._note(nodeid, ended)
        if self.mark is not None:
            self.mark.hold()

    def _note(self, test: str, outcome: str) -> None:
        """Write how ``test`` ended (not if its id holds a secret-looking value:
        :func:`_no_secret_in_id`)."""
        self._write_outcomes(lambda log: log.note(test, outcome))

    def _write_outcomes(self, write: Callable[[OutcomeLog], None]) -> None:
        """``write`` to the outcomes log, if the session keeps one; keep the first error."""
        if self.outcomes is None:
            return
        try:
            write(self.outcomes)
        except OSError as err:
            if self.error is None:
                self.error = f"{err.filename or self.outcomes.file}: {err.strerror or err}"

    def _unfinished(self) -> None:
        """Note the tests that started and never finished (the session was interrupted, an
        xdist worker crashed) as such: interrupted, or failed when a phase failed."""
        for nodeid, ended in self.ended.items():
            self._note(nodeid, "interrupted" if ended == PASSED else ended)
        self.ended.clear()

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Write what is left; a log that could not be written fails the session (on a
        pytest-xdist worker, it is sent to the controller, which fails the run)."""
        self.flush()
        self._unfinished()
        self._write_outcomes(lambda log: log.settle())
        output = getattr(session.config, "workeroutput", None)
        if output is not None and self.error is not None:
            output[_HITS_ERROR] = self.error
        if self.error is not None and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """On the pytest-xdist controller, keep the first error a worker sent."""
        sent = getattr(node, "workeroutput", {}).get(_HITS_ERROR)
        if sent is not None and self.error is None:
            self.error = str(sent)

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        """Say that the hits log could not be written."""
        if self.error is not None:
            from replaygate.fixtures.hits import ELSEWHERE

            terminalreporter.line(
                f"replaygate: cannot write the hits log: {self.error}; patrol and prune "
                f"do not see the fixtures this run replayed ({ELSEWHERE})",
                red=True,
            )


def pytest_unconfigure(config: pytest.Config) -> None:
    """Close the shared stores; flush this session's hits and remove its mark of a run in
    progress; give back the log and run id of an enclosing session."""
    from replaygate.fixtures import hits

    close_shared(config)
    saved = config.stash.get(_HITS, None)
    if saved is None:
        return
    previous, env_before, worker = saved
    hits.use(previous)
    mark = config.stash.get(_MARK, None)
    if mark is not None:
        mark.release()
    if not worker:
        if env_before is None:
            os.environ.pop(hits.RUN_ENV, None)
        else:
            os.environ[hits.RUN_ENV] = env_before


def _run(config: pytest.Config) -> RecordingRun | None:
    """The recording session's simulator and cap (None when replaying)."""
    run = config.pluginmanager.get_plugin(RUN)
    return run if isinstance(run, RecordingRun) else None


def store_path(request: pytest.FixtureRequest) -> Path:
    """The test's store: the marker's ``fixtures`` or ``<dir>/<module>/<test name>.jsonl``."""
    chosen = marker_kwargs(request.node).get("fixtures")
    if chosen:
        return chosen_store(request.config, chosen)
    return default_store(request.config, request.node)


def refuse_setup(request: pytest.FixtureRequest, err: ReplaygateError) -> NoReturn:
    """Fail the test whose store or session cannot be set up (a store that is not one,
    a broken ``[tool.replaygate.sanitize]``) with replaygate's message, naming the test,
    instead of a traceback through the plugin."""
    raise pytest.fail.Exception(
        f"replaygate: cannot set up {request.node.nodeid}: {err}", pytrace=False
    ) from None


@pytest.fixture
def replaygate_mode(request: pytest.FixtureRequest) -> str:
    """The run's mode: ``replay``, ``record-missing`` or ``rerecord``."""
    return str(request.config.getoption(MODE, "replay"))


@pytest.fixture
def replaygate_store(
    request: pytest.FixtureRequest, replaygate_mode: str
) -> Iterator[FixtureStore]:
    """The test's fixture store (one named by the marker is opened once per process,
    :mod:`.stores`). In replay mode, and when recording from the simulator (so that a
    client the plugin did not point at it cannot reach a real API), the network beyond
    loopback is blocked while the test runs (for the whole session, when it collected
    the test: :mod:`.offline`). Under ``--replaygate-strict`` a test that
    left fixtures of its own store unused errors at teardown, unless it failed already
    (or its session fails it at teardown, on a miss caught on its way);
    what a test took from a shared store is noted for the end of the run."""
    from replaygate.fixtures.store import FixtureStore
    from replaygate.http import block_network, reset_uses, unused, uses
    from replaygate.network import SIMULATOR_BLOCK
    from replaygate.pytest_plugin.strict_shared import none_requested

    chosen = marker_kwargs(request.node).get("fixtures")
    shared = bool(chosen)
    path = store_path(request)
    if shared:
        problem = chosen_problem(request.config, chosen) or spelling_problem(request.node, path)
        problem = problem or windows_problem(path, chosen)
    else:
        problem = sharing_problem(request.node, path) or windows_problem(path)
    problem = problem or rootdir_problem(request.config, request.node, path)
    if problem is not None:
        refuse_setup(request, ReplaygateError(problem))
    try:
        store = shared_store(request.config, path) if shared else FixtureStore.open(path)
    except ReplaygateError as err:
        refuse_setup(request, err)
    strict = _strict_shared(request.config)
    if strict is not None and not shared:
        # its own store, also named by another test's marker: checked with theirs
        shared = strict.names(request.node.nodeid, path)
    strict = strict if shared else None
    before = uses(store) if strict is not None else {}
    with ExitStack() as stack:
        stack.callback(store.close)
        run = _run(request.config)
        if replaygate_mode == "replay":
            stack.enter_context(block_network())
        elif run is not None and run.source == "sim":
            stack.enter_context(block_network(remedy=SIMULATOR_BLOCK))
        yield store
        if strict is not None:  # checked at the end of the run, with the other tests
            strict.used_by_test(path, before, uses(store))
        # failed in its setup or call, or by its session at teardown (a caught miss)
        stash = request.node.stash
        failed = stash.get(_RAISED, None) is not None or stash.get(_CAUGHT, None) is not None
        failed = failed or _interrupted(request)
        for key in (_RAISED, _CAUGHT):  # a rerun of the item (--flaky-runs) starts clean
            if key in stash:
                del stash[key]
        if request.config.getoption("replaygate_strict", False) and not shared:
            requested = any(uses(store).values())
            lines = unused(store)
            reset_uses(store)
            if lines and not failed:  # a test that failed (a miss, say) said why itself
                pytest.fail(
                    f"{STRICT_UNUSED}{len(lines)} recorded fixture(s) of {store.path} "
                    "unused by this test:\n  "
                    + "\n  ".join(lines)
                    + ("" if requested else none_requested("The test", "its"))
                    + (_partly(request.config) or _unused_hint(request, store, lines)),
                    pytrace=False,
                )


def _unused_hint(request: pytest.FixtureRequest, store: FixtureStore, lines: list[str]) -> str:
    """What removes the unused fixtures of a test's own ``store`` (``lines``, as
    :func:`~replaygate.fixtures.uses.unused_http_lines` says them): ``prune`` for one never
    requested; for one requested fewer times than it has responses, which ``prune`` keeps
    (it was played), recording the test anew (from the simulator, where it came from)."""
    from replaygate.fixtures.mismatch import PYTEST_SIMULATOR_OPTION
    from replaygate.fixtures.uses import NEVER_REQUESTED
    from replaygate.pytest_plugin.strict_shared import prune_hint

    never = any(line.endswith(NEVER_REQUESTED) for line in lines)
    fewer = not all(line.endswith(NEVER_REQUESTED) for line in lines)
    hint = prune_hint(store.path, request.config.rootpath) if never else ""
    if fewer:
        nodeid = request.node.nodeid
        command = rerecord_command(request.config, nodeid, "rerecord")
        simulated = any((f.meta or {}).get("source") == "sim" for f in store)
        if simulated and simulator_behavior(request.config) is None:
            command += f" ({PYTEST_SIMULATOR_OPTION})"
        hint += (
            "\nA fixture requested fewer times than it holds responses is one the test now "
            "sends less often: a loop or a retry that no longer runs as often, or "
            "pytest-benchmark's rounds, which its timing decides unless they are given "
            "(benchmark.pedantic(..., rounds=N, warmup_rounds=0)) and --benchmark-disable "
            "makes one. prune keeps it, since it was played: record the test anew, "
            f"{command}, so that it holds as many responses as the test sends."
        )
    return hint


def _partly(config: pytest.Config) -> str:
    """What a test's own store found partly unused says in a run of part of the suite,
    which may have left out a test whose marker names the store (sharing it): nothing in
    a run of the whole suite."""
    from replaygate.pytest_plugin.strict_shared import part_of_suite

    strict = _strict_shared(config)
    why = None if strict is None else part_of_suite(config, strict.failures_before)
    if why is None:
        return ""
    return (
        f"\n(the run may not have collected every test naming this store: {why}; if "
        "another test's marker names it, they share it: run them together)"
    )


@pytest.fixture
def replaygate_config() -> dict[str, Any]:
    """Settings of every test's record/replay session (``match_host``, ``repeat_last``,
    ``sanitize``, ``source``, ``interface``, ``note``, ``cap``); override this fixture in a
    ``conftest.py`` or a test module. The marker's arguments override it per test."""
    return {}


SCRIPT_PLAYED = (
    "its lines answer the run's requests in order from its first, so a run of {test} "
    "alone would get the lines written for the tests before it"
)
"""Why a test recorded from a simulator script is re-recorded with the others it answers."""


def rerecord_command(config: pytest.Config, nodeid: str, mode: str = "record-missing") -> str:
    """The pytest command, run from the folder this run was, that records what test
    ``nodeid`` misses (``mode`` ``rerecord``: records it all anew), with this run's
    ``--replaygate-dir`` and simulator (option, else ini), both taken from the rootdir.
    With a simulator script it names no test, and says why: the script answers the
    session's requests in order, so it re-records the tests it was recorded for
    together, in one run."""
    quoted = quoted_nodeid(nodeid)
    behavior = simulator_behavior(config)
    script = behavior is not None and behavior.startswith("script:")
    chosen = "" if script else f" {nodeid_here(config, nodeid)}"
    command = f"`pytest{chosen} {record_options(config, mode, [nodeid])}`"
    if script:
        played = SCRIPT_PLAYED.format(test=quoted)
        command += f" (run it as the script was recorded, with every test it answers: {played})"
    return command


def from_simulator_hint(nodeid: str, *, alone: bool = False) -> str:
    """How to record test ``nodeid`` from the simulator again, said of a fixture that came
    from it when the run names no simulator: a script among the behaviours is played for
    the tests it answers together, not for this one alone, unless the suite is this test
    ``alone`` (:func:`~.suite_run.whole_suite_of_one`), which no test comes before."""
    from replaygate.fixtures.mismatch import PYTEST_SIMULATOR_OPTION

    if alone:
        return PYTEST_SIMULATOR_OPTION
    played = SCRIPT_PLAYED.format(test=quoted_nodeid(nodeid))
    return f"{PYTEST_SIMULATOR_OPTION} (with script:FILE, run every test it answers: {played})"


@pytest.fixture
def replaygate_exchange(
    request: pytest.FixtureRequest,
    replaygate_store: FixtureStore,
    replaygate_mode: str,
    replaygate_config: Any,
) -> Iterator[Exchange]:
    """The test's record/replay session over its store (counters shared by its clients);
    it fails a test that sent nothing through it, recording, or replaying a store that
    holds no fixture under ``--replaygate-strict`` (see the module docstring)."""
    from replaygate.http import Exchange
    from replaygate.pytest_plugin.settings import config_settings, session_settings
    from replaygate.sanitize import sanitizer_for

    nodeid = request.node.nodeid
    marker = marker_kwargs(request.node)
    run = _run(request.config)
    try:
        sanitizer = sanitizer_for(replaygate_store.path, root=request.config.rootpath)
    except ReplaygateError as err:
        refuse_setup(request, err)
    defaults: dict[str, Any] = {"sanitize": sanitizer}
    if run is not None:
        defaults.update(source=run.source, cap=run.cap)
    settings = session_settings(defaults, config_settings(replaygate_config, nodeid), marker)
    if run is not None and run.source == "sim":
        settings["source"] = "sim"  # what the simulator answered is never labelled otherwise
    if run is not None and run.cap_given:
        settings["cap"] = run.cap  # the run's own cap holds whatever a test configures
    try:
        exchange = Exchange(
            replaygate_store,
            mode=replaygate_mode,
            approve_live=bool(request.config.getoption(APPROVE, False)),
            **settings,
        )
    except ReplaygateError as err:
        refuse_setup(request, err)
    if run is not None and run.cap is not None and exchange.recording and settings["cap"] is None:
        run.uncapped += 1
    if exchange.recording and request.node.get_closest_marker("vcr") is not None:
        from replaygate.pytest_plugin.cassettes import CassettePlays

        exchange.live_guard = CassettePlays(request.node)
    elif exchange.recording and "httpx_mock" in request.fixturenames:
        from replaygate.pytest_plugin.httpx_mock_plays import HttpxMockPlays

        exchange.live_guard = HttpxMockPlays(request.node)
    test = unrepeated(request.node, nodeid)  # a repetition's id is none without --count
    exchange.session.rerecord = rerecord_command(request.config, test)
    exchange.session.rerecord_all = rerecord_command(request.config, test, "rerecord")
    exchange.session.store_named = bool(marker.get("fixtures"))  # else the test's own
    exchange.session.from_simulator = from_simulator_hint(
        test, alone=whole_suite_of_one(request.session)
    )
    spec = request.node.stash.get(SPEC, None)
    if spec is not None:  # each sample its own recorded answer, whatever repeat_last says
        exchange.session.sampled = spec.n
    checked = not marker.get(ALLOW_FLAG, False)
    if checked:
        request.node.stash[CHECKED] = exchange
    request.node.stash[_EXCHANGE] = exchange
    _RUNNING.append(exchange)
    yield exchange
    _RUNNING.remove(exchange)
    del request.node.stash[_EXCHANGE]
    exchange.finish_open()  # a stream its reader left open: what it read, before the store closes
    exchange.collect_forked()  # what its forked workers answered, before the strict check
    if run is not None and exchange.recorded:
        run.recorded_into.add(str(exchange.store.path))  # checked against .gitignore at the end
    late = request.config.pluginmanager.get_plugin(LATE_SENDS)
    if late is not None:  # a task the test left running sends through it no more
        exchange.after_end = late.refusal(nodeid)
    raised = request.node.stash.get(_RAISED, None)  # cleared by the store's teardown, next
    if checked:
        del request.node.stash[CHECKED]  # the item outlives it: keep no session's errors
    if _interrupted(request):
        return  # cut short: what it sent, or caught, says nothing
    if checked and exchange.raised:
        code = test_code(getattr(request.node, "function", None))
        caught = caught_errors(exchange.raised, raised, code)
        if caught:
            error = CaughtReplayError(caught, code, raised)
            request.node.stash[_CAUGHT] = error  # the store's strict check stands aside
            raise error
    failed = raised is not None  # it said why itself
    expected = marker.get("expect_requests", True) and not failed
    strict = bool(request.config.getoption("replaygate_strict", False))
    said = _sent_nothing(exchange, strict) if expected and exchange.sent == 0 else None
    if said is not None:
        failure = pytest.fail.Exception(said, pytrace=False)
        request.node.stash[_CAUGHT] = failure  # the store's strict check stands aside
        raise failure


def _sent_nothing(exchange: Exchange, strict: bool) -> str | None:
    """Why a test whose session saw no request fails, or None where that says nothing:
    recording, nothing was recorded; replaying under ``--replaygate-strict`` from a store
    that holds no fixture, the test passed on no recorded answer (a response cache warmed
    by an earlier test, as LiteLLM's ``litellm.cache``, answered it), and would miss run
    alone or first."""
    from replaygate.http.intercept import RESPONSE_CACHE
    from replaygate.http.seams import installed

    if exchange.recording:
        what = "nothing was recorded: the test sent no request replaygate saw"
    elif strict and len(exchange.store) == 0:
        what = (
            "nothing was replayed: the test sent no request replaygate saw, and its store "
            f"{exchange.store.path} holds no fixture, so it passed on no recorded answer "
            "and was never recorded (run alone, or before the test that warmed a cache, "
            "it misses)"
        )
    else:
        return None
    return (
        f"{what}. Its client may use a transport replaygate does not intercept "
        f"(intercepted: {', '.join(installed())}); {RESPONSE_CACHE}; a job it queued may "
        "have sent after it returned (a task queue's worker thread: wait for the job in "
        "the test, else its request is recorded into the next test's store); or the test "
        "calls no model API (a local model, such as pydantic-ai's TestModel or "
        "FunctionModel, a fake, the SDK method it would call patched: pytest-mock's "
        "mocker.patch, unittest.mock.patch; an OpenAI Agents SDK input guardrail checked "
        "without a model, whose tripwire stopped the run before the agent's model call was "
        "sent): mark such a test "
        "@pytest.mark.replaygate(expect_requests=False), which keeps the fixtures= of a "
        "mark on its class or module"
    )


_RUNNING: list[Exchange] = []
"""The sessions of the tests this process runs now (set up, not yet torn down)."""


@pytest.hookimpl
def pytest_enter_pdb(config: pytest.Config, pdb: Any) -> None:
    """A debugger entered while tests run (a ``breakpoint()``, ``--trace``, ``--pdb``):
    quitting it (``q``) cuts their sessions short before the test unwinds, so a stream a
    ``for`` loop held alone (``for chunk in client.chat.completions.create(...,
    stream=True)``), dropped and closed as the test's frame unwinds, is not recorded
    where ``q`` stopped its reader. Continuing, or stepping on, changes nothing."""
    quit_now = getattr(pdb, "set_quit", None)
    if not _RUNNING or not callable(quit_now):
        return
    running = list(_RUNNING)

    def set_quit() -> None:
        for exchange in running:
            exchange.cut_short = True
        quit_now()

    pdb.set_quit = set_quit


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """A test that Ctrl-C or a debugger's quit (``q`` at a ``breakpoint()`` or a step of
    ``--trace``) stopped has its session cut short: a stream it was reading outside a
    ``with`` block, closed later by its client's teardown, is not recorded where the
    interrupt cut it (the next recording records it whole)."""
    try:
        return (yield)
    except (KeyboardInterrupt, pytest.exit.Exception):
        exchange = item.stash.get(_EXCHANGE, None)
        if exchange is not None:
            exchange.cut_short = True
        raise


@pytest.hookimpl(optionalhook=True, wrapper=True)
def pytest_timeout_set_timer(item: pytest.Item, settings: Any) -> Generator[None, Any, Any]:
    """Once pytest-timeout has set its signal for ``item`` (its ``signal`` method), mark the
    test's session cut short the moment the signal comes, before the test's frames unwind:
    a stream the unwinding drops (an SDK's stream iterated with no ``with`` block), or one
    left open, is not recorded where the clock cut it."""
    result = yield
    alarm = getattr(signal, "SIGALRM", None)  # none on Windows, where it uses a thread
    main = threading.current_thread() is threading.main_thread()  # else it uses one too
    if alarm is None or not main or getattr(settings, "method", None) != "signal":
        return result
    fires = signal.getsignal(alarm)
    if callable(fires):

        def cut_short(signum: int, frame: FrameType | None) -> Any:
            exchange = item.stash.get(_EXCHANGE, None)
            if exchange is not None:
                exchange.cut_short = True
            return fires(signum, frame)

        signal.signal(alarm, cut_short)
    return result


def _interrupted(request: pytest.FixtureRequest) -> bool:
    """Whether the session was interrupted (Ctrl-C) while the test ran: pytest then tears
    its fixtures down as the session ends, where a failure raised would end the run with a
    traceback, and a test cut short says nothing of what it sent or left unused."""
    return request.session.exitstatus == pytest.ExitCode.INTERRUPTED


def _sdk_module(request: pytest.FixtureRequest, sdk: str) -> ModuleType:
    """The SDK a client fixture builds on, imported. Where it is not installed, the test
    fails naming the fixture and the extra that installs it (``pip install
    'replaygate[openai]'``), not with the import's traceback."""
    try:
        return require(sdk, sdk, f"the {request.fixturename} fixture")
    except MissingExtraError as err:
        raise pytest.fail.Exception(f"replaygate: {err}", pytrace=False) from None


def sdk_http_library(module: ModuleType) -> str:
    """The HTTP library (``httpx2``, or ``httpx`` for ``anthropic`` before 1.0 and
    ``openai`` before 3.0) an SDK's clients are built on: the one its ``DefaultHttpxClient``
    derives from, so a client fixture hands the SDK a client of the kind it accepts."""
    from replaygate.http.bindings import library_of

    default = getattr(module, "DefaultHttpxClient", None)
    return (library_of(default) if isinstance(default, type) else None) or "httpx2"


class ClientFactory:
    """The value of a client factory fixture (``anthropic_client``): called, it makes a
    client; asked for an attribute of a client (``anthropic_client.messages``, the call
    forgotten), it says to call it, where a bare function's ``AttributeError`` names no
    fixture."""

    def __init__(self, fixture: str, make: Callable[..., Any]) -> None:
        self._fixture = fixture
        self._make = make

    def __call__(self, **kwargs: Any) -> Any:
        """A client made with the SDK's keyword arguments ``kwargs``."""
        return self._make(**kwargs)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # a dunder probed, or an attribute of one not made whole
            raise AttributeError(name)
        raise AttributeError(
            f"{self._fixture} is a factory of clients, not a client: call it, "
            f"{self._fixture}().{name} (or client = {self._fixture}(), with the SDK's "
            "keyword arguments)"
        )


def _sdk_clients(
    request: pytest.FixtureRequest,
    exchange: Exchange,
    sdk: str,
    client_class: str,
    *,
    is_async: bool,
) -> Iterator[Callable[..., Any]]:
    """Yields a factory of ``sdk.client_class`` clients wired to ``exchange``, then closes
    the synchronous clients it made (an asynchronous one's live transport keeps no
    connection open between calls, since its event loop is gone by then).

    Recording from the simulator, a client is built for the real API (or the ``base_url``
    given), as when replaying, and its live sends go to the simulator, a loopback
    ``base_url`` excepted. In
    replay mode, or from the simulator, a client gets a placeholder API key when none is
    given or set in the environment, since nothing is sent to a real API. Recording, each
    client's live transport uses the session's one TLS context.
    """
    module = _sdk_module(request, sdk)  # first: the SDK's extra installs what it sends with
    from replaygate.http.adapter import ToOrigin
    from replaygate.http.bindings import binding

    cls = getattr(module, client_class)
    env_key = f"{sdk.upper()}_API_KEY"
    library = sdk_http_library(module)
    bound = binding(library)
    http_client = bound.async_client if is_async else bound.client
    made: list[Any] = []
    run = _run(request.config)
    simulator = run.simulator() if run is not None else None
    keyless = exchange.mode == "replay" or simulator is not None
    if simulator is not None:  # what the session replays, the simulator learns
        exchange.live_origin = simulator.url

    def make(**kwargs: Any) -> Any:
        if "http_client" not in kwargs:
            live = (
                run.live_transport(is_async=is_async, library=library) if run is not None else None
            )
            if simulator is not None:
                # built for the real API, as when the test replays, its live sends go to
                # the simulator (a framework shaping requests by host shapes both alike);
                # a base_url of a loopback server of the test's own is left where it is
                live = ToOrigin(live, simulator.url)
            kwargs["http_client"] = http_client(exchange, transport=live)
        elif not _answered_by_store(kwargs["http_client"], request):
            fixture = request.fixturename or client_class
            refusal = _unwired_client(fixture, library, is_async=is_async)
            raise pytest.fail.Exception(refusal, pytrace=False) from None
        elif simulator is not None:  # a client of the test's own: its base_url points it
            kwargs.setdefault(
                "base_url", simulator.url if sdk == "anthropic" else simulator.openai_base_url
            )
        if "api_key" not in kwargs and not _has_credentials(sdk, env_key, kwargs):
            from replaygate.base_url import LOOPBACK_KEY, loopback_url

            if keyless:
                kwargs["api_key"] = REPLAY_API_KEY
            elif loopback_url(_base_url(sdk, kwargs)[1]):  # a server of this machine's own
                kwargs["api_key"] = LOOPBACK_KEY
            else:  # a test failure with replaygate's words, not a traceback
                raise pytest.fail.Exception(
                    f"replaygate: recording from the live API needs {_needed(sdk, env_key)} "
                    "(or api_key=...); record from the loopback simulator instead with "
                    "--replaygate-simulator",
                    pytrace=False,
                ) from None
        refused = _refused_base_url(sdk, kwargs)
        if refused is not None:  # a test failure naming it, not the SDK's InvalidURL
            raise pytest.fail.Exception(f"replaygate: {refused}", pytrace=False) from None
        client = cls(**kwargs)
        if is_async:
            _platform_known(client, module)
        made.append(client)
        return client

    yield ClientFactory(f"{'async_' if is_async else ''}{sdk}_client", make)
    if not is_async:
        for client in made:
            client.close()


def _answered_by_store(http_client: Any, request: pytest.FixtureRequest) -> bool:
    """Whether requests sent through ``http_client`` are answered by replaygate: its
    transport (or one it mounts) is a fixture transport, of any store, or the test
    intercepts every client (``replaygate_intercept``, or an ``intercept`` block open
    where the client is made)."""
    from replaygate.http.active import answering
    from replaygate.http.adapter import AsyncFixtureTransport, SyncFixtureTransport

    mounts = getattr(http_client, "_mounts", None)
    transports = [getattr(http_client, "_transport", None)]
    transports += list(mounts.values()) if isinstance(mounts, dict) else []
    if any(isinstance(t, (SyncFixtureTransport, AsyncFixtureTransport)) for t in transports):
        return True
    return "replaygate_intercept" in request.fixturenames or answering() is not None


def _unwired_client(fixture: str, library: str, *, is_async: bool) -> str:
    """Why a client factory refuses an ``http_client`` of the test's own, and what to pass."""
    factory = f"{library}_async_client" if is_async else f"{library}_client"
    return (
        f"replaygate: {fixture}(http_client=...) was given a client of the test's own, which "
        "answers nothing from the test's store: replaying, its requests would be refused by "
        "the network block, and recording, nothing would be recorded. Build it with "
        f"replaygate.http.{factory}(replaygate_exchange, ...), which takes the client's "
        "keyword arguments (event_hooks=, timeout=, headers=) and a transport of your own as "
        "transport= (a recording sends through it), or add replaygate_intercept to the "
        "test's arguments, which answers every client the test builds"
    )


def _platform_known(client: Any, module: Any) -> None:
    """Tell an asynchronous SDK client its platform (the ``x-stainless-os`` header) now:
    unknown, each task's first call would look it up in a worker thread, and the sends of
    an ``asyncio.gather`` would reach the transport in the order those threads end, so
    identical requests sent at once would get their recorded answers in another order at
    each run. An SDK without that lookup is left as it is."""
    if getattr(client, "_platform", False) is not None:
        return
    lookup = getattr(sys.modules.get(f"{module.__name__}._base_client"), "get_platform", None)
    if callable(lookup):
        client._platform = lookup()


def _base_url(sdk: str, kwargs: dict[str, Any]) -> tuple[str, str | None]:
    """Where the base URL an ``sdk`` client made with ``kwargs`` takes comes from and what
    it is: ``base_url=`` given, else ``<SDK>_BASE_URL`` (``None`` when unset)."""
    given = kwargs.get("base_url")
    if given is not None:
        return "base_url", str(given)
    env = f"{sdk.upper()}_BASE_URL"
    return env, os.environ.get(env)


def _refused_base_url(sdk: str, kwargs: dict[str, Any]) -> str | None:
    """Why the base URL an ``sdk`` client made with ``kwargs`` takes (:func:`_base_url`)
    cannot be one a client is built with, naming it; else ``None``."""
    from replaygate.base_url import refused_base_url

    name, url = _base_url(sdk, kwargs)
    refused = None if url is None else refused_base_url(name, url, sending=False)
    if refused is None:
        return None
    return f"{refused}; " + (
        "correct the base_url given" if name == "base_url" else f"correct or unset {name}"
    )


def _has_credentials(sdk: str, env_key: str, kwargs: dict[str, Any]) -> bool:
    """Whether an ``sdk`` client made with ``kwargs`` finds a credential in the environment
    (``env_key``, or, for anthropic, a bearer token given or set)."""
    if sdk != "anthropic":
        return bool(os.environ.get(env_key))
    from replaygate.models.live import anthropic_credential_set

    return bool(kwargs.get("auth_token")) or anthropic_credential_set()


def _needed(sdk: str, env_key: str) -> str:
    """The environment variables an ``sdk`` client finds a credential in, for a message,
    with those set under a name it never reads (:func:`misnamed_keys`)."""
    from replaygate.key_names import misnamed_keys

    if sdk != "anthropic":
        misnamed = misnamed_keys((env_key,))
        return f"{env_key}{f' ({misnamed})' if misnamed else ''}"
    from replaygate.models.live import ANTHROPIC_CREDENTIAL_NAMES, ANTHROPIC_CREDENTIALS

    misnamed = misnamed_keys(ANTHROPIC_CREDENTIALS)
    return f"{ANTHROPIC_CREDENTIAL_NAMES}{f' ({misnamed})' if misnamed else ''}"


@pytest.fixture
def anthropic_client(
    request: pytest.FixtureRequest, replaygate_exchange: Exchange
) -> Iterator[Callable[..., Any]]:
    """A factory of ``anthropic.Anthropic`` clients over the test's store (SDK kwargs)."""
    yield from _sdk_clients(request, replaygate_exchange, "anthropic", "Anthropic", is_async=False)


@pytest.fixture
def async_anthropic_client(
    request: pytest.FixtureRequest, replaygate_exchange: Exchange
) -> Iterator[Callable[..., Any]]:
    """A factory of ``anthropic.AsyncAnthropic`` clients over the test's store."""
    yield from _sdk_clients(
        request, replaygate_exchange, "anthropic", "AsyncAnthropic", is_async=True
    )


@pytest.fixture
def openai_client(
    request: pytest.FixtureRequest, replaygate_exchange: Exchange
) -> Iterator[Callable[..., Any]]:
    """A factory of ``openai.OpenAI`` clients over the test's store (SDK kwargs)."""
    yield from _sdk_clients(request, replaygate_exchange, "openai", "OpenAI", is_async=False)


@pytest.fixture
def async_openai_client(
    request: pytest.FixtureRequest, replaygate_exchange: Exchange
) -> Iterator[Callable[..., Any]]:
    """A factory of ``openai.AsyncOpenAI`` clients over the test's store."""
    yield from _sdk_clients(request, replaygate_exchange, "openai", "AsyncOpenAI", is_async=True)


@pytest.fixture
def replaygate_intercept(
    request: pytest.FixtureRequest, replaygate_exchange: Exchange
) -> Iterator[Exchange]:
    """Answers every httpx2, httpx, aiohttp and requests client used during the test from
    the test's store (the test's session decides whether sending nothing fails it).

    Recording from the simulator, what those clients send live to a model API goes to
    the simulator whatever host they name (loopback excepted): the code under test
    builds its clients for the real API, as it does when replaying, and knows nothing
    of replaygate that could point them elsewhere."""
    from replaygate.http.intercept import intercepting

    run = _run(request.config)
    simulator = run.simulator() if run is not None else None
    if simulator is not None:
        replaygate_exchange.live_origin = simulator.url
    with intercepting(replaygate_exchange):
        yield replaygate_exchange
