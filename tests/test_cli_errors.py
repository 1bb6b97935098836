"""A user's first mistakes: a message, exit 2 and the next step; never a traceback or a class name.

Each row is a documented error of a command: what the user typed (in a fresh
folder holding a copy of the example's fixtures), the exit status, and what the
message must name: what is wrong, where, and what to do.
"""

from __future__ import annotations

import re
import shlex
import shutil
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate.cli import main
from replaygate.described import describe
from replaygate.examples.research_copilot import shipped_eval_cases, shipped_fixtures
from replaygate.fixtures.store import FixtureStore
from replaygate.missing import CWD_GONE
from replaygate.regular import NotRegularFileError, read_regular_bytes
from replaygate.sim import Simulator
from run_cli import replaygate

# Its tests import the provider SDKs through replaygate (the example agent).

AGENT = ["--agent", "replaygate.examples.research_copilot:copilot"]
CASES = str(shipped_eval_cases())
CLASS_NAME = re.compile(r"\b[A-Z][A-Za-z]*(Error|Exception)\b")
KEY = "sk-ant-api03-" + "Zx9" * 31 + "-AbCdEfGh"
"""A key of the Anthropic API's shape, made here so that no file holds one."""


def _closed_port_url() -> str:
    with Simulator(behavior="echo") as sim:
        return str(sim.url)


FIRST_MISTAKES = {
    "record-without-approval": (
        ["record", *AGENT, "--fixtures", "new.jsonl", "hi"],
        None,
        ["Error: recording calls a live model", "add --approve-live", "Nothing was called"],
    ),
    "record-from-the-simulator-without-approval": (
        ["record", *AGENT, "--fixtures", "new.jsonl", "--simulator", "hi"],
        None,
        ["Error: recording from the loopback simulator: free, but it writes fixtures",
         "add --approve-live", "Nothing was called"],
    ),
    "eval-from-the-simulator-without-approval": (
        ["eval", *AGENT, "--record-mode", "record-missing", "--simulator",
         "--fixtures", "new.jsonl", "--cases", CASES, "--no-history"],
        None,
        ["mode 'record-missing' records from the loopback simulator: free", "add --approve-live"],
    ),
    "drift-on-the-simulator-without-approval": (
        ["drift", "f.jsonl", "--live-sample", "1", "--simulator"],
        None,
        ["re-sends recorded requests, here to the loopback simulator (free)", "add --approve-live"],
    ),
    "record-without-key": (
        ["record", *AGENT, "--approve-live", "--fixtures", "new.jsonl", "hi"],
        None,
        ["needs ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN", "--simulator"],
    ),
    "record-without-network": (
        ["record", *AGENT, "--approve-live", "--fixtures", "new.jsonl", "hi"],
        "unreachable",
        ["cannot reach the model API at", "--simulator"],
    ),
    "demo-live-without-network": (
        ["demo", "--live", "--out", "out"],
        "unreachable",
        ["cannot reach the model API at", "drop --live to record from the loopback simulator"],
    ),
    "eval-record-without-key": (
        ["eval", *AGENT, "--record-mode", "record-missing", "--approve-live",
         "--fixtures", "new.jsonl", "--cases", CASES, "--no-history"],
        None,
        ["needs ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN", "--simulator"],
    ),
    "record-a-secret": (
        ["record", *AGENT, "--approve-live", "--fixtures", "new.jsonl", "--simulator",
         f"What is RAG? my key is {KEY}"],
        None,
        ["refusing to send this request", "Anthropic API key found at request.messages[0]"],
    ),
    "verify-missing-path": (["verify", "nope.jsonl"], None, ["Error: nope.jsonl: no such file"]),
    "drift-unreachable": (
        ["drift", "f.jsonl", "--live-sample", "1", "--approve-live", "--base-url", "CLOSED"],
        None,
        ["NOT CHECKED", "check the server address"],
    ),
    "malformed-pyproject": (
        ["run", *AGENT, "--fixtures", "f.jsonl", "What is RAG?"],
        "[tool.replaygate\n",
        ["pyproject.toml:1", "not valid TOML"],
    ),
    "unknown-config-key": (
        ["run", *AGENT, "--fixtures", "f.jsonl", "What is RAG?"],
        "[tool.replaygate]\nfixturez = 'f.jsonl'\n",
        ["pyproject.toml:2", "tool.replaygate.fixturez", "unknown key", "known keys"],
    ),
    "run-never-recorded": (
        ["run", *AGENT, "--fixtures", "rc.jsonl", "What is RAG?"],
        None,
        ["Error: no fixtures at rc.jsonl: record them first (`replaygate record --agent "
         "replaygate.examples.research_copilot:copilot --fixtures rc.jsonl --approve-live "
         "'What is RAG?'`; add --simulator", "or point --fixtures at a recorded store"],
    ),
    "no-agent": (["run", "hi"], None, ["no agent to run", "--agent"]),
    "bad-agent": (
        ["run", "--agent", "no_such_mod:f", "--fixtures", "f.jsonl", "hi"],
        None,
        ["--agent 'no_such_mod:f'", "cannot import"],
    ),
    "short-key": (["show", "abc", "--fixtures", "f.jsonl"], None, ["shorter than", "12"]),
    "eval-missing-cases": (
        ["eval", *AGENT, "--fixtures", "f.jsonl", "--cases", "nope.jsonl"],
        None,
        ["nope.jsonl", "cannot read cases"],
    ),
    "patrol-missing-path": (["patrol", "nope"], None, ["no fixture store at nope"]),
    "report-without-history": (["report"], None, ["no history", "run `replaygate eval` first"]),
}  # fmt: skip


