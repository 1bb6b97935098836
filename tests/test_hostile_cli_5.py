"""Hostile input to the command line's files: a calibration sheet and its sidecar.

A sheet holding an output longer than ``csv``'s field limit (131,072 characters), as
``calibrate export`` wrote it, ended ``calibrate score`` in a ``_csv.Error`` traceback;
a sidecar edited by hand was read as far as it could be (``"automatic": true`` scored as
a fail, a key named twice as its last value, another version as this one); a sheet a
spreadsheet saved with semicolons lacked every column.
"""

from __future__ import annotations

import csv
import json
import sqlite3
import threading
import tomllib
from pathlib import Path

import pytest

from replaygate import Fixture, FixtureStore
from replaygate.assertions import contains_check
from replaygate.evals import History
from replaygate.examples.research_copilot import shipped_eval_cases, shipped_fixtures
from replaygate.fixtures.fixture import make_meta
from replaygate.fixtures.store import record_response
from replaygate.hygiene.usage import DAMAGED_HITS_FIX
from replaygate.locks import lock_at
from replaygate.sampling import run_sampled, write_results
from replaygate.sampling.calibration import CELL_LIMIT
from run_cli import replaygate
from test_history import run
from unplotted_reports import unplot

LONG = "RAG retrieves context. " * 9_000  # 207,000 characters


def exported(folder: Path, output: str) -> Path:
    """A sheet of 3 rows exported from results whose one output is ``output``, labelled."""
    checks = [contains_check(["context"], kind="gate")]
    write_results(
        folder / "results.json", [run_sampled(lambda i: output, 3, 2, checks, case="rag")]
    )
    done = replaygate(
        "calibrate", "export", "results.json", "--seed", "1", "--out", "s.csv", cwd=folder
    )
    assert done.returncode == 0, done
    path = folder / "s.csv"
    rows = rows_of(path)
    for row in rows:
        row["label"] = "pass"
    write_sheet(path, rows)
    return path


@pytest.fixture
def sheet(tmp_path: Path) -> Path:
    """A labelled sheet of short outputs."""
    return exported(tmp_path, "RAG adds context.")


@pytest.fixture
def long_sheet(tmp_path: Path) -> Path:
    """A labelled sheet of an output longer than ``csv``'s field limit."""
    return exported(tmp_path, LONG)


def write_sheet(
    path: Path, rows: list[dict[str, str]], delimiter: str = ",", quoting: int = csv.QUOTE_MINIMAL
) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(
            handle, fieldnames=list(rows[0]), delimiter=delimiter, quoting=quoting
        )
        writer.writeheader()
        writer.writerows(rows)


def score(sheet: Path, *args: str) -> tuple[int, str, str]:
    done = replaygate("calibrate", "score", sheet.name, *args, cwd=sheet.parent)
    return done.returncode, done.stdout, done.stderr


def rows_of(sheet: Path) -> list[dict[str, str]]:
    """The rows of ``sheet``, a cell of any length (the field limit is ``csv``'s, global)."""
    limit = csv.field_size_limit(len(LONG) * 2)
    try:
        with sheet.open(encoding="utf-8", newline="") as handle:
            return list(csv.DictReader(handle))
    finally:
        csv.field_size_limit(limit)


def test_an_output_longer_than_a_cell_is_cut_saying_so_and_the_sheet_scores(
    long_sheet: Path,
) -> None:
    sheet = long_sheet
    output = rows_of(sheet)[0]["output"]
    assert len(output) <= CELL_LIMIT
    assert output.startswith(LONG[:1000])
    assert output.endswith(
        f"[... cut: {len(LONG) - (CELL_LIMIT - 80):,} more characters, in the results file]"
    )
    code, out, err = score(sheet)
    assert (code, err) == (0, ""), err
    assert out.splitlines()[1].split()[:3] == ["contains", "3", "1.00"]


def test_a_long_output_is_cut_between_two_characters_seen_apart() -> None:
    from replaygate.sampling.calibration import _output_text

    text = "a" * (CELL_LIMIT - 81) + "\U0001f1e9\U0001f1ea" * 100  # flags, the cut in one
    cell = _output_text(text)
    assert cell.startswith("a" * (CELL_LIMIT - 81) + " [... cut: 200 more characters")


