"""Options and settings are taken as given or refused by name, never quietly replaced:
``eval --json`` keeps what the agent prints off stdout, ``gate`` takes every
``--max-drop`` given, ``--agent ""`` is refused, and a config error names its file,
line and key (a host, a folder where a file is expected)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replaygate.examples.research_copilot import shipped_eval_cases, shipped_fixtures
from replaygate.examples.research_copilot.defaults import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_MODEL,
    DEFAULT_SYSTEM,
)
from run_cli import replaygate

COPILOT = "replaygate.examples.research_copilot:copilot"

PRINTER = """\
print("printed on import")
from replaygate.examples.research_copilot import copilot


def agent(model, question):
    print("debug: asking", question)
    return copilot(model, question)
"""


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One shipped case replayed with ``--json`` by an agent that prints, and a baseline."""
    root = tmp_path_factory.mktemp("strict")
    case = json.loads(shipped_eval_cases().read_text(encoding="utf-8").splitlines()[0])
    (root / "cases.jsonl").write_text(json.dumps({**case, "samples": 1, "floor": 1}) + "\n")
    (root / "fixtures.jsonl").write_bytes(shipped_fixtures().read_bytes())
    (root / "printer.py").write_text(PRINTER, encoding="utf-8")
    (root / "pyproject.toml").write_text("[tool.replaygate]\n", encoding="utf-8")
    done = replaygate(
        "eval", "--agent", "printer:agent", "--cases", "cases.jsonl", "--fixtures",
        "fixtures.jsonl", "--model", DEFAULT_MODEL, "--max-tokens", str(DEFAULT_MAX_TOKENS),
        "--system", DEFAULT_SYSTEM, "--no-history", "--json", "--out", "results.json", cwd=root,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (root / "stdout.txt").write_text(done.stdout, encoding="utf-8")
    (root / "stderr.txt").write_text(done.stderr, encoding="utf-8")
    updated = replaygate("baseline", "update", "--results", "results.json", "--baseline",
                         "baseline.json", "--reason", "first", cwd=root)  # fmt: skip
    assert updated.returncode == 0, updated.stderr
    return root


def test_eval_json_prints_the_results_alone_and_the_agents_lines_on_stderr(
    evaluated: Path,
) -> None:
    printed = json.loads((evaluated / "stdout.txt").read_text(encoding="utf-8"))
    assert [case["case"] for case in printed["cases"]] == ["rag-basics"]
    stderr = (evaluated / "stderr.txt").read_text(encoding="utf-8")
    assert "printed on import" in stderr and "debug: asking What is RAG?" in stderr


def limits(root: Path, *flags: str) -> dict[str, str]:
    """The limit of each metric ``gate --json`` applied, given ``flags``."""
    done = replaygate("gate", "--results", "results.json", "--baseline", "baseline.json",
                      "--json", *flags, cwd=root)  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    return {row["metric"]: row["limit"] for row in json.loads(done.stdout)["rows"]}


def test_gate_takes_the_limits_of_every_max_drop_given(evaluated: Path) -> None:
    two = limits(evaluated, "--max-drop", "success=0.0", "--max-drop", "citation_recall=0.3")
    one = limits(evaluated, "--max-drop", "success=0.0,citation_recall=0.3")
    assert two == one
    assert (two["success"], two["citation_recall"]) == ("drop <= 0.000", "drop <= 0.300")


@pytest.mark.parametrize("flag", ["--max-drop", "--max-rise"])
def test_gate_refuses_a_metric_given_by_two_flags(evaluated: Path, flag: str) -> None:
    metric = "success" if flag == "--max-drop" else "fabricated"
    done = replaygate("gate", "--results", "results.json", "--baseline", "baseline.json",
                      flag, f"{metric}=0.5", flag, f"{metric}=0.0", cwd=evaluated)  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == (
        f"Error: {flag} '{metric}=0.5' and {flag} '{metric}=0.0': {metric} is given twice; "
        "give each limit once"
    )


@pytest.mark.parametrize("command", [["run", "What is RAG?"], ["eval"]])
@pytest.mark.parametrize("agent", ["", " "])
def test_an_empty_agent_is_refused_not_replaced_by_the_configured_one(
    tmp_path: Path, command: list[str], agent: str
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.replaygate]\nagent = "{COPILOT}"\nfixtures = "f.jsonl"\n', encoding="utf-8"
    )
    (tmp_path / "f.jsonl").write_bytes(shipped_fixtures().read_bytes())
    done = replaygate(command[0], "--agent", agent, *command[1:], cwd=tmp_path)
    assert done.returncode == 2
    assert "Invalid value for '--agent': an empty agent: give module:function" in done.stderr


def test_a_dotted_key_under_the_tool_table_is_named_at_its_own_line(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        f'[tool]\nreplaygate.agent = "{COPILOT}"\nreplaygate.fixtue = "x"\n', encoding="utf-8"
    )
    done = replaygate("run", "What is RAG?", cwd=tmp_path)
    assert done.returncode == 2
    assert f"Error: {tmp_path / 'pyproject.toml'}:3: tool.replaygate.fixtue: unknown key" in (
        done.stderr
    )


def test_a_missing_agent_names_the_config_file_read(tmp_path: Path) -> None:
    """The store's own project (a nested ``pyproject.toml`` without the table) is read, not
    the one of the folder the command runs in."""
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.replaygate]\nagent = "{COPILOT}"\n', encoding="utf-8"
    )
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "pyproject.toml").write_text('[project]\nname = "pkg"\n')
    done = replaygate("record", "--simulator", "--approve-live", "--fixtures", "pkg/f.jsonl",
                      "What is RAG?", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip().endswith(
        f"set agent in [tool.replaygate] of {tmp_path / 'pkg' / 'pyproject.toml'}"
    )
    assert not (tmp_path / "pkg" / "f.jsonl").exists()


def test_a_price_file_naming_a_folder_says_it_is_a_folder(tmp_path: Path) -> None:
    (tmp_path / "evals").mkdir()
    (tmp_path / "pyproject.toml").write_text(
        '[tool.replaygate.prices]\nfile = "evals"\n', encoding="utf-8"
    )
    done = replaygate("eval", "--agent", COPILOT, "--cases", "x", "--fixtures", "y", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"Error: {tmp_path / 'pyproject.toml'}:2: tool.replaygate.prices.file: "
        f"{tmp_path / 'evals'} is a folder, where a price file is expected"
    )


def test_sim_serve_names_a_host_that_does_not_resolve() -> None:
    done = replaygate("sim", "serve", "--host", "nosuchhost.invalid", "--allow-remote")
    assert done.returncode == 2
    error = done.stderr.strip().splitlines()[-1]
    assert error.startswith("Error: --host 'nosuchhost.invalid': cannot serve on it: "), error