SLOW = {"drift-unreachable", "demo-live-without-network"}
"""Rows that wait for a client's retries against a closed port, or run the demo."""


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in FIRST_MISTAKES]
)
def test_a_first_mistake_gets_a_message_exit_2_and_the_next_step(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args, setup, expected = FIRST_MISTAKES[name]
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    shutil.copy(shipped_fixtures(), tmp_path / "f.jsonl")
    env: dict[str, str] = {}
    if setup == "unreachable":
        env = {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": _closed_port_url()}
    elif setup is not None:
        (tmp_path / "pyproject.toml").write_text(setup, encoding="utf-8")
    args = [_closed_port_url() if a == "CLOSED" else a for a in args]
    done = replaygate(*args, env=env, cwd=tmp_path)
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    assert "Traceback" not in output, output
    assert not CLASS_NAME.search(done.stderr), done.stderr
    for part in expected:
        assert part in output, (part, output)


RECORD = ["record", *AGENT, "--fixtures", "new.jsonl", "--approve-live", "--simulator"]
SOME_CASES = "cases.jsonl"
"""A cases file of the first three shipped cases, three questions, written where run runs."""


@pytest.mark.parametrize(
    ("asked", "there"),
    [
        (["What is RAG?"], None),
        (["What is RAG?", "-x"], None),
        # slow: every case of a cases file (the first three shipped, SOME_CASES) recorded
        # through the command named, then replayed
        pytest.param(["--cases", SOME_CASES], None, marks=pytest.mark.slow),
        pytest.param(["--cases", SOME_CASES], "an empty file", marks=pytest.mark.slow),
        pytest.param(["--cases", SOME_CASES], "an empty folder", marks=pytest.mark.slow),
    ],
    ids=["one", "a dash", "cases", "cases, an empty file", "cases, an empty folder"],
)
def test_run_on_a_store_never_recorded_names_the_record_command_that_makes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, asked: list[str], there: str | None
) -> None:
    # it said only "rc.jsonl: no such file or folder"; on an empty store, a miss whose
    # command recorded the first case's question only
    monkeypatch.chdir(tmp_path)
    shipped = shipped_eval_cases().read_text(encoding="utf-8").splitlines(keepends=True)
    (tmp_path / SOME_CASES).write_text("".join(shipped[:3]), encoding="utf-8")
    store = "rc" if there == "an empty folder" else "rc.jsonl"
    if there == "an empty file":
        (tmp_path / store).touch()
    elif there == "an empty folder":
        (tmp_path / store).mkdir()
    questions = ["--", *asked] if "-x" in asked else asked
    run = ["run", *AGENT, "--fixtures", store, *questions]
    missed = CliRunner().invoke(main, run)
    assert missed.exit_code == 2, missed.output
    hint = re.search(r"record them first \(`([^`]+)`; add --simulator", missed.output)
    assert hint and missed.output.startswith(f"Error: no fixtures at {store}: "), missed.output
    assert "or point --fixtures at a recorded store" in missed.output
    assert (tmp_path / store).exists() is (there is not None)  # left as it was
    words = shlex.split(hint.group(1))
    assert words[:2] == ["replaygate", "record"] and "--approve-live" in words
    recorded = CliRunner().invoke(main, ["record", "--simulator", *words[2:]])
    assert recorded.exit_code == 0, recorded.output
    assert CliRunner().invoke(main, run).exit_code == 0


def test_an_api_error_status_while_recording_is_a_message_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copy(shipped_fixtures(), tmp_path / "new.jsonl")
    before = (tmp_path / "new.jsonl").read_bytes()
    (tmp_path / "assistant_first.py").write_text(
        "from replaygate import Message\n\n"
        "def answer(model, question):\n"
        "    return model.complete([Message.assistant(question)], [])\n"
    )  # a conversation the API refuses: it must start with the user
    agent = ["--agent", "assistant_first:answer", "--model", "m", "--max-tokens", "64"]
    done = CliRunner().invoke(main, [*RECORD[:1], *agent, *RECORD[3:], "What is RAG?"])
    assert done.exit_code == 2 and isinstance(done.exception, SystemExit), done.output
    assert 'answered 400: messages: first message must use the "user" role' in done.output
    assert (tmp_path / "new.jsonl").read_bytes() == before


def test_a_model_the_api_serves_no_longer_is_named_with_what_to_do() -> None:
    # a recording naming a retired model ended in "answered 404: model: claude-sonnet-4-5",
    # which said neither that the model is gone nor where the id came from
    import httpx

    from replaygate.cli.live import live_model
    from replaygate.errors import LiveAPIError
    from replaygate.models.replay import RequestSettings
    from sdks import anthropic

    request = httpx.Request("POST", "https://api.anthropic.com/v1/messages")
    body = {"type": "error", "error": {"type": "not_found_error", "message": "model: old-m"}}
    gone = anthropic.NotFoundError(
        "model: old-m", response=httpx.Response(404, request=request), body=body
    )
    with pytest.raises(LiveAPIError) as caught, live_model(RequestSettings("old-m", 64), True, 7):
        raise gone
    assert "answered 404: model: old-m (the API serves no model 'old-m': a retired model" in str(
        caught.value
    )
    assert "--model or `model` in [tool.replaygate]" in str(caught.value)


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_max_tokens_the_sdk_would_want_streamed_is_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Left to choose its timeout, the anthropic SDK refuses an unstreamed call with
    # max_tokens over 21,333 ("Streaming is required ..."); a recording is not streamed.
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(main, [*RECORD, "--max-tokens", "64000", "What is RAG?"])
    assert done.exit_code == 0, done.output
    with FixtureStore.open(tmp_path / "new.jsonl") as store:
        requests = [store.read(loc).request for loc in store.locations()]
    assert requests and all(request["max_tokens"] == 64000 for request in requests)


@pytest.mark.parametrize(
    "args",
    [
        ["verify", ""],
        ["compact", ""],
        ["prune", "", "--unused"],
        ["import-cassettes", ".", "--out", ""],
        ["eval", "--out", ""],
        ["history", "export", "--out", ""],
    ],
    ids=lambda args: " ".join(args[:1]),
)
def test_an_empty_path_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    # Path("") is the current folder: each acted on the folder the command ran in
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 2, done.output
    assert "an empty path: give one (. for the current folder)" in done.output
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_an_empty_system_prompt_sends_none_and_an_empty_model_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # both fell back to [tool.replaygate]: --system "" could not turn the prompt off
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.replaygate]\nsystem = "Be terse."\n')
    done = CliRunner().invoke(main, [*RECORD, "--system", "", "What is RAG?"])
    assert done.exit_code == 0, done.output
    requests = [fixture.request for fixture in FixtureStore.open(tmp_path / "new.jsonl")]
    assert requests and all("system" not in request for request in requests)
    empty = CliRunner().invoke(main, [*RECORD, "--model", " ", "What is RAG?"])
    assert empty.exit_code == 2 and "Invalid value for '--model': an empty model id" in empty.output


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_an_empty_system_prompt_in_the_config_sends_none_as_the_flag_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # system = "" was taken as unset: the agent's own prompt was sent, without a word
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.replaygate]\nsystem = ""\n')
    done = CliRunner().invoke(main, [*RECORD, "What is RAG?"])
    assert done.exit_code == 0, done.output
    requests = [fixture.request for fixture in FixtureStore.open(tmp_path / "new.jsonl")]
    assert requests and all("system" not in request for request in requests)


