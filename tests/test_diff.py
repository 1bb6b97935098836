"""Field-by-field differences between a recorded and a requested JSON value."""

from __future__ import annotations

import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from replaygate.fixtures.diff import (
    ALIGNED_AT_MOST,
    MISSING,
    FieldDifference,
    field_diff,
    short_repr,
)
from unicode_text import unicode_text


def rendered(left: object, right: object) -> list[str]:
    return [d.render() for d in field_diff(left, right)]


def test_equal_values_have_no_differences() -> None:
    value = {"a": [1, {"b": "什么是 RAG？"}], "c": None}
    assert field_diff(value, {"c": None, "a": [1, {"b": "什么是 RAG？"}]}) == []


def test_nested_paths_name_keys_and_indexes() -> None:
    left = {"messages": [{"content": [{"type": "text", "text": "What is RAG?"}]}]}
    right = {"messages": [{"content": [{"type": "text", "text": "RAG, what is it?"}]}]}
    assert rendered(left, right) == [
        "messages[0].content[0].text: 'What is RAG?' != 'RAG, what is it?'"
    ]


def test_a_key_that_is_no_plain_name_is_one_quoted_step() -> None:
    # "a.b" read as two steps, and a newline in a key split the line of its difference
    # (an ALARM of `replaygate diff`, a row of its markdown table)
    left = {"p": {"a.b": 1, "x\ny": 1, "": 1, "城市": 1, "content-type": 1}}
    right = {"p": {"a.b": 2, "x\ny": 2, "": 2, "城市": 2, "content-type": 2}}
    assert [d.path for d in field_diff(left, right)] == [
        'p["a.b"]',
        'p["x\\ny"]',
        'p[""]',
        "p.城市",
        "p.content-type",
    ]


def test_non_ascii_values_are_shown_as_they_are() -> None:
    assert rendered({"t": "什么是 RAG？"}, {"t": "RAG 是什么？"}) == [
        "t: '什么是 RAG？' != 'RAG 是什么？'"
    ]


def test_missing_sides_and_order() -> None:
    left = {"model": "m", "system": "s", "tools": [1, 2]}
    right = {"model": "m", "tools": [1], "temperature": 0}
    assert field_diff(left, right) == [
        FieldDifference("system", "s", MISSING),
        FieldDifference("tools[1]", 2, MISSING),
        FieldDifference("temperature", MISSING, 0),
    ]
    assert rendered(left, right) == [
        "system: 's' != <missing>",
        "tools[1]: 2 != <missing>",
        "temperature: <missing> != 0",
    ]


def test_a_changed_type_is_one_difference_at_that_path() -> None:
    assert rendered({"a": {"b": 1}}, {"a": [1]}) == ["a: {'b': 1} != [1]"]
    assert rendered({"a": 1}, {"a": 1.0}) == ["a: 1 != 1.0"]
    assert rendered({"a": 1}, {"a": True}) == ["a: 1 != True"]


def test_an_empty_object_that_became_an_empty_list_in_a_longer_list_is_named() -> None:
    # lists of two lengths are aligned on their equal items: {} and [] were taken as equal
    assert rendered({"m": [{}]}, {"m": [[], "x"]}) == ["m[0]: {} != []", "m[1]: <missing> != 'x'"]


def test_root_difference_is_named_root() -> None:
    assert rendered("x", "y") == ["<root>: 'x' != 'y'"]


def test_long_values_are_truncated() -> None:
    long = "x" * 500
    line = FieldDifference("p", long, "short").render(limit=20)
    assert line == "p: at offset 0 (lengths 500, 5): 'xxxxxxxxxx'... != 'short'"
    assert FieldDifference("p", {"k": long}, 1).render(limit=20) == "p: {'k': 'xxxxxxxxxx... != 1"
    assert short_repr(long, 20) == "'xxxxxxxxxxxxxxxx..."
    assert len(short_repr(long, 20)) == 20
    assert short_repr("ok", 20) == "'ok'"
    assert short_repr(MISSING) == "<missing>"
    default = FieldDifference("p", long, 1).render()
    assert len(default) < 100


