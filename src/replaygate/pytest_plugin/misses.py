"""The misses of a replaying run, gathered at its end.

A change every request makes (a new SDK version sending a new default field, another
``anthropic-version``) fails many tests at once, each with its own miss buried in its
traceback. At the end of the run one section lists every test that failed on a miss with
the field paths that differ, and the command that records them all in one run
(``pytest --lf ...``). Each test's report carries what it missed (its
``user_properties``), so a pytest-xdist controller gathers its workers' misses too.
"""

from __future__ import annotations

import os
import re
from collections.abc import Generator, Iterable
from pathlib import Path
from typing import cast

import pytest

from replaygate.errors import FixtureFormatError, FixtureMismatchError, shell_path, shown_file
from replaygate.http.side_request import SIDE_REQUEST
from replaygate.http.token_fetch import GIVE_TOKEN
from replaygate.pytest_plugin.caught import (
    checked_raised,
    hidden_errors,
    replay_failure,
    same_change,
    test_code,
)
from replaygate.pytest_plugin.repeats import unrepeated
from replaygate.pytest_plugin.suite_run import whole_suite_of_one
from replaygate.shell_words import shell_quote

PLUGIN = "replaygate-misses"
PROPERTY = "replaygate-miss"
"""The ``user_properties`` name of a report's miss: (fields that differ, record mode,
whether the nearest fixture came from the simulator, what the test built that missed it
(:data:`BUILT`'s ``model`` or ``session``, else ``""``), whether a request changed: a
change to revert, unless it was meant, whether the request calls no model API: a fetch
to stop at its source, not to record)."""

TEST_PROPERTY = "replaygate-missed-test"
"""The ``user_properties`` name of the test a command that records a report's miss names,
where it is not the report's: a repetition of pytest-repeat (``test_x[2-3]``) is named as
the test it repeats, whose store it replays, and which a run without ``--count`` selects."""

MOVE_PROPERTY = "replaygate-recorded-elsewhere"
"""The ``user_properties`` name of the one other store that holds the request a test
missed, never recorded in its own (a test renamed or moved since): that store and the
test's own, as paths from the working folder, for the move the list of misses says first."""

Miss = tuple[str, str, bool, str, bool, bool]
NOT_RECORDED = "not recorded yet (no store, or an empty one)"
"""What a test missed whose store holds nothing: there is no change to revert."""
SENT_MORE = "a recorded request, sent more often than it has answers"
"""What a test missed that sent a recorded request once more than it was recorded (a
sampled test given more samples), or in a sample that did not send it then."""
UNSERVED = "a recorded request whose recorded answer cannot serve this send (its error says why)"
"""What a test missed whose request is recorded as it was sent, but not its answer as it
is read now (an answer edited to null, a stream read further than recorded): no request
changed, so there is no change to revert."""


def miss_of(item: pytest.Item, failed: BaseException) -> Miss | None:
    """What ``failed`` (a test's failure) missed, when it is or carries a miss: a miss
    of another API version, or a request sent more often than recorded by a test not
    sampled, is recorded anew (``rerecord``), as its own error says. A failure that may
    be the consequence of a miss the code under test caught (a tool's error handler made
    it the tool's output, which the next request carries) names that miss's fields too:
    they are the change, not the output the failure's diff shows; one of the same change,
    sent in another request (:func:`~replaygate.pytest_plugin.caught.same_change`), is
    not named."""
    raised = checked_raised(item)
    error = replay_failure(failed, raised)
    if not isinstance(error, FixtureMismatchError):
        return None
    from replaygate.fixtures.mismatch import PYTEST_SIMULATOR

    said = str(error)
    fields = _fields(error) or _UNDIFFED.get(error.kind, NO_NEAREST)
    changed = error.kind == "changed"
    hidden = hidden_errors(raised, failed, test_code(getattr(item, "function", None)))
    causes = (e for e in hidden if not same_change(e, error))  # not the change sent twice
    first = next((e for e in causes if isinstance(e, FixtureMismatchError)), None)
    if first is not None and _fields(first):
        fields = f"{fields}; after a miss the code under test caught: {_fields(first)}"
        changed = True
    elif (varies := _varying(said)) is not None:  # not what a caught miss made
        fields = f"{fields} ({varies})"
    credentials = GIVE_TOKEN in said  # a token fetch, a metadata server's probe
    side = credentials or SIDE_REQUEST in said
    built = "" if side else _built(said)  # such a request is stopped, not recorded
    if side:
        fields = CREDENTIALS if credentials else NO_MODEL_API
    return fields, error.record_mode, PYTEST_SIMULATOR in said, built, changed, side


