"""Start-up: every command works with only the declared dependencies, and imports only what it uses.

The checks run in fresh interpreters. The commands run under ``tests/only_declared.py``,
whose import system refuses what a plain ``pip install replaygate`` does not install:
pytest, the SDKs, httpx and matplotlib; the light commands (``--help``, ``checksum``,
``verify``, ``diff``) import none of them, nor the JSON Schema library. The commands
share one interpreter, run in turn: the light ones first, each checked for what the
interpreter imported up to its end, then every ``--help``, the commands that need an
extra and, last, a look at what the interpreter can import. The pytest plugin, loaded
by every pytest process of a user who installed replaygate, imports only what the hooks
that run need (an interpreter of its own, where pytest can be imported).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from replaygate.cli import COMMANDS

# Each check starts a fresh interpreter: end to end.
pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
COMMAND_MODULES = {target.split(":")[0] for target in COMMANDS.values()}
"""The modules of the commands (``replaygate.sim.cli``, ``replaygate.cli.verify_cmd``, ...)."""
HEAVY = {
    "pytest", "_pytest", "matplotlib", "anthropic", "openai", "httpx", "httpx2",
    # the schema library and the format checkers it loads with it (rfc3987_syntax builds
    # its grammar's parser as it is imported: about a second)
    "jsonschema", "rfc3987_syntax", "lark", "arrow", "isoduration", "rfc3339_validator",
}  # fmt: skip


def _python(code: str, cwd: Path) -> Any:
    """Run ``code`` after ``only_declared.install()``; the JSON it prints last."""
    program = f"import sys; sys.path.insert(0, {str(HERE)!r})\n" + code
    done = subprocess.run(
        [sys.executable, "-c", program], cwd=cwd, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


RUN_COMMANDS = """\
    import contextlib, io, json, os, sys
    import only_declared
    only_declared.install()
    from replaygate.cli import main

    def run(args, cwd="."):
        out = io.StringIO()
        before = os.getcwd()
        os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            try:
                main(args, prog_name="replaygate")
                code = 0
            except SystemExit as exit:
                code = exit.code
            finally:
                os.chdir(before)
        return {"args": args, "code": code, "output": out.getvalue(),
                "heavy": sorted(only_declared.imported() & set(HEAVY)),
                "commands": sorted(set(sys.modules) & set(COMMAND_MODULES))}
"""
RUN_COMMANDS = textwrap.dedent(RUN_COMMANDS)

FIND_MODULES = """\
    import importlib

    def importable():
        found = {}
        for name in ["pytest", "anthropic", "openai", "httpx2", "matplotlib", "click", "orjson"]:
            try:
                importlib.import_module(name)
                found[name] = True
            except ModuleNotFoundError:
                found[name] = False
        return found
"""
FIND_MODULES = textwrap.dedent(FIND_MODULES)

NEED_AN_EXTRA = [
    (["demo", "--out", "demo-out"], "pip install 'replaygate[anthropic,report]'"),
    (["record", "--agent", "replaygate.examples.research_copilot:copilot", "--simulator",
      "--approve-live", "--fixtures", "f.jsonl", "hi"],
     "pip install 'replaygate[anthropic]'"),
]  # fmt: skip
"""Commands that need an extra, and the line that names it."""


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from replaygate.fixtures.fixture import Fixture, make_meta
    from replaygate.fixtures.store import FixtureStore

    path = tmp_path_factory.mktemp("store") / "f.jsonl"
    meta = make_meta("anthropic.messages", "2023-06-01", "hand")
    FixtureStore.open(path).put(
        Fixture.create(
            {"model": "m"},
            [{"content": [], "usage": {"input_tokens": 1, "output_tokens": 0}}],
            meta,
        )
    )
    return path


@pytest.fixture(scope="module")
def declared_only(store: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What each check of the commands found, from one interpreter under
    ``only_declared.install()``: ``light`` (``--help``, ``checksum``, ``verify``) and
    ``diff`` (in a git repository of fixtures), each with what the interpreter imported up
    to its end; then ``helps`` (every command's ``--help``), ``extras``
    (:data:`NEED_AN_EXTRA`) and ``importable``. The interpreter runs in an empty folder."""
    repository = tmp_path_factory.mktemp("repository")
    subprocess.run(["git", "init", "-q", str(repository)], check=True)
    (repository / "tests" / "fixtures").mkdir(parents=True)
    (repository / "tests" / "fixtures" / "f.jsonl").write_text("")
    git = ["git", "-C", str(repository), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "fixtures"], check=True)
    light = [["--help"], ["checksum", str(store)], ["verify", str(store)]]
    helps = [[name, "--help"] for name in COMMANDS]
    extras = [args for args, _ in NEED_AN_EXTRA]
    found = {
        "light": f"[run(a) for a in {light!r}]",
        "diff": f"run(['diff'], {str(repository)!r})",
        "helps": f"[run(a) for a in {helps!r}]",
        "extras": f"[run(a) for a in {extras!r}]",
        "importable": "importable()",
    }
    runs = "".join(f"found[{name!r}] = {call}\n" for name, call in found.items())
    results: dict[str, Any] = _python(
        RUN_COMMANDS + FIND_MODULES + f"HEAVY = {sorted(HEAVY)!r}\n"
        + f"COMMAND_MODULES = {sorted(COMMAND_MODULES)!r}\nfound = {{}}\n" + runs
        + "print(json.dumps(found))",
        tmp_path_factory.mktemp("commands"),
    )  # fmt: skip
    return results


