"""A recording refuses, before anything is sent, a store whose lock cannot be taken or
that cannot be written: the answer of a live call would be paid for and then lost."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest

from replaygate.errors import StoreWriteError
from replaygate.http import httpx2_client
from replaygate.sim import Simulator
from sdks import anthropic

FILE = "a lock is a regular file replaygate makes and takes only as such"


def _refusal(store: Path) -> str:
    with pytest.raises(StoreWriteError) as caught:
        httpx2_client(store, "record-missing", approve_live=True)
    return str(caught.value)


@pytest.mark.parametrize(
    ("store_name", "lock_name"),
    [("f.jsonl", "f.jsonl.lock"), ("folder", "folder/.replaygate.lock")],
    ids=["jsonl", "folder"],
)
def test_a_lock_that_is_a_folder_is_refused_before_anything_is_sent(
    tmp_path: Path, store_name: str, lock_name: str
) -> None:
    store, lock = tmp_path / store_name, tmp_path / lock_name
    lock.mkdir(parents=True)
    assert _refusal(store) == (
        f"{store}: cannot record here: its lock {lock} is a folder; {FILE}: remove it "
        "(nothing was sent)"
    )


def test_a_store_under_a_file_or_a_symlink_to_nothing_is_refused_saying_which(
    tmp_path: Path,
) -> None:
    (tmp_path / "notes.txt").write_text("my notes\n")
    (tmp_path / "gone").symlink_to(tmp_path / "nowhere")
    for folder, kind in [
        ("notes.txt", "a file"),
        ("gone", f"a symlink to {str(tmp_path / 'nowhere')!r}, which does not exist"),
    ]:
        store = tmp_path / folder / "test_x" / "test_a.jsonl"
        assert _refusal(store) == (
            f"{store}: cannot record here: {tmp_path / folder} is {kind}, where a folder is "
            "expected (nothing was sent)"
        )


def _read_only(monkeypatch: pytest.MonkeyPatch, below: Path) -> None:
    """Make every file and folder under ``below`` read-only, as a read-only mount is."""
    real_open, real_access = os.open, os.access

    def opened(file: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT) and str(file).startswith(str(below)):
            raise OSError(errno.EROFS, "Read-only file system", str(file))
        return real_open(file, flags, *args, **kwargs)

    def access(path: Any, mode: int, **kwargs: Any) -> bool:
        if mode & os.W_OK and str(path).startswith(str(below)):
            return False
        return real_access(path, mode, **kwargs)

    monkeypatch.setattr(os, "open", opened)
    monkeypatch.setattr(os, "access", access)


def _ask(store: Path, sim: Simulator, text: str = "hi", mode: str = "record-missing") -> str:
    """The answer to a Messages call of ``text`` through a session recording in ``mode``."""
    http = httpx2_client(store, mode, approve_live=True)
    with anthropic.Anthropic(
        api_key="k", base_url=sim.url, http_client=http, max_retries=0
    ) as client:
        reply = client.messages.create(
            model="m", max_tokens=8, messages=[{"role": "user", "content": text}]
        )
    block = reply.content[0]
    assert block.type == "text"
    return block.text


def _refused_send(store: Path, sim: Simulator, mode: str = "record-missing") -> str:
    sent = len(sim.requests)
    with pytest.raises(StoreWriteError) as caught:
        _ask(store, sim, "new", mode)
    assert len(sim.requests) == sent
    return str(caught.value)


def test_a_store_on_a_read_only_file_system_is_refused_before_anything_is_sent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded = tmp_path / "s.jsonl"
    recorded.write_bytes(b"")
    lock = tmp_path / "s.jsonl.lock"
    lock.write_bytes(b"")
    _read_only(monkeypatch, tmp_path)
    with Simulator(behavior="echo") as sim:
        assert _refused_send(recorded, sim) == (
            f"{recorded}: cannot record here: its lock {lock}: Read-only file system "
            "(nothing was sent)"
        )
        for new in (tmp_path / "new.jsonl", tmp_path / "folder"):
            assert _refused_send(new, sim) == (
                f"{new}: cannot record here: {tmp_path} cannot be written (no permission) "
                "(nothing was sent)"
            )


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_record_missing_over_a_complete_store_on_a_read_only_file_system_replays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "s.jsonl"
    with Simulator(behavior="echo") as sim:
        assert _ask(store, sim) == "echo: hi"
        _read_only(monkeypatch, tmp_path)
        assert _ask(store, sim) == "echo: hi"
        assert len(sim.requests) == 1  # replayed: nothing sent, nothing written
        assert _refused_send(store, sim).startswith(f"{store}: cannot record here: its lock ")


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
@pytest.mark.parametrize(
    ("store", "named"),
    [
        ("/proc/x.jsonl", "/proc is on the process file system (/proc)"),
        ("/proc/self/fixtures", "/proc/self is on the process file system (/proc)"),
        ("/sys/x.jsonl", "/sys is on sysfs (/sys)"),
    ],
)
def test_a_store_where_no_file_can_be_made_is_refused_before_anything_is_sent(
    store: str, named: str
) -> None:
    # Root may write there, says os.access: a live call would be paid and its answer lost.
    with Simulator(behavior="echo") as sim:
        assert _refused_send(Path(store), sim) == (
            f"{store}: cannot record here: {named}, where no file can be made (nothing was sent)"
        )


@pytest.mark.skipif(
    not hasattr(os, "pathconf") or os.pathconf(".", "PC_NAME_MAX") != 255,
    reason="needs a file system of 255-byte names",
)
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_store_name_too_long_for_its_lock_or_its_rewrite_is_refused_before_anything_is_sent(
    tmp_path: Path,
) -> None:
    no_lock = tmp_path / ("a" * 247 + ".jsonl")  # f.jsonl.lock: 258 bytes
    no_rewrite = tmp_path / ("e" * 243 + ".jsonl")  # .f.jsonl.<pid>.tmp: 255 bytes and more
    with Simulator(behavior="echo") as sim:
        assert _refused_send(no_lock, sim) == (
            f"{no_lock}: cannot record here: its lock '{no_lock.name}.lock' is 258 bytes, more "
            "than the 255 a file name may have there: give the store a shorter name "
            "(nothing was sent)"
        )
        assert _ask(no_rewrite, sim) == "echo: hi"  # an append makes no temporary file
        refused = _refused_send(no_rewrite, sim, "rerecord")
    assert refused.startswith(
        f"{no_rewrite}: cannot record here: the temporary file it is rewritten through, "
        f"'.{no_rewrite.name}.{os.getpid()}.tmp' is "
    )
    assert refused.endswith("by 7 byte(s) (nothing was sent)")


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_rerecord_into_a_file_whose_folder_cannot_be_written_is_refused_before_sending(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The file and its lock can be written (an append works), the folder cannot: the
    # rewrite a replaced fixture needs fails there, once its answer was paid for.
    store = tmp_path / "s.jsonl"
    real_access = os.access

    def access(path: Any, mode: int, **kwargs: Any) -> bool:
        return not (mode & os.W_OK and Path(path) == tmp_path) and real_access(path, mode)

    with Simulator(behavior="echo") as sim:
        assert _ask(store, sim) == "echo: hi"
        monkeypatch.setattr(os, "access", access)
        assert _ask(store, sim, "new") == "echo: new"  # appended
        assert _refused_send(store, sim, "rerecord") == (
            f"{store}: cannot record here: {tmp_path} cannot be written (no permission), and "
            "a rerecord rewrites s.jsonl through a temporary file made there (nothing was sent)"
        )


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_folder_store_whose_interface_folder_cannot_take_a_fixture_is_refused_before_sending(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The store's folder and its lock can be written, the <interface>@<version> folder a
    # new fixture is filed in cannot (read-only, or a file in its place): the fixture
    # write failed there once the answer was paid for ("cannot write a fixture: File
    # exists"), where a .jsonl store's refusal came before the send.
    store, other = tmp_path / "fold", tmp_path / "other"
    real_access = os.access
    with Simulator(behavior="echo") as sim:
        assert _ask(store, sim) == "echo: hi"
        (filed,) = [path for path in store.iterdir() if path.is_dir()]
        assert filed.name.startswith("anthropic.messages@")

        def access(path: Any, mode: int, **kwargs: Any) -> bool:
            return not (mode & os.W_OK and Path(path) == filed) and real_access(path, mode)

        monkeypatch.setattr(os, "access", access)
        assert _ask(store, sim) == "echo: hi"  # replayed: nothing to write
        assert _refused_send(store, sim) == (
            f"{store}: cannot record here: {filed} cannot be written (no permission), and a "
            "new fixture is filed there (nothing was sent)"
        )
        other.mkdir()
        (other / filed.name).write_text("notes\n")
        assert _refused_send(other, sim) == (
            f"{other}: cannot record here: {other / filed.name} is no folder, where the "
            f"fixtures of {filed.name} are filed: move it aside (nothing was sent)"
        )
