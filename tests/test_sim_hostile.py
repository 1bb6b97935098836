"""The simulator answering malformed and hostile requests over real loopback HTTP: a 4xx
naming what is wrong and where, as the real APIs do, never a 200 or a Python repr."""

from __future__ import annotations

import gzip
import http.client
import json
import logging
import socket
import threading
import time
from typing import Any

import pytest

from replaygate.sim import SimApp, Simulator, server
from replaygate.sim.behaviors import EchoBehavior
from replaygate.sim.replies import MAX_BODY

ANTHROPIC = {
    "x-api-key": "test",
    "anthropic-version": "2023-06-01",
    "content-type": "application/json",
}
OPENAI = {"authorization": "Bearer test", "content-type": "application/json"}
GEMINI = {"x-goog-api-key": "test"}


def post(
    sim: Simulator, path: str, body: Any, headers: dict[str, str] = ANTHROPIC, method: str = "POST"
) -> tuple[int, Any]:
    """Send ``body`` (JSON unless bytes); the status and the JSON body of the answer."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    conn = http.client.HTTPConnection("127.0.0.1", sim.port, timeout=5)
    try:
        conn.request(method, path, body=data, headers=headers)
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def received(sim: Simulator, data: bytes) -> bytes:
    """Send ``data`` on a raw socket; what comes back until the connection ends."""
    with socket.create_connection(("127.0.0.1", sim.port), timeout=5) as sock:
        sock.sendall(data)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


def exchange(sim: Simulator, data: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send ``data`` on a raw socket; the status, headers and body of the answer."""
    head, _, body = received(sim, data).partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines)
    return int(status_line.split()[1]), headers, body


def anthropic_message(sim: Simulator, content: Any, **fields: Any) -> tuple[int, str]:
    """The status and error message of a Messages request with one user message."""
    body = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": content}]}
    status, answer = post(sim, "/v1/messages", {**body, **fields})
    return status, answer.get("error", {}).get("message", "")


@pytest.mark.parametrize(
    ("reply", "refused"),
    [
        (["text", "toolu_1", "toolu_2"], True),
        (["toolu_1", "text", "toolu_2"], True),
        (["toolu_2", "toolu_1", "text"], False),
    ],
    ids=["text first", "text between", "text after"],
)
def test_anthropic_tool_results_must_begin_their_message(
    sim: Simulator, reply: list[str], refused: bool
) -> None:
    """A reply to tool calls that puts a text block before their results (LangChain's
    merge of a human message sent between a tool call and its ToolMessage) is refused as
    the API refuses it; text after the results is taken."""
    calls = [
        {"type": "tool_use", "id": i, "name": "f", "input": {}} for i in ("toolu_1", "toolu_2")
    ]
    blocks = [
        {"type": "text", "text": "in celsius"}
        if b == "text"
        else {"type": "tool_result", "tool_use_id": b, "content": "20"}
        for b in reply
    ]
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": calls},
        {"role": "user", "content": blocks},
    ]
    status, answer = post(
        sim, "/v1/messages", {"model": "m", "max_tokens": 10, "messages": messages}
    )
    expected = (
        "messages.2: Did not find 2 `tool_result` block(s) at the beginning of this message. "
        "Messages following `tool_use` blocks must begin with a matching number of "
        "`tool_result` blocks."
    )
    assert (status, answer.get("error", {}).get("message")) == (
        (400, expected) if refused else (200, None)
    )


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ({"type": "image"}, "messages.0.content.0.image.source: Field required"),
        (
            {"type": "image", "source": "x.png"},
            "messages.0.content.0.image.source: Input should be a valid dictionary",
        ),
        ({"type": "document"}, "messages.0.content.0.document.source: Field required"),
        (
            {"type": "image", "source": {}},
            "messages.0.content.0.image.source: Input should be a valid dictionary or object",
        ),
        (
            {"type": "image", "source": {"type": "text", "data": "hi"}},
            "messages.0.content.0.image.source: Input tag 'text' found using 'type' does not "
            "match any of the expected tags: 'base64', 'url', 'file'",
        ),
        (
            {"type": "image", "source": {"type": "base64", "media_type": "image/png"}},
            "messages.0.content.0.image.source.base64.data: Field required",
        ),
        (
            {"type": "document", "source": {"type": "url", "url": 5}},
            "messages.0.content.0.document.source.url.url: Input should be a valid string",
        ),
        ({"type": "text"}, "messages.0.content.0.text.text: Field required"),
        (
            {"type": "text", "text": 5},
            "messages.0.content.0.text.text: Input should be a valid string",
        ),
        (
            {"type": "tool_result"},
            "messages.0.content.0.tool_result.tool_use_id: Field required",
        ),
        (
            {"type": "search_result", "source": "https://example.com/rag", "title": "RAG"},
            "messages.0.content.0.search_result.content: Field required",
        ),
        ("not a block", "messages.0.content.0: Input should be a valid dictionary or object"),
    ],
)
def test_anthropic_content_blocks_missing_their_fields_are_refused(
    sim: Simulator, block: Any, message: str
) -> None:
    assert anthropic_message(sim, [block]) == (400, message)


def test_anthropic_empty_content_is_refused_but_in_a_final_assistant_message(
    sim: Simulator,
) -> None:
    empty = "messages.0: all messages must have non-empty content except for the optional final"
    for content in ("", []):
        status, message = anthropic_message(sim, content)
        assert (status, message.startswith(empty)) == (400, True)
    assert anthropic_message(sim, [{"type": "text", "text": ""}]) == (
        400,
        "messages: text content blocks must be non-empty",
    )
    prefill = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": ""}]
    body = {"model": "m", "max_tokens": 10, "messages": prefill}
    assert post(sim, "/v1/messages", body)[0] == 200


