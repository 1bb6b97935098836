"""``make test-fast`` leaves out whole modules marked slow without losing a fast test, and
the suite's shares (tests/shares.py) hold every module once, the SDK modules together."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

import shares
from conftest import marked_slow_as_a_whole
from sdks import SDK_GROUP
from shares import (
    OPENAI_GROUP,
    PLOTTING,
    SDKS_THROUGH_REPLAYGATE,
    SHIPPED,
    ModuleSeconds,
    assign,
    module_seconds,
    work_unit,
)

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize(
    ("source", "whole"),
    [
        ("import pytest\npytestmark = pytest.mark.slow\n", True),
        ("pytestmark = [\n    pytest.mark.slow,\n    pytest.mark.filterwarnings('x'),\n]\n", True),
        ("pytestmark = pytest.mark.skipif(True, reason='mark.slow is not it')\n", False),
        ("@pytest.mark.slow\ndef test_one():\n    pass\n", False),
        ("pytestmark = [pytest.mark.slowish]\n# pytest.mark.slow\n", False),
    ],
)
def test_only_a_module_level_slow_mark_counts(source: str, whole: bool) -> None:
    assert marked_slow_as_a_whole(source) is whole


def test_every_test_of_a_module_left_out_is_slow(request: pytest.FixtureRequest) -> None:
    left_out = {
        path.name
        for path in HERE.rglob("test_*.py")
        if marked_slow_as_a_whole(path.read_text(encoding="utf-8"))
    }
    assert "test_gemini.py" in left_out
    items = [item for item in request.session.items if item.path.name in left_out]
    if request.config.option.markexpr.strip() == "not slow":
        assert items == [], "a module marked slow as a whole was collected by test-fast"
    assert all(item.get_closest_marker("slow") for item in items)


def test_the_shares_hold_each_module_once_each_sdk_group_together_balanced() -> None:
    modules = [(path, path.read_text(encoding="utf-8")) for path in HERE.rglob("test_*.py")]
    seconds = {str(path.relative_to(HERE.parent)): 1.0 for path, _ in modules}
    shares = assign(HERE.parent, modules, seconds, 2)
    assert set(shares) == {path for path, _ in modules}
    for group in (SDK_GROUP, OPENAI_GROUP):
        held = {shares[path] for path, source in modules if work_unit(path, source) == group}
        assert len(held) == 1, group
    loads = [sum(1 for share in shares.values() if share == index) for index in (0, 1)]
    assert abs(loads[0] - loads[1]) <= 1  # modules of one second each, the costliest first


@pytest.mark.parametrize(
    ("source", "unit"),
    [
        ("from sdks import openai\n", OPENAI_GROUP),
        ("from sdks import aiohttp, openai\n", OPENAI_GROUP),
        ("from sdks import anthropic, openai\n", SDK_GROUP),
        ("from sdks import genai, openai\n", SDK_GROUP),
        ("from sdks import vcr\n", SDK_GROUP),
        (f"{SDKS_THROUGH_REPLAYGATE}\nfrom sdks import openai\n", SDK_GROUP),
        ("from sdks import aiohttp\n", "test_x.py"),
        ("needs_matplotlib()\n", SDK_GROUP),
        ("from sdks import openai\nneeds_matplotlib()\n", SDK_GROUP),
        (f"{PLOTTING[1]} (the report command).\n", SDK_GROUP),
    ],
)
def test_a_module_goes_with_the_modules_importing_the_same_sdks(source: str, unit: str) -> None:
    assert work_unit(Path("test_x.py"), source) == unit


def test_a_unit_goes_to_the_share_with_least_whatever_its_size(tmp_path: Path) -> None:
    sources = {
        "test_a.py": f"{SDKS_THROUGH_REPLAYGATE}\n",
        "test_b.py": "from sdks import anthropic\n",
        "test_c.py": "x = 1\n",
        "test_d.py": "x = 1\n",
    }
    modules = [(tmp_path / name, source) for name, source in sources.items()]
    timed = {"test_a.py": 3.0, "test_b.py": 3.0, "test_c.py": 5.0}  # test_d: by its size
    shares = assign(tmp_path, modules, timed, 2)
    assert shares[tmp_path / "test_a.py"] == shares[tmp_path / "test_b.py"]
    assert shares[tmp_path / "test_c.py"] != shares[tmp_path / "test_a.py"]
    assert shares[tmp_path / "test_d.py"] == shares[tmp_path / "test_c.py"]


@pytest.mark.parametrize(("openai_seconds", "together"), [(2.0, True), (3.0, False)])
def test_the_openai_group_joins_the_sdk_group_where_both_fit_in_one_share(
    tmp_path: Path, openai_seconds: float, together: bool
) -> None:
    """Together they import openai once; apart, both shares would, where the two would
    make one share the one the others wait for."""
    sources = {
        "test_a.py": "from sdks import anthropic, openai\n",
        "test_b.py": "from sdks import openai\n",
        "test_c.py": "x = 1\n",
        "test_d.py": "x = 1\n",
    }
    modules = [(tmp_path / name, source) for name, source in sources.items()]
    timed = {"test_a.py": 3.0, "test_b.py": openai_seconds, "test_c.py": 2.5, "test_d.py": 2.5}
    shares = assign(tmp_path, modules, timed, 2)  # half of 10 s or of 11 s
    assert (shares[tmp_path / "test_a.py"] == shares[tmp_path / "test_b.py"]) is together
    assert shares[tmp_path / "test_c.py"] != shares[tmp_path / "test_a.py"]


def test_a_module_collected_whose_tests_all_were_deselected_counts_its_import_alone() -> None:
    # its tests marked slow one by one, it kept what they took before in test-fast's
    # figures, seconds of work counted in a share that ran none of it
    kept = ModuleSeconds(None, "not-slow")  # type: ignore[arg-type]
    kept.imported = {"tests/test_a.py": 0.25, "tests/test_b.py": 0.5}
    for collected in ("tests/test_a.py", "tests/test_b.py", "tests/test_c.py", "tests"):
        kept.pytest_collectreport(SimpleNamespace(nodeid=collected))  # type: ignore[arg-type]
    selected = [SimpleNamespace(nodeid=f"tests/test_{name}.py::t") for name in "ac"]
    kept.pytest_collection_finish(SimpleNamespace(items=selected))  # type: ignore[arg-type]
    assert kept.seconds == {"tests/test_b.py": 0.5}  # test_c's tests not run yet: kept
    kept.pytest_runtest_logreport(SimpleNamespace(nodeid="tests/test_a.py::t", duration=1.5))  # type: ignore[arg-type]
    assert kept.seconds == {"tests/test_a.py": 1.75, "tests/test_b.py": 0.5}


@pytest.mark.slow  # a pytest session of its own
def test_a_module_s_import_is_counted_with_its_tests(pytester: pytest.Pytester) -> None:
    # the first module of a share importing a provider SDK pays seconds for it, whatever
    # its tests cost: counted, the share holding the SDK group is not the last to end
    slow_import = (  # a tenth of a second of CPU, however long the process waits for one
        "import time\nend = time.thread_time() + 0.1\nwhile time.thread_time() < end:\n    pass\n"
    )
    pytester.makepyfile(
        test_heavy=f"{slow_import}def test_quick():\n    pass\n",
        test_light="def test_quick():\n    pass\n",
    )
    kept = ModuleSeconds(None, "not-slow")  # type: ignore[arg-type]
    result = pytester.inline_run(plugins=[kept])
    result.assertoutcome(passed=2)
    assert kept.seconds["test_heavy.py"] >= 0.09 > kept.seconds["test_light.py"]
    assert kept.imported["test_heavy.py"] >= 0.09


def test_the_seconds_a_test_waited_for_a_cpu_are_not_counted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a busy machine a test's seconds are mostly other processes' turns: counted, they
    put shares seconds apart on the next run on a quiet one."""
    waits = iter([10.0, 13.5])  # 3.5 s of the test's 5 s waiting for a CPU
    monkeypatch.setattr(shares, "run_queue_seconds", lambda: next(waits))
    kept = ModuleSeconds(None, "not-slow")  # type: ignore[arg-type]
    item = SimpleNamespace(nodeid="tests/test_a.py::t")
    protocol = kept.pytest_runtest_protocol(item)  # type: ignore[arg-type]
    next(protocol)
    for duration in (1.0, 3.0, 1.0):  # setup, call, teardown
        kept.pytest_runtest_logreport(SimpleNamespace(nodeid=item.nodeid, duration=duration))  # type: ignore[arg-type]
    with pytest.raises(StopIteration):
        protocol.send(None)
    assert kept.seconds == {"tests/test_a.py": pytest.approx(1.5)}


