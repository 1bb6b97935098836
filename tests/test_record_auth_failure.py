"""A recording made with a bad or placeholder key keeps nothing of the API's refusal (a
401, a 403, Gemini's invalid key): it stops with an error saying nothing was recorded,
that the live API refused the credentials, and which variable holds the key, where a
fixture of it would replay the refusal as the model's answer until recorded again.
``replaygate verify`` names a refusal such a recording stored before. Nor is a proxy's
407 kept, whatever the path. An error the API gave for another reason (a 429, a 500) is
recorded as before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2
import orjson
import pytest

from replaygate.errors import CredentialsRefusedError, FixtureFormatError, ProxyRefusalError
from replaygate.evals.prices import shipped_prices
from replaygate.fixtures.fingerprint import digest
from replaygate.fixtures.fixture import Fixture, make_meta
from replaygate.fixtures.spending import SpendingCap
from replaygate.fixtures.store import FixtureStore
from replaygate.http import httpx2_client
from replaygate.models.live import AnthropicModel
from replaygate.models.replay import RecordingModel
from replaygate.models.types import Message
from replaygate.sim import FaultPlan, Simulator
from run_cli import replaygate
from sdks import anthropic, genai, openai

ASK = [{"role": "user", "content": "Pick a number."}]
NO_KEY = {"Authorization": anthropic.Omit()}  # the SDK sends its key as a bearer token
GOOGLE = "https://generativelanguage.googleapis.com"
INVALID_KEY = {  # the API's answer to a key that is not valid: a 400 whose reason says so
    "error": {
        "code": 400,
        "message": "API key not valid. Please pass a valid API key.",
        "status": "INVALID_ARGUMENT",
        "details": [
            {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID"}
        ],
    }
}


def recording(store: Path, **options: Any) -> httpx2.Client:
    return httpx2_client(store, "record-missing", approve_live=True, source="sim", **options)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_an_anthropic_refusal_is_not_recorded(tmp_path: Path, stream: bool) -> None:
    store = tmp_path / "a.jsonl"
    with Simulator(behavior="echo") as sim:
        client = anthropic.Anthropic(
            api_key="k", base_url=sim.url, max_retries=2, http_client=recording(store)
        )
        ask = {"model": "m", "max_tokens": 8, "messages": ASK, "stream": stream}
        with pytest.raises(CredentialsRefusedError) as caught:
            client.messages.create(**ask, extra_headers=NO_KEY)
        assert len(sim.requests) == 1  # not retried
        assert isinstance(caught.value, anthropic.AnthropicError)  # passed through as is
        answer = client.messages.create(**ask)  # with its key: recorded
        if stream:
            list(answer)  # read to its end
    message = str(caught.value)
    assert "POST /v1/messages was answered 401" in message
    assert "the live API refused the credentials" in message
    assert "Nothing was recorded for this request" in message
    assert "Set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) to a valid key" in message
    (fixture,) = FixtureStore.open(store)
    assert [r["status"] for r in fixture.responses] == [200]


def test_an_openai_refusal_names_its_key(tmp_path: Path) -> None:
    store = tmp_path / "o.jsonl"
    with Simulator(behavior="echo") as sim:
        http = recording(store)
        client = openai.OpenAI(api_key="k", base_url=sim.openai_base_url, http_client=http)
        with pytest.raises(CredentialsRefusedError, match="Set OPENAI_API_KEY to a valid key"):
            client.chat.completions.create(
                model="g", messages=ASK, extra_headers={"Authorization": openai.Omit()}
            )
    assert list(FixtureStore.open(store)) == []


def _gemini(http: httpx2.Client, base_url: str, **headers: str) -> Any:
    options = genai.types.HttpOptions(base_url=base_url, httpx_client=http, headers=headers)
    return genai.Client(api_key="k", http_options=options)


def test_a_gemini_permission_refusal_is_not_recorded(tmp_path: Path) -> None:
    store = tmp_path / "g.jsonl"
    with Simulator(behavior="echo") as sim:
        client = _gemini(recording(store), sim.url, **{"x-goog-api-key": ""})  # a 403
        with pytest.raises(CredentialsRefusedError, match="answered 403") as caught:
            client.models.generate_content(model="gemini-2.5-flash", contents="hi")
    assert "Set GEMINI_API_KEY (or GOOGLE_API_KEY)" in str(caught.value)
    assert list(FixtureStore.open(store)) == []


def test_a_gemini_key_that_is_not_valid_is_not_recorded(tmp_path: Path) -> None:
    # the API answers a key that is not valid with a 400 whose reason says so
    invalid = INVALID_KEY
    other = {"error": {"code": 400, "message": "bad contents", "status": "INVALID_ARGUMENT"}}
    answers = iter([invalid, other])
    live = httpx2.MockTransport(lambda request: httpx2.Response(400, json=next(answers)))
    store = tmp_path / "g.jsonl"
    with recording(store, transport=live) as http:
        client = _gemini(http, GOOGLE)
        with pytest.raises(CredentialsRefusedError, match="answered 400"):
            client.models.generate_content(model="gemini-2.5-flash", contents="hi")
        with pytest.raises(genai.errors.ClientError):  # another 400: an answer, recorded
            client.models.generate_content(model="gemini-2.5-flash", contents="hi")
    (fixture,) = FixtureStore.open(store)
    assert fixture.response["body"] == other


@pytest.mark.parametrize("fault", ["429", "500"])
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_other_errors_are_still_recorded(tmp_path: Path, fault: str) -> None:
    store = tmp_path / "e.jsonl"
    with Simulator(behavior="echo", faults=FaultPlan.sequence([fault])) as sim:
        http = recording(store)
        client = anthropic.Anthropic(api_key="k", base_url=sim.url, max_retries=0, http_client=http)
        with pytest.raises(anthropic.APIStatusError):
            client.messages.create(model="m", max_tokens=8, messages=ASK)
    (fixture,) = FixtureStore.open(store)
    assert fixture.response["status"] == int(fault)


def test_a_recording_model_says_nothing_was_recorded(tmp_path: Path) -> None:
    store = tmp_path / "m.jsonl"
    settings: dict[str, Any] = {"model": "claude-sonnet-4-5", "max_tokens": 16}
    with Simulator(behavior="echo") as sim:
        client = anthropic.Anthropic(
            api_key="k", base_url=sim.url, max_retries=0, default_headers=NO_KEY
        )
        recorder = RecordingModel(
            AnthropicModel(client, **settings), store, approve_live=True, **settings
        )
        with pytest.raises(anthropic.AuthenticationError) as caught:
            recorder.complete([Message.user("hi")], ())
    assert caught.value.__notes__ == [
        "nothing was recorded for this request: the live API refused the credentials (401); "
        "set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) to a valid key and record again"
    ]
    assert not store.exists() or list(FixtureStore.open(store)) == []


def test_a_gemini_recording_model_says_nothing_was_recorded_of_a_key_not_valid(
    tmp_path: Path,
) -> None:
    from replaygate.models.live import GeminiModel

    store = tmp_path / "m.jsonl"
    live = httpx2.MockTransport(lambda request: httpx2.Response(400, json=INVALID_KEY))
    settings: dict[str, Any] = {"model": "gemini-2.5-flash", "max_tokens": 16}
    with httpx2.Client(transport=live) as http:
        model = GeminiModel(_gemini(http, GOOGLE), **settings)
        recorder = RecordingModel(model, store, approve_live=True, interface="gemini", **settings)
        with pytest.raises(genai.errors.ClientError) as caught:
            recorder.complete([Message.user("hi")], ())
    assert caught.value.__notes__ == [
        "nothing was recorded for this request: the live API refused the credentials (400); "
        "set GEMINI_API_KEY (or GOOGLE_API_KEY) to a valid key and record again"
    ]
    assert not store.exists()


def _refusal(status: int) -> dict[str, Any]:
    body = {
        "type": "error",
        "error": {"type": "authentication_error", "message": "invalid x-api-key"},
    }
    return {"status": status, "headers": {"content-type": "application/json"}, "body": body}


def _stored(store: Path, text: str, responses: list[Any], source: str) -> None:
    request = {
        "method": "POST",
        "path": "/v1/messages",
        "headers": {"anthropic-version": "2023-06-01"},
        "body": {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": text}]},
    }
    meta = make_meta("anthropic.messages", "2023-06-01", source)
    FixtureStore.open(store).put(Fixture.create(request, responses, meta))


def test_verify_names_a_stored_refusal(tmp_path: Path) -> None:
    store = tmp_path / "old.jsonl"
    ok = {"status": 200, "headers": {}, "body": {"content": [], "stop_reason": "end_turn"}}
    _stored(store, "fine", [ok], "live")
    _stored(store, "refused", [_refusal(401)], "live")  # as a recording kept it before
    _stored(store, "retried", [ok, _refusal(403)], "sim")
    _stored(store, "written on purpose", [_refusal(401)], "hand")  # a test of the refusal
    done = replaygate("verify", str(store))
    assert done.returncode == 1
    problems = [line for line in done.stdout.splitlines() if line.startswith(str(store))]
    assert len(problems) == 2, done.stdout
    assert problems[0].startswith(f"{store}:2: response is the API's 401 refusing the credentials")
    assert problems[1].startswith(f"{store}:3: responses[1] is the API's 403 refusing")
    assert "--replaygate-record-mode=rerecord --replaygate-approve-live" in problems[0]


def test_verify_names_a_refusal_in_a_sample_line(tmp_path: Path) -> None:
    store = tmp_path / "samples.jsonl"
    ok = {"status": 200, "headers": {}, "body": {"content": [], "stop_reason": "end_turn"}}
    _stored(store, "sampled", [ok], "live")
    (fixture,) = FixtureStore.open(store)
    line = {"key": digest(fixture.request), "sample": 1, "response": _refusal(401)}
    with store.open("ab") as out:
        out.write(orjson.dumps(line) + b"\n")
    done = replaygate("verify", str(store))
    assert done.returncode == 1
    assert f"{store}:2: response is the API's 401 refusing the credentials" in done.stdout


def test_a_refusal_is_not_charged_to_the_spending_cap(tmp_path: Path) -> None:
    cap = SpendingCap(1.0, shipped_prices())
    with Simulator(behavior="echo") as sim:
        http = recording(tmp_path / "c.jsonl", cap=cap)
        client = anthropic.Anthropic(api_key="k", base_url=sim.url, max_retries=0, http_client=http)
        with pytest.raises(CredentialsRefusedError):
            client.messages.create(
                model="claude-sonnet-4-5", max_tokens=8, messages=ASK, extra_headers=NO_KEY
            )
    assert (cap.spent, cap.reserved, cap.calls) == (0.0, 0.0, 0)  # its bound given back


@pytest.mark.parametrize(
    ("url", "status", "answer", "key"),
    [
        (
            "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-x/invoke",
            403,
            {"message": "The security token included in the request is invalid."},
            "Set the AWS credentials the client signs with (AWS_ACCESS_KEY_ID",
        ),
        (  # a LiteLLM bedrock/ model's call was told of AnthropicBedrock's credentials only
            "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-x/converse",
            403,
            {"message": "The security token included in the request is invalid."},
            "LiteLLM's aws_access_key_id and aws_secret_access_key",
        ),
        (
            "https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/us-east5"
            "/publishers/anthropic/models/claude-x:streamRawPredict",
            401,
            {"error": {"code": 401, "message": "Bad token", "status": "UNAUTHENTICATED"}},
            "Set anthropic.AnthropicVertex's access_token",
        ),
        (
            "https://r.openai.azure.com/openai/deployments/d/chat/completions"
            "?api-version=2024-10-21",
            401,
            {"error": {"code": "401", "message": "Access denied due to invalid key."}},
            "Set AZURE_OPENAI_API_KEY",
        ),
    ],
    ids=["bedrock", "bedrock-converse", "vertex", "azure"],
)
def test_a_cloud_s_refusal_is_not_recorded_and_names_its_credentials(
    tmp_path: Path, url: str, status: int, answer: dict[str, Any], key: str
) -> None:
    # Bedrock's 403 and Vertex AI's 401 were recorded as the model's answer, their paths
    # taken for no model API's; refused, they were told to set "the API key the client
    # sends", and Azure's OPENAI_API_KEY, which openai.AzureOpenAI never reads
    live = httpx2.MockTransport(lambda request: httpx2.Response(status, json=answer))
    store = tmp_path / "cloud.jsonl"
    ask = {"anthropic_version": "bedrock-2023-05-31", "max_tokens": 8, "messages": ASK}
    with recording(store, transport=live) as http, pytest.raises(CredentialsRefusedError) as caught:
        http.post(url, json=ask)
    assert f"was answered {status}" in str(caught.value) and key in str(caught.value)
    assert list(FixtureStore.open(store)) == []


def test_another_servers_refusal_is_recorded(tmp_path: Path) -> None:
    # a 401 of a path no model API serves may be what the test is about (an expired login)
    live = httpx2.MockTransport(lambda request: httpx2.Response(401, json={"error": "expired"}))
    store = tmp_path / "login.jsonl"
    with recording(store, transport=live) as http:
        assert http.post("https://auth.example.com/login", json={"user": "a"}).status_code == 401
    (fixture,) = FixtureStore.open(store)
    assert fixture.response["status"] == 401


def test_a_proxy_s_refusal_is_not_recorded(tmp_path: Path) -> None:
    # the proxy HTTP_PROXY names answers for a server it did not reach
    answers = iter([httpx2.Response(407, text="<html>Proxy Authentication Required</html>")])

    def live(request: httpx2.Request) -> httpx2.Response:
        return next(answers, httpx2.Response(200, json={"ok": True}))

    store = tmp_path / "p.jsonl"
    ask = {"model": "m", "max_tokens": 8, "messages": ASK}
    with recording(store, transport=httpx2.MockTransport(live)) as http:
        with pytest.raises(ProxyRefusalError) as caught:
            http.post("http://127.0.0.1:8080/v1/messages", json=ask)
        assert http.post("http://127.0.0.1:8080/v1/messages", json=ask).status_code == 200
    message = str(caught.value)
    assert "POST /v1/messages was answered 407 (Proxy Authentication Required)" in message
    assert "Nothing was written for this request" in message
    assert "or send the request past it (NO_PROXY)" in message
    (fixture,) = FixtureStore.open(store)
    assert [r["status"] for r in fixture.responses] == [200]


def test_a_stored_refusal_is_not_replayed_as_the_api_s_answer(tmp_path: Path) -> None:
    store = tmp_path / "old.jsonl"
    _stored(store, "refused", [_refusal(401)], "live")  # as a recording kept it before
    _stored(store, "written on purpose", [_refusal(401)], "hand")  # a test of the refusal
    client = anthropic.Anthropic(
        api_key="k",
        base_url="https://api.anthropic.com",
        default_headers={"anthropic-version": "2023-06-01"},  # the version _stored gives
        http_client=httpx2_client(store),
    )

    def ask(text: str) -> Any:
        messages = [{"role": "user", "content": text}]
        return client.messages.create(model="m", max_tokens=8, messages=messages)

    with pytest.raises(FixtureFormatError) as caught:
        ask("refused")
    assert (caught.value.file, caught.value.line) == (str(store), 1)
    assert "its answer is the API's 401 refusing the credentials" in str(caught.value)
    assert "`--replaygate-record-mode=rerecord --replaygate-approve-live`), or remove" in str(
        caught.value
    )
    with pytest.raises(anthropic.AuthenticationError):
        ask("written on purpose")
