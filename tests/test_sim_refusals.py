"""Errors the simulator makes of its own accord (a script run out, a behaviour that
raised, a value it cannot make) are not model answers: a recording keeps none of them,
and the request fails with the simulator's message. Its scripted faults are recorded."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx2
import pytest

from replaygate.errors import SimulatorRefusalError
from replaygate.fixtures.store import FixtureStore
from replaygate.http import httpx2_client
from replaygate.http.routes import SIMULATOR_REFUSAL, simulator_refusal
from replaygate.models.fakes import ScriptedModel
from replaygate.models.types import Message, ModelResponse, ToolSpec
from replaygate.sim import FaultPlan, Simulator
from sdks import anthropic, openai

QUESTION = [{"role": "user", "content": "first call"}]
AGAIN = [{"role": "user", "content": "second call"}]


class Broken:
    """A behaviour that raises."""

    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        raise RuntimeError("the policy has no answer")


def recording_anthropic(store: Path, sim: Simulator, retries: int = 2) -> anthropic.Anthropic:
    http = httpx2_client(store, "record-missing", approve_live=True, source="sim")
    return anthropic.Anthropic(api_key="k", base_url=sim.url, max_retries=retries, http_client=http)


def recording_openai(store: Path, sim: Simulator) -> openai.OpenAI:
    http = httpx2_client(store, "record-missing", approve_live=True, source="sim")
    return openai.OpenAI(api_key="k", base_url=sim.openai_base_url, http_client=http)


def asked(store: Path) -> list[tuple[Any, list[int]]]:
    """Each stored request's first message and the statuses of its answers."""
    return [
        (f.request["body"]["messages"][0]["content"], [r["status"] for r in f.responses])
        for f in FixtureStore.open(store)
    ]


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_an_exhausted_script_is_not_recorded_and_says_so(tmp_path: Path) -> None:
    script = tmp_path / "s.jsonl"
    script.write_text('{"text": "only one"}\n')
    store = tmp_path / "t.jsonl"
    with Simulator(behavior=f"script:{script}") as sim:
        client = recording_anthropic(store, sim)  # the SDK's own retries left on
        client.messages.create(model="m", max_tokens=8, messages=QUESTION)
        with pytest.raises(SimulatorRefusalError) as caught:
            client.messages.create(model="m", max_tokens=8, messages=AGAIN)
        assert len(sim.requests) == 2  # not retried: asking again changes nothing
    message = str(caught.value)
    assert f"simulator script {script} is exhausted" in message
    assert "add lines to the script" in message and "Nothing was written" in message
    assert isinstance(caught.value, anthropic.AnthropicError)  # passed through as is
    assert asked(store) == [("first call", [200])]

    script.write_text('{"text": "only one"}\n{"text": "two"}\n')  # as the message says
    with Simulator(behavior=f"script:{script}") as sim:
        client = recording_anthropic(store, sim)
        client.messages.create(model="m", max_tokens=8, messages=QUESTION)  # replayed
        reply = client.messages.create(model="m", max_tokens=8, messages=AGAIN)
    assert reply.content[0].text == "two"  # the replayed first call took the first line
    assert asked(store) == [("first call", [200]), ("second call", [200])]


def test_a_behaviour_that_raised_is_not_recorded(tmp_path: Path) -> None:
    store = tmp_path / "t.jsonl"
    with Simulator(behavior=Broken()) as sim, pytest.raises(SimulatorRefusalError) as caught:
        recording_openai(store, sim).chat.completions.create(model="g", messages=QUESTION)
    assert "simulator behaviour failed: the policy has no answer" in str(caught.value)
    assert "answered 500" in str(caught.value)
    assert not FixtureStore.open(store)


def test_a_value_the_simulator_cannot_make_is_not_recorded(tmp_path: Path) -> None:
    store = tmp_path / "t.jsonl"
    schema = {
        "type": "object",
        "properties": {"code": {"type": "string", "pattern": r"^(?=.*\d)[a-z\d]{8}$"}},
        "required": ["code"],
    }
    response_format: Any = {"type": "json_schema", "json_schema": {"name": "O", "schema": schema}}
    with Simulator(behavior="echo") as sim, pytest.raises(SimulatorRefusalError) as caught:
        recording_openai(store, sim).chat.completions.create(
            model="g", messages=QUESTION, response_format=response_format
        )
    assert "answered 400" in str(caught.value)
    assert "The simulator makes no answer of the JSON asked for" in str(caught.value)
    assert not FixtureStore.open(store)


