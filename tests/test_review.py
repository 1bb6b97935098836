"""``replaygate diff``: fixture review on a real git repository made by the test.

Fixtures are recorded through the anthropic SDK from the loopback simulator, committed
with git, changed the way a pull request changes them, and reviewed.

Each test works on a real git repository: the module runs in ``make test``, not in
the inner loop.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from deadline import finishes
from replaygate.cli import main
from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.store import FixtureStore
from replaygate.fixtures.store.files import MAX_LINE_BYTES
from replaygate.hygiene import snapshot
from replaygate.hygiene.errors import HygieneError
from replaygate.hygiene.review import review_store
from replaygate.models.live import AnthropicModel
from replaygate.models.replay import RecordingModel
from replaygate.models.types import Message
from replaygate.sim import Simulator
from sdks import anthropic

pytestmark = pytest.mark.slow

MODEL = "claude-test-model"
SYSTEM = "You are a careful research assistant."
QUESTION = Message.user("What is RAG?")
OTHER = Message.user("Why are agent tests flaky?")


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=Test", "-c", "user.email=test@example.com",
         "-c", "commit.gpgsign=false", *args],
        cwd=repo, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout


@pytest.fixture(scope="module")
def new_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new, empty repository (no template files), copied for each test: a copy of its
    few files takes a millisecond, ``git init`` several."""
    root = tmp_path_factory.mktemp("new-repo")
    git(root, "init", "-q", "-b", "main", "--template=")
    return root / ".git"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, new_repo: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(new_repo, root / ".git")
    monkeypatch.chdir(root)
    return root


def commit(repo: Path, message: str = "fixtures") -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def record(sim: Simulator, store: Path, conversation: list[Message], system: str = SYSTEM) -> None:
    """One request recorded through the SDK from the simulator."""
    with anthropic.Anthropic(api_key="sim-key", base_url=sim.url, max_retries=0) as client:
        recorder = RecordingModel(
            AnthropicModel(client, model=MODEL, max_tokens=256, system=system),
            store, approve_live=True, model=MODEL, max_tokens=256, system=system, source="sim",
        )  # fmt: skip
        recorder.complete(conversation, [])


class Recordings:
    """What the simulator answered each request, recorded through the SDK once."""

    def __init__(self, sim: Simulator, folder: Path) -> None:
        self.sim, self._folder = sim, folder
        self._recorded: dict[tuple[tuple[Message, ...], str], Fixture] = {}

    def record(self, store: Path, conversation: list[Message], system: str = SYSTEM) -> None:
        """One request recorded through the SDK from the simulator into ``store``: the
        first time into a store of its own, then copied from there."""
        asked = tuple(conversation), system
        if asked not in self._recorded:
            own = self._folder / f"{len(self._recorded)}.jsonl"
            record(self.sim, own, conversation, system)
            [self._recorded[asked]] = FixtureStore.open(own)
        with FixtureStore.open(store) as opened:
            opened.put(self._recorded[asked])


@pytest.fixture(scope="module")
def recordings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Recordings]:
    with Simulator(behavior="research-copilot", seed=1) as server:
        yield Recordings(server, tmp_path_factory.mktemp("recorded"))


@pytest.fixture(scope="module")
def question_committed(
    new_repo: Path, recordings: Recordings, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """A repository whose store ``tests/fixtures/rc.jsonl`` holds the recording of
    :data:`QUESTION`, committed: made once per module, copied by :func:`question_store`."""
    root = tmp_path_factory.mktemp("question-committed") / "project"
    shutil.copytree(new_repo, root / ".git")
    recordings.record(root / "tests" / "fixtures" / "rc.jsonl", [QUESTION])
    commit(root)
    return root


@pytest.fixture
def question_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, question_committed: Path
) -> Path:
    """The store ``tests/fixtures/rc.jsonl`` of a copy of :func:`question_committed`, the
    working folder: its recording of :data:`QUESTION` committed, as many tests start (a
    copy of its files takes a fraction of the CPU of writing the store and committing it)."""
    root = tmp_path / "project"
    shutil.copytree(question_committed, root, symlinks=True)
    monkeypatch.chdir(root)
    return root / "tests" / "fixtures" / "rc.jsonl"


