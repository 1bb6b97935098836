"""boto3's ``bedrock-runtime`` client inside ``intercept()``: recorded from the simulator
and replayed offline through botocore's own send (urllib3), plain and streamed, its
SigV4 signature neither stored nor matched, and a miss raised to the caller once.

boto3 sent through urllib3, which intercept() did not patch: a recording block sent its
calls to the real host (refused by the block), so no Bedrock call made with boto3 (and
with the frameworks built on it) could be recorded or replayed.
"""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import boto3
import botocore.endpoint
import pytest
from aiobotocore.session import get_session
from botocore.config import Config

from loopback import Handler, serving
from replaygate.errors import FixtureMismatchError, NetworkBlockedError, SecretInFixtureError
from replaygate.http import block_network, intercept
from replaygate.hygiene.verify import verify_store
from replaygate.sanitize.ids import IdRewriter
from replaygate.sim import Simulator
from replaygate.sim.faults import FaultPlan

MODEL = "anthropic.claude-sonnet-4-5-20250929-v1:0"
KEY, SECRET = "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
TOKEN = "IQoJb3JpZ2luX2VjEXAMPLEsessionTOKENvalue0123456789"
ASKED = [{"role": "user", "content": [{"text": "What is a replay?"}]}]
CLAUDE_BODY = (
    b'{"anthropic_version":"bedrock-2023-05-31","max_tokens":64,'
    b'"messages":[{"role":"user","content":"hi"}]}'
)


@pytest.fixture(scope="module")
def client() -> Any:
    """A ``bedrock-runtime`` client for the real host, signing with example keys; each
    call it sends is counted in its ``sends`` (botocore's own retries included)."""
    made = boto3.client(
        "bedrock-runtime",
        region_name="us-east-1",
        aws_access_key_id=KEY,
        aws_secret_access_key=SECRET,
        aws_session_token=TOKEN,
        config=Config(retries={"mode": "standard", "max_attempts": 3}),
    )
    made.sends = []
    made.meta.events.register("before-send", lambda request, **_: made.sends.append(request))
    return made


def converse(client: Any, stream: bool = False) -> Any:
    if not stream:
        answer = client.converse(modelId=MODEL, messages=ASKED)
        return answer["output"], answer["stopReason"], answer["usage"]
    answer = client.converse_stream(modelId=MODEL, messages=ASKED)
    return [event for event in answer["stream"]]


def invoke(client: Any, stream: bool = False) -> Any:
    if not stream:
        return client.invoke_model(modelId=MODEL, body=CLAUDE_BODY)["body"].read()
    answer = client.invoke_model_with_response_stream(modelId=MODEL, body=CLAUDE_BODY)
    return [event["chunk"]["bytes"] for event in answer["body"]]


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize("call", [converse, invoke], ids=["converse", "invoke_model"])
def test_a_call_recorded_from_the_simulator_replays_offline(
    client: Any, sim: Simulator, tmp_path: Path, call: Any, stream: bool
) -> None:
    store = tmp_path / "bedrock.jsonl"
    with intercept(store, "record-missing", approve_live=True, live_origin=sim.url):
        live = call(client, stream)
    assert live  # an answer with content (events, for a stream)
    with intercept(store) as replay:  # the network blocked: only the store answers
        assert call(client, stream) == live
    assert replay.replays == 1
    stored = store.read_text("utf-8")
    for credential in ("AWS4-HMAC-SHA256", KEY, TOKEN, "Signature="):
        assert credential not in stored
    assert verify_store(store) == (1, [])


def test_a_replay_signed_on_another_day_with_other_keys_matches(
    client: Any, sim: Simulator, tmp_path: Path
) -> None:
    store = tmp_path / "bedrock.jsonl"
    with intercept(store, "record-missing", approve_live=True, live_origin=sim.url):
        live = converse(client)
    other = boto3.client(
        "bedrock-runtime",
        region_name="us-east-1",
        aws_access_key_id="AKIAI44QH8DHBEXAMPLE",
        aws_secret_access_key="je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY",
    )
    with intercept(store):
        assert converse(other) == live


