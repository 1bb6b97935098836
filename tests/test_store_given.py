"""A path given to ``verify``, ``checksum``, ``compact``, ``patrol`` or ``prune`` that holds
no fixture store file is refused, naming what it holds and what to pass: a source folder,
a store's lock (a slip of tab completion), the hits log's folder, an empty folder. Each
was read as a store with no fixture, so ``replaygate verify PATH`` as a CI gate passed a
wrong path green. A store file that holds no fixture (an empty ``.jsonl``) is a store: it
is checked, and passes."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from replaygate import FixtureStore, Message, ReplayModel
from replaygate.errors import FixtureFormatError, FixtureMismatchError
from run_cli import replaygate
from test_patrol import play, put
from test_store_walk_rule import fixture, folder_store

COMMANDS = (
    ("verify",),
    ("checksum",),
    ("compact",),
    ("compact", "--check"),
    ("patrol",),
    ("prune", "--unused"),
)
STORE = "tests/fixtures/test_agent/test_plan.jsonl"
PASS_A_STORE = "pass a store: a .jsonl file, or the folder of the stores"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A project as a test session leaves it: a store recorded beside its lock, the hits
    log of a run that played it, and the agent's source folder."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agent").mkdir()
    (tmp_path / "agent" / "__init__.py").touch()
    (tmp_path / "agent" / "plan.py").write_text("PLAN = 1\n", encoding="utf-8")
    store = tmp_path / STORE
    store.parent.mkdir(parents=True)
    with FixtureStore.open(store) as opened:
        opened.put(fixture("a trip to Porto"))
    played = tmp_path / "played.jsonl"
    put(played, "a trip to Faro", None)
    play(played, "a trip to Faro", tmp_path / ".replaygate" / "hits", "r1", tmp_path)
    (tmp_path / "empty").mkdir()
    packages = tmp_path / ".venv" / "lib" / "python3.11" / "site-packages"
    packages.mkdir(parents=True)
    (packages / "data.json").write_text("{}", encoding="utf-8")
    (tmp_path / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    (tmp_path / ".venv" / "lib64").symlink_to("lib")
    yield tmp_path


WRONG = {
    "a source folder": (
        "agent",
        "agent: holds no fixture store file (a .jsonl file, or .json fixtures): no .jsonl or "
        f".json file is in it or its folders; {PASS_A_STORE}",
    ),
    "an empty folder": ("empty", "empty: holds no fixture store file"),
    "the lock of a store file": (
        f"{STORE}.lock",
        f"{STORE}.lock: is the lock a write of {STORE} takes, not a fixture store: pass {STORE}",
    ),
    "the hits log's folder": (
        ".replaygate/hits",
        ".replaygate/hits: is a folder of the hits log (1 file(s): the fixtures each test run "
        f"played), not of fixture stores; {PASS_A_STORE}",
    ),
    "a virtualenv": (  # it named its lib64 link, a folder not walked again, as what it held
        ".venv",
        ".venv: is a Python environment (it holds pyvenv.cfg), whose files are installed "
        f"packages', not fixture stores; {PASS_A_STORE}",
    ),
    "an empty source file": (
        "agent/__init__.py",
        "agent/__init__.py: is an empty file not named as a fixture store (.jsonl, .json); "
        f"{PASS_A_STORE}",
    ),
}


@pytest.mark.parametrize(("path", "expected"), WRONG.values(), ids=list(WRONG))
def test_a_path_holding_no_store_is_refused_by_every_command(
    project: Path, path: str, expected: str
) -> None:
    assert Path(path).exists()
    for command in COMMANDS:
        done = replaygate(*command, path)
        assert done.returncode == 2, (command, done.stdout, done.stderr)
        assert f"Error: {expected}" in done.stderr, command
        assert "fixture(s) checked" not in done.stdout, command
    assert replaygate("verify", "tests/fixtures").returncode == 0  # the right path passes


def test_a_folder_of_dot_files_and_misnamed_files_names_them(project: Path) -> None:
    (project / "empty" / ".set-aside.jsonl").write_bytes(Path(STORE).read_bytes())
    (project / "empty" / "rc.JSONL").write_bytes(Path(STORE).read_bytes())
    done = replaygate("verify", "empty")
    assert done.returncode == 2
    assert (
        "Error: empty: holds no fixture store file (a .jsonl file, or .json fixtures): found "
        "instead: dot file(s), which no store reads (empty/.set-aside.jsonl); file(s) no store "
        "reads (empty/rc.JSONL: named .JSONL, which no store reads"
    ) in done.stderr


def test_the_lock_of_a_folder_store_names_the_folder(project: Path) -> None:
    folder_store(project / "fold", "a trip to Faro")
    done = replaygate("verify", "fold/.replaygate.lock")
    assert done.returncode == 2
    assert done.stderr.endswith(
        "Error: fold/.replaygate.lock: is the lock of the folder store fold, not a fixture "
        "store: pass fold\n"
    )


@pytest.mark.parametrize("path", ["tests/fixtures/none.jsonl", "tests/fixtures/only"])
def test_a_store_file_with_no_fixture_is_checked_and_passes(project: Path, path: str) -> None:
    # An empty store file is a store: nothing in it is damaged. `run` refuses to replay
    # from it, and verify says it checked nothing.
    empty = Path("tests/fixtures/none.jsonl" if path.endswith(".jsonl") else f"{path}/none.jsonl")
    empty.parent.mkdir(parents=True, exist_ok=True)
    empty.touch()
    done = replaygate("verify", path)
    assert (done.returncode, done.stdout) == (0, "0 fixture(s) checked, 0 problem(s)\n")
    assert done.stderr == (
        f"note: {path} holds no fixture (an empty store): nothing was checked; `replaygate "
        "run` refuses to replay from a store with no fixture\n"
    )
    for command in COMMANDS[1:]:
        assert replaygate(*command, path).returncode == 0, command
    checked = replaygate("verify", "tests/fixtures")
    assert (checked.returncode, checked.stderr) == (0, "")
    assert checked.stdout == "1 fixture(s) checked, 0 problem(s)\n"


def test_a_store_s_lock_is_refused_as_the_store_to_record_into_or_replay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `--fixtures rc.jsonl.lock` (tab completion stopping one name late) was recorded into:
    # fixtures every later command refused and that a .gitignore keeping the locks out
    # left out of the repository; run said to record there, show found no key there.
    monkeypatch.chdir(tmp_path)
    with FixtureStore.open("rc.jsonl") as opened:
        opened.put(fixture("a trip to Porto"))
    lock = Path("rc.jsonl.lock")
    assert lock.exists()
    refused = (
        "rc.jsonl.lock: is the lock a write of rc.jsonl takes, not a fixture store: pass rc.jsonl"
    )
    agent = ("--agent", "replaygate.examples.research_copilot:copilot", "--fixtures", str(lock))
    for command in (
        ("record", *agent, "--approve-live", "--simulator", "What is RAG?"),
        ("run", *agent, "What is RAG?"),
        ("show", "265288aeb827", "--fixtures", str(lock)),
    ):
        done = replaygate(*command)
        assert (done.returncode, done.stdout) == (2, ""), (command, done.stdout, done.stderr)
        assert f"Error: {refused}" in done.stderr, command
    with pytest.raises(FixtureFormatError, match=refused):
        FixtureStore.open(lock)
    with pytest.raises(FixtureFormatError, match="is the lock of the folder store fold"):
        FixtureStore.open("fold/.replaygate.lock")
    assert lock.read_bytes() == b""
    assert not Path("rc.jsonl.lock.lock").exists()


def test_show_refuses_a_path_holding_no_store(project: Path) -> None:
    # it said "no fixture with key '265288aeb827' in agent", as if the key were the slip
    done = replaygate("show", "265288aeb827", "--fixtures", "agent")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("Error: agent: holds no fixture store file")
    assert replaygate("show", "265288aeb827", "--fixtures", "tests/fixtures").returncode == 1


def test_show_given_no_store_names_the_pytest_plugin_s(project: Path) -> None:
    # the quickstart's project names no store in its pyproject.toml: show said only to pass
    # --fixtures, while its stores were in tests/fixtures
    done = replaygate("show", "265288aeb827")
    assert done.returncode == 2
    assert done.stderr.endswith(
        "(the pytest plugin's stores are in tests/fixtures: --fixtures tests/fixtures)\n"
    )
    done = replaygate("show", "265288aeb827", cwd="empty")  # no project, no tests/fixtures
    assert done.returncode == 2 and "pytest plugin" not in done.stderr
    (project / "pyproject.toml").write_text("[project]\nname = 'trip'\n", encoding="utf-8")
    done = replaygate("show", "265288aeb827", cwd="tests")  # the project's, from below it
    assert done.stderr.endswith(
        "(the pytest plugin's stores are in fixtures: --fixtures fixtures)\n"
    )


@pytest.mark.parametrize("place", ["rc.jsonl:3", "rc.jsonl:3:7"])
def test_a_fixture_s_place_pasted_as_a_store_names_the_file(tmp_path: Path, place: str) -> None:
    # `record --fixtures fx/rc.jsonl:3` (verify's "fx/rc.jsonl:3: ..." pasted whole) made
    # a folder store named rc.jsonl:3, and verify said only "no such file or folder".
    (tmp_path / "fx").mkdir()
    with FixtureStore.open(tmp_path / "fx" / "rc.jsonl") as store:
        store.put(fixture("one"))
    hint = (
        "it names line 3 of fx/rc.jsonl, a fixture's place as the commands print it, not "
        "a store: pass fx/rc.jsonl"
    )
    with pytest.raises(FixtureFormatError, match="no such file or folder: it names line 3"):
        FixtureStore.open(tmp_path / "fx" / place)
    assert not (tmp_path / "fx" / place).exists()
    for command in ("verify", "checksum"):
        done = replaygate(command, f"fx/{place}", cwd=tmp_path)
        assert done.returncode == 2 and done.stderr.endswith(f"no such file or folder: {hint}\n")
    patrolled = replaygate("patrol", f"fx/{place}", cwd=tmp_path)
    assert patrolled.stderr == f"Error: no fixture store at fx/{place}: {hint}\n"


def test_a_pattern_no_shell_expanded_names_the_folder_to_pass(tmp_path: Path) -> None:
    # `session.run("replaygate", "verify", "fx/*.jsonl")` (nox expands no pattern) said
    # only "no such file or folder", and record made a store named *.jsonl
    (tmp_path / "fx").mkdir()
    for name in ("a.jsonl", "b.jsonl"):
        with FixtureStore.open(tmp_path / "fx" / name) as store:
            store.put(fixture(name))
    done = replaygate("verify", "fx/*.jsonl", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.endswith(
        "fx/*.jsonl: no such file or folder: it is a pattern no shell expanded, matching 2 "
        "file(s) or folder(s): pass one store, or the folder holding them (fx), whose every "
        "store is read\n"
    )
    with pytest.raises(FixtureFormatError, match="a pattern no shell expanded, matching"):
        FixtureStore.open(tmp_path / "fx" / "*.jsonl")
    assert not (tmp_path / "fx" / "*.jsonl").exists()


def test_a_hits_log_of_many_runs_is_named_in_a_short_note_before_the_refusal(
    project: Path,
) -> None:
    # Every file of the log was named, one by one, on a line longer than the screen above
    # the error that says what the folder is.
    played = project / "played.jsonl"
    for run in range(2, 13):
        play(played, "a trip to Faro", project / ".replaygate" / "hits", f"r{run}", project)
    done = replaygate("verify", ".replaygate/hits")
    assert done.returncode == 2
    note = done.stderr.splitlines()[0]
    assert note.startswith("note: not fixture files, passed over: .replaygate/hits/"), note
    assert note.endswith(", ... (12 in all)") and note.count("(hits log)") == 4, note
    assert "Error: .replaygate/hits: is a folder of the hits log (12 file(s)" in done.stderr


def test_a_store_name_in_another_unicode_form_names_the_one_there(tmp_path: Path) -> None:
    # `record --fixtures café.jsonl` typed in NFD beside a café.jsonl copied in NFC made a
    # second store of a name that looks the same, and verify said "no such file or folder"
    # of a file `ls` shows there.
    nfc, nfd = "caf\u00e9", "cafe\u0301"
    (tmp_path / nfc).mkdir()
    with FixtureStore.open(tmp_path / nfc / "rc.jsonl") as store:
        store.put(fixture("one"))
    hint = f"{nfc}/rc.jsonl is there, a name that looks the same in another Unicode form (NFD"
    with pytest.raises(FixtureFormatError, match=re.escape(hint)):
        FixtureStore.open(tmp_path / nfd / "rc.jsonl")
    assert sorted(p.name for p in tmp_path.iterdir()) == [nfc]
    done = replaygate("verify", f"{nfd}/rc.jsonl", cwd=tmp_path)
    assert done.returncode == 2 and f"pass {nfc}/rc.jsonl, copied from this message" in done.stderr


def test_a_json_name_typed_for_a_jsonl_store_names_the_store(tmp_path: Path) -> None:
    # `run --fixtures rc.json` beside rc.jsonl said to record rc.json first, with a
    # `replaygate record --fixtures rc.json` that refuses a .json file; verify said only
    # "no such file or folder", and ReplayModel("rc.json") missed every request.
    with FixtureStore.open(tmp_path / "rc.jsonl") as store:
        store.put(fixture("one"))
    hint = (
        "rc.json: no such file or folder: rc.jsonl is there: pass it (a .json file holds "
        "one recorded fixture, and no recording makes one)"
    )
    with pytest.raises(FixtureFormatError, match=re.escape(hint.replace("rc.", f"{tmp_path}/rc."))):
        FixtureStore.open(tmp_path / "rc.json")
    agent = "replaygate.examples.research_copilot:copilot"
    for command in (("verify", "rc.json"), ("run", "--agent", agent, "--fixtures", "rc.json", "q")):
        done = replaygate(*command, cwd=tmp_path)
        assert done.returncode == 2 and done.stderr == f"Error: {hint}\n", done.stderr
    new = replaygate("run", "--agent", agent, "--fixtures", "new.json", "q", cwd=tmp_path)
    assert new.returncode == 2 and "record into a .jsonl file (--fixtures new.jsonl)" in new.stderr
    assert "replaygate record" not in new.stderr  # it would refuse new.json
    replay = ReplayModel(tmp_path / "new.json", model="m", max_tokens=8)
    with pytest.raises(
        FixtureMismatchError, match=r"no recording makes one: record into a \.jsonl"
    ):
        replay.complete([Message.user("hi")], [])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rc.jsonl", "rc.jsonl.lock"]


def test_the_hits_log_s_folder_is_refused_as_the_store_to_record_into_or_replay(
    project: Path,
) -> None:
    # `--fixtures .replaygate/hits` was replayed with "no fixtures at .replaygate/hits:
    # record them first (... --fixtures .replaygate/hits ...)", and recorded into: the
    # fixtures lay among the log's files, where every command given the store refused it.
    refused = (
        ".replaygate/hits: is a folder of the hits log (1 file(s): the fixtures each test "
        f"run played), not of fixture stores; {PASS_A_STORE}"
    )
    agent = ("--agent", "replaygate.examples.research_copilot:copilot")
    agent += ("--fixtures", ".replaygate/hits")
    for command in (
        ("record", *agent, "--approve-live", "--simulator", "What is RAG?"),
        ("run", *agent, "What is RAG?"),
        ("show", "265288aeb827", "--fixtures", ".replaygate/hits"),
    ):
        done = replaygate(*command)
        assert (done.returncode, done.stdout) == (2, ""), (command, done.stdout, done.stderr)
        assert f"Error: {refused}" in done.stderr, command
    for path in (".replaygate/hits", ".replaygate"):
        with pytest.raises(FixtureFormatError, match=f"{path}: is a folder of the hits log"):
            FixtureStore.open(path)
    assert [p.name for p in Path(".replaygate/hits").iterdir() if p.is_dir()] == []
    with FixtureStore.open("empty") as opened:  # an empty folder is a store to record into
        opened.put(fixture("a trip to Porto"))


def test_a_sqlite_history_given_as_a_store_is_named_never_converted(project: Path) -> None:
    # `--fixtures .replaygate/history.db` was refused as "lines end in a lone carriage
    # return (CR) ...: `tr '\r' '\n' < .replaygate/history.db > ...`, then `mv ...`",
    # which would destroy the history; checksum printed a digest of it.
    import sqlite3

    history = project / ".replaygate" / "history.db"
    with sqlite3.connect(history) as db:
        db.execute("CREATE TABLE runs (id TEXT, body TEXT)")
        db.execute("INSERT INTO runs VALUES (?, ?)", ("r1", "a\rb\nc\r" * 300))
    db.close()
    before = history.read_bytes()
    assert b"\r" in before
    reason = ".replaygate/history.db:1: holds a SQLite database (an eval history"
    for command in COMMANDS[:-1]:
        done = replaygate(*command, ".replaygate/history.db")
        assert done.returncode in (1, 2), command
        assert reason in done.stdout + done.stderr, command
        assert "carriage return" not in done.stdout + done.stderr, command
    checked = replaygate("verify", ".replaygate/history.db")
    assert checked.stdout.endswith("0 fixture(s) checked, 1 problem(s)\n")  # one, not a page each
    with pytest.raises(FixtureFormatError, match=re.escape(reason)):
        FixtureStore.open(history)
    assert history.read_bytes() == before


@pytest.mark.parametrize(
    ("line", "lone"),
    [
        (b'{"a": 1}\r{"b": 2}', True),
        (b'{"a": "caf\xe9"}\r{"b": 2}', True),  # Latin-1 text: tr converts it safely
        (b"\x8b\x08\x00\x1f\rdata", False),  # a gzip's bytes: tr would damage the archive
        (b"PK\x03\x04\r\x14\x00", False),
    ],
)
def test_only_a_line_of_text_is_said_to_end_in_lone_crs(line: bytes, lone: bool) -> None:
    from replaygate.errors import lone_cr

    assert lone_cr(line) is lone