@pytest.mark.parametrize(
    "content",
    [" ", "\n\t", [{"type": "text", "text": " "}], [{"type": "text", "text": "\n"}] * 2],
    ids=["space", "newline and tab", "a blank block", "two blank blocks"],
)
def test_anthropic_text_of_whitespace_alone_is_refused(sim: Simulator, content: Any) -> None:
    # it was answered (`replaygate record " "` recorded green), where the API refuses it
    assert anthropic_message(sim, content) == (
        400,
        "messages: text content blocks must contain non-whitespace text",
    )


def test_anthropic_a_blank_text_block_beside_words_is_taken(sim: Simulator) -> None:
    blank_and_words = [{"type": "text", "text": " "}, {"type": "text", "text": "hi"}]
    assert anthropic_message(sim, blank_and_words)[0] == 200


def test_anthropic_tool_result_content_blocks_are_checked(sim: Simulator) -> None:
    call = {"type": "tool_use", "id": "toolu_1", "name": "search", "input": {}}
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "image"}]}
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [call]},
        {"role": "user", "content": [result]},
    ]
    status, answer = post(
        sim, "/v1/messages", {"model": "m", "max_tokens": 10, "messages": messages}
    )
    assert status == 400
    assert answer["error"]["message"] == (
        "messages.2.content.0.tool_result.content.0.image.source: Field required"
    )


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (
            {"max_tokens": -1},
            "max_tokens: Input should be a valid integer greater than or equal to 1",
        ),
        (
            {"max_tokens": "10"},
            "max_tokens: Input should be a valid integer greater than or equal to 1",
        ),
        ({"model": 5}, "model: Input should be a valid string"),
        ({"temperature": "hot"}, "temperature: Input should be a valid number"),
        ({"top_k": 1.5}, "top_k: Input should be a valid integer"),
        ({"tool_choice": "any"}, "tool_choice: Input should be a valid dictionary or object"),
        ({"system": 5}, "system: Input should be a valid string or list"),
        (
            {"system": [{"type": "", "text": "be brief"}]},
            "system.0: Input tag '' found using 'type' does not match any of the expected tags: "
            "'text'",
        ),
        ({"messages": []}, "messages: at least one message is required"),
        ({"messages": {}}, "messages: Input should be a valid list"),
    ],
)
def test_anthropic_parameters_of_the_wrong_type_are_refused(
    sim: Simulator, fields: dict[str, Any], message: str
) -> None:
    assert anthropic_message(sim, "hi", **fields) == (400, message)


def test_anthropic_tool_use_without_id_name_or_input_is_refused(sim: Simulator) -> None:
    call = {"type": "tool_use", "id": "toolu_1", "name": "search", "input": {}}
    for missing in ("id", "name", "input"):
        partial = {k: v for k, v in call.items() if k != missing}
        messages = [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [partial]},
        ]
        body = {"model": "m", "max_tokens": 10, "messages": messages}
        status, answer = post(sim, "/v1/messages", body)
        assert status == 400
        assert answer["error"] == {
            "type": "invalid_request_error",
            "message": f"messages.1.content.0.tool_use.{missing}: Field required",
        }


def test_anthropic_image_and_document_sources_of_each_kind_are_read(sim: Simulator) -> None:
    form = (
        b'--b\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n'
        b"Content-Type: application/pdf\r\n\r\n%PDF-1.4\r\n--b--\r\n"
    )
    upload = {**ANTHROPIC, "content-type": "multipart/form-data; boundary=b"}
    status, uploaded = post(sim, "/v1/files", form, upload)
    assert status == 200, uploaded
    sources = [
        ("image", {"type": "base64", "media_type": "image/png", "data": "aGk="}),
        ("image", {"type": "url", "url": "https://example.com/a.png"}),
        ("document", {"type": "file", "file_id": uploaded["id"]}),
        ("document", {"type": "text", "media_type": "text/plain", "data": "hi"}),
        ("document", {"type": "content", "content": [{"type": "text", "text": "hi"}]}),
    ]
    for kind, source in sources:
        assert anthropic_message(sim, [{"type": kind, "source": source}]) == (200, "")


@pytest.mark.parametrize("prefill", ["Sure, ", [{"type": "text", "text": "Sure,\n"}]])
def test_a_prefill_ending_in_whitespace_is_refused(sim: Simulator, prefill: Any) -> None:
    # it was answered, where the API refuses it
    turns = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": prefill}]
    said = anthropic_message(sim, "x", messages=turns)
    assert said == (400, "messages: final assistant content cannot end with trailing whitespace")


def test_a_stop_sequence_that_is_no_string_is_refused(sim: Simulator) -> None:
    # it was answered, the number stopping nothing, where the API refuses it
    said = anthropic_message(sim, "hi", stop_sequences=["END", 7])
    assert said == (400, "stop_sequences.1: Input should be a valid string")


@pytest.mark.parametrize(
    ("media_type", "data", "said"),
    [
        ("image/bmp", "aGk=", "base64.media_type: Input should be 'image/jpeg', 'image/png'"),
        ("image/png", "not base64!", "base64.data: the image's data is no base64"),
    ],
)
def test_an_image_of_a_media_type_or_data_no_model_reads_is_refused(
    sim: Simulator, media_type: str, data: str, said: str
) -> None:
    # each was answered, and a recording from the simulator passed where the API refuses it
    source = {"type": "base64", "media_type": media_type, "data": data}
    status, message = anthropic_message(sim, [{"type": "image", "source": source}])
    assert status == 400 and said in message, message


