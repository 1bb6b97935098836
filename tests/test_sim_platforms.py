"""The simulator serves the cloud platforms' routes: Azure OpenAI, Vertex AI, Amazon Bedrock.

A team calling the models through them (``openai.AzureOpenAI``, ``anthropic.AnthropicVertex``
and ``anthropic.AnthropicBedrock``) had every request answered ``404``, so could record
nothing without a live key. Each route is answered by the plain route's endpoint, with the
platform's own error shapes, and a Bedrock stream framed as an AWS event stream (read back
here with replaygate's own reader); recording from the simulator keeps the platforms'
paths, and their ``http`` interface, as a recording from the live platform does.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import httpx2
import orjson
import pytest

import replaygate.http
from replaygate.errors import SimulatorRefusalError
from replaygate.http import learners
from replaygate.http.aws_events import CONTENT_TYPE, AWSEventParser
from replaygate.sim import DriftPlan, FaultPlan, SimApp, Simulator, make_behavior
from replaygate.sim.thinking import REDACTING
from sdks import anthropic, genai, openai

VERTEX_MODEL = "claude-sonnet-4-5@20250929"
BEDROCK_MODEL = "anthropic.claude-sonnet-4-5-20250929-v1:0"
HI = [{"role": "user", "content": "hi"}]
SIGNED = {
    "authorization": "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260101/us-east-1/bedrock/"
    "aws4_request, SignedHeaders=host;x-amz-date, Signature=abc",
    "x-amz-date": "20260101T000000Z",
}
BEDROCK_BODY = {"anthropic_version": "bedrock-2023-05-31", "max_tokens": 50, "messages": HI}
"""The body ``AnthropicBedrock`` sends (``model`` and ``stream`` taken into the path)."""
TOOL = {"name": "t", "description": "d", "input_schema": {"type": "object", "properties": {}}}
INTERLEAVED = "interleaved-thinking-2025-05-14"


def vertex(base_url: str | None = None) -> Any:
    return anthropic.AnthropicVertex(
        access_token="t", project_id="p", region="us-east5", base_url=base_url, max_retries=0
    )


def azure(endpoint: str) -> Any:
    return openai.AzureOpenAI(
        api_key="k", api_version="2024-10-21", azure_endpoint=endpoint, max_retries=0
    )


def bedrock(client: httpx2.Client, origin: str, body: Any, stream: bool = False) -> Any:
    method = "invoke-with-response-stream" if stream else "invoke"
    return client.post(f"{origin}/model/{BEDROCK_MODEL}/{method}", json=body, headers=SIGNED)


def aws_events(raw: bytes) -> list[tuple[str | None, Any]]:
    parser = AWSEventParser()
    events = [(e.event, orjson.loads(e.data)) for e in parser.feed(raw)]
    parser.tail()
    return events


def test_vertex_answers_its_sdk_plain_and_streamed(sim: Simulator) -> None:
    client = vertex(f"{sim.url}/v1")
    message = client.messages.create(model=VERTEX_MODEL, max_tokens=50, messages=HI)
    assert (message.model, message.content[0].text) == (VERTEX_MODEL, "echo: hi")
    with client.messages.stream(model=VERTEX_MODEL, max_tokens=50, messages=HI) as stream:
        assert stream.get_final_text() == "echo: hi"
    with pytest.raises(anthropic.BadRequestError, match="at least one message"):
        client.messages.create(model=VERTEX_MODEL, max_tokens=50, messages=[])
    assert client.messages.count_tokens(model=VERTEX_MODEL, messages=HI).input_tokens > 0


def test_vertex_refuses_as_vertex(sim: Simulator) -> None:
    route = f"{sim.url}/v1/projects/p/locations/r/publishers/anthropic/models/m:rawPredict"
    body = {"anthropic_version": "vertex-2023-10-16", "max_tokens": 5, "messages": HI}
    unsigned = httpx2.post(route, json=body)
    assert unsigned.status_code == 401
    assert unsigned.json()["error"]["status"] == "UNAUTHENTICATED"
    named = httpx2.post(route, json={**body, "model": "m"}, headers={"authorization": "Bearer t"})
    assert named.status_code == 400
    assert named.json()["error"]["message"] == "model: Extra inputs are not permitted"
    unversioned = {k: v for k, v in body.items() if k != "anthropic_version"}
    missing = httpx2.post(route, json=unversioned, headers={"authorization": "Bearer t"})
    assert missing.json()["error"]["message"] == "anthropic_version: Field required"


def test_gemini_on_vertex_answers_google_genai(sim: Simulator) -> None:
    from google.oauth2.credentials import Credentials

    client = genai.Client(
        vertexai=True,
        project="p",
        location="us-central1",
        credentials=Credentials(token="t"),
        http_options=genai.types.HttpOptions(base_url=sim.url),
    )
    assert client.models.generate_content(model="gemini-2.5-flash", contents="hi").text == (
        "echo: hi"
    )
    pieces = client.models.generate_content_stream(model="gemini-2.5-flash", contents="hi")
    assert "".join(piece.text or "" for piece in pieces) == "echo: hi"
    route = "/v1/projects/p/locations/r/publishers/google/models/gemini-2.5-flash:generateContent"
    unsigned = httpx2.post(f"{sim.url}{route}", json={"contents": [{"parts": [{"text": "x"}]}]})
    assert (unsigned.status_code, unsigned.json()["error"]["status"]) == (401, "UNAUTHENTICATED")
    # express mode: an API key and no project, the publisher's path alone, which was a 404
    express = genai.Client(
        vertexai=True, api_key="k", http_options=genai.types.HttpOptions(base_url=sim.url)
    )
    assert express.models.generate_content(model="gemini-2.5-flash", contents="hi").text == (
        "echo: hi"
    )
    # a token count on Vertex AI, with a project or in express mode, was a 404
    for counting in (client, express):
        assert counting.models.count_tokens(model="gemini-2.5-flash", contents="hi").total_tokens
    express_route = "/v1beta1/publishers/google/models/gemini-2.5-flash:generateContent"
    keyless = httpx2.post(f"{sim.url}{express_route}", json={"contents": []})
    assert (keyless.status_code, keyless.json()["error"]["status"]) == (401, "UNAUTHENTICATED")


def test_a_retired_gemini_model_on_vertex_is_refused_in_vertex_s_words() -> None:
    # Vertex AI's 404 of gemini-1.5-flash was the Gemini API's, "not found for API
    # version v1beta" at a v1 or v1beta1 path
    app = SimApp(make_behavior("echo"))
    body = orjson.dumps({"contents": [{"parts": [{"text": "x"}]}]})
    model = "publishers/google/models/gemini-1.5-flash"
    for prefix in ("v1/projects/p/locations/r/", "v1beta1/"):
        reply = app.handle(
            "POST", f"/{prefix}{model}:generateContent", {"x-goog-api-key": "k"}, body
        )
        said = orjson.loads(reply.body)["error"]
        assert (reply.status, said["status"]) == (404, "NOT_FOUND")
        assert said["message"].startswith(f"Publisher Model `{prefix.partition('/')[2]}{model}`")


def test_azure_answers_its_sdk_at_its_paths(sim: Simulator) -> None:
    client = azure(sim.url)
    chat = client.chat.completions.create(model="dep", messages=HI)
    assert chat.choices[0].message.content == "echo: hi"
    chunks = client.chat.completions.create(model="dep", messages=HI, stream=True)
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "echo: hi"
    assert client.responses.create(model="dep", input="hi").output_text == "echo: hi"
    assert len(client.embeddings.create(model="emb", input=["a", "b"]).data) == 2
    keyless = httpx2.post(
        f"{sim.url}/openai/deployments/dep/chat/completions?api-version=2024-10-21",
        json={"model": "dep", "messages": HI},
    )
    assert keyless.status_code == 401
    assert keyless.json()["error"]["code"] == "401"
    unversioned = httpx2.post(  # a raw client's: Azure requires api-version but on /openai/v1
        f"{sim.url}/openai/deployments/dep/chat/completions",
        json={"model": "dep", "messages": HI},
        headers={"api-key": "k"},
    )
    assert unversioned.status_code == 404
    assert unversioned.json() == {"error": {"code": "404", "message": "Resource not found"}}


def test_azure_chat_carries_its_content_filter_results(sim: Simulator) -> None:
    # Azure's stream begins with a chunk of no choices holding the prompt's filter results:
    # code reading chunk.choices[0] of every chunk passed against the simulator, whose
    # Azure stream was OpenAI's, and failed live with an IndexError
    client = azure(sim.url)
    chat = client.chat.completions.create(model="dep", messages=HI, n=2)
    prompt = chat.model_extra["prompt_filter_results"][0]
    assert prompt["content_filter_results"]["jailbreak"] == {"filtered": False, "detected": False}
    for choice in chat.choices:
        assert choice.model_extra["content_filter_results"]["violence"]["severity"] == "safe"
    first, *rest = client.chat.completions.create(model="dep", messages=HI, stream=True)
    assert first.choices == [] and first.model_extra["prompt_filter_results"] == [prompt]
    assert "".join(c.choices[0].delta.content or "" for c in rest if c.choices) == "echo: hi"
    plain = openai.OpenAI(api_key="k", base_url=sim.openai_base_url, max_retries=0)
    assert (
        "prompt_filter_results"
        not in plain.chat.completions.create(model="gpt-4o", messages=HI).model_extra
    )


def test_azure_deployment_answers_a_body_without_model() -> None:
    # LangChain's AzureChatOpenAI given no model sends "model": null: the path names it
    app = SimApp(make_behavior("echo"))
    key = {"api-key": "k"}
    for body in ({"model": None, "messages": HI}, {"messages": HI}):
        path = "/openai/deployments/dep/chat/completions?api-version=2024-10-21"
        reply = app.handle("POST", path, key, orjson.dumps(body))
        assert reply.status == 200, reply.body
        assert orjson.loads(reply.body)["model"] == "dep"
    unnamed = app.handle("POST", "/openai/v1/chat/completions", key, orjson.dumps(body))
    assert unnamed.status == 400  # the v1 API reads the model from the body alone


def test_a_rate_limit_is_answered_in_the_platform_s_shape() -> None:
    # a client reading Azure's or Vertex AI's 429 met OpenAI's or the Messages API's body
    app = SimApp(make_behavior("echo"), faults=FaultPlan.sequence(["429", "429"], retry_after=2))
    azure_path = "/openai/deployments/dep/chat/completions?api-version=2024-10-21"
    azure = app.handle("POST", azure_path, {"api-key": "k"}, orjson.dumps({"messages": HI}))
    vertex_path = "/v1/projects/p/locations/r/publishers/anthropic/models/m:rawPredict"
    body = {"anthropic_version": "vertex-2023-10-16", "max_tokens": 8, "messages": HI}
    vertex = app.handle("POST", vertex_path, {"authorization": "Bearer t"}, orjson.dumps(body))
    assert (azure.status, orjson.loads(azure.body)) == (
        429,
        {"error": {"code": "429", "message": "Rate limit is exceeded. Try again in 2 seconds."}},
    )
    assert vertex.status == 429
    assert orjson.loads(vertex.body)["error"]["status"] == "RESOURCE_EXHAUSTED"
    assert all(dict(reply.headers).get("retry-after") for reply in (azure, vertex))


def test_bedrock_answers_the_sdks_request_and_frames_its_stream(sim: Simulator) -> None:
    with httpx2.Client() as client:
        plain = bedrock(client, sim.url, BEDROCK_BODY)
        streamed = bedrock(client, sim.url, BEDROCK_BODY, stream=True)
        extra = bedrock(client, sim.url, {**BEDROCK_BODY, "stream": True})
        unsigned = client.post(f"{sim.url}/model/{BEDROCK_MODEL}/invoke", json=BEDROCK_BODY)
        bare = f"{sim.url}/model/claude-sonnet-4-5/invoke"  # no id of Bedrock's
        unknown = client.post(bare, json=BEDROCK_BODY, headers=SIGNED)
    assert plain.json()["content"][0]["text"] == "echo: hi"
    assert plain.json()["model"] == BEDROCK_MODEL
    assert streamed.headers["content-type"] == CONTENT_TYPE
    events = aws_events(streamed.content)
    assert {name for name, _ in events} == {"chunk"}
    kinds = [data["type"] for _, data in events]
    assert kinds[0] == "message_start" and kinds[-1] == "message_stop"
    deltas = [d["delta"].get("text", "") for _, d in events if d["type"] == "content_block_delta"]
    assert "".join(deltas) == "echo: hi"
    assert extra.status_code == 400
    assert extra.headers["x-amzn-errortype"].startswith("ValidationException")
    assert "extraneous key [stream]" in extra.json()["message"]
    assert unsigned.status_code == 403
    assert unsigned.json() == {"message": "Missing Authentication Token"}
    assert unknown.json() == {"message": "The provided model identifier is invalid."}


def test_bedrock_takes_the_betas_its_body_names(sim: Simulator) -> None:
    # AnthropicBedrock sends the anthropic-beta header's betas as the body's anthropic_beta
    thinking = {"type": "enabled", "budget_tokens": 2000}  # over max_tokens: interleaved
    body = {**BEDROCK_BODY, "thinking": thinking, "tools": [TOOL]}
    with httpx2.Client() as client:
        refused = bedrock(client, sim.url, body)
        beta = bedrock(client, sim.url, {**body, "anthropic_beta": [INTERLEAVED]})
    assert refused.status_code == 400 and "budget_tokens" in refused.json()["message"]
    assert beta.status_code == 200, beta.text


def test_bedrock_stream_error_is_its_exception_message() -> None:
    app = SimApp(make_behavior("echo"), faults=FaultPlan.sequence(["sse-error"]))
    path = f"/model/{BEDROCK_MODEL}/invoke-with-response-stream"
    reply = app.handle("POST", path, SIGNED, orjson.dumps(BEDROCK_BODY))
    assert reply.events is not None
    events = aws_events(b"".join(event.encode() for event in reply.events))
    assert events[-1] == (
        "modelStreamErrorException",
        {"message": "Overloaded", "originalStatusCode": 529, "originalMessage": "Overloaded"},
    )


CONVERSE_MODEL = "us.anthropic.claude-sonnet-4-6"
CONVERSE_TOOLS = {
    "tools": [{"toolSpec": {"name": "t", "inputSchema": {"json": {"type": "object"}}}}],
    "toolChoice": {"tool": {"name": "t"}},
}


def converse(client: httpx2.Client, body: Any, stream: bool = False, model: str = "") -> Any:
    """LiteLLM's call of a ``bedrock/`` model (the client's base URL the simulator's)."""
    method = "converse-stream" if stream else "converse"
    return client.post(f"/model/{model or CONVERSE_MODEL}/{method}", json=body, headers=SIGNED)