def test_the_seconds_waited_for_a_cpu_are_none_where_the_kernel_keeps_no_count(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    if shares.SCHEDSTAT.exists():
        assert shares.run_queue_seconds() >= 0.0
    monkeypatch.setattr(shares, "SCHEDSTAT", tmp_path / "absent")
    assert shares.run_queue_seconds() == 0.0
    (tmp_path / "schedstat").write_text("12\n")
    monkeypatch.setattr(shares, "SCHEDSTAT", tmp_path / "schedstat")
    assert shares.run_queue_seconds() == 0.0
    (tmp_path / "schedstat").write_text("12 3400000000 5\n")  # read anew at each call
    assert shares.run_queue_seconds() == 3.4


SDK_MODULES = ("anthropic", "openai", "google", "vcr", "aiohttp")
"""The top-level packages a test module takes from :mod:`sdks` (their imports are costly)."""

_NAMES = "|".join(SDK_MODULES)
MAY_IMPORT_AN_SDK = (
    re.compile(rf"from(?:[ \t\f.]|\\\n)+(?:{_NAMES})\b"),  # from [.]SDK[.x] import ...
    re.compile(rf"^[ \t\f]*import\b(?:[^\n;]|\\\n)*?\b(?:{_NAMES})\b", re.MULTILINE),
    re.compile(rf";[ \t\f]*import\b(?:[^\n;]|\\\n)*?\b(?:{_NAMES})\b"),  # x = 1; import SDK
)
"""Text a module-level statement importing an SDK holds, however written (names after a
comma, lines joined by a backslash, after ``;``): a module with none of it is not parsed
(most are not, where parsing them all took 0.5 s of the inner loop)."""


def direct_sdk_imports(source: str) -> list[str]:
    """The SDK modules a module's own statements import (not through :mod:`sdks`)."""
    if not any(pattern.search(source) for pattern in MAY_IMPORT_AN_SDK):
        return []
    direct = []
    for node in ast.parse(source).body:
        names = (
            [alias.name for alias in node.names]
            if isinstance(node, ast.Import)
            else [node.module or ""]
            if isinstance(node, ast.ImportFrom)
            else []
        )
        direct += [n for n in names if n.split(".")[0] in SDK_MODULES]
    return direct


def test_no_module_imports_an_sdk_but_through_sdks() -> None:
    """A module importing an SDK itself goes in no SDK group (its share pays the import
    the other share pays already, 2.8 s of CPU for anthropic), and imports it as it is
    collected, whether its tests run or not."""
    direct = [
        f"{path.name}: {name}"
        for path in sorted(HERE.rglob("test_*.py"))
        for name in direct_sdk_imports(path.read_text(encoding="utf-8"))
    ]
    assert direct == [], "import these from sdks (from sdks import anthropic)"


@pytest.mark.parametrize(
    ("source", "direct"),
    [
        ("import anthropic\n", ["anthropic"]),
        ("import os, \\\n    openai.types\n", ["openai.types"]),
        ("x = 1; import vcr\n", ["vcr"]),
        ("from  google.genai import types\n", ["google.genai"]),
        ("from \\\n    aiohttp import web\n", ["aiohttp"]),
        ("from .openai import client\n", ["openai"]),
        ("import os as o, anthropic as a\n", ["anthropic"]),
        ("from sdks import anthropic, openai\n", []),
        ("from sdks import (\n    aiohttp,\n    vcr,\n)\n", []),
        ("def f():\n    import anthropic\n", []),  # only module-level statements count
    ],
)
def test_a_direct_import_of_an_sdk_is_found_however_written(source: str, direct: list[str]) -> None:
    assert direct_sdk_imports(source) == direct


def test_a_fresh_clone_balances_its_shares_by_the_shipped_seconds_a_cache_updates() -> None:
    """A clone has no cache: its first run's shares go by the seconds shipped with the
    suite (by size, one share of CI's ``make test`` took 89 s and the other 74 s)."""

    class Cache(dict[str, object]):
        def get(self, key: str, default: object = None) -> object:  # type: ignore[override]
            return super().get(key, default)

    def config(cache: Cache | None) -> SimpleNamespace:
        option = SimpleNamespace(keyword="", markexpr="")
        source = pytest.Config.ArgsSource.TESTPATHS
        return SimpleNamespace(args_source=source, option=option, cache=cache)

    shipped = json.loads(SHIPPED.read_text(encoding="utf-8"))["all"]
    assert "tests/test_cli.py" in shipped and module_seconds(config(None)) == shipped  # type: ignore[arg-type]
    cached = Cache({"replaygate-tests/seconds-per-module/all": {"tests/test_cli.py": 99.0}})
    assert module_seconds(config(cached)) == {**shipped, "tests/test_cli.py": 99.0}  # type: ignore[arg-type]


@pytest.mark.slow
@pytest.mark.native_tracebacks
def test_the_sessions_of_a_test_marked_native_tracebacks_print_python_s_traceback(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile("def test_fails():\n    assert 1 == 2\n")
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["Traceback (most recent call last):"])
    assert pytester.runpytest("--tb=long").stdout.str().count("Traceback (most recent") == 0
