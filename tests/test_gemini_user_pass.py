"""Gemini as a team using the ``google-genai`` SDK meets it: every finish reason the API
sends is read, the simulator refuses the function names and calling modes the API
refuses, and answers ``candidateCount`` with that many candidates, plain and streamed,
recorded and replayed offline; it refuses the safety settings the API refuses, in either
spelling of their field names."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2
import orjson
import pytest

from replaygate import Message
from replaygate.fixtures.fingerprint import fixture_key
from replaygate.fixtures.fixture import make_meta
from replaygate.http import block_network, httpx2_client
from replaygate.models.fakes import ScriptedModel
from replaygate.models.providers import from_gemini_response, get_interface, to_gemini_request
from replaygate.models.providers.google_gemini import camel_case_request
from replaygate.models.replay import ReplayModel
from replaygate.models.types import ModelResponse, ToolCall, ToolSpec
from replaygate.sim import FaultPlan, Simulator, catalogue, embeddings
from replaygate.sim.validation import (
    Invalid,
    gemini_cache_refused,
    gemini_modalities_refused,
    gemini_output_limit_refused,
    gemini_output_refused,
    gemini_penalty_refused,
    gemini_signature_missing,
    gemini_thinking_refused,
    gemma_refused,
    validate_gemini,
)
from run_cli import replaygate
from sdks import genai

INTERFACE = "google.generate_content"
SETTINGS: dict[str, Any] = {"model": "gemini-2.5-flash", "max_tokens": 64}
ASK = (Message.user("Weather in Paris?"),)
KEY = "AIza-test"
REAL_API = "https://generativelanguage.googleapis.com"
HI = [{"role": "user", "parts": [{"text": "hi"}]}]
TOOLS = [{"functionDeclarations": [{"name": "get_weather"}]}]


def refusal(body: dict[str, Any]) -> str:
    """The simulator's words refusing ``body`` as the Gemini API refuses it (it must)."""
    refused = validate_gemini(body)
    assert refused is not None, body
    return refused.message


def _answer(finish: str) -> dict[str, Any]:
    return {
        "candidates": [{"content": {"role": "model", "parts": []}, "finishReason": finish}],
        "usageMetadata": {"promptTokenCount": 5, "totalTokenCount": 5},
    }


@pytest.mark.parametrize("finish", [reason.value for reason in genai.types.FinishReason])
def test_every_finish_reason_of_the_api_is_read(finish: str) -> None:
    """A block, and an answer that ended without one the loop can use, is a refusal."""
    expected = {
        "STOP": "end_turn",
        "FINISH_REASON_UNSPECIFIED": "end_turn",
        "MAX_TOKENS": "max_tokens",
        "CONTINUATION": "max_tokens",
    }
    assert from_gemini_response(_answer(finish)).stop_reason == expected.get(finish, "refusal")


def test_a_malformed_function_call_verifies_and_replays_as_a_refusal(tmp_path: Path) -> None:
    """The answer Gemini gives when the model's call could not be parsed: recorded, it was
    refused by verify and by replay as an unknown finishReason."""
    request = to_gemini_request(ASK, (), **SETTINGS)
    meta = make_meta(INTERFACE, get_interface(INTERFACE).version, "hand", None)
    fixture = {"key": fixture_key(request), "request": request, "meta": meta}
    store = tmp_path / "malformed.jsonl"
    answer = _answer("MALFORMED_FUNCTION_CALL")
    store.write_bytes(orjson.dumps({**fixture, "response": answer}) + b"\n")
    assert replaygate("verify", str(store)).returncode == 0
    replayed = ReplayModel(store, interface=INTERFACE, **SETTINGS).complete(ASK, ())
    assert (replayed.text, replayed.stop_reason) == ("", "refusal")
    store.write_bytes(orjson.dumps({**fixture, "response": _answer("NOT_A_REASON")}) + b"\n")
    checked = replaygate("verify", str(store))
    assert checked.returncode == 1
    assert "finishReason: unknown value 'NOT_A_REASON'" in checked.stdout


def _gemini(http: httpx2.Client, base_url: str) -> genai.Client:
    options = genai.types.HttpOptions(base_url=base_url, httpx_client=http)
    return genai.Client(api_key=KEY, http_options=options)


def _declared(name: str) -> genai.types.Tool:
    function = genai.types.FunctionDeclaration(name=name, description="The weather.")
    return genai.types.Tool(function_declarations=[function])


@pytest.mark.slow
@pytest.mark.parametrize("name", ["get weather", "1st_tool", "f" * 65, "get/weather"])
def test_the_simulator_refuses_a_function_name_the_api_refuses(
    sim: Simulator, tmp_path: Path, name: str
) -> None:
    config = genai.types.GenerateContentConfig(tools=[_declared(name)])
    with (
        httpx2_client(tmp_path / "g.jsonl", "record-missing", approve_live=True) as http,
        pytest.raises(genai.errors.ClientError) as refused,
    ):
        _gemini(http, sim.url).models.generate_content(
            model="gemini-2.5-flash", contents="hi", config=config
        )
    assert (refused.value.code, refused.value.status) == (400, "INVALID_ARGUMENT")
    assert "tools[0].function_declarations[0].name: Invalid function name" in str(refused.value)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["get_weather", "_private", "ns:tool.v2-beta", "f" * 64])
def test_the_simulator_takes_every_function_name_the_api_takes(sim: Simulator, name: str) -> None:
    assert _post(sim, {"contents": HI, "tools": [{"functionDeclarations": [{"name": name}]}]})