def test_bedrock_s_converse_api_answers_in_its_own_shapes(sim: Simulator) -> None:
    # LiteLLM's bedrock/ models call Converse, which was answered 404 as unserved
    asked = {
        "messages": [{"role": "user", "content": [{"text": "hi"}]}],
        "system": [{"text": "Be brief."}],
        "inferenceConfig": {"maxTokens": 50, "temperature": 0.2},
    }
    with httpx2.Client(base_url=sim.url) as client:
        plain = converse(client, asked)
        streamed = converse(client, asked, stream=True)
        called = converse(client, {**asked, "toolConfig": CONVERSE_TOOLS})
        use = called.json()["output"]["message"]["content"][0]["toolUse"]
        turns = [
            *asked["messages"],
            {"role": "assistant", "content": [{"toolUse": use}]},
            {
                "role": "user",
                "content": [
                    {
                        "toolResult": {
                            "toolUseId": use["toolUseId"],
                            "content": [{"json": {"sky": "sunny"}}],
                        }
                    }
                ],
            },
        ]
        tools = {"tools": CONVERSE_TOOLS["tools"]}
        answered = converse(client, {**asked, "messages": turns, "toolConfig": tools})
        tool_stream = converse(client, {**asked, "toolConfig": CONVERSE_TOOLS}, stream=True)
        schema = {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "additionalProperties": False,
        }
        shaped = {
            "type": "json_schema",
            "structure": {"jsonSchema": {"schema": json.dumps(schema)}},
        }
        effort = {"output_config": {"effort": "low"}}  # LiteLLM's reasoning_effort
        with_effort = {
            "outputConfig": {"textFormat": shaped},
            "additionalModelRequestFields": effort,
        }
        formatted = converse(client, {**asked, **with_effort})
        unknown = converse(client, asked, model="claude-sonnet-4-6")
        assistant_first = converse(client, {"messages": turns[1:]})
    answer = plain.json()
    assert answer["output"] == {"message": {"role": "assistant", "content": [{"text": "echo: hi"}]}}
    assert answer["stopReason"] == "end_turn" and answer["metrics"]["latencyMs"] > 0
    usage = answer["usage"]
    assert usage["totalTokens"] == usage["inputTokens"] + usage["outputTokens"] > 0
    assert streamed.headers["content-type"] == CONTENT_TYPE
    events = aws_events(streamed.content)
    assert [name for name, _ in events] == [
        "messageStart",
        "contentBlockDelta",
        "contentBlockStop",
        "messageStop",
        "metadata",
    ]
    assert events[1][1] == {"delta": {"text": "echo: hi"}, "contentBlockIndex": 0}
    assert events[-1][1]["usage"] == usage
    assert called.json()["stopReason"] == "tool_use" and use["name"] == "t"
    assert answered.status_code == 200, answered.text
    started = [
        data for name, data in aws_events(tool_stream.content) if name == "contentBlockStart"
    ]
    assert [(d["start"]["toolUse"]["name"], d["contentBlockIndex"]) for d in started] == [("t", 0)]
    # LiteLLM's response_format: its answer was the plain text, no JSON
    (said,) = formatted.json()["output"]["message"]["content"]
    assert set(json.loads(said["text"])) == {"city"}
    assert unknown.status_code == 400
    assert unknown.headers["x-amzn-errortype"].startswith("ValidationException")
    assert unknown.json() == {"message": "The provided model identifier is invalid."}
    assert assistant_first.status_code == 400
    assert assistant_first.json()["message"].startswith(
        "A conversation must start with a user message."
    )


