"""An output named over a fixture store or a cassette is refused, damaged or not.

``report --out``, ``eval --out``, ``drift --report`` and ``drift --json-out`` refused a
healthy store but replaced one whose first line did not parse (a git conflict marker, a
byte order mark, UTF-16, a comment, ``null``, an array of fixtures...), exit 0: the
fixtures were lost. Every output-writing command now refuses such a file with one
message, before anything runs, writing nothing; its own earlier output it replaces.
"""

from __future__ import annotations

import codecs
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from replaygate.cli import main
from replaygate.evals import History
from replaygate.examples.research_copilot import (
    shipped_baseline,
    shipped_eval_cases,
    shipped_fixtures,
)

# Its tests draw the report's plots through replaygate (the report).

pytestmark = pytest.mark.filterwarnings("ignore::replaygate.sampling.advice.SamplingWarning")

AGENT = "replaygate.examples.research_copilot:copilot"
LINES = shipped_fixtures().read_bytes().splitlines(keepends=True)[:2]
STORE = b"".join(LINES)
PRETTY = json.dumps(json.loads(LINES[0]), indent=2, sort_keys=True).encode() + b"\n"
MEMBER = f"fx/anthropic.messages@2023-06-01/{json.loads(LINES[0])['key']}.json"
YAML_CASSETTE = b"interactions:\n- request:\n    method: POST\n    uri: https://x/v1\nversion: 1\n"

DAMAGED: dict[str, tuple[str, bytes]] = {
    "conflict marker": (
        "saved.json",
        b"<<<<<<< HEAD\n" + LINES[0] + b"=======\n" + LINES[1] + b">>>>>>> other\n",
    ),
    "utf-8 bom": ("saved.json", codecs.BOM_UTF8 + STORE),
    "utf-16": ("saved.json", STORE.decode().encode("utf-16")),
    "utf-16 without bom": ("saved.json", STORE.decode().encode("utf-16-le")),
    "utf-32": ("saved.json", STORE.decode().encode("utf-32")),
    "comment": ("saved.json", b"# recorded by hand\n" + STORE),
    "null": ("saved.json", b"null\n" + STORE),
    "number": ("saved.json", b"42\n" + STORE),
    "array": ("saved.json", b"[" + b",".join(line.rstrip() for line in LINES) + b"]\n"),
    "yaml cassette": ("cassette.yaml", YAML_CASSETTE),
    "folder member with bom": (MEMBER, codecs.BOM_UTF8 + PRETTY),
    "folder member with conflict": (MEMBER, b"<<<<<<< HEAD\n" + PRETTY + b"=======\n"),
    "undecodable .jsonl": ("saved.jsonl", b"\xff\xfe\x00garbage\n"),
    "json cassette with nan": ("cassette.json", b'{"interactions": [], "version": NaN}\n'),
}
"""Files a store or ``import-cassettes`` reads, damaged, by the name each is saved under."""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A healthy store, one eval case, results, an empty history."""
    shutil.copy(shipped_fixtures(), tmp_path / "rc.jsonl")
    first = json.loads(shipped_eval_cases().read_text(encoding="utf-8").splitlines()[0])
    (tmp_path / "cases.jsonl").write_text(json.dumps({**first, "samples": 1, "floor": 1}) + "\n")
    History.open(tmp_path / "h.db").close()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CI", "1")
    return tmp_path


COMMANDS: dict[str, Callable[[str], list[str]]] = {
    "report --out": lambda out: ["report", "--history", "h.db", "--out", out],
    "eval --out": lambda out: [
        "eval", "--agent", AGENT, "--cases", "cases.jsonl", "--fixtures", "rc.jsonl",
        "--no-history", "--out", out,
    ],
    "drift --report": lambda out: ["drift", "rc.jsonl", "--against", "rc.jsonl", "--report", out],
    "drift --json-out": lambda out: [
        "drift", "rc.jsonl", "--against", "rc.jsonl", "--json-out", out,
    ],
    "history export --out": lambda out: ["history", "export", "--history", "h.db", "--out", out],
}  # fmt: skip


def _invoke(command: str, out: str) -> Result:
    return CliRunner().invoke(main, COMMANDS[command](out))


PAIRS = sorted(
    {(command, "conflict marker") for command in COMMANDS}
    | {(command, damage) for command in ("report --out", "drift --json-out") for damage in DAMAGED}
)
"""Every command over one damaged store, and every damaged form under the two commands
that replace an output of their own kind (an HTML page, a JSON document, which a damaged
store must not pass for): the commands share one decision (``check_not_an_input``)."""


@pytest.mark.parametrize(("command", "damage"), PAIRS)
def test_an_output_over_a_damaged_store_is_refused_and_the_store_kept(
    project: Path, command: str, damage: str
) -> None:
    name, content = DAMAGED[damage]
    (project / name).parent.mkdir(parents=True, exist_ok=True)
    (project / name).write_bytes(content)
    before = sorted(project.rglob("*"))
    result = _invoke(command, name)
    assert result.exit_code == 2, result.output
    assert f"Error: {name}: " in result.output
    assert (
        ": writing the output there would replace it; choose another file (nothing was written)"
        in result.output
    )
    assert "rag-basics" not in result.output and "drift:" not in result.output  # nothing ran
    assert (project / name).read_bytes() == content
    assert sorted(project.rglob("*")) == before


def test_baseline_update_over_a_damaged_store_says_the_same(project: Path) -> None:
    (project / "results.json").write_text('{"format": "replaygate.sampling.results"}\n')
    (project / "base.json").write_bytes(codecs.BOM_UTF8 + STORE)
    result = CliRunner().invoke(
        main,
        ["baseline", "update", "--results", "results.json", "--baseline", "base.json",
         "--reason", "r"],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "Error: base.json: holds fixtures: writing the output there would replace it" in (
        result.output
    )
    assert (project / "base.json").read_bytes() == codecs.BOM_UTF8 + STORE


@pytest.mark.parametrize(
    "command",
    [pytest.param("report --out", marks=pytest.mark.slow), "drift --report", "drift --json-out"],
)
def test_an_output_replaces_its_own_earlier_output_even_named_jsonl(
    project: Path, command: str
) -> None:
    for _ in range(2):
        result = _invoke(command, "out.jsonl")
        assert result.exit_code == 0, result.output


@pytest.mark.slow  # the eval runner's whole flow
def test_eval_out_replaces_its_earlier_results(project: Path) -> None:
    for _ in range(2):
        result = _invoke("eval --out", "results.json")
        assert result.exit_code == 0, result.output


@pytest.mark.parametrize("command", ["report --out", "drift --report"])
def test_an_output_over_a_baseline_saved_in_utf16_is_refused(project: Path, command: str) -> None:
    # the check of what a file holds read its bytes as UTF-8: a baseline an editor saved
    # in UTF-16 read as no kind of file, and the report replaced it
    baseline = shipped_baseline().read_text(encoding="utf-8").encode("utf-16")
    (project / "baseline.json").write_bytes(baseline)
    result = _invoke(command, "baseline.json")
    assert result.exit_code == 2, result.output
    assert "Error: baseline.json: holds a baseline" in result.output
    assert (project / "baseline.json").read_bytes() == baseline
