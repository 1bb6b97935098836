"""``replaygate diff`` over two stores that each hold the same request with answers of
their own (two tests that asked the same question): each fixture is compared with its
own store's, so renaming both stores, or a change to one of them, is no answer changed."""

from __future__ import annotations

from replaygate.fixtures.fixture import Fixture, make_meta
from replaygate.hygiene.review import review
from replaygate.hygiene.snapshot import Side

META = make_meta("anthropic.messages", "2023-06-01", "sim")


def line(question: str, answer: str) -> bytes:
    request = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": question}]}
    response = {"type": "message", "content": [{"type": "text", "text": answer}]}
    return Fixture.create(request, [response], META).to_line()


def side(label: str, files: dict[str, bytes]) -> Side:
    return Side(
        label, {n: str(hash(d)) for n, d in files.items()}, lambda ps: {p: files[p] for p in ps}
    )


A, B = line("What is RAG?", "from a"), line("What is RAG?", "from b")
BASE = side("main", {"s/a.jsonl": A, "s/b.jsonl": B})


def test_two_stores_renamed_together_raise_no_alarm() -> None:
    head = side("working tree", {"s/z.jsonl": A, "s/c.jsonl": B})
    moved = [("s/a.jsonl", "s/z.jsonl", 100), ("s/b.jsonl", "s/c.jsonl", 100)]
    result = review(BASE, head, "s", moved)
    # c.jsonl's answer was compared with a.jsonl's: two ALARMs for a rename
    assert not result.alarms and not result.meta_changed, result.alarms
    assert [(r.old, r.new) for r in result.renamed] == [
        ("s/b.jsonl", "s/c.jsonl"),
        ("s/a.jsonl", "s/z.jsonl"),
    ]


def test_a_fixture_removed_from_one_store_is_removed_there() -> None:
    head = side("working tree", {"s/a.jsonl": b"", "s/b.jsonl": B + line("Why?", "b")})
    result = review(BASE, head, "s")
    assert not result.alarms
    assert [str(e) for e in result.removed] == ["s/a.jsonl:1"]
    assert [str(e) for e in result.added] == ["s/b.jsonl:2"]


def test_a_fixture_moved_to_another_store_is_compared_with_where_it_was() -> None:
    other = line("Why?", "b")
    base = side("main", {"s/a.jsonl": A, "s/b.jsonl": other})
    head = side("working tree", {"s/a.jsonl": b"", "s/b.jsonl": other + line("What is RAG?", "x")})
    result = review(base, head, "s")
    assert not result.added and not result.removed
    [alarm] = result.alarms
    assert (str(alarm.old), str(alarm.new)) == ("s/a.jsonl:1", "s/b.jsonl:2")


def test_a_fixture_moved_into_a_store_holding_its_request_with_other_answers_is_an_alarm() -> None:
    head = side("working tree", {"s/a.jsonl": b"", "s/b.jsonl": B + A})
    result = review(BASE, head, "s")
    [twice] = result.alarms
    assert (str(twice.old), str(twice.new)) == ("s/b.jsonl:1", "s/b.jsonl:2")
    assert [str(e) for e in result.removed] == ["s/a.jsonl:1"]


def test_a_store_moved_unseen_beside_one_deleted_keeps_its_answers() -> None:
    # b.jsonl moved to c.jsonl with a fixture added (no rename git sees), a.jsonl deleted:
    # c.jsonl's unchanged fixture was compared with a.jsonl's, an ALARM and exit 1
    head = side("working tree", {"s/c.jsonl": B + line("Why?", "c")})
    result = review(BASE, head, "s")
    assert not result.alarms and not result.meta_changed, result.alarms
    assert [str(e) for e in result.removed] == ["s/a.jsonl:1"]
    assert [str(e) for e in result.added] == ["s/c.jsonl:2"]