def test_a_cell_beyond_the_csv_field_limit_is_named_by_its_line(sheet: Path) -> None:
    rows = rows_of(sheet)
    rows[1]["output"] = LONG  # pasted back whole by hand
    write_sheet(sheet, rows)
    code, _, err = score(sheet)
    assert code == 2
    assert err == (
        "Error: s.csv:3: not a CSV row this reader takes: field larger than field limit (131072)\n"
    )


@pytest.mark.parametrize("quoting", [csv.QUOTE_MINIMAL, csv.QUOTE_ALL], ids=["", "all quoted"])
@pytest.mark.parametrize("delimiter", [";", "\t"], ids=["semicolons", "tabs"])
def test_a_sheet_saved_with_semicolons_or_tabs_scores_as_with_commas(
    sheet: Path, delimiter: str, quoting: int
) -> None:
    expected = score(sheet)
    write_sheet(sheet, rows_of(sheet), delimiter, quoting)
    assert score(sheet) == expected


def test_a_labelled_sheet_saved_with_semicolons_is_not_exported_over(sheet: Path) -> None:
    write_sheet(sheet, rows_of(sheet), ";")
    before = sheet.read_bytes()
    done = replaygate(
        "calibrate", "export", "results.json", "--seed", "1", "--out", "s.csv", cwd=sheet.parent
    )
    assert done.returncode == 2
    assert done.stderr.startswith("Error: s.csv: holds 3 label(s) already;"), done.stderr
    assert sheet.read_bytes() == before


EDITS = [
    (
        lambda d: d["items"]["1"].update(automatic="maybe"),
        "s.verdicts.json: items.1.automatic: must be 'pass' or 'fail', got 'maybe'",
    ),
    (
        lambda d: d["items"]["2"].update(automatic=True),
        "s.verdicts.json: items.2.automatic: must be 'pass' or 'fail', got true",
    ),
    (
        lambda d: d["items"]["1"].pop("automatic"),
        "s.verdicts.json: items.1.automatic: is missing; it must be 'pass' or 'fail'",
    ),
    (
        lambda d: d["items"]["1"].update(case=5),
        "s.verdicts.json: items.1.case: must be a non-empty string, got 5",
    ),
    (
        lambda d: d["items"]["1"].update(sample="0"),
        "s.verdicts.json: items.1.sample: must be an integer, got '0'",
    ),
    (
        lambda d: d["items"]["3"].update(assertion=None),
        "s.verdicts.json: items.3.assertion: must be a non-empty string, got null",
    ),
    (
        lambda d: d.update(items=list(d["items"].values())),
        "s.verdicts.json: items: must be an object keyed by item, got a list",
    ),
    (
        lambda d: d.update(version=2),
        "s.verdicts.json: version 2 was written by a newer replaygate; this one reads version 1: "
        "upgrade replaygate to read it (nothing was read or changed)",
    ),
    (lambda d: d.update(version="1"), "s.verdicts.json: version: must be an integer, got '1'"),
]


@pytest.mark.parametrize(("edit", "message"), EDITS, ids=[m.split(": ")[1] for _, m in EDITS])
def test_a_sidecar_edited_by_hand_is_refused_naming_the_field(
    sheet: Path, edit: object, message: str
) -> None:
    side = sheet.with_name("s.verdicts.json")
    document = json.loads(side.read_text())
    edit(document)  # type: ignore[operator]
    side.write_text(json.dumps(document))
    code, out, err = score(sheet)
    assert (code, out, err) == (2, "", f"Error: {message}\n")


def test_a_sidecar_naming_a_key_twice_is_refused(sheet: Path) -> None:
    side = sheet.with_name("s.verdicts.json")
    text = side.read_text()
    side.write_text(
        text.replace('"automatic": "pass"', '"automatic": "fail", "automatic": "pass"', 1)
    )
    code, _, err = score(sheet)
    assert code == 2
    assert err.startswith("Error: s.verdicts.json: not JSON this reader accepts: ")
    assert "automatic" in err and "twice" in err, err


def test_a_missing_sidecar_says_where_it_comes_from(sheet: Path) -> None:
    sheet.with_name("s.verdicts.json").rename(sheet.with_name("elsewhere.json"))
    code, _, err = score(sheet)
    assert code == 2
    assert err == (
        "Error: s.verdicts.json: cannot read the automatic verdicts: no such file; the "
        "sidecar is written beside the sheet by `replaygate calibrate export` (--verdicts "
        "names another)\n"
    )