@given(
    text=unicode_text(min_size=100, max_size=1200),
    where=st.sampled_from(["start", "middle", "end"]),
    edit=unicode_text(min_size=1, max_size=5),
    limit=st.integers(min_value=20, max_value=80),
)
def test_a_long_string_shows_its_first_difference_and_offset(
    text: str, where: str, edit: str, limit: int
) -> None:
    at = {"start": 0, "middle": len(text) // 2, "end": len(text)}[where]
    edited = text[:at] + edit + text[at:]
    if edited == text:
        return
    offset = next(
        (i for i, (a, b) in enumerate(zip(text, edited, strict=False)) if a != b), len(text)
    )
    line = FieldDifference("system", text, edited).render(limit)
    assert line.startswith(f"system: at offset {offset} (lengths {len(text)}, {len(edited)}): ")
    shown = line.split(": ", 2)[2].split(" (escaped from offset ")[0]  # and escaped, if alike
    recorded, requested = shown.split(" != ")
    assert recorded != requested  # the windows show the change
    assert repr(edited[offset])[1:-1] in requested
    assert len(recorded) <= 10 * limit + 10  # a window, not the whole text


@given(items=st.lists(st.integers(), min_size=1, max_size=300), data=st.data())
def test_a_list_shows_its_first_differing_index(items: list[int], data: st.DataObject) -> None:
    at = data.draw(st.integers(min_value=0, max_value=len(items) - 1))
    edited = [*items[:at], items[at] + 1, *items[at + 1 :]]
    line = FieldDifference("tools", items, edited).render()
    size = len(items)
    assert line == f"tools: at index {at} (lengths {size}, {size}): {items[at]} != {items[at] + 1}"
    shorter = FieldDifference("tools", items, items[:at]).render()
    assert shorter.startswith(f"tools: at index {at} (lengths {size}, {at}): ")


def test_lists_show_their_first_differing_index() -> None:
    assert FieldDifference("tools", [1, 2, 3], [1, 2]).render() == (
        "tools: at index 2 (lengths 3, 2): 3 != <missing>"
    )
    assert FieldDifference("m", ["a", "b"], ["a", "c", "d"]).render() == (
        "m: at index 1 (lengths 2, 3): 'b' != 'c'"
    )
    assert FieldDifference("m", [1], [True]).render() == "m: at index 0 (lengths 1, 1): 1 != True"


def test_a_mismatch_names_the_offset_of_an_edit_in_a_long_prompt() -> None:
    prompt = "You are careful. " * 200
    edited = prompt[:1700] + "NOT " + prompt[1700:]
    (line,) = rendered({"system": prompt}, {"system": edited})
    assert line.startswith("system: at offset 1700 (lengths 3400, 3404): ")
    assert "NOT" in line.split(" != ")[1] and "NOT" not in line.split(" != ")[0]


def test_a_message_inserted_or_removed_is_one_difference_not_a_shift() -> None:
    asked = [{"role": "user", "content": f"question {i}"} for i in range(4)]
    system = {"role": "system", "content": "be brief"}
    assert rendered({"messages": asked}, {"messages": [system, *asked]}) == [
        "messages[0]: <missing> != {'role': 'system', 'content': 'be brief'}"
    ]
    assert rendered({"messages": asked}, {"messages": asked[:1] + asked[2:]}) == [
        "messages[1]: {'role': 'user', 'content': 'question 1'} != <missing>"
    ]
    edited = [*asked[:2], {"role": "user", "content": "Question 2"}, asked[3], asked[0]]
    assert rendered({"messages": asked}, {"messages": edited}) == [
        "messages[2].content: 'question 2' != 'Question 2'",
        "messages[4]: <missing> != {'role': 'user', 'content': 'question 0'}",
    ]


def test_lists_of_different_lengths_align_only_on_the_same_json_values() -> None:
    # 1, 1.0 and True are three values: none is taken for another when aligning
    assert rendered([1, 2], [1.0, 2, 3]) == ["[0]: 1 != 1.0", "[2]: <missing> != 3"]
    assert rendered([True, 0.0], [1, -0.0, 5]) == ["[0]: True != 1", "[1]: 0.0 != -0.0",
                                                   "[2]: <missing> != 5"]  # fmt: skip


@given(
    items=st.lists(unicode_text(max_size=3), max_size=30),
    inserted=unicode_text(max_size=3),
    data=st.data(),
)
def test_one_item_inserted_anywhere_is_one_difference(
    items: list[str], inserted: str, data: st.DataObject
) -> None:
    at = data.draw(st.integers(0, len(items)))
    longer = [*items[:at], inserted, *items[at:]]
    (difference,) = field_diff(items, longer)
    assert difference.left is MISSING and difference.right == inserted
    index = int(difference.path.strip("[]"))
    assert longer[:index] + longer[index + 1 :] == items  # removing it gives the list back


def test_a_long_list_aligns_past_its_common_start_and_end() -> None:
    items = list(range(5000))
    longer = [*items[:2500], -1, *items[2500:]]
    assert rendered(items, longer) == ["[2500]: <missing> != -1"]


def test_lists_left_different_over_many_items_are_compared_position_by_position() -> None:
    # aligning is quadratic: past ALIGNED_AT_MOST items left it is not tried
    left, right = list(range(ALIGNED_AT_MOST + 1)), list(range(1000, 1002 + ALIGNED_AT_MOST))
    differences = field_diff(left, right)
    assert [d.path for d in differences] == [f"[{i}]" for i in range(len(right))]
    assert differences[0] == FieldDifference("[0]", 0, 1000)


@pytest.mark.parametrize("at", [0, 4095, 4096, 4097, 9001])
@pytest.mark.parametrize("end", [0, 4096])
def test_a_long_strings_shared_start_and_end_are_found_across_blocks(at: int, end: int) -> None:
    text = "".join(chr(97 + i % 26) for i in range(9002 + end))
    edited = text[:at] + "\u0430" + text[at + 1 :]  # a Cyrillic letter for a Latin one
    line = FieldDifference("system", text, edited).render()
    assert line.startswith(f"system: at offset {at} (lengths {len(text)}, {len(edited)}): ")
    assert line.endswith(f"(escaped from offset {at}: {text[at]!r} != '\\u0430')")


def test_a_miss_in_a_document_of_megabytes_is_told_at_once() -> None:
    """A PDF of 3 MB in base64, one letter changed: shown without reading it a character
    at a time in Python (seconds, where a block at a time takes milliseconds)."""
    document = "JVBERi0xLjcK" + "QUJDRA" * 500_000
    edited = document[:2_000_000] + "x" + document[2_000_001:]
    started = time.process_time()
    line = FieldDifference("source.data", document, edited).render()
    assert time.process_time() - started < 0.5
    assert line.startswith("source.data: at offset 2000000 (lengths 3000012, 3000012): ")


def test_a_mark_inserted_in_a_run_of_one_letter_is_cut_from_both_ends_once() -> None:
    line = FieldDifference("p", "a" * 10_000, "a" * 5_000 + "\u0301" + "a" * 5_000).render()
    assert line.startswith("p: at offset 5000 (lengths 10000, 10001): ")
    assert line.endswith("(escaped from offset 5000: '' != '\\u0301')")
