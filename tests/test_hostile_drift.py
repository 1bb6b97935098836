"""``drift --against`` that compares nothing says so and exits 2, never "no drift".

An empty store (a wrong path in CI that created nothing, a store emptied by a bad
merge) or two stores of different interfaces have no interface in common: the check
could not run, where it printed "no drift: 0 interface(s) drifted" and exited 0.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate import Fixture
from replaygate.cli import main
from replaygate.fixtures.fixture import make_meta

REQUEST = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}
RESPONSE = {"type": "message", "role": "assistant", "content": [], "stop_reason": "end_turn"}


def _store(path: Path, interface: str) -> Path:
    meta = make_meta(interface, "v1", "hand", recorded_at="2025-01-01T00:00:00Z")
    request = {**REQUEST, "model": interface}
    path.write_bytes(Fixture.create(request, [RESPONSE], meta).to_line())
    return path


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ("empty", "anthropic", "empty.jsonl holds no recorded response"),
        ("anthropic", "empty", "empty.jsonl holds no recorded response"),
        ("empty", "empty", "empty.jsonl holds no recorded response"),
        ("anthropic", "openai", "no interface is in both: anthropic.jsonl holds anthropic"),
    ],
)
def test_drift_against_with_nothing_in_common_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, old: str, new: str, says: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty.jsonl").write_bytes(b"")
    _store(tmp_path / "anthropic.jsonl", "anthropic.messages")
    _store(tmp_path / "openai.jsonl", "openai.chat.completions")
    for extra in ([], ["--json"]):
        args = ["drift", f"{old}.jsonl", "--against", f"{new}.jsonl", *extra]
        done = CliRunner().invoke(main, args)
        assert done.exit_code == 2 and isinstance(done.exception, SystemExit), done.output
        assert "Error: nothing to compare: " in done.stderr and says in done.stderr, done.stderr
        assert "no drift" not in done.output and done.stdout == ""


def test_drift_against_with_one_interface_in_common_still_compares_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    both = tmp_path / "both.jsonl"
    _store(tmp_path / "a.jsonl", "anthropic.messages")
    _store(tmp_path / "o.jsonl", "openai.chat.completions")
    both.write_bytes((tmp_path / "a.jsonl").read_bytes() + (tmp_path / "o.jsonl").read_bytes())
    done = CliRunner().invoke(main, ["drift", "both.jsonl", "--against", "a.jsonl"])
    assert "paired by request\n  same fields\n" in done.output
    assert "openai.chat.completions: only in both.jsonl, not compared" in done.output
    # the interface only one side has was compared with nothing: no pass
    assert done.exit_code == 2, done.output
    assert "no drift" not in done.output
    assert "NOT CHECKED: 1 request(s) only one side holds have nothing" in done.output


@pytest.mark.parametrize("which", ["old", "new"])
def test_a_fixture_without_meta_is_compared_as_the_interface_it_pairs_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, which: str
) -> None:
    # It was said to be "paired by request, same fields" under `unknown` and "only in
    # nometa.jsonl, not compared" in one report.
    monkeypatch.chdir(tmp_path)
    _store(tmp_path / "a.jsonl", "anthropic.messages")
    request = {**REQUEST, "model": "anthropic.messages"}
    (tmp_path / "nometa.jsonl").write_bytes(Fixture.create(request, [RESPONSE], None).to_line())
    old, new = ("nometa.jsonl", "a.jsonl") if which == "old" else ("a.jsonl", "nometa.jsonl")
    done = CliRunner().invoke(main, ["drift", old, "--against", new])
    assert done.exit_code == 0, done.output
    assert f"anthropic.messages: 1 response(s) from {old}, 1 from {new}, paired by request" in (
        done.output
    )
    assert "unknown" not in done.output and "not compared" not in done.output
    assert "no drift: 0 interface(s) drifted" in done.output