@pytest.mark.parametrize(
    "kind",
    [
        "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result",
        "tool_search_tool_result",
    ],
)
def test_anthropic_server_tool_results_sent_back_are_read(sim: Simulator, kind: str) -> None:
    """An assistant turn of the code execution tool (20250825) or of tool search, sent back
    as the API gave it, was refused as a block of no known kind, which the API takes."""
    call = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "bash_code_execution",
            "input": {"command": "ls"}}  # fmt: skip
    result = {"type": kind, "tool_use_id": "srvtoolu_1", "content": {}}
    turns = [{"role": "user", "content": "Run it."},
             {"role": "assistant", "content": [call, result]},
             {"role": "user", "content": "And then?"}]  # fmt: skip
    assert anthropic_message(sim, "x", messages=turns) == (200, "")


@pytest.mark.parametrize(
    "block",
    [
        {"type": "compaction", "content": "What was said before.", "signature": "s"},
        {"type": "fallback", "from": {"model": "a"}, "to": {"model": "b"}},
        {"type": "tool_addition", "tool": {"name": "lookup"}},
        {"type": "tool_removal", "tool": {"name": "lookup"}},
    ],
)
def test_anthropic_blocks_of_the_newer_betas_sent_back_are_read(
    sim: Simulator, block: dict[str, Any]
) -> None:
    """A compaction, fallback or tool change block the anthropic SDK sends back as the API
    gave it was refused with the API's 400 for a block of no known kind, which a recording
    keeps as the API's answer."""
    turns = [{"role": "user", "content": "Go on."},
             {"role": "assistant", "content": [block, {"type": "text", "text": "Yes."}]},
             {"role": "user", "content": "And then?"}]  # fmt: skip
    assert anthropic_message(sim, "x", messages=turns) == (200, "")


def test_anthropic_unknown_block_kind_is_refused(sim: Simulator) -> None:
    status, message = anthropic_message(sim, [{"type": "hologram"}])
    assert status == 400
    assert message.startswith(
        "messages.0.content.0: Input tag 'hologram' found using 'type' does not match any of "
        "the expected tags: 'text', 'image', 'document'"
    )


