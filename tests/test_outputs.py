"""A file a command produces is written in one step: a failed write keeps the old one."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from replaygate.outputs import write_text


def test_a_write_that_fails_keeps_the_old_file_whole_and_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "results.json"
    out.write_text('{"old": true}\n')

    def disk_full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OSError) as caught:
        write_text(out, '{"new": true}\n' * 1000)
    assert caught.value.errno == errno.ENOSPC and caught.value.filename == str(out)
    assert out.read_text() == '{"old": true}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.json"]


def test_a_write_through_a_link_replaces_the_file_it_links_to(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("old\n")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    write_text(link, "new\n")
    assert link.is_symlink() and real.read_text() == "new\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_written_directly_not_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        write_text(fifo, "streamed\n")
        assert os.read(reader, 100) == b"streamed\n"
    finally:
        os.close(reader)
    assert fifo.is_fifo()
