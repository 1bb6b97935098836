"""Option values at the edges of their types end a command with ``Error: ...``, exit 2.

``patrol --max-age`` with more days than a time span holds, ``eval --rate-limit nan``
(which click's range check lets through: NaN compares false with its bound) and a
rate so small that its wait cannot be slept each ended in a traceback, or in an error
blamed on the agent after the recording had started.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from replaygate import Fixture
from replaygate.cli import main
from replaygate.evals.ratelimit import RateLimiter
from replaygate.evals.recording import RecordRecipe
from replaygate.fixtures.fixture import make_meta
from replaygate.fixtures.store.files import store_path
from wire_shapes import EMPTY_ANSWER as RESPONSE

REQUEST = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}
META = make_meta("anthropic.messages", "2023-06-01", "hand", recorded_at="2025-01-01T00:00:00Z")


def _patrol_refusing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, age: str) -> Result:
    """``patrol --max-age AGE`` of a one-fixture store, refused as a usage error."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.jsonl").write_bytes(Fixture.create(REQUEST, [RESPONSE], META).to_line())
    done = CliRunner().invoke(main, ["patrol", "s.jsonl", "--max-age", age])
    assert done.exit_code == 2 and isinstance(done.exception, SystemExit), done.output
    return done


@pytest.mark.parametrize("age", ["99999999999999999999d", "1000000000d", "999999999999w"])
def test_a_max_age_beyond_any_time_span_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, age: str
) -> None:
    done = _patrol_refusing(tmp_path, monkeypatch, age)
    assert f"Error: bad --max-age '{age}': at most 999,999,999 days" in done.stderr, done.stderr


CASE = (
    '{"id": "c", "question": "What is RAG?", "must_contain": ["rag"], "samples": 1, "floor": 1}\n'
)


@pytest.mark.parametrize(
    ("rate", "says"),
    [
        ("nan", "the rate limit must be a positive number of calls per second, got nan"),
        ("1e-300", "the rate limit of 1e-300 calls per second waits 1e+300 seconds between"),
    ],
)
def test_a_rate_limit_that_is_no_rate_is_refused_before_anything_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rate: str, says: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cases.jsonl").write_text(CASE)
    args = [
        "eval",
        "--cases",
        "cases.jsonl",
        "--fixtures",
        "f.jsonl",
        "--agent",
        "replaygate.examples.research_copilot:copilot",
        "--no-history",
        "--record-mode",
        "record-missing",
        "--approve-live",
        "--simulator",
        "--rate-limit",
        rate,
    ]
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 2 and isinstance(done.exception, SystemExit), done.output
    assert f"Error: {says}" in done.stderr, done.stderr
    assert "raised by the agent" not in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cases.jsonl"]


@pytest.mark.parametrize(
    ("args", "value"),
    [
        (["verify", "s.jsonl", "--jobs"], "\uff12"),  # a full-width 2: int() reads it as 2
        (["verify", "s.jsonl", "--jobs"], "1_0"),  # int() reads 10
        (["verify", "s.jsonl", "--jobs"], "\u0662"),  # an Arabic-Indic 2
        (["history", "export", "--last"], "\uff15"),
        (["sim", "serve", "--seed"], "\uff17"),
        (["eval", "--cases", "c.jsonl", "--rate-limit"], "\uff12.5"),
        (["eval", "--cases", "c.jsonl", "--rate-limit"], "1_0"),
        (["eval", "--cases", "c.jsonl", "--max-cost"], "\uff15"),
        (["calibrate", "export", "--seed", "1", "--n"], "\uff15"),
        (["flaky", "--runs"], "\uff13"),  # ran each test 3 times
    ],
)
def test_a_number_option_takes_ascii_digits_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], value: str
) -> None:
    # click's int and float types convert with int() and float(), which read any Unicode
    # digit and underscores: '--jobs ２' ran with 2 jobs
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(main, [*args, value])
    assert done.exit_code == 2 and isinstance(done.exception, SystemExit), done.output
    option = args[-1]
    assert f"Invalid value for '{option}': {value!r} is not a" in done.stderr, done.stderr
    assert "written in the digits 0-9" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.mark.parametrize(("option", "value"), [("--sample-seed", "\uff12"), ("--seed", "1_0")])