def test_a_converse_stream_carries_the_drift_of_its_answer() -> None:
    # a drift rule applied to a Converse answer, but not to its stream
    app = SimApp(make_behavior("echo"), drift=DriftPlan.parse("add-field:usage.foo=1"))
    body = orjson.dumps({"messages": [{"role": "user", "content": [{"text": "hi"}]}]})
    reply = app.handle("POST", f"/model/{CONVERSE_MODEL}/converse-stream", SIGNED, body)
    assert reply.events is not None
    events = aws_events(b"".join(event.encode() for event in reply.events))
    assert events[-1][0] == "metadata" and events[-1][1]["usage"]["foo"] == 1


@pytest.mark.parametrize(
    "asked",
    [
        {"messages": [{"role": "user", "content": [{"video": {"format": "mp4"}}]}]},
        {
            "messages": [{"role": "user", "content": [{"text": "hi"}]}],
            "toolConfig": {"tools": [{"systemTool": {"name": "nova_grounding"}}]},
        },
    ],
    ids=["video", "system-tool"],
)
def test_what_converse_takes_and_the_simulator_does_not_is_its_own_refusal(
    asked: dict[str, Any],
) -> None:
    # a system tool was refused in Bedrock's words, as if Bedrock refused it
    app = SimApp(make_behavior("echo"))
    reply = app.handle("POST", f"/model/{CONVERSE_MODEL}/converse", SIGNED, orjson.dumps(asked))
    said = orjson.loads(reply.body)
    assert reply.status == 400 and said["replaygate_simulator_refusal"] is True
    assert said["message"].startswith("The simulator ")


