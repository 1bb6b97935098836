"""Containment and citations over text in many scripts: Turkish case, Arabic direction
marks and vowel marks, Devanagari vowel signs."""

from __future__ import annotations

import re

import pytest

from replaygate.assertions import (
    JudgeReplyError,
    assert_contains,
    extract_citations,
    measure_contains,
)
from replaygate.assertions.judge_prompt import parse_grade
from replaygate.evals.cases import citable
from replaygate.evals.giveups import KEPT, SHOWN, GaveUp
from replaygate.unicode_forms import cut


@pytest.mark.parametrize(
    ("text", "piece"),
    [
        ("İSTANBUL güzel", "istanbul"),  # the dotted İ is i, not i and a combining dot
        ("istanbul güzel", "İstanbul"),
        ("I\u0307STANBUL", "istanbul"),  # İ written decomposed
        ("STRASSE", "Straße"),
        ("\u200fمرحبا\u200f بالعالم", "مرحبا بالعالم"),  # right-to-left marks after words
        ("\u2067مرحبا\u2069 بالعالم", "مرحبا بالعالم"),  # an isolate around a word
        ("rag\u200bbasics", "ragbasics"),
    ],
)
def test_text_holds_what_it_shows(text: str, piece: str) -> None:
    assert_contains(text, [piece])


@pytest.mark.parametrize(
    ("text", "piece"),
    [
        ("DİYARBAKIR", "Diyarbakır"),  # the dotless ı is a letter of its own
        ("kirmak", "kırmak"),
        ("السعر ١٢٣", "123"),
        ("👨\u200c👩", "👨\u200d👩"),  # the joiners are kept
    ],
)
def test_text_does_not_hold_another_letter(text: str, piece: str) -> None:
    assert not measure_contains(text, [piece]).passed


def test_case_kept_when_asked() -> None:
    assert not measure_contains("İSTANBUL", ["istanbul"], ignore_case=False).passed


@pytest.mark.parametrize("doc_id", ["doc-عَرَبِيّ", "doc-हिन्दी", "doc-ก่", "doc-ラグ", "doc-cafe\u0301"])
def test_an_id_with_combining_marks_is_cited_whole(doc_id: str) -> None:
    assert citable(doc_id)
    cited = extract_citations(f"answer [{doc_id}], and [see above].")
    assert len(cited) == 1 and cited[0] in {doc_id, "doc-café"}


def test_a_mark_does_not_start_an_id() -> None:
    assert extract_citations("[\u0301doc] [_doc] [doc-]") == ()


@pytest.mark.parametrize(
    "text",
    [
        "[doc-a、doc-b]",  # the ideographic comma
        "[doc-a، doc-b]",  # the Arabic comma
        "[doc-a؛ doc-b]",  # the Arabic semicolon
        "\u200f[doc-a\u200f, doc-b\u200f]",  # right-to-left marks inside the bracket
    ],
)
def test_ids_of_an_answer_in_another_script(text: str) -> None:
    assert extract_citations(text) == ("doc-a", "doc-b")


def test_a_grade_line_among_direction_marks_is_read() -> None:
    assert parse_grade("\u062c\u064a\u062f\n\u200fGRADE: 4\u200f", (1, 5)) == 4


@pytest.mark.parametrize("line", ["GRADE: ５", "ＧＲＡＤＥ： 5", "GRADE: ٥"])
def test_a_grade_in_other_digits_is_named(line: str) -> None:
    with pytest.raises(JudgeReplyError, match=f"its line '{line}' writes it in other characters"):
        parse_grade(f"good\n{line}", (1, 5))


def test_a_grade_line_followed_by_one_that_reads_as_a_grade_grades_nothing() -> None:
    # the judge revised its grade on a line of another shape: 3 was read, silently
    with pytest.raises(JudgeReplyError, match="goes on after its last 'GRADE: n' line 'GRADE: 3'"):
        parse_grade("GRADE: 3\nOn reflection, it cites.\n**GRADE: 5**", (1, 5))
    assert parse_grade("GRADE: 4\nThanks.", (1, 5)) == 4


def test_a_reply_without_a_grade_line_says_only_that() -> None:
    with pytest.raises(JudgeReplyError, match=r"no 'GRADE: n' line, so nothing was graded"):
        parse_grade("good\nfour of five", (1, 5))


@pytest.mark.parametrize("line", ["**GRADE: 5**", "grade: 4", "GRADE: 4/5", "GRADE: 5 (good)"])
def test_a_line_that_looks_like_a_grade_is_named(line: str) -> None:
    with pytest.raises(JudgeReplyError, match=re.escape(f"its line '{line}' is not one")):
        parse_grade(f"good\n{line}", (1, 5))


@pytest.mark.parametrize(
    ("text", "limit", "start"),
    [
        ("cafe\u0301", 4, "caf"),  # the accent stays with its letter
        ("ab🇩🇪🇫🇷", 3, "ab"),  # a flag is two characters
        ("ab🇩🇪🇫🇷", 5, "ab🇩🇪"),
        ("x👨\u200d👩\u200d👧", 3, "x"),  # a family, joined by U+200D
        ("x👍🏽y", 2, "x"),  # a skin tone
        ("abc", 2, "ab"),
        ("abc", 5, "abc"),
    ],
)
def test_a_text_is_cut_between_what_a_reader_sees_apart(text: str, limit: int, start: str) -> None:
    assert cut(text, limit) == start


def test_a_long_answer_is_shown_cut_before_an_accent() -> None:
    message = measure_contains("a" * 153 + "cafe\u0301" + "b" * 10, ["thé"]).message
    assert message.endswith("a" * 153 + "caf...'")


def test_a_give_up_is_cut_before_an_accent() -> None:
    error = "GiveUp: " + "a" * (SHOWN - 12) + "cafe\u0301" + "b" * 400
    assert GaveUp(1, 1, error).words().endswith("caf...")
    assert GaveUp(1, 1, "a" * (KEPT - 4) + "cafe\u0301 " * 9).to_json()["error"].endswith("caf...")