def test_a_drift_sample_seed_takes_ascii_digits_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, option: str, value: str
) -> None:
    # it was read by int(): '--seed 1_0' drew the fixtures to re-send with seed 10
    monkeypatch.chdir(tmp_path)
    args = ["drift", "s.jsonl", "--against", "s.jsonl", option, value]
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 2 and isinstance(done.exception, SystemExit), done.output
    assert "Invalid value for '--sample-seed' / '--seed': " in done.stderr, done.stderr
    assert f"{value!r} is not an integer written in the digits 0-9" in done.stderr


def test_a_spending_cap_of_infinity_is_still_taken(tmp_path: Path) -> None:
    # inf caps nothing, as documented; only the spelling of a number is checked
    recording = ["--record-mode", "record-missing", "--max-cost", "inf"]
    done = CliRunner().invoke(main, ["eval", "--cases", "c.jsonl", *recording])
    assert "--max-cost" not in done.stderr, done.stderr
    assert "add --approve-live" in done.stderr  # what stops it: not its cap


@pytest.mark.parametrize("value", ["2", " 2", "+2"])
def test_a_number_option_in_ascii_digits_is_taken(tmp_path: Path, value: str) -> None:
    store = tmp_path / "s.jsonl"
    store.write_bytes(Fixture.create(REQUEST, [RESPONSE], META).to_line())
    done = CliRunner().invoke(main, ["verify", str(store), "--jobs", value])
    assert done.exit_code == 0, done.output


@pytest.mark.parametrize("rate", [float("nan"), 0.0, -1.0, 1e-300])
def test_the_library_refuses_the_same_rates_where_the_run_is_planned(rate: float) -> None:
    with pytest.raises(ValueError, match="the rate limit"):
        RateLimiter(rate)
    with pytest.raises(ValueError, match="the rate limit"):
        RecordRecipe(lambda: None, approve_live=True, rate_limit=rate)  # type: ignore[arg-type,return-value]


@pytest.mark.parametrize(
    ("table", "key", "command"),
    [
        ("", "cases", ["eval", "--no-history"]),
        ("", "fixtures", ["eval", "--no-history"]),
        ("", "baseline", ["gate", "--results", "r.json"]),
        ("", "history", ["report", "--out", "r.html"]),
        (".ci", "hits", ["gate", "--results", "r.json"]),
        (".prices", "file", ["eval", "--no-history"]),
    ],
)
def test_a_config_path_holding_a_nul_character_names_its_file_line_and_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, table: str, key: str, command: list[str]
) -> None:
    # No file system takes a NUL: the first use of the path ended in a traceback
    # ("ValueError: embedded null byte"), naming neither the file nor the key.
    monkeypatch.chdir(tmp_path)
    lines = ["[tool.replaygate]", 'agent = "replaygate.examples.research_copilot:copilot"']
    if table:
        lines.append(f"[tool.replaygate{table}]")
    lines.append(f'{key} = "evals/a\\u0000b"')
    (tmp_path / "pyproject.toml").write_text("\n".join(lines) + "\n")
    done = CliRunner().invoke(main, command)
    assert done.exit_code == 2 and isinstance(done.exception, SystemExit), done.output
    where = f"{tmp_path / 'pyproject.toml'}:{len(lines)}: tool.replaygate{table}.{key}"
    assert f"Error: {where}: a path cannot hold a NUL" in done.stderr, done.stderr


@pytest.mark.parametrize("given", ["~/report.html", "~"])
def test_a_path_whose_tilde_no_shell_expanded_is_refused(tmp_path: Path, given: str) -> None:
    # report --out "~/report.html" made a folder named ~ in the current one
    from run_cli import replaygate

    done = replaygate("report", "--out", given, cwd=tmp_path)
    assert done.returncode == 2, done
    assert f"Invalid value for '--out': {given!r}: the ~ was not expanded" in done.stderr
    assert not (tmp_path / "~").exists()


def test_a_folder_really_named_tilde_is_still_taken(tmp_path: Path) -> None:
    from run_cli import replaygate

    (tmp_path / "~").mkdir()
    (tmp_path / "~" / "rc.jsonl").touch()  # a store, or checksum refuses the folder
    done = replaygate("checksum", "~", cwd=tmp_path)
    assert done.returncode == 0, done


AGENT = ("--agent", "replaygate.examples.research_copilot:copilot")