def openai_error(sim: Simulator, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """The status and the ``error`` object of an OpenAI request."""
    status, answer = post(sim, path, body, OPENAI)
    return status, answer.get("error", {})


def chat(content: Any, **fields: Any) -> dict[str, Any]:
    return {"model": "gpt", "messages": [{"role": "user", "content": content}], **fields}


@pytest.mark.parametrize(
    ("part", "message", "param"),
    [
        (
            {"type": "image_url"},
            "Missing required parameter: 'messages[0].content[0].image_url'.",
            "messages[0].content[0].image_url",
        ),
        (
            {"type": "image_url", "image_url": {"detail": "low"}},
            "Missing required parameter: 'messages[0].content[0].image_url.url'.",
            "messages[0].content[0].image_url.url",
        ),
        (
            {"type": "text"},
            "Missing required parameter: 'messages[0].content[0].text'.",
            "messages[0].content[0].text",
        ),
        (
            {"type": "text", "text": ["a"]},
            "Invalid type for 'messages[0].content[0].text': expected a string, but got an "
            "array instead.",
            "messages[0].content[0].text",
        ),
        (
            {"type": "hologram"},
            "Invalid value: 'hologram'. Supported values are: 'text', 'image_url', "
            "'input_audio', 'file', and 'refusal'.",
            "messages[0].content[0].type",
        ),
        (
            {"type": {"nested": 1}},
            'Invalid value: {"nested":1}. Supported values are: ',
            "messages[0].content[0].type",
        ),
        (
            "hello",
            "Invalid type for 'messages[0].content[0]': expected an object, but got a string "
            "instead.",
            "messages[0].content[0]",
        ),
    ],
)
def test_chat_content_parts_missing_their_data_are_refused(
    sim: Simulator, part: Any, message: str, param: str
) -> None:
    status, error = openai_error(sim, "/v1/chat/completions", chat([part]))
    assert status == 400
    assert error["message"].startswith(message)
    assert (error["type"], error["param"]) == ("invalid_request_error", param)


@pytest.mark.parametrize(
    ("fields", "message", "code"),
    [
        (
            {"max_tokens": -1},
            "Invalid 'max_tokens': integer below minimum value. Expected a value >= 1, but got "
            "-1 instead.",
            "integer_below_min_value",
        ),
        (
            {"max_tokens": "10"},
            "Invalid type for 'max_tokens': expected an integer, but got a string instead.",
            "invalid_type",
        ),
        (
            {"max_completion_tokens": True},
            "Invalid type for 'max_completion_tokens': expected an integer, but got a boolean "
            "instead.",
            "invalid_type",
        ),
        (
            {"max_completion_tokens": 0},
            "Invalid 'max_completion_tokens': integer below minimum value. Expected a value >= "
            "1, but got 0 instead.",
            "integer_below_min_value",
        ),
        (  # was answered: a seed beyond int64, or of another type, seeded nothing
            {"seed": 2.5},
            "Invalid type for 'seed': expected an integer, but got a decimal instead.",
            "invalid_type",
        ),
    ],
)
def test_chat_token_limits_not_positive_integers_are_refused(
    sim: Simulator, fields: dict[str, Any], message: str, code: str
) -> None:
    status, error = openai_error(sim, "/v1/chat/completions", chat("hi", **fields))
    assert status == 400
    assert (error["message"], error["param"], error["code"]) == (message, next(iter(fields)), code)


@pytest.mark.parametrize(
    ("body", "message", "param"),
    [
        (
            {"model": "gpt", "messages": [{"role": "user"}]},
            "Missing required parameter: 'messages[0].content'.",
            "messages[0].content",
        ),
        (
            chat([]),
            "Invalid 'messages[0].content': empty array. Expected an array with minimum length "
            "1, but got an empty array instead.",
            "messages[0].content",
        ),
        (
            {"model": "gpt", "messages": []},
            "Invalid 'messages': empty array. Expected an array with minimum length 1, but got "
            "an empty array instead.",
            "messages",
        ),
        (
            {
                "model": "gpt",
                "messages": [
                    {"role": "assistant", "content": "hi", "tool_calls": []},
                    {"role": "user", "content": "and?"},
                ],
            },
            "Invalid 'messages[0].tool_calls': empty array. Expected an array with minimum "
            "length 1, but got an empty array instead.",
            "messages[0].tool_calls",
        ),
        (
            chat("hi", tools=[]),
            "Invalid 'tools': empty array. Expected an array with minimum length 1, but got "
            "an empty array instead.",
            "tools",
        ),
        (  # the tools of many MCP servers: the API's limit, where 129 were answered
            chat(
                "hi",
                tools=[{"type": "function", "function": {"name": f"t{i}"}} for i in range(129)],
            ),
            "Invalid 'tools': array too long. Expected an array with maximum length 128, but got "
            "an array with length 129 instead.",
            "tools",
        ),
        (
            {"model": 4, "messages": [{"role": "user", "content": "hi"}]},
            "Invalid type for 'model': expected a string, but got an integer instead.",
            "model",
        ),
    ],
)
def test_chat_messages_missing_or_empty_are_refused(
    sim: Simulator, body: dict[str, Any], message: str, param: str
) -> None:
    status, error = openai_error(sim, "/v1/chat/completions", body)
    assert (status, error["message"], error["param"]) == (400, message, param)


@pytest.mark.parametrize(
    ("tool", "message", "code"),
    [
        (
            {"type": "retrieval", "function": {"name": "f"}},
            "Invalid value: 'retrieval'. Supported values are: 'function' and 'custom'.",
            "invalid_value",
        ),
        (
            {"function": {"name": "f"}},
            "Missing required parameter: 'tools[0].type'.",
            "missing_required_parameter",
        ),
    ],
)
def test_chat_tools_of_an_unknown_type_are_refused(
    sim: Simulator, tool: dict[str, Any], message: str, code: str
) -> None:
    status, error = openai_error(sim, "/v1/chat/completions", chat("hi", tools=[tool]))
    assert (status, error["message"], error["param"], error["code"]) == (
        400,
        message,
        "tools[0].type",
        code,
    )


def test_responses_item_of_an_unknown_type_is_refused(sim: Simulator) -> None:
    body = {"model": "gpt", "input": [{"type": "hologram"}]}
    status, error = openai_error(sim, "/v1/responses", body)
    assert (status, error["param"]) == (400, "input[0].type")
    assert error["message"] == (
        "Invalid value: 'hologram'. Supported values are: 'message', 'function_call', "
        "'function_call_output', 'reasoning', and 'compaction'."
    )


@pytest.mark.parametrize(
    ("items", "unanswered"),
    [
        (["c1"], "c1"),
        (["c1", "c2", "out c1"], "c2"),
        (["c1", "user"], "c1"),
    ],
    ids=["call last", "last of two calls unanswered", "a user message after the call"],
)
def test_responses_calls_left_unanswered_are_refused(
    sim: Simulator, items: list[str], unanswered: str
) -> None:
    """An input holding a function call no output answers (a tool node that ran only the
    first of parallel calls) is refused as the API refuses it, not answered."""
    shapes = {
        "user": {"role": "user", "content": "and?"},
        "out c1": {"type": "function_call_output", "call_id": "c1", "output": "r"},
    }
    given = [
        shapes.get(i) or {"type": "function_call", "call_id": i, "name": "f", "arguments": "{}"}
        for i in items
    ]
    body = {"model": "gpt", "input": [{"role": "user", "content": "hi"}, *given]}
    status, error = openai_error(sim, "/v1/responses", body)
    assert (status, error["param"]) == (400, "input")
    assert error["message"] == f"No tool output found for function call {unanswered}."


def test_responses_include_of_an_unknown_entry_is_refused(sim: Simulator) -> None:
    include = ["reasoning.encrypted_content", "reasoning.encrypted"]
    body = {"model": "o4-mini", "input": "hi", "store": False, "include": include}
    status, error = openai_error(sim, "/v1/responses", body)
    assert (status, error["param"], error["code"]) == (400, "include[1]", "invalid_value")
    assert error["message"].startswith("Invalid value: 'reasoning.encrypted'. Supported values")
    assert "'reasoning.encrypted_content'" in error["message"]


def test_chat_tool_call_without_its_function_names_the_param(sim: Simulator) -> None:
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function"}]},
        {"role": "tool", "tool_call_id": "c1", "content": "done"},
    ]
    status, error = openai_error(
        sim, "/v1/chat/completions", {"model": "gpt", "messages": messages}
    )
    assert (status, error["param"]) == (400, "messages[1].tool_calls[0].function")
    assert error["message"].startswith("messages[1].tool_calls[0].function: missing field")
    assert error["message"].endswith("(the simulator's wording: the API refuses it with its own)")


