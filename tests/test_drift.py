"""``replaygate drift``: field sets of fixtures against the simulator's drift injection.

Fixtures are recorded from a clean loopback simulator through the official SDKs, as
wire fixtures (``RecordingModel``) and as HTTP fixtures (plain and streamed), then
re-sent to a simulator that adds ``usage.foo`` and drops ``stop_sequence``. A tool
call re-sent to a model that chooses other arguments is no drift (Gemini's recorded
over plain HTTP, the path drift re-sends it by, without loading its SDK).
"""

from __future__ import annotations

import gc
import json
import tracemalloc
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, cast

import httpx2
import pytest
from click.testing import CliRunner, Result

from audited import opened
from loopback import Handler, serving
from replaygate import Fixture
from replaygate.cli import main
from replaygate.cli.hygiene_cmds import DEFAULT_BEHAVIOR_NOTE
from replaygate.errors import LiveAPIError, LiveCallNotApproved
from replaygate.fixtures.fixture import make_meta
from replaygate.http import httpx2_client
from replaygate.hygiene.drift import DriftReport, drawable, drift_against, drift_live, sample
from replaygate.hygiene.errors import HygieneError
from replaygate.hygiene.fieldset import field_paths, response_fields
from replaygate.hygiene.resend import LiveSender
from replaygate.hygiene.stored import load_fixtures
from replaygate.models.live import AnthropicModel, GeminiModel, OpenAIModel
from replaygate.models.replay import RecordingModel
from replaygate.models.types import Message, ModelResponse, ToolCall, ToolSpec
from replaygate.sim import DriftPlan, Simulator
from replaygate.sim.drift import DriftRule
from sdks import anthropic, genai, openai

DRIFT = "add-field:usage.foo,drop-field:stop_sequence"
MODEL = "claude-test-model"
QUESTIONS = ("What is RAG?", "Why are agent tests flaky?", "How do fixtures rot?")


def resend(store: Path, n: int, url: str, **options: Any) -> DriftReport:
    """``drift_live`` of ``n`` fixtures through a :class:`LiveSender` of ``url`` (approved),
    the sender's SDK clients closed after it."""
    with closing(LiveSender(url, **options)) as sender:
        return drift_live(store, n, sender, approve_live=True)


def record_wire(sim: Simulator, store: Path) -> None:
    """Anthropic and OpenAI wire fixtures, through the SDKs."""
    with (
        anthropic.Anthropic(api_key="sim-key", base_url=sim.url, max_retries=0) as claude,
        openai.OpenAI(api_key="sim-key", base_url=sim.openai_base_url, max_retries=0) as gpt,
    ):
        for live, interface, model in (
            (AnthropicModel(claude, model=MODEL, max_tokens=200), "anthropic.messages", MODEL),
            (
                OpenAIModel(gpt, model="gpt-test", max_tokens=200),
                "openai.chat.completions",
                "gpt-test",
            ),
        ):
            recorder = RecordingModel(
                live, store, approve_live=True, model=model, max_tokens=200,
                interface=interface, source="sim",
            )  # fmt: skip
            for question in QUESTIONS:
                recorder.complete([Message.user(question)], [])


def record_http(sim: Simulator, store: Path) -> None:
    """HTTP fixtures through the anthropic SDK over the recording transport: plain and streamed."""
    http = httpx2_client(store, "record-missing", approve_live=True, source="sim")
    with anthropic.Anthropic(api_key="sim-key", base_url=sim.url, http_client=http) as client:
        client.messages.create(
            model=MODEL, max_tokens=100, messages=[{"role": "user", "content": "What is RAG?"}]
        )
        with client.messages.stream(
            model=MODEL, max_tokens=100, messages=[{"role": "user", "content": "Stream it"}]
        ) as stream:
            stream.until_done()


@pytest.fixture(scope="module")
def clean_sim() -> Iterator[Simulator]:
    """One clean simulator for the module (each one started and stopped costs ~50 ms)."""
    with Simulator(behavior="echo") as sim:
        yield sim


@pytest.fixture(scope="module")
def drifting_sim() -> Iterator[Simulator]:
    with Simulator(behavior="echo", drift=DRIFT) as sim:
        yield sim


@pytest.fixture(scope="module")
def stores(
    tmp_path_factory: pytest.TempPathFactory, clean_sim: Simulator, drifting_sim: Simulator
) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("drift")
    record_wire(clean_sim, root / "wire.jsonl")
    record_http(clean_sim, root / "http")
    record_wire(drifting_sim, root / "drifted.jsonl")
    return {"wire": root / "wire.jsonl", "http": root / "http", "drifted": root / "drifted.jsonl"}


@pytest.fixture
def drifted_sim(drifting_sim: Simulator) -> Simulator:
    """The module's drifting simulator, with no request received yet in this test."""
    drifting_sim.clear_requests()
    return drifting_sim


def drift(*args: str) -> Result:
    return CliRunner().invoke(main, ["drift", *args])


def test_field_paths_take_arrays_by_the_union_of_their_items() -> None:
    body = {
        "content": [{"type": "text", "text": "hi"}, {"type": "tool_use", "id": "x", "input": {}}],
        "usage": {"input_tokens": 1},
        "stop_sequence": None,
    }
    assert field_paths(body) == {
        "content", "content[].type", "content[].text", "content[].id", "content[].input",
        "usage", "usage.input_tokens", "stop_sequence",
    }  # fmt: skip


def test_a_key_that_is_no_plain_name_is_one_quoted_step() -> None:
    # "a.b" read as two steps, "[0]" as a list's items, and a control character went to
    # the terminal as it is (an escape sequence, a NUL) in the drift report
    body = {"usage": {"a.b": 1, "[0]": 2, "": 3, "\x1b[2J": 4, "x\ny": {"k": 5}}}
    assert field_paths(body) == {
        "usage", 'usage["a.b"]', 'usage["[0]"]', 'usage[""]', 'usage["\\u001b[2J"]',
        'usage["x\\ny"]', 'usage["x\\ny"].k',
    }  # fmt: skip
    events = [
        {"event": "a\x07", "data": '{"t": 1}'},
        {"event": "response.output_text.delta", "data": '{"delta": "x"}'},
    ]
    assert response_fields({"events": events}, envelope=True) == {
        'events["a\\u0007"].t',
        "events[response.output_text.delta].delta",
    }


@pytest.mark.slow  # a whole drift check: a sample of the store sent to the simulator again
def test_live_drift_finds_added_and_dropped_fields(
    stores: dict[str, Path], drifted_sim: Simulator, tmp_path: Path
) -> None:
    report_file, json_file = tmp_path / "drift.txt", tmp_path / "drift.json"
    done = drift(
        str(stores["wire"]), "--live-sample", "10", "--approve-live",
        "--base-url", drifted_sim.url, "--report", str(report_file), "--json-out", str(json_file),
    )  # fmt: skip
    assert done.exit_code == 1, done.output
    assert "    + usage.foo" in done.output
    assert "    - stop_sequence" in done.output
    assert report_file.read_text(encoding="utf-8") == done.output
    report = json.loads(json_file.read_text(encoding="utf-8"))
    assert report["drift"] is True and report["mode"] == "live"
    by_interface = {i["interface"]: i for i in report["interfaces"]}
    assert by_interface["anthropic.messages"]["only_new"] == ["usage.foo"]
    assert by_interface["anthropic.messages"]["only_old"] == ["stop_sequence"]
    # OpenAI responses have no stop_sequence: only the added field shows
    assert by_interface["openai.chat.completions"]["only_new"] == ["usage.foo"]
    assert by_interface["openai.chat.completions"]["only_old"] == []
    assert len(report["sampled"]) == 6
    assert len(drifted_sim.requests) == 6