def diff(*args: str) -> Result:
    return CliRunner().invoke(main, ["diff", *args])


def test_prompt_change_is_paired_and_shows_system(repo: Path, recordings: Recordings) -> None:
    store = repo / "tests" / "fixtures" / "rc.jsonl"
    recordings.record(store, [QUESTION])
    recordings.record(store, [OTHER])
    commit(repo)
    store.unlink()
    recordings.record(store, [QUESTION], system=SYSTEM + " Cite every source.")
    recordings.record(store, [OTHER], system=SYSTEM + " Cite every source.")

    result = review_store(Path("tests/fixtures"))
    assert len(result.paired) == 2 and not result.added and not result.removed
    assert not result.alarms
    for pair in result.paired:
        assert [d.path for d in pair.differences] == ["system"]
        assert pair.summary == "system"
    done = diff("tests/fixtures")
    assert done.exit_code == 0, done.output
    assert "2 paired (request changed), 0 added, 0 removed, 0 ALARM" in done.output
    assert "system: 'You are a careful research assistant.' != 'You are a careful" in done.output
    # two fixtures with the same request difference are shown once, together
    assert done.output.count("request difference (old != new)") == 1


def test_added_message_is_paired_and_shows_the_extra_message(
    repo: Path, recordings: Recordings
) -> None:
    store = repo / "tests" / "fixtures" / "rc.jsonl"
    first = [QUESTION, Message.assistant("RAG retrieves documents, then answers from them.")]
    recordings.record(store, first)
    commit(repo)
    store.unlink()
    recordings.record(store, [*first, Message.user("What is RAG?")])

    result = review_store(store)
    [pair] = result.paired
    assert [d.render() for d in pair.differences] == [
        "messages[2]: <missing> != {'content': [{'text': 'What is RAG?', 'type': 'text'}], "
        "'role': 'user'}"
    ]
    assert pair.summary == "messages 2 -> 3"
    done = diff(str(store))
    assert done.exit_code == 0
    assert "messages[2]: <missing> != {'content': [{'text': 'What is RAG?'" in done.output
    assert "(messages 2 -> 3; response changed too)" in done.output


def _edit_first_response(store: Path, old: str, new: str) -> None:
    lines = store.read_text(encoding="utf-8").splitlines(keepends=True)
    obj = json.loads(lines[0])
    text = json.dumps(obj["response"])
    assert old in text
    obj["response"] = json.loads(text.replace(old, new))
    lines[0] = json.dumps(obj, ensure_ascii=False) + "\n"
    store.write_text("".join(lines), encoding="utf-8")


def test_hand_edited_response_is_an_alarm(repo: Path, recordings: Recordings) -> None:
    store = repo / "tests" / "fixtures" / "rc.jsonl"
    recordings.record(store, [QUESTION, Message.assistant("RAG is")])
    recordings.record(store, [OTHER])
    commit(repo)
    _edit_first_response(store, "could not find", "found")

    result = review_store(store)
    [alarm] = result.alarms
    assert not result.paired and not result.added and not result.removed
    assert [d.path for d in alarm.differences] == ["response.content[0].text"]
    done = diff(str(store))
    assert done.exit_code == 1
    assert "ALARM  tests/fixtures/rc.jsonl:1" in done.output
    assert "response.content[0].text: 'I could not find" in done.output
    assert "--allow-response-change" in done.output

    allowed = diff(str(store), "--allow-response-change", "--reason", "fixed a typo by hand")
    assert allowed.exit_code == 0, allowed.output
    assert "response change allowed, reason: fixed a typo by hand" in allowed.output

    markdown = diff(str(store), "--format", "markdown")
    assert markdown.exit_code == 1
    assert "| change | fixture | key | what changed |" in markdown.output
    assert "| **ALARM**: response changed, request unchanged | `tests/fixtures/rc.jsonl:1`" in (
        markdown.output
    )
    assert "<details>" in markdown.output


