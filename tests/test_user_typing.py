"""Test code written from the docs type-checks under ``mypy --strict`` against the
package as installed (it ships ``py.typed``)."""

from __future__ import annotations

from pathlib import Path

import pytest

import replaygate.errors

USER_MODULE = """
from typing import assert_type

from replaygate.assertions import assert_json
from replaygate.errors import *
from replaygate.http import intercept


class Report:  # a pydantic model at run time; a plain class spares mypy reading pydantic
    citations: list[str]


def cited(text: str) -> list[str]:
    report = assert_json(text, Report)
    assert_type(report, Report)
    return report.citations


def timed_out(seconds: float) -> bool:  # a name of the user's own
    return seconds > 1


@intercept("x.jsonl")
def sync_answer(n: int) -> str:
    return str(n)


@intercept("x.jsonl")
async def async_answers(n: int) -> list[int]:
    return [n]


async def use() -> str:
    numbers: list[int] = await async_answers(1)
    try:
        return sync_answer(numbers[0])
    except FixtureMismatchError as err:
        kind: MissKind = err.kind
        return kind
"""
"""A user's test module: ``assert_json`` given a pydantic model, a star import of the
errors beside a helper of its own, and ``intercept`` decorating a function and a
coroutine function."""

TYPOS = """
import replaygate.evals
from replaygate import ReplayModle
from replaygate.http import intercpet
from replaygate.assertions import Problem, assert_contain
from replaygate.evals import Recording

replaygate.evals.run_evl
"""
"""Names misspelt: each an error to mypy, where a package's lazy ``__getattr__`` made it
``Any``; the old name of a renamed class (``Problem``, ``Recording``) still type-checks."""


def test_a_star_import_of_the_errors_gives_the_errors_warnings_and_kind_of_a_miss() -> None:
    # Without __all__ it gave every helper and import of the module (os, sys, Any,
    # timed_out, located...), shadowing or redefining the importer's own names.
    names: dict[str, object] = {}
    exec("from replaygate.errors import *", names)
    given = set(names) - {"__builtins__"}
    raised = {
        name
        for name, value in vars(replaygate.errors).items()
        if isinstance(value, type)
        and issubclass(value, BaseException)
        and value.__module__ == "replaygate.errors"
    }
    assert given == raised | {"MissKind"}


@pytest.mark.slow  # mypy reads the package and its imports: seconds of CPU
def test_a_user_module_type_checks_under_mypy_strict_and_a_misspelt_name_does_not(
    tmp_path: Path,
) -> None:
    from mypy import api

    module = tmp_path / "test_user.py"
    module.write_text(USER_MODULE, encoding="utf-8")
    typos = tmp_path / "typos.py"
    typos.write_text(TYPOS, encoding="utf-8")
    config = tmp_path / "mypy.ini"  # the user's settings, not those of this repository
    config.write_text("[mypy]\n", encoding="utf-8")
    cache = str(tmp_path / ".mypy_cache")
    argv = ["--strict", "--config-file", str(config), "--cache-dir", cache]
    out, err, _ = api.run([*argv, str(module), str(typos)])
    errors = [line.split(": ", 1)[1] for line in out.splitlines() if ": error: " in line]
    assert errors == [
        'error: Module "replaygate" has no attribute "ReplayModle"; maybe "ReplayModel"?  '
        "[attr-defined]",
        'error: Module "replaygate.http" has no attribute "intercpet"; maybe "intercept"?  '
        "[attr-defined]",
        'error: Module "replaygate.assertions" has no attribute "assert_contain"; maybe '
        '"assert_contains"?  [attr-defined]',
        'error: Module has no attribute "run_evl"; maybe "run_eval"?  [attr-defined]',
    ], out + err
    assert all(str(typos) in line for line in out.splitlines() if ": error: " in line), out
