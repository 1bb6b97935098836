"""``replaygate diff`` raises an ALARM for a changed or added fixture that holds a
secret-looking value (law 4), naming its file, line, field path and rule, never the
value, and no ``--allow-response-change`` accepts it: verify refuses such a fixture,
and a review that passed it over let a hand-edited key through with exit 0."""

from __future__ import annotations

from typing import Any

from replaygate.cli.review_json import review_json
from replaygate.fixtures.fixture import Fixture, make_meta
from replaygate.hygiene.review import review
from replaygate.hygiene.review_report import render_markdown, render_text
from replaygate.hygiene.snapshot import Side
from replaygate.sanitize.secret_allow import compile_known_safe

TOKEN = "ghp_" + "Zk3Qm9Xr2Lp7Vw4Tn8Bc5Hy1Jd6Fs0Ga2Ue" + "AB"  # 40 characters, no real key
META = make_meta("anthropic.messages", "2023-06-01", "hand")


def fixture(question: str, answer: str = "a", note: str | None = None) -> Fixture:
    request = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": question}]}
    response: dict[str, Any] = {"type": "message", "content": [{"type": "text", "text": answer}]}
    meta = dict(META, note=note) if note else META
    return Fixture.create(request, [response], meta)


def side(label: str, data: bytes) -> Side:
    return Side(label, {"rc.jsonl": label + str(hash(data))}, lambda paths: {"rc.jsonl": data})


def test_a_fixture_added_by_hand_with_a_key_is_an_alarm_naming_where() -> None:
    one = fixture("one").to_line()
    leaked = fixture("two", answer=f"here: {TOKEN}").to_line()
    result = review(side("HEAD", one), side("working tree", one + leaked), "rc.jsonl")
    assert result.refused
    text = render_text(result, "accepted")
    key = fixture("two").key
    assert f"ALARM  rc.jsonl:2  key {key}: GitHub token at response.content[0].text" in text
    assert "1 ALARM (secret-looking value)" in text
    markdown = render_markdown(result, None)
    assert "**ALARM**: secret-looking value | `rc.jsonl:2`" in markdown
    (alarm,) = review_json(result, None)["alarms"]
    assert alarm["secret"] == {"path": "response.content[0].text", "rule": "GitHub token"}
    for shown in (text, markdown, str(alarm)):
        assert TOKEN[4:] not in shown


def test_a_key_edited_into_meta_or_an_answer_is_an_alarm_too() -> None:
    base = side("HEAD", fixture("one").to_line())
    noted = review(base, side("wt", fixture("one", note=f"by {TOKEN}").to_line()), "rc.jsonl")
    assert [a.finding.path for a in noted.secret_alarms] == ["meta.note"]
    assert noted.meta_changed and noted.refused  # a meta change alone exits 0
    answered = review(base, side("wt", fixture("one", answer=TOKEN).to_line()), "rc.jsonl")
    assert [a.finding.path for a in answered.secret_alarms] == ["response.content[0].text"]


def test_an_unchanged_fixture_and_a_known_safe_value_raise_none() -> None:
    held = fixture("one", answer=TOKEN).to_line()  # committed before: verify's to report
    added = held + fixture("two").to_line()
    assert not review(side("HEAD", held), side("wt", added), "rc.jsonl").secret_alarms
    leaked = fixture("one").to_line() + fixture("two", answer=TOKEN).to_line()
    safe = compile_known_safe((TOKEN,), ())
    base = side("HEAD", fixture("one").to_line())
    result = review(base, side("wt", leaked), "rc.jsonl", (), safe)
    assert not result.secret_alarms and not result.refused


def test_one_in_a_folder_stores_json_file_is_put_at_its_fields_line() -> None:
    leaked = fixture("one", answer=f"key {TOKEN}")
    name = f"fold/anthropic.messages@2023-06-01/{leaked.key}.json"
    pretty = leaked.to_pretty()
    head = Side("wt", {name: "new"}, lambda paths: {name: pretty})
    (alarm,) = review(Side("HEAD", {}, lambda paths: {}), head, "fold").secret_alarms
    line = next(n for n, text in enumerate(pretty.decode().splitlines(), 1) if TOKEN in text)
    assert str(alarm.new) == f"{name}:{line}"