def _post(sim: Simulator, body: Any, model: str = "gemini-2.5-flash") -> dict[str, Any]:
    """The simulator's answer to ``body``: the response, or its error object."""
    url = f"{sim.url}/v1beta/models/{model}:generateContent"
    reply = httpx2.post(url, json=body, headers={"x-goog-api-key": KEY}).json()
    assert isinstance(reply, dict)
    return reply


@pytest.mark.slow
@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({"functionCallingConfig": {"mode": "any"}}, "function_calling_config.mode' "),
        ({"functionCallingConfig": {"mode": "REQUIRED"}}, '.Mode), "REQUIRED"'),
    ],
)
def test_the_simulator_refuses_a_calling_mode_of_no_name_the_api_knows(
    sim: Simulator, config: dict[str, Any], words: str
) -> None:
    error = _post(sim, {"contents": HI, "tools": TOOLS, "toolConfig": config})["error"]
    assert (error["code"], error["status"]) == (400, "INVALID_ARGUMENT")
    assert words in error["message"]
    for mode in ("AUTO", "ANY", "NONE", "VALIDATED", "MODE_UNSPECIFIED"):
        calling = {"functionCallingConfig": {"mode": mode}}
        assert "candidates" in _post(sim, {"contents": HI, "tools": TOOLS, "toolConfig": calling})


@pytest.mark.slow
@pytest.mark.parametrize("count", [9, -1, "2", True])
def test_the_simulator_refuses_a_candidate_count_the_api_refuses(
    sim: Simulator, count: Any
) -> None:
    error = _post(sim, {"contents": HI, "generationConfig": {"candidateCount": count}})["error"]
    assert error["code"] == 400
    assert "generation_config.candidate_count" in error["message"]


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        ([{"category": "HARM_CATEGORY_HATE"}], """'safety_settings[0].category' (type"""),
        ([{"category": "HARM_CATEGORY_IMAGE_HATE"}], '.HarmCategory), "HARM_CATEGORY_IMAGE_HATE"'),
        (
            [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_SOME"}],
            '.HarmBlockThreshold), "BLOCK_SOME"',
        ),
        ([{"category": "HARM_CATEGORY_DEROGATORY"}], "safety_settings[0]: element predicate"),
        ([{"threshold": "BLOCK_NONE"}], "safety_settings[0]: element predicate"),
        ("BLOCK_NONE", "'safety_settings': expected a list"),
    ],
)
def test_the_simulator_refuses_a_safety_setting_the_api_refuses(settings: Any, words: str) -> None:
    for body in (
        {"contents": HI, "safetySettings": settings},
        {"contents": HI, "safety_settings": settings},
    ):
        assert words in refusal(camel_case_request(body))


def test_the_simulator_takes_every_safety_setting_a_gemini_model_takes() -> None:
    thresholds = [t.value for t in genai.types.HarmBlockThreshold]
    categories = [c.value for c in genai.types.HarmCategory]
    taken = [c for c in categories if c != "HARM_CATEGORY_UNSPECIFIED" and "_IMAGE_" not in c]
    settings = [{"category": c, "threshold": t} for c in taken for t in thresholds]
    assert validate_gemini({"contents": HI, "safetySettings": settings}) is None


def test_a_snake_case_generation_config_is_read_as_the_api_reads_it() -> None:
    """LiteLLM sends ``candidate_count`` and ``response_schema``: the schema is the caller's."""
    schema = {"type": "object", "properties": {"mime_type": {"type": "string"}}}
    config = {"candidate_count": 9, "response_mime_type": "application/json"}
    body = camel_case_request(
        {"contents": HI, "generation_config": config | {"response_schema": schema}}
    )
    assert body["generationConfig"]["responseSchema"] == schema
    assert "generation_config.candidate_count" in refusal(body)


def _candidates(response: Any) -> list[tuple[int, str, str]]:
    return [(c.index, c.finish_reason.value, c.content.parts[0].text) for c in response.candidates]


@pytest.mark.slow
def test_a_candidate_count_is_answered_with_as_many_candidates_and_replayed(
    tmp_path: Path,
) -> None:
    store = tmp_path / "three.jsonl"
    config = genai.types.GenerateContentConfig(candidate_count=3)

    def ask(client: genai.Client) -> tuple[Any, ...]:
        models = client.models
        plain = models.generate_content(model="gemini-2.5-flash", contents="hi", config=config)
        chunks = models.generate_content_stream(
            model="gemini-2.5-flash", contents="hi", config=config
        )
        streamed = [(c.index, c.finish_reason) for ch in chunks for c in ch.candidates or []]
        return _candidates(plain), plain.usage_metadata.candidates_token_count, streamed

    with (
        Simulator(behavior="echo") as sim,
        httpx2_client(store, "record-missing", approve_live=True) as http,
    ):
        recorded = ask(_gemini(http, sim.url))
    assert recorded[0] == [(i, "STOP", "echo: hi") for i in range(3)]
    assert recorded[1] == 3 * 2  # each candidate's tokens counted: "echo: hi" is 2
    ends = [(index, finish) for index, finish in recorded[2] if finish is not None]
    assert [index for index, _ in recorded[2]] == sorted(index for index, _ in recorded[2])
    assert [index for index, _ in ends] == [0, 1, 2]
    with block_network(), httpx2_client(store) as http:
        assert ask(_gemini(http, REAL_API)) == recorded


