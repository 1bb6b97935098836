"""The command line: its click commands run in process (``run_cli``), and the few tests
marked ``slow`` run ``python -m replaygate`` in a real process, as a user runs it (forked
from an interpreter that imported the command line, tests/forked_cli.py)."""

from __future__ import annotations

import contextlib
import gc
import json
import os
import re
import shlex
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from forked_cli import Forker
from replaygate.cli import long_lists, main
from replaygate.cli.demo import demo
from replaygate.cli.eval_cmds import eval_cmd
from replaygate.cli.options import SIMULATOR_SEED
from replaygate.cli.replay_cmds import record
from replaygate.demo import DEMO_SEED
from replaygate.examples.research_copilot import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_MODEL,
    DEFAULT_SYSTEM,
    shipped_eval_cases,
)
from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.store import FixtureStore
from replaygate.models.replay import RequestSettings
from replaygate.sim import Simulator
from replaygate.sim.cli import serve
from run_cli import replaygate

# Its tests import the provider SDKs through replaygate (the example agent).

SHIPPED_CASES = shipped_eval_cases()
AGENT = "replaygate.examples.research_copilot:copilot"


def replaygate_process(
    forker: Forker, *args: str, code: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m replaygate ARGS`` (with ``code``: ``python -c CODE``) in a process of
    its own (forked from ``forker``), in this process's folder and environment."""
    with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
        status = forker.start(
            list(args), stdout=stdout.fileno(), stderr=stderr.fileno(), cwd=Path.cwd(),
            env=dict(os.environ), code=code,
        ).wait(120)  # fmt: skip
        stdout.seek(0)
        stderr.seek(0)
        out, err = stdout.read().decode(), stderr.read().decode()
    command = ["replaygate"] if code is None else ["python", "-c", code]
    return subprocess.CompletedProcess([*command, *args], status, out, err)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store recorded by `replaygate record` from the simulator, for two questions."""
    path = tmp_path_factory.mktemp("cli") / "rc.jsonl"
    with Simulator(behavior="research-copilot", seed=3) as sim:
        done = replaygate(
            "record", "--agent", AGENT, "--fixtures", str(path), "--approve-live",
            "--source", "sim",
            "What is RAG?", "Why are some agent tests flaky?",
            env={"ANTHROPIC_BASE_URL": sim.url, "ANTHROPIC_API_KEY": "sk-test-cli"},
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "recorded" in done.stdout
    return path


def test_record_writes_sim_fixtures_with_meta(recorded: Path) -> None:
    store = FixtureStore.open(recorded)
    assert len(store) >= 6
    metas = [fixture.meta for fixture in store]
    assert all(m and m["source"] == "sim" and m["interface"] == "anthropic.messages" for m in metas)
    assert b"sk-test-cli" not in recorded.read_bytes()


def _connected_sockets() -> set[socket.socket]:
    """The open, connected sockets this process holds."""
    found = set()
    for item in gc.get_objects():
        if isinstance(item, socket.socket) and item.fileno() != -1:
            with contextlib.suppress(OSError):
                item.getpeername()
                found.add(item)
    return found


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_record_from_its_simulator_leaves_no_connection_open(tmp_path: Path) -> None:
    before = _connected_sockets()
    gc.disable()  # what the command leaves is seen below, before a collection closes it
    try:
        done = replaygate(
            "record", "--agent", AGENT, "--fixtures", str(tmp_path / "rc.jsonl"),
            "--approve-live", "--simulator", "What is RAG?",
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert _connected_sockets() - before == set()
    finally:
        gc.enable()


@pytest.mark.slow  # a real git repository
def test_record_into_a_store_git_ignores_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a `*.jsonl` rule meant for data files: the store was left out of every commit
    subprocess.run(["git", "init", "-q", "--template="], cwd=tmp_path, check=True)
    (tmp_path / ".gitignore").write_text("*.jsonl\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    done = replaygate(
        "record", "--agent", AGENT, "--fixtures", "rc.jsonl", "--approve-live", "--simulator",
        "What is RAG?",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (
        "Note: 1 store file(s) recorded into are ignored by git: rc.jsonl (.gitignore:1: "
        "*.jsonl). A commit leaves them out"
    ) in done.stderr


@pytest.mark.slow
def test_record_without_approval_exits_2_and_touches_nothing(
    forker: Forker, tmp_path: Path
) -> None:
    path = tmp_path / "never.jsonl"
    done = replaygate_process(forker, "record", "--fixtures", str(path), "What is RAG?")
    assert done.returncode == 2
    assert "--approve-live" in done.stderr
    assert not path.exists() and list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_run_replays_and_checks_determinism(forker: Forker, recorded: Path) -> None:
    done = replaygate_process(
        forker, "run", "--agent", AGENT, "--fixtures", str(recorded), "What is RAG?",
        "--check-determinism",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "search_corpus({'q': 'RAG'})" in done.stdout
    assert "identical final: True; identical trace: True" in done.stdout


def test_run_mismatch_fails_with_the_field_diff(recorded: Path) -> None:
    done = replaygate("run", "--agent", AGENT, "--fixtures", str(recorded), "RAG, what is it?")
    assert done.returncode == 1
    assert "Error: no fixture recorded for this request" in done.stderr
    assert "FixtureMismatchError" not in done.stderr and "Traceback" not in done.stderr
    assert "messages[0].content[0].text: 'What is RAG?' != 'RAG, what is it?'" in done.stderr


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_run_miss_names_the_record_command_that_records_it(
    recorded: Path, tmp_path: Path
) -> None:
    store = tmp_path / "my fixtures" / "rc.jsonl"
    store.parent.mkdir()
    store.write_bytes(recorded.read_bytes())
    question = "RAG, what's it?"
    missed = replaygate("run", "--agent", AGENT, "--fixtures", str(store), question)
    assert missed.returncode == 1
    hint = re.search(r"re-record: `([^`]+)`", missed.stderr)
    assert hint is not None, missed.stderr
    words = shlex.split(hint.group(1))
    assert words[:2] == ["replaygate", "record"] and words[-1] == question
    with Simulator(behavior="research-copilot", seed=3) as sim:
        done = replaygate(
            *words[1:], env={"ANTHROPIC_BASE_URL": sim.url, "ANTHROPIC_API_KEY": "sk-test-cli"}
        )
    assert done.returncode == 0, done.stderr
    again = replaygate("run", "--agent", AGENT, "--fixtures", str(store), question)
    assert again.returncode == 0, again.stderr


def test_show_prints_the_fixture_and_refuses_unknown_keys(recorded: Path) -> None:
    key = FixtureStore.open(recorded).keys()[0]
    done = replaygate("show", key, "--fixtures", str(recorded))
    assert done.returncode == 0
    assert f'"key": "{key}"' in done.stdout and f"{recorded}:1" in done.stdout
    upper = CliRunner().invoke(main, ["show", key.upper(), "--fixtures", str(recorded)])
    assert upper.exit_code == 0 and f'"key": "{key}"' in upper.output  # a digest's case
    missing = replaygate("show", "ffffffffffff", "--fixtures", str(recorded))
    assert missing.returncode == 1 and "no fixture with key 'ffffffffffff'" in missing.stderr
    short = replaygate("show", key[:6], "--fixtures", str(recorded))
    assert short.returncode == 2 and "shorter than the minimum of 12" in short.stderr
    # pasted with what stood around it ("key 470a055b517b" of prune): it was a miss
    pasted = replaygate("show", f"(key {key})", "--fixtures", str(recorded))
    assert pasted.returncode == 2
    assert pasted.stderr.endswith(
        f"is no key: a key is hex digits (0-9, a-f), 12 or more of them: did you mean {key}?\n"
    )


def test_show_reads_each_store_of_a_tree_as_its_own(tmp_path: Path) -> None:
    # Two tests' stores recording one request with other answers are two fixtures, as
    # verify reads them: show of the tree failed (exit 2, "the same request is recorded
    # twice with different responses").
    request = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}
    for name, text in (("test_a", "first"), ("test_b", "second")):
        answer = {"content": [{"type": "text", "text": text}], "stop_reason": "end_turn"}
        with FixtureStore.open(tmp_path / "fx" / "test_m" / f"{name}.jsonl") as opened:
            opened.put(Fixture.create(request, [answer]))
    key = FixtureStore.open(tmp_path / "fx" / "test_m" / "test_a.jsonl").keys()[0]
    assert replaygate("verify", "--allow-missing-meta", "fx", cwd=tmp_path).returncode == 0
    done = replaygate("show", key, "--fixtures", "fx", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert [line for line in done.stdout.splitlines() if line.startswith("# ")] == [
        "# fx/test_m/test_a.jsonl:1",
        "# fx/test_m/test_b.jsonl:1",
    ]


def test_show_on_a_terminal_cuts_an_image_s_base64_to_its_start_and_length(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fixture holding an image printed its 1.4 MB of base64 on the terminal, burying
    the fields a reader looks for; piped, it is still printed whole."""
    image = "iVBORw0KGgo" + "A" * 1_999 + "="
    request = {
        "model": "m",
        "max_tokens": 8,
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": "image/png", "data": image},
                    },
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64," + image}},
                    {"type": "text", "text": "describe " * 200},
                ],
            }
        ],
    }
    store = tmp_path / "img.jsonl"
    with FixtureStore.open(store) as opened:
        opened.put(Fixture.create(request, [{"content": [], "stop_reason": "end_turn"}]))
    key = FixtureStore.open(store).keys()[0]
    piped = CliRunner().invoke(main, ["show", key, "--fixtures", str(store)])
    assert piped.exit_code == 0 and piped.output.count(image) == 2
    monkeypatch.setattr(long_lists, "on_terminal", lambda: True)
    shown = CliRunner().invoke(main, ["show", key, "--fixtures", str(store)])
    assert shown.exit_code == 0 and image not in shown.output
    assert f'"data": "{image[:64]}... (2,011 characters)"' in shown.output
    assert f'"url": "data:image/png;base64,{image[:42]}... (2,033 characters)"' in shown.output
    assert "describe " * 200 in shown.output  # text is left whole
    assert shown.output.endswith(
        "... 2 base64 value(s) cut on a terminal: pipe the output (`| less`) to see them whole\n"
    )


