"""``replaygate checksum`` reads line ends as the store does: an LF and a CRLF checkout of
the same fixtures have one checksum (a CRLF split across two reads too); a lone CR, or
any other change, still changes it."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from replaygate.cli import main
from replaygate.examples.research_copilot import shipped_fixtures
from replaygate.hygiene.checksum import store_checksum


def checked_out(root: Path, data: bytes, crlf: bool) -> Path:
    store = root / ("crlf" if crlf else "lf") / "rc.jsonl"
    store.parent.mkdir(parents=True)
    store.write_bytes(data.replace(b"\n", b"\r\n") if crlf else data)
    return store


def test_an_lf_and_a_crlf_checkout_have_one_checksum(tmp_path: Path) -> None:
    data = shipped_fixtures().read_bytes()
    lf, crlf = (checked_out(tmp_path, data, crlf) for crlf in (False, True))
    assert lf.read_bytes() != crlf.read_bytes()
    printed = [CliRunner().invoke(main, ["checksum", str(p)]).output for p in (lf, crlf)]
    assert printed[0] == printed[1]
    assert store_checksum(crlf.parent) == store_checksum(lf.parent)


def test_a_crlf_across_two_reads_and_a_lone_cr(tmp_path: Path) -> None:
    read = 1 << 20
    first = b'{"a": "' + b"x" * (read - 10) + b'"}'  # its CR is the last byte of a read
    assert len(first) + 1 == read
    lf, crlf = (checked_out(tmp_path, first + b"\n" + b'{"b": 2}\n', c) for c in (False, True))
    assert store_checksum(crlf) == store_checksum(lf)
    lone = tmp_path / "lone" / "rc.jsonl"
    lone.parent.mkdir()
    lone.write_bytes(first + b"\r" + b'{"b": 2}\n')
    assert store_checksum(lone) != store_checksum(lf)