@pytest.mark.slow
def test_count_tokens_is_served_recorded_and_replayed(sim: Simulator, tmp_path: Path) -> None:
    """``models.count_tokens`` reached the simulator's 404 for a route it does not serve, so
    a recording of an agent counting before it sends stopped there."""
    store = tmp_path / "count.jsonl"
    with httpx2_client(store, "record-missing", approve_live=True) as http:
        models = _gemini(http, sim.url).models
        counted = models.count_tokens(model="gemini-2.5-flash", contents="count these words")
        answer = models.generate_content(model="gemini-2.5-flash", contents="count these words")
    assert counted.total_tokens == answer.usage_metadata.prompt_token_count > 0
    url = f"{sim.url}/v1beta/models/gemini-2.5-flash:countTokens"
    whole = {"generateContentRequest": {"model": "models/gemini-2.5-flash", "contents": HI}}
    by_request = httpx2.post(url, json=whole, headers={"x-goog-api-key": KEY}).json()
    assert (
        by_request["totalTokens"]
        == _post(sim, {"contents": HI})["usageMetadata"]["promptTokenCount"]
    )
    with block_network(), httpx2_client(store) as http:
        again = _gemini(http, REAL_API).models.count_tokens(
            model="gemini-2.5-flash", contents="count these words"
        )
    assert again.total_tokens == counted.total_tokens