@pytest.mark.parametrize(
    "args",
    [
        ("record", *AGENT, "--fixtures", "evals\\rc.jsonl", "--approve-live", "--simulator", "q"),
        ("verify", "evals\\rc.jsonl"),
    ],
    ids=["record", "verify"],
)
def test_a_path_written_on_windows_is_refused_naming_the_path_to_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...]
) -> None:
    # record --fixtures 'evals\rc.jsonl' recorded into a new file of that name in the
    # working folder, which no Windows checkout holds; verify said only "no such file"
    from run_cli import replaygate

    monkeypatch.chdir(tmp_path)
    done = replaygate(*args)
    assert done.returncode == 2, done
    assert "'evals\\\\rc.jsonl' separates folders with a backslash" in done.stderr, done.stderr
    assert "write 'evals/rc.jsonl'" in done.stderr
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ValueError, match=r"^store: 'evals.*rc\.jsonl' separates folders"):
        store_path("evals\\rc.jsonl")  # ReplayModel, intercept(): in Python too
    (tmp_path / "evals\\rc.jsonl").touch()  # a name Linux allows, there: taken
    assert replaygate("verify", "evals\\rc.jsonl").returncode == 0


def test_a_new_file_in_a_folder_whose_name_holds_a_backslash_is_taken(tmp_path: Path) -> None:
    from replaygate.regular import backslashed_here

    (tmp_path / "a\\b").mkdir()  # a Linux folder of that name, not a Windows path
    assert backslashed_here("a\\b/new.jsonl", tmp_path) is None
    assert backslashed_here("a\\c/new.jsonl", tmp_path) is not None


@pytest.mark.parametrize(
    "args", [("gate", "--results", "a\0b"), ("report", "--out", "r\0.html"), ("verify", "x\0")]
)
def test_a_path_holding_nul_from_python_is_a_usage_error(tmp_path: Path, args: tuple[str]) -> None:
    # in process (no argv holds one): a ValueError traceback, "embedded null byte"
    from run_cli import replaygate

    done = replaygate(*args, cwd=tmp_path)
    assert done.returncode == 2, done
    assert "a path cannot hold a NUL character (\\u0000)" in done.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("eval", "--seed", "5", "--no-history"),
        ("record", "--fixtures", "n.jsonl", "--approve-live", "--seed", "3", "What is RAG?"),
    ],
    ids=["eval", "record"],
)
def test_a_seed_without_the_simulator_is_a_usage_error(tmp_path: Path, args: tuple[str]) -> None:
    # it was ignored: a replay serves what the store holds, the live API its own answers
    from run_cli import replaygate

    done = replaygate(*args, cwd=tmp_path)
    assert done.returncode == 2, done
    assert "Error: --seed goes with --simulator" in done.stderr
    assert not (tmp_path / "n.jsonl").exists()


def test_one_rule_says_which_tilde_no_shell_expanded(tmp_path: Path) -> None:
    from replaygate.regular import unexpanded_tilde

    for path in ("~", "~/x", "~root/x"):  # each a shell would make a home folder
        assert unexpanded_tilde(path, tmp_path) is not None, path
    for path in ("x/~", "a~b", "~no-such-user-here/x", "/abs/x"):
        assert unexpanded_tilde(path, tmp_path) is None, path
    (tmp_path / "~").mkdir()
    assert unexpanded_tilde("~/x", tmp_path) is None  # a folder really named ~ there


@pytest.mark.parametrize("age", ["\uff13\uff10d", "\u0663\u0660d", "3\u0660d", "\U0001d7d1d"])
def test_a_max_age_in_other_digits_than_0_to_9_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, age: str
) -> None:
    # full-width, Arabic-Indic or mathematical digits were read as 30 (a regex's \d)
    done = _patrol_refusing(tmp_path, monkeypatch, age)
    assert f"Error: bad --max-age {age!r}: expected a positive whole number (digits 0-9)" in (
        done.stderr
    )


@pytest.mark.parametrize("shard", ["\uff11/\uff12", "1/\u0662"])
def test_a_shard_in_other_digits_than_0_to_9_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shard: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cases.jsonl").write_text(CASE)
    done = CliRunner().invoke(main, ["eval", "--cases", "cases.jsonl", "--shard", shard])
    assert done.exit_code == 2 and isinstance(done.exception, SystemExit), done.output
    assert "Invalid value for '--shard': expected I/N in digits 0-9 (for example 2/4), got" in (
        done.stderr
    ), done.stderr
