"""Human calibration of the automatic assertions on sampled results (never a gate).

:func:`export_sheet` draws outputs at random from a results file and writes a CSV
labelling sheet, one row per (output, assertion), with the automatic verdicts kept
out of it in a sidecar JSON file. A person fills the ``label`` column with ``pass``
or ``fail``; :func:`score_sheet` then reports, per assertion, how often the automatic
verdict agrees with the person (accuracy) and Cohen's kappa (agreement beyond chance).
"""

from __future__ import annotations

import csv
import io
import json
import os
import random
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from replaygate.errors import (
    ReplaygateError,
    located,
    shown_file,
    undecodable_byte,
    wide_text_of,
)
from replaygate.jsondoc import FieldError, check_document, got, read_json
from replaygate.jsonfields import (
    count,
    each,
    escape_surrogates,
    fields_of,
    mapping,
    present,
    text_field,
)
from replaygate.outputs import write_text
from replaygate.regular import read_regular_text
from replaygate.sampling.results import (
    SampledResult,
    SampleResult,
    load_results,
)
from replaygate.strict_json import plain_loads
from replaygate.unicode_forms import cut

SIDECAR_FORMAT = "replaygate.calibration"
COLUMNS = ("item", "case", "sample", "assertion", "kind", "checks", "output", "label")
PASS_LABELS = frozenset({"pass", "p", "yes", "y", "1", "true", "ok"})
FAIL_LABELS = frozenset({"fail", "f", "no", "n", "0", "false"})
CELL_LIMIT = 32_767
"""The most characters a spreadsheet's cell holds (Excel's limit; LibreOffice's is larger)."""
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""How a cell a spreadsheet runs as a formula when it opens a CSV file begins."""


class CalibrationError(ReplaygateError):
    """A labelling sheet or its sidecar cannot be read or does not match."""


def sidecar_path(sheet: str | os.PathLike[str]) -> Path:
    """Where the automatic verdicts of ``sheet`` are kept: ``<sheet stem>.verdicts.json``."""
    path = Path(sheet)
    return path.with_name(path.stem + ".verdicts.json")


def cohen_kappa(pairs: Sequence[tuple[bool, bool]]) -> float | None:
    """Cohen's kappa of two raters' pass/fail labels; ``None`` when it is undefined
    (no pairs, or both raters always gave one and the same label)."""
    if not pairs:
        return None
    total = len(pairs)
    observed = sum(1 for a, b in pairs if a == b) / total
    a_pass = sum(1 for a, _ in pairs if a) / total
    b_pass = sum(1 for _, b in pairs if b) / total
    expected = a_pass * b_pass + (1 - a_pass) * (1 - b_pass)
    if expected == 1:
        return None
    return (observed - expected) / (1 - expected)


def _output_text(output: Any) -> str:
    """The output a person reads: text as it is, anything else as JSON; half of a
    surrogate pair (not valid text) written as its escape ``\\ud800``. An output longer
    than a spreadsheet's cell holds is cut, saying so (a spreadsheet would cut or split
    it, and a cell beyond ``csv``'s field limit could not be read back), between two
    characters a reader sees apart."""
    text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
    text = escape_surrogates(text)
    if len(text) <= CELL_LIMIT:
        return text
    kept = cut(text, CELL_LIMIT - 80)  # no flag or accent cut in two
    more = len(text) - len(kept)
    return f"{kept} [... cut: {more:,} more characters, in the results file]"


def as_cell(text: str) -> str:
    """``text`` as a sheet's cell: one a spreadsheet would run as a formula
    (:data:`FORMULA_STARTS`: a model's output ``=HYPERLINK(...)``) behind an apostrophe,
    which makes the spreadsheet show it as text."""
    return f"'{text}" if text.startswith(FORMULA_STARTS) else text


def from_cell(text: str) -> str:
    """The text of a cell :func:`as_cell` wrote, read back with or without its apostrophe
    (a spreadsheet saves the cell without it)."""
    return text[1:] if text.startswith("'") and text[1:].startswith(FORMULA_STARTS) else text


def _reader(handle: io.StringIO, text: str) -> csv.DictReader[str]:
    """The rows of the sheet ``text``, cells split at commas, or at the semicolons or tabs
    of a header so split (a spreadsheet's CSV in a locale whose decimal mark is a comma)."""
    header = re.split(r"\r\n?|\n", text, maxsplit=1)[0]  # lines ended as csv ends them
    delimiter = next(
        (d for d in ";\t" if tuple(next(csv.reader([header], delimiter=d), ())) == COLUMNS), ","
    )
    return csv.DictReader(handle, delimiter=delimiter)


_AWAY = "export to another file, or move it away first (nothing was written)"


def _existing_text(path: Path) -> str | None:
    """The text of the file at ``path``; ``None`` when there is none to keep (no file, an
    empty one, or one the write itself will name: a folder, an unreadable file)."""
    try:
        text = read_regular_text(path).removeprefix("\ufeff")
    except UnicodeDecodeError:
        raise CalibrationError(f"{path}: is not a calibration sheet; {_AWAY}") from None
    except OSError:
        return None
    return text if text.strip() else None


def _refuse_labelled(sheet: Path) -> None:
    """Refuse to write over a file that is no calibration sheet (a test module, a results
    file) or a sheet that holds a person's labels (their work would be lost)."""
    text = _existing_text(sheet)
    if text is None:
        return
    with io.StringIO(text, newline="") as handle:
        try:
            reader = _reader(handle, text)
            if tuple(reader.fieldnames or ()) != COLUMNS:
                raise CalibrationError(
                    f"{sheet}: is not a calibration sheet (its first line is not "
                    f"{','.join(COLUMNS)}); {_AWAY}"
                )
            labelled = sum(bool((row.get("label") or "").strip()) for row in reader)
        except csv.Error:
            raise CalibrationError(f"{sheet}: is not a calibration sheet; {_AWAY}") from None
    if labelled:
        raise CalibrationError(f"{sheet}: holds {labelled} label(s) already; {_AWAY}")


def _refuse_foreign_sidecar(side: Path) -> None:
    """Refuse to write the verdicts over a file that holds no calibration verdicts."""
    text = _existing_text(side)
    if text is None:
        return
    try:
        document = plain_loads(text)
    except (ValueError, RecursionError):
        document = None
    if not isinstance(document, dict) or document.get("format") != SIDECAR_FORMAT:
        raise CalibrationError(
            f"{side}: holds no calibration verdicts (format {SIDECAR_FORMAT}); {_AWAY}"
        )


class Exported(NamedTuple):
    """What :func:`export_sheet` wrote: the sheet, its sidecar, their rows (one per
    assertion of each output drawn), the outputs drawn and how many the results held."""

    sheet: Path
    sidecar: Path
    rows: int
    outputs: int
    available: int


def export_sheet(
    results: str | os.PathLike[str], sheet: str | os.PathLike[str], *, n: int, seed: int
) -> Exported:
    """Draw ``n`` outputs (seeded) from ``results``, all of them when it holds fewer;
    write the sheet and its sidecar, each row with the output its assertion looked at. A
    sheet that holds labels already is never written over (:class:`CalibrationError`).
    """
    if n < 1:
        raise CalibrationError(f"--n must be at least 1, got {n}")
    target = Path(sheet)
    _refuse_labelled(target)
    _refuse_foreign_sidecar(sidecar_path(target))
    cases = load_results(results)
    population: list[tuple[SampledResult, SampleResult]] = [
        (case, sample) for case in cases for sample in case.samples if sample.outcomes
    ]
    if not population:
        raise CalibrationError(f"{results}: no sample with evaluated assertions to label")
    drawn = random.Random(seed).sample(population, min(n, len(population)))
    rows: list[dict[str, Any]] = []
    verdicts: dict[str, dict[str, Any]] = {}
    for case, sample in drawn:
        for position, outcome in enumerate(sample.outcomes):
            item = str(len(rows) + 1)
            rows.append(
                {
                    "item": item,
                    "case": as_cell(case.case),
                    "sample": sample.index,
                    "assertion": as_cell(outcome.name),
                    "kind": outcome.kind,
                    "checks": as_cell(case.descriptions.get(outcome.name, "")),
                    "output": as_cell(_output_text(sample.output_of(position))),
                    "label": "",
                }
            )
            verdicts[item] = {
                "case": case.case,
                "sample": sample.index,
                "assertion": outcome.name,
                "automatic": "pass" if outcome.passed else "fail",
            }
    target.parent.mkdir(parents=True, exist_ok=True)
    with io.StringIO(newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
        write_text(target, handle.getvalue())  # whole or not at all: never a cut-short sheet
    side = sidecar_path(target)
    document = {
        "format": SIDECAR_FORMAT,
        "version": 1,
        "results": escape_surrogates(str(results)),  # a name that is not UTF-8: its escape
        "seed": seed,
        "n": n,
        "items": verdicts,
    }
    write_text(side, json.dumps(document, ensure_ascii=False, indent=2) + "\n")
    return Exported(target, side, len(rows), len(drawn), len(population))


@dataclass(frozen=True)
class Agreement:
    """Human labels against automatic verdicts for one assertion."""

    assertion: str
    pairs: tuple[tuple[bool, bool], ...]
    unlabelled: int

    @property
    def labelled(self) -> int:
        """Rows a person labelled."""
        return len(self.pairs)

    @property
    def accuracy(self) -> float | None:
        """Share of labelled rows where the automatic verdict equals the human label."""
        return sum(1 for h, a in self.pairs if h == a) / len(self.pairs) if self.pairs else None

    @property
    def kappa(self) -> float | None:
        """Cohen's kappa (``None`` when undefined)."""
        return cohen_kappa(self.pairs)


def parse_label(text: str, where: str) -> bool | None:
    """``True`` for pass, ``False`` for fail, ``None`` for an empty cell."""
    label = text.strip().casefold()
    if not label:
        return None
    if label in PASS_LABELS:
        return True
    if label in FAIL_LABELS:
        return False
    raise CalibrationError(f"{where}: label {text!r} is neither pass nor fail (or empty)")


def _not_utf8(sheet: Path, err: UnicodeDecodeError) -> str:
    """Where and why ``sheet`` is not UTF-8 text, as the fixture store says it: UTF-32
    or UTF-16, or the line and column of the first byte that is not UTF-8."""
    wide = wide_text_of(err.object[:4096])
    if wide is not None:
        return f"{sheet}: {wide}"
    line, reason = undecodable_byte(err.object, err.start)
    return f"{located(str(sheet), line)}: {reason}"


def _verdict(item: str, entry: Any) -> tuple[str, dict[str, Any]]:
    """One item of the sidecar: what the sheet's row must name, and the automatic verdict
    (a hand edit such as ``"automatic": true`` would be scored as a fail)."""
    entry = mapping(entry)
    text_field(entry, "case")
    text_field(entry, "assertion")
    count(entry, "sample", 0)
    automatic = present(entry, "automatic", "'pass' or 'fail'")
    if automatic not in ("pass", "fail"):
        raise FieldError("automatic", f"must be 'pass' or 'fail', got {got(automatic)}")
    return item, entry


def _read_sidecar(path: Path) -> dict[str, dict[str, Any]]:
    """The items of the sidecar at ``path``, each checked: a key named twice, a wrong type
    deep inside or another version is refused with the field's path, never scored."""
    if not os.path.lexists(path):
        raise CalibrationError(
            f"{shown_file(str(path))}: cannot read the automatic verdicts: no such file; "
            "the sidecar is written beside the sheet by `replaygate calibrate export` "
            "(--verdicts names another)"
        )
    name = shown_file(str(path))
    document = check_document(
        read_json(path, "the automatic verdicts", CalibrationError),
        name,
        format=SIDECAR_FORMAT,
        version=1,
        what="a calibration sidecar",
        error=CalibrationError,
    )
    with fields_of(name, CalibrationError):
        return dict(each(document, "items", _verdict, key="item"))


def _check_row(row: dict[Any, Any], columns: int, where: str, seen: dict[str, str]) -> None:
    """A row of the sheet has as many cells as its header, empty cells after them apart (a
    cut or shifted row would put another cell in the label column), and names an item no
    row before it named."""
    cells = sum(value is not None for key, value in row.items() if key is not None)
    extra = [cell for cell in row.get(None) or [] if cell.strip()]  # empty ones: padding
    if cells != columns or extra:
        raise CalibrationError(
            f"{where}: the row has {cells + len(extra)} cells, the header {columns}: was it "
            "cut short, or a comma typed outside quotes?"
        )
    if row["item"] in seen:
        raise CalibrationError(
            f"{where}: item {row['item']!r} again (first at {seen[row['item']]})"
        )
    seen[row["item"]] = where


def score_sheet(
    sheet: str | os.PathLike[str], sidecar: str | os.PathLike[str] | None = None
) -> list[Agreement]:
    """Per assertion (first-seen order): the human labels against the automatic verdicts."""
    sheet_path = Path(sheet)
    sidecar_file = Path(sidecar) if sidecar else sidecar_path(sheet_path)
    try:  # the sheet first: one that is no file is said to be so, not its sidecar missing
        # A spreadsheet saving as "CSV UTF-8" starts the file with a byte order mark.
        text = read_regular_text(sheet_path).removeprefix("\ufeff")
    except OSError as err:
        raise CalibrationError(f"{sheet_path}: cannot read the sheet: {err.strerror}") from None
    except UnicodeDecodeError as err:  # a spreadsheet's "CSV" (Windows-1252) or "Unicode Text"
        raise CalibrationError(
            f"{_not_utf8(sheet_path, err)}: save the sheet as CSV UTF-8"
        ) from None
    items = _read_sidecar(sidecar_file)
    with io.StringIO(text, newline="") as handle:
        reader = _reader(handle, text)
        try:
            pairs, unlabelled, seen = _labelled_rows(reader, sheet_path, items)
        except csv.Error as err:  # a cell beyond the field limit (131,072 characters)
            raise CalibrationError(
                f"{sheet_path}:{reader.reader.line_num}: not a CSV row this reader takes: {err}"
            ) from None
    rowless = [item for item in items if item not in seen]
    if rowless:
        raise CalibrationError(
            f"{sheet_path}: no row for {_spans(rowless)} of {sidecar_file}: the agreement "
            "would be over fewer rows than were drawn; restore the rows (one with an empty "
            "label counts as unlabelled)"
        )
    return [Agreement(name, tuple(p), unlabelled[name]) for name, p in pairs.items()]


def _labelled_rows(
    reader: csv.DictReader[str], sheet_path: Path, items: dict[str, dict[str, Any]]
) -> tuple[dict[str, list[tuple[bool, bool]]], dict[str, int], dict[str, str]]:
    """Per assertion, the (human, automatic) pairs and the unlabelled rows; and the items
    the sheet's rows named, with where."""
    missing = sorted(set(COLUMNS) - set(reader.fieldnames or ()))
    if missing:
        raise CalibrationError(f"{sheet_path}: missing column(s) {', '.join(missing)}")
    pairs: dict[str, list[tuple[bool, bool]]] = {}
    unlabelled: dict[str, int] = {}
    seen: dict[str, str] = {}
    for row in reader:
        where = f"{sheet_path}:{reader.line_num}"
        _check_row(row, len(reader.fieldnames or ()), where, seen)
        expected = items.get(row["item"])
        if expected is None:
            raise CalibrationError(f"{where}: item {row['item']!r} is not in the sidecar")
        differs = _differences(row, expected)
        if differs:
            raise CalibrationError(
                f"{where}: item {row['item']} does not match the sidecar "
                f"({expected['case']} sample {expected['sample']} {expected['assertion']}): "
                f"{'; '.join(differs)}; was the sheet edited beyond its label column?"
            )
        name = expected["assertion"]
        pairs.setdefault(name, [])
        unlabelled.setdefault(name, 0)
        human = parse_label(row["label"] or "", where)
        if human is None:
            unlabelled[name] += 1
        else:
            pairs[name].append((human, expected["automatic"] == "pass"))
    return pairs, unlabelled, seen


def _differences(row: dict[str, str], expected: dict[str, Any]) -> list[str]:
    """What a sheet's row says otherwise than its item in the sidecar, a column each. A
    text in another Unicode form (``é`` saved by a spreadsheet as ``e`` and a combining
    accent, NFD) says the same: the item, not its spelling, names the verdict."""
    said = []
    for column in ("case", "sample", "assertion"):
        mine = row[column] if column == "sample" else from_cell(row[column])
        theirs = str(expected[column])
        if unicodedata.normalize("NFC", mine) != unicodedata.normalize("NFC", theirs):
            said.append(f"its {column} is {mine!r}, the sidecar's {theirs!r}")
    return said


def _spans(items: Sequence[str]) -> str:
    """``item 4`` or ``items 2, 4..10``: the sidecar's items (numbered as export numbers
    them, in its order), runs of consecutive numbers written as one span."""
    spans: list[list[str]] = []
    for item in items:
        last = spans[-1][-1] if spans else ""
        if item.isdigit() and last.isdigit() and int(item) == int(last) + 1:
            spans[-1][1:] = [item]
        else:
            spans.append([item])
    named = ", ".join("..".join(span) for span in spans)
    return f"item {named}" if len(items) == 1 else f"items {named}"


def format_agreements(agreements: Sequence[Agreement]) -> list[str]:
    """A table: assertion, labelled rows, accuracy, Cohen's kappa, unlabelled rows."""

    def number(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.2f}"

    width = max([len("assertion"), *(len(a.assertion) for a in agreements)])
    lines = [f"{'assertion':<{width}}  labelled  accuracy  kappa  unlabelled"]
    for a in agreements:
        lines.append(
            f"{a.assertion:<{width}}  {a.labelled:>8}  {number(a.accuracy):>8}  "
            f"{number(a.kappa):>5}  {a.unlabelled:>10}"
        )
    if any(a.labelled and a.kappa is None for a in agreements):
        lines.append("kappa n/a: both raters gave one and the same label; label more varied rows")
    return lines
