"""An eval run split over shards and merged back equals the serial run."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from replaygate.evals.shards import Shard
from replaygate.examples.research_copilot import shipped_eval_cases
from run_cli import replaygate
from unicode_text import unicode_text

# Its tests import the provider SDKs through replaygate (the example agent).

# Records an eval from the simulator and runs it in shards: end to end.
pytestmark = pytest.mark.slow

AGENT = ["--agent", "replaygate.examples.research_copilot:copilot"]
CASES = "cases/cases.jsonl"
"""The cases file, in a folder beside the store's (neither the serial run's nor the
shards'): the shipped cases, 2 samples each (floor 1), where they ask 5; a case's
samples all go in its shard, as many as they are."""


def _document(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("eval") / "store" / "eval.jsonl"
    shipped = shipped_eval_cases().read_text(encoding="utf-8").splitlines()
    cases = [{**json.loads(line), "samples": 2, "floor": 1} for line in shipped]
    path.parent.mkdir()
    _cases(path).parent.mkdir()
    _cases(path).write_text("".join(json.dumps(c) + "\n" for c in cases), "utf-8")
    done = replaygate(
        *_eval(path), "--record-mode", "record-missing", "--approve-live", "--simulator",
        "--no-history",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return path


@pytest.fixture(scope="module")
def serial(store: Path) -> Path:
    out = store.with_name("serial.json")
    done = replaygate(  # outside any project, as the shards run
        *_eval(store), "--out", str(out), "--no-history", cwd=store.parent
    )
    assert done.returncode == 0, done.stderr
    return out


def _cases(store: Path) -> Path:
    return store.parent.parent / CASES


def _eval(store: Path) -> list[str]:
    return ["eval", *AGENT, "--cases", str(_cases(store)), "--fixtures", str(store)]


def _shards(store: Path, tmp_path: Path, n: int) -> list[Path]:
    parts = []
    for i in range(1, n + 1):
        part = tmp_path / f"shard-{i}.json"
        done = replaygate(*_eval(store), "--shard", f"{i}/{n}", "--out", str(part), cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert "merge every shard" in done.stderr and "history:" not in done.stdout
        parts.append(part)
    return parts


@pytest.fixture(scope="module")
def shards(store: Path, tmp_path_factory: pytest.TempPathFactory) -> Callable[[int], list[Path]]:
    """The results of the N shards of the eval, each run once for the module."""
    made: dict[int, list[Path]] = {}

    def of(n: int) -> list[Path]:
        if n not in made:
            made[n] = _shards(store, tmp_path_factory.mktemp(f"shards-of-{n}"), n)
        return made[n]

    return of


@pytest.mark.parametrize("n", [1, 3])
def test_merged_shards_equal_the_serial_run(
    store: Path, serial: Path, shards: Callable[[int], list[Path]], tmp_path: Path, n: int
) -> None:
    parts = shards(n)
    sizes = [len(_document(p)["cases"]) for p in parts]
    assert sum(sizes) == len(_document(serial)["cases"])
    merged = tmp_path / "merged.json"
    history = tmp_path / "history.db"
    done = replaygate(
        "eval", "merge", *map(str, reversed(parts)), "--out", str(merged),
        "--history", str(history), cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "history: run" in done.stdout
    ours, theirs = _document(merged), _document(serial)
    assert ours["cases"] == theirs["cases"] and ours["metrics"] == theirs["metrics"]
    assert [s["shard"] for s in ours["eval"]["shards"]] == [f"{i}/{n}" for i in range(1, n + 1)]
    for key in ("model", "interface", "mode", "agent", "cases_file"):
        assert ours["eval"][key] == theirs["eval"][key]
    exported = replaygate("history", "export", "--json", "--history", str(history), cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    assert len(json.loads(exported.stdout)["runs"]) == 1


def test_merge_refuses_what_is_not_one_whole_run(
    store: Path, serial: Path, shards: Callable[[int], list[Path]], tmp_path: Path
) -> None:
    one, two, three = shards(3)
    cases = [("missing", [one, two], "1 of 3 shard(s) missing: 3/3 (")]
    cases.append(("twice", [one, two, two, three], "given twice"))
    cases.append(("not a shard", [one, two, serial], "not the results of a shard"))
    other = tmp_path / "other-model.json"
    document = _document(three)
    document["eval"]["model"] = "claude-unpriced"  # no price: its costs are not checked
    other.write_text(json.dumps(document), encoding="utf-8")
    cases.append(("other run", [one, two, other], "these shards come from different runs"))
    for key, value in (("prices", {"source": "cheap.toml", "currency": "USD"}), ("fixtures", "b")):
        foreign = tmp_path / f"other-{key}.json"
        document = _document(three)
        document["eval"][key] = value
        refused = f"{key} is {value!r}, but "
        if key == "fixtures":  # a store of the same contents (its digest) would merge
            document["eval"]["fixtures_digest"] = "0" * 64
            refused = "replayed other fixtures than"
        foreign.write_text(json.dumps(document), encoding="utf-8")
        cases.append((f"other {key}", [one, two, foreign], refused))
    damaged = tmp_path / "damaged.json"
    document = _document(three)
    document["eval"]["shard"]["positions"] = ["x"] * len(document["cases"])
    damaged.write_text(json.dumps(document), encoding="utf-8")
    damaged_at = "eval.shard.positions[0] must be an integer from 0 to"
    cases.append(("damaged", [one, two, damaged], damaged_at))
    recorded = tmp_path / "recorded.json"  # a shard that recorded states no store digest
    document = _document(three)
    document["eval"]["mode"] = "record-missing"
    del document["eval"]["fixtures_digest"]
    recorded.write_text(json.dumps(document), encoding="utf-8")
    mode = f"mode is 'record-missing', but 'replay' in {one}: these shards come from different"
    cases.append(("a recording shard", [one, two, recorded], mode))
    told = []  # every shard telling of a case more than the run ran
    for part in (one, two, three):
        document = _document(part)
        document["eval"]["shard"]["cases"] += 1
        told.append(tmp_path / f"told-{part.name}")
        told[-1].write_text(json.dumps(document), encoding="utf-8")
    total = _document(one)["eval"]["shard"]["cases"]
    more = f"the shards hold {total} cases, where their eval.shard.cases give {total + 1}: no "
    cases.append(("a case more", told, f"{more}shard holds position(s) {total}: the files were"))
    for name, parts, message in cases:
        done = replaygate("eval", "merge", *map(str, parts), "--out", str(tmp_path / "m.json"))
        assert done.returncode == 2, name
        assert message in done.stderr and "Traceback" not in done.stderr, (name, done.stderr)
    no_out = replaygate(*_eval(store), "--shard", "1/2")
    assert no_out.returncode == 2 and "--shard needs --out" in no_out.stderr
    bad = replaygate(*_eval(store), "--shard", "3/2", "--out", str(tmp_path / "x.json"))
    assert bad.returncode == 2 and "I must be from 1 to N" in bad.stderr


@given(ids=st.lists(unicode_text(min_size=1, max_size=12), unique=True, max_size=40),
       count=st.integers(1, 8))  # fmt: skip
def test_every_case_is_in_exactly_one_shard(ids: list[str], count: int) -> None:
    for case_id in ids:
        holders = [i for i in range(1, count + 1) if Shard(i, count).holds(case_id)]
        assert len(holders) == 1
