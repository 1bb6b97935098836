"""One rule for which files under a folder are a store's: the store that replays and the
commands that check it (verify, checksum, compact) walk a folder the same way."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from replaygate import Fixture, FixtureFormatError, FixtureStore, Message, ModelResponse
from replaygate.fixtures.fixture import make_meta
from replaygate.fixtures.store.folder import store_files, store_tree
from replaygate.fixtures.store.leftovers import LeftoverTempWarning
from replaygate.hygiene import verify_passed
from replaygate.hygiene.refs import find_references
from replaygate.hygiene.review import review_store
from replaygate.models.providers import to_anthropic_request, to_anthropic_response
from run_cli import replaygate
from test_review import git


def fixture(question: str) -> Fixture:
    request = to_anthropic_request([Message.user(question)], [], model="m", max_tokens=8)
    response = to_anthropic_response(ModelResponse(text="a"), model="m")
    return Fixture.create(request, [response], make_meta("anthropic.messages", "1", "hand"))


def folder_store(root: Path, *questions: str) -> Path:
    with FixtureStore.open(root) as store:
        for question in questions:
            store.put(fixture(question))
    return root


@pytest.mark.parametrize("name", ["notes.jsonl", "anthropic.messages@1/deadbeefdead.json"])
def test_a_folder_named_as_a_fixture_file_is_refused_by_every_command(
    tmp_path: Path, name: str
) -> None:
    # verify, checksum and compact walked into it and passed; the store refused it.
    root = folder_store(tmp_path / "fold", "one")
    inside = root / name
    inside.mkdir()
    (inside / "inner.json").write_bytes(fixture("two").to_line())
    expected = f"{inside}: is a folder, where a fixture file is expected"
    with pytest.raises(FixtureFormatError, match="is a folder, where a fixture file"):
        FixtureStore.open(root)
    checked = replaygate("verify", str(root))
    assert checked.returncode == 2 and expected in checked.stdout
    assert "2 fixture(s)" not in checked.stdout  # inner.json is no fixture of the store
    for command in (["checksum"], ["compact", "--check"], ["compact"]):
        done = replaygate(*command, str(root))
        assert done.returncode == 2, command
        assert f"Error: {expected}" in done.stderr, command


def test_dot_files_are_passed_over_by_the_store_and_every_command(tmp_path: Path) -> None:
    # An editor's lock, a Mac's AppleDouble file and a file set aside with a dot: the
    # store never read them, while verify, checksum and compact read them as fixtures.
    root = folder_store(tmp_path / "fold", "one")
    plain = replaygate("checksum", str(root))
    (root / ".#rc.jsonl").symlink_to("root@host.12345:1700000000")
    (root / "._rc.jsonl").write_bytes(b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        ")
    (root / ".extra.jsonl").write_bytes(fixture("two").to_line())
    with FixtureStore.open(root) as store:
        assert len(store) == 1
    checked = replaygate("verify", str(root))
    assert checked.returncode == 0, checked.stdout
    assert "1 fixture(s) checked, 0 problem(s)" in checked.stdout
    assert f"{root / '.extra.jsonl'} (a dot file, which no store reads)" in checked.stderr
    summed = replaygate("checksum", str(root))
    assert summed.returncode == 0 and summed.stdout == plain.stdout
    for command in (["compact", "--check"], ["compact"]):
        assert replaygate(*command, str(root)).returncode == 0, command


def test_a_project_folder_walk_leaves_out_virtualenvs_vcs_and_tool_folders(
    tmp_path: Path,
) -> None:
    # `replaygate verify .` read site-packages' .json files as fixtures.
    folder_store(tmp_path / "tests" / "fixtures", "one")
    junk = {
        ".venv/lib/python3.11/site-packages/pkg/data.json",
        "venv/lib/python3.11/site-packages/pkg/data.json",  # a virtualenv by its pyvenv.cfg
        ".git/info/x.json",
        ".tox/py311/x.json",
        ".nox/tests/x.json",
        ".mypy_cache/3.11/x.meta.json",
        "node_modules/pkg/package.json",
        "src/__pycache__/x.json",
    }
    for name in junk:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text('{"not": "a fixture"}\n')
    (tmp_path / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    for command in (["verify"], ["checksum"], ["compact", "--check"]):
        done = replaygate(*command, str(tmp_path))
        assert done.returncode == 0, (command, done.stdout, done.stderr)
    assert "1 fixture(s) checked, 0 problem(s)" in replaygate("verify", str(tmp_path)).stdout
    with FixtureStore.open(tmp_path) as store:
        assert len(store) == 1
    # the rule is for folders below the one named: a store named directly is read
    shutil.move(tmp_path / "tests" / "fixtures", tmp_path / ".fixtures")
    with FixtureStore.open(tmp_path / ".fixtures") as store:
        assert len(store) == 1
    assert "1 fixture(s) checked" in replaygate("verify", str(tmp_path / ".fixtures")).stdout


def test_opening_a_store_removes_leftovers_only_where_its_walk_goes(tmp_path: Path) -> None:
    # The store's scan found the leftover of its own write, then a second walk, into dot
    # folders and node_modules, removed files named as one there too.
    root = folder_store(tmp_path / "fold", "one")
    own = root / ".rc.jsonl.123.tmp"
    own.write_bytes(b"{")
    kept = [root / ".cache" / ".notes.json.7.tmp", root / "node_modules" / ".p.jsonl.8.tmp"]
    for path in kept:
        path.parent.mkdir()
        path.write_bytes(b"{")
    with pytest.warns(LeftoverTempWarning, match="removed 1 temporary file"):
        FixtureStore.open(root).close()
    assert not own.exists()
    assert all(path.exists() for path in kept)


@pytest.mark.slow  # a real git repository
def test_diff_reviews_the_files_the_store_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # diff reviewed a dot file, and the files of a dot folder and of node_modules below the
    # store's folder, which the store never reads, as changed fixtures.
    git(tmp_path, "init", "-q", "-b", "main", "--template=")
    monkeypatch.chdir(tmp_path)
    root = folder_store(Path(".replaygate", "fixtures"), "one")  # named inside a dot folder
    aside = [root / ".extra.jsonl", root / ".cache" / "c.jsonl", root / "node_modules" / "n.jsonl"]
    for path in aside:
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(fixture("two").to_line())
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "fixtures")
    for path in aside:
        path.write_bytes(fixture("changed").to_line())
    folder_store(root, "three")
    result = review_store(root)
    assert len(result.added) == 1 and result.added[0].fixture.request == fixture("three").request
    assert not result.paired and not result.removed and not result.alarms


def test_a_project_folder_walk_leaves_out_conda_environments_and_site_packages(
    tmp_path: Path,
) -> None:
    # `conda create -p ./env` and `pip install --prefix ./local` make no pyvenv.cfg: the
    # .json files of conda-meta and site-packages were read as fixtures of the store.
    folder_store(tmp_path / "tests" / "fixtures", "one")
    for name in (
        "env/conda-meta/numpy-1.26.json",
        "env/lib/python3.11/site-packages/p/d.json",
        "local/lib/python3.11/site-packages/p/d.json",
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text('{"not": "a fixture"}\n')
    assert [f.name for f in store_files(tmp_path)] == [fixture("one").key + ".json"]
    with FixtureStore.open(tmp_path) as store:
        assert len(store) == 1


def test_references_are_not_read_in_python_environments(tmp_path: Path) -> None:
    # An installed package naming a store's file (replaygate's own examples name
    # fixtures.jsonl) was a reference of it in a virtualenv or conda environment named
    # without a dot, so prune --unused never offered its fixtures.
    for name in (
        "env/lib/python3.11/site-packages/replaygate/examples/agent.py",
        "conda/lib/python3.11/site-packages/pkg/x.py",
        "local/lib/python3.11/site-packages/pkg/x.py",
        "tests/test_agent.py",
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text('STORE = "fixtures.jsonl"\n')
    (tmp_path / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (tmp_path / "conda" / "conda-meta").mkdir()
    found = find_references([tmp_path], {"fixtures.jsonl"}, set(), set())
    assert found.by_name["fixtures.jsonl"] == {tmp_path / "tests" / "test_agent.py"}


def test_verify_names_the_passed_over_folders_holding_fixture_files(tmp_path: Path) -> None:
    # A symlinked fixtures/.shared, served before dot folders were passed over, was then
    # passed over in silence: verify green, the replay missing.
    shared = folder_store(tmp_path / "shared", "x", "y")
    root = folder_store(tmp_path / "fixtures", "one")
    (root / ".shared").symlink_to(shared)
    for name in (
        "node_modules/rc.jsonl",
        "node_modules/package.json",  # a tool's .json file, not named as a fixture's
        ".vscode/settings.json",
        ".cache/0123456789ab.json",  # named as a store names a fixture file
        "env/anthropic.messages@1/k.json",  # an interface folder's files are counted
        "__pycache__/x.json",  # Python's own: not looked into
        ".cache/deep/x.json",  # below a folder's own files: not looked for
        ".git/.x.json",  # a dot file is no fixture file
    ):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("{}\n")
    (root / "env" / "conda-meta").mkdir()
    done = replaygate("verify", str(root))
    assert done.returncode == 0 and "1 fixture(s) checked, 0 problem(s)" in done.stdout
    notes = [line for line in done.stderr.splitlines() if "is passed over" in line]
    assert notes == [
        f"note: {root / '.cache'} is passed over (a dot folder): its 1 .json/.jsonl file(s) "
        "are not read as fixtures; rename it without the dot, or name it as a store of its own",
        f"note: {root / '.shared'} is passed over (a dot folder): its 2 .json/.jsonl file(s) "
        "are not read as fixtures; rename it without the dot, or name it as a store of its own",
        f"note: {root / 'env'} is passed over (a Python environment): its 1 .json/.jsonl "
        "file(s) are not read as fixtures; move them out of it, or name it as a store of its "
        "own",
        f"note: {root / 'node_modules'} is passed over (no node_modules folder is entered): "
        "its 1 .json/.jsonl file(s) are not read as fixtures; move them out of it, or name it "
        "as a store of its own",
    ]
    (root / ".shared").rename(root / "shared")  # as the note says: served again
    done = replaygate("verify", str(root))
    assert "3 fixture(s) checked" in done.stdout and ".shared" not in done.stderr


def test_a_passed_over_folder_is_looked_into_within_limits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = folder_store(tmp_path / "fixtures", "one")
    venv = root / ".venv"
    (venv / "lib").mkdir(parents=True)
    for n in range(5):
        (venv / f"{n}.jsonl").write_text("{}")
    monkeypatch.setattr(verify_passed, "LOOK_LIMIT", 3)
    tree = store_tree(root)
    assert verify_passed.passed_over_notes(tree)[0].startswith(
        f"note: {venv} is passed over (a dot folder): its 3+ .json/.jsonl file(s)"
    )
    monkeypatch.setattr(verify_passed, "FOLDER_LIMIT", 0)
    assert verify_passed.passed_over_notes(tree) == []
    shutil.rmtree(venv)  # gone since the walk (another process): holds none
    assert verify_passed.fixture_named(venv) == (0, False)


def test_eval_cases_whose_first_line_an_edit_broke_are_still_passed_over(tmp_path: Path) -> None:
    # verify read such a cases file as a store: its first line malformed JSON, and each
    # case after it "not a fixture", one problem a line
    from replaygate.examples.research_copilot import shipped_eval_cases

    (tmp_path / "evals").mkdir()
    with FixtureStore.open(tmp_path / "evals" / "fixtures.jsonl") as store:
        store.put(fixture("one"))
    lines = shipped_eval_cases().read_text(encoding="utf-8").splitlines(keepends=True)
    broken = lines[0].replace('{"id"', '{"id",', 1)
    (tmp_path / "evals" / "cases.jsonl").write_text(broken + "".join(lines[1:3]))
    done = replaygate("verify", "evals", cwd=tmp_path)
    assert done.returncode == 0, done.stdout
    assert "evals/cases.jsonl (eval cases)" in done.stderr
    first = fixture("two").to_line()  # a store whose first line is damaged stays a store
    (tmp_path / "evals" / "s.jsonl").write_bytes(b'{"key",\n' + first)
    damaged = replaygate("verify", "evals", cwd=tmp_path)
    assert damaged.returncode == 1 and damaged.stdout.startswith("evals/s.jsonl:1: ")