def test_show_on_a_terminal_cuts_an_embedding_s_numbers_to_their_start_and_length(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An embedding asked for as floats printed its 1,536 numbers one a line, 3,000 lines
    for two vectors; piped, they are still printed whole."""
    vector = [round(0.001 * i - 0.5, 3) for i in range(1536)]
    request = {
        "method": "POST",
        "path": "/v1/embeddings",
        "headers": {},
        "body": {"model": "text-embedding-3-small", "input": ["a", "b"], "dimensions": 8},
    }
    answer = {"status": 200, "headers": {}, "body": {"data": [{"embedding": vector}] * 2}}
    store = tmp_path / "emb.jsonl"
    with FixtureStore.open(store) as opened:
        opened.put(Fixture.create(request, [answer]))
    key = FixtureStore.open(store).keys()[0]
    piped = CliRunner().invoke(main, ["show", key, "--fixtures", str(store)])
    assert piped.exit_code == 0 and piped.output.count("\n") > 3000
    monkeypatch.setattr(long_lists, "on_terminal", lambda: True)
    shown = CliRunner().invoke(main, ["show", key, "--fixtures", str(store)])
    assert shown.exit_code == 0 and shown.output.count("\n") < 60
    assert shown.output.count('"embedding": "[-0.5, -0.499, -0.498, ... (1,536 numbers)]"') == 2
    assert '"input": [\n' in shown.output  # a short list is left whole
    assert shown.output.endswith(
        "... 2 list(s) of numbers cut on a terminal: pipe the output (`| less`) to see them whole\n"
    )


def test_show_writes_a_character_that_reorders_or_hides_text_as_its_escape(
    tmp_path: Path,
) -> None:
    """A stored answer holding U+202E was printed raw: a terminal showed what followed it
    backwards, so a reviewer read another answer than the one stored. It is printed as
    its escape, which a JSON reader reads back as the same character."""
    answer = {"content": [{"type": "text", "text": "pay \u202e001$ \u2066ok\u2069 \u200b"}]}
    store = tmp_path / "bidi.jsonl"
    with FixtureStore.open(store) as opened:
        opened.put(Fixture.create({"model": "m", "max_tokens": 8, "messages": []}, [answer]))
    key = FixtureStore.open(store).keys()[0]
    shown = CliRunner().invoke(main, ["show", key, "--fixtures", str(store)])
    assert shown.exit_code == 0, shown.output
    assert not set("\u202e\u2066\u2069\u200b") & set(shown.output)
    assert r'"text": "pay \u202e001$ \u2066ok\u2069 \u200b"' in shown.output
    document = json.loads(shown.output.split("\n", 1)[1])  # after the "# file:line" line
    assert document["response"] == answer


def test_verify_reports_every_problem_with_file_and_line(recorded: Path, tmp_path: Path) -> None:
    lines = recorded.read_bytes().splitlines(keepends=True)
    edited = json.loads(lines[1])
    edited["request"]["max_tokens"] = 99
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(
        lines[0]
        + json.dumps(edited, ensure_ascii=False).encode() + b"\n"
        + b"{not json\n"
        + lines[2][: len(lines[2]) // 2]
    )  # fmt: skip
    done = replaygate("verify", str(bad))
    assert done.returncode == 1
    assert f"{bad}:2: key {edited['key']} does not match its request" in done.stdout
    assert f"{bad}:3: malformed JSON" in done.stdout
    assert f"{bad}:4: truncated last line" in done.stdout
    assert "1 fixture(s) checked" not in done.stdout


def test_verify_repair_removes_only_the_partial_tail(recorded: Path, tmp_path: Path) -> None:
    data = recorded.read_bytes()
    crashed = tmp_path / "crashed.jsonl"
    tail = b'{"key": "abc", "requ'
    crashed.write_bytes(data + tail)
    done = replaygate("verify", str(crashed), "--repair")
    assert done.returncode == 0, done.stdout
    assert f"removed a partial tail of {len(tail)} bytes" in done.stdout
    assert crashed.read_bytes() == data
    assert (tmp_path / "crashed.jsonl.bak").read_bytes() == data + tail


def test_verify_a_clean_store_exits_0(recorded: Path) -> None:
    done = replaygate("verify", str(recorded))
    assert done.returncode == 0, done.stdout
    assert "0 problem(s)" in done.stdout


def test_record_then_replay_matches_python_api(recorded: Path) -> None:
    from replaygate import ReplayModel
    from replaygate.examples.research_copilot import build_registry, run

    model = ReplayModel(
        recorded, model=DEFAULT_MODEL, max_tokens=DEFAULT_MAX_TOKENS, system=DEFAULT_SYSTEM
    )
    result = run(model, build_registry(), "Why are some agent tests flaky?", system=DEFAULT_SYSTEM)
    assert "doc-flaky-tests" in {
        s.tool_call.arguments.get("doc_id") for s in result.steps if s.tool_call
    }


def test_every_command_resolves_to_a_command_of_its_name() -> None:
    import click

    from replaygate.cli import COMMANDS, main

    context = click.Context(main)
    for name in COMMANDS:
        command = main.get_command(context, name)
        assert isinstance(command, click.Command) and command.name == name
    assert main.get_command(context, "nope") is None


@pytest.mark.slow
def test_verify_does_not_import_the_sdks_or_the_plotting_library(
    forker: Forker, recorded: Path
) -> None:
    # forked from an interpreter that imported the command line alone (none of them):
    # what is loaded after verify is what verify imports, as in a fresh interpreter
    probe = (
        "import sys\n"
        "from replaygate.cli import main\n"
        f"try:\n    main(['verify', {str(recorded)!r}])\n"
        "except SystemExit as done:\n    assert done.code in (0, None), done.code\n"
        "heavy = sorted(m for m in ('anthropic', 'openai', 'matplotlib') if m in sys.modules)\n"
        "print('heavy:', heavy)\n"
    )
    done = replaygate_process(forker, code=probe)
    assert done.returncode == 0, done.stderr
    assert "heavy: []" in done.stdout


def test_a_damaged_store_is_a_clean_error_not_a_traceback(recorded: Path, tmp_path: Path) -> None:
    lines = recorded.read_bytes().splitlines(keepends=True)
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_bytes(b"".join(lines[:3]) + b"{broken\n" + b"".join(lines[4:]))
    recording = ["--approve-live", "--simulator", "x"]
    for args in (
        ["run", "--agent", AGENT, "--fixtures", str(damaged), "What is RAG?"],
        ["show", "2652", "--fixtures", str(damaged)],
        ["record", "--agent", AGENT, "--fixtures", str(damaged), *recording],
    ):
        done = replaygate(*args)
        assert done.returncode == 2, (args, done.stderr)
        assert f"Error: {damaged}:4: malformed JSON" in done.stderr
        assert "Traceback" not in done.stderr
    assert damaged.read_bytes() == b"".join(lines[:3]) + b"{broken\n" + b"".join(lines[4:])


def test_a_bad_sanitize_config_stops_record_cleanly(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[[tool.replaygate.sanitize.rules]]\npattern = "(x"\n', encoding="utf-8"
    )
    done = replaygate(
        "record", "--agent", AGENT, "--fixtures", "a.jsonl", "--approve-live", "--simulator",
        "hi", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "Error: " in done.stderr and "tool.replaygate.sanitize" in done.stderr
    assert "SanitizeConfigError" not in done.stderr
    assert "tool.replaygate.sanitize.rules[0].pattern: invalid regular expression" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "a.jsonl").exists()


def test_replay_from_the_cli_blocks_the_network(recorded: Path) -> None:
    import socket

    from replaygate.cli import replay_cmds
    from replaygate.errors import NetworkBlockedError
    from replaygate.http import network_blocked

    def agent_that_calls_out(*args: object, **kwargs: object) -> object:
        return socket.create_connection(("192.0.2.10", 443), timeout=1)

    settings = RequestSettings(DEFAULT_MODEL, DEFAULT_MAX_TOKENS, "s")
    store = FixtureStore.open(recorded)
    before = network_blocked()  # a session replaying tests of its own is offline already
    with pytest.raises(NetworkBlockedError):
        replay_cmds.replay_once(store, "What is RAG?", agent_that_calls_out, settings)
    assert network_blocked() == before  # the replay's own block is lifted once it is over


def test_questions_are_arguments_and_the_old_flags_say_so(recorded: Path) -> None:
    common = ("run", "--agent", AGENT, "--fixtures", str(recorded))
    both = replaygate(*common, "What is RAG?", "Why are some agent tests flaky?")
    assert both.returncode == 0, both.stderr
    assert both.stdout.count("question: ") == 2
    old = replaygate(*common, "--question", "What is RAG?")
    assert old.returncode == 0 and "question: What is RAG?" in old.stdout
    assert (
        "--question is deprecated" in old.stderr and 'replaygate run "What is RAG?"' in old.stderr
    )
    short = replaygate(*common, "-q", "What is RAG?")
    assert short.returncode == 2 and "question:" not in short.stdout
    assert "-q no longer takes a question: pass the question as an argument" in short.stderr
    assert 'replaygate run [OPTIONS] "What is RAG?"' in short.stderr  # no option of its own
    cases = replaygate(*common, "What is RAG?", "--cases", str(SHIPPED_CASES))
    assert cases.returncode == 2
    assert "give QUESTION arguments or --cases, not both" in cases.stderr


def test_every_simulator_seed_defaults_to_the_one_the_fixtures_were_recorded_with() -> None:
    commands = {"record": record, "eval": eval_cmd, "demo": demo, "sim serve": serve}
    seeds = {
        name: [p.default for p in c.params if p.name == "seed"] for name, c in commands.items()
    }
    assert seeds == {name: [SIMULATOR_SEED] for name in commands}
    assert SIMULATOR_SEED == DEMO_SEED == 7
    makefile = (Path(__file__).parent.parent / "Makefile").read_text(encoding="utf-8")
    assert "--simulator --seed 7" in makefile  # how the shipped fixtures were recorded


@pytest.mark.slow  # a drift check against the simulator
def test_drift_names_its_sampling_seed_for_what_it_is(recorded: Path) -> None:
    sample = ("drift", str(recorded), "--live-sample", "1", "--approve-live", "--simulator")
    new = replaygate(*sample, "--sample-seed", "3", "--json")
    old = replaygate(*sample, "--seed", "3", "--json")
    assert new.returncode == old.returncode, new.stderr  # 1 when the simulator drifted
    assert json.loads(new.stdout)["seed"] == json.loads(old.stdout)["seed"] == 3
    assert json.loads(new.stdout)["sampled"] == json.loads(old.stdout)["sampled"]
    assert "--sample-seed" in replaygate("drift", "--help").stdout


def test_demo_keeps_its_store_in_a_folder_and_refuses_a_file(tmp_path: Path) -> None:
    (tmp_path / "rc.jsonl").write_text("{}\n")
    done = replaygate("demo", "--keep", str(tmp_path / "rc.jsonl"), "--out", str(tmp_path / "o"))
    assert done.returncode == 2 and "'--keep'" in done.stderr and "is a file" in done.stderr
    assert (tmp_path / "rc.jsonl").read_text() == "{}\n" and not (tmp_path / "o").exists()


FAILING_AGENTS = """
import sys
from replaygate import Message

def raises(model, question):
    raise ValueError("no answer today")

def returns_none(model, question):
    return None

def exits(model, question):
    sys.exit(0)

def hides_a_miss(model, question):
    try:
        model.complete([Message.user(question)], [])
    except Exception:
        raise RuntimeError("gave up") from None
"""


@pytest.mark.parametrize(
    ("agent", "exit_code", "said"),
    [
        ("raises", 2, "Error: the agent raised ValueError: no answer today (at "),
        ("returns_none", 2, "Error: the agent returned None: expected a run result"),
        ("exits", 2, "Error: the agent ended the process (SystemExit(0) at "),
        ("hides_a_miss", 1, "Error: no fixture recorded for this request"),
    ],
)
def test_what_goes_wrong_in_the_agent_is_named_by_run_and_record(
    recorded: Path, tmp_path: Path, agent: str, exit_code: int, said: str
) -> None:
    (tmp_path / "cli_failing_agents.py").write_text(FAILING_AGENTS)
    spec = ["--agent", f"cli_failing_agents:{agent}", "--model", "m", "--max-tokens", "64"]
    done = replaygate("run", *spec, "--fixtures", str(recorded), "What is RAG?", cwd=tmp_path)
    assert done.returncode == exit_code and "Traceback" not in done.stderr, done.stderr
    assert said in done.stderr
    if agent == "hides_a_miss":
        return
    new = tmp_path / "new.jsonl"
    recording = ["--fixtures", str(new), "--approve-live", "--simulator", "What is RAG?"]
    done = replaygate("record", *spec, *recording, cwd=tmp_path)
    assert done.returncode == 2 and said in done.stderr, done.stderr