def _varying(said: str) -> str | None:
    """What the list of misses adds to the fields of a miss whose request is another on
    each run, recorded again or not, as its message ``said`` tells (a tool that varies,
    call ids made anew, a set's, a list's or a text's lines' order, the clock, a random id,
    an object's memory address, a history kept in a file), or depends on the tests run
    before it (a conversation they share), or None."""
    from replaygate.fixtures.mismatch import (
        ADDRESS_LEAD,
        CARRIED_HISTORY_LEAD,
        CLOCK_LEAD,
        HISTORY_APART_LEAD,
        IN_ADDRESS,
        IN_CARRIED_HISTORY,
        IN_CLOCK,
        IN_HISTORY_APART,
        IN_LINE_ORDER,
        IN_ORDER,
        IN_RANDOM_ID,
        IN_RUN_VALUES,
        IN_SET_ORDER,
        IN_ZONE,
        LINE_ORDER_LEAD,
        RANDOM_ID_LEAD,
        REORDERED_LEAD,
        RUN_VALUES_LEAD,
        SET_TEXT_LEAD,
        ZONE_LEAD,
    )
    from replaygate.fixtures.tool_results import (
        CALL_ID_LEAD,
        IN_CALL_IDS,
        IN_TOOL_RESULTS,
        TOOL_RESULT_LEAD,
    )

    causes = (
        (TOOL_RESULT_LEAD, IN_TOOL_RESULTS),
        (CALL_ID_LEAD, IN_CALL_IDS),
        (SET_TEXT_LEAD, IN_SET_ORDER),
        (REORDERED_LEAD, IN_ORDER),
        (LINE_ORDER_LEAD, IN_LINE_ORDER),
        (CLOCK_LEAD, IN_CLOCK),
        (ZONE_LEAD, IN_ZONE),
        (RANDOM_ID_LEAD, IN_RANDOM_ID),
        (ADDRESS_LEAD, IN_ADDRESS),
        (RUN_VALUES_LEAD, IN_RUN_VALUES),
        (CARRIED_HISTORY_LEAD, IN_CARRIED_HISTORY),
        (HISTORY_APART_LEAD, IN_HISTORY_APART),
    )
    return next((added for lead, added in causes if lead in said), None)


def _built(said: str) -> str:
    """What the test built that missed, as a miss whose message is ``said`` tells: a model
    (``model``), an HTTP session (``session``: an ``intercept()`` or client factory of its
    own), each naming the command that records it; ``""`` for the plugin's own session."""
    from replaygate.http.exchange import HTTP_REPLACE, HTTP_RERECORD
    from replaygate.models.replay import MODEL_REPLACE, MODEL_RERECORD

    if MODEL_RERECORD in said or MODEL_REPLACE in said:
        return "model"
    return "session" if HTTP_RERECORD in said or HTTP_REPLACE in said else ""


def _fields(error: FixtureMismatchError) -> str:
    """The field paths that differ in ``error``, each once, in its order."""
    return ", ".join(dict.fromkeys(d.split(": ", 1)[0] for d in error.differences))


NO_NEAREST = "no nearest request"
_UNDIFFED: dict[str, str] = {
    "not-recorded": NOT_RECORDED,
    "sent-more": SENT_MORE,
    "other": UNSERVED,
}
"""What a miss with no field diff missed, by its kind (else :data:`NO_NEAREST`)."""


SCRIPT_RERUN = (
    "with script:FILE, run every test it answers, with no --lf and no test named: its lines "
    "answer the run's requests in order from its first, so a run of these tests alone would "
    "get the lines written for the tests before them"
)
"""Why the tests of a simulator script are recorded again together, said where the run
does not name the script: a fixture's meta says it came from the simulator, not from which
behaviour."""

NO_MODEL_API = "a request to no model API (a framework's tokenizer or price file, telemetry)"
"""What a test missed whose request calls no provider's API, which a framework sends of its
own: recording it would store that file, so it has no fields of a model call to name."""

CREDENTIALS = (
    "the client fetching its credentials (an access token, a metadata server), which is "
    "never recorded: give it a token in tests"
)
"""What a test missed whose request fetches the client's credentials: recording it would
store them, so it has no fields of a model call to name."""

