"""The simulator refusing, as the Messages API does, the inputs the API's own checks refuse
and its schema does not: an image whose bytes are not of the media type it is sent as, a
PDF whose data is no PDF, a token count given ``max_tokens``, a field the API does not
take."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import pytest

from replaygate.sim import Simulator
from replaygate.sim.validation import MESSAGES_FIELDS
from sdks import anthropic

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF"
GIF = b"GIF89a\x01\x00\x01\x00"
WEBP = b"RIFF\x1a\x00\x00\x00WEBPVP8 "


@pytest.fixture(scope="module")
def client() -> Iterator[anthropic.Anthropic]:
    with (
        Simulator(behavior="echo") as sim,
        anthropic.Anthropic(api_key="sk-sim", base_url=sim.url, max_retries=0) as sdk,
    ):
        yield sdk


def _source(media_type: str, data: bytes) -> dict[str, Any]:
    return {"type": "base64", "media_type": media_type, "data": base64.b64encode(data).decode()}


def _refusal(client: anthropic.Anthropic, content: list[dict[str, Any]]) -> str:
    """The API's message refusing a user turn of ``content`` (a question appended)."""
    content = [*content, {"type": "text", "text": "What is it?"}]
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(
            model="claude-sonnet-4-6",
            max_tokens=32,
            messages=[{"role": "user", "content": content}],
        )
    assert isinstance(caught.value.body, dict)
    return str(caught.value.body["error"]["message"])


@pytest.mark.parametrize(
    ("data", "sent_as", "is_"),
    [(PNG, "image/jpeg", "image/png"), (JPEG, "image/png", "image/jpeg"),
     (GIF, "image/webp", "image/gif"), (WEBP, "image/gif", "image/webp")],
    ids=["png", "jpeg", "gif", "webp"],
)  # fmt: skip
def test_an_image_sent_as_another_media_type_is_refused_in_the_apis_words(
    client: anthropic.Anthropic, data: bytes, sent_as: str, is_: str
) -> None:
    # it was answered, so a recording passed that the API refuses live
    said = _refusal(client, [{"type": "image", "source": _source(sent_as, data)}])
    assert said == (
        f"messages.0.content.0.image.source.base64: The image was specified using the "
        f"{sent_as} media type, but the image appears to be a {is_} image"
    )


def test_an_image_of_its_media_type_or_of_no_known_signature_is_answered(
    client: anthropic.Anthropic,
) -> None:
    for data, media_type in [(PNG, "image/png"), (JPEG, "image/jpeg"), (b"hi", "image/png")]:
        content = [{"type": "image", "source": _source(media_type, data)},
                   {"type": "text", "text": "What is it?"}]  # fmt: skip
        reply = client.messages.create(
            model="claude-sonnet-4-6",
            max_tokens=32,
            messages=[{"role": "user", "content": content}],
        )
        assert reply.content


def test_an_image_in_a_tool_result_is_checked_and_named_where_it_is(
    client: anthropic.Anthropic,
) -> None:
    use = {"type": "tool_use", "id": "toolu_1", "name": "shot", "input": {}}
    image = {"type": "image", "source": _source("image/jpeg", PNG)}
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": [image]}
    tool = {"name": "shot", "input_schema": {"type": "object"}}
    messages = [{"role": "user", "content": "look"}, {"role": "assistant", "content": [use]},
                {"role": "user", "content": [result]}]  # fmt: skip
    where = r"messages\.2\.content\.0\.tool_result\.content\.0\.image\.source\.base64: "
    with pytest.raises(anthropic.BadRequestError, match=where + "The image was specified"):
        client.messages.create(
            model="claude-sonnet-4-6", max_tokens=32, tools=[tool], messages=messages
        )


def test_a_pdf_whose_data_is_no_pdf_is_refused_and_a_pdf_answered(
    client: anthropic.Anthropic,
) -> None:
    page = b"<!DOCTYPE html><html><h1>withdrawn</h1></html>"  # an error page saved as .pdf
    document = {"type": "document", "source": _source("application/pdf", page)}
    said = _refusal(client, [document])
    assert said == "messages.0.content.0.pdf.source.base64.data: The PDF specified was not valid."
    pdf = {"type": "document", "source": _source("application/pdf", b"\n%PDF-1.7\n%%EOF\n")}
    content = [pdf, {"type": "text", "text": "Sum it up"}]
    reply = client.messages.create(
        model="claude-sonnet-4-6", max_tokens=32, messages=[{"role": "user", "content": content}]
    )
    assert reply.content


def test_a_token_count_given_max_tokens_is_refused(client: anthropic.Anthropic) -> None:
    # a Messages body counted as it is sent (extra_body, a raw request) was counted
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.count_tokens(
            model="claude-sonnet-4-6",
            messages=[{"role": "user", "content": "hi"}],
            extra_body={"max_tokens": 64},
        )
    assert isinstance(caught.value.body, dict)
    assert caught.value.body["error"]["message"] == "max_tokens: Extra inputs are not permitted"
    counted = client.messages.count_tokens(
        model="claude-sonnet-4-6", messages=[{"role": "user", "content": "hi"}]
    )
    assert counted.input_tokens > 0


HI = [{"role": "user", "content": "hi"}]


@pytest.mark.parametrize(
    ("model", "extra"),
    [("claude-sonnet-4-6", {"is_litellm": True}), ("claude-haiku-4-5", {"max_token": 9}),
     ("claude-sonnet-4-6", {"top_k": 5, "reasoning_effort": "low"})],
    ids=["a framework's flag", "misspelt", "another API's field"],
)  # fmt: skip
def test_a_field_the_messages_api_does_not_take_is_refused_in_its_words(
    client: anthropic.Anthropic, model: str, extra: dict[str, Any]
) -> None:
    # it was answered, so a recording passed that the API refuses live
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(model=model, max_tokens=32, messages=HI, extra_body=extra)
    assert isinstance(caught.value.body, dict)
    unknown = next(name for name in extra if name not in MESSAGES_FIELDS)
    assert caught.value.body["error"] == {
        "type": "invalid_request_error",
        "message": f"{unknown}: Extra inputs are not permitted",
    }


def test_the_sampling_fields_and_another_server_s_model_are_answered(
    client: anthropic.Anthropic,
) -> None:
    sampled = {"temperature": 0.5, "top_k": 5}
    client.messages.create(
        model="claude-sonnet-4-6", max_tokens=32, messages=HI, extra_body=sampled
    )
    local = {"is_litellm": True, "keep_alive": "5m"}  # a local server's model takes its own
    client.messages.create(model="qwen3:8b", max_tokens=32, messages=HI, extra_body=local)


def test_every_field_the_installed_sdk_sends_in_the_body_is_taken() -> None:
    # a newer anthropic SDK may send a field the API has started to take: the simulator
    # takes each field of the SDK's request types (betas goes in a header, not the body)
    from typing import get_type_hints

    from anthropic.types import message_create_params as stable
    from anthropic.types.beta import message_create_params as beta

    sent = set(get_type_hints(stable.MessageCreateParamsBase))
    sent |= set(get_type_hints(beta.MessageCreateParamsBase)) - {"betas"}
    assert sent <= MESSAGES_FIELDS