def _turn(role: str, *parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": role, "parts": list(parts)}


CALL = {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}
ANSWER = {"functionResponse": {"name": "get_weather", "response": {"output": "sunny"}}}
ASKED = _turn("user", {"text": "Weather in Paris and Rome?"})


@pytest.mark.parametrize(
    ("contents", "words"),
    [
        ([_turn("model", CALL), _turn("user", ANSWER)], "function call turn comes immediately"),
        ([ASKED, _turn("user", ANSWER)], "function response turn comes immediately"),
        ([ASKED, _turn("model", {"text": "Let me see."}), _turn("user", ANSWER)], "response turn"),
        ([ASKED, _turn("model", CALL, CALL), _turn("user", ANSWER)], "number of function response"),
        (
            [ASKED, _turn("model", CALL), _turn("user", ANSWER, ANSWER)],
            "number of function response",
        ),
    ],
)
def test_the_simulator_refuses_function_turns_out_of_order_as_the_api_does(
    contents: list[dict[str, Any]], words: str
) -> None:
    """An agent that lost a call turn from its history, or answered one call of two,
    passed against the simulator and was refused by the API on its first request."""
    problem = validate_gemini({"contents": contents, "tools": TOOLS})
    assert problem is not None and words in problem.message


@pytest.mark.parametrize(
    "contents",
    [
        [ASKED, _turn("model", {"text": "Checking."}, CALL, CALL), _turn("user", ANSWER, ANSWER)],
        [ASKED, _turn("model", CALL, CALL), _turn("user", ANSWER), _turn("tool", ANSWER)],
        [ASKED, _turn("model", CALL), _turn("user", ANSWER), _turn("model", CALL)],
        [ASKED, _turn("model", {"text": "Hm."}), _turn("model", CALL), _turn("user", ANSWER)],
    ],
)
def test_the_simulator_takes_function_turns_in_the_api_s_order(
    contents: list[dict[str, Any]],
) -> None:
    assert validate_gemini({"contents": contents, "tools": TOOLS}) is None


@pytest.mark.parametrize(
    ("code", "result"),
    [("executableCode", "codeExecutionResult"), ("executable_code", "code_execution_result")],
)
def test_the_simulator_takes_the_code_the_model_ran_in_a_history(code: str, result: str) -> None:
    """A chat with the code execution tool sends back the model's ``executableCode`` and
    ``codeExecutionResult`` parts (in either spelling), which the API takes: the simulator
    refused them as parts holding no data."""
    ran = _turn(
        "model",
        {code: {"language": "PYTHON", "code": "print(2 + 2)"}},
        {result: {"outcome": "OUTCOME_OK", "output": "4\n"}},
        {"text": "It is 4."},
    )
    body = {"contents": [ASKED, ran, _turn("user", {"text": "And 3 + 3?"})]}
    assert validate_gemini(camel_case_request(body)) is None


def test_a_scripted_status_error_of_the_sdk_reaches_it_as_the_api_answers_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """google-genai's errors carry their status as ``code``: a scripted ``ClientError(429)``
    reached the client as a 500 'simulator behaviour failed', its traceback logged."""
    exhausted = genai.errors.ClientError(429, {"error": {"code": 429, "status": "X"}})
    busy = genai.errors.ServerError(503, {"error": {"code": 503, "status": "Y"}})
    fake = ScriptedModel([exhausted, busy])
    with Simulator(behavior=fake, faults=FaultPlan(retry_after=0.01)) as server:
        once = genai.types.HttpRetryOptions(attempts=1)
        options = genai.types.HttpOptions(base_url=server.url, retry_options=once)
        client = genai.Client(api_key=KEY, http_options=options)
        for code, name in ((429, "RESOURCE_EXHAUSTED"), (503, "UNAVAILABLE")):
            with pytest.raises(genai.errors.APIError) as caught:
                client.models.generate_content(model="gemini-2.5-flash", contents="hi")
            assert (caught.value.code, caught.value.status) == (code, name)
    assert not caplog.records


@pytest.mark.parametrize(
    ("model", "budget", "words"),
    [
        ("gemini-2.5-pro", 0, "Budget 0 is invalid. This model only works in thinking mode."),
        ("gemini-2.5-pro", 32769, "The thinking budget (32769) is invalid."),
        ("gemini-2.5-flash", 24577, "The thinking budget (24577) is invalid."),
        ("gemini-2.5-flash-lite", -2, "The thinking budget (-2) is invalid."),
        ("gemini-2.5-flash", 1024.5, "thinking_budget' (TYPE_INT32), 1024.5"),
    ],
)
def test_the_simulator_refuses_a_thinking_budget_the_api_refuses(
    model: str, budget: Any, words: str
) -> None:
    """A recording made with a budget the model does not take passed, then failed live."""
    body = camel_case_request(
        {"contents": HI, "generation_config": {"thinking_config": {"thinking_budget": budget}}}
    )
    refused = gemini_thinking_refused(model, body)
    assert refused is not None
    assert words in refused.message
    for taken in (-1, 0 if "flash" in model else 128, 24576):
        config = {"generationConfig": {"thinkingConfig": {"thinkingBudget": taken}}}
        assert gemini_thinking_refused(model, config) is None


@pytest.mark.slow
def test_thoughts_asked_for_come_first_plain_and_streamed_and_replay(
    sim: Simulator, tmp_path: Path
) -> None:
    """``include_thoughts=True`` got no thought part and no ``thoughtsTokenCount``, so a
    test reading the model's thoughts was green on the simulator alone."""
    thinking = genai.types.ThinkingConfig(include_thoughts=True)
    config = genai.types.GenerateContentConfig(thinking_config=thinking)
    store = tmp_path / "thoughts.jsonl"

    def ask(client: genai.Client) -> tuple[Any, ...]:
        models = client.models
        plain = models.generate_content(model="gemini-2.5-flash", contents="hi", config=config)
        chunks = models.generate_content_stream(
            model="gemini-2.5-flash", contents="hi", config=config
        )
        streamed = [p for ch in chunks for p in ch.candidates[0].content.parts]
        parts = plain.candidates[0].content.parts
        thoughts = "".join(p.text for p in streamed if p.thought)
        return [bool(p.thought) for p in parts], plain.text, plain.usage_metadata, thoughts

    with httpx2_client(store, "record-missing", approve_live=True) as http:
        recorded = ask(_gemini(http, sim.url))
    assert recorded[:2] == ([True, False], "echo: hi")
    usage = recorded[2]
    assert usage.thoughts_token_count > 0
    counted = (usage.prompt_token_count, usage.candidates_token_count, usage.thoughts_token_count)
    assert usage.total_token_count == sum(counted)
    assert recorded[3]
    with block_network(), httpx2_client(store) as http:
        assert ask(_gemini(http, REAL_API)) == recorded


ONE = {"content": {"parts": [{"text": "a"}]}}


@pytest.mark.parametrize(
    ("model", "body", "words"),
    [
        ("gemini-2.5-flash", {"requests": [ONE]}, "not supported for batchEmbedContents"),
        ("gemini-embedding-001", {"requests": [ONE] * 101}, "at most 100 requests"),
        ("gemini-embedding-001", {"requests": [{"content": {"parts": []}}]}, "requests[0].content"),
        (
            "gemini-embedding-001",
            {"requests": [ONE, {"content": {"parts": [{"text": ""}]}}]},
            "requests[1].content.parts[0].data: required oneof field 'data'",
        ),
        (  # the simulator's own: no vector longer than the model's
            "gemini-embedding-001",
            {"requests": [{**ONE, "outputDimensionality": 4096}]},
            "1 to 3072 numbers for gemini-embedding-001, not 4096",
        ),
        (  # EmbedContentConfig(task_type=...) is sent as given
            "gemini-embedding-001",
            {"requests": [{**ONE, "taskType": "RETRIEVAL"}]},
            "Invalid value at 'requests[0].task_type' (type.googleapis.com/google.ai."
            'generativelanguage.v1beta.TaskType), "RETRIEVAL"',
        ),
        (
            "gemini-embedding-001",
            {"requests": [{**ONE, "dimensions": 8}]},
            "Unknown name \"dimensions\" at 'requests[0]': Cannot find field.",
        ),
    ],
)
def test_the_simulator_refuses_an_embedding_the_api_refuses(
    model: str, body: Any, words: str
) -> None:
    refused = embeddings.gemini_answer(model, "batchEmbedContents", "v1beta", body)
    assert isinstance(refused, Invalid)
    assert words in refused.message


@pytest.mark.slow
def test_embed_content_is_served_recorded_and_replayed(sim: Simulator, tmp_path: Path) -> None:
    """``models.embed_content`` reached the simulator's 404 for a route it does not serve, so
    a recording of a retriever embedding its documents stopped there."""
    store = tmp_path / "embed.jsonl"
    config = genai.types.EmbedContentConfig(output_dimensionality=8)

    def ask(client: genai.Client) -> list[list[float]]:
        batch = client.models.embed_content(
            model="gemini-embedding-001", contents=["a", "b"], config=config
        )
        one = client.models.embed_content(model="gemini-embedding-001", contents="a")
        return [e.values for e in [*batch.embeddings, *one.embeddings]]

    with httpx2_client(store, "record-missing", approve_live=True) as http:
        recorded = ask(_gemini(http, sim.url))
    assert [len(values) for values in recorded] == [8, 8, 3072]
    assert recorded[0] == recorded[2][:8] != recorded[1]  # cut from the same text's vector
    with block_network(), httpx2_client(store) as http:
        assert ask(_gemini(http, REAL_API)) == recorded


def test_a_cached_content_is_refused_as_the_api_or_the_simulator_refuses_it() -> None:
    """A request naming a cache was answered as if it had none: recorded green on the
    simulator, it failed live beside a system instruction, and the simulator holds no
    cache to read."""
    named = camel_case_request({"contents": HI, "cached_content": "cachedContents/abc"})
    own = gemini_cache_refused(named)
    assert own is not None and own.own
    assert "holds no cached content ('cachedContents/abc')" in own.message
    beside = gemini_cache_refused({**named, "systemInstruction": {"parts": [{"text": "x"}]}})
    assert beside is not None and not beside.own
    assert beside.message.startswith("CachedContent can not be used with GenerateContent")
    assert gemini_cache_refused({"contents": HI}) is None


@pytest.mark.parametrize(
    ("model", "method", "refused"),
    [
        ("gemini-embedding-001", "generateContent", True),
        ("gemini-embedding-001", "streamGenerateContent", True),
        ("gemini-embedding-001", "embedContent", False),
        ("text-embedding-004", "batchEmbedContents", False),
        ("gemini-2.5-flash", "embedContent", True),
        ("gemini-2.5-flash", "generateContent", False),
    ],
)
def test_a_model_is_asked_only_the_methods_it_offers(
    model: str, method: str, refused: bool
) -> None:
    problem = catalogue.gemini_method_refused(model, "v1beta", method)
    assert (problem is not None) == refused
    if problem is not None:
        assert problem.status == 404
        assert f"models/{model} is not found for API version v1beta" in problem.message
        assert f"or is not supported for {method}." in problem.message


SEARCH = [{"googleSearch": {}}]
JSON = "application/json"


@pytest.mark.parametrize(
    ("model", "config", "tools", "words"),
    [
        ("gemini-2.5-flash", {"response_schema": {"type": "STRING"}}, None, "'text/plain'"),
        ("gemini-3-pro", {"responseSchema": {}, "responseMimeType": "text/plain"}, None, "Resp"),
        ("gemini-2.5-flash", {"responseMimeType": JSON}, TOOLS, "Function calling with"),
        ("gemini-2.0-flash", {"response_mime_type": JSON}, SEARCH, "Tool use with"),
        ("gemini-3-pro-preview", {"responseMimeType": JSON}, TOOLS, None),
        ("gemini-2.5-flash", {"responseMimeType": "text/x.enum", "responseSchema": {}}, None, None),
        ("gemini-2.5-flash", {"responseJsonSchema": {}, "responseMimeType": JSON}, None, None),
    ],
)
def test_the_simulator_refuses_an_answer_format_the_api_refuses(
    model: str, config: dict[str, Any], tools: Any, words: str | None
) -> None:
    """A schema for a text answer, or JSON beside tools on a model before Gemini 3 (an
    automatic function calling chat given a response_schema), was answered: recorded
    green, refused live at the first call."""
    body = camel_case_request({"contents": HI, "generationConfig": config, "tools": tools})
    refused = gemini_output_refused(model, body)
    assert (refused is None) == (words is None)
    assert refused is None or (words is not None and words in refused.message)


@pytest.mark.parametrize(
    ("model", "thinking", "words"),
    [
        ("gemini-3-pro-preview", {"thinking_level": "LOW", "thinking_budget": 512}, "only one of"),
        ("gemini-2.5-pro", {"thinkingLevel": "HIGH"}, "Thinking level is not supported"),
        ("gemini-3-pro-preview", {"thinkingLevel": "low", "includeThoughts": True}, None),
    ],
)
def test_the_simulator_refuses_a_thinking_level_the_api_refuses(
    model: str, thinking: dict[str, Any], words: str | None
) -> None:
    body = camel_case_request({"contents": HI, "generationConfig": {"thinkingConfig": thinking}})
    refused = gemini_thinking_refused(model, body)
    assert (refused is None) == (words is None)
    assert refused is None or (words is not None and words in refused.message)


def _call(name: str, **more: Any) -> dict[str, Any]:
    return {"functionCall": {"name": name, "args": {}}, **more}


def _answer_to(name: str) -> dict[str, Any]:
    return {"functionResponse": {"name": name, "response": {"output": 1}}}


ANSWER = _answer_to("f")


@pytest.mark.parametrize(
    ("model", "contents", "position"),
    [
        ("gemini-3-pro-preview", [HI[0], _turn("model", _call("f")), _turn("user", ANSWER)], 2),
        (  # a second step of the turn, its first call unsigned; the second call needs none
            "gemini-3-flash",
            [
                HI[0],
                _turn("model", _call("f", thoughtSignature="c2ln")),
                _turn("user", _answer_to("f")),
                _turn("model", _call("g"), _call("h", thoughtSignature="c2ln")),
                _turn("user", _answer_to("g"), _answer_to("h")),
            ],
            4,
        ),
        ("gemini-2.5-flash", [HI[0], _turn("model", _call("f")), _turn("user", ANSWER)], None),
        (  # an earlier turn's calls are not checked
            "gemini-3-pro-preview",
            [HI[0], _turn("model", _call("f")), _turn("user", ANSWER), HI[0]],
            None,
        ),
    ],
)
def test_an_unsigned_function_call_of_the_current_turn_is_refused_as_gemini_3_refuses_it(
    model: str, contents: list[dict[str, Any]], position: int | None
) -> None:
    """A history built by hand, without the signature Gemini 3 gave its call, was answered:
    recorded green, refused live at its first call."""
    refused = gemini_signature_missing(model, camel_case_request({"contents": contents}))
    assert (refused is None) == (position is None)
    assert refused is None or f", position {position}. Please" in refused.message


@pytest.mark.slow
def test_gemini_3_signs_its_calls_and_an_sdk_chat_sends_them_back(tmp_path: Path) -> None:
    weather = ToolCall(id="c1", name="get_weather", arguments={"city": "Paris"})
    script = [ModelResponse(tool_calls=(weather,), stop_reason="tool_use"), ModelResponse("21")]

    def get_weather(city: str) -> str:
        """The weather."""
        return "sunny"

    config = genai.types.GenerateContentConfig(tools=[get_weather])
    with (
        Simulator(behavior=ScriptedModel(script)) as server,
        httpx2_client(tmp_path / "g3.jsonl", "record-missing", approve_live=True) as http,
    ):
        chat = _gemini(http, server.url).chats.create(model="gemini-3-pro-preview", config=config)
        assert chat.send_message("Weather?").text == "21"
        called = chat.get_history()[1].parts[0]
    assert called.function_call.name == "get_weather" and called.thought_signature


@pytest.mark.parametrize(
    ("part", "refused"),
    [
        ({"text": ""}, True),
        ({"text": None}, True),
        ({"text": "", "thoughtSignature": "c2ln"}, False),  # how a Gemini 3 stream ends
        ({"text": "hi"}, False),
    ],
)
def test_an_empty_text_part_is_refused_as_the_api_refuses_it(part: Any, refused: bool) -> None:
    """An empty answer sent back in a history (an agent's blank turn) was answered:
    recorded green, refused live."""
    contents = [HI[0], _turn("model", part), HI[0]]
    problem = validate_gemini({"contents": contents})
    assert (problem is not None) == refused
    if problem is not None:
        assert problem.message == (
            "* GenerateContentRequest.contents[1].parts[0].data: "
            "required oneof field 'data' must have one initialized field"
        )


@pytest.mark.parametrize(
    ("model", "config", "refused"),
    [
        ("gemini-2.5-flash", {"frequency_penalty": 0.3}, True),
        ("gemini-2.5-flash-lite", {"presencePenalty": -0.5}, True),
        ("gemini-2.5-flash", {"presencePenalty": 0.0, "frequencyPenalty": 0}, False),
        ("gemini-2.0-flash", {"frequencyPenalty": 0.3}, False),
    ],
)
def test_a_penalty_is_refused_where_the_api_refuses_it(
    model: str, config: dict[str, Any], refused: bool
) -> None:
    """An OpenAI-minded wrapper's frequency_penalty=0.3 was answered on gemini-2.5-flash,
    which refuses every request giving one."""
    body = camel_case_request({"contents": HI, "generationConfig": config})
    problem = gemini_penalty_refused(model, body)
    assert (problem is not None) == refused
    assert problem is None or problem.message == f"Penalty is not enabled for models/{model}"


@pytest.mark.parametrize(
    ("model", "thinking", "thinks", "shown"),
    [
        ("gemini-2.5-flash", {"includeThoughts": True}, True, True),
        ("gemini-2.5-flash", {"includeThoughts": True, "thinkingBudget": 0}, False, False),
        ("gemini-2.5-flash-lite", {"includeThoughts": True}, False, False),  # off by default
        ("gemini-2.5-flash-lite", {"includeThoughts": True, "thinkingBudget": 512}, True, True),
        ("gemini-2.5-pro", {"thinkingBudget": 512}, True, False),  # thoughts not asked for
        # thinking by default, as live: counted and spent, not shown
        ("gemini-2.5-flash", None, True, False),
        ("gemini-2.5-pro", None, True, False),
        ("gemini-3-pro-preview", None, True, False),
        ("gemini-flash-latest", None, True, False),
        ("gemini-2.5-flash-lite", None, False, False),
        ("gemini-2.0-flash", None, False, False),
        ("gemini-2.0-flash", {"includeThoughts": True}, False, False),
        ("gemini-2.5-flash-image", None, False, False),
        ("gemini-sim-1", None, False, False),  # a model of no known kind thinks when asked
        ("gemini-sim-1", {"includeThoughts": True}, True, True),
    ],
)
def test_a_model_that_thinks_counts_its_thought_and_shows_it_when_asked(
    sim: Simulator, model: str, thinking: dict[str, Any] | None, thinks: bool, shown: bool
) -> None:
    config = {} if thinking is None else {"generationConfig": {"thinkingConfig": thinking}}
    answer = _post(sim, {"contents": HI, **config}, model)
    parts = answer["candidates"][0]["content"]["parts"]
    assert ("thoughtsTokenCount" in answer["usageMetadata"]) == thinks
    assert any(part.get("thought") for part in parts) == shown


def test_a_default_thought_is_spent_from_max_output_tokens(sim: Simulator) -> None:
    """Gemini 2.5 Flash thinks unasked, and its thought spends ``maxOutputTokens`` first:
    a small limit leaves the answer cut (``MAX_TOKENS``), as live."""
    answer = _post(sim, {"contents": HI, "generationConfig": {"maxOutputTokens": 8}})
    assert answer["candidates"][0]["finishReason"] == "MAX_TOKENS"
    assert answer["usageMetadata"]["thoughtsTokenCount"] == 8


@pytest.mark.slow
def test_a_chat_goes_on_after_an_empty_answer(sim: Simulator) -> None:
    """An empty answer (cut at once by a stop sequence) came as an empty text part, which
    the chat sent back and the simulator then refused, as the API refuses one; the API
    gives such an answer no parts, which the chat does not send back."""
    config = genai.types.GenerateContentConfig(stop_sequences=["e"])
    client = genai.Client(api_key=KEY, http_options=genai.types.HttpOptions(base_url=sim.url))
    chat = client.chats.create(model="gemini-2.5-flash", config=config)
    assert chat.send_message("hi").candidates[0].content.parts is None
    assert chat.send_message("again").text is None
    streamed = client.chats.create(model="gemini-2.5-flash", config=config)
    for said in ("hi", "again"):
        assert [chunk.text for chunk in streamed.send_message_stream(said)] == [None]


@pytest.mark.parametrize(
    ("model", "modalities", "words", "own"),
    [
        ("gemini-2.5-flash", ["IMAGE"], "response modalities: image", False),
        ("gemini-2.5-pro", ["IMAGE", "TEXT"], "response modalities: image,text", False),
        ("gemini-2.5-flash-image", ["TEXT", "IMAGE"], "the simulator answers in text alone", True),
        ("gemini-2.5-flash", ["TEXT"], None, False),
    ],
)
def test_an_answer_in_another_modality_is_refused(
    model: str, modalities: list[str], words: str | None, own: bool
) -> None:
    """A text model asked for an image answered text: recorded green, refused live."""
    config = {"response_modalities": modalities}
    body = camel_case_request({"contents": HI, "generation_config": config})
    problem = gemini_modalities_refused(model, body)
    assert (problem is None) == (words is None)
    assert problem is None or (words is not None and words in problem.message)
    assert problem is None or problem.own == own


def test_a_count_is_refused_for_its_shape_alone(sim: Simulator) -> None:
    """A count of a history a generation refuses (an unsigned Gemini 3 call) is answered:
    a count runs no model, and the checks of a generation are not a count's."""
    url = f"{sim.url}/v1beta/models/gemini-3-pro-preview:countTokens"
    history = [HI[0], _turn("model", _call("f")), _turn("user", ANSWER)]
    headers = {"x-goog-api-key": KEY}
    counted = httpx2.post(url, json={"contents": history}, headers=headers)
    assert counted.json()["totalTokens"] > 0
    blank = {"contents": [_turn("user", {"text": ""})]}
    empty = httpx2.post(url, json=blank, headers=headers)
    assert "required oneof field 'data'" in empty.json()["error"]["message"]


@pytest.mark.parametrize("model", ["gemini-2.0-flash", "gemma-3-27b-it"])
def test_a_thinking_budget_is_refused_by_a_model_that_does_not_think(model: str) -> None:
    """A budget of 0, sent to turn thinking off whatever the model, is refused too."""
    for budget in (0, 1024):
        config = {"generationConfig": {"thinkingConfig": {"thinkingBudget": budget}}}
        refused = gemini_thinking_refused(model, config)
        assert refused is not None
        assert refused.message == f"Thinking is not enabled for models/{model}"
    assert gemini_thinking_refused(model, {"generationConfig": {"temperature": 0}}) is None


BRIEF = {"parts": [{"text": "Be brief."}]}


@pytest.mark.parametrize(
    ("model", "body", "words"),
    [
        ("gemma-3-27b-it", {"system_instruction": BRIEF}, "Developer"),
        ("gemma-3n-e4b-it", {"tools": TOOLS}, "Function calling is not enabled"),
        ("gemma-4-31b-it", {"generation_config": {"response_mime_type": JSON}}, "JSON mode"),
        ("gemma-3-27b-it", {"generationConfig": {"responseMimeType": "text/x.enum"}}, "Enum mode"),
        ("gemma-3-27b-it", {}, None),
        ("gemini-2.5-flash", {"system_instruction": BRIEF}, None),
    ],
)
def test_what_a_gemma_model_does_not_take_is_refused(
    model: str, body: dict[str, Any], words: str | None
) -> None:
    """A Gemma model given a system instruction was answered: recorded green, refused live."""
    problem = gemma_refused(model, camel_case_request({"contents": HI, **body}))
    assert (problem is None) == (words is None)
    assert problem is None or (words is not None and problem.message.startswith(words))
    assert problem is None or problem.message.endswith(f" is not enabled for models/{model}")


PIXEL = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg"
)


