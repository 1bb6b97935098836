"""Every ``--json`` document is UTF-8 JSON, whatever the file names it holds: a name that
is not UTF-8 is written as the JSON escape of each byte that is not (``caf\\udce9``), the
same in every command, and ``os.fsencode`` of the parsed text gives back its bytes."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from forked_cli import ASCII_LOCALE, Forker
from replaygate import Fixture, FixtureStore
from replaygate.cli import main
from replaygate.fixtures.fixture import make_meta
from replaygate.fixtures.store import record_response

NAME = b"caf\xe9.jsonl"
META = make_meta("anthropic.messages", "2023-06-01", "hand")
REQUEST = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 64,
    "messages": [{"role": "user", "content": "Name a prime."}],
}


def _answer(text: str) -> dict[str, Any]:
    return {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
        "usage": {"input_tokens": 9, "output_tokens": 1},
    }  # fmt: skip


def _store(folder: Path) -> Path:
    """A store under a Latin-1 name holding a fixture and a sample line to fold."""
    path = folder / os.fsdecode(NAME)
    with FixtureStore.open(path) as store:
        store.put(Fixture.create(REQUEST, [_answer("2")], META))
        record_response(store, REQUEST, _answer("3"), sample=1, meta=META)
    return path


def _json(*args: str) -> Any:
    done = CliRunner().invoke(main, [*args, "--json"])
    assert isinstance(done.exception, SystemExit | None), done.exception
    assert b"\\udce9" in done.stdout_bytes, done.stdout_bytes
    return json.loads(done.stdout_bytes.decode("utf-8"))


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_verify_compact_and_patrol_write_the_name_the_same_way(here: Path) -> None:
    damaged = _store(here / "fx")
    with damaged.open("ab") as handle:
        handle.write(b"{broken\n")
    _store(here / "ok")

    [problem] = _json("verify", "fx")["problems"]
    assert os.fsencode(problem["file"]) == b"fx/" + NAME
    [compacted] = _json("compact", "--check", "ok")["files"]
    assert os.fsencode(compacted["file"]) == b"ok/" + NAME
    rows = _json("patrol", "ok")["fixtures"]
    assert {os.fsencode(row["fixture"]) for row in rows} == {b"ok/" + NAME + b":1"}


@pytest.mark.slow  # a real git repository
def test_diff_writes_the_name_as_the_other_commands_do(here: Path) -> None:
    store = _store(here / "fx")
    git = ["git", "-c", "user.name=T", "-c", "user.email=t@example.com",
           "-c", "commit.gpgsign=false"]  # fmt: skip
    subprocess.run([*git, "init", "-q", "--template="], check=True)
    (here / ".gitignore").write_text("*.lock\n", encoding="utf-8")
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "fixtures"], check=True)
    store.write_bytes(store.read_bytes().replace(b'"text":"2"', b'"text":"4"'))

    [alarm] = _json("diff", "fx")["alarms"]
    assert os.fsencode(alarm["file"]) == b"fx/" + NAME


def test_a_utf8_name_an_ascii_locale_holds_as_bytes_is_written_as_its_text() -> None:
    """Under ``LC_ALL=C`` Python holds ``ü.jsonl`` as the surrogates of its two bytes:
    ``verify --json`` wrote ``"\\udcc3\\udcbc.jsonl"``, where a UTF-8 locale writes
    ``"ü.jsonl"``; a byte that is not UTF-8 beside it stays its escape."""
    from replaygate.cli.json_out import json_text

    held = os.fsencode("ü").decode("ascii", "surrogateescape") + os.fsdecode(NAME)
    assert json_text({"file": held}) == '{\n  "file": "ücaf\\udce9.jsonl"\n}'


def test_a_utf8_name_an_ascii_locale_holds_as_bytes_is_named_in_results_as_its_text(
    tmp_path: Path,
) -> None:
    # under LC_ALL=C a results file and a baseline named the store "\udcc3\udca9vals/fx.jsonl",
    # where a UTF-8 locale names it "évals/fx.jsonl": two machines' shards differed
    from replaygate.evals.results import project_path

    held = os.fsencode("évals/").decode("ascii", "surrogateescape") + os.fsdecode(NAME)
    assert project_path(f"{tmp_path}/{held}", tmp_path) == "évals/caf\udce9.jsonl"


BASELINE_STORE_IN_C = """
import json
from pathlib import Path
from replaygate.cli.hygiene_cmds import _baseline_fixtures
Path("b.json").write_text(json.dumps({"source": {"fixtures": "évals/fx.jsonl"}}))
store = Path(*_baseline_fixtures(Path("b.json"), ""))
store.parent.mkdir()
store.write_text("{}")
print(open("évals/fx.jsonl".encode()).read())
"""


@pytest.mark.slow
def test_a_store_a_baseline_names_in_utf8_is_opened_in_an_ascii_locale(
    tmp_path: Path, ascii_forker: Forker
) -> None:
    # patrol and prune read a baseline's source.fixtures to tell the eval's stores: under
    # LC_ALL=C the name ended them in a UnicodeEncodeError traceback
    env = {**os.environ, **ASCII_LOCALE}
    done = ascii_forker.capture([], cwd=tmp_path, env=env, code=BASELINE_STORE_IN_C)
    assert done.stdout == b"{}\n", done.stderr.decode()


def test_a_json_document_is_utf8_on_a_stream_of_another_encoding() -> None:
    # PYTHONIOENCODING=latin-1 wrote "é" as the byte 0xe9, and "日" as the six
    # characters \u65e5 by Python's escape: no UTF-8 JSON
    from replaygate.cli.json_out import echo_json

    @click.command()
    def show() -> None:
        echo_json({"file": "tests/fixtures/é/日本.jsonl"})

    done = CliRunner(charset="latin-1").invoke(show, [])
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout_bytes.decode("utf-8")) == {"file": "tests/fixtures/é/日本.jsonl"}


def test_a_json_document_reaches_a_stdout_of_text_alone() -> None:
    # a command run from Python with its stdout redirected to a StringIO (no bytes under
    # it) ended in "TypeError: string argument expected, got 'bytes'" once documents
    # were written as UTF-8 bytes
    from replaygate.cli.json_out import echo_json

    caught = io.StringIO()
    with contextlib.redirect_stdout(caught):
        echo_json({"file": "tests/fixtures/é/日本.jsonl"})
    assert json.loads(caught.getvalue()) == {"file": "tests/fixtures/é/日本.jsonl"}