STOP_SIDE_REQUESTS = (
    "A request to no model API is not one to record: stop it at its source, as the test's "
    "error says how."
)
"""What the list of misses says of those to no model API, instead of a command recording
them."""

BUILT = {
    "model": " (through a model the test builds)",
    "session": " (through an intercept() or client the test builds)",
}
"""Said of a miss of a model the test builds (a ``ReplayModel``), or of an HTTP session
(its own ``intercept()`` block, a client factory given a store), which the plugin's
record mode does not reach."""

BUILT_REACHED = {
    "model": "only where such a test builds a RecordingModel with `mode=replaygate_mode` "
    "(its error above says how); the plugin's record mode reaches its own clients, not a "
    "model a test builds.",
    "session": "only where such a test gives its intercept() or client factory "
    "`mode=replaygate_mode, approve_live=True`, and from the live API: the plugin's record "
    "mode, approval and simulator reach its own clients, not a session a test builds. Or "
    "mark the test `@pytest.mark.replaygate` (a unittest TestCase's class too) and drop its "
    "own block, so that the plugin answers its clients.",
}
"""What the list of misses says of the command reaching what a test builds."""


RERUN_AFTER_MISS = (
    "replaygate: {nodeid} missed its fixtures in an earlier attempt of this run ({fields}), "
    "and a rerun (pytest-rerunfailures: --reruns, or a flaky marker) runs it again: a miss "
    "reaches the test once and is never retried (law 2), since an attempt that passed after "
    "it, on a request that changed between attempts (a time, a random choice in a prompt), "
    "would hide it. Record the test, or revert the change, as the list of misses at the end "
    "of the run says."
)
"""Why a test that missed is failed as pytest-rerunfailures runs it again."""


