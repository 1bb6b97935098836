"""Case ids that differ only in their Unicode form (NFC in the baseline, NFD in the
results) read alike: the gate still fails on the missing one, and says why."""

from __future__ import annotations

import json
import unicodedata

import click
import pytest
from click.testing import CliRunner

from replaygate.evals import GateConfig, run_gate
from test_gate import case, reference, results

NFC = unicodedata.normalize("NFC", "café")
NFD = unicodedata.normalize("NFD", "café")


def test_ids_of_two_unicode_forms_block_and_are_named_with_their_escapes() -> None:
    # "FAIL case café is in the baseline but not in the results" beside "note case café
    # is new": the same id to the eye, twice
    baseline = reference(results(case("a", 5), case(NFC, 5)))
    now = reference(results(case("a", 5), case(NFD, 5)))
    report = run_gate(baseline, now, GateConfig())
    assert not report.passed
    forms = "(baseline caf\\u00e9, NFC; results cafe\\u0301, NFD)"
    (problem,) = report.problems
    assert problem.startswith(
        f"case {NFC} is in the baseline but not in the results as written: the results hold "
        f"case {NFD}, whose id differs from it only in its Unicode form {forms}; "
    )
    assert (
        f"case {NFD} is new (not in the baseline), though it differs from the baseline's "
        f"case {NFC} only in its Unicode form {forms}"
    ) in report.notes
    assert forms in report.text() and forms in report.markdown()


def test_ids_that_read_otherwise_are_not_said_to_differ_in_form() -> None:
    report = run_gate(
        reference(results(case("a", 5), case(NFC, 5))),
        reference(results(case("a", 5), case("cafe", 5))),
        GateConfig(),
    )
    assert not report.passed
    assert "Unicode form" not in report.text()


@pytest.mark.parametrize("shape", ["markdown", "json"])
def test_markdown_and_json_reports_are_utf8_on_a_stream_of_another_encoding(shape: str) -> None:
    # PYTHONIOENCODING=latin-1 wrote "é" as the byte 0xe9 in a pull-request comment and in
    # the JSON, where a program and GitHub read UTF-8
    from replaygate.cli.gate_cmds import _print

    baseline = reference(results(case("a", 5), case(NFC, 5)))
    report = run_gate(baseline, reference(results(case("a", 5), case(NFD, 5))), GateConfig())
    done = CliRunner(charset="latin-1").invoke(click.command()(lambda: _print(report, shape)))
    assert done.exit_code == 0, done.output
    text = done.stdout_bytes.decode("utf-8")
    assert f"case {NFC} is in the baseline" in (
        text if shape == "markdown" else str(json.loads(text))
    )
