"""An empty store path, one holding a NUL, or one led by a ~ that names no folder, is
refused by the Python API, as the CLI and the config refuse it.

``Path("")`` is the current folder: ``httpx2_client("")`` (a config read that came back
empty) recorded into the working directory as a folder store, and a replay opened the
whole working tree as one store.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from echo_recording import record_echoes
from forked_cli import ASCII_LOCALE, Forker
from replaygate.fixtures.store import FixtureStore
from replaygate.http import httpx2_client, intercept
from replaygate.models.fakes import ScriptedModel
from replaygate.models.replay import RecordingModel, ReplayModel

REFUSED = r'store: an empty path: give one \("\." for the current folder\)'

OPENERS: dict[str, Callable[[Any], object]] = {
    "FixtureStore.open": FixtureStore.open,
    "httpx2_client": lambda path: httpx2_client(path, "record-missing", approve_live=True),
    "intercept": lambda path: intercept(path, mode="record-missing", approve_live=True).__enter__(),
    "ReplayModel": lambda path: ReplayModel(path, model="m", max_tokens=8),
    "RecordingModel": lambda path: RecordingModel(
        ScriptedModel([]), path, approve_live=True, model="m", max_tokens=8
    ),
}


@pytest.mark.parametrize("opener", sorted(OPENERS))
def test_an_empty_store_path_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, opener: str
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=REFUSED):
        OPENERS[opener]("")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("opener", sorted(OPENERS))
def test_a_store_that_is_no_path_is_refused_by_name(opener: str) -> None:
    # None raised "expected str, bytes or os.PathLike object, not NoneType", naming no store
    with pytest.raises(
        TypeError, match=r"store: expected a path \(str or os\.PathLike\), got None"
    ):
        OPENERS[opener](None)


@pytest.mark.parametrize("opener", sorted(OPENERS))
def test_a_store_path_holding_a_nul_is_refused_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, opener: str
) -> None:
    # os's bare "embedded null byte", from deep in the store's opening
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=r"store: a path cannot hold a NUL character"):
        OPENERS[opener]("a\0b.jsonl")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("opener", sorted(OPENERS))
def test_a_store_path_led_by_a_home_python_does_not_expand_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, opener: str
) -> None:
    # "~/fixtures/rc.jsonl", as pandas takes it: recorded into a new folder called ~ in the
    # working folder, one `rm -rf ~` away from the home folder
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=r"store: '~/fixtures/rc\.jsonl': the ~ was not exp"):
        OPENERS[opener]("~/fixtures/rc.jsonl")
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "~").mkdir()  # a folder really named so is taken
    assert len(FixtureStore.open("~/rc.jsonl")) == 0


OPENED_IN_C = """
from replaygate.fixtures.store import FixtureStore
from replaygate.http import intercept
with intercept("café.jsonl") as exchange:
    print(len(exchange.store), len(FixtureStore.open("café.jsonl")))
"""


@pytest.mark.slow
def test_a_store_named_outside_ascii_in_python_opens_in_an_ascii_locale(
    tmp_path: Path, ascii_forker: Forker
) -> None:
    # under LC_ALL=C the ASCII file system encoding cannot encode "café.jsonl" as the
    # code gives it: intercept() ended in a UnicodeEncodeError
    record_echoes(tmp_path / "café.jsonl", ["hello"])
    env = {**os.environ, **ASCII_LOCALE}
    done = ascii_forker.capture([], cwd=tmp_path, env=env, code=OPENED_IN_C)
    assert done.stdout == b"1 1\n", done.stderr.decode()