def test_a_changed_prompt_misses_once_without_botocore_s_retries(
    client: Any, sim: Simulator, tmp_path: Path
) -> None:
    store = tmp_path / "bedrock.jsonl"
    with intercept(store, "record-missing", approve_live=True, live_origin=sim.url):
        converse(client)
    client.sends.clear()
    changed = [{"role": "user", "content": [{"text": "What is a replay!"}]}]
    with intercept(store), pytest.raises(FixtureMismatchError) as missed:
        client.converse(modelId=MODEL, messages=changed)
    assert len(client.sends) == 1  # botocore retried no miss
    message = str(missed.value)
    assert "body.messages[0].content[0].text" in message and "What is a replay?" in message


def test_a_refusal_replays_as_the_error_botocore_raised_live(
    client: Any, sim: Simulator, tmp_path: Path
) -> None:
    """Bedrock names its error in a header (``x-amzn-ErrorType``), which botocore raises
    by: kept, a replayed refusal is the live one's ``ValidationException``, where it was
    a bare ``ClientError`` that code catching the live one's class let through."""
    store = tmp_path / "bedrock.jsonl"
    asked = [{"role": "assistant", "content": [{"text": "hi"}]}]  # must start with the user
    raised = []
    for block in (
        intercept(store, "record-missing", approve_live=True, live_origin=sim.url),
        intercept(store),
    ):
        with block, pytest.raises(client.exceptions.ValidationException) as refused:
            client.converse(modelId=MODEL, messages=asked)
        raised.append(refused.value.response["Error"])
    assert raised[0] == raised[1]
    assert raised[1]["Code"] == "ValidationException"


def test_an_invoke_answer_s_token_counts_replay_in_its_headers(
    client: Any, sim: Simulator, tmp_path: Path
) -> None:
    """Bedrock gives ``invoke``'s token counts as headers, which code reads from
    ``ResponseMetadata``: recorded and replayed, where a replay gave none."""
    store = tmp_path / "bedrock.jsonl"
    counts = []
    for block in (
        intercept(store, "record-missing", approve_live=True, live_origin=sim.url),
        intercept(store),
    ):
        with block:
            answer = client.invoke_model(modelId=MODEL, body=CLAUDE_BODY)
            answer["body"].read()
        headers = answer["ResponseMetadata"]["HTTPHeaders"]
        counts.append([headers.get(f"x-amzn-bedrock-{n}-token-count") for n in ("input", "output")])
    assert counts[0] == counts[1]
    assert all(count and int(count) > 0 for count in counts[1]), counts