CONVERSE_HI = [{"role": "user", "content": [{"text": "hi"}]}]
CONVERSE_USE = {"toolUseId": "t1", "name": "t", "input": {}}


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        ({"system": "Be brief."}, "Value at 'system' failed to satisfy constraint"),
        ({"toolConfig": {"tools": "t"}}, "Value at 'toolConfig.tools' failed"),
        ({"inferenceConfig": [64]}, "Value at 'inferenceConfig' failed"),
        ({"system": ["Be brief."]}, "Value at 'system.1.member' failed"),
        (
            {"toolConfig": {**CONVERSE_TOOLS, "toolChoice": "auto"}},
            "Value at 'toolConfig.toolChoice' failed",
        ),
        ({"additionalModelRequestFields": [1]}, "Value at 'additionalModelRequestFields' failed"),
        ({"performanceConfig": {"latency": "fast"}}, "Value at 'performanceConfig.latency' failed"),
        (
            {"messages": [{"role": "user", "content": [{"document": {"source": {"text": "a"}}}]}]},
            "Value at 'messages.1.member.content.1.member.document.name' failed",
        ),
        (
            {"messages": [{"role": "user", "content": [{"image": {"source": {"bytes": "aGk="}}}]}]},
            "Value at 'messages.1.member.content.1.member.image.format' failed",
        ),
        (
            {"additionalModelRequestFields": {"anthropic_beta": "x"}},
            "Value at 'additionalModelRequestFields.anthropic_beta' failed",
        ),
        (
            {
                "messages": [
                    *CONVERSE_HI,
                    {"role": "assistant", "content": [{"toolUse": CONVERSE_USE}]},
                    {
                        "role": "user",
                        "content": [{"toolResult": {"toolUseId": "t1", "content": "sunny"}}],
                    },
                ],
                "toolConfig": {"tools": CONVERSE_TOOLS["tools"]},
            },
            "Value at 'messages.3.member.content.1.member.toolResult.content' failed",
        ),
    ],
)
def test_a_converse_field_of_another_shape_is_refused_not_dropped(
    asked: dict[str, Any], said: str
) -> None:
    # a Messages API system text sent to Converse was answered, the system prompt dropped
    app = SimApp(make_behavior("echo"))
    # a system block, a tool choice, a tool's result or additional fields of another
    # shape were dropped, the request answered without them
    body = orjson.dumps({"messages": CONVERSE_HI, **asked})
    reply = app.handle("POST", f"/model/{CONVERSE_MODEL}/converse", SIGNED, body)
    assert reply.status == 400 and said in orjson.loads(reply.body)["message"]


