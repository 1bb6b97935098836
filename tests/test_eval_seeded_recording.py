"""Recording from the seeded simulator gives the same store at any concurrency.

The same seed records byte-identical fixture files (``recorded_at`` apart) one case
after another and on 4 threads, and the same fixtures on 8 threads into
a JSONL store (whose lines keep the order fixtures were first written in): the
simulator draws each answer from the seed and the conversation, and cases asking the
same question are recorded one after another. (``eval --jobs`` processes give the
results of a serial run: ``test_eval_jobs.py``.)
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from replaygate.examples.research_copilot import shipped_eval_cases
from replaygate.fixtures.store import FixtureStore
from run_cli import replaygate

# Its tests import the provider SDKs through replaygate (the example agent).

pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning"),
]
AGENT = "replaygate.examples.research_copilot:copilot"
RECORDED_AT = re.compile(rb'"recorded_at": ?"[^"]*"')


def cases_file(root: Path) -> Path:
    """The shipped cases, four of them asked twice, 2 samples each: 24 recorded runs.

    As many as fail the test with either regression it was written for: drawn in the
    order requests arrive, every run; a question's cases not recorded one after another,
    one run in two (at 3 samples each, as often)."""
    shipped = [json.loads(line) for line in shipped_eval_cases().read_text("utf-8").splitlines()]
    again = [{**c, "id": f"{c['id']}-again"} for c in shipped[::2]]
    cases = [{**c, "samples": 2, "floor": 1} for c in shipped + again]
    path = root / "cases.jsonl"
    path.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases), "utf-8")
    return path


def record(cases: Path, store: Path, *args: str) -> Path:
    done = replaygate("eval", "--cases", str(cases), "--fixtures", str(store), "--agent", AGENT,
                      "--record-mode", "record-missing", "--approve-live", "--simulator",
                      "--seed", "7", "--no-history", *args)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return store


def folder_bytes(store: Path) -> dict[str, bytes]:
    """Each file of a folder store, ``recorded_at`` blanked."""
    return {
        str(f.relative_to(store)): RECORDED_AT.sub(b"", f.read_bytes())
        for f in sorted(store.rglob("*.json"))
    }


def fixtures(store: Path) -> list[str]:
    """Each fixture of a store (in any layout), ``recorded_at`` left out, by key."""
    with FixtureStore.open(store) as opened:
        return sorted(
            json.dumps(
                {**f.to_json(), "meta": {**(f.meta or {}), "recorded_at": None}},
                ensure_ascii=False,
                sort_keys=True,
            )
            for f in opened
        )


def test_the_same_seed_records_the_same_store_at_any_concurrency(tmp_path: Path) -> None:
    cases = cases_file(tmp_path)
    serial = record(cases, tmp_path / "serial")
    expected = folder_bytes(serial)
    assert len(expected) > 8 * 3  # three turns or more for each of the 8 questions
    threads = record(cases, tmp_path / "threads", "--concurrency", "4")
    assert folder_bytes(threads) == expected
    lines = record(cases, tmp_path / "lines.jsonl", "--concurrency", "8")
    assert fixtures(lines) == fixtures(serial)