class MissSummary:
    """Notes each test that failed on a miss; lists them at the end of the run, and fails
    a rerun of such a test (pytest-rerunfailures) at its setup."""

    def __init__(self) -> None:
        self.misses: dict[str, Miss] = {}
        self.tests: dict[str, str] = {}
        """The test a command names for a test that missed, where it is another
        (:data:`TEST_PROPERTY`)."""
        self.keys: dict[str, list[Path]] | None = None
        """The store files of each fixture key under the stores folder, read at the
        first miss of a store never recorded."""
        self.moves: dict[str, tuple[str, str]] = {}
        """The store to move, and where, for a test that missed a request another store
        holds (:data:`MOVE_PROPERTY`)."""
        self.alone = False
        """Whether the run is the whole suite, of one test, which no test of a script
        comes before (:func:`~.suite_run.whole_suite_of_one`)."""

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Note whether the run is the whole suite, of one test."""
        self.alone = whole_suite_of_one(session)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        """Fail a test run again in this run after it missed: a rerun that passed would
        hide the miss."""
        miss = self.misses.get(item.nodeid)
        if miss is not None:
            pytest.fail(RERUN_AFTER_MISS.format(nodeid=item.nodeid, fields=miss[0]), pytrace=False)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        """Put what the test missed on its report; a miss of a store never recorded whose
        request another store holds gets a note naming it (a test renamed or moved)."""
        error = None if call.excinfo is None else call.excinfo.value
        found = None
        if isinstance(error, FixtureMismatchError) and error.kind == "not-recorded":
            found = self.elsewhere(item.config, error)
            note = None if found is None else _elsewhere_note(error.key or "", *found)
            if note is not None and note not in getattr(error, "__notes__", ()):
                error.add_note(note)
        report = yield
        miss = None if call.excinfo is None else miss_of(item, call.excinfo.value)
        if miss is not None and report.failed:
            report.user_properties.append((PROPERTY, miss))
            if found is not None and len(found[0]) == 1:
                report.user_properties.append((MOVE_PROPERTY, (found[0][0], found[1])))
            test = unrepeated(item, item.nodeid)
            if test != item.nodeid:
                report.user_properties.append((TEST_PROPERTY, test))
        return report

    def elsewhere(
        self, config: pytest.Config, error: FixtureMismatchError
    ) -> tuple[list[str], str] | None:
        """The other stores under the stores folder that hold a fixture of ``error``'s key
        (a test renamed or moved since: its store keeps the old name), and the store the
        test missed in, as paths from the working folder; None when there is none."""
        from replaygate.pytest_plugin.store_paths import fixtures_dir

        if not error.key or not error.store:
            return None
        if self.keys is None:
            self.keys = _stores_by_key(fixtures_dir(config))
        missing = Path(error.store)
        found = [path for path in self.keys.get(error.key, ()) if path != missing]
        return ([shown_here(path) for path in found], shown_here(missing)) if found else None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Keep the first miss of each test (sent by a worker, or made here)."""
        for name, value in report.user_properties:
            if name == PROPERTY:
                self.misses.setdefault(report.nodeid, tuple(value))  # type: ignore[arg-type]
            elif name == MOVE_PROPERTY:
                old, new = cast(tuple[str, str], value)
                self.moves.setdefault(report.nodeid, (old, new))
            elif name == TEST_PROPERTY:
                self.tests.setdefault(report.nodeid, str(value))

    def pytest_terminal_summary(
        self, terminalreporter: pytest.TerminalReporter, config: pytest.Config
    ) -> None:
        """List the tests that missed and how to record them all in one run; a request to
        no model API (a tokenizer or price file) is to be stopped, not recorded."""
        if not self.misses:
            return
        from replaygate.fixtures.mismatch import PYTEST_SIMULATOR
        from replaygate.pytest_plugin.options import record_options

        count = len(self.misses)
        terminalreporter.section(f"replaygate: {count} test(s) missed their fixtures")
        for nodeid, (fields, _, _, built, *_) in self.misses.items():
            terminalreporter.line(f"{nodeid}: {fields}{BUILT.get(built, '')}")
        if any(miss[5] for miss in self.misses.values()):
            terminalreporter.line(STOP_SIDE_REQUESTS)
        misses = {nodeid: miss for nodeid, miss in self.misses.items() if not miss[5]}
        if not misses:
            return
        modes = {mode for _, mode, *_ in misses.values()}
        mode = "rerecord" if "rerecord" in modes else "record-missing"
        every = len(misses) == count
        them = "them all" if every else "the others"
        tests = list(dict.fromkeys(self.tests.get(nodeid, nodeid) for nodeid in misses))
        every = every and _lf_reruns_only(config, misses)
        command = _rerun(config, record_options(config, mode, tests), tests, every=every)
        for nodeid in misses:
            if nodeid in self.moves:
                old, new = self.moves[nodeid]
                terminalreporter.line(
                    f"{nodeid}: its request is recorded in {old}: if the test was renamed "
                    f"or moved since, move that store first, `{_move(old, new)}`, rather "
                    "than record it again; the command below then records only what is "
                    "still missing."
                )
        if not any(changed for *_, changed, _ in misses.values()):
            terminalreporter.line(f"Record {them} in one run: {command}.")
        else:
            terminalreporter.line(
                "If the change was meant (an edited prompt, an SDK upgrade that sends a new "
                f"field), record {them} in one run: {command}. Otherwise revert the change."
            )
        if any(sim for _, _, sim, *_ in misses.values()):
            why = "" if self.alone else f" ({SCRIPT_RERUN})"
            terminalreporter.line(
                f"Some were recorded from the simulator: add {PYTEST_SIMULATOR} to record "
                f"them from it again{why}."
            )
        for built in dict.fromkeys(miss[3] for miss in misses.values()):
            if built in BUILT:
                terminalreporter.line(
                    f"The command records the tests marked{BUILT[built]} {BUILT_REACHED[built]}"
                )


_KEY = re.compile(rb'^\{\s*"key"\s*:\s*"([0-9a-f]+)"', re.M)
"""A fixture's key, as a store file's line, or a folder store's pretty ``.json`` file (its
fields sorted), writes it first (a request's own ``key`` field further on is not one)."""


def _move(old: str, new: str) -> str:
    """The command that moves the store ``old`` to ``new`` in git, making the folder
    ``new`` goes in first when it is not there (``git mv`` makes none)."""
    folder = os.path.dirname(new)
    make = f"mkdir -p {shell_path(folder)} && " if folder and not os.path.isdir(folder) else ""
    return f"{make}git mv {shell_path(old)} {shell_path(new)}"


def _elsewhere_note(key: str, found: list[str], missing: str) -> str:
    """The note a miss of ``key`` in the store ``missing``, never recorded, gets when the
    stores ``found`` hold its request: what to do when the test was renamed or moved."""
    named = ", ".join(found[:3])
    more = f" and {len(found) - 3} more" if len(found) > 3 else ""
    return (
        f"replaygate: a fixture of this request (key {key}) is recorded in {named}{more}: "
        "if the test was renamed or moved since it was recorded, move its store to "
        f"{missing} (git mv) rather than record it again."
    )