@pytest.mark.parametrize(
    ("mime_type", "refused"),
    [
        ("image/jpg", True),  # image/jpeg is meant: the API reads no image as this
        ("png", True),
        ("image/bmp", True),
        ("image/png", False),
        ("image/jpeg", False),
        ("application/pdf", False),
        ("audio/wav", False),
    ],
)
def test_an_image_of_a_type_the_api_does_not_read_is_refused(mime_type: str, refused: bool) -> None:
    """``Part.from_bytes(data=..., mime_type="image/jpg")`` is the API's ``400 Unsupported
    MIME type: image/jpg``; answered, a recording passed here to fail live."""
    part = {"inlineData": {"mimeType": mime_type, "data": PIXEL}}
    problem = validate_gemini({"contents": [{"role": "user", "parts": [part, {"text": "x"}]}]})
    if refused:
        assert problem is not None
        assert problem.message == f"Unsupported MIME type: {mime_type}"
    else:
        assert problem is None


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            {"contents": HI, "temperature": 0.2},
            'Invalid JSON payload received. Unknown name "temperature": Cannot find field.',
        ),
        (
            {"contents": HI, "generationConfig": {"maxTokens": 64, "top_p": 0.5}},
            "Invalid JSON payload received. Unknown name \"maxTokens\" at 'generation_config': "
            "Cannot find field.",
        ),
        ({"contents": HI, "generation_config": {"top_p": 0.5, "topK": 3}}, None),
        ({"contents": HI, "store": False, "serviceTier": "standard"}, None),
    ],
)
def test_a_field_the_api_does_not_know_is_refused(body: Any, message: str | None) -> None:
    """A sampling field beside ``contents`` or a name of another API in ``generationConfig``
    (``HttpOptions(extra_body=...)``, a hand-built body) is the API's ``Unknown name``, in
    either spelling of the names it knows; answered, a recording passed here to fail live."""
    problem = validate_gemini(camel_case_request(body))
    assert (problem and problem.message) == message


