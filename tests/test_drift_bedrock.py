"""``replaygate drift`` re-sends Amazon Bedrock's calls, signed as boto3 signs them.

Bedrock's calls record as ``http`` (whoever sent them: boto3, LiteLLM,
``AnthropicBedrock``); drift refused them ("drift re-sends only the requests of
anthropic.messages, ..."), so a store of them could never be checked against the API.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import boto3
import pytest
from click.testing import CliRunner, Result

from loopback import Handler, serving
from replaygate.cli import main
from replaygate.http import intercept
from replaygate.sim import Simulator

MODEL = "anthropic.claude-sonnet-4-5-20250929-v1:0"
ASKED = [{"role": "user", "content": [{"text": "What is a replay?"}]}]
CLAUDE = (
    b'{"anthropic_version":"bedrock-2023-05-31","max_tokens":64,'
    b'"messages":[{"role":"user","content":"hi"}]}'
)
KEY = "AKIAIOSFODNN7EXAMPLE"
ECHO = ("--approve-live", "--simulator", "--behavior", "echo")


def drift(*args: str) -> Result:
    return CliRunner().invoke(main, ["drift", *args])


@pytest.fixture(autouse=True)
def _aws(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """Example keys and a region; no AWS configuration of the machine's, no IMDS."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    for name in ("AWS_REGION", "AWS_BEARER_TOKEN_BEDROCK", "AWS_SESSION_TOKEN", "AWS_PROFILE",
                 "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_BEDROCK_RUNTIME"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)
    yield


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A converse, a converse_stream and an invoke_model, recorded from the simulator."""
    path = tmp_path_factory.mktemp("bedrock") / "bedrock.jsonl"
    client = boto3.client("bedrock-runtime", region_name="us-east-1",
                          aws_access_key_id=KEY, aws_secret_access_key="secret")  # fmt: skip
    with (
        Simulator(behavior="echo") as sim,
        intercept(path, "record-missing", approve_live=True, live_origin=sim.url),
    ):
        client.converse(modelId=MODEL, messages=ASKED)
        list(client.converse_stream(modelId=MODEL, messages=ASKED)["stream"])
        client.invoke_model(modelId=MODEL, body=CLAUDE)["body"].read()
    return path


def test_bedrock_calls_are_re_sent_and_compared(store: Path) -> None:
    done = drift(str(store), "--live-sample", "3", *ECHO)
    assert done.exit_code == 0, done.output
    assert "3 request(s) re-sent" in done.output and "no drift" in done.output


def test_a_field_bedrock_added_shows_in_the_answer_and_the_stream(store: Path) -> None:
    done = drift(str(store), "--live-sample", "3", *ECHO, "--sim-drift", "add-field:usage.foo")
    assert done.exit_code == 1, done.output
    assert "+ usage.foo" in done.output and "+ events[metadata].usage.foo" in done.output


class Bedrock(Handler):
    """A Bedrock endpoint of loopback: keeps each request's path and credential header,
    answers a Converse answer."""

    seen: ClassVar[list[tuple[str, str]]] = []

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        Bedrock.seen.append((self.path, self.headers.get("authorization", "")))
        answer = {"output": {"message": {"role": "assistant", "content": [{"text": "hi"}]}},
                  "stopReason": "end_turn", "usage": {"inputTokens": 1, "outputTokens": 1,
                  "totalTokens": 2}, "metrics": {"latencyMs": 1}}  # fmt: skip
        self.answer_json(answer)


def first_only(store: Path, tmp_path: Path) -> Path:
    one = tmp_path / "one.jsonl"
    one.write_bytes(store.read_bytes().splitlines(keepends=True)[0])
    return one


@pytest.mark.parametrize("bearer", [False, True], ids=["sigv4", "api key"])
def test_a_call_goes_to_the_configured_endpoint_signed_for_its_region(
    store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bearer: bool
) -> None:
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    if bearer:
        monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "bedrock-api-key-1")
    Bedrock.seen = []
    with serving(Bedrock) as url:
        monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", url)
        done = drift(str(first_only(store, tmp_path)), "--live-sample", "1", "--approve-live")
    assert done.exit_code == 0, done.output
    assert done.output.startswith(f"drift: {tmp_path / 'one.jsonl'} vs {url} (from AWS_ENDPOINT")
    ((path, credential),) = Bedrock.seen
    assert path == "/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse"
    if bearer:
        assert credential == "Bearer bedrock-api-key-1"
    else:
        assert credential.startswith(f"AWS4-HMAC-SHA256 Credential={KEY}/")
        assert "/eu-west-1/bedrock/aws4_request" in credential


@pytest.mark.parametrize(
    ("unset", "said"),
    [
        (("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"), "no AWS credentials: drift re-sends"),
        (("AWS_DEFAULT_REGION",), "no AWS region to re-send Amazon Bedrock's calls to"),
    ],
)
def test_without_credentials_or_a_region_nothing_is_sent_and_drift_says_what_to_set(
    store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, unset: Any, said: str
) -> None:
    for name in unset:
        monkeypatch.delenv(name)
    Bedrock.seen = []
    with serving(Bedrock) as url:
        monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", url)
        done = drift(str(first_only(store, tmp_path)), "--live-sample", "1", "--approve-live")
    assert done.exit_code == 2 and said in done.output, done.output
    assert Bedrock.seen == []