def test_a_tool_s_result_of_a_document_is_read_and_of_a_video_is_the_simulator_s_refusal() -> None:
    # each was refused in Bedrock's words, "one of text, json, image", which Bedrock takes
    app = SimApp(make_behavior("echo"))
    paper = {"format": "txt", "name": "notes", "source": {"bytes": "c3Vubnk="}}
    clip = {"format": "mp4", "source": {"bytes": "AAAA"}}
    said = {}
    for kind, given in (("document", paper), ("video", clip)):
        result = {"toolUseId": "t1", "content": [{kind: given}]}
        turns = [
            *CONVERSE_HI,
            {"role": "assistant", "content": [{"toolUse": CONVERSE_USE}]},
            {"role": "user", "content": [{"toolResult": result}]},
        ]
        body = orjson.dumps({"messages": turns, "toolConfig": {"tools": CONVERSE_TOOLS["tools"]}})
        reply = app.handle("POST", f"/model/{CONVERSE_MODEL}/converse", SIGNED, body)
        said[kind] = (reply.status, orjson.loads(reply.body))
    assert said["document"][0] == 200, said["document"]
    status, refused = said["video"]
    assert status == 400 and refused["replaygate_simulator_refusal"] is True
    assert refused["message"].startswith("The simulator reads no video")


@pytest.mark.parametrize(
    ("source", "said"),
    [
        ({"text": "sunny"}, None),
        ({"content": [{"text": "sunny"}]}, None),
        ({"s3Location": {"uri": "s3://b/k"}}, "The simulator reads no file in S3"),
    ],
)
def test_a_converse_document_s_sources_bedrock_takes_are_not_refused_in_its_words(
    source: dict[str, Any], said: str | None
) -> None:
    # each was refused in Bedrock's words as a source without bytes, which Bedrock takes
    app = SimApp(make_behavior("echo"))
    document = {"format": "txt", "name": "notes", "source": source}
    turn = {"role": "user", "content": [{"document": document}, {"text": "hi"}]}
    body = orjson.dumps({"messages": [turn]})
    reply = app.handle("POST", f"/model/{CONVERSE_MODEL}/converse", SIGNED, body)
    answer = orjson.loads(reply.body)
    if said is None:
        assert reply.status == 200, answer
    else:
        assert answer["replaygate_simulator_refusal"] is True
        assert answer["message"].startswith(said)


@pytest.mark.parametrize("most", [True, 2.5, 2**40])
def test_a_converse_max_tokens_of_no_integer_is_the_simulator_s_refusal(most: Any) -> None:
    # each was refused in Bedrock's words as a value below 1
    app = SimApp(make_behavior("echo"))
    body = orjson.dumps({"messages": CONVERSE_HI, "inferenceConfig": {"maxTokens": most}})
    reply = app.handle("POST", f"/model/{CONVERSE_MODEL}/converse", SIGNED, body)
    said = orjson.loads(reply.body)
    assert reply.status == 400 and said["replaygate_simulator_refusal"] is True
    assert said["message"].startswith("inferenceConfig.maxTokens: ")


def test_a_converse_request_the_messages_api_refuses_is_the_simulator_s_refusal() -> None:
    # a tool call without an id was refused in the Messages API's words, naming a field
    # (messages.1.content.0.tool_use.id) the request never had, as if Bedrock said so,
    # and a recording kept it as Bedrock's answer
    app = SimApp(make_behavior("echo"))
    use = {k: v for k, v in CONVERSE_USE.items() if k != "toolUseId"}
    turns = [*CONVERSE_HI, {"role": "assistant", "content": [{"toolUse": use}]}]
    tools = {"tools": CONVERSE_TOOLS["tools"]}
    body = orjson.dumps({"messages": turns, "system": [{"text": 5}], "toolConfig": tools})
    reply = app.handle("POST", f"/model/{CONVERSE_MODEL}/converse", SIGNED, body)
    said = orjson.loads(reply.body)
    assert reply.status == 400 and said["replaygate_simulator_refusal"] is True
    assert "in the Messages request the Converse request stands for" in said["message"]
    # a thinking budget not under maxTokens, refused after the request's checks
    thinking = {"thinking": {"type": "enabled", "budget_tokens": 1024}}
    over = {"messages": CONVERSE_HI, "additionalModelRequestFields": thinking}
    body = orjson.dumps({**over, "inferenceConfig": {"maxTokens": 1024}})
    reply = app.handle("POST", f"/model/{CONVERSE_MODEL}/converse", SIGNED, body)
    assert orjson.loads(reply.body)["replaygate_simulator_refusal"] is True


@pytest.mark.parametrize(
    ("model", "known"),
    [
        ("us-gov.anthropic.claude-3-haiku-20240307-v1:0", True),
        ("ai21.jamba-1-5-large-v1:0", True),
        ("claude-3.5-sonnet", False),  # was taken for a provider "claude-3"'s model
        ("sonnet", False),
    ],
)
def test_a_model_id_bedrock_does_not_know_is_refused(model: str, known: bool) -> None:
    app = SimApp(make_behavior("echo"))
    body = orjson.dumps({"messages": CONVERSE_HI})
    reply = app.handle("POST", f"/model/{model}/converse", SIGNED, body)
    assert (reply.status == 200) is known