def test_json_schema_keywords_in_the_apis_own_schema_are_refused() -> None:
    """A zod or MCP tool's schema given as ``parameters`` or ``responseSchema`` (with its
    ``$schema``) is the API's ``Unknown name``, however deep; in ``parametersJsonSchema``
    and ``responseJsonSchema`` it is taken."""
    draft = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}
    nested = {"type": "OBJECT", "properties": {"a": {"type": "STRING"}, "b": {"$ref": "#/x"}}}
    tool = [{"functionDeclarations": [{"name": "f", "parameters": nested}]}]
    assert refusal({"contents": HI, "tools": tool}) == (
        'Invalid JSON payload received. Unknown name "$ref" at '
        "'tools[0].function_declarations[0].parameters.properties[1].value': Cannot find field."
    )
    config = {"responseMimeType": "application/json", "responseSchema": draft}
    refused = gemini_output_refused(
        "gemini-2.5-flash", {"contents": HI, "generationConfig": config}
    )
    assert refused is not None
    assert "\"$schema\" at 'generation_config.response_schema'" in refused.message
    taken = {"responseMimeType": "application/json", "responseJsonSchema": draft}
    assert gemini_output_refused("gemini-2.5-flash", {"generationConfig": taken}) is None
    tool = [{"functionDeclarations": [{"name": "f", "parametersJsonSchema": draft}]}]
    assert validate_gemini({"contents": HI, "tools": tool}) is None
    union = {"type": "OBJECT", "properties": {"a": {"type": ["string", "null"]}}}
    tool = [{"functionDeclarations": [{"name": "f", "parameters": union}]}]
    assert refusal({"contents": HI, "tools": tool}) == (
        'Invalid JSON payload received. Unknown name "type" at '
        "'tools[0].function_declarations[0].parameters.properties[0].value': Proto field is "
        "not repeating, cannot start list."
    )