def test_allow_needs_a_reason(repo: Path) -> None:
    done = diff("--allow-response-change")
    assert done.exit_code == 2
    assert "--allow-response-change needs --reason" in done.output
    done = diff("--reason", "why")
    assert done.exit_code == 2
    assert "--reason goes with --allow-response-change" in done.output


@pytest.mark.parametrize("fmt", ["markdown", "text"])
def test_json_with_another_format_given_is_a_usage_error(repo: Path, fmt: str) -> None:
    # --format markdown --json printed JSON where a pull-request comment was asked for,
    # as gate and upgrade refuse; the review is not run
    done = diff("--format", fmt, "--json")
    assert done.exit_code == 2, done.output
    assert done.output.endswith(
        f"Error: --json is --format json, and --format {fmt} was given too: give one of them\n"
    ), done.output


def test_added_and_removed_only(repo: Path, recordings: Recordings) -> None:
    old = repo / "tests" / "fixtures" / "old.jsonl"
    recordings.record(old, [QUESTION])
    commit(repo)
    old.unlink()
    new = repo / "tests" / "fixtures" / "new.jsonl"
    recordings.record(new, [OTHER])

    result = review_store(Path("tests/fixtures"))
    assert [str(e) for e in result.added] == ["tests/fixtures/new.jsonl:1"]
    assert [str(e) for e in result.removed] == ["tests/fixtures/old.jsonl:1"]
    assert not result.paired
    done = diff()
    assert done.exit_code == 0
    assert "added    tests/fixtures/new.jsonl:1" in done.output
    assert "removed  tests/fixtures/old.jsonl:1" in done.output


def test_unrelated_requests_in_one_file_are_not_paired(
    question_store: Path, recordings: Recordings
) -> None:
    store = question_store
    store.unlink()
    recordings.record(store, [OTHER], system="Another system prompt.")
    result = review_store(store)
    assert len(result.added) == 1 and len(result.removed) == 1 and not result.paired


def test_unchanged_store(question_store: Path) -> None:
    store = question_store
    done = diff(str(store))
    assert done.exit_code == 0
    assert "no fixture changed (1 file(s) compared)" in done.output


def test_folder_store_rerecorded_under_new_file_names(repo: Path, recordings: Recordings) -> None:
    folder = repo / "fixtures"
    recordings.record(folder, [QUESTION])
    commit(repo)
    [old_file] = list(folder.rglob("*.json"))
    old_file.unlink()
    recordings.record(folder, [QUESTION], system="Answer in one sentence.")
    [new_file] = list(folder.rglob("*.json"))
    assert new_file.name != old_file.name

    [pair] = review_store(folder).paired
    assert pair.old.file == old_file.relative_to(repo).as_posix()
    assert pair.new.file == new_file.relative_to(repo).as_posix()
    assert [d.path for d in pair.differences] == ["system"]


def test_two_revisions_and_more_samples(repo: Path, recordings: Recordings) -> None:
    store = repo / "tests" / "fixtures" / "rc.jsonl"
    recordings.record(store, [QUESTION])
    commit(repo, "one sample")
    with anthropic.Anthropic(
        api_key="sim-key", base_url=recordings.sim.url, max_retries=0
    ) as client:
        recorder = RecordingModel(
            AnthropicModel(client, model=MODEL, max_tokens=256, system=SYSTEM),
            store, approve_live=True, model=MODEL, max_tokens=256, system=SYSTEM, sample=1,
        )  # fmt: skip
        recorder.complete([QUESTION], [])
    commit(repo, "two samples")

    result = review_store(store, base="HEAD~1", head="HEAD")
    [samples] = result.samples_added
    assert samples.added == 1 and not result.alarms
    done = diff(str(store), "--base", "HEAD~1", "--head", "HEAD")
    assert done.exit_code == 0
    assert "1 sample(s) added" in done.output