# -- the hits log ------------------------------------------------------------------------

HIT = '{"run":"r","time":"2026-12-04T16:15:29Z","store":"s.jsonl","key":"265288aeb827"}\n'


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (
            HIT.replace("s.jsonl", "s\\u0000.jsonl").encode(),
            ": field 'store' holds a NUL character, which no path holds: 's\\x00.jsonl'",
        ),
        (
            HIT.replace("s.jsonl", "s\xe9.jsonl").encode("latin-1"),
            " (not UTF-8 text (byte 0xe9 at column 52))",
        ),
        (
            HIT.encode("utf-16-le"),
            " (not UTF-8 text (it looks like UTF-16: re-save the file as UTF-8), e.g. `iconv "
            "-f UTF-16LE -t UTF-8 .replaygate/hits/r-1.jsonl > .replaygate/hits/r-1.utf8.jsonl`, "
            "then `mv .replaygate/hits/r-1.utf8.jsonl .replaygate/hits/r-1.jsonl`)",
        ),
    ],
    ids=["a NUL in the store's name", "Latin-1", "UTF-16"],
)
@pytest.mark.parametrize("command", [("patrol", "s.jsonl"), ("prune", "--unused", "s.jsonl")])
def test_a_damaged_hits_log_line_is_named_in_words_never_a_traceback(
    tmp_path: Path, data: bytes, reason: str, command: tuple[str, ...]
) -> None:
    # A NUL in the store's name ended both in "ValueError: embedded null byte"; a line
    # that is not UTF-8 was named in orjson's words ("str is not valid UTF-8: surrogates
    # not allowed").
    (tmp_path / "s.jsonl").write_bytes(shipped_fixtures().read_bytes())
    log = tmp_path / ".replaygate" / "hits" / "r-1.jsonl"
    log.parent.mkdir(parents=True)
    log.write_bytes(data)
    done = replaygate(*command, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, ""), done
    assert done.stderr == (
        f"Error: damaged hits log: .replaygate/hits/r-1.jsonl:1: not a hits log line{reason}"
        f"{DAMAGED_HITS_FIX}\n"
    )


# -- the eval history --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("blob", "expected"),
    [
        (b"\xff\x00", "run 'r1': metrics: not UTF-8 text (invalid start byte at byte 0)"),
        (b"success", None),
    ],
    ids=["not UTF-8", "UTF-8"],
)
def test_a_blob_where_the_history_holds_text_is_read_as_its_text(
    tmp_path: Path, blob: bytes, expected: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A metric's name stored as a BLOB (sqlite3's X'...' in a hand edit) ended report,
    # history export and history merge in "TypeError: sequence item 1: expected str
    # instance, bytes found".
    # The report's plots (drawn and checked in test_report.py) are left out: the metrics
    # plot is given the metrics as read, checked for their names here.
    plotted: list[dict[str, list[float | None]]] = []
    unplot(monkeypatch, metrics_plot=lambda series, *_: plotted.append(series) or "")
    path = tmp_path / "h.db"
    with History.open(path) as history:
        history.append(run("2026-11-01T10:00:00Z", 5), run_id="r1")
    with sqlite3.connect(path) as db:
        db.execute("UPDATE metrics SET name = ? WHERE name = 'success'", (blob,))
    db.close()
    exported = replaygate("history", "export", "--history", "h.db", "--json", cwd=tmp_path)
    report = replaygate("report", "--history", "h.db", "--out", "r.html", cwd=tmp_path)
    if expected is None:
        assert (exported.returncode, exported.stderr) == (0, ""), exported
        assert json.loads(exported.stdout)["runs"][0]["metrics"]["success"] == 1.0
        assert report.returncode == 0 and "damaged" not in report.stderr, report
        (series,) = plotted
        assert series["success"] == [1.0] and all(isinstance(name, str) for name in series)
    else:
        assert (exported.returncode, exported.stdout) == (2, ""), exported
        assert exported.stderr.startswith(f"Error: h.db: {expected}; correct it in the history")
        assert report.returncode == 0, report
        assert f"note: left out of the report, damaged: {expected}" in report.stderr
        assert plotted == [{}]  # the damaged run left out of the plots too


