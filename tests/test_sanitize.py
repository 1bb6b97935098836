"""Each sanitize class on real SDK-shaped fixtures.

The fixtures are recorded once, unsanitized, by the official SDKs from the loopback
simulator (plain and streamed, Anthropic and OpenAI, with tool calls), then run
through :class:`Sanitizer` with one class turned on at a time.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import orjson
import pytest

from replaygate.fixtures.fingerprint import fixture_key
from replaygate.fixtures.store import FixtureStore
from replaygate.http import Exchange, httpx2_client
from replaygate.sanitize import IdMap, RedactionRule, SanitizeConfig, SanitizeConfigError, Sanitizer
from replaygate.sanitize.pii import TextRules, luhn_valid
from replaygate.sim import Simulator
from sdks import anthropic, openai

EMAIL = "alice.smith@corp-mail.com"
PHONE = "+44 20 7946 0958"
CARD = "4111 1111 1111 1111"
TEXT = f"I will mail {EMAIL}, or call {PHONE}; card {CARD}."
QUESTION = [{"role": "user", "content": "Reach Alice for me."}]
TOOL = {"name": "send_mail", "description": "Send a mail.", "input_schema": {"type": "object"}}
OPENAI_TOOL = {"type": "function", "function": {"name": "send_mail", "parameters": {}}}
ANTHROPIC_ID = "toolu_01A09q90qw90lq917835lq9"
OPENAI_ID = "call_Wq3x9bT2kLmN8pR4sV6yZ1aC"
NOTHING = Sanitizer(SanitizeConfig())


def _script_line(call_id: str) -> dict[str, Any]:
    call = {"id": call_id, "name": "send_mail", "arguments": {"to": EMAIL, "note": "urgent"}}
    return {"text": TEXT, "tool_calls": [call], "usage": {"input_tokens": 31, "output_tokens": 17}}


Record = dict[str, Any]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict[str, Any], Record]]:
    """Unsanitized (envelope, response) per case: anthropic/openai x plain/stream."""
    folder = tmp_path_factory.mktemp("raw")
    script = folder / "script.jsonl"
    lines = [_script_line(ANTHROPIC_ID)] * 2 + [_script_line(OPENAI_ID)] * 2
    script.write_text("\n".join(json.dumps(line) for line in lines))
    store = folder / "raw.jsonl"
    with Simulator(behavior=f"script:{script}") as sim:
        exchange = Exchange(store, mode="record-missing", approve_live=True, sanitize=NOTHING)
        args: dict[str, Any] = {"model": "m", "max_tokens": 64, "messages": QUESTION}
        with anthropic.Anthropic(
            api_key="k", base_url=sim.url, http_client=httpx2_client(exchange)
        ) as a:
            a.messages.create(tools=[TOOL], **args)
            with a.messages.stream(tools=[TOOL], **args) as s:
                s.get_final_message()
        with openai.OpenAI(
            api_key="k", base_url=sim.openai_base_url, http_client=httpx2_client(exchange)
        ) as o:
            o.chat.completions.create(model="g", messages=QUESTION, tools=[OPENAI_TOOL])
            stream = o.chat.completions.create(
                model="g",
                messages=QUESTION,
                tools=[OPENAI_TOOL],
                stream=True,
                stream_options={"include_usage": True},
            )
            list(stream)
    cases = {}
    for fixture in FixtureStore.open(store):
        provider = "openai" if "chat" in fixture.request["path"] else "anthropic"
        kind = "stream" if "events" in fixture.response else "plain"
        cases[f"{provider}-{kind}"] = (fixture.request, fixture.response)
    assert sorted(cases) == ["anthropic-plain", "anthropic-stream", "openai-plain", "openai-stream"]
    return cases


def interface(case: str) -> str:
    return "anthropic.messages" if case.startswith("anthropic") else "openai.chat.completions"


def run(
    config: SanitizeConfig, case: str, raw: Record, ids: IdMap | None = None
) -> tuple[str, Record]:
    envelope, response = raw
    key = fixture_key(envelope)
    out = Sanitizer(config).recorded(
        copy.deepcopy(response), key=key, interface=interface(case), ids=ids
    )
    return key, out


def events(record: Record) -> list[dict[str, Any]]:
    return [orjson.loads(e["data"]) for e in record["events"] if e["data"] != "[DONE]"]


def text_of(record: Record) -> str:
    """Everything a client would read, as one text (bodies and event data)."""
    return json.dumps(record, ensure_ascii=False)


# -- volatile ids ---------------------------------------------------------------------------


def test_ids_anthropic_plain_become_stable_and_keep_their_prefix(recorded: Any) -> None:
    key, out = run(SanitizeConfig(ids=True), "anthropic-plain", recorded["anthropic-plain"])
    body = out["body"]
    assert body["id"] == f"msg_rg_{key}_1"
    tool_use = next(b for b in body["content"] if b["type"] == "tool_use")
    assert tool_use["id"] == f"toolu_rg_{key}_1"
    assert out["headers"]["request-id"] == f"req_rg_{key}_1"
    assert "sim_" not in text_of(out) and ANTHROPIC_ID not in text_of(out)
    # business fields untouched
    assert tool_use["input"] == {"to": EMAIL, "note": "urgent"}


def test_ids_in_streams_are_rewritten_in_every_event(recorded: Any) -> None:
    key, out = run(SanitizeConfig(ids=True), "anthropic-stream", recorded["anthropic-stream"])
    parsed = events(out)
    assert parsed[0]["message"]["id"] == f"msg_rg_{key}_1"
    starts = [e for e in parsed if e["type"] == "content_block_start"]
    assert [s["content_block"].get("id") for s in starts] == [None, f"toolu_rg_{key}_1"]
    key, out = run(SanitizeConfig(ids=True), "openai-stream", recorded["openai-stream"])
    chunks = events(out)
    assert {c["id"] for c in chunks} == {f"chatcmpl-rg_{key}_1"}
    calls = [
        c
        for chunk in chunks
        for ch in chunk["choices"]
        for c in ch["delta"].get("tool_calls") or []
    ]
    assert calls[0]["id"] == f"call_rg_{key}_1"
    assert out["events"][-1] == {"data": "[DONE]"}


def test_ids_are_deterministic_and_a_second_pass_changes_nothing(recorded: Any) -> None:
    config = SanitizeConfig(ids=True)
    for case, raw in recorded.items():
        key, first = run(config, case, raw)
        _, second = run(config, case, raw)
        assert first == second
        again = Sanitizer(config).recorded(first, key=key, interface=interface(case))
        assert again == first, case


def test_events_left_unchanged_keep_their_exact_bytes(recorded: Any) -> None:
    _, out = run(SanitizeConfig(ids=True), "anthropic-stream", recorded["anthropic-stream"])
    raw_events = recorded["anthropic-stream"][1]["events"]
    unchanged = [e for e in raw_events if "msg_sim" not in e["data"] and "toolu_" not in e["data"]]
    assert unchanged and all(e in out["events"] for e in unchanged)


def test_the_session_map_rewrites_the_request_that_echoes_a_tool_use_id(recorded: Any) -> None:
    ids = IdMap()
    key, _ = run(SanitizeConfig(ids=True), "anthropic-plain", recorded["anthropic-plain"], ids)
    follow_up = {
        "model": "m",
        "messages": [
            *QUESTION,
            {"role": "assistant", "content": [{"type": "tool_use", "id": ANTHROPIC_ID}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": ANTHROPIC_ID}]},
        ],
    }
    stored = Sanitizer(SanitizeConfig(ids=True)).request(follow_up, ids)
    assert stored["messages"][1]["content"][0]["id"] == f"toolu_rg_{key}_1"
    assert stored["messages"][2]["content"][0]["tool_use_id"] == f"toolu_rg_{key}_1"
    assert follow_up["messages"][2]["content"][0]["tool_use_id"] == ANTHROPIC_ID  # not mutated
    # at replay the request already carries the stable id: no map, same stored form
    assert Sanitizer(SanitizeConfig(ids=True)).request(stored) == stored


def test_an_id_seen_earlier_in_the_session_keeps_its_stable_form() -> None:
    ids = IdMap()
    sanitizer = Sanitizer(SanitizeConfig(ids=True))
    first = sanitizer.response({"id": "resp_abc123"}, key="aaaaaaaaaaaa", interface="x", ids=ids)
    second = sanitizer.response(
        {"id": "resp_def456", "previous_response_id": "resp_abc123"},
        key="bbbbbbbbbbbb",
        interface="x",
        ids=ids,
    )
    assert first == {"id": "resp_rg_aaaaaaaaaaaa_1"}
    assert second == {"id": "resp_rg_bbbbbbbbbbbb_1", "previous_response_id": first["id"]}


def test_only_id_fields_with_volatile_prefixes_change() -> None:
    body = {
        "id": "doc-rag",
        "text": "msg_123 toolu_456 in prose stay",
        "doc_id": "call_me_maybe_but_not_an_id_field?",
        "nested": [{"tool_use_id": "toolu_9"}],
    }
    out = Sanitizer(SanitizeConfig(ids=True)).response(body, key="cccccccccccc", interface="x")
    assert out["id"] == "doc-rag" and out["text"] == body["text"]
    assert out["nested"][0]["tool_use_id"] == "toolu_rg_cccccccccccc_1"
    assert out["doc_id"] == body["doc_id"]  # '?' is not an id character


def test_an_id_the_answer_names_in_a_url_takes_its_stable_form() -> None:
    batch = "msgbatch_01HkcTjaV5uDC8jWR4ZsDV8d"
    body = {
        "results_url": f"https://api.anthropic.com/v1/messages/batches/{batch}/results",
        "id": batch,
        "note": f"{batch}x stays",
    }
    out = Sanitizer(SanitizeConfig(ids=True)).response(body, key="eeeeeeeeeeee", interface="x")
    stable = "msgbatch_rg_eeeeeeeeeeee_1"
    assert out["id"] == stable
    assert out["results_url"] == f"https://api.anthropic.com/v1/messages/batches/{stable}/results"
    assert out["note"] == body["note"]


def test_an_openrouter_answer_s_id_becomes_stable() -> None:
    body = {"id": "gen-1749812345-sQ3xYpR4mN7kL2vB9cD1", "object": "chat.completion"}
    out = Sanitizer(SanitizeConfig(ids=True)).response(body, key="dddddddddddd", interface="x")
    assert out["id"] == "gen-rg_dddddddddddd_1"


# -- times and usage ----------------------------------------------------------------------------


def test_times_become_fixed_values(recorded: Any) -> None:
    envelope, response = copy.deepcopy(recorded["openai-plain"])
    response["body"]["created"] = 1764483200
    key, out = run(SanitizeConfig(times=True), "openai-plain", (envelope, response))
    assert out["body"]["created"] == 0
    stream_env, stream = copy.deepcopy(recorded["openai-stream"])
    for event in stream["events"][:-1]:
        event["data"] = event["data"].replace('"created":0', '"created":1764483200')
    _, out = run(SanitizeConfig(times=True), "openai-stream", (stream_env, stream))
    assert {c["created"] for c in events(out)} == {0}
    nested = {"created_at": "2026-11-30T06:00:00Z", "data": [{"expires_at": 1764483200}]}
    fixed = Sanitizer(SanitizeConfig(times=True)).response(nested, key=key, interface="x")
    assert fixed == {"created_at": "1970-01-01T00:00:00Z", "data": [{"expires_at": 0}]}


def test_a_batch_s_times_become_fixed_values() -> None:
    """A Message Batch recorded with ``times = true`` kept its ``ended_at`` (and an OpenAI
    batch its ``in_progress_at``...): each recording of the same poll differed."""
    anthropic_batch = {"ended_at": "2026-12-07T09:40:16Z", "cancel_initiated_at": None}
    openai_batch = {"in_progress_at": 1764483200, "finalizing_at": 1764483260}
    sanitizer = Sanitizer(SanitizeConfig(times=True))
    fixed = sanitizer.response([anthropic_batch, openai_batch], key="k", interface="http")
    assert fixed == [
        {"ended_at": "1970-01-01T00:00:00Z", "cancel_initiated_at": None},
        {"in_progress_at": 0, "finalizing_at": 0},
    ]


UNCACHED = {
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 0,
    "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
    "service_tier": "standard",
}
"""The prompt cache's counts of a simulator's Messages answer (it keeps no cache), and its
service tier."""


def test_usage_is_kept_by_default(recorded: Any) -> None:
    _, out = run(
        SanitizeConfig(ids=True, times=True), "anthropic-plain", recorded["anthropic-plain"]
    )
    assert out["body"]["usage"] == {**UNCACHED, "input_tokens": 31, "output_tokens": 17}


def test_normalize_usage_fixes_every_usage_number(recorded: Any) -> None:
    config = SanitizeConfig(normalize_usage=True)
    _, out = run(config, "anthropic-plain", recorded["anthropic-plain"])
    assert out["body"]["usage"] == {**UNCACHED, "input_tokens": 0, "output_tokens": 0}
    _, out = run(config, "anthropic-stream", recorded["anthropic-stream"])
    usages = [e.get("usage") or e.get("message", {}).get("usage") for e in events(out)]
    assert [u for u in usages if u] == [
        {**UNCACHED, "input_tokens": 0, "output_tokens": 0},
        {  # the closing message_delta's running totals, the prompt's counts too
            "input_tokens": 0,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": 0,
        },
    ]
    _, out = run(config, "openai-stream", recorded["openai-stream"])
    final = [c["usage"] for c in events(out) if c.get("usage")]
    assert final and all(v == 0 for v in final[0].values() if not isinstance(v, dict))
    tiered = {"usage": {"input_tokens": 5, "service_tier": "standard", "cache": {"read": 3}}}
    out2 = Sanitizer(config).response(tiered, key="k" * 12, interface="x")
    assert out2 == {"usage": {"input_tokens": 0, "service_tier": "standard", "cache": {"read": 0}}}


# -- personal data and user rules ----------------------------------------------------------


@pytest.mark.parametrize(
    "case", ["anthropic-plain", "anthropic-stream", "openai-plain", "openai-stream"]
)
def test_personal_data_is_replaced_everywhere(recorded: Any, case: str) -> None:
    config = SanitizeConfig(personal_data=("email", "phone", "card"))
    _, out = run(config, case, recorded[case])
    dumped = text_of(out)
    for value in (EMAIL, "7946", "4111"):
        assert value not in dumped, (case, value)
    assert "@example.com" in dumped and "555-01" in dumped
    assert re.search(r"0000-[0-9]{4}-[0-9]{4}-[0-9]{4}", dumped)


def test_a_value_split_across_stream_events_is_redacted_whole(recorded: Any) -> None:
    raw_events = recorded["anthropic-stream"][1]["events"]
    deltas = [
        orjson.loads(e["data"])["delta"]["text"] for e in raw_events if '"text_delta"' in e["data"]
    ]
    assert len(deltas) > 1 and EMAIL not in "".join(d for d in deltas if EMAIL in d)  # it is split
    _, out = run(
        SanitizeConfig(personal_data=("email",)), "anthropic-stream", recorded["anthropic-stream"]
    )
    redacted = [
        e["delta"]["text"]
        for e in events(out)
        if e["type"] == "content_block_delta" and e["delta"]["type"] == "text_delta"
    ]
    whole = TextRules(["email"]).apply("".join(deltas))
    assert "".join(redacted) == whole and redacted[0] == whole and set(redacted[1:]) == {""}
    json_deltas = [
        e["delta"]["partial_json"]
        for e in events(out)
        if e["type"] == "content_block_delta" and e["delta"]["type"] == "input_json_delta"
    ]
    assert (
        EMAIL not in "".join(json_deltas) and json.loads("".join(json_deltas))["note"] == "urgent"
    )


def test_request_side_rules_and_their_fixed_points(recorded: Any) -> None:
    envelope, _ = recorded["anthropic-plain"]
    live = copy.deepcopy(envelope)
    live["body"]["messages"][0]["content"] = f"Write to {EMAIL} today"
    sanitizer = Sanitizer(SanitizeConfig(personal_data=("email",)))
    stored = sanitizer.envelope(live)
    text = stored["body"]["messages"][0]["content"]
    assert (
        EMAIL not in text
        and text.startswith("Write to user-")
        and text.endswith("@example.com today")
    )
    assert sanitizer.envelope(stored) == stored
    assert stored["headers"] == envelope["headers"] and stored["path"] == envelope["path"]
    assert live["body"]["messages"][0]["content"] == f"Write to {EMAIL} today"


@pytest.mark.parametrize(
    ("kind", "text", "changed"),
    [
        ("email", "mail bob@corp.io now", True),
        ("email", "see ops@example.com or x@mail.test", False),
        ("phone", "call +1 (415) 555-2671", True),
        ("phone", "call 415-555-2671.", True),
        ("phone", "on 2024-01-15 10:30, v2023-06-01", False),
        ("phone", "ip 192.168.100.200, years 2020 2021 2022, id 1234567890", False),
        ("phone", "call +14155552671 or +4915112345678", True),
        ("phone", "call +1 4155552671", True),
        ("phone", "call +33 6 12 34 56 78", True),
        ("phone", "call +49 30 12345678", True),
        ("phone", "call +44 7911 123456", True),
        ("phone", "score +3 10 20 30, build +1.2.3.4", False),
        ("phone", "call 415.555.2671", True),
        ("phone", "call 030.1234.5678", True),
        ("phone", "pi 3.14159, v1.2.3, 2026.12.05, ip 10.200.100.250, +12345", False),
        ("card", "card 4242-4242-4242-4242", True),
        ("card", "card 4242 4242 4242 4241 (bad Luhn), ms 1764483200000", False),
    ],
)
def test_builtin_classes(kind: str, text: str, changed: bool) -> None:
    rules = TextRules([kind])
    out = rules.apply(text)
    assert (out != text) is changed, out
    assert rules.apply(out) == out
    assert TextRules(["email", "phone", "card"]).apply(out) == TextRules(
        ["email", "phone", "card"]
    ).apply(TextRules(["email", "phone", "card"]).apply(out))


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("order +14155552671 12345678 shipped", " 12345678 shipped"),
        ("call +33 6 12 34 56 78 12345 today", " 12345 today"),
    ],
)
def test_a_number_followed_by_more_digit_groups_is_replaced_and_the_groups_kept(
    text: str, kept: str
) -> None:
    # groups of up to eight digits after a +: an order number after a phone number made
    # one run of more digits than a number holds, and the number was stored as it was
    out = TextRules(["phone"]).apply(text)
    assert "4155552671" not in out and "12 34 56 78" not in out, out
    assert out.endswith(kept) and out.count("555-01") == 1, out


@pytest.mark.parametrize(
    "address", ["jörg@corp-mail.com", "müller.hans@corp.de", "alice@corp-mäil.com", "李@公司.中国"]
)
def test_an_address_with_letters_beyond_ascii_is_replaced_whole(address: str) -> None:
    sanitizer = Sanitizer(SanitizeConfig(personal_data=("email",)))
    request = {"model": "m", "messages": [{"role": "user", "content": f"write to {address}."}]}
    text = sanitizer.request(request)["messages"][0]["content"]
    assert re.fullmatch(r"write to user-[0-9a-f]{8}@example\.com\.", text), text
    assert TextRules(["email"]).apply("see jörg@mail.test") == "see jörg@mail.test"


def test_replacements_are_deterministic_and_distinct() -> None:
    rules = TextRules(["email", "phone", "card"])
    a, b = rules.apply("a@corp.com"), rules.apply("b@corp.com")
    assert a == rules.apply("a@corp.com") and a != b
    assert rules.apply("A@Corp.com") == a  # addresses are case-insensitive
    card = rules.apply(CARD)
    assert re.fullmatch(r"0000(?:-[0-9]{4}){3}", card) and rules.apply(card) == card
    assert luhn_valid(CARD.replace(" ", "")) and not luhn_valid("4111111111111112")


def test_user_rules_run_before_the_builtins() -> None:
    sanitizer = Sanitizer(
        SanitizeConfig(
            personal_data=("email",),
            rules=(
                RedactionRule(literal="ACME Corp", replace="Example Corp"),
                RedactionRule(pattern=r"order-\d{6}", replace="order-000000"),
                RedactionRule(literal="acme.io", replace="example.org", ignore_case=True),
            ),
        )
    )
    out = sanitizer.request({"q": "ACME Corp order-123456 for jo@ACME.IO"})
    assert out == {"q": "Example Corp order-000000 for jo@example.org"}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "exactly one of 'literal' and 'pattern'"),
        ({"literal": "a", "pattern": "b"}, "exactly one of 'literal' and 'pattern'"),
        ({"literal": ""}, "must not be empty"),
        ({"pattern": "(unclosed"}, "invalid regular expression '(unclosed'"),
        ({"pattern": "x*"}, "matches empty text"),
        ({"literal": "Ann", "replace": "Annie"}, "is itself matched by the rule"),
    ],
)
def test_rule_errors(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        RedactionRule(**kwargs)


def test_rules_that_would_change_their_own_output_are_refused() -> None:
    sanitizer = Sanitizer(
        SanitizeConfig(
            rules=(
                RedactionRule(literal="Bob", replace="Robert"),
                RedactionRule(literal="Robert", replace="R."),
            )
        )
    )
    request = {"messages": [{"content": "Ask Bob"}]}
    stored = sanitizer.request(request)
    assert stored == {"messages": [{"content": "Ask R."}]}
    sanitizer.check_stable(stored)
    # each rule alone keeps its replacement, but together they feed each other: refused
    # when the config is made, naming the rule
    with pytest.raises(SanitizeConfigError, match=r"rules\[0\]\.replace: the replacement 'Robert'"):
        SanitizeConfig(
            rules=(
                RedactionRule(literal="Bob", replace="Robert"),
                RedactionRule(literal="Rob", replace="Bob"),
            )
        )
    # a replacement that makes a new match with the text around it: refused on the request
    looping = Sanitizer(SanitizeConfig(rules=(RedactionRule(pattern="xy", replace="x"),)))
    with pytest.raises(SanitizeConfigError) as caught:
        looping.check_stable(looping.request({"messages": [{"content": "Ask xyy"}]}))
    assert str(caught.value) == (
        "sanitize rules: tool.replaygate.sanitize.rules: running the rules again changes "
        "request.messages[0].content from 'Ask xy' to 'Ask x'; a replayed request "
        "would not match its fixture. Choose replacements that no rule matches."
    )


def test_an_unknown_personal_data_class_is_refused() -> None:
    with pytest.raises(SanitizeConfigError, match="personal_data: unknown class"):
        SanitizeConfig(personal_data=("ssn",))
    with pytest.raises(ValueError, match="unknown personal data class"):
        TextRules(["ssn"])


# -- trim ------------------------------------------------------------------------------------


def test_trim_drops_known_unread_fields_and_keeps_unknown_new_ones(recorded: Any) -> None:
    envelope, response = copy.deepcopy(recorded["anthropic-plain"])
    response["body"]["brand_new_field"] = {"x": 1}  # a field the provider added since
    config = SanitizeConfig(trim={"anthropic.messages": ("content", "model")})
    _, out = run(config, "anthropic-plain", (envelope, response))
    assert set(out["body"]) == {"content", "model", "stop_reason", "usage", "brand_new_field"}
    assert out["body"]["content"] == response["body"]["content"]


def test_trim_in_streams_and_for_openai(recorded: Any) -> None:
    config = SanitizeConfig(trim={"anthropic.messages": (), "openai.chat.completions": ("model",)})
    _, out = run(config, "anthropic-stream", recorded["anthropic-stream"])
    assert set(events(out)[0]["message"]) == {"content", "stop_reason", "usage"}
    assert events(out)[1:] == events(recorded["anthropic-stream"][1])[1:]
    _, out = run(config, "openai-plain", recorded["openai-plain"])
    assert set(out["body"]) == {"choices", "usage", "model"}
    _, out = run(config, "openai-stream", recorded["openai-stream"])
    assert all(set(c) <= {"choices", "usage", "model"} for c in events(out))


def test_an_address_in_a_kept_response_header_is_replaced() -> None:
    # The rules ran on the body alone: a request id echoing an address was stored as it was.
    config = SanitizeConfig(personal_data=("email",), ids=False)
    record = {"status": 200, "headers": {"x-request-id": "req alice@corp-mail.com"}, "body": {}}
    stored = Sanitizer(config).recorded(record, key="k" * 12, interface="anthropic.messages")
    assert re.fullmatch(r"req user-[0-9a-f]{8}@example\.com", stored["headers"]["x-request-id"])
    assert record["headers"]["x-request-id"] == "req alice@corp-mail.com"  # not changed in place


def test_trim_leaves_error_bodies_and_other_interfaces_alone() -> None:
    config = SanitizeConfig(trim={"anthropic.messages": ("content",)})
    error = {"status": 429, "headers": {}, "body": {"type": "error", "error": {"type": "rate"}}}
    assert Sanitizer(config).recorded(error, key="k" * 12, interface="anthropic.messages") == error
    other = {"id": "x", "type": "y"}
    assert (
        Sanitizer(config).response(other, key="k" * 12, interface="openai.chat.completions")
        == other
    )


# -- the pipeline as a whole ---------------------------------------------------------------


def test_nothing_is_changed_without_configuration(recorded: Any) -> None:
    for case, raw in recorded.items():
        _, out = run(SanitizeConfig(), case, raw)
        assert out == raw[1], case
        assert NOTHING.envelope(raw[0]) is raw[0]
    assert not NOTHING.request_side


def test_everything_at_once_is_idempotent(recorded: Any) -> None:
    config = SanitizeConfig(
        ids=True,
        times=True,
        normalize_usage=True,
        personal_data=("email", "phone", "card"),
        rules=(RedactionRule(literal="urgent", replace="routine"),),
        trim={"anthropic.messages": ("content",), "openai.chat.completions": ("choices",)},
    )
    for case, raw in recorded.items():
        key, once = run(config, case, raw)
        twice = Sanitizer(config).recorded(once, key=key, interface=interface(case))
        assert twice == once, case
        assert "urgent" not in text_of(once) and EMAIL not in text_of(once)


def test_the_sanitizer_repr_names_its_config() -> None:
    assert repr(Sanitizer(SanitizeConfig(ids=True))).startswith("Sanitizer(SanitizeConfig(ids=True")


def test_a_config_object_or_none_resolves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from replaygate.sanitize import resolve

    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.replaygate.sanitize]\nids = true\n")
    assert resolve(None).config == SanitizeConfig(ids=True)
    assert resolve(SanitizeConfig(times=True)).config == SanitizeConfig(times=True)
    with pytest.raises(TypeError, match="sanitize must be a Sanitizer or a SanitizeConfig"):
        resolve({"ids": True})  # type: ignore[arg-type]


BATCH_UPLOAD = (
    '--b\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n--b\r\n'
    'Content-Disposition: form-data; name="file"; filename="in.jsonl"\r\n'
    "Content-Type: application/octet-stream\r\n\r\n"
    '{"custom_id": "order 1", "body": {"max_tokens": 1000}}\n\r\n--b--\r\n'
)
"""A file of requests uploaded for a batch (``files.create(purpose="batch")``): a rule
matching a number rewrote its line into no JSON, where JSON held in a whole string was
refused."""

WORDS = {
    # rule, side, what was recorded: the path and text the refusal names
    "role": (
        {"literal": "user", "replace": "client"},
        "request",
        {"model": "m", "messages": [{"role": "user", "content": "my user id"}]},
        r"rules\[0\]: the rule \(literal 'user'\) rewrites the role at "
        r"request\.messages\[0\]\.role \('user'\)",
    ),
    "model": (
        {"literal": "claude", "replace": "model", "ignore_case": True},
        "request",
        {"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "hi Claude"}]},
        r"the model at request\.model \('claude-sonnet-4-5'\)",
    ),
    "tool name in an event": (
        {"literal": "lookup", "replace": "find"},
        "response",
        {"events": [{"data": json.dumps({"content_block": {"name": "lookup", "input": {}}})}]},
        r"the name at response\.events\[0\]\.data\.content_block\.name \('lookup'\)",
    ),
    "key of tool arguments": (
        {"pattern": "(?<![a-z])id", "replace": "ID"},
        "response",
        {"arguments": json.dumps({"customer_id": "c-1"})},
        r"the key 'customer_id' at response\.arguments\.customer_id of JSON held as text",
    ),
    "a file of requests uploaded for a batch": (
        {"pattern": "[0-9]{3,}", "replace": "N"},
        "request",
        {"method": "POST", "path": "/v1/files", "text": BATCH_UPLOAD},
        r"rewrites the JSON held as text at request\.text \(line 9\) into text that is no JSON",
    ),
    "route": (
        {"literal": "messages", "replace": "msgs"},
        "request",
        {"method": "POST", "path": "/v1/messages", "body": {"model": "m"}},
        r"the route at request\.path \('/v1/messages'\)",
    ),
}


@pytest.mark.parametrize("case", list(WORDS))
def test_a_rule_that_rewrites_a_word_of_the_api_is_refused_naming_rule_and_path(
    case: str,
) -> None:
    rule, side, before, where = WORDS[case]
    sanitizer = Sanitizer(SanitizeConfig(rules=[rule]))
    after = sanitizer.envelope(before) if "path" in before else sanitizer.request(before)
    with pytest.raises(SanitizeConfigError, match=where) as caught:
        sanitizer.check_words(before, after, side)
    assert "nothing was written" in str(caught.value)


def test_the_word_check_tells_a_tool_name_and_a_key_from_the_data() -> None:
    sanitizer = Sanitizer(SanitizeConfig(rules=[{"literal": "Bob", "replace": "X"}]))
    before = {
        "role": "assistant",
        "content": [{"type": "tool_use", "name": "Bob", "input": {"who": "Bob"}}],
        "arguments": json.dumps({"Bob": "Bob"}),
    }
    with pytest.raises(SanitizeConfigError, match=r"name at response\.content\[0\]\.name"):
        sanitizer.check_words(before, sanitizer.request(before), "response")
    del before["content"]
    with pytest.raises(SanitizeConfigError, match=r"key 'Bob' at response\.arguments\.Bob"):
        sanitizer.check_words(before, sanitizer.request(before), "response")
    before["arguments"] = json.dumps({"who": "Bob", "type": "Bob"})  # its own "type": data
    after = sanitizer.request(before)
    sanitizer.check_words(before, after, "response")
    assert json.loads(after["arguments"]) == {"who": "X", "type": "X"}


def test_a_built_in_class_that_rewrites_a_key_is_not_told_to_narrow_itself() -> None:
    sanitizer = Sanitizer(SanitizeConfig(personal_data=["email"]))
    before = {"content": json.dumps({"bob@corp-mail.com": "found"})}
    with pytest.raises(SanitizeConfigError) as caught:
        sanitizer.check_words(before, sanitizer.request(before), "request")
    message = str(caught.value)
    assert "personal_data: the personal data class 'email' rewrites the key" in message
    assert "Narrow the rule" not in message and "leave the class out" in message


@pytest.mark.parametrize(
    "call",
    [
        {"type": "tool_use", "id": "t", "name": "f", "input": {"type": "Bob", "status": "Bob"}},
        {"functionCall": {"name": "f", "args": {"role": "Bob"}}},
    ],
)
def test_the_word_check_reads_tool_arguments_held_as_objects_as_data(call: dict[str, Any]) -> None:
    sanitizer = Sanitizer(SanitizeConfig(rules=[{"literal": "Bob", "replace": "X"}]))
    before = {"role": "assistant", "content": [call]}
    after = sanitizer.request(before)
    sanitizer.check_words(before, after, "response")  # an argument named "type": data
    assert "Bob" not in json.dumps(after)
    renamed = {"functionCall": {"name": "Bob", "args": {}}}  # the tool's name: the API's
    with pytest.raises(SanitizeConfigError, match=r"name at response\.content\[0\]"):
        sanitizer.check_words(
            {"content": [renamed]}, sanitizer.request({"content": [renamed]}), "response"
        )


def test_a_converse_tool_use_id_becomes_stable_and_its_result_follows() -> None:
    # Bedrock Converse's toolUseId (tooluse_...) was kept as sent: each recording of a tool
    # loop stored new ids, in its answer and in the next request that echoes it
    ids = IdMap()
    sanitizer = Sanitizer(SanitizeConfig(ids=True))
    use = {"toolUse": {"toolUseId": "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", "name": "t", "input": {}}}
    answer = {"output": {"message": {"role": "assistant", "content": [use]}}}
    out = sanitizer.response(answer, key="ffffffffffff", interface="http", ids=ids)
    stable = "tooluse_rg_ffffffffffff_1"
    assert out["output"]["message"]["content"][0]["toolUse"]["toolUseId"] == stable
    result = {"toolResult": {"toolUseId": "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", "content": []}}
    asked = sanitizer.request({"messages": [{"role": "user", "content": [result]}]}, ids)
    assert asked["messages"][0]["content"][0]["toolResult"]["toolUseId"] == stable