def test_a_refusal_ending_its_sentence_is_told_with_one_full_stop() -> None:
    refused = SimulatorRefusalError("POST", "/v1/responses", 400, "Record it from the live API.")
    assert "live API. Nothing was written" in str(refused)  # was 'live API.. Nothing'


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_scripted_fault_is_recorded_as_the_answer_it_plays(tmp_path: Path) -> None:
    store = tmp_path / "t.jsonl"
    # 429 and 529 announce when to retry, which the SDK honours: 10 ms, not its backoff.
    faults = FaultPlan.sequence(["429", "529", None], retry_after=0.01)
    with Simulator(behavior="echo", faults=faults) as sim:
        reply = recording_anthropic(store, sim).messages.create(
            model="m", max_tokens=8, messages=QUESTION
        )
    assert reply.content[0].text == "echo: first call"
    assert asked(store) == [("first call", [429, 529, 200])]


def test_the_simulator_marks_its_own_errors_only(tmp_path: Path) -> None:
    script = tmp_path / "s.jsonl"
    script.write_text('{"text": "one"}\n')
    body = {"model": "m", "max_tokens": 8, "messages": QUESTION}
    with Simulator(behavior=f"script:{script}", faults=FaultPlan.sequence(["500"])) as sim:
        headers = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
        # the fault, the script's one answer, the script run out
        sent = [httpx2.post(f"{sim.url}/v1/messages", json=body, headers=headers) for _ in "abc"]
    records = [{"status": r.status_code, "body": r.json()} for r in sent]
    assert [r["status"] for r in records] == [500, 200, 500]
    assert [SIMULATOR_REFUSAL in r["body"] for r in records] == [False, False, True]
    assert [r.headers.get("x-should-retry") for r in sent] == [None, None, "false"]
    assert [simulator_refusal(r) is not None for r in records] == [False, False, True]
    assert "is exhausted" in str(simulator_refusal(records[2]))


def status(code: int) -> httpx2.Response:
    """An error answer of ``code``, as an SDK's status error carries it."""
    return httpx2.Response(code, request=httpx2.Request("POST", "https://api.example/v1"))


def test_a_scripted_status_error_reaches_the_sdk_as_the_api_answers_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    limited = anthropic.RateLimitError("slow down", response=status(429), body=None)
    busy = openai.InternalServerError("busy", response=status(503), body=None)
    denied = anthropic.PermissionDeniedError("no", response=status(403), body=None)
    fake = ScriptedModel([limited, busy, ModelResponse(text="answered"), denied])
    with Simulator(behavior=fake, faults=FaultPlan(retry_after=0.01)) as sim:
        client = anthropic.Anthropic(api_key="k", base_url=sim.url, max_retries=0)
        with pytest.raises(anthropic.RateLimitError) as caught:  # was a 500
            client.messages.create(model="m", max_tokens=8, messages=QUESTION)
        reply = client.with_options(max_retries=1).messages.create(  # 529, retried
            model="m", max_tokens=8, messages=QUESTION
        )
        with pytest.raises(anthropic.PermissionDeniedError) as forbidden:  # was a 500
            client.messages.create(model="m", max_tokens=8, messages=QUESTION)
        assert len(sim.requests) == 4  # the 529 was asked again, once
    assert forbidden.value.body == {
        "type": "error",
        "error": {"type": "permission_error", "message": "no"},
        "request_id": forbidden.value.request_id,
    }
    assert caught.value.response.headers["retry-after-ms"] == "10"
    assert caught.value.body["error"]["type"] == "rate_limit_error"  # type: ignore[index]
    assert reply.content[0].text == "answered"  # type: ignore[union-attr]
    assert not caplog.records  # the test's own error, said in the answer: no traceback
    fake.assert_used()


TOO_LONG = "prompt is too long: 210000 tokens > 200000 maximum"


def test_a_scripted_error_of_any_status_is_answered_with_its_status_and_its_body() -> None:
    # a prompt too long for the model: the branch that trims the history (was a 500)
    body = {"type": "error", "error": {"type": "invalid_request_error", "message": TOO_LONG}}
    too_long = anthropic.BadRequestError(TOO_LONG, response=status(400), body=body)
    gone = openai.NotFoundError("no such model", response=status(404), body=None)
    fake = ScriptedModel([too_long, gone])
    with Simulator(behavior=fake) as sim:
        client = anthropic.Anthropic(api_key="k", base_url=sim.url, max_retries=2)
        with pytest.raises(anthropic.BadRequestError, match="prompt is too long") as caught:
            client.messages.create(model="m", max_tokens=8, messages=QUESTION)
        chat = openai.OpenAI(api_key="k", base_url=f"{sim.url}/v1", max_retries=2)
        with pytest.raises(openai.NotFoundError) as missing:
            chat.chat.completions.create(model="m", messages=QUESTION)
        assert len(sim.requests) == 2  # neither retried, as the API's are not
    assert caught.value.body == body
    assert missing.value.body == {
        "message": "no such model",
        "type": "invalid_request_error",
        "param": None,
        "code": None,
    }
    fake.assert_used()


