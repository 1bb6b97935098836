"""Field-by-field differences between a recorded and a requested JSON value."""

from __future__ import annotations

from replaygate.fixtures.diff import MISSING, FieldDifference, field_diff, short_repr


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


def test_root_difference_is_named_root() -> None:
    assert rendered("x", "y") == ["<root>: 'x' != 'y'"]


def test_long_values_are_truncated() -> None:
    long = "x" * 500
    line = FieldDifference("p", long, "short").render(limit=20)
    assert line == "p: 'xxxxxxxxxxxxxxxx... != 'short'"
    assert short_repr(long, 20) == "'xxxxxxxxxxxxxxxx..."
    assert len(short_repr(long, 20)) == 20
    assert short_repr("ok", 20) == "'ok'"
    assert short_repr(MISSING) == "<missing>"
    default = FieldDifference("p", long, 1).render()
    assert len(default) < 100