def test_markdown_for_a_pull_request(question_store: Path, recordings: Recordings) -> None:
    store = question_store
    store.unlink()
    recordings.record(store, [QUESTION], system="Be brief.")
    recordings.record(store, [OTHER], system="Be brief.")
    done = diff(str(store), "--format", "markdown")
    assert done.exit_code == 0
    out = done.output
    assert out.startswith("### replaygate fixture review")
    assert "| paired | `tests/fixtures/rc.jsonl:1` |" in out
    assert "| added | `tests/fixtures/rc.jsonl:2` |" in out
    assert "```\nsystem: 'You are a careful research assistant.' != 'Be brief.'\n```" in out


def test_errors_name_what_is_wrong(repo: Path, recordings: Recordings, tmp_path: Path) -> None:
    store = repo / "tests" / "fixtures" / "rc.jsonl"
    recordings.record(store, [QUESTION])
    done = diff(str(store))
    assert done.exit_code == 2
    assert "unknown revision 'HEAD'" in done.output and "no commits yet" in done.output
    commit(repo)

    done = diff(str(store), "--base", "no-such-branch")
    assert done.exit_code == 2
    assert "unknown revision 'no-such-branch'" in done.output
    unfetched = "3" * 40  # a pull request's base commit, as CI names it
    done = diff(str(store), "--base", unfetched)
    assert done.exit_code == 2
    assert f"(a commit not fetched: `git fetch origin {unfetched}`;" in done.output

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    done = diff(str(outside))
    assert done.exit_code == 2
    assert "is not inside a git repository" in done.output

    done = diff("nothing/here")
    assert done.exit_code == 2
    assert "no fixture files (.jsonl, .json) at nothing/here" in done.output
    done = diff(f"{store}:3")  # a fixture's place, as verify prints it, pasted whole
    assert done.exit_code == 2
    assert done.output.rstrip().endswith(
        f"it names line 3 of {store}, a fixture's place as "
        f"the commands print it, not a store: pass {store}"
    )

    store.write_text(store.read_text(encoding="utf-8") + "{not json}\n", encoding="utf-8")
    done = diff(str(store))
    assert done.exit_code == 2
    assert "tests/fixtures/rc.jsonl:2: malformed JSON" in done.output


def test_a_store_linked_in_from_outside_the_repository_is_named_so(
    repo: Path, tmp_path: Path
) -> None:
    # It said to run the command inside the repository, which it was run in.
    (tmp_path / "shared").mkdir()
    (repo / "tests").mkdir()
    (repo / "tests" / "fixtures").symlink_to(tmp_path / "shared")
    done = diff("tests/fixtures")
    assert done.exit_code == 2
    assert (
        f"tests/fixtures leads through a symbolic link to {tmp_path / 'shared'}, which is not "
        "inside a git repository (git versions a link, not what it leads to)"
    ) in done.output
    assert "run it inside" not in done.output


def _no_git(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(repo / "no-bin"))