def calling(*ids: str) -> dict[str, Any]:
    """An assistant message calling a tool once per id."""
    calls = [
        {"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}} for i in ids
    ]
    return {"role": "assistant", "tool_calls": calls}


@pytest.mark.parametrize(
    ("after", "missing", "param"),
    [
        ([calling("c1")], "c1", "messages"),
        (
            [calling("c1", "c2"), {"role": "tool", "tool_call_id": "c1", "content": "r"}],
            "c2",
            "messages",
        ),
        ([calling("c1"), {"role": "user", "content": "and?"}], "c1", "messages.[2].role"),
    ],
    ids=["calls last", "last of two calls unanswered", "a user message after the calls"],
)
def test_chat_tool_calls_left_unanswered_are_refused(
    sim: Simulator, after: list[dict[str, Any]], missing: str, param: str
) -> None:
    """A conversation ending on calls no tool message answered (a tool node that answers
    only the first of parallel calls) is refused as the API refuses it, not answered."""
    body = {"model": "gpt", "messages": [{"role": "user", "content": "hi"}, *after]}
    status, error = openai_error(sim, "/v1/chat/completions", body)
    assert (status, error["param"]) == (400, param)
    assert error["message"].endswith(f"did not have response messages: {missing}")


def test_chat_role_not_a_string_is_quoted_as_json(sim: Simulator) -> None:
    body = {"model": "gpt", "messages": [{"role": None, "content": "hi"}]}
    status, error = openai_error(sim, "/v1/chat/completions", body)
    assert status == 400
    assert error["message"].startswith("Invalid value: null. Supported values are: 'system'")
    assert error["param"] == "messages[0].role"


def responses(part: Any, **fields: Any) -> dict[str, Any]:
    return {"model": "gpt", "input": [{"role": "user", "content": [part]}], **fields}


@pytest.mark.parametrize(
    ("part", "message", "param"),
    [
        (
            {"type": "input_image"},
            "Missing required parameter: 'input[0].content[0].image_url' or "
            "'input[0].content[0].file_id'.",
            "input[0].content[0].image_url",
        ),
        (
            {"type": "input_image", "image_url": {"url": "x"}},
            "Invalid type for 'input[0].content[0].image_url': expected a string, but got an "
            "object instead.",
            "input[0].content[0].image_url",
        ),
        (
            {"type": "input_text"},
            "Missing required parameter: 'input[0].content[0].text'.",
            "input[0].content[0].text",
        ),
        (
            {"type": "image_url", "image_url": {"url": "x"}},
            "Invalid value: 'image_url'. Supported values are: 'input_text', 'input_image', "
            "and 'input_file'.",  # a user message's: an assistant's are output_text, refusal
            "input[0].content[0].type",
        ),
    ],
)
def test_responses_content_parts_missing_their_data_are_refused(
    sim: Simulator, part: Any, message: str, param: str
) -> None:
    status, error = openai_error(sim, "/v1/responses", responses(part))
    assert status == 400
    assert (error["message"], error["param"]) == (message, param)


def test_responses_token_limit_not_an_integer_is_refused(sim: Simulator) -> None:
    body = responses({"type": "input_text", "text": "hi"}, max_output_tokens="64")
    status, error = openai_error(sim, "/v1/responses", body)
    assert status == 400
    assert error["message"] == (
        "Invalid type for 'max_output_tokens': expected an integer, but got a string instead."
    )


@pytest.mark.parametrize(
    ("data", "status", "text"),
    [
        (b"\x00\xffGARBAGE\r\n\r\n", 400, "400 Bad Request: illegal request line\n"),
        (
            b"POST /v1/m\xe9ssages HTTP/1.1\r\nHost: x\r\n\r\n",
            400,
            "400 Bad Request: illegal request line\n",
        ),
        (
            b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n{}",
            400,
            "400 Bad Request: bad Content-Length\n",
        ),
        (
            b"POST /v1/messages HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}",
            400,
            "400 Bad Request: Missing mandatory Host: header\n",
        ),
        (
            b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
            b"zz\r\n{}\r\n0\r\n\r\n",
            400,
            "400 Bad Request: illegal chunk header\n",
        ),
        (
            b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100_000 + b"\r\n\r\n",
            431,
            "431 Request Header Fields Too Large: Receive buffer too long\n",
        ),
    ],
)
def test_bytes_that_are_not_http_get_a_plain_readable_refusal(
    sim: Simulator, data: bytes, status: int, text: str
) -> None:
    answer = exchange(sim, data)
    assert answer == (
        status,
        {
            "content-type": "text/plain; charset=utf-8",
            "connection": "close",
            "content-length": str(len(text)),
        },
        text.encode(),
    )


def test_a_declared_body_over_the_limit_is_refused_unread(sim: Simulator) -> None:
    """The simulator answers at once instead of waiting for the body, in each provider's
    words."""
    expected = {
        "/v1/messages": (413, "Request exceeds the maximum allowed number of bytes."),
        "/v1/chat/completions": (413, f"The request body is larger than the {MAX_BODY} bytes"),
        "/v1beta/models/g:generateContent": (400, "Request payload size exceeds the limit"),
    }
    for path, (status, message) in expected.items():
        head = f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n"
        sent, headers, body = exchange(sim, head.encode() + b"{}")
        assert (sent, headers["connection"]) == (status, "close")
        assert message in json.loads(body)["error"]["message"]


def test_a_chunked_body_over_the_limit_is_refused(
    sim: Simulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    limit = MAX_BODY >> 5  # 1 MiB here: the chunks count against it as against the 32 MiB
    monkeypatch.setattr(server, "MAX_BODY", limit)
    piece = b"x" * (1 << 15)
    chunk = b"%x\r\n%s\r\n" % (len(piece), piece)
    head = b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
    data = head + chunk * (limit // len(piece) + 1) + b"0\r\n\r\n"
    status, _, body = exchange(sim, data)
    assert status == 413
    assert json.loads(body)["error"]["type"] == "request_too_large"


def test_a_chunked_body_is_read(sim: Simulator) -> None:
    data = (
        b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nx-api-key: k\r\nTransfer-Encoding: chunked\r\n"
        b"anthropic-version: 2023-06-01\r\n"
        b'Connection: close\r\n\r\n5\r\n{"mod\r\n6\r\nel":1}\r\n0\r\n\r\n'
    )
    status, _, body = exchange(sim, data)
    assert status == 400
    assert json.loads(body)["error"]["message"] == "model: Input should be a valid string"


ROUTES = [
    ("/v1/messages", ANTHROPIC),
    ("/v1/chat/completions", OPENAI),
    ("/v1beta/models/g:generateContent", GEMINI),
]


@pytest.mark.parametrize(("path", "headers"), ROUTES)
def test_a_body_not_utf8_is_named_so(sim: Simulator, path: str, headers: dict[str, str]) -> None:
    status, answer = post(sim, path, b'{"model": "caf\xe9"}', headers)
    assert status == 400
    assert answer["error"]["message"] == (
        "The request body is not valid UTF-8 (at byte 14: invalid continuation byte)."
    )


@pytest.mark.parametrize(
    ("path", "headers", "message"),
    [
        ("/v1/messages", ANTHROPIC, "Input should be a valid dictionary or object"),
        ("/v1/messages/count_tokens", ANTHROPIC, "Input should be a valid dictionary or object"),
        ("/v1/chat/completions", OPENAI, "The request body must be a JSON object."),
        ("/v1/responses", OPENAI, "The request body must be a JSON object."),
        (
            "/v1beta/models/g:generateContent",
            GEMINI,
            "Invalid JSON payload received. Expected an object.",
        ),
    ],
)
def test_a_body_that_is_json_but_not_an_object_is_refused(
    sim: Simulator, path: str, headers: dict[str, str], message: str
) -> None:
    for body in ([{"role": "user", "content": "hi"}], "hi", None, 7):
        status, answer = post(sim, path, body, headers)
        assert (status, answer["error"]["message"]) == (400, message)


@pytest.mark.parametrize(("path", "headers"), ROUTES)
def test_a_body_that_is_not_json_is_refused(
    sim: Simulator, path: str, headers: dict[str, str]
) -> None:
    status, answer = post(sim, path, b'{"model": ', headers)
    assert status == 400
    assert answer["error"]["message"].startswith("The request body is not valid JSON: ")


def test_a_body_without_content_length_is_not_read(sim: Simulator) -> None:
    """HTTP/1.1 gives a request without Content-Length or chunking an empty body: the bytes
    after it are the next request, which is not HTTP."""
    head = (
        b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nx-api-key: k\r\n"
        b"anthropic-version: 2023-06-01\r\n\r\n"
    )
    data = head + b'{"model": "m"}\r\n\r\n'
    first, second = received(sim, data).split(b"HTTP/1.1 ")[1:]
    assert first.startswith(b"400 Bad Request\r\n")
    assert b"The request body is not valid JSON: Input is a zero-length, empty document" in first
    assert second.startswith(b"400 Bad Request\r\n")
    assert second.endswith(b"\r\n\r\n400 Bad Request: illegal request line\n")


@pytest.mark.parametrize(
    ("method", "path", "headers", "status", "error"),
    [
        (
            "GET",
            "/v1/messages",
            ANTHROPIC,
            405,
            {"type": "invalid_request_error", "message": "Method Not Allowed"},
        ),
        (
            "POST",
            "/v1/mesages",
            ANTHROPIC,
            404,
            {"type": "not_found_error", "message": "Not Found"},
        ),
        (
            "DELETE",
            "/v1/chat/completions",
            OPENAI,
            405,
            {
                "message": "Invalid URL (DELETE /v1/chat/completions)",
                "type": "invalid_request_error",
                "param": None,
                "code": None,
            },
        ),
        (
            "POST",
            "/v1/chat/complete",
            OPENAI,
            404,
            {
                "message": "Invalid URL (POST /v1/chat/complete)",
                "type": "invalid_request_error",
                "param": None,
                "code": None,
            },
        ),
        (
            "PUT",
            "/v1beta/models/g:generateContent",
            GEMINI,
            404,
            {"code": 404, "message": "Not Found", "status": "NOT_FOUND"},
        ),
    ],
)
def test_unknown_paths_and_methods_are_answered_as_the_api_does(
    sim: Simulator, method: str, path: str, headers: dict[str, str], status: int, error: Any
) -> None:
    answered, answer = post(sim, path, {}, headers, method)
    assert (answered, answer["error"]) == (status, error)


def test_head_is_answered_without_a_body(sim: Simulator) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", sim.port, timeout=5)
    try:
        conn.request("HEAD", "/v1/messages", headers=ANTHROPIC)
        response = conn.getresponse()
        assert (response.status, response.read()) == (405, b"")
    finally:
        conn.close()


def test_an_http_version_not_1x_is_refused(sim: Simulator) -> None:
    data = b"POST /v1/messages HTTP/2.0\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"
    status, _, body = exchange(sim, data)
    assert (status, body) == (505, b"505 HTTP Version Not Supported: HTTP/2.0\n")


@pytest.mark.parametrize(
    ("part", "message"),
    [
        ({"functionCall": {"args": {}}}, "function_call.name: name cannot be empty."),
        ({"functionResponse": {"response": {}}}, "function_response.name: name cannot be empty."),
        ({"inlineData": {"data": "aGk="}}, "inline_data.mime_type: mime_type cannot be empty."),
        ({"fileData": {"mimeType": "text/plain"}}, "file_data.file_uri: file_uri cannot be empty."),
        ({"thought": True}, "data: required oneof field 'data' must have one initialized field"),
    ],
)
def test_gemini_parts_without_their_data_are_refused(
    sim: Simulator, part: dict[str, Any], message: str
) -> None:
    body = {"contents": [{"role": "user", "parts": [part]}]}
    status, answer = post(sim, "/v1beta/models/g:generateContent", body, GEMINI)
    assert (status, answer["error"]["status"]) == (400, "INVALID_ARGUMENT")
    assert answer["error"]["message"] == f"* GenerateContentRequest.contents[0].parts[0].{message}"


@pytest.mark.parametrize(
    ("config", "said"),
    [
        (
            {"maxOutputTokens": 2**40},
            "'generation_config.max_output_tokens' (TYPE_INT32), 1099511627776",
        ),
        ({"seed": 2.5}, "'generation_config.seed' (TYPE_INT32), 2.5"),
        ({"temperature": "hot"}, "'generation_config.temperature' (TYPE_FLOAT), \"hot\""),
    ],
)
def test_a_gemini_number_of_another_type_or_beyond_int32_is_refused(
    sim: Simulator, config: dict[str, Any], said: str
) -> None:
    # a temperature of "hot" or a float seed was answered; a maxOutputTokens beyond int32
    # was said not to be positive
    body = {"contents": [{"parts": [{"text": "hi"}]}], "generationConfig": config}
    status, answer = post(sim, "/v1beta/models/g:generateContent", body, GEMINI)
    assert status == 400
    assert answer["error"]["message"] == f"Invalid JSON payload received. Invalid value at {said}"


def test_a_field_only_the_simulator_s_reader_refuses_is_its_own_refusal(sim: Simulator) -> None:
    # "contents[0].parts[0].text: expected str, got int" was sent as the API's answer, which
    # a recording kept, where the API refuses it in its own words
    body = {"contents": [{"parts": [{"text": 5}]}]}
    status, answer = post(sim, "/v1beta/models/g:generateContent", body, GEMINI)
    assert status == 400 and answer["replaygate_simulator_refusal"] is True
    assert answer["error"]["message"].startswith("contents[0].parts[0].text: expected str, got int")


def test_gemini_inline_data_that_is_no_base64_is_refused(sim: Simulator) -> None:
    # it was answered, and a recording from the simulator passed where the API refuses it
    parts = [
        {"inlineData": {"mimeType": "image/png", "data": "aGk"}},  # URL-safe, unpadded
        {"inlineData": {"mimeType": "image/png", "data": "not base64!"}},
    ]
    body = {"contents": [{"role": "user", "parts": parts}]}
    status, answer = post(sim, "/v1beta/models/g:generateContent", body, GEMINI)
    assert (status, answer["error"]["message"]) == (
        400,
        "Invalid JSON payload received. Invalid value at 'contents[0].parts[1].inline_data.data' "
        '(TYPE_BYTES), Base64 decoding failed for "not base64!"',
    )


def test_gemini_system_instruction_parts_without_data_are_refused(sim: Simulator) -> None:
    body = {
        "systemInstruction": {"parts": [{"text": "be brief"}, {}]},
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
    }
    status, answer = post(sim, "/v1beta/models/g:generateContent", body, GEMINI)
    assert (status, answer["error"]["message"]) == (
        400,
        "* GenerateContentRequest.system_instruction.parts[1].data: required oneof field 'data' "
        "must have one initialized field",
    )


def test_tool_names_the_apis_refuse_are_refused(sim: Simulator) -> None:
    tool = {"name": "search corpus", "input_schema": {"type": "object"}}
    assert anthropic_message(sim, "hi", tools=[tool]) == (
        400,
        "tools.0.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
    )
    function = {"type": "function", "function": {"name": "get.weather", "parameters": {}}}
    status, error = openai_error(sim, "/v1/chat/completions", chat("hi", tools=[function]))
    assert (status, error["param"]) == (400, "tools[0].function.name")
    assert error["message"] == (
        "Invalid 'tools[0].function.name': string does not match pattern. Expected a string "
        "that matches the pattern '^[a-zA-Z0-9_-]+$'."
    )
    flat = {"type": "function", "name": "get weather", "parameters": {}}
    body = responses({"type": "input_text", "text": "hi"}, tools=[flat])
    status, error = openai_error(sim, "/v1/responses", body)
    assert (status, error["param"]) == (400, "tools[0].name")


def test_a_client_expecting_100_continue_is_told_to_send_its_body(sim: Simulator) -> None:
    head = (
        b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nx-api-key: k\r\nExpect: 100-continue\r\n"
        b"anthropic-version: 2023-06-01\r\n"
        b"Content-Length: 2\r\nConnection: close\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", sim.port), timeout=5) as sock:
        sock.sendall(head)
        assert sock.recv(65536) == b"HTTP/1.1 100 Continue\r\n\r\n"
        sock.sendall(b"{}")
        assert sock.recv(65536).startswith(b"HTTP/1.1 400 Bad Request\r\n")


@pytest.mark.parametrize(
    "data",
    [
        b"POST /v1/messages HTTP/1.1\r\nHost: x\r\n",
        b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{}",
    ],
)
def test_a_request_left_unfinished_gets_a_408(
    sim: Simulator, monkeypatch: pytest.MonkeyPatch, data: bytes
) -> None:
    monkeypatch.setattr(server, "REQUEST_TIMEOUT", 0.02)
    status, _, body = exchange(sim, data)
    assert (status, body) == (
        408,
        b"408 Request Timeout: the request did not arrive whole within 0.02 s\n",
    )


def test_an_idle_connection_is_kept_open(sim: Simulator, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server, "REQUEST_TIMEOUT", 0.02)
    conn = http.client.HTTPConnection("127.0.0.1", sim.port, timeout=5)
    try:
        sockets = []
        for idle in (0.04, 0):  # idle twice as long as a request may take, between the two
            conn.request("GET", "/v1/messages", headers=ANTHROPIC)
            assert conn.getresponse().read()
            sockets.append(conn.sock)
            time.sleep(idle)
        assert sockets[0] is sockets[1]
    finally:
        conn.close()


def test_a_client_gone_in_the_middle_of_its_body_is_dropped_without_a_traceback(
    sim: Simulator, caplog: pytest.LogCaptureFixture
) -> None:
    """A client that gives up mid-body (a Ctrl-C, a timeout): ending the connection raised
    ENOTCONN, which the server printed as a traceback."""
    head = b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n"
    with caplog.at_level(logging.ERROR, logger="replaygate"):
        for _ in range(3):
            with socket.create_connection(("127.0.0.1", sim.port), timeout=5) as sock:
                sock.sendall(head + b'{"mod')
        time.sleep(0.1)  # for the server to end the three connections
        assert post(sim, "/v1/messages", {"model": "m"})[0] == 400  # still serving
    assert [r.getMessage() for r in caplog.records] == []


def test_stop_ends_a_stream_its_client_stopped_reading() -> None:
    """A client that stops reading a long stream (a stuck consumer) held stop(), and a
    ``sim serve`` told to stop by SIGTERM or Ctrl-C, until the client went away."""
    body = {"model": "m", "max_tokens": 10**6, "stream": True}
    body["messages"] = [{"role": "user", "content": "x" * 300_000}]
    data = json.dumps(body).encode()
    head = b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nx-api-key: k\r\n"
    head += b"anthropic-version: 2023-06-01\r\nContent-Length: %d\r\n\r\n" % len(data)
    simulator = Simulator(behavior="echo").start()
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
        sock.settimeout(5)
        sock.connect(("127.0.0.1", simulator.port))
        sock.sendall(head + data)
        assert sock.recv(12) == b"HTTP/1.1 200"  # its stream begun, and no more read
        time.sleep(0.05)
        stopping = threading.Thread(target=simulator.stop, daemon=True)
        stopping.start()
        stopping.join(2)
        assert not stopping.is_alive()


@pytest.mark.parametrize("after", ["%C2%B2", "9" * 5000, "%D9%A3", "two"])
def test_a_stored_response_streamed_after_no_integer_is_refused(after: str) -> None:
    """``starting_after=²`` or 5000 digits raised in int() (a traceback on the server's
    stderr, the connection dropped unanswered); an Arabic-Indic 3 was read as 3."""
    app = SimApp(EchoBehavior())
    headers = {"authorization": "Bearer k"}
    made = app.handle("POST", "/v1/responses", headers, b'{"model": "m", "input": "hi"}')
    named = json.loads(made.body)["id"]
    reply = app.handle(
        "GET", f"/v1/responses/{named}?stream=true&starting_after={after}", headers, b""
    )
    assert (reply.status, json.loads(reply.body)["error"]["param"]) == (400, "starting_after")
    made = app.handle("POST", "/v1/conversations", headers, b"{}")
    items = f"/v1/conversations/{json.loads(made.body)['id']}/items?limit={after}"
    reply = app.handle("GET", items, headers, b"")
    assert (reply.status, json.loads(reply.body)["error"]["param"]) == (400, "limit")


USE = (
    '{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": %s}]}'
)


@pytest.mark.parametrize(
    ("path", "headers", "body"),
    [
        ("/v1beta/models/g:generateContent", GEMINI, '{"contents": [], "x": %s}'),
        ("/v1/conversations", OPENAI, '{"metadata": %s}'),
        ("/v1/messages", ANTHROPIC, '{"model": "m", "max_tokens": 5, "messages": [' + USE + "]}"),
    ],
)
def test_a_body_nested_deeper_than_the_simulator_reads_is_its_own_refusal(
    path: str, headers: dict[str, str], body: str
) -> None:
    """A body of 700 nested objects made orjson or Python's recursion fail in the simulator:
    a traceback on its stderr and the connection dropped unanswered."""
    nested = '{"a": ' * 700 + "1" + "}" * 700
    reply = SimApp(EchoBehavior()).handle("POST", path, headers, (body % nested).encode())
    assert (reply.status, reply.refused) == (400, True)
    assert b"over 128 levels deep" in reply.body


def test_a_compressed_body_is_named_so() -> None:
    """A gzip body (a Go or load-generator client compressing its requests) was refused as
    'not valid UTF-8 (at byte 1: invalid start byte)', naming no compression."""
    body = gzip.compress(b'{"model": "m", "messages": [{"role": "user", "content": "hi"}]}')
    headers = {**OPENAI, "content-encoding": "gzip"}
    reply = SimApp(EchoBehavior()).handle("POST", "/v1/chat/completions", headers, body)
    assert (reply.status, reply.refused) == (400, True)
    assert b"Content-Encoding: gzip" in reply.body