@pytest.mark.slow  # a drift check against the simulator
def test_live_drift_of_http_fixtures_plain_and_streamed(
    stores: dict[str, Path], drifted_sim: Simulator
) -> None:
    report = resend(stores["http"], 5, drifted_sim.url)
    [anthropic_drift] = report.interfaces
    assert "usage.foo" in anthropic_drift.only_new
    assert "events[message_start].message.usage.foo" in anthropic_drift.only_new
    assert "stop_sequence" in anthropic_drift.only_old
    assert {r.path for r in drifted_sim.requests} == {"/v1/messages"}
    assert any(r.body.get("stream") for r in drifted_sim.requests)


@pytest.mark.slow  # a drift check against the simulator
def test_no_drift_against_a_clean_simulator(stores: dict[str, Path], clean_sim: Simulator) -> None:
    done = drift(str(stores["wire"]), "--live-sample", "4", "--approve-live",
                 "--base-url", clean_sim.url)  # fmt: skip
    http = resend(stores["http"], 5, clean_sim.url)
    assert done.exit_code == 0, done.output
    assert "no drift" in done.output
    assert not http.drifted and not http.errors


@pytest.mark.slow  # a drift check against the simulator
def test_without_approval_nothing_is_sent(stores: dict[str, Path], drifted_sim: Simulator) -> None:
    done = drift(str(stores["wire"]), "--live-sample", "3", "--base-url", drifted_sim.url)
    assert done.exit_code == 2
    assert "needs an explicit approval for this run: add --approve-live" in done.output
    assert "Nothing was called" in done.output
    with (
        closing(LiveSender(drifted_sim.url)) as sender,
        pytest.raises(LiveCallNotApproved, match="drift re-sends recorded requests"),
    ):
        drift_live(stores["http"], 3, sender)
    assert drifted_sim.requests == []


def test_offline_against_another_fixture_set(stores: dict[str, Path], tmp_path: Path) -> None:
    report = drift_against(stores["wire"], stores["drifted"])
    assert report.drifted
    assert {i.interface: i.only_new for i in report.interfaces} == {
        "anthropic.messages": ("usage.foo",),
        "openai.chat.completions": ("usage.foo",),
    }
    json_file = tmp_path / "d.json"
    done = drift(
        str(stores["wire"]), "--against", str(stores["drifted"]), "--json-out", str(json_file)
    )
    assert done.exit_code == 1
    assert json.loads(json_file.read_text(encoding="utf-8"))["mode"] == "against"
    same = drift(str(stores["wire"]), "--against", str(stores["wire"]))
    assert same.exit_code == 0 and "no drift" in same.output
    # HTTP fixtures recorded other requests than the wire fixtures: their answers pooled
    pooled = drift_against(stores["wire"], stores["http"])
    [anthropic_pooled] = pooled.interfaces
    assert anthropic_pooled.compared == "pooled"
    assert (anthropic_pooled.old_responses, anthropic_pooled.new_responses) == (3, 2)
    assert "events[message_start].message.usage" in anthropic_pooled.only_new


def hand_store(path: Path, *fixtures: tuple[dict[str, Any], list[Any]]) -> Path:
    """A store of ``(request, responses)`` fixtures of ``anthropic.messages``, by hand."""
    meta = make_meta("anthropic.messages", "2023-06-01", "hand", recorded_at="2025-01-01T00:00:00Z")
    path.write_bytes(b"".join(Fixture.create(r, a, meta).to_line() for r, a in fixtures))
    return path