def test_a_client_behind_a_proxy_records_from_the_simulator_past_it(
    sim: Simulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client built where HTTPS_PROXY is set sends through the proxy; moved to the
    simulator on loopback, which no proxy reaches, it goes there directly, as the
    requests and httpx clients do (it went to the proxy, which refused it)."""
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    proxied = boto3.client("bedrock-runtime", region_name="us-east-1",
                           aws_access_key_id=KEY, aws_secret_access_key=SECRET)  # fmt: skip
    store = tmp_path / "bedrock.jsonl"
    with intercept(store, "record-missing", approve_live=True, live_origin=sim.url) as recorded:
        live = converse(proxied)
    assert recorded.recorded == 1
    with intercept(store):
        assert converse(proxied) == live


def test_a_replay_gives_the_request_id_botocore_read_live(
    client: Any, sim: Simulator, tmp_path: Path
) -> None:
    """Bedrock names its request id in ``x-amzn-RequestId``, botocore's
    ``ResponseMetadata["RequestId"]``: kept, where a replay had none (a ``KeyError`` for
    code logging it)."""
    store = tmp_path / "bedrock.jsonl"
    with intercept(store, "record-missing", approve_live=True, live_origin=sim.url):
        live = client.converse(modelId=MODEL, messages=ASKED)["ResponseMetadata"]
    with intercept(store):
        replayed = client.converse(modelId=MODEL, messages=ASKED)["ResponseMetadata"]
    assert replayed["RequestId"] == live["RequestId"]


def test_ids_make_bedrock_s_request_id_stable() -> None:
    """With ``ids = true``, Bedrock's request id, a UUID of no known prefix, is stable."""
    uuid = "5ee4f4c4-2b1d-4d0e-9a7e-0c3b1f2a6d7e"
    assert IdRewriter("k1").headers({"x-amzn-requestid": uuid}) == {"x-amzn-requestid": "rg_k1_1"}


@pytest.mark.parametrize(
    "counted",
    [
        {"converse": {"messages": ASKED, "system": [{"text": "Be brief."}]}},
        {"invokeModel": {"body": CLAUDE_BODY}},
    ],
    ids=["converse", "invokeModel"],
)
def test_a_token_count_records_from_the_simulator_and_replays(
    client: Any, sim: Simulator, tmp_path: Path, counted: dict[str, Any]
) -> None:
    """``count_tokens`` (Strands' and pydantic-ai's Bedrock models call it) was answered
    404 by the simulator, and an ``invokeModel`` count refused as a high-entropy token:
    its ``invoke`` body is base64."""
    store = tmp_path / "bedrock.jsonl"
    with intercept(store, "record-missing", approve_live=True, live_origin=sim.url):
        live = client.count_tokens(modelId=MODEL, input=counted)["inputTokens"]
    with intercept(store):
        assert client.count_tokens(modelId=MODEL, input=counted)["inputTokens"] == live > 0


def test_a_text_document_records_and_a_secret_in_it_is_refused(
    client: Any, sim: Simulator, tmp_path: Path
) -> None:
    """A Converse ``txt`` document is base64 of no file signature: it was refused as a
    high-entropy token, so no conversation over a text, CSV, HTML or Markdown document could
    be recorded; its decoding is still searched."""
    store, prose = tmp_path / "bedrock.jsonl", b"Replays are recorded answers. " * 20

    def ask(text: bytes) -> Any:
        source = {"format": "txt", "name": "notes", "source": {"bytes": text}}
        asked = [{"role": "user", "content": [{"text": "Sum it up."}, {"document": source}]}]
        return client.converse(modelId=MODEL, messages=asked)["output"]

    with intercept(store, "record-missing", approve_live=True, live_origin=sim.url):
        live = ask(prose)
        with pytest.raises(SecretInFixtureError, match=r"document\.source\.bytes"):
            ask(prose + b"password=" + SECRET.replace("/", "x").encode())
    with intercept(store):
        assert ask(prose) == live


def test_aiobotocore_records_replays_and_misses_once(sim: Simulator, tmp_path: Path) -> None:
    """aiobotocore's async client sends through aiohttp; its send wrapped a miss as
    ``HTTPClientError``, which botocore retried three times more."""
    store, sends = tmp_path / "bedrock.jsonl", []

    async def ask(text: str) -> Any:
        keys = {"aws_access_key_id": KEY, "aws_secret_access_key": SECRET}
        made = get_session().create_client("bedrock-runtime", region_name="us-east-1", **keys)
        async with made as bedrock:
            bedrock.meta.events.register("before-send", lambda request, **_: sends.append(1))
            asked = [{"role": "user", "content": [{"text": text}]}]
            return (await bedrock.converse(modelId=MODEL, messages=asked))["output"]

    with intercept(store, "record-missing", approve_live=True, live_origin=sim.url):
        live = asyncio.run(ask("What is a replay?"))
    with intercept(store):
        assert asyncio.run(ask("What is a replay?")) == live
    sends.clear()
    with intercept(store), pytest.raises(FixtureMismatchError):
        asyncio.run(ask("What is a replay!"))
    assert len(sends) == 1


def list_buckets(sends: list[Any], use_async: bool) -> None:
    """S3's ``list_buckets`` through boto3's client or aiobotocore's, counting its sends."""
    keys = {"aws_access_key_id": KEY, "aws_secret_access_key": SECRET}
    retries = Config(retries={"mode": "standard", "max_attempts": 3})
    if not use_async:
        s3 = boto3.client("s3", region_name="us-east-1", config=retries, **keys)
        s3.meta.events.register("before-send", lambda request, **_: sends.append(request))
        s3.list_buckets()
        return

    async def main() -> None:
        made = get_session().create_client("s3", region_name="us-east-1", config=retries, **keys)
        async with made as s3:
            s3.meta.events.register("before-send", lambda request, **_: sends.append(request))
            await s3.list_buckets()

    asyncio.run(main())


@pytest.mark.parametrize("use_async", [False, True], ids=["boto3", "aiobotocore"])
def test_a_refused_connection_reaches_the_caller_once(
    sim: Simulator, tmp_path: Path, use_async: bool
) -> None:
    """An S3 call (an agent's tool) recording from the simulator goes where it is addressed,
    which the network block refuses: botocore (and aiobotocore) wrapped the refusal as
    ``EndpointConnectionError`` and retried it, refused four times, a backoff before each."""
    sends: list[Any] = []
    recording = intercept(
        tmp_path / "bedrock.jsonl", "record-missing", approve_live=True, live_origin=sim.url
    )
    with block_network(), recording, pytest.raises(NetworkBlockedError, match="S3, STS"):
        list_buckets(sends, use_async)
    assert len(sends) == 1


def test_an_invoke_under_another_guardrail_misses(
    client: Any, sim: Simulator, tmp_path: Path
) -> None:
    """``invoke_model`` takes its guardrail, trace, service tier and latency in headers,
    which were neither kept nor matched: a replay without the guardrail was answered by
    the recording made under it."""
    store = tmp_path / "bedrock.jsonl"
    guarded = {"guardrailIdentifier": "gr-1", "guardrailVersion": "1", "serviceTier": "flex"}
    with intercept(store, "record-missing", approve_live=True, live_origin=sim.url):
        live = client.invoke_model(modelId=MODEL, body=CLAUDE_BODY, **guarded)["body"].read()
    with intercept(store):
        assert (
            client.invoke_model(modelId=MODEL, body=CLAUDE_BODY, **guarded)["body"].read() == live
        )
        with pytest.raises(FixtureMismatchError, match="x-amzn-bedrock-guardrailidentifier"):
            client.invoke_model(modelId=MODEL, body=CLAUDE_BODY)


def test_botocore_fetching_aws_credentials_is_told_as_a_token_fetch(
    sim: Simulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """botocore fetches credentials through the send replaygate answers: a recording sent
    STS's AssumeRole (its answer credentials), and a replay given no keys missed the
    instance metadata server's probe, told of google-auth and Azure only."""
    store = tmp_path / "bedrock.jsonl"
    sts = boto3.client(
        "sts", region_name="us-east-1", aws_access_key_id=KEY, aws_secret_access_key=SECRET
    )
    with (
        intercept(store, "record-missing", approve_live=True, live_origin=sim.url),
        pytest.raises(SecretInFixtureError, match=r"AWS credentials request to STS"),
    ):
        sts.assume_role(RoleArn="arn:aws:iam::123456789012:role/ci", RoleSessionName="ci")
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.delenv("AWS_EC2_METADATA_DISABLED", raising=False)
    with intercept(store), pytest.raises(FixtureMismatchError, match="AWS_ACCESS_KEY_ID=test"):
        boto3.client("bedrock-runtime", region_name="us-east-1")


def test_a_file_body_is_sent_whole_again_on_botocore_s_retry(
    client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """botocore makes a retry's request anew of the body it was given: a file read to its
    end for the first send was sent empty after a 429, and the recording kept the
    simulator's refusal of a zero-length body as the answer."""
    monkeypatch.setattr(botocore.endpoint, "time", SimpleNamespace(sleep=lambda _: None))
    store = tmp_path / "bedrock.jsonl"
    with (
        Simulator(behavior="echo", faults=FaultPlan.sequence(["429", None])) as sim,
        intercept(store, "record-missing", approve_live=True, live_origin=sim.url),
    ):
        live = client.invoke_model(modelId=MODEL, body=io.BytesIO(CLAUDE_BODY))["body"].read()
    with intercept(store):
        assert (
            client.invoke_model(modelId=MODEL, body=io.BytesIO(CLAUDE_BODY))["body"].read() == live
        )
    assert b'"content"' in live


class NoAccess(Handler):
    """Bedrock refusing an account the model's use: a 404 typed in ``x-amzn-ErrorType``."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        out = b'{"message":"Model use case details have not been submitted for this account."}'
        self.send_response(404)
        self.send_header(
            "x-amzn-errortype", "ResourceNotFoundException:http://internal.amazon.com/"
        )
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


def test_bedrock_s_resource_not_found_replays_as_botocore_raised_it(
    client: Any, tmp_path: Path
) -> None:
    """A 404 of Bedrock's about the account or the model (ResourceNotFoundException, its
    body ``{"message": ...}``) stopped the recording as a route the server does not serve,
    telling to check the base URL."""
    store, raised = tmp_path / "bedrock.jsonl", []
    with serving(NoAccess) as url:
        for block in (
            intercept(store, "record-missing", approve_live=True, live_origin=url),
            intercept(store),
        ):
            with block, pytest.raises(client.exceptions.ResourceNotFoundException) as refused:
                client.converse(modelId=MODEL, messages=ASKED)
            raised.append(refused.value.response["Error"])
    assert raised[0] == raised[1]