def test_a_guarded_turn_is_read_as_its_text() -> None:
    # LiteLLM sends the last user turn as guardContent under guardrailConfig: it was
    # refused as a block the simulator does not read
    app = SimApp(make_behavior("echo"))
    guarded = [{"role": "user", "content": [{"guardContent": {"text": {"text": "hi"}}}]}]
    guardrail = {"guardrailIdentifier": "gr-1", "guardrailVersion": "1"}
    asked = {"messages": guarded, "guardrailConfig": guardrail}
    reply = app.handle("POST", f"/model/{CONVERSE_MODEL}/converse", SIGNED, orjson.dumps(asked))
    assert orjson.loads(reply.body)["output"]["message"]["content"] == [{"text": "echo: hi"}]


def test_the_tier_asked_for_is_the_tier_answered() -> None:
    # LiteLLM's service_tier="flex" is Converse's serviceTier, which Bedrock's answer
    # names and LiteLLM reads back: the simulator's answers named none
    app = SimApp(make_behavior("echo"))
    asked = {"messages": CONVERSE_HI, "serviceTier": {"type": "flex"}}
    path = f"/model/{CONVERSE_MODEL}/converse"
    whole = app.handle("POST", path, SIGNED, orjson.dumps(asked))
    assert orjson.loads(whole.body)["serviceTier"] == {"type": "flex"}
    streamed = app.handle("POST", f"{path}-stream", SIGNED, orjson.dumps(asked))
    assert streamed.events is not None
    events = aws_events(b"".join(event.encode() for event in streamed.events))
    assert events[-1][1]["serviceTier"] == {"type": "flex"}
    wrong = {**asked, "serviceTier": {"type": "cheap"}}
    refused = app.handle("POST", path, SIGNED, orjson.dumps(wrong))
    assert "Value at 'serviceTier.type'" in orjson.loads(refused.body)["message"]


def test_a_redacted_thought_is_wrapped_as_converse_wraps_it_and_taken_back() -> None:
    # Converse carries Claude's redacted thought base64-wrapped (redactedContent, a blob),
    # as LiteLLM unwraps it: the simulator sent it bare
    app = SimApp(make_behavior("echo"))
    thinking = {"thinking": {"type": "enabled", "budget_tokens": 1024}}
    said = [{"role": "user", "content": [{"text": f"hi {REDACTING}"}]}]
    asked = {"messages": said, "additionalModelRequestFields": thinking}
    path = f"/model/{CONVERSE_MODEL}/converse"
    first = orjson.loads(app.handle("POST", path, SIGNED, orjson.dumps(asked)).body)
    block = first["output"]["message"]["content"][0]["reasoningContent"]
    assert base64.b64decode(block["redactedContent"]).decode().isascii()
    later = [*said, first["output"]["message"], {"role": "user", "content": [{"text": "and?"}]}]
    again = app.handle("POST", path, SIGNED, orjson.dumps({**asked, "messages": later}))
    assert again.status == 200, again.body
    bare = {"reasoningContent": {"redactedContent": "not base64!"}}
    broken = [*said, {"role": "assistant", "content": [bare]}, later[-1]]
    refused = app.handle("POST", path, SIGNED, orjson.dumps({**asked, "messages": broken}))
    assert "redactedContent' failed to satisfy constraint" in orjson.loads(refused.body)["message"]


def test_additional_model_request_fields_leave_the_request_s_own_alone() -> None:
    app = SimApp(make_behavior("echo"))
    extra = {"max_tokens": 1, "messages": []}
    asked = {"messages": CONVERSE_HI, "additionalModelRequestFields": extra}
    reply = app.handle("POST", f"/model/{CONVERSE_MODEL}/converse", SIGNED, orjson.dumps(asked))
    assert reply.status == 200
    assert orjson.loads(reply.body)["output"]["message"]["content"] == [{"text": "echo: hi"}]