ASKED = {"model": MODEL, "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}
ANSWER = {
    "id": "msg_1", "type": "message", "role": "assistant", "stop_reason": "end_turn",
    "content": [{"type": "text", "text": "hello"}], "usage": {"input_tokens": 1},
}  # fmt: skip


def test_a_json_report_beside_the_stores_is_passed_over_and_written_again(tmp_path: Path) -> None:
    # drift --json-out drift.json at the project's top (as docs/fixtures.md writes it), then
    # `replaygate verify .`: the report was read as a damaged fixture file, exit 1.
    tree = tmp_path / "fixtures"
    tree.mkdir()
    answer = {**ANSWER, "model": MODEL, "usage": {"input_tokens": 1, "output_tokens": 1}}
    store = hand_store(tree / "rc.jsonl", (ASKED, [answer]))
    report = tmp_path / "drift.json"
    for _ in range(2):  # the second run replaces the report it wrote
        done = drift(str(store), "--against", str(store), "--json-out", str(report))
        assert done.exit_code == 0, done.output
    assert json.loads(report.read_text(encoding="utf-8"))["format"] == "replaygate.drift"
    checked = CliRunner().invoke(main, ["verify", str(tmp_path)])
    assert checked.exit_code == 0, checked.output
    assert "drift.json (replaygate.drift)" in checked.output


def test_against_compares_a_merge_union_copy_once(tmp_path: Path) -> None:
    # Two branches recorded one request alike; git's union merge kept the line twice. The
    # copy was an answer the other set lacked: NOT CHECKED, exit 2, with no drift at all.
    for side in ("old", "new"):
        (tmp_path / side).mkdir()
    old = hand_store(tmp_path / "old" / "rc.jsonl", (ASKED, [ANSWER]))
    old.write_bytes(old.read_bytes() * 2)
    new = hand_store(tmp_path / "new" / "rc.jsonl", (ASKED, [ANSWER]))
    for one, other in ((old, new), (new, old)):
        done = drift(str(one.parent), "--against", str(other.parent))
        assert done.exit_code == 0, done.output
        assert "not compared" not in done.output and "no drift" in done.output


def test_against_compares_each_answer_with_the_same_request_and_sample(tmp_path: Path) -> None:
    # Pooled by interface, sample 0's fields hid the empty answer of sample 1: "same fields".
    other_request = {**ASKED, "max_tokens": 9}
    old = hand_store(tmp_path / "old.jsonl", (ASKED, [ANSWER, ANSWER, ANSWER]))
    new = hand_store(tmp_path / "new.jsonl", (ASKED, [ANSWER, {}]), (other_request, [ANSWER]))
    done = drift(str(old), "--against", str(new))
    assert done.exit_code == 1, done.output
    assert "anthropic.messages: 2 response(s) from" in done.output
    assert "same fields" not in done.output
    for gone in ("content", "id", "usage.input_tokens"):
        assert f"    - {gone}\n" in done.output
    key = Fixture.create(other_request, []).key
    assert (
        f"anthropic.messages: 1 request(s) only in {new}, not compared: {new}:2 (key {key})"
    ) in done.output
    asked = Fixture.create(ASKED, []).key
    assert (
        f"anthropic.messages: 1 answer(s) only in {old}, not compared: {old}:1 (key {asked}), "
        "sample 2\n"
    ) in done.output
    same = drift(str(new), "--against", str(new))
    assert same.exit_code == 0 and "same fields" in same.output, same.output


def test_against_holds_neither_each_request_nor_each_field_set(tmp_path: Path) -> None:
    # two sets of 20,000 fixtures took 350 MB: each request whole, each answer's field set
    asked = [
        ({**ASKED, "messages": [{"role": "user", "content": f"{n} " + "x" * 20000}]}, [ANSWER])
        for n in range(40)
    ]
    store = hand_store(tmp_path / "s.jsonl", *asked)
    tracemalloc.start()
    try:
        assert drift_against(store, store).verdict is False
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * store.stat().st_size  # the file is read whole once


def test_against_compares_every_store_holding_a_request(tmp_path: Path) -> None:
    # Two per-test stores hold one first turn (the pytest plugin's layout): only the first
    # of each side was compared, "1 response(s) from old, 1 from new ... no drift", exit 0,
    # though new/test_b.jsonl had gained a field and lost one.
    called = {**ANSWER, "stop_reason": "tool_use", "content": [{"type": "tool_use", "id": "t"}]}
    moved = {**ANSWER, "usage": {"input_tokens": 1, "cache_creation": {}}}
    del moved["stop_reason"]
    other = {**ASKED, "max_tokens": 9}
    for side, last in (("old", called), ("new", moved)):
        (tmp_path / side).mkdir()
        hand_store(tmp_path / side / "test_a.jsonl", (ASKED, [ANSWER]), (other, [ANSWER]))
        hand_store(tmp_path / side / "test_b.jsonl", (ASKED, [last]), (other, [ANSWER]))
    old, new = tmp_path / "old", tmp_path / "new"
    done = drift(str(old), "--against", str(new))
    assert done.exit_code == 1, done.output
    assert f"anthropic.messages: 4 response(s) from {old}, 4 from {new}, paired by" in done.output
    assert "    + usage.cache_creation\n" in done.output and "    - stop_reason\n" in done.output
    # each store with its own: a test answered by a tool call is no drift of another's text
    same = drift(str(old), "--against", str(old))
    assert same.exit_code == 0 and "  same fields\n" in same.output, same.output
    # a store the other side does not have: its answers are named, and no pass
    (new / "test_a.jsonl").unlink()
    hand_store(new / "test_b.jsonl", (ASKED, [called]))
    done = drift(str(old), "--against", str(new))
    assert done.exit_code == 2, done.output
    asked, key = Fixture.create(ASKED, []).key, Fixture.create(other, []).key
    assert done.output.endswith(
        f"  same fields\nnot compared:\n  anthropic.messages: 1 request(s) only in {old}, not "
        f"compared: {old / 'test_a.jsonl'}:2 (key {key}), {old / 'test_b.jsonl'}:2 (key {key})\n"
        f"  anthropic.messages: 1 answer(s) only in {old}, not compared: "
        f"{old / 'test_a.jsonl'}:1 (key {asked}), sample 0\nNOT CHECKED: 1 request(s) only "
        "one side holds have nothing on the other side to be compared with (not compared "
        "above); record them in both sets, or compare sets that both hold them; 1 answer(s) "
        "of requests both sides hold have no answer of the other side to be compared with, "
        "of a sample or a store only one side recorded (not compared above); record them in "
        "both sets, as many samples in the same stores, then run drift again\n"
    )


SEARCH = ToolSpec("search", "Search the notes.", {"type": "object", "properties": {}})


@dataclass
class SearchesThenAnswers:
    """A model that calls ``search`` with its own tool id, then answers in text."""

    tool_id: str

    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        """A tool call for the question, the answer once the tool's result came back."""
        if messages[-1].role == "tool":
            return ModelResponse(text="RAG retrieves, then generates.")
        return ModelResponse(tool_calls=(ToolCall(self.tool_id, "search", {"q": "RAG"}),))


def recorder(client: anthropic.Anthropic, store: Path, model: str) -> RecordingModel:
    """A recording model of ``model`` through ``client`` into ``store``."""
    live = AnthropicModel(client, model=model, max_tokens=200)
    return RecordingModel(live, store, approve_live=True, model=model, max_tokens=200, source="sim")


def record_conversations(store: Path, first: Simulator, final: Simulator) -> None:
    """Two conversations of two turns each through the SDK, each turn a fixture: the
    tool call from ``first``, the final answer (the request carries the call) from
    ``final``."""
    with (
        anthropic.Anthropic(api_key="sim-key", base_url=first.url, max_retries=0) as one,
        anthropic.Anthropic(api_key="sim-key", base_url=final.url, max_retries=0) as two,
    ):
        calls, answers = recorder(one, store, MODEL), recorder(two, store, MODEL)
        for question in QUESTIONS[:2]:
            messages = [Message.user(question)]
            [call] = calls.complete(messages, [SEARCH]).tool_calls
            messages += [Message.assistant(tool_calls=[call]), Message.tool_result(call.id, "hit")]
            answers.complete(messages, [SEARCH])


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_against_a_set_recorded_again_compares_the_later_turns_pooled(tmp_path: Path) -> None:
    """Recorded again, a model gives new tool ids, so only each conversation's first
    request is in both sets; the final answers, which drifted, are compared pooled.

    Paired by request only, they were listed as not compared and the verdict was
    "no drift", exit 0.
    """
    before, again = tmp_path / "before.jsonl", tmp_path / "again.jsonl"
    with Simulator(behavior=SearchesThenAnswers("toolu_01")) as sim:
        record_conversations(before, sim, sim)
    live = SearchesThenAnswers("toolu_LIVE01")
    with Simulator(behavior=live) as first, Simulator(behavior=live, drift=DRIFT) as final:
        record_conversations(again, first, final)
    done = drift(str(before), "--against", str(again))
    assert done.exit_code == 1, done.output
    paired_line = f"anthropic.messages: 2 response(s) from {before}, 2 from {again}"
    assert f"{paired_line}, paired by request\n  same fields\n" in done.output
    assert f"{paired_line}, pooled (the requests only one side holds)\n" in done.output
    assert "    + usage.foo\n" in done.output and "    - stop_sequence\n" in done.output
    assert "compared pooled:\n" in done.output and "not compared:" not in done.output
    for side in (before, again):
        assert f"anthropic.messages: 2 request(s) only in {side}, compared pooled: " in done.output
    assert "DRIFT: 1 interface(s) drifted" in done.output
    report = drift_against(before, again).to_json()
    assert report["drift"] is True
    assert [i["compared"] for i in report["interfaces"]] == ["by request", "pooled"]
    assert len(report["pooled"]) == 2 and report["unmatched"] == []


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_against_sets_of_two_models_are_compared_pooled(tmp_path: Path) -> None:
    """``model`` is part of the request: sets recorded for two models share no request,
    and their answers are compared pooled rather than refused."""
    with Simulator(behavior="echo") as clean, Simulator(behavior="echo", drift=DRIFT) as moved:
        for sim, name in ((clean, "old"), (clean, "same"), (moved, "new")):
            model = MODEL if name == "old" else "claude-next-model"
            store = tmp_path / f"{name}.jsonl"
            with anthropic.Anthropic(api_key="sim-key", base_url=sim.url, max_retries=0) as c:
                recorder(c, store, model).complete([Message.user("What is RAG?")], [])
    old = tmp_path / "old.jsonl"
    same = drift(str(old), "--against", str(tmp_path / "same.jsonl"))
    assert same.exit_code == 0, same.output
    assert "1 from" in same.output and "pooled (the requests only one side holds)\n" in same.output
    assert "same fields" in same.output and "no drift: 0 interface(s) drifted" in same.output
    moved_report = drift_against(old, tmp_path / "new.jsonl")
    [pooled] = moved_report.interfaces
    assert pooled.compared == "pooled" and moved_report.drifted
    assert (pooled.only_new, pooled.only_old) == (("usage.foo",), ("stop_sequence",))


def test_the_sample_is_seeded(stores: dict[str, Path]) -> None:
    store = stores["wire"]
    found = drawable(store)
    first = sample(store, 3, 1, found)
    again = sample(store, 3, 1, found)
    other = sample(store, 3, 2, found)
    assert [f.key for _, f in first] == [f.key for _, f in again]
    assert [f.key for _, f in first] != [f.key for _, f in other]
    everything = sample(store, 100, 0, found)
    assert [f.key for _, f in everything] == [f.key for _, f in load_fixtures(store)]


class CountingSender:
    """A sender that counts the fixtures alive when it is asked to send (among the objects
    the collector tracks, those frozen out of its reach left out), and answers each with
    its recorded answer."""

    target = "counted"

    def __init__(self) -> None:
        self.alive: list[int] = []

    def send(self, fixture: Fixture) -> Any:
        self.alive.append(sum(isinstance(o, Fixture) for o in gc.get_objects()))
        return fixture.response


@pytest.mark.slow  # a drift check against the simulator
def test_live_drift_holds_only_the_fixtures_it_re_sends(tmp_path: Path) -> None:
    asked = [{**ASKED, "messages": [{"role": "user", "content": f"q{i}"}]} for i in range(300)]
    store = hand_store(tmp_path / "big.jsonl", *((a, [ANSWER]) for a in asked))
    sender = CountingSender()
    gc.collect()
    gc.freeze()  # what is live now, none of it a fixture: the sender walks only what comes after
    report = drift_live(store, 2, cast(LiveSender, sender), approve_live=True)
    assert len(report.sampled) == 2 and report.verdict is False
    assert max(sender.alive) < 20  # not the 300 of the store, held whole


@pytest.mark.slow  # a drift check against the simulator
def test_the_built_in_simulator(stores: dict[str, Path]) -> None:
    done = drift(str(stores["wire"]), "--live-sample", "2", "--approve-live", "--simulator",
                 "--sim-drift", DRIFT)  # fmt: skip
    assert done.exit_code == 1
    assert "+ usage.foo" in done.output
    bad = drift(str(stores["wire"]), "--live-sample", "2", "--approve-live", "--simulator",
                "--sim-drift", "rename:x")  # fmt: skip
    assert bad.exit_code == 2
    assert "expected add-field:PATH[=VALUE] or drop-field:PATH" in bad.output


@pytest.mark.slow  # a drift check against the simulator
def test_the_built_in_simulator_answers_as_the_fixtures_were_recorded(
    stores: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wire = str(stores["wire"])  # recorded from the echo behaviour
    args = ("--live-sample", "6", "--approve-live", "--simulator")
    same = drift(wire, *args, "--behavior", "echo")
    assert same.exit_code == 0 and "no drift" in same.output, same.output
    monkeypatch.chdir(tmp_path)
    Path("answers.jsonl").write_text(
        '{"tool_calls": [{"id": "toolu_1", "name": "get_weather", '
        '"arguments": {"city": "Oslo"}}]}\n'
    )
    with (
        Simulator(behavior="script:answers.jsonl") as sim,
        anthropic.Anthropic(api_key="sim-key", base_url=sim.url, max_retries=0) as claude,
    ):
        recorder = RecordingModel(
            AnthropicModel(claude, model=MODEL, max_tokens=50), "scripted.jsonl",
            approve_live=True, model=MODEL, max_tokens=50, source="sim",
        )  # fmt: skip
        recorder.complete([Message.user("Weather in Oslo?")], [])
    scripted = ("scripted.jsonl", "--live-sample", "1", "--approve-live", "--simulator")
    by_echo = drift(*scripted, "--behavior", "echo")
    assert by_echo.exit_code == 1 and DEFAULT_BEHAVIOR_NOTE not in by_echo.output
    by_default = drift(*scripted)  # answered as research-copilot, in another form
    assert by_default.exit_code == 1 and DEFAULT_BEHAVIOR_NOTE in by_default.output
    done = drift(*scripted, "--behavior", "script:answers.jsonl")
    assert done.exit_code == 0 and "no drift" in done.output, done.output
    for bad, said in (("parrot", "unknown behavior 'parrot'"), ("script:none.jsonl", "none.jsonl")):
        refused = drift(*scripted, "--behavior", bad)
        assert refused.exit_code == 2 and "Invalid value for '--behavior'" in refused.output
        assert said in refused.output and "re-sent" not in refused.output
    alone = drift("scripted.jsonl", "--live-sample", "1", "--behavior", "echo")
    assert alone.exit_code == 2 and "--behavior goes with --simulator" in alone.output


@pytest.mark.parametrize(
    "rule",
    [
        "add-field:" + ".".join(["a"] * 300),
        "add-field:a=" + "[" * 200 + "]" * 200,
        "add-field:a=" + "[" * 5000 + "]" * 5000,
    ],
    ids=["path", "value", "value past the parser"],
)
def test_a_drift_rule_nested_deeper_than_an_answer_holds_is_refused_before_anything_runs(
    stores: dict[str, Path], rule: str
) -> None:
    # it was taken, and every answer then broke the simulator (a traceback, no answer)
    done = drift(str(stores["wire"]), "--live-sample", "1", "--approve-live", "--simulator",
                 "--sim-drift", rule)  # fmt: skip
    assert done.exit_code == 2, done.output
    assert "more than 200 levels deep" in done.output
    assert "Traceback" not in done.output and "re-sent" not in done.output
    assert DriftRule.parse("add-field:" + ".".join(["a"] * 199) + "=[]").value == []


@pytest.mark.slow  # a drift check against the simulator
def test_a_simulator_drift_rule_that_matches_nothing_is_named(stores: dict[str, Path]) -> None:
    misspelt = drift(str(stores["wire"]), "--live-sample", "2", "--approve-live", "--simulator",
                     "--sim-drift", "drop-field:stop_sequnce,add-field:usage.foo")  # fmt: skip
    assert misspelt.exit_code == 1, misspelt.output
    assert (
        "note: --sim-drift rule 'drop-field:stop_sequnce' changed no answer: none has that "
        "path, or each holds that value already, so it injected no drift\n"
    ) in misspelt.output
    assert "'add-field:usage.foo'" not in misspelt.output  # it applied
    alone = drift(str(stores["wire"]), "--live-sample", "2", "--approve-live", "--simulator",
                  "--sim-drift", "drop-field:stop_sequnce", "--json")  # fmt: skip
    assert alone.exit_code == 2, alone.output  # it was "no drift", exit 0: a pass of nothing
    assert json.loads(alone.stdout)["drift"] is None
    assert json.loads(alone.stdout)["uninjected"] == ["drop-field:stop_sequnce"]
    shown = drift(str(stores["wire"]), "--live-sample", "2", "--approve-live", "--simulator",
                  "--sim-drift", "drop-field:stop_sequnce")  # fmt: skip
    assert shown.exit_code == 2 and "no drift" not in shown.stdout, shown.output
    assert shown.stdout.endswith(
        "not injected:\n  drop-field:stop_sequnce\nNOT CHECKED: --sim-drift "
        "'drop-field:stop_sequnce' changed no answer (not injected above), so the drift it was "
        "to inject was not there to be found; name a path the answers hold, then run drift "
        "again\n"
    )
    listed = drift(str(stores["wire"]), "--live-sample", "2", "--approve-live", "--simulator",
                   "--sim-drift", "drop-field:content[].type")  # fmt: skip
    assert listed.exit_code == 2
    assert "a list item is named by its index (content.0.type), not by []" in listed.output


def only(store: Path, interface: str, out: Path) -> Path:
    """The fixtures of ``store`` of one ``interface``, in a store of their own at ``out``."""
    from replaygate.fixtures.store import FixtureStore

    with FixtureStore.open(out) as kept:
        for _, fixture in load_fixtures(store):
            if (fixture.meta or {}).get("interface") == interface:
                kept.put(fixture)
    return out


@pytest.mark.slow  # a drift check against the simulator
def test_a_drift_plan_used_again_starts_each_check_with_no_match(
    stores: dict[str, Path], tmp_path: Path
) -> None:
    # The plan kept the rules matched in the first check, so the second, where no answer
    # had the field, named none of them.
    plan = DriftPlan.parse("drop-field:stop_sequence")
    openai_only = only(stores["wire"], "openai.chat.completions", tmp_path / "openai.jsonl")
    with Simulator(behavior="echo", drift=plan) as sim:
        resend(only(stores["wire"], "anthropic.messages", tmp_path / "a.jsonl"), 1, sim.url)
        assert sim.unmatched_drift() == ()
    with Simulator(behavior="echo", drift=plan) as sim:
        assert sim.unmatched_drift() == plan.rules
        resend(openai_only, 1, sim.url)
        assert sim.unmatched_drift() == plan.rules  # no chat completion has stop_sequence
    assert plan == DriftPlan.parse("drop-field:stop_sequence")
    assert not hasattr(plan, "matched")


class Fails(Handler):
    """Answers every request ``500``: nothing can be compared."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.answer_json({"type": "error", "error": {"type": "api_error", "message": "x"}}, 500)


@pytest.mark.slow  # a drift check against the simulator
def test_json_says_nothing_was_checked_when_no_request_could_be_re_sent(
    stores: dict[str, Path],
) -> None:
    with serving(Fails) as url:
        done = drift(str(stores["wire"]), "--live-sample", "2", "--approve-live",
                     "--base-url", url, "--json")  # fmt: skip
    assert done.exit_code == 2, done.output
    report = json.loads(done.output)
    assert report["drift"] is None
    assert report["sampled"] == [] and len(report["errors"]) == 2


class LoginPage(Handler):
    """A proxy that answers every request ``200`` with an HTML login page."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        page = b"<html>proxy login</html>"
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)


@pytest.mark.slow  # a drift check against the simulator
def test_an_answer_that_is_not_json_is_named_by_what_came_back(stores: dict[str, Path]) -> None:
    with serving(LoginPage) as url:
        done = drift(str(stores["wire"]), "--live-sample", "1", "--approve-live", "--base-url", url)
    assert done.exit_code == 2, done.output
    [line] = [line for line in done.output.splitlines() if "answered" in line]
    assert line.endswith(
        f"POST {url}/v1/chat/completions answered 200 text/html, not a JSON object: "
        "'<html>proxy login</html>'"
    ), line
    assert "expected a JSON value" not in done.output


def test_a_gemini_answer_that_is_not_json_is_named_by_what_came_back() -> None:
    page = b"<html>proxy login</html>"
    login = httpx2.MockTransport(
        lambda request: httpx2.Response(200, content=page, headers={"content-type": "text/html"})
    )
    with httpx2.Client(transport=login) as http:
        options = genai.types.HttpOptions(base_url="https://gw.example", httpx_client=http)
        sdk = genai.Client(api_key="k", http_options=options)
        model = GeminiModel(sdk, model="g", max_tokens=8)
        with pytest.raises(LiveAPIError) as caught:  # was orjson's JSONDecodeError
            model.complete([Message.user("hi")], ())
    assert str(caught.value) == (
        "POST https://gw.example/v1beta/models/g:generateContent answered text/html, "
        "not a JSON object: '<html>proxy login</html>'"
    )


@pytest.mark.slow  # a drift check against the simulator
def test_a_live_answer_to_an_http_fixture_that_is_html_is_named_not_drift(
    stores: dict[str, Path],
) -> None:
    # Kept as text, the page had no field, and every recorded field showed as gone.
    with serving(LoginPage) as url:
        done = drift(str(stores["http"]), "--live-sample", "2", "--approve-live", "--base-url", url)
    assert done.exit_code == 2, done.output
    lines = [line for line in done.output.splitlines() if "answered" in line]
    assert len(lines) == 2, done.output
    for line in lines:
        assert line.endswith(
            f"POST {url}/v1/messages answered 200 text/html, not a JSON object: "
            "'<html>proxy login</html>'"
        ), line
    assert "    - " not in done.output and "DRIFT" not in done.output
    assert "NOT CHECKED: 2 request(s) could not be re-sent" in done.output


def http_store(path: Path, *answers: dict[str, Any], asked: dict[str, Any] = ASKED) -> Path:
    """A store of one HTTP fixture of Anthropic's Messages API, ``asked`` answered
    ``answers`` (a retry sequence or samples), added to those ``path`` holds."""
    envelope = {
        "method": "POST", "path": "/v1/messages", "body": asked,
        "headers": {"anthropic-version": "2023-06-01", "content-type": "application/json"},
    }  # fmt: skip
    meta = make_meta("anthropic.messages", "2023-06-01", "hand", recorded_at="2025-01-01T00:00:00Z")
    with path.open("ab") as out:
        out.write(Fixture.create(envelope, list(answers), meta).to_line())
    return path


JSON_TYPE = {"content-type": "application/json"}
ANSWERED = {"status": 200, "headers": JSON_TYPE, "body": ANSWER}


def error_reply(status: int, kind: str) -> dict[str, Any]:
    """An HTTP error answer of Anthropic's API, as the recording transport stores it."""
    body = {"type": "error", "error": {"type": kind, "message": "try later"}, "request_id": "r1"}
    return {"status": status, "headers": JSON_TYPE, "body": body}


def test_against_leaves_recorded_error_answers_out(tmp_path: Path) -> None:
    # A request recorded through an SDK's retries was compared by its 429: every field
    # drifted ("+ error", "- content"), its 200 went "not compared"; two sets of only
    # errors had "same fields", then "no drift", exit 0.
    limited = error_reply(429, "rate_limit_error")
    clean = http_store(tmp_path / "clean.jsonl", ANSWERED)
    retried = http_store(tmp_path / "retried.jsonl", limited, limited, ANSWERED)
    for old, new in ((clean, retried), (retried, clean)):
        done = drift(str(old), "--against", str(new))
        assert done.exit_code == 0, done.output
        assert done.output == (
            f"drift: {old} vs {new}\nanthropic.messages: 1 response(s) from {old}, 1 from "
            f"{new}, paired by request\n  same fields\nno drift: 0 interface(s) drifted\n"
        )
    failed = http_store(tmp_path / "failed.jsonl", error_reply(500, "api_error"))
    only_429 = http_store(tmp_path / "limited.jsonl", limited, limited)
    done = drift(str(failed), "--against", str(only_429))
    assert done.exit_code == 2, done.output
    assert (
        f"Error: nothing to compare: no fixture at {failed} holds an answer that is not an "
        f"error ({failed}:1: recorded only error answers: an error response (status 500)); "
        f"no fixture at {only_429} holds an answer that is not an error ({only_429}:1: "
        "recorded only error answers: an error response (status 429)); re-record those "
        "requests (an error answer shows no field the API sends)\n"
    ) in done.output
    # A request one set recorded only errors for is that set's no request: not compared.
    other = {**ASKED, "max_tokens": 9}
    both = http_store(http_store(tmp_path / "both.jsonl", ANSWERED), ANSWERED, asked=other)
    one = http_store(http_store(tmp_path / "one.jsonl", ANSWERED), limited, asked=other)
    done = drift(str(both), "--against", str(one))
    assert done.exit_code == 2, done.output
    assert "  same fields\n" in done.output and "+ error" not in done.output
    assert (
        f"skipped:\n  {one}:2: recorded only error answers: an error response (status 429)\n"
    ) in done.output
    assert f"anthropic.messages: 1 request(s) only in {both}, not compared: {both}:2" in (
        done.output
    )


@pytest.mark.slow  # a drift check against the simulator
def test_a_recorded_html_answer_is_named_not_drift(tmp_path: Path) -> None:
    # --against showed every field of the other set's answer as gone.
    good = http_store(tmp_path / "good.jsonl", ANSWERED)
    page = {"status": 200, "headers": {"content-type": "text/html"}, "text": "<html>login</html>"}
    html = http_store(tmp_path / "html.jsonl", page)
    key = load_fixtures(html)[0][1].key
    said = "POST /v1/messages answered 200 text/html, not a JSON object: '<html>login</html>'"
    for old, new in ((good, html), (html, good)):
        done = drift(str(old), "--against", str(new))
        assert done.exit_code == 2, done.output
        assert f"  {html}:1 (key {key}), sample 0: {said}\n" in done.output
        assert "    - " not in done.output and "DRIFT" not in done.output
        assert "NOT CHECKED: 1 recorded answer(s) are not JSON (errors above)" in done.output
        assert json.loads(drift(str(old), "--against", str(new), "--json").output)["drift"] is None
    live = drift(str(html), "--live-sample", "1", "--approve-live", "--simulator")
    assert live.exit_code == 2, live.output
    assert f"{html}:1: its recorded answer: {said}" in live.output


def test_usage_errors(stores: dict[str, Path], tmp_path: Path) -> None:
    neither = drift(str(stores["wire"]))
    assert neither.exit_code == 2 and "give --live-sample N" in neither.output
    both = drift(str(stores["wire"]), "--live-sample", "1", "--against", str(stores["wire"]))
    # Both given was told "give --live-sample N ... or --against OTHER_PATH", as for neither.
    assert both.exit_code == 2 and "give --live-sample N" not in both.output
    assert "--live-sample N and --against OTHER_PATH are two modes of drift" in both.output
    assert "give one, not both" in both.output
    offline_live = drift(str(stores["wire"]), "--against", str(stores["wire"]), "--approve-live")
    assert offline_live.exit_code == 2 and "--against compares fixture sets offline" in (
        offline_live.output
    )
    missing = drift(str(tmp_path / "none.jsonl"), "--against", str(stores["wire"]))
    assert missing.exit_code == 2 and "no fixture store at" in missing.output
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text("{nope}\n", encoding="utf-8")
    bad = drift(str(damaged), "--against", str(stores["wire"]))
    assert bad.exit_code == 2 and f"{damaged}:1: malformed JSON" in bad.output


def test_one_file_for_both_reports_is_refused(stores: dict[str, Path], tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    out, same = tmp_path / "out.txt", tmp_path / "sub" / ".." / "out.txt"
    done = drift(str(stores["wire"]), "--against", str(stores["wire"]),
                 "--report", str(out), "--json-out", str(same))  # fmt: skip
    assert done.exit_code == 2
    assert f"{same}: named by both --report and --json-out" in done.output
    assert not out.exists()


@pytest.mark.slow
def test_unreachable_server_is_an_error_not_a_pass(stores: dict[str, Path]) -> None:
    with Simulator(behavior="echo") as sim:
        url = sim.url
    done = drift(str(stores["wire"]), "--live-sample", "1", "--approve-live", "--base-url", url)
    assert done.exit_code == 2, done.output
    assert "errors:" in done.output and "Connection error." in done.output
    assert "APIConnectionError" not in done.output
    assert "NOT CHECKED: 1 request(s) could not be re-sent" in done.output
    assert "no drift" not in done.output


@pytest.mark.slow  # a drift check against the simulator
def test_missing_api_key_is_named(stores: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    done = drift(str(stores["wire"]), "--live-sample", "1", "--approve-live")
    assert done.exit_code == 2
    assert "is not set: drift re-sends recorded requests to the live API" in done.output


@pytest.mark.slow  # a drift check against the simulator
def test_live_answers_go_through_the_configured_trim(
    stores: dict[str, Path], clean_sim: Simulator, tmp_path: Path
) -> None:
    from replaygate.fixtures.fixture import Fixture
    from replaygate.fixtures.store import FixtureStore
    from replaygate.sanitize import SanitizeConfig, Sanitizer

    sanitizer = Sanitizer(SanitizeConfig(trim={"anthropic.messages": ["content", "model"]}))
    trimmed = tmp_path / "trimmed.jsonl"
    with FixtureStore.open(trimmed) as store:
        for _, fixture in load_fixtures(stores["wire"]):
            if (fixture.meta or {}).get("interface") != "anthropic.messages":
                continue
            body = sanitizer.response(
                fixture.response, key=fixture.key, interface="anthropic.messages"
            )
            store.put(Fixture(fixture.key, fixture.request, (body,), fixture.meta))
    assert "id" not in load_fixtures(trimmed)[0][1].response
    plain = resend(trimmed, 3, clean_sim.url)
    same = resend(trimmed, 3, clean_sim.url, sanitizer=sanitizer)
    assert set(plain.interfaces[0].only_new) == {"id", "type", "role", "stop_sequence"}
    assert not same.drifted


@pytest.mark.slow  # a drift check against the simulator
def test_a_sampled_fixture_is_compared_by_its_first_answer(tmp_path: Path) -> None:
    """A request is re-sent once, so its one live answer is compared with one recorded answer.

    Sample 0 answered in text and sample 1 called a tool (the model varies); the API did not
    change. The union of every sample's fields against one live answer called that drift.
    """
    script = tmp_path / "answers.jsonl"
    script.write_text(
        '{"text": "RAG retrieves first."}\n'
        '{"tool_calls": [{"id": "toolu_01", "name": "search", "arguments": {"q": "RAG"}}]}\n',
        encoding="utf-8",
    )
    store = tmp_path / "sampled.jsonl"
    with (
        Simulator(behavior=f"script:{script}") as sim,
        anthropic.Anthropic(api_key="sim-key", base_url=sim.url, max_retries=0) as claude,
    ):
        for index in (0, 1):
            recorder = RecordingModel(
                AnthropicModel(claude, model=MODEL, max_tokens=200), store, approve_live=True,
                model=MODEL, max_tokens=200, source="sim", sample=index,
            )  # fmt: skip
            recorder.complete([Message.user("What is RAG?")], [])
    [(_, fixture)] = load_fixtures(store)
    assert len(fixture.responses) == 2
    with Simulator(behavior=f"script:{script}") as sim:  # the first answer again, same fields
        report = resend(store, 1, sim.url)
    [interface] = report.interfaces
    assert not report.drifted, (interface.only_new, interface.only_old)
    assert (interface.old_responses, interface.new_responses) == (1, 1)
    with Simulator(behavior=f"script:{script}", drift=DRIFT) as sim:  # a real drift still shows
        drifted = resend(store, 1, sim.url)
    assert drifted.interfaces[0].only_new == ("usage.foo",)


@pytest.mark.slow  # a drift check against the simulator
def test_each_live_answer_is_compared_with_its_own_recorded_answer(
    stores: dict[str, Path], tmp_path: Path
) -> None:
    """A server answers the first request as recorded and the others ``200 {}``.

    Pooled over the requests, the first answer's fields hid the empty ones: "same fields".
    """
    from replaygate.fixtures.store import FixtureStore

    store = tmp_path / "anthropic.jsonl"
    with FixtureStore.open(store) as out:
        for _, fixture in load_fixtures(stores["wire"]):
            if (fixture.meta or {}).get("interface") == "anthropic.messages":
                out.put(fixture)
    recorded = load_fixtures(store)[0][1].response

    class FirstThenEmpty(Handler):
        answered: ClassVar[int] = 0

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            FirstThenEmpty.answered += 1
            self.answer_json(recorded if FirstThenEmpty.answered == 1 else {})

    with serving(FirstThenEmpty) as url:
        done = drift(str(store), "--live-sample", "3", "--approve-live", "--base-url", url)
    assert FirstThenEmpty.answered == 3
    assert done.exit_code == 1, done.output
    assert "same fields" not in done.output
    for field in ("content", "id", "usage", "usage.output_tokens"):
        assert f"    - {field}\n" in done.output
    assert "DRIFT: 1 interface(s) drifted" in done.output


@dataclass
class CallsSearch:
    """A model that answers every request with a call of ``search`` with ``arguments``."""

    arguments: dict[str, Any]

    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        """One tool call, the arguments this model chose."""
        return ModelResponse(tool_calls=(ToolCall("toolu_01", "search", self.arguments),))


def record_anthropic_tool_call(sim: Simulator, store: Path) -> None:
    """A wire fixture of an Anthropic answer that is a ``tool_use`` block, through the SDK."""
    with anthropic.Anthropic(api_key="sim-key", base_url=sim.url, max_retries=0) as claude:
        recorder = RecordingModel(
            AnthropicModel(claude, model=MODEL, max_tokens=200), store, approve_live=True,
            model=MODEL, max_tokens=200, source="sim",
        )  # fmt: skip
        recorder.complete([Message.user("What is RAG?")], [])


def record_gemini_tool_call(sim: Simulator, store: Path) -> None:
    """HTTP fixtures of a Gemini ``functionCall`` answer, plain and streamed."""
    body = {"contents": [{"role": "user", "parts": [{"text": "What is RAG?"}]}]}
    headers = {"x-goog-api-key": "AIzaSyTestKeyForTheSimulator0123456789"}
    with httpx2_client(store, "record-missing", approve_live=True, source="sim") as http:
        for method in ("generateContent", "streamGenerateContent?alt=sse"):
            url = f"{sim.url}/v1beta/models/gemini-test:{method}"
            http.post(url, json=body, headers=headers).raise_for_status()


Recorder = Callable[[Simulator, Path], None]
TOOL_CALLS: dict[str, tuple[Recorder, str, tuple[str, ...], tuple[str, ...]]] = {
    # interface: the recorder, the drift injected (a field added inside the tool call,
    # outside its arguments, a key added to the arguments, a field dropped elsewhere),
    # the fields that drift must report as added, and as dropped
    "anthropic.messages": (
        record_anthropic_tool_call,
        "add-field:content.0.cache_hint=1,add-field:content.0.input.extra=1,"
        "drop-field:stop_sequence",
        ("content[].cache_hint",),
        ("stop_sequence",),
    ),
    "google.generate_content": (
        record_gemini_tool_call,
        "add-field:candidates.0.content.parts.0.functionCall.foo=1,"
        "add-field:candidates.0.content.parts.0.functionCall.args.extra=1,"
        "drop-field:modelVersion",
        (
            "candidates[].content.parts[].functionCall.foo",
            "events[].candidates[].content.parts[].functionCall.foo",
        ),
        ("events[].modelVersion", "modelVersion"),
    ),
}


@pytest.mark.parametrize("interface", sorted(TOOL_CALLS))
@pytest.mark.slow  # a drift check against the simulator
def test_tool_call_arguments_are_model_output_not_api_shape(interface: str, tmp_path: Path) -> None:
    """A live model calls the tool with other arguments: their keys are no drift of the API.

    The field holding the arguments is still compared, and so is every field around it.
    """
    record, injected, added, dropped = TOOL_CALLS[interface]
    store = tmp_path / "tools.jsonl"
    with Simulator(behavior=CallsSearch({"q": "RAG"})) as sim:
        record(sim, store)
    other_arguments = CallsSearch({"query": "RAG", "limit": 3})
    with Simulator(behavior=other_arguments) as sim:
        same = resend(store, 2, sim.url)
    [compared] = same.interfaces
    assert compared.interface == interface and not same.errors
    assert not same.drifted, (compared.only_new, compared.only_old)
    with Simulator(behavior=other_arguments, drift=injected) as sim:
        drifted = resend(store, 2, sim.url)
    [changed] = drifted.interfaces
    assert changed.only_new == added
    assert changed.only_old == dropped


def test_the_field_holding_tool_call_arguments_is_a_field_its_keys_are_not() -> None:
    anthropic_body = {"content": [{"type": "tool_use", "name": "search", "input": {"q": "x"}}]}
    gemini_body = {"candidates": [{"content": {"parts": [{"functionCall": {"args": {"q": 1}}}]}}]}
    assert "content[].input" in field_paths(anthropic_body)
    assert not any(p.startswith("content[].input.") for p in field_paths(anthropic_body))
    gemini = field_paths(gemini_body)
    assert "candidates[].content.parts[].functionCall.args" in gemini
    assert not any(p.startswith("candidates[].content.parts[].functionCall.args.") for p in gemini)
    # an object that is no tool call is read to the end
    assert "usage.input.q" in field_paths({"usage": {"input": {"q": 1}}})


@pytest.mark.slow  # a drift check against the simulator
def test_drift_builds_its_simulators_behaviour_once(
    stores: dict[str, Path], tmp_path: Path
) -> None:
    # The option checked the script by building the behaviour, then the simulator built it
    # again from its name: the script was read twice.
    script = tmp_path / "answers.jsonl"
    script.write_text(f'{{"text": "echo: {QUESTIONS[0]}"}}\n')  # as the store was recorded
    args = ("--live-sample", "1", "--approve-live", "--simulator", "--behavior")
    with opened() as files:
        done = drift(str(stores["wire"]), *args, f"script:{script}")
    assert done.exit_code == 0, done.output
    assert files.count(str(script)) == 1


def test_requests_only_one_side_holds_with_nothing_to_pool_with_are_no_pass(
    tmp_path: Path,
) -> None:
    # The request only NEW holds could be compared with nothing: "not compared:", then
    # "no drift" and exit 0, though an answer never looked at may have drifted.
    other_request = {**ASKED, "max_tokens": 9}
    old = hand_store(tmp_path / "old.jsonl", (ASKED, [ANSWER]))
    new = hand_store(tmp_path / "new.jsonl", (ASKED, [ANSWER]), (other_request, [{}]))
    json_file = tmp_path / "drift.json"
    done = drift(str(old), "--against", str(new), "--json-out", str(json_file))
    assert done.exit_code == 2, done.output
    assert "  same fields\n" in done.output and "no drift" not in done.output
    key = Fixture.create(other_request, []).key
    assert done.output.endswith(
        f"not compared:\n  anthropic.messages: 1 request(s) only in {new}, not compared: "
        f"{new}:2 (key {key})\nNOT CHECKED: 1 request(s) only one side holds have nothing on "
        "the other side to be compared with (not compared above); record them in both sets, "
        "or compare sets that both hold them, then run drift again\n"
    )
    assert json.loads(json_file.read_text(encoding="utf-8"))["drift"] is None
    report = drift_against(new, old)
    assert (report.not_compared, report.verdict) == (1, None)
    assert drift_against(old, old).verdict is False


def test_an_answer_of_a_sample_only_one_side_recorded_is_no_pass(tmp_path: Path) -> None:
    # Named under "not compared:", then "no drift", exit 0 and "drift": false, though the
    # answer never looked at had a field no answer of the other side has.
    old = hand_store(tmp_path / "old.jsonl", (ASKED, [ANSWER]))
    voted = [ANSWER, {**ANSWER, "container": None}, ANSWER]
    new = hand_store(tmp_path / "new.jsonl", (ASKED, voted))
    key = Fixture.create(ASKED, []).key
    for path, other in ((old, new), (new, old)):
        done = drift(str(path), "--against", str(other), "--json-out", str(tmp_path / "d.json"))
        assert done.exit_code == 2, done.output
        assert "  same fields\n" in done.output and "no drift" not in done.output
        assert done.output.endswith(
            f"not compared:\n  anthropic.messages: 2 answer(s) only in {new}, not compared: "
            f"{new}:1 (key {key}), sample 1, {new}:1 (key {key}), sample 2\nNOT CHECKED: 2 "
            "answer(s) of requests both sides hold have no answer of the other side to be "
            "compared with, of a sample or a store only one side recorded (not compared "
            "above); record them in both sets, as many samples in the same stores, then run "
            "drift again\n"
        )
        assert json.loads((tmp_path / "d.json").read_text(encoding="utf-8"))["drift"] is None
    report = drift_against(old, new)
    assert (report.answers_not_compared, report.not_compared, report.verdict) == (2, 0, None)
    assert drift_against(new, new).verdict is False


@pytest.mark.slow  # a drift check against the simulator
def test_a_bearer_token_alone_is_sent_as_the_anthropic_sdk_sends_it(
    stores: dict[str, Path], clean_sim: Simulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "token-from-the-environment")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", clean_sim.url)
    monkeypatch.setenv("OPENAI_API_KEY", "sim-key")
    monkeypatch.setenv("OPENAI_BASE_URL", clean_sim.openai_base_url)
    clean_sim.clear_requests()
    done = drift(str(stores["wire"]), "--live-sample", "4", "--approve-live")
    assert done.exit_code == 0, done.output
    sent = [r.headers for r in clean_sim.requests if r.path == "/v1/messages"]
    assert sent, "no Anthropic request re-sent"
    assert all(h.get("authorization") == "Bearer token-from-the-environment" for h in sent)
    assert all("x-api-key" not in h for h in sent)


@pytest.mark.slow  # a drift check against the simulator
def test_a_missing_anthropic_credential_names_both_variables(
    stores: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    done = drift(str(stores["http"]), "--live-sample", "1", "--approve-live")
    assert done.exit_code == 2
    assert "ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN is not set: drift re-sends" in done.output


def test_a_gemini_key_is_read_from_either_variable_google_genai_reads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("GOOGLE_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(HygieneError, match="GOOGLE_API_KEY or GEMINI_API_KEY is not set"):
        LiveSender().key("google")
    monkeypatch.setenv("GOOGLE_API_KEY", "from-google")
    assert LiveSender().key("google") == "from-google"
    monkeypatch.setenv("GEMINI_API_KEY", "from-gemini")
    assert LiveSender().key("google") == "from-google"  # the SDK's choice of the two
    monkeypatch.delenv("GOOGLE_API_KEY")
    assert LiveSender().key("google") == "from-gemini"


@pytest.mark.parametrize("rewrite", ["reordered", "cut"])
def test_a_store_rewritten_between_the_draw_and_the_read_back_is_refused(
    tmp_path: Path, rewrite: str
) -> None:
    asked = [{**ASKED, "messages": [{"role": "user", "content": f"q{i}"}]} for i in range(4)]
    store = hand_store(tmp_path / "s.jsonl", *((a, [ANSWER]) for a in asked))
    found = drawable(store)
    lines = store.read_bytes().splitlines(keepends=True)
    store.write_bytes(b"".join(lines[::-1] if rewrite == "reordered" else lines[:2]))
    with pytest.raises(HygieneError, match="the store changed while it was read"):
        sample(store, 4, 0, found)
