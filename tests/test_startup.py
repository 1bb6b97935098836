"""Start-up: every command works with only the declared dependencies, and imports only what it uses.

Each check runs in a fresh interpreter. The commands run under ``tests/only_declared.py``,
whose import system refuses what a plain ``pip install replaygate`` does not install:
pytest, the SDKs, httpx and matplotlib; the light commands (``--help``, ``checksum``,
``verify``, ``diff``) import none of them, nor the JSON Schema library. The pytest
plugin, loaded by every pytest process of a user who installed replaygate, imports only
what the hooks that run need.
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
    import contextlib, io, json
    import only_declared
    only_declared.install()
    from replaygate.cli import main

    def run(args):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            try:
                main(args, prog_name="replaygate")
                code = 0
            except SystemExit as exit:
                code = exit.code
        return {"args": args, "code": code, "output": out.getvalue(),
                "heavy": sorted(only_declared.imported() & set(HEAVY))}
"""
RUN_COMMANDS = textwrap.dedent(RUN_COMMANDS)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from replaygate.fixtures.fixture import Fixture, make_meta
    from replaygate.fixtures.store import FixtureStore

    path = tmp_path_factory.mktemp("store") / "f.jsonl"
    meta = make_meta("anthropic.messages", "2023-06-01", "hand")
    FixtureStore.open(path).put(Fixture.create({"model": "m"}, [{"content": []}], meta))
    return path


def test_every_help_and_the_light_commands_run_without_pytest_sdks_or_plots(
    store: Path, tmp_path: Path
) -> None:
    light = [["--help"], ["checksum", str(store)], ["verify", str(store)]]
    helps = [[name, "--help"] for name in COMMANDS]
    results = _python(
        RUN_COMMANDS
        + f"HEAVY = {sorted(HEAVY)!r}\n"
        + f"print(json.dumps([run(a) for a in {light!r}] + [run(a) for a in {helps!r}]))",
        tmp_path,
    )
    for result in results[: len(light)]:
        assert result["code"] == 0, result
        assert result["heavy"] == [], result  # --help, checksum and verify import none
    for result in results[len(light) :]:
        assert result["code"] == 0 and "Usage: replaygate" in result["output"], result
        assert "Traceback" not in result["output"], result


def test_diff_imports_none_of_the_heavy_libraries(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "tests" / "fixtures").mkdir(parents=True)
    (tmp_path / "tests" / "fixtures" / "f.jsonl").write_text("")
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "fixtures"], check=True)
    (result,) = _python(
        RUN_COMMANDS + f"HEAVY = {sorted(HEAVY)!r}\nprint(json.dumps([run(['diff'])]))", tmp_path
    )
    assert result["code"] == 0, result
    assert result["heavy"] == []


@pytest.mark.parametrize(
    ("args", "needs"),
    [
        (["demo", "--out", "demo-out"], "pip install 'replaygate[anthropic]'"),
        (["record", "--agent", "replaygate.examples.research_copilot:copilot", "--simulator",
          "--approve-live", "--fixtures", "f.jsonl", "hi"],
         "pip install 'replaygate[anthropic]'"),
    ],
)  # fmt: skip
def test_a_command_that_needs_an_extra_names_it_without_a_traceback(
    tmp_path: Path, args: list[str], needs: str
) -> None:
    (result,) = _python(
        RUN_COMMANDS + f"HEAVY = {sorted(HEAVY)!r}\nprint(json.dumps([run({args!r})]))", tmp_path
    )
    assert result["code"] == 2, result
    assert needs in result["output"] and "Traceback" not in result["output"]


def test_the_environment_really_lacks_what_no_declared_dependency_brings(tmp_path: Path) -> None:
    code = (
        "import json, importlib, only_declared\nonly_declared.install()\nfound = {}\n"
        "for name in ['pytest', 'anthropic', 'openai', 'httpx2', 'matplotlib', 'click',"
        " 'orjson']:\n"
        "    try:\n        importlib.import_module(name)\n        found[name] = True\n"
        "    except ModuleNotFoundError:\n        found[name] = False\n"
        "print(json.dumps(found))"
    )
    found = _python(code, tmp_path)
    assert found == {
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