def _unreadable(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A repository git will not read, as it will not read another user's (in a CI
    container: dubious ownership): a format newer than it knows."""
    with (repo / ".git" / "config").open("a", encoding="utf-8") as config:
        config.write("[core]\n\trepositoryformatversion = 99\n")


@pytest.mark.parametrize(
    ("spoil", "said"),
    [
        (_no_git, "git is not installed, or not on PATH"),
        (_unreadable, "Expected git repo version <= 1, found 99"),
    ],
)
def test_git_s_reason_is_kept_not_taken_for_no_repository(
    repo: Path,
    monkeypatch: pytest.MonkeyPatch,
    spoil: Callable[[Path, pytest.MonkeyPatch], None],
    said: str,
) -> None:
    # It said "tests/fixtures is not inside a git repository", of a repository.
    spoil(repo, monkeypatch)
    done = diff("tests/fixtures")
    assert done.exit_code == 2
    assert said in done.output
    assert "not inside a git repository" not in done.output


@pytest.mark.parametrize(
    ("replace", "message"),
    [
        (os.mkfifo, "is a FIFO, where a fixture file is expected"),
        (
            lambda path: path.symlink_to(path.with_name("moved.jsonl")),
            "is a symlink to",
        ),
    ],
    ids=["FIFO", "symlink to nothing"],
)
def test_a_store_file_replaced_by_what_is_not_a_file_is_refused_not_removed(
    question_store: Path, replace: Callable[[Path], object], message: str
) -> None:
    # Passed over, its fixtures were listed as removed and the review exited 0.
    store = question_store
    store.unlink()
    replace(store)
    done = finishes(lambda: diff(str(store.parent)), seconds=5.0)
    assert done.exit_code == 2, done.output
    assert f"Error: tests/fixtures/rc.jsonl: {message}" in done.output


def test_a_symlink_loop_named_as_the_store_is_refused_without_a_traceback(
    question_store: Path, tmp_path: Path
) -> None:
    store = question_store
    loop = store.with_name("loop.jsonl")
    loop.symlink_to(loop.name)
    for named in (loop, loop.parent):
        done = diff(str(named))
        assert done.exit_code == 2, done.output
        assert done.output == (
            "Error: tests/fixtures/loop.jsonl: is a symlink loop, where a fixture file is "
            "expected\n"
        )
    outside = tmp_path / "loop.jsonl"
    outside.symlink_to(outside.name)
    done = diff(str(outside))
    assert done.exit_code == 2, done.output
    assert "is not inside a git repository" in done.output


def test_damage_committed_at_the_base_is_named_as_committed(
    repo: Path, recordings: Recordings
) -> None:
    # "run `replaygate verify` on the store and fix it" sent the user to a store already
    # fixed in the working tree.
    store = repo / "tests" / "fixtures" / "rc.jsonl"
    recordings.record(store, [QUESTION])
    good = store.read_bytes()
    store.write_bytes(good + b"{not json}\n")
    commit(repo)
    store.write_bytes(good)
    done = diff(str(store))
    assert done.exit_code == 2, done.output
    assert ":tests/fixtures/rc.jsonl:2: malformed JSON" in done.output
    assert done.output.endswith(
        "(committed so; review from another revision with --base or --head)\n"
    )


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (
            lambda text: text.replace('"What is RAG?"', "[" * 300 + '"What is RAG?"' + "]" * 300),
            "nested too deeply to read",
        ),
        (
            lambda text: text.replace('"request": {', '"request": {\n    "model": "x",', 1),
            "duplicate key request.model",
        ),
    ],
    ids=["too deep", "key twice"],
)
def test_a_damaged_json_fixture_file_is_named_as_the_store_names_it(
    repo: Path, recordings: Recordings, damage: Callable[[str], str], reason: str
) -> None:
    # a .json file nested past orjson's writing depth ended in a TypeError traceback, and
    # one naming a key twice was reviewed as if its first value were not there
    store = repo / "tests" / "fixtures" / "rc"
    recordings.record(store, [QUESTION])
    commit(repo)
    (file,) = store.rglob("*.json")
    file.write_text(damage(file.read_text(encoding="utf-8")), encoding="utf-8")
    done = diff(str(store))
    assert done.exit_code == 2, done.output
    assert f"{file.relative_to(repo)}: {reason}" in done.output
    assert "Traceback" not in done.output


TOO_LONG = f"longer than the maximum of {MAX_LINE_BYTES:,} bytes"


def write_with_long_note(
    path: Path, fixture: bytes, indent: int | None = None, before: bytes = b"", after: bytes = b""
) -> None:
    """``before``, the fixture ``fixture`` with a meta note of ``MAX_LINE_BYTES`` characters
    (as ``json.dumps`` writes it) and ``after``, written to ``path``: the note a mebibyte at
    a time, never encoded, held whole or copied."""
    obj = json.loads(fixture)
    obj["meta"]["note"] = "NOTE"
    written = json.dumps(obj, indent=indent).encode()
    assert written.count(b'"NOTE"') == 1
    head, _, tail = written.partition(b'"NOTE"')
    piece = b"x" * (1 << 20)
    assert MAX_LINE_BYTES % len(piece) == 0
    with path.open("wb") as out:
        out.write(before + head + b'"')
        for _ in range(MAX_LINE_BYTES // len(piece)):
            out.write(piece)
        out.write(b'"' + tail + after)


@pytest.mark.parametrize("committed", [False, True], ids=["working tree", "committed"])
def test_a_line_over_the_maximum_is_refused_as_the_store_refuses_it(
    repo: Path, recordings: Recordings, committed: bool
) -> None:
    # a line of 33 MiB, which verify and the replay refuse, was reviewed as a meta change
    # and passed (exit 0), in the working tree and committed alike
    store = repo / "tests" / "fixtures" / "rc.jsonl"
    recordings.record(store, [QUESTION])
    recordings.record(store, [OTHER])
    commit(repo)
    first, second = store.read_bytes().splitlines(keepends=True)
    write_with_long_note(store, second, before=first, after=b"\n")
    if committed:
        commit(repo)
        done = diff(str(store), "--base", "HEAD~1", "--head", "HEAD")
        where = ":tests/fixtures/rc.jsonl:2: "
    else:
        done = diff(str(store))
        where = "Error: tests/fixtures/rc.jsonl:2: "
    assert done.exit_code == 2, done.output[:500]
    assert f"{where}{TOO_LONG}; refused without reading it whole" in done.output
    assert "meta changed" not in done.output


def test_a_json_fixture_file_over_the_maximum_is_refused(
    repo: Path, recordings: Recordings
) -> None:
    store = repo / "tests" / "fixtures" / "rc"
    recordings.record(store, [QUESTION])
    commit(repo)
    (file,) = store.rglob("*.json")
    write_with_long_note(file, file.read_bytes(), indent=2)
    done = diff(str(store))
    assert done.exit_code == 2, done.output[:500]
    assert f"Error: {file.relative_to(repo)}: {TOO_LONG}" in done.output


def test_the_first_line_over_the_maximum_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    # lines looked at a window of the longest line allowed at a time: a line of that
    # length passes, one byte more does not, and the line found is counted from the start
    monkeypatch.setattr(snapshot, "MAX_LINE_BYTES", 1000)
    request = {"model": MODEL, "max_tokens": 8, "messages": [{"role": "user", "content": "q"}]}
    short = Fixture.create(request, [{"content": []}]).to_line()
    many = short * 30  # lines over several windows
    assert len(short) < 1000 < len(many)
    cases = [
        (many + b"x" * 1001 + b"\n" + short, 31),
        (many + b"x" * 1001, 31),  # the last line, without its newline
        (short + b"x" * 1000 + b"\r\n" + short, 2),  # its CR counts, as the store counts it
        (short + b"x" * 1000 + b"\n" + b"y" * 1001 + b"\n", 3),
        (b"x" * 1001 + b"\n" + many, 1),
    ]
    for data, line in cases:
        with pytest.raises(HygieneError, match=rf"^rc\.jsonl:{line}: longer than the maximum"):
            snapshot.parse_file("rc.jsonl", data, "working tree")
    assert len(snapshot.parse_file("rc.jsonl", many, "working tree")) == 30
    for at_most in (many + b"x" * 1000 + b"\n" + short, many + b"x" * 1000):
        with pytest.raises(HygieneError, match=r"^rc\.jsonl:31: malformed JSON"):
            snapshot.parse_file("rc.jsonl", at_most, "working tree")


def test_a_fixture_file_whose_name_is_not_utf8_is_reviewed(
    repo: Path, recordings: Recordings
) -> None:
    folder = repo / "tests" / "fixtures"
    store = folder / os.fsdecode(b"caf\xe9.jsonl")  # a name written on a Latin-1 system
    recordings.record(store, [QUESTION])
    commit(repo)
    recordings.record(store, [OTHER])
    done = diff(str(folder))
    assert done.exit_code == 0, done.output
    assert "0 paired (request changed), 1 added, 0 removed" in done.output


def test_meta_test_pairs_across_files(repo: Path) -> None:
    def put(store: Path, text: str, meta_test: str) -> None:
        request = {
            "model": MODEL,
            "max_tokens": 10,
            "messages": [{"role": "user", "content": text}],
        }
        meta = {"interface": "anthropic.messages", "test": meta_test}
        with FixtureStore.open(store) as opened:
            opened.put(Fixture.create(request, [{"content": []}], meta))

    folder = repo / "fixtures"
    put(folder / "a.jsonl", "first wording", "tests/test_x.py::test_one")
    put(folder / "a.jsonl", "unrelated", "tests/test_x.py::test_two")
    commit(repo)
    (folder / "a.jsonl").unlink()
    put(folder / "b.jsonl", "second wording", "tests/test_x.py::test_one")
    result = review_store(folder)
    [pair] = result.paired
    assert (pair.old.file, pair.new.file) == ("fixtures/a.jsonl", "fixtures/b.jsonl")
    assert [d.path for d in pair.differences] == ["messages[0].content"]
    assert [str(e) for e in result.removed] == ["fixtures/a.jsonl:2"]


def test_meta_only_change_is_listed(question_store: Path) -> None:
    store = question_store
    obj = json.loads(store.read_text(encoding="utf-8"))
    obj["meta"]["note"] = "checked by hand"
    store.write_text(json.dumps(obj) + "\n", encoding="utf-8")
    result = review_store(store)
    [meta] = result.meta_changed
    assert [d.path for d in meta.differences] == ["note"]
    done = diff(str(store))
    assert done.exit_code == 0 and "meta     tests/fixtures/rc.jsonl:1" in done.output


def test_a_meta_field_named_with_markup_stays_text_in_markdown(question_store: Path) -> None:
    # its path went into the pull-request comment as written: "<!--" hid the rest
    store = question_store
    obj = json.loads(store.read_text(encoding="utf-8"))
    obj["meta"]["<!-- x"] = "checked by hand"
    store.write_text(json.dumps(obj) + "\n", encoding="utf-8")
    markdown = diff(str(store), "--format", "markdown").output
    assert "&lt;!-- x" in markdown and "<!--" not in markdown


def test_a_new_interface_version_is_paired_not_an_alarm(repo: Path) -> None:
    request = {"model": MODEL, "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}
    folder = repo / "fixtures"

    def put(version: str, text: str) -> None:
        meta = {"interface": "anthropic.messages", "interface_version": version}
        response = {"content": [{"type": "text", "text": text}]}
        with FixtureStore.open(folder) as opened:
            opened.put(Fixture.create(request, [response], meta))

    put("2023-06-01", "old API")
    commit(repo)
    for file in folder.rglob("*.json"):
        file.unlink()
    put("2024-10-22", "new API")
    result = review_store(folder)
    assert not result.alarms
    [pair] = result.paired
    assert [d.render() for d in pair.differences] == [
        "meta.interface_version: '2023-06-01' != '2024-10-22'"
    ]
    assert pair.summary == "interface_version"


def test_large_groups_pair_each_fixture_with_its_own() -> None:
    from replaygate.hygiene.review import FULL_SCAN_LIMIT, pair_up
    from replaygate.hygiene.snapshot import Entry

    def entry(model: str, i: int, extra: bool = False) -> Entry:
        messages = [{"role": "user", "content": f"question {i}"}]
        if extra:
            messages.append({"role": "user", "content": f"question {i}"})
        request = {"model": model, "max_tokens": 10, "messages": messages}
        return Entry("f.jsonl", i + 1, Fixture.create(request, [{"content": []}]))

    n = FULL_SCAN_LIMIT + 100
    removed = [entry("old-model", i) for i in range(n)]
    added = [entry("new-model", i, extra=i == 7) for i in range(n)]
    pairs, left_new, left_old = pair_up(removed, added)
    assert len(pairs) == n and not left_new and not left_old
    assert all(p.old.line == p.new.line for p in pairs)
    assert [d.path for d in pairs[7].differences] == ["model", "messages[1]"]


def _rewrite(file: Path, old: str, new: str) -> None:
    """Replace the one occurrence of ``old`` in ``file``, leaving every other byte alone."""
    text = file.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    file.write_text(text.replace(old, new), encoding="utf-8")


@pytest.mark.parametrize("store_name", ["rc.jsonl", ""], ids=["jsonl file", "json files"])
def test_a_hand_edited_key_is_an_alarm(repo: Path, recordings: Recordings, store_name: str) -> None:
    # Only the stored key changed: the review said "no fixture changed" and exited 0,
    # while verify and the replay refuse the fixture.
    folder = repo / "tests" / "fixtures"
    recordings.record(folder / store_name, [QUESTION])
    recordings.record(folder / store_name, [OTHER])
    commit(repo)
    file = sorted(folder.rglob("*.json*"))[0]
    key = json.JSONDecoder().raw_decode(file.read_text(encoding="utf-8"))[0]["key"]
    stored = '"key":"{}"' if store_name else '"key": "{}"'  # a .json file is indented
    _rewrite(file, stored.format(key), stored.format("deadbeef0000"))
    where = file.relative_to(repo).as_posix() + (":1" if store_name else "")

    result = review_store(folder)
    [alarm] = result.alarms
    assert alarm == result.key_alarms[0] and not result.response_alarms
    assert (str(alarm.new), alarm.new.fixture.key, alarm.expected) == (where, "deadbeef0000", key)
    assert not (result.paired or result.added or result.removed or result.meta_changed)
    done = diff("tests/fixtures")
    assert done.exit_code == 1, done.output
    assert "no fixture changed" not in done.output
    assert "1 ALARM (key does not match its request)" in done.output
    assert f"ALARM  {where}  key deadbeef0000 does not match its request (expected {key})" in (
        done.output
    )
    assert "verify and replay refuse the fixture" in done.output
    markdown = diff("tests/fixtures", "--format", "markdown")
    assert markdown.exit_code == 1
    assert (
        f"| **ALARM**: key does not match its request | `{where}` | `deadbeef0000` "
        f"| expected `{key}` |"
    ) in markdown.output
    as_json = json.loads(diff("tests/fixtures", "--json").output)
    assert [a["differences"] for a in as_json["alarms"]] == [[f"key: 'deadbeef0000' != '{key}'"]]
    # a reason accepts a changed response, never a key the replay refuses
    allowed = diff("tests/fixtures", "--allow-response-change", "--reason", "re-keyed by hand")
    assert allowed.exit_code == 1, allowed.output
    assert "does not match its request" in allowed.output


def test_a_request_edited_under_its_old_key_is_paired_and_an_alarm(question_store: Path) -> None:
    store = question_store
    _rewrite(store, '"text":"What is RAG?"', '"text":"What is RAG, briefly?"')
    result = review_store(store)
    [pair] = result.paired
    [alarm] = result.alarms
    assert alarm.new == pair.new and alarm.new.fixture.key == pair.old.fixture.key
    done = diff(str(store))
    assert done.exit_code == 1, done.output
    assert "1 paired (request changed)" in done.output
    assert f"key {pair.old.fixture.key} does not match its request (expected " in done.output


def test_an_added_fixture_with_a_wrong_key_is_an_alarm(question_store: Path) -> None:
    store = question_store
    written = json.loads(store.read_text(encoding="utf-8"))
    written["request"]["messages"][0]["content"][0]["text"] = "Written by hand"
    del written["seal"]
    with store.open("a", encoding="utf-8") as out:
        out.write(json.dumps(written) + "\n")  # the first fixture's key, another request
    result = review_store(store)
    [added] = result.added
    [alarm] = result.key_alarms
    assert str(alarm.new) == str(added) == "tests/fixtures/rc.jsonl:2"
    assert diff(str(store)).exit_code == 1


def test_changed_bytes_are_never_no_fixture_changed(question_store: Path) -> None:
    store = question_store
    fixture = json.loads(store.read_text(encoding="utf-8"))
    del fixture["seal"]  # the same fixture, stored otherwise
    store.write_text(json.dumps(fixture, indent=None) + "\n", encoding="utf-8")
    result = review_store(store)
    assert result.unchanged and result.files_changed == 1
    done = diff(str(store))
    assert done.exit_code == 0, done.output
    assert "no fixture changed" not in done.output
    assert "1 of 1 file(s) changed, but no fixture's request, responses or meta" in done.output
    markdown = diff(str(store), "--format", "markdown")
    assert "1 of 1 file(s) changed, but no fixture's" in markdown.output
