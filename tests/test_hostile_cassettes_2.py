"""A YAML cassette whose aliases expand without end is refused, at once.

Anchors and aliases (``&a``, ``*a``) let a 700-byte cassette hold a billion values
("billion laughs"); importing one took gigabytes of memory and never ended. An alias
that holds itself is refused too.
"""

from __future__ import annotations

import resource
from pathlib import Path

import pytest

from run_cli import replaygate

pytest.importorskip("yaml")

INTERACTION = """\
interactions:
- request:
    body: '{{}}'
    headers: {{x: {value}}}
    method: POST
    uri: https://api.anthropic.com/v1/messages
  response:
    body: {{string: '{{"type": "message"}}'}}
    headers: {{}}
    status: {{code: 200, message: OK}}
version: 1
"""


def _laughs(levels: int) -> str:
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


def test_aliases_that_expand_past_any_cassette_are_refused_at_once(tmp_path: Path) -> None:
    cassette = tmp_path / "laughs.yaml"
    cassette.write_text(_laughs(8) + INTERACTION.format(value="*l8"))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    done = replaygate("import-cassettes", str(cassette), "--out", "stores", cwd=tmp_path)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 500_000  # KiB
    assert done.returncode == 2, done
    assert "laughs.yaml: its YAML aliases (&name, *name) expand to more than 5,000,000" in (
        done.stdout + done.stderr
    )
    assert not (tmp_path / "stores").exists()


def test_an_alias_that_holds_itself_is_refused(tmp_path: Path) -> None:
    cassette = tmp_path / "self.yaml"
    cassette.write_text("loop: &loop [*loop]\n" + INTERACTION.format(value="*loop"))
    done = replaygate("import-cassettes", str(cassette), "--out", "stores", cwd=tmp_path)
    assert done.returncode == 2, done
    assert "self.yaml: a YAML alias holds itself (at line 1)" in done.stdout + done.stderr


def test_a_few_shared_values_still_import(tmp_path: Path) -> None:
    cassette = tmp_path / "shared.yaml"
    cassette.write_text(_laughs(0) + INTERACTION.format(value="*l0"))
    done = replaygate("import-cassettes", str(cassette), "--out", "stores", cwd=tmp_path)
    assert done.returncode == 0, done
    assert "1 imported" in done.stdout


def test_a_cassette_of_no_interaction_leaves_no_lock_behind(tmp_path: Path) -> None:
    (tmp_path / "cassettes").mkdir()
    (tmp_path / "cassettes" / "empty.yaml").write_text("interactions: []\nversion: 1\n")
    done = replaygate("import-cassettes", "cassettes", "--out", "stores", cwd=tmp_path)
    assert done.returncode == 0, done
    # it was counted "1 unchanged", as if a store held its interactions
    assert "cassettes/empty.yaml: holds no interaction; no store written" in done.stdout
    assert "1 cassette(s): 0 imported, 0 unchanged, 1 empty, 0 refused, 0 error" in done.stdout
    assert not (tmp_path / "stores").exists()  # an orphan empty.jsonl.lock was left there
