"""A store whose lock file is a symlink is refused naming the lock and what it is.

The lock is taken without following links, so a link there (to nothing, to
``/dev/null``) failed as "Too many levels of symbolic links", which named no loop that
was there, and only once the answer was fetched. A recording session now refuses it as
it opens, before anything is sent; one made a link later is named so at the write.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from replaygate.errors import StoreWriteError
from replaygate.http import httpx2_client
from replaygate.sim import Simulator
from sdks import anthropic


@pytest.mark.parametrize(
    ("store_name", "lock_name", "target", "missing"),
    [
        ("f.jsonl", "f.jsonl.lock", "nowhere/x", ", which does not exist"),
        ("f.jsonl", "f.jsonl.lock", os.devnull, ""),
        ("folder", "folder/.replaygate.lock", "nowhere/x", ", which does not exist"),
    ],
    ids=["jsonl-dangling", "jsonl-devnull", "folder-dangling"],
)
def test_a_lock_that_is_a_symlink_is_named_as_one_before_anything_is_sent(
    sim: Simulator, tmp_path: Path, store_name: str, lock_name: str, target: str, missing: str
) -> None:
    store, lock = tmp_path / store_name, tmp_path / lock_name
    lock.parent.mkdir(exist_ok=True)
    lock.symlink_to(target)
    before = len(sim.requests)
    with pytest.raises(StoreWriteError) as caught:
        httpx2_client(store, "record-missing", approve_live=True)
    expected = f"its lock {lock} is a symlink to {target!r}{missing}; a lock is a regular file"
    assert expected in str(caught.value)
    assert str(caught.value).endswith("(nothing was sent)")
    assert len(sim.requests) == before
    assert not store.is_file() and lock.is_symlink()


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_lock_made_a_symlink_while_recording_is_named_as_one(
    sim: Simulator, tmp_path: Path
) -> None:
    store, lock = tmp_path / "f.jsonl", tmp_path / "f.jsonl.lock"
    http = httpx2_client(store, "record-missing", approve_live=True)
    with anthropic.Anthropic(api_key="t", base_url=sim.url, http_client=http) as client:
        client.messages.create(model="m", max_tokens=8, messages=[{"role": "user", "content": "x"}])
        kept = store.read_bytes()
        lock.unlink()
        lock.symlink_to(os.devnull)
        with pytest.raises(StoreWriteError, match="cannot write a fixture: its lock") as caught:
            client.messages.create(
                model="m", max_tokens=8, messages=[{"role": "user", "content": "y"}]
            )
    assert f"{lock} is a symlink to {os.devnull!r}; a lock is" in str(caught.value)
    assert "symbolic links" not in str(caught.value)
    assert store.read_bytes() == kept