@pytest.mark.parametrize(
    ("mime", "refused"),
    [("text/csv", True), ("image/png", True), ("application/yaml", False), ("text/x.enum", False)],
)
def test_a_response_mime_type_the_api_does_not_take_is_refused(mime: str, refused: bool) -> None:
    """``response_mime_type="text/csv"`` is the API's 400, not a text answer."""
    body = {"contents": HI, "generationConfig": {"responseMimeType": mime}}
    problem = gemini_output_refused("gemini-2.5-flash", body)
    assert (problem is not None) == refused
    if problem is not None:
        assert "allowed mimetypes are text/plain, application/json" in problem.message


def test_a_temperature_or_output_limit_out_of_the_apis_range_is_refused() -> None:
    """``temperature=3`` and a ``max_output_tokens`` above the model's are the API's 400s,
    as google-genai sends them; the largest the model takes is answered."""
    hot = {"contents": HI, "generationConfig": {"temperature": 3}}
    problem = validate_gemini(hot)
    assert problem is not None
    assert problem.message == (
        "* GenerateContentRequest.generation_config.temperature: "
        "temperature must be in the range [0.0, 2.0]."
    )
    assert validate_gemini({"contents": HI, "generationConfig": {"temperature": 2}}) is None
    long = {"contents": HI, "generationConfig": {"maxOutputTokens": 100000}}
    problem = gemini_output_limit_refused("gemini-2.5-flash", long)
    assert problem is not None
    assert "value of 100000 but the supported range is from 1 (inclusive) to 65537 (exclusive)" in (
        problem.message
    )
    most = {"contents": HI, "generationConfig": {"maxOutputTokens": 65536}}
    assert gemini_output_limit_refused("gemini-2.5-pro", most) is None
    assert gemini_output_limit_refused("gemini-2.0-flash", most) is not None
    assert gemini_output_limit_refused("gemini-sim-1", long) is None  # a model it has no limit of