# -- compact -----------------------------------------------------------------------------

PRIME = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 64,
    "messages": [{"role": "user", "content": "Name a prime."}],
}


def prime_answer(text: str) -> dict[str, object]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 9, "output_tokens": 1},
    }


@pytest.mark.parametrize("check", [False, True], ids=["compact", "compact --check"])
def test_a_sample_line_nulled_by_hand_is_not_folded_over_the_recorded_answer(
    tmp_path: Path, check: bool
) -> None:
    # compact folded it: sample 1's recorded answer "3" was gone from the file, and
    # verify, which named the line before, found nothing left to name.
    path = tmp_path / "p.jsonl"
    meta = make_meta("anthropic.messages", "2023-06-01", "hand")
    with FixtureStore.open(path) as store:
        store.put(Fixture.create(PRIME, [prime_answer("2")], meta))
        record_response(store, PRIME, prime_answer("3"), sample=1, meta=meta)
    lines = path.read_text().splitlines()
    nulled = {**json.loads(lines[1]), "response": None}  # a later line wins
    path.write_text("\n".join([*lines, json.dumps(nulled)]) + "\n")
    before = path.read_bytes()
    done = replaygate("compact", *(["--check"] if check else []), "p.jsonl", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, ""), done
    assert done.stderr == (
        "Error: p.jsonl:3: response is null: a sample line records a response, so this one "
        "only hides the sample it names (a hand edit?); delete the line, or re-record the "
        "sample; the file is left as it is\n"
    )
    assert path.read_bytes() == before
    path.write_text("\n".join(lines) + "\n")  # the line deleted, as the error says
    assert replaygate("compact", "p.jsonl", cwd=tmp_path).returncode == 0
    folded = json.loads(path.read_text())["responses"]
    assert [r["content"][0]["text"] for r in folded] == ["2", "3"]


# -- a model without a price -------------------------------------------------------------


@pytest.mark.parametrize("model", ['ft:acme:"v2"', "claude\\next"], ids=["quotes", "backslash"])
@pytest.mark.slow  # a real git repository
def test_the_price_entry_a_missing_price_asks_for_is_toml_naming_the_model(
    tmp_path: Path, model: str
) -> None:
    # It was the name between quotes as it is: ("ft:acme:"v2"" = ...), no TOML.
    done = replaygate(
        "eval", "--cases", str(shipped_eval_cases()), "--fixtures", str(shipped_fixtures()),
        "--agent", "replaygate.examples.research_copilot:copilot", "--no-history",
        "--model", model, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2, done
    entry = done.stderr.split("[tool.replaygate.prices] (", 1)[1].split(", per million", 1)[0]
    parsed = tomllib.loads(entry.replace("...", "1"))
    assert parsed == {model: {"input": 1, "output": 1}}


# -- a baseline reached through a symlink ------------------------------------------------


def test_an_update_through_a_linked_baseline_waits_for_one_through_its_file(
    tmp_path: Path,
) -> None:
    # Each took the lock beside the name it was given (link.json.lock, real.json.lock):
    # two updates at once, one through each name, read the same history and the one
    # written last dropped the other's entry.
    checks = [contains_check(["context"], kind="gate")]
    write_results(tmp_path / "r.json", [run_sampled(lambda i: "context", 3, 2, checks, case="c")])
    update = ("baseline", "update", "--results", "r.json", "--reason")
    assert replaygate(*update, "first", "--baseline", "real.json", cwd=tmp_path).returncode == 0
    (tmp_path / "link.json").symlink_to("real.json")
    before = (tmp_path / "real.json").read_bytes()
    done: list[int] = []
    through_link = threading.Thread(
        target=lambda: done.append(
            replaygate(*update, "second", "--baseline", "link.json", cwd=tmp_path).returncode
        )
    )
    with lock_at(tmp_path / "real.json.lock"):  # an update through real.json, writing
        through_link.start()
        through_link.join(0.1)
        assert through_link.is_alive() and (tmp_path / "real.json").read_bytes() == before
    through_link.join()
    assert done == [0] and (tmp_path / "link.json").is_symlink()
    history = json.loads((tmp_path / "real.json").read_text())["history"]
    assert [entry["reason"] for entry in history] == ["first", "second"]