def _stores_by_key(folder: Path) -> dict[str, list[Path]]:
    """The stores under ``folder`` (a test's own store is one: a ``.jsonl`` file or a
    folder store) of each fixture key their files hold; none where the folder cannot be
    walked (the miss itself says what is wrong with it)."""
    from replaygate.fixtures.store.folder import store_roots

    found: dict[str, list[Path]] = {}
    try:
        stores = store_roots(folder)
    except (FixtureFormatError, OSError):
        return found
    for store, files in stores.items():
        for path in files:
            try:
                keys = _KEY.findall(path.read_bytes())
            except OSError:  # a file that cannot be read
                continue
            for key in dict.fromkeys(keys):
                held = found.setdefault(key.decode(), [])
                if store not in held:
                    held.append(store)
    return found


def shown_here(path: Path) -> str:
    """``path`` from the working folder when it is under it, else as it is."""
    try:
        return shown_file(os.path.relpath(path) if path.is_relative_to(Path.cwd()) else str(path))
    except (OSError, ValueError):
        return shown_file(str(path))


def _keeps_failures(config: pytest.Config) -> bool:
    """Whether the run keeps the list of its failures that ``--lf`` reads: pytest's cache
    is on (not ``-p no:cacheprovider``) and its folder can be written (in a read-only
    checkout it cannot, and pytest only warns that the cache was not saved)."""
    if config.pluginmanager.get_plugin("cacheprovider") is None:
        return False
    folder = config.rootpath / os.path.expandvars(os.path.expanduser(config.getini("cache_dir")))
    while not os.path.lexists(folder) and folder != folder.parent:
        folder = folder.parent  # made by pytest as it saves, if the nearest folder allows
    return folder.is_dir() and os.access(folder, os.W_OK)


def _lf_reruns_only(config: pytest.Config, nodeids: Iterable[str]) -> bool:
    """Whether ``--lf`` after this run reruns the tests ``nodeids`` alone: pytest's list
    of last failures, as this run leaves it, holds no other test. A run of part of the
    suite (``pytest tests/test_a.py``) keeps the failures of an earlier run's other tests
    there, whose misses (an edit since reverted, or not reviewed yet) ``--lf`` would
    record too. Its keys are pytest's ``NodeId`` objects (pytest 9), strings before."""
    plugin = config.pluginmanager.get_plugin("lfplugin")
    failed = getattr(plugin, "lastfailed", None)
    return not isinstance(failed, dict) or {str(key) for key in failed} <= set(nodeids)


def _rerun(config: pytest.Config, options: str, nodeids: Iterable[str], *, every: bool) -> str:
    """The command that records the tests that failed: ``--lf``, except from a simulator
    script, whose lines answer the run's requests in order, so every test it answers runs,
    in a run that keeps no list of them for ``--lf`` (:func:`_keeps_failures`; it would
    rerun every test, or those of an older run), in CI (``CI`` set: the log is read
    and the command run on another machine, whose ``--lf`` knows its own failures), and
    when ``nodeids`` are not ``every`` test that missed (the others missed a request to no
    model API, which ``--lf`` would record) or ``--lf`` would rerun others too, failed in
    an earlier run (:func:`_lf_reruns_only`): there the tests ``nodeids`` are named. So are
    they in a run from outside the rootdir (``pytest proj/tests``), where a bare ``pytest``
    would take the working folder as its rootdir, with neither the project's settings nor
    its cache; a script's run there names the paths this run was given."""
    from replaygate.pytest_plugin.options import nodeid_here, simulator_behavior

    outside = not Path(config.invocation_params.dir).is_relative_to(config.rootpath)
    if (simulator_behavior(config) or "").startswith("script:"):
        given = "".join(f"{shell_quote(arg)} " for arg in config.args) if outside else ""
        return f"`pytest {given}{options}` (every test, as the script was recorded)"
    if outside or os.environ.get("CI") or not every or not _keeps_failures(config):
        named = " ".join(nodeid_here(config, nodeid) for nodeid in nodeids)
        return f"`pytest {named} {options}`"
    return (
        f"`pytest --lf {options}` (--lf reruns the tests that failed; it needs pytest's "
        "cache, so not with -p no:cacheprovider)"
    )