def test_another_provider_s_model_on_invoke_is_the_simulator_s_refusal_not_recorded(
    tmp_path: Path,
) -> None:
    # LiteLLM's bedrock/amazon.titan-embed-text-v2:0 embedding was refused as a Messages
    # request missing anthropic_version, and that 400 recorded as Bedrock's answer; the
    # error of a refusal in Bedrock's shape said "the simulator gave no message"
    store = tmp_path / "titan.jsonl"
    url = "https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.titan-embed-text-v2:0"
    with (
        Simulator(behavior="echo") as simulator,
        replaygate.http.intercept(
            store, mode="record-missing", approve_live=True, live_origin=simulator.url
        ),
        pytest.raises(SimulatorRefusalError, match="for Anthropic's models only") as refused,
    ):
        httpx2.post(f"{url}/invoke", json={"inputText": "hi"}, headers=SIGNED)
    assert "amazon.titan-embed-text-v2:0" in str(refused.value)
    assert not store.exists() or store.read_text() == ""


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_recorded_from_the_simulator_as_from_the_platforms(sim: Simulator, tmp_path: Path) -> None:
    store = tmp_path / "cloud.jsonl"

    def run() -> list[Any]:
        client = vertex()  # built for us-east5-aiplatform.googleapis.com
        text = client.messages.create(model=VERTEX_MODEL, max_tokens=50, messages=HI)
        origin = "https://bedrock-runtime.us-east-1.amazonaws.com"
        with httpx2.Client() as http:
            streamed = bedrock(http, origin, BEDROCK_BODY, stream=True).content
        return [text.content[0].text, aws_events(streamed)]

    with replaygate.http.intercept(
        store, mode="record-missing", approve_live=True, live_origin=sim.url
    ):
        recorded = run()
    with replaygate.http.intercept(store):
        assert run() == recorded
    fixtures = [json.loads(line) for line in store.read_text().splitlines()]
    assert [f["meta"]["interface"] for f in fixtures] == ["http", "http"]
    assert fixtures[0]["request"]["path"].endswith(f"/models/{VERTEX_MODEL}:rawPredict")
    assert fixtures[1]["response"]["events"][0]["event"] == "chunk"


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_bedrock_answer_of_a_simulator_of_another_process_is_labelled_sim(
    sim: Simulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # told by its request id, which its stream and its errors carried only as Bedrock's
    # x-amzn-requestid, which a recording does not keep: they were labelled live
    monkeypatch.setattr(learners, "_learners", {})  # as another process's simulator is
    store = tmp_path / "served.jsonl"
    with (
        replaygate.http.intercept(store, mode="record-missing", approve_live=True),
        httpx2.Client() as client,
    ):
        bedrock(client, sim.url, BEDROCK_BODY, stream=True)
        bedrock(client, sim.url, {**BEDROCK_BODY, "model": "m"})
    fixtures = [json.loads(line) for line in store.read_text().splitlines()]
    assert [f["meta"]["source"] for f in fixtures] == ["sim", "sim"]


def test_bedrock_stream_ends_with_its_invocation_metrics() -> None:
    # Bedrock's message_stop carries the call's counts (LiteLLM reads its usage there); the
    # simulator's had none, so a recording from it lacked what one from Bedrock holds
    app = SimApp(make_behavior("echo"))
    path = f"/model/{BEDROCK_MODEL}/invoke-with-response-stream"
    reply = app.handle("POST", path, SIGNED, orjson.dumps(BEDROCK_BODY))
    assert reply.events is not None
    events = aws_events(b"".join(event.encode() for event in reply.events))
    (name, last), usage = events[-1], events[-2][1]["usage"]
    assert (name, last["type"]) == ("chunk", "message_stop")
    metrics = last["amazon-bedrock-invocationMetrics"]
    counts = (metrics["inputTokenCount"], metrics["outputTokenCount"])
    assert counts == (usage["input_tokens"], usage["output_tokens"])
    assert metrics["invocationLatency"] >= metrics["firstByteLatency"] > 0


def test_gemini_usage_counts_the_prompt_by_modality() -> None:
    # the API's usageMetadata holds promptTokensDetails, plain and in each streamed chunk;
    # the simulator's had none, so a recording from it lacked what one from the API holds
    app = SimApp(make_behavior("echo"))
    body = orjson.dumps({"contents": [{"parts": [{"text": "hi"}]}]})
    route = "/v1beta/models/gemini-2.5-flash"
    plain = app.handle("POST", f"{route}:generateContent", {"x-goog-api-key": "k"}, body)
    usage = orjson.loads(plain.body)["usageMetadata"]
    counted = [{"modality": "TEXT", "tokenCount": usage["promptTokenCount"]}]
    assert usage["promptTokensDetails"] == counted
    query = f"{route}:streamGenerateContent?alt=sse"
    streamed = app.handle("POST", query, {"x-goog-api-key": "k"}, body)
    assert streamed.events is not None
    for event in streamed.events:
        assert orjson.loads(event.data)["usageMetadata"]["promptTokensDetails"] == counted


def test_gemini_on_vertex_answers_with_its_create_time_and_traffic_type() -> None:
    # Vertex AI's answer (and each streamed chunk) holds createTime, and its usageMetadata a
    # trafficType, which the Gemini API's does not: the simulator answered as the Gemini API
    app = SimApp(make_behavior("echo"))
    body = orjson.dumps({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]})
    route = "/v1/projects/p/locations/r/publishers/google/models/gemini-2.5-flash"
    signed = {"authorization": "Bearer t"}
    plain = orjson.loads(app.handle("POST", f"{route}:generateContent", signed, body).body)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", plain["createTime"])
    assert plain["usageMetadata"]["trafficType"] == "ON_DEMAND"
    streamed = app.handle("POST", f"{route}:streamGenerateContent?alt=sse", signed, body)
    assert streamed.events is not None
    for event in streamed.events:
        chunk = orjson.loads(event.data)
        assert (chunk["createTime"], chunk["usageMetadata"]["trafficType"]) == (
            plain["createTime"],
            "ON_DEMAND",
        )
    gemini_api = app.handle(
        "POST", "/v1beta/models/gemini-2.5-flash:generateContent", {"x-goog-api-key": "k"}, body
    )
    assert "createTime" not in orjson.loads(gemini_api.body)