def test_a_current_folder_removed_is_named_as_such(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "Error: no such file or directory", naming nothing, for a store given by its
    # absolute path: the command looks for pyproject.toml from the current folder
    store = tmp_path / "rc.jsonl"
    shutil.copy(shipped_fixtures(), store)
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    result = CliRunner().invoke(main, ["show", "265288aeb827", "--fixtures", str(store)])
    assert result.exit_code == 2, result.output
    assert result.output == (
        "Error: the current folder no longer exists (it was removed while this shell was "
        "in it): cd into an existing folder and run the command again\n"
    )


@pytest.mark.parametrize(
    "args",
    [["verify", "rc.jsonl"], ["checksum", "rc.jsonl"], ["import-cassettes", "cassettes"]],
)
def test_a_relative_path_in_a_current_folder_removed_names_the_folder_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    # was "Error: rc.jsonl: no such file or folder", a file the user sees is there
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert result.output == f"Error: {args[1]}: {CWD_GONE}\n"


def test_a_file_error_of_a_relative_path_in_a_current_folder_removed_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # demo --out d: "d: no such file or directory", where d was never the problem
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    assert describe(FileNotFoundError(2, "No such file or directory", "d")) == f"d: {CWD_GONE}"
    absolute = FileNotFoundError(2, "No such file or directory", str(tmp_path / "d"))
    assert describe(absolute) == f"{tmp_path / 'd'}: no such file or directory"


@pytest.mark.parametrize(
    ("link", "said"),
    [
        ("loop.jsonl", "loop.jsonl: is a symlink loop, where a fixture file is expected"),
        ("dangling.jsonl", "dangling.jsonl: is a symlink to 'nowhere.jsonl', which does not exist"),
    ],
)
@pytest.mark.slow  # the eval runner's whole flow
def test_eval_names_a_store_that_is_a_broken_link_as_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, link: str, said: str
) -> None:
    # a loop raised RuntimeError from the run's file names; both were "no fixtures at ..."
    monkeypatch.chdir(tmp_path)
    shutil.copy(shipped_eval_cases(), SOME_CASES)
    Path("loop.jsonl").symlink_to("loop.jsonl")
    Path("dangling.jsonl").symlink_to("nowhere.jsonl")
    run = ["eval", *AGENT, "--cases", SOME_CASES, "--fixtures", link, "--no-history"]
    done = CliRunner().invoke(main, run)
    assert done.exit_code == 2, done.output
    assert done.output.startswith(f"Error: {said}"), done.output


