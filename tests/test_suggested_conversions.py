"""The commands a refusal suggests to convert a file write a copy beside it, never the file
itself (a shell empties a file named for a command's output before the command reads
it), and UTF-32 text is named UTF-32, with the encoding iconv converts it from.

Each suggestion is run as printed, with the real tool where the machine has it: the
file is left as it was, the copy is one ``replaygate verify`` (or ``gate``) accepts, and
so is the file once the copy is moved in its place.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from counted_outputs import run_output
from replaygate import Fixture
from replaygate.assertions.kinds import Outcome
from replaygate.cli import main
from replaygate.evals import CaseResult, EvalResults
from replaygate.evals.scorers import CaseCounts
from replaygate.examples.research_copilot import shipped_fixtures
from replaygate.sampling import SampledResult, SampleResult

pytestmark = pytest.mark.slow  # each test: starts a process

# The first two cases' calls of sample 0 in the shipped store, as they are shipped, their
# text beyond ASCII among them (what a conversion could garble); the other fixtures, each
# verified twice a case, show the conversion nothing more.
STORE = "".join(shipped_fixtures().read_text(encoding="utf-8").splitlines(keepends=True)[:6])
assert any(not line.isascii() for line in STORE.splitlines())
PRETTY = "".join(json.dumps(json.loads(line), indent=2) + "\n" for line in STORE.splitlines())
SUGGESTED = re.compile(r"e\.g\. `([^`]*) > ([^`]*)`, then `mv ([^`]*)`")
"""The suggestion: the command, the copy it writes, and the move of the copy in place."""


def wide(encoding: str, named: str) -> tuple[bytes, str, str, str]:
    """The store saved in ``encoding``, which iconv names ``named``, as :data:`KINDS` holds it."""
    return STORE.encode(encoding), "iconv", f"(it looks like {named[:6]}: ", f"iconv -f {named} "


KINDS = {  # what the file holds, the tool the suggestion runs, the refusal, the command
    "utf-16": wide("utf-16", "UTF-16"),
    "utf-16le": wide("utf-16-le", "UTF-16LE"),
    "utf-16be": wide("utf-16-be", "UTF-16BE"),
    "utf-32": wide("utf-32", "UTF-32"),
    "utf-32le": wide("utf-32-le", "UTF-32LE"),
    "utf-32be": wide("utf-32-be", "UTF-32BE"),
    "cr": (STORE.replace("\n", "\r").encode(), "tr", "lone carriage return (CR)", "tr "),
    "pretty": (PRETTY.encode(), "python3", "pretty JSON", "python3 -c "),
}
NAMES = ["NEW.jsonl", "s.jsonl", "p/NEW.jsonl", "it's a store.jsonl"]
CASES = [
    *((kind, "NEW.jsonl") for kind in KINDS),  # the name the old suggestions wrote to
    *(("utf-16", name) for name in NAMES[1:]),
    ("cr", "it's a store.jsonl"),
    ("pretty", "p/NEW.jsonl"),
]
"""Every kind of file under the name the old suggestions emptied, and every name (a
folder, a quote) under a suggestion of each tool."""


def verify(path: str) -> tuple[int, str]:
    """``replaygate verify path``: its exit code and output."""
    result = CliRunner().invoke(main, ["verify", "--", path])
    return result.exit_code, result.output


def suggestion(output: str) -> tuple[str, str, str]:
    """The command, the copy and the move the first refusal in ``output`` suggests."""
    found = SUGGESTED.search(output)
    assert found is not None, output
    return found.group(1), found.group(2), found.group(3)


def run(command: str) -> None:
    """Run ``command`` as printed, in a shell, in the current folder."""
    subprocess.run(["sh", "-c", command], check=True, capture_output=True)


def words(command: str) -> list[str]:
    """``command`` split as the shell splits it."""
    done = subprocess.run(
        ["sh", "-c", f'for w in {command}; do printf "%s\\0" "$w"; done'],
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.split("\0")[:-1]


@pytest.mark.parametrize(("kind", "name"), CASES)
def test_a_suggested_conversion_writes_a_copy_and_leaves_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, name: str
) -> None:
    # `iconv -f UTF-16 -t UTF-8 NEW.jsonl > NEW.jsonl` emptied the store it was to convert
    data, tool, named, convert = KINDS[kind]
    monkeypatch.chdir(tmp_path)
    store = Path(name)
    store.parent.mkdir(exist_ok=True)
    store.write_bytes(data)
    code, output = verify(name)
    assert code == 1, output
    first = output.splitlines()[0]
    assert first.startswith(f"{name}:1: ") and named in first, first
    assert "UTF-16" not in first if "32" in kind else "UTF-32" not in first
    command, copy, move = suggestion(first)
    assert command.startswith(convert), command
    (copy_name,) = words(copy)
    assert Path(copy_name).resolve() != store.resolve()
    assert Path(copy_name).parent == store.parent  # beside it, whatever folder it is in
    reads = words(command.replace(" < ", " ", 1))  # tr reads its input from a redirection
    assert reads[-1] == name  # the file itself, quoted as the shell reads it
    assert words(move) == [copy_name, name]
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed here: the suggestion is not run")
    run(f"{command} > {copy}")
    assert store.read_bytes() == data
    assert verify(copy_name) == (0, "6 fixture(s) checked, 0 problem(s)\n")
    run(f"mv {move}")
    assert verify(name) == (0, "6 fixture(s) checked, 0 problem(s)\n")


def test_putting_a_pretty_fixture_back_on_one_line_keeps_its_numbers_and_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # jq 1.6 (`jq -c .`, as suggested) wrote temperature 1.0 as 1 and rounded the seed, so
    # the request no longer had its key: every such fixture was refused after the fix
    shipped = json.loads(STORE.splitlines()[0])
    shipped["request"].update(temperature=1.0, top_p=0.25, seed=2**60 + 1)
    line = Fixture.create(shipped["request"], shipped["responses"][:1], shipped["meta"]).to_line()
    monkeypatch.chdir(tmp_path)
    Path("s.jsonl").write_bytes(line + json.dumps(json.loads(line), indent=2).encode() + b"\n")
    command, copy, move = suggestion(verify("s.jsonl")[1])
    if shutil.which("python3") is None:
        pytest.skip("python3 is not installed here: the suggestion is not run")
    run(f"{command} > {copy}")
    run(f"mv {move}")
    assert Path("s.jsonl").read_bytes() == line * 2  # as the store wrote it, twice
    assert verify("s.jsonl") == (0, "2 fixture(s) checked, 0 problem(s)\n")


def results(path: Path) -> Path:
    """A results file of one case whose one sample passed."""
    output = run_output("a", cited=["doc-a"])
    sample = SampleResult(0, (Outcome("cites", "gate", True, "", None, "set"),), output)
    counts = CaseCounts(samples=1, passed=True, runs=1, scored=True, cited=1, correct=1, expected=1)
    case = CaseResult(SampledResult("a", 1, 1, (sample,)), counts, ("t",))
    return EvalResults((case,), {"time": "2026-11-30T00:00:00Z", "mode": "replay"}).write(path)


@pytest.mark.parametrize(
    ("encoding", "named"),
    [
        ("utf-32", "UTF-32"),
        ("utf-32-le", "UTF-32LE"),
        ("utf-32-be", "UTF-32BE"),
        ("utf-16", "UTF-16"),
        ("utf-16-le", "UTF-16LE"),
    ],
)
@pytest.mark.parametrize("which", ["--results", "--baseline"])
def test_gate_names_a_results_or_baseline_file_in_utf32_and_its_conversion_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, encoding: str, named: str, which: str
) -> None:
    # UTF-32 with a byte order mark was called UTF-16 (`iconv -f UTF-16` gave garbage),
    # without one "not JSON"
    monkeypatch.chdir(tmp_path)
    good = results(tmp_path / "good.json")
    wide = Path("NEW.json")
    wide.write_bytes(good.read_text(encoding="utf-8").encode(encoding))
    files = {"--results": str(good), "--baseline": str(good), which: wide.name}
    args = ["gate", *(word for pair in files.items() for word in pair)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    family = named[:6]
    assert f"NEW.json: not UTF-8 text (it looks like {family}: " in result.output
    assert ("UTF-16" if family == "UTF-32" else "UTF-32") not in result.output
    command, copy, move = suggestion(result.output)
    assert (command, copy, move) == (
        f"iconv -f {named} -t UTF-8 NEW.json",
        "NEW.utf8.json",
        "NEW.utf8.json NEW.json",
    )
    if shutil.which("iconv") is None:
        pytest.skip("iconv is not installed here: the suggestion is not run")
    before = wide.read_bytes()
    run(f"{command} > {copy}")
    assert wide.read_bytes() == before
    run(f"mv {move}")
    assert CliRunner().invoke(main, args).exit_code == 0