def test_an_enum_asked_for_as_text_x_enum_is_the_bare_value(sim: Simulator) -> None:
    """``response_mime_type="text/x.enum"`` is answered ``Percussion``, as the API answers
    it (google-genai unquotes only JSON's), and ``application/json`` ``"Percussion"``."""
    url = f"{sim.url}/v1beta/models/gemini-2.5-flash:generateContent"
    schema = {"type": "STRING", "enum": ["Percussion", "String"]}
    for mime, text in (("text/x.enum", "Percussion"), ("application/json", '"Percussion"')):
        config = {"responseMimeType": mime, "responseSchema": schema}
        body = {"contents": HI, "generationConfig": config}
        answer = httpx2.post(url, json=body, headers={"x-goog-api-key": KEY}).json()
        assert answer["candidates"][0]["content"]["parts"][0]["text"] == text


def test_an_object_of_no_properties_is_refused() -> None:
    """An MCP or LangChain tool taking no arguments, declared ``{"type": "object",
    "properties": {}}``, is the API's 400; a declaration without ``parameters`` (as
    google-genai sends a function taking none) is taken."""
    empty = {"type": "object", "properties": {}}
    tool = [{"functionDeclarations": [{"name": "now", "parameters": empty}]}]
    assert refusal({"contents": HI, "tools": tool}) == (
        "* GenerateContentRequest.tools[0].function_declarations[0].parameters.properties: "
        "should be non-empty for OBJECT type"
    )
    nested = {"type": "OBJECT", "properties": {"p": {"type": "ARRAY", "items": empty}}}
    config = {"responseMimeType": "application/json", "responseSchema": nested}
    refused = gemini_output_refused(
        "gemini-2.5-flash", {"contents": HI, "generationConfig": config}
    )
    assert refused is not None
    assert refused.message.startswith(
        '* GenerateContentRequest.generation_config.response_schema.properties["p"].items.'
        "properties: should be non-empty"
    )
    bare = [{"functionDeclarations": [{"name": "now"}]}]
    assert validate_gemini({"contents": HI, "tools": bare}) is None
    # GeminiModel declares an engine tool of no arguments so, which the API takes
    sent = to_gemini_request(
        [Message.user("hi")], [ToolSpec("now", "t", empty)], model="m", max_tokens=8
    )
    assert sent["tools"] == [{"functionDeclarations": [{"name": "now", "description": "t"}]}]