def test_a_miss_and_show_quote_a_store_name_holding_a_newline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # printed as it was, the one-line error and the header of show spanned two lines
    monkeypatch.chdir(tmp_path)
    store = "new\nline.jsonl"
    shutil.copy(shipped_fixtures(), store)
    missed = CliRunner().invoke(main, ["run", *AGENT, "--fixtures", store, "What is XYZ?"])
    assert missed.exit_code == 1, missed.output  # the run failed on a miss
    first, nearest = missed.output.splitlines()[:2]
    shipped = len(shipped_fixtures().read_bytes().splitlines())  # one fixture a line
    assert first.endswith(rf"not in 'new\nline.jsonl' ({shipped} fixtures)"), first
    assert r" at 'new\nline.jsonl':1 (recorded != requested)" in nearest
    shown = CliRunner().invoke(main, ["show", "f8e558479d81", "--fixtures", store])
    assert shown.output.startswith("# 'new\\nline.jsonl':1\n{"), shown.output[:80]


@pytest.mark.parametrize(
    ("args", "name"),
    [
        (["run", *AGENT, "--fixtures", "rc.jsonl", "--cases", "LINK"], "'--cases'"),
        (["calibrate", "export", "LINK", "--seed", "1"], "'RESULTS'"),
        (["calibrate", "score", "LINK"], "'SHEET'"),
    ],
)
@pytest.mark.parametrize(
    ("link", "said"),
    [
        ("loop.json", "is a symlink loop, where a file is expected"),
        ("dangling.json", "is a symlink to 'nowhere.json', which does not exist, where a file"),
    ],
)
def test_a_file_argument_that_is_a_broken_link_is_named_as_one(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    name: str,
    link: str,
    said: str,
) -> None:
    # click said of both that the file "does not exist"
    monkeypatch.chdir(tmp_path)
    Path("loop.json").symlink_to("loop.json")
    Path("dangling.json").symlink_to("nowhere.json")
    done = CliRunner().invoke(main, [link if a == "LINK" else a for a in args])
    assert done.exit_code == 2
    assert f"Error: Invalid value for {name}: '{link}' {said}" in done.output, done.output