def test_converse_refuses_tool_blocks_without_a_tool_config() -> None:
    # Bedrock refuses a conversation holding toolUse or toolResult blocks sent without
    # toolConfig (an agent's closing turn asked without tools); the simulator answered it,
    # so the recording passed and the live call failed
    app = SimApp(make_behavior("echo"))
    use = {"toolUseId": "tooluse_1", "name": "t", "input": {}}
    turns = [
        {"role": "user", "content": [{"text": "hi"}]},
        {"role": "assistant", "content": [{"toolUse": use}]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": "tooluse_1", "content": []}}]},
    ]
    path = f"/model/{CONVERSE_MODEL}/converse"
    reply = app.handle("POST", path, SIGNED, orjson.dumps({"messages": turns}))
    assert reply.status == 400
    assert orjson.loads(reply.body)["message"] == (
        "The toolConfig field must be defined when using toolUse and toolResult content blocks."
    )
    assert dict(reply.headers)["x-amzn-errortype"].startswith("ValidationException")
    given = {"messages": turns, "toolConfig": {"tools": CONVERSE_TOOLS["tools"]}}
    assert app.handle("POST", path, SIGNED, orjson.dumps(given)).status == 200


@pytest.mark.parametrize(
    ("config", "said"),
    [
        ({"responseJsonSchema": {"type": "object"}}, "is set for a text answer"),
        (
            {
                "responseMimeType": "application/json",
                "responseJsonSchema": {"type": "object"},
                "responseSchema": {"type": "OBJECT"},
            },
            "sets both response_schema and response_json_schema",
        ),
    ],
)
def test_a_gemini_json_schema_the_api_refuses_is_the_simulator_s_refusal(
    config: dict[str, Any], said: str
) -> None:
    # google-genai's GenerateContentConfig: "If set, `response_schema` must be omitted, but
    # `response_mime_type` is required"; the simulator answered JSON, a recording kept it
    app = SimApp(make_behavior("echo"))
    body = orjson.dumps({"contents": [{"parts": [{"text": "hi"}]}], "generationConfig": config})
    route = "/v1beta/models/gemini-2.5-flash:generateContent"
    reply = app.handle("POST", route, {"x-goog-api-key": "k"}, body)
    refused = orjson.loads(reply.body)
    assert reply.status == 400 and said in refused["error"]["message"]
    assert refused["replaygate_simulator_refusal"] is True


def test_a_converse_tool_call_the_simulator_makes_has_bedrock_s_id_prefix() -> None:
    # Converse's toolUseId begins tooluse_, not the Messages API's toolu_
    app = SimApp(make_behavior("echo"))
    body = orjson.dumps({"messages": CONVERSE_HI, "toolConfig": CONVERSE_TOOLS})
    reply = app.handle("POST", f"/model/{CONVERSE_MODEL}/converse", SIGNED, body)
    use = orjson.loads(reply.body)["output"]["message"]["content"][0]["toolUse"]
    assert use["toolUseId"].startswith("tooluse_sim_")


def test_a_claude_model_s_limits_hold_on_bedrock_under_its_bedrock_id() -> None:
    # temperature beside top_p, refused for claude-sonnet-4-6 on the Messages API, was
    # answered on Bedrock (us.anthropic.claude-sonnet-4-6), which passes Claude's refusal on
    app = SimApp(make_behavior("echo"))
    both = {**BEDROCK_BODY, "temperature": 0.2, "top_p": 0.9}
    path = "/model/us.anthropic.claude-sonnet-4-6/invoke"
    reply = app.handle("POST", path, SIGNED, orjson.dumps(both))
    assert reply.status == 400
    assert orjson.loads(reply.body)["message"].startswith("`temperature` and `top_p` cannot")
    # a max_tokens over the model's most: the simulator's own words, a platform's unknown
    over = {"messages": CONVERSE_HI, "inferenceConfig": {"maxTokens": 999_999}}
    path = "/model/us.anthropic.claude-sonnet-4-6/converse"
    said = orjson.loads(app.handle("POST", path, SIGNED, orjson.dumps(over)).body)
    assert said["replaygate_simulator_refusal"] is True and "> 128000" in said["message"]
    # a model the simulator does not list keeps taking both
    path = "/model/anthropic.claude-3-5-sonnet-20240620-v1:0/invoke"
    assert app.handle("POST", path, SIGNED, orjson.dumps(both)).status == 200


def test_claude_s_ids_on_bedrock_have_bedrock_s_prefixes() -> None:
    # Claude's answers on Bedrock are msg_bdrk_..., its tool calls toolu_bdrk_...
    app = SimApp(make_behavior("research-copilot"))
    search = {"name": "search_corpus", "description": "d", "input_schema": {"type": "object"}}
    asked = {**BEDROCK_BODY, "messages": [{"role": "user", "content": "What is RAG?"}]}
    body = orjson.dumps({**asked, "tools": [search]})
    answer = orjson.loads(app.handle("POST", f"/model/{BEDROCK_MODEL}/invoke", SIGNED, body).body)
    assert answer["id"].startswith("msg_bdrk_sim_")
    assert answer["content"][-1]["id"].startswith("toolu_bdrk_sim_")


@pytest.mark.parametrize(
    ("model", "given", "answered"),
    [
        (
            BEDROCK_MODEL,
            {"converse": {"messages": [{"role": "user", "content": [{"text": "hi"}]}]}},
            200,
        ),
        (
            BEDROCK_MODEL,
            {"invokeModel": {"body": base64.b64encode(orjson.dumps(BEDROCK_BODY)).decode()}},
            200,
        ),
        (
            BEDROCK_MODEL,
            {"converse": {"messages": [{"role": "assistant", "content": [{"text": "hi"}]}]}},
            400,
        ),
        (BEDROCK_MODEL, {"invokeModel": {"body": base64.b64encode(b"not json").decode()}}, "own"),
        (BEDROCK_MODEL, {}, "own"),
        (
            "amazon.nova-pro-v1:0",
            {"converse": {"messages": [{"role": "user", "content": [{"text": "hi"}]}]}},
            "own",
        ),
    ],
    ids=["converse", "invokeModel", "refused", "invoke-not-json", "no-input", "nova"],
)
def test_bedrock_counts_tokens_of_the_call_its_input_holds(
    model: str, given: dict[str, Any], answered: int | str
) -> None:
    # /model/<id>/count-tokens (boto3's count_tokens, which Strands and pydantic-ai call) was
    # a 404 that stopped the recording; a count for a model Bedrock may not count is the
    # simulator's own refusal, never recorded
    app = SimApp(make_behavior("echo"))
    body = orjson.dumps({"input": given})
    reply = app.handle("POST", f"/model/{model}/count-tokens", SIGNED, body)
    said = orjson.loads(reply.body)
    if answered == "own":
        assert reply.refused and reply.status == 400, said
    else:
        assert (reply.status, reply.refused) == (answered, False), said
    if answered == 200:
        assert said["inputTokens"] > 0
        assert dict(reply.headers)["x-amzn-requestid"].startswith("req_sim_")