@pytest.mark.parametrize(
    ("announced", "sent"),
    [
        ({"retry-after": "0.02"}, ("1", "20")),  # its own timing, not the plan's 5 s
        ({"retry-after-ms": "30", "retry-after": "9"}, ("1", "30")),
        ({"retry-after": "Wed, 21 Oct 2026 07:28:00 GMT"}, ("5", None)),  # a date: the plan's
    ],
)
def test_a_scripted_status_error_answers_with_the_retry_timing_its_own_response_announces(
    announced: dict[str, str], sent: tuple[str, str | None]
) -> None:
    # the simulator announced the fault plan's retry-after whatever the scripted error said
    answer = httpx2.Response(429, headers=announced, request=status(429).request)
    limited = anthropic.RateLimitError("slow down", response=answer, body=None)
    with Simulator(behavior=ScriptedModel([limited]), faults=FaultPlan(retry_after=5)) as sim:
        client = anthropic.Anthropic(api_key="k", base_url=sim.url, max_retries=0)
        with pytest.raises(anthropic.RateLimitError) as caught:
            client.messages.create(model="m", max_tokens=8, messages=QUESTION)
    headers = caught.value.response.headers
    assert (headers["retry-after"], headers.get("retry-after-ms")) == sent


@pytest.mark.native_tracebacks  # the sessions' failures, as Python prints them
@pytest.mark.slow
def test_under_pytest_an_exhausted_script_fails_the_test_and_records_nothing_of_it(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_calls="""
        def test_two_calls(anthropic_client):
            client = anthropic_client()
            for text in ("first call", "second call"):
                reply = client.messages.create(
                    model="m", max_tokens=8, messages=[{"role": "user", "content": text}]
                )
            assert reply.content[0].text == "two"
        """
    )
    script = pytester.path / "s.jsonl"
    script.write_text('{"text": "one"}\n')
    record = (
        "--replaygate-record-mode=record-missing",
        "--replaygate-approve-live",
        "--replaygate-simulator=script:s.jsonl",
    )
    result = pytester.runpytest(*record)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*SimulatorRefusalError*simulator script*s.jsonl is exhausted*"])
    # the summary counts the answer recorded, not the refusal
    result.stdout.fnmatch_lines(["*script:s.jsonl, seed 7): it answered 1 request(s)"])
    assert asked(pytester.path / "tests/fixtures/test_calls/test_two_calls.jsonl") == [
        ("first call", [200])
    ]
    script.write_text('{"text": "one"}\n{"text": "two"}\n')  # the first call replays (line 1)
    pytester.runpytest(*record).assert_outcomes(passed=1)
    pytester.runpytest().assert_outcomes(passed=1)  # replay


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_chat_completion_asked_in_audio_is_refused_not_answered_in_text(tmp_path: Path) -> None:
    # modalities=["text", "audio"] was answered with text and no audio, and recorded: the
    # code under test read message.audio as None, which the API never answers to it
    store = tmp_path / "t.jsonl"
    with Simulator(behavior="echo") as sim:
        client = recording_openai(store, sim)
        with pytest.raises(SimulatorRefusalError, match="The simulator makes no audio"):
            client.chat.completions.create(
                model="gpt-4o-audio-preview",
                modalities=["text", "audio"],
                audio={"voice": "alloy", "format": "wav"},
                messages=QUESTION,
            )
        heard = [{"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}]
        client.chat.completions.create(
            model="gpt-4o-audio-preview", messages=[{"role": "user", "content": heard}]
        )
    assert len(FixtureStore.open(store)) == 1  # audio in, text out: answered


ROLL = {"tool_calls": [{"id": "toolu_1", "name": "roll", "arguments": {"dice": "2d4"}}]}
MCP_SERVER = {"type": "url", "url": "https://mcp.example.com/mcp", "name": "dice"}
ROLL_TOOL = {"name": "roll", "input_schema": {"type": "object"}}
MCP_HEADERS = {
    "x-api-key": "k",
    "authorization": "Bearer k",
    "anthropic-version": "2023-06-01",
    "anthropic-beta": "mcp-client-2025-04-04",
}


@pytest.mark.parametrize(
    ("path", "fields", "refused"),
    [  # the connector's tool was answered as a tool_use of a tool the code does not have
        ("/v1/messages", {"mcp_servers": [MCP_SERVER]}, "mcp_servers"),
        ("/v1/responses", {"tools": [{"type": "mcp", "server_label": "dice"}]}, "tools[0]"),
        ("/v1/messages", {"mcp_servers": [MCP_SERVER], "tools": [ROLL_TOOL]}, None),
        ("/v1/messages", {}, None),  # no MCP server: the script's call, as before
    ],
)
def test_a_call_of_a_tool_an_mcp_server_of_the_api_s_would_run_is_refused(
    tmp_path: Path, path: str, fields: dict[str, Any], refused: str | None
) -> None:
    script = tmp_path / "s.jsonl"
    script.write_text(json.dumps(ROLL) + "\n")
    asking = {"input": "roll"} if path == "/v1/responses" else {"messages": QUESTION}
    body = {"model": "m", "max_tokens": 64, **asking, **fields}
    with Simulator(behavior=f"script:{script}") as sim:
        reply = httpx2.post(f"{sim.url}{path}", json=body, headers=MCP_HEADERS)
    said = simulator_refusal({"status": reply.status_code, "body": reply.json()})
    if refused is None:
        assert reply.status_code == 200 and said is None
    else:
        assert reply.status_code == 400 and said is not None
        assert said.startswith("The simulator runs no MCP server: the answer its behaviour")
        assert "calls 'roll', which no tool of this request defines" in said
        assert f"on a server that {refused} names" in said


@pytest.mark.parametrize("beta", ["mcp-client-2025-04-04", "files-api-2025-04-14", None])
def test_the_mcp_connector_without_its_beta_is_refused_as_the_api_refuses_it(
    beta: str | None,
) -> None:
    # answered without the beta, a recording from the simulator failed live at once
    body = {"model": "m", "max_tokens": 8, "messages": QUESTION, "mcp_servers": [MCP_SERVER]}
    headers = {k: v for k, v in MCP_HEADERS.items() if k != "anthropic-beta"}
    with Simulator(behavior="echo") as sim:
        given = {**headers, "anthropic-beta": f"context-1m-2025-08-07, {beta}"} if beta else headers
        reply = httpx2.post(f"{sim.url}/v1/messages", json=body, headers=given)
    said = simulator_refusal({"status": reply.status_code, "body": reply.json()})
    if beta is not None and beta.startswith("mcp-client-"):
        assert reply.status_code == 200 and said is None
    else:
        assert reply.status_code == 400 and said is not None
        assert said.startswith("mcp_servers: the Messages API takes the MCP connector only")


@pytest.mark.parametrize(
    ("beta", "refused"),
    [
        ("interleaved-thinking-2025-05-14", None),
        ("x, context-1m-2025-08-07", '"x"'),
        ("interleaved-thinking-2025-5-14", '"interleaved-thinking-2025-5-14"'),  # its date
        ("fine-grained-tool-streaming-2025-02-30", '"fine-grained-tool-streaming-2025-02-30"'),
        ("Interleaved-thinking-2025-05-14", '"Interleaved-thinking-2025-05-14"'),
        ("some-beta-of-2031-01-01", None),  # well named: the API may have published it
        ("", None),  # the anthropic SDK's betas=[]
    ],
)
def test_a_beta_named_as_no_beta_is_refused(beta: str, refused: str | None) -> None:
    # answered, a misspelt beta recorded green from the simulator and failed live
    body = {"model": "m", "max_tokens": 8, "messages": QUESTION}
    headers = {k: v for k, v in MCP_HEADERS.items() if k != "anthropic-beta"}
    with Simulator(behavior="echo") as sim:
        for route in ("/v1/messages", "/v1/messages/count_tokens"):
            asked = body if route == "/v1/messages" else {"model": "m", "messages": QUESTION}
            given = {**headers, "anthropic-beta": beta}
            reply = httpx2.post(f"{sim.url}{route}", json=asked, headers=given)
            said = simulator_refusal({"status": reply.status_code, "body": reply.json()})
            if refused is None:
                assert reply.status_code == 200 and said is None
            else:
                assert reply.status_code == 400 and said is not None
                assert said.startswith(f"anthropic-beta: {refused} is named as no beta")


def test_a_compaction_request_is_refused_and_a_count_of_one_taken() -> None:
    # answered as any request, the SDK's tool runner kept the conversation uncompacted
    # ("Compaction produced no summary") and the recording was green
    asked = {"model": "m", "messages": QUESTION, "compaction": {"type": "summarize"}}
    beta = {**MCP_HEADERS, "anthropic-beta": "compact-2026-09-04"}
    with Simulator(behavior="echo") as sim:
        made = httpx2.post(f"{sim.url}/v1/messages", json={**asked, "max_tokens": 8}, headers=beta)
        counted = httpx2.post(f"{sim.url}/v1/messages/count_tokens", json=asked, headers=beta)
    said = simulator_refusal({"status": made.status_code, "body": made.json()})
    assert made.status_code == 400 and said is not None
    assert said.startswith("compaction: the simulator makes no compaction")
    assert counted.status_code == 200  # the API takes it there and ignores it