def test_a_socket_given_as_a_file_to_read_is_named_as_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # opening one fails with ENXIO: "cannot read ...: No such device or address"
    monkeypatch.chdir(tmp_path)
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind("s.json")
        done = CliRunner().invoke(main, ["gate", "--results", "s.json", "--baseline", "s.json"])
        with pytest.raises(NotRegularFileError, match="is a socket, where a file is expected"):
            read_regular_bytes("s.json")
    assert done.exit_code == 2
    assert "s.json: cannot read baseline or results: is a socket, where a file is expected" in (
        done.output
    )


def test_stdout_sent_to_a_fixture_file_of_the_stores_read_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `replaygate verify fx --json > fx/report.json`: the shell made the file empty, and
    # verify reported it as a damaged fixture, into the report itself.
    import sys

    import click

    from replaygate.cli.options import note_other_files

    (tmp_path / "fx").mkdir()
    shutil.copy(shipped_fixtures(), tmp_path / "fx" / "rc.jsonl")
    with (tmp_path / "fx" / "report.json").open("w") as out:
        monkeypatch.setattr(sys, "stdout", out)
        with pytest.raises(click.ClickException) as caught:
            note_other_files(tmp_path / "fx")
    report = tmp_path / "fx" / "report.json"
    assert caught.value.message.endswith(
        "report.json is a fixture file of the stores read ("
        f"{tmp_path / 'fx'}), so this command would read its own output as a fixture: "
        f"send the output to a file outside them; the shell made {report} for it, empty, "
        f"which the stores' readers refuse as a damaged fixture: delete it (`rm {report}`), "
        f"or, if it held fixtures, restore it (`git checkout -- {report}`)"
    )  # it was left there, and every later command refused it as a damaged fixture
    with (tmp_path / "fx" / "rc.jsonl").open("a") as out:  # appended to: nothing emptied
        monkeypatch.setattr(sys, "stdout", out)
        with pytest.raises(click.ClickException) as caught:
            note_other_files(tmp_path / "fx")
    assert caught.value.message.endswith("send the output to a file outside them")
    with (tmp_path / "out.json").open("w") as out:  # outside them: read as before
        monkeypatch.setattr(sys, "stdout", out)
        assert note_other_files(tmp_path / "fx")


def test_diff_refuses_a_stdout_sent_into_the_stores_it_reviews(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `replaygate diff --json > tests/fixtures/review.json`: diff read the file the shell
    # had emptied as a fixture file added to the working tree, and stopped on it
    import sys

    import click

    from replaygate.cli.options import refuse_output_under

    (tmp_path / "fx").mkdir()
    shutil.copy(shipped_fixtures(), tmp_path / "fx" / "rc.jsonl")
    with (tmp_path / "fx" / "review.json").open("w") as out:
        monkeypatch.setattr(sys, "stdout", out)
        with pytest.raises(click.ClickException, match=r"review\.json is a fixture file of"):
            refuse_output_under(tmp_path / "fx")
    with (tmp_path / "review.json").open("w") as out:
        monkeypatch.setattr(sys, "stdout", out)
        refuse_output_under(tmp_path / "fx")  # outside the stores: nothing to say


@pytest.mark.parametrize(
    ("args", "given", "meant"),
    [
        (["verfy", "rc.jsonl"], "verfy", "verify"),
        (["Verify", "."], "Verify", "verify"),
        (["sim", "serv"], "serv", "serve"),
    ],
)
def test_a_misspelt_command_is_refused_naming_the_one_meant(
    args: list[str], given: str, meant: str
) -> None:
    # the commands are imported on first use, so click knew none to suggest: it said only
    # "No such command 'verfy'."
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 2
    assert done.output.endswith(f"Error: No such command {given!r}. Did you mean {meant!r}?\n")


def test_python_m_replaygate_runs_in_a_current_folder_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # was a FileNotFoundError traceback from os.getcwd() before any command ran
    import sys

    import replaygate.cli

    program = Path(replaygate.cli.__file__).parent.parent / "__main__.py"

    ran: list[str] = []
    monkeypatch.setattr(replaygate.cli, "run", lambda: ran.append("run"))
    monkeypatch.setattr(sys, "path", ["", *sys.path])
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    exec(compile(program.read_text(encoding="utf-8"), str(program), "exec"), {})
    assert ran == ["run"]