def test_every_help_and_the_light_commands_run_without_pytest_sdks_or_plots(
    declared_only: dict[str, Any],
) -> None:
    for result in declared_only["light"]:
        assert result["code"] == 0, result
        assert result["heavy"] == [], result  # --help, checksum and verify import none
    assert declared_only["light"][0]["commands"] == []  # --help lists, imports no command
    assert len(declared_only["helps"]) == len(COMMANDS)
    for result in declared_only["helps"]:
        assert result["code"] == 0 and "Usage: replaygate" in result["output"], result
        assert "Traceback" not in result["output"], result


def test_diff_imports_none_of_the_heavy_libraries(declared_only: dict[str, Any]) -> None:
    result = declared_only["diff"]
    assert result["code"] == 0, result
    assert result["heavy"] == []


@pytest.mark.parametrize(
    ("at", "needs"), [(at, needs) for at, (_, needs) in enumerate(NEED_AN_EXTRA)]
)
def test_a_command_that_needs_an_extra_names_it_without_a_traceback(
    declared_only: dict[str, Any], at: int, needs: str
) -> None:
    result = declared_only["extras"][at]
    assert result["args"] == NEED_AN_EXTRA[at][0]
    assert result["code"] == 2, result
    assert needs in result["output"] and "Traceback" not in result["output"]


def test_the_environment_really_lacks_what_no_declared_dependency_brings(
    declared_only: dict[str, Any],
) -> None:
    assert declared_only["importable"] == {
        "pytest": False, "anthropic": False, "openai": False, "httpx2": False,
        "matplotlib": False, "click": True, "orjson": True,
    }  # fmt: skip


PLUGIN_LAZY = {
    "click", "filelock", "asyncio", "ssl", "rich", "anthropic", "openai", "httpx", "httpx2",
    "matplotlib", "replaygate.cli", "replaygate.fixtures.spending",
    "replaygate.pytest_plugin.settings", "replaygate.sampling.results",
}  # fmt: skip
"""What the pytest plugin imports only in the hooks that need it: none in a plain session."""

RUN_PYTEST = """\
    import json, os, sys
    import pytest
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # no plugin but replaygate's
    os.environ.pop("PYTEST_ADDOPTS", None)
    code = pytest.main(["-q", "-p", "no:cacheprovider", "-p", "replaygate",
                        "-p", "replaygate_sampling"])
    plugins = ["replaygate.pytest_plugin.recording", "replaygate.pytest_plugin.sampling"]
    print(json.dumps({"code": int(code), "loaded": [p in sys.modules for p in plugins],
                      "lazy": sorted(set(sys.modules) & set(LAZY))}))
"""


def test_a_session_that_does_not_use_the_plugin_imports_nothing_heavy(tmp_path: Path) -> None:
    (tmp_path / "test_a.py").write_text("def test_a():\n    pass\n")
    result = _python(f"LAZY = {sorted(PLUGIN_LAZY)!r}\n" + textwrap.dedent(RUN_PYTEST), tmp_path)
    assert result["code"] == 0 and result["loaded"] == [True, True], result
    assert result["lazy"] == [], result
