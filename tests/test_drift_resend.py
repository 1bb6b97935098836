"""``replaygate drift`` re-sends what was recorded and compares only what can be compared.

Fixtures are recorded through the official SDKs over the HTTP layer from the loopback
simulator (through a gateway's or Azure's base path, streams closed early or cut, SSE
error events and SDK retries, Responses conversations, a script), then drift re-sends
them to a simulator that answers as they were recorded: each check must say no drift,
and still find a drift injected into what the fixtures hold.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from click.testing import CliRunner, Result

from loopback import Handler, serving
from replaygate import Fixture
from replaygate.cli import main
from replaygate.errors import MissingExtraError
from replaygate.examples.research_copilot import shipped_fixtures
from replaygate.http import Exchange, httpx2_client, intercept
from replaygate.hygiene.drift import drawable, drift_live
from replaygate.hygiene.errors import HygieneError
from replaygate.hygiene.resend import LiveSender, unsendable
from replaygate.sanitize import SanitizeConfig, Sanitizer
from replaygate.sim import FaultPlan, Simulator
from sdks import anthropic, genai, openai

MODEL = "claude-test-model"
ECHO = ("--approve-live", "--simulator", "--behavior", "echo")


def drift(*args: str) -> Result:
    return CliRunner().invoke(main, ["drift", *args])


def recording(store: Path, sim: Simulator, **options: Any) -> Any:
    """An httpx2 client recording ``store`` from ``sim``, whatever host a client names."""
    exchange = Exchange(store, mode="record-missing", approve_live=True, source="sim", **options)
    exchange.live_origin = sim.url
    return httpx2_client(exchange)


def ask(client: Any, text: str) -> Any:
    return client.messages.create(
        model=MODEL, max_tokens=64, messages=[{"role": "user", "content": text}]
    )


@pytest.mark.slow  # a drift check against the simulator
def test_fixtures_recorded_through_a_base_path_are_re_sent_to_the_providers_route(
    tmp_path: Path,
) -> None:
    # The path became /v1/openai/v1/chat/completions: a 404 for each, NOT CHECKED.
    store = tmp_path / "gw.jsonl"
    with (
        Simulator(behavior="echo") as sim,
        intercept(store, "record-missing", approve_live=True, source="sim", live_origin=sim.url),
    ):
        gw = openai.OpenAI(api_key="k", base_url="https://gw.example.com/openai/v1", max_retries=0)
        gw.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
        azure = openai.AzureOpenAI(
            api_key="k", azure_endpoint="https://res.openai.azure.com", api_version="2024-10-21",
            azure_deployment="gpt4o-prod", max_retries=0,
        )  # fmt: skip
        azure.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "az"}])
        anthropic_gw = "https://gw.example.com/anthropic"
        ask(anthropic.Anthropic(api_key="k", base_url=anthropic_gw, max_retries=0), "hi a")
    paths = [json.loads(line)["request"]["path"] for line in store.read_text().splitlines()]
    assert paths[0] == "/openai/v1/chat/completions" and paths[2] == "/anthropic/v1/messages"
    done = drift(str(store), "--live-sample", "3", *ECHO)
    assert done.exit_code == 0, done.output
    assert "errors:" not in done.output and "3 request(s) re-sent" in done.output
    drifted = drift(str(store), "--live-sample", "3", *ECHO, "--sim-drift", "add-field:usage.foo")
    assert drifted.exit_code == 1 and "+ usage.foo" in drifted.output, drifted.output


@pytest.mark.slow  # a drift check against the simulator
def test_a_stream_the_code_closed_early_or_that_was_cut_is_compared_as_far_as_it_was_read(
    tmp_path: Path,
) -> None:
    # The events nobody read showed as "in live, not in fixtures": a false DRIFT.
    store = tmp_path / "streams.jsonl"
    with Simulator(behavior="echo", faults=FaultPlan.sequence([None, None, "cut-stream"])) as sim:
        http = recording(store, sim)
        claude = anthropic.Anthropic(api_key="k", base_url=sim.url, http_client=http,
                                     max_retries=0)  # fmt: skip
        with claude.messages.stream(
            model=MODEL, max_tokens=64, messages=[{"role": "user", "content": "first words"}]
        ) as stream:
            next(iter(stream.text_stream))
        gpt = openai.OpenAI(api_key="k", base_url=sim.openai_base_url, http_client=http,
                            max_retries=0)  # fmt: skip
        chunks = gpt.chat.completions.create(
            model="gpt-4o", stream=True, messages=[{"role": "user", "content": "one chunk"}]
        )
        next(iter(chunks))
        chunks.close()
        with (
            pytest.raises(Exception, match="incomplete"),
            claude.messages.stream(
                model=MODEL, max_tokens=64, messages=[{"role": "user", "content": "cut"}]
            ) as stream,
        ):
            stream.until_done()
    ends = [json.loads(line)["response"]["stream_end"] for line in store.read_text().splitlines()]
    assert ends == ["closed", "closed", "cut"]
    done = drift(str(store), "--live-sample", "3", *ECHO)
    assert done.exit_code == 0, done.output
    assert "3 request(s) re-sent" in done.output
    drifted = drift(str(store), "--live-sample", "3", *ECHO, "--sim-drift", "drop-field:model")
    assert drifted.exit_code == 1, drifted.output
    assert "- events[message_start].message.model" in drifted.output


@pytest.mark.slow  # a drift check against the simulator
def test_error_answers_are_not_compared_and_a_retried_request_is_compared_by_its_answer(
    tmp_path: Path,
) -> None:
    # An SSE error event was compared as an answer (false DRIFT); a request recorded
    # through a retry (529, then 200) was skipped though its 200 could be compared.
    store = tmp_path / "errors.jsonl"
    faults = FaultPlan.sequence(["sse-error", "529"], retry_after=0.01)  # the retry at once
    with Simulator(behavior="echo", faults=faults) as sim:
        http = recording(store, sim)
        claude = anthropic.Anthropic(api_key="k", base_url=sim.url, http_client=http,
                                     max_retries=0)  # fmt: skip
        with (
            pytest.raises(anthropic.APIStatusError, match="overloaded_error"),
            claude.messages.stream(
                model=MODEL, max_tokens=64, messages=[{"role": "user", "content": "stream"}]
            ) as stream,
        ):
            stream.until_done()
        ask(claude.with_options(max_retries=2), "retried")
    done = drift(str(store), "--live-sample", "5", *ECHO)
    assert done.exit_code == 0, done.output
    assert f"  {store}:1: recorded only error answers: an error event (overloaded_error)\n" in (
        done.output
    )
    assert f"  {store}:2 (key " in done.output and "1 request(s) re-sent" in done.output
    drifted = drift(str(store), "--live-sample", "5", *ECHO, "--sim-drift", "add-field:usage.foo")
    assert drifted.exit_code == 1 and "+ usage.foo" in drifted.output, drifted.output


@pytest.mark.slow  # a drift check against the simulator
def test_a_later_turn_of_a_responses_conversation_is_named_not_re_sent(tmp_path: Path) -> None:
    # Re-sent with a previous_response_id no server holds: a 400, so NOT CHECKED.
    store = tmp_path / "turns.jsonl"
    with Simulator(behavior="echo") as sim:
        http = recording(store, sim, sanitize=Sanitizer(SanitizeConfig(ids=True)))
        gpt = openai.OpenAI(api_key="k", base_url=sim.openai_base_url, http_client=http,
                            max_retries=0)  # fmt: skip
        first = gpt.responses.create(model="gpt-4o", input="first")
        gpt.responses.create(model="gpt-4o", input="second", previous_response_id=first.id)
    done = drift(str(store), "--live-sample", "5", *ECHO, "--json")
    assert done.exit_code == 0, done.output
    report = json.loads(done.output)
    assert report["drift"] is False and report["errors"] == [] and len(report["sampled"]) == 1
    [skipped] = report["skipped"]
    assert skipped.startswith(f"{store}:2: its previous_response_id 'resp_rg_")
    assert "no server holds now" in skipped


SCRIPT = (
    '{"tool_calls": [{"id": "toolu_1", "name": "lookup", "arguments": {"q": "it"}}]}\n'
    '{"text": "It is 42."}\n'
)
LOOKUP = {"name": "lookup", "description": "Look up.", "input_schema": {"type": "object"}}


def record_script_session(store: Path, script: Path, question: str) -> None:
    """One conversation answered by the script: a tool call, then the text."""
    with Simulator(behavior=f"script:{script}") as sim:
        claude = anthropic.Anthropic(api_key="k", base_url=sim.url,
                                     http_client=recording(store, sim), max_retries=0)  # fmt: skip
        asked: list[Any] = [{"role": "user", "content": question}]
        call = claude.messages.create(model=MODEL, max_tokens=64, messages=asked, tools=[LOOKUP])
        asked += [
            {"role": "assistant", "content": [block.model_dump() for block in call.content]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": call.content[0].id, "content": "42"}
            ]},
        ]  # fmt: skip
        claude.messages.create(model=MODEL, max_tokens=64, messages=asked, tools=[LOOKUP])


@pytest.mark.slow  # a drift check against the simulator
def test_a_script_answers_each_re_sent_request_with_the_line_it_was_recorded_from(
    tmp_path: Path,
) -> None:
    # The n-th request drawn got line n: the text answer got the tool call, a false DRIFT
    # that depended on the seed, and a store of two sessions used the script up.
    script = tmp_path / "script.jsonl"
    script.write_text(SCRIPT)
    store = tmp_path / "scripted.jsonl"
    record_script_session(store, script, "What is it?")
    record_script_session(store, script, "What is it, again?")
    by_script = ("--approve-live", "--simulator", "--behavior", f"script:{script}")
    for seed in ("0", "1", "2", "3"):
        done = drift(str(store), "--live-sample", "1", "--sample-seed", seed, *by_script)
        assert done.exit_code == 0, (seed, done.output)
    done = drift(str(store), "--live-sample", "4", *by_script)
    assert done.exit_code == 0 and "4 request(s) re-sent" in done.output, done.output
    drifted = drift(str(store), "--live-sample", "4", *by_script, "--sim-drift", "drop-field:id")
    assert drifted.exit_code == 1 and "    - id\n" in drifted.output, drifted.output
    script.write_text('{"text": "Another answer."}\n')
    changed = drift(str(store), "--live-sample", "4", *by_script)
    assert changed.exit_code == 2, changed.output
    assert f"no fixture at {store} can be re-sent" in changed.output
    assert f"no line of the script {script} says what its recorded answer says" in changed.output


def record_hi(store: Path, sim: Simulator) -> None:
    """Record one question, "hi", from ``sim`` into ``store``."""
    client = anthropic.Anthropic(
        api_key="k", base_url=sim.url, http_client=recording(store, sim), max_retries=0
    )
    ask(client, "hi")


@pytest.fixture(scope="module")
def recorded_hi(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of one question, "hi", recorded from the echo simulator once for the module."""
    store = tmp_path_factory.mktemp("hi") / "one.jsonl"
    with Simulator(behavior="echo") as sim:
        record_hi(store, sim)
    return store


@pytest.fixture
def one(recorded_hi: Path, tmp_path: Path) -> Path:
    """A test's own copy of :func:`recorded_hi`, ``one.jsonl`` in its ``tmp_path``."""
    return Path(shutil.copy(recorded_hi, tmp_path / "one.jsonl"))


@pytest.mark.slow  # a drift check against the simulator
def test_the_report_names_the_url_the_requests_went_to(
    one: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "vs the live API" though ANTHROPIC_BASE_URL sent every request elsewhere.
    store = one
    with Simulator(behavior="echo") as sim:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", sim.url)
        report = tmp_path / "drift.txt"
        done = drift(str(store), "--live-sample", "1", "--approve-live", "--report", str(report))
        url = sim.url
    head = f"drift: {store} vs {url} (from ANTHROPIC_BASE_URL) (1 request(s) re-sent, seed 0)"
    assert done.exit_code == 0 and done.output.startswith(head + "\n"), done.output
    assert report.read_text().startswith(head + "\n")


@pytest.mark.parametrize("given", ["--base-url", "ANTHROPIC_BASE_URL"])
@pytest.mark.slow  # a drift check against the simulator
def test_a_gateways_credentials_in_the_url_named_are_masked(
    one: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: str
) -> None:
    # "drift: one.jsonl vs http://ci:ghp_...@127.0.0.1:PORT", in the CI log and the report
    token = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    store = one
    report = tmp_path / "drift.txt"
    with Simulator(behavior="echo") as sim:
        gateway = sim.url.replace("http://", f"http://ci:{token}@")
        monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
        args = [str(store), "--live-sample", "1", "--approve-live", "--report", str(report)]
        if given == "--base-url":
            args += ["--base-url", gateway]
        else:
            monkeypatch.setenv("ANTHROPIC_BASE_URL", gateway)
        done = drift(*args)
        shown = sim.url.replace("http://", "http://<user and password, 43 characters>@")
    # the simulator refuses the request (a user and password, no key of its own): what
    # is checked here is the URL the report names, not the comparison
    assert done.exit_code == 2, done.output
    assert done.output.startswith(f"drift: {store} vs {shown}"), done.output
    assert token not in done.output and token not in report.read_text()


@pytest.mark.slow  # a drift check against the simulator
def test_a_url_that_is_no_url_is_refused_naming_where_it_was_given(
    one: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # each request failed "Invalid port: 'abc'"; --base-url "" re-sent to the providers' URLs
    store = one
    with Simulator(behavior="echo") as sim:
        received = len(sim.requests)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
        resend = [str(store), "--live-sample", "1", "--approve-live"]
        for bad, problem in [
            ("http://127.0.0.1:abc", "its port 'abc' is not a number from 0 to 65535"),
            ("", "it is empty"),
        ]:
            given = drift(*resend, "--base-url", bad)
            assert given.exit_code == 2, given.output
            assert given.stderr.endswith(
                f"Error: --base-url '{bad}' is not a URL a model API can be reached at: "
                f"{problem}; nothing was sent\n"
            ), given.stderr
        monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://[::1")
        from_env = drift(*resend)
        assert len(sim.requests) == received  # nothing sent
    assert from_env.exit_code == 2, from_env.output
    assert from_env.stderr == (
        "Error: ANTHROPIC_BASE_URL 'http://[::1' is not a URL a model API can be reached at: "
        "its host opens '[' and never closes it (an IPv6 address: http://[::1]:8765): set it "
        "to the server's URL, or unset it to re-send to https://api.anthropic.com\n"
    ), from_env.output


@pytest.mark.slow  # a drift check against the simulator
def test_an_output_inside_the_store_compared_or_in_no_folder_is_refused(tmp_path: Path) -> None:
    # Written into the folder compared, the report was read as a damaged fixture; a
    # missing folder was named by a temporary file's name.
    folder = tmp_path / "fixtures"
    folder.mkdir()
    with Simulator(behavior="echo") as sim:
        ask(anthropic.Anthropic(api_key="k", base_url=sim.url,
                                http_client=recording(folder / "one.jsonl", sim),
                                max_retries=0), "hi")  # fmt: skip
    before = sorted(p.name for p in folder.iterdir())
    for option in ("--report", "--json-out"):
        inside = folder / "drift.json"
        done = drift(str(folder), "--live-sample", "1", *ECHO, option, str(inside))
        assert done.exit_code == 2, done.output
        assert f"{inside}: is inside the fixture set compared ({folder})" in done.output
        assert "re-sent" not in done.output
        missing = tmp_path / "nodir" / "x.json"
        done = drift(str(folder), "--live-sample", "1", *ECHO, option, str(missing))
        assert done.exit_code == 2, done.output
        assert f"{missing}: the folder {missing.parent} does not exist" in done.output
    assert sorted(p.name for p in folder.iterdir()) == before
    ok = tmp_path / "drift.json"
    assert drift(str(folder), "--live-sample", "1", *ECHO, "--json-out", str(ok)).exit_code == 0
    assert drift(str(folder), "--live-sample", "1", *ECHO).exit_code == 0


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        ("", "drift spec '' names no rule"),
        (" , ", "drift spec ' , ' names no rule"),
        ("drop-field:usage..x", "the path 'usage..x' has an empty segment"),
        ("add-field:.usage", "the path '.usage' has an empty segment"),
    ],
)
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_sim_drift_that_injects_nothing_or_names_a_path_with_a_gap_is_refused(
    one: Path, spec: str, said: str
) -> None:
    # "" injected nothing without a word; usage..x was read as usage.x.
    done = drift(str(one), "--live-sample", "1", *ECHO, "--sim-drift", spec)
    assert done.exit_code == 2, done.output
    assert "Invalid value for --sim-drift" in done.output and said in done.output


@pytest.mark.slow  # a drift check against the simulator
def test_with_a_script_a_recorded_answer_that_is_no_object_is_named_by_what_it_is(
    tmp_path: Path,
) -> None:
    # Read for its script line before its answer was checked: a traceback.
    envelope = {"method": "POST", "path": "/v1/messages", "headers": {},
                "body": {"model": MODEL, "max_tokens": 8, "messages": []}}  # fmt: skip
    store = tmp_path / "odd.jsonl"
    store.write_bytes(Fixture.create(envelope, ["not an answer"]).to_line())
    script = tmp_path / "script.jsonl"
    script.write_text(SCRIPT)
    done = drift(str(store), "--live-sample", "1", "--approve-live", "--simulator",
                 "--behavior", f"script:{script}")  # fmt: skip
    assert done.exit_code == 2 and done.exception is not None, done.output
    assert isinstance(done.exception, SystemExit), done.exception
    assert f"{store}:1: its recorded answer holds no field" in done.output


@pytest.mark.slow  # a drift check against the simulator
def test_a_live_answer_ending_in_an_error_event_is_not_checked_not_drift(tmp_path: Path) -> None:
    # The fields of a live stream an overloaded_error cut short were compared: false DRIFT.
    store = tmp_path / "stream.jsonl"
    with Simulator(behavior="echo") as sim:
        claude = anthropic.Anthropic(api_key="k", base_url=sim.url,
                                     http_client=recording(store, sim), max_retries=0)  # fmt: skip
        with claude.messages.stream(
            model=MODEL, max_tokens=64, messages=[{"role": "user", "content": "hi"}]
        ) as stream:
            stream.until_done()
    with Simulator(behavior="echo", faults=FaultPlan.sequence(["sse-error"])) as live:
        done = drift(str(store), "--live-sample", "1", "--approve-live", "--base-url", live.url)
    assert done.exit_code == 2, done.output
    assert "DRIFT" not in done.output and "NOT CHECKED" in done.output, done.output
    assert f"{store}:1 (key " in done.output
    assert "live answer: an error event (overloaded_error)" in done.output


def test_an_embeddings_request_is_named_as_one_drift_does_not_re_send() -> None:
    """A store of client.embeddings.create fixtures was refused with 'path /v1/embeddings
    is not a known model API endpoint', an endpoint of the API the simulator serves."""
    request = {"method": "POST", "path": "/v1/embeddings", "headers": {},
               "body": {"model": "text-embedding-3-small", "input": ["a"]}}  # fmt: skip
    reason = unsendable(Fixture.create(request, [{"status": 200, "headers": {}, "body": {}}]))
    assert reason == (
        "path /v1/embeddings is not re-sent: drift re-sends only the requests of "
        "anthropic.messages, openai.chat.completions, openai.responses, google.generate_content "
        "and Amazon Bedrock's model calls"
    )


def test_a_later_turn_of_a_messages_thread_is_named_not_re_sent() -> None:
    """The anthropic SDK's tool runner holds its conversation as a thread: each turn after
    the first names the previous answer's id, which no server holds now. Re-sent, each was
    a 404, and drift ended NOT CHECKED, telling to check the server address and the key."""

    def fixture(thread: dict[str, str]) -> Fixture:
        body = {"model": MODEL, "max_tokens": 64, "thread": thread,
                "messages": [{"role": "user", "content": "hi"}]}  # fmt: skip
        request = {"method": "POST", "path": "/v1/messages", "headers": {}, "body": body}
        return Fixture.create(request, [{"status": 200, "headers": {}, "body": {}}])

    assert unsendable(fixture({"type": "create"})) is None
    later = unsendable(fixture({"type": "continue", "previous_message_id": "msg_01"}))
    assert later is not None
    assert later.startswith("its thread's previous_message_id 'msg_01' names what the server")


def test_a_request_held_twice_is_drawable_once(tmp_path: Path) -> None:
    # a merge=union copy of a line (or two stores of one request) was re-sent, and paid
    # for, once for each place it is held
    lines = shipped_fixtures().read_bytes().splitlines(keepends=True)
    (tmp_path / "a.jsonl").write_bytes(b"".join(lines) + lines[0])
    (tmp_path / "b.jsonl").write_bytes(lines[1])
    eligible = drawable(tmp_path).eligible
    assert len(eligible) == len(lines)
    assert len({key for _, key in eligible}) == len(lines)


@pytest.mark.slow  # a drift check against the simulator
def test_a_model_retired_since_the_recording_is_named_with_what_to_do(tmp_path: Path) -> None:
    """Re-sent, each fixture of a model retired since (claude-sonnet-4-5) was a 404 naming
    the model, and drift said to check the server address, the network and the key."""
    import httpx

    store = tmp_path / "old.jsonl"
    store.write_bytes(shipped_fixtures().read_bytes().splitlines(keepends=True)[0])
    model = json.loads(store.read_text(encoding="utf-8"))["request"]["model"]
    sent = httpx.Request("POST", "https://api.anthropic.com/v1/messages")

    class Retired:
        target = "https://api.anthropic.com"

        def send(self, fixture: Fixture) -> Any:
            response = httpx.Response(404, request=sent)
            raise anthropic.NotFoundError(f"model: {model}", response=response, body=None)

    report = drift_live(store, 1, Retired(), approve_live=True)  # type: ignore[arg-type]
    assert report.errors[0].endswith(
        f"(the API serves no model {model!r}: a retired model, or a misspelled id: "
        "re-record it with a current model)"
    )


def record_azure(store: Path) -> dict[str, Any]:
    """An Azure OpenAI deployment's chat completion recorded into ``store`` from the
    simulator, as ``openai.AzureOpenAI`` sends it; its recorded answer."""
    with (
        Simulator(behavior="echo") as sim,
        intercept(store, "record-missing", approve_live=True, source="sim", live_origin=sim.url),
    ):
        azure = openai.AzureOpenAI(
            api_key="k", azure_endpoint="https://res.openai.azure.com", api_version="2024-10-21",
            azure_deployment="gpt4o-prod", max_retries=0,
        )  # fmt: skip
        azure.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "az"}])
    response: dict[str, Any] = json.loads(store.read_text())["response"]
    return response


@pytest.mark.slow  # a drift check against the simulator
def test_an_azure_deployments_fixture_is_re_sent_to_its_resource_with_its_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # It went to OpenAI's /v1/chat/completions with OPENAI_API_KEY, the deployment's name
    # as its model: compared with an answer of another API, or refused for that model.
    store = tmp_path / "az.jsonl"
    recorded = record_azure(store)
    seen: list[tuple[str, str | None, str | None]] = []

    class Resource(Handler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            seen.append((self.path, self.headers.get("api-key"), self.headers.get("authorization")))
            self.answer_json(recorded["body"])

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "az-key")
    with serving(Resource) as url:
        monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", url + "/")
        done = drift(str(store), "--live-sample", "1", "--approve-live")
    assert done.exit_code == 0, done.output
    assert seen == [("/openai/deployments/gpt4o-prod/chat/completions?api-version=2024-10-21",
                     "az-key", None)]  # fmt: skip
    assert done.output.startswith(f"drift: {store} vs {url}/ (from AZURE_OPENAI_ENDPOINT)")
    assert "no drift" in done.output, done.output


@pytest.mark.slow  # a drift check against the simulator
def test_an_azure_fixture_is_re_sent_with_an_entra_id_token_as_a_bearer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "az.jsonl"
    recorded = record_azure(store)
    seen: list[tuple[str | None, str | None]] = []

    class Resource(Handler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            seen.append((self.headers.get("api-key"), self.headers.get("authorization")))
            self.answer_json(recorded["body"])

    monkeypatch.delenv("AZURE_OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("AZURE_OPENAI_AD_TOKEN", "entra-token")
    with serving(Resource) as url:
        monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", url)
        done = drift(str(store), "--live-sample", "1", "--approve-live")
    assert done.exit_code == 0, done.output
    assert seen == [(None, "Bearer entra-token")]


@pytest.mark.parametrize(
    ("settings", "said"),
    [
        ({"OPENAI_API_KEY": "sk-k"}, "AZURE_OPENAI_ENDPOINT is not set: a request recorded from"),
        (
            {"AZURE_OPENAI_ENDPOINT": "https://res.openai.azure.com"},
            "AZURE_OPENAI_API_KEY (or AZURE_OPENAI_AD_TOKEN) is not set",
        ),
        (
            {"AZURE_OPENAI_ENDPOINT": "res.openai.azure.com", "AZURE_OPENAI_API_KEY": "k"},
            "AZURE_OPENAI_ENDPOINT 'res.openai.azure.com' is not a URL",
        ),
    ],
)
@pytest.mark.slow  # a drift check against the simulator
def test_an_azure_fixture_without_its_resource_or_key_is_refused_naming_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settings: dict[str, str], said: str
) -> None:
    store = tmp_path / "az.jsonl"
    record_azure(store)
    for name in ("OPENAI_API_KEY", "AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("AZURE_OPENAI_AD_TOKEN", raising=False)
    for name, value in settings.items():
        monkeypatch.setenv(name, value)
    done = drift(str(store), "--live-sample", "1", "--approve-live")
    assert done.exit_code == 2 and said in done.output, done.output


def test_a_key_no_header_carries_is_refused_naming_its_variable_not_its_value(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # an Azure key with an env file's line break was refused by the HTTP client, whose
    # error, in the report, quoted the key whole
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "https://res.openai.azure.com")
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "7bb3e3aa69b82a87d13c7a9882e097bd\n")
    with pytest.raises(HygieneError) as refused:
        LiveSender().azure_target("/openai/deployments/d/chat/completions")
    assert str(refused.value).startswith("AZURE_OPENAI_API_KEY holds whitespace, a line break")
    assert "7bb3e3aa" not in str(refused.value)
    monkeypatch.setenv("OPENAI_API_KEY", " ")
    with pytest.raises(HygieneError, match="OPENAI_API_KEY holds only whitespace"):
        LiveSender().key("openai")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "token with a space")
    with pytest.raises(HygieneError, match="ANTHROPIC_AUTH_TOKEN holds whitespace"):
        LiveSender().key("anthropic")


@pytest.mark.slow  # a drift check against the simulator
def test_a_vertex_express_fixture_is_re_sent_to_vertex_ai_not_the_gemini_api(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # It went to the Gemini API's host at Vertex AI's path, which that API does not serve.
    store = tmp_path / "vertex.jsonl"
    with (
        Simulator(behavior="echo") as sim,
        intercept(store, "record-missing", approve_live=True, source="sim", live_origin=sim.url),
    ):
        express = genai.Client(vertexai=True, api_key="k")
        express.models.generate_content(model="gemini-2.5-flash", contents="hi")
    recorded = json.loads(store.read_text())["response"]
    seen: list[tuple[str, str | None]] = []

    class Vertex(Handler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            seen.append((self.path, self.headers.get("x-goog-api-key")))
            self.answer_json(recorded["body"])

    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    monkeypatch.setenv("GEMINI_API_KEY", "g-key")
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", "http://127.0.0.1:1")  # the Gemini API's
    with serving(Vertex) as url:
        monkeypatch.setenv("GOOGLE_VERTEX_BASE_URL", url)
        done = drift(str(store), "--live-sample", "1", "--approve-live")
    assert done.exit_code == 0, done.output
    assert seen == [("/v1beta1/publishers/google/models/gemini-2.5-flash:generateContent", "g-key")]
    assert done.output.startswith(f"drift: {store} vs {url} (from GOOGLE_VERTEX_BASE_URL)")
    monkeypatch.delenv("GOOGLE_VERTEX_BASE_URL")
    route = "publishers/google/models/m:generateContent"
    assert LiveSender().vertex_target(f"/v1beta1/{route}") == (
        f"https://aiplatform.googleapis.com/v1beta1/{route}"
    )
    with pytest.raises(HygieneError, match="with a project, which takes an access token"):
        LiveSender().vertex_target(f"/v1/projects/p/locations/us-central1/{route}")


@pytest.mark.slow  # a drift check against the simulator
def test_a_store_of_anthropic_requests_without_the_sdk_names_the_extra_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store LiteLLM (or the OpenAI Agents SDK's LitellmModel) recorded holds Anthropic's
    requests, sent with no anthropic SDK: drift listed each as "No module named
    'anthropic'" and ended NOT CHECKED, telling to check the server address, the network
    and the API key."""
    store = tmp_path / "litellm.jsonl"
    body = {"model": MODEL, "max_tokens": 64, "messages": [{"role": "user", "content": "hi"}]}
    headers = {"anthropic-version": "2023-06-01", "x-api-key": "k"}
    with (
        Simulator(behavior="echo") as sim,
        intercept(store, "record-missing", approve_live=True, source="sim", live_origin=sim.url),
        httpx2.Client() as client,
    ):
        client.post("https://api.anthropic.com/v1/messages", json=body, headers=headers)
    monkeypatch.setitem(sys.modules, "anthropic", None)  # not installed
    result = drift(str(store), "--live-sample", "1", *ECHO)
    assert result.exit_code == 2, result.output
    assert "re-sending Anthropic fixtures needs the 'anthropic' package" in result.output
    assert "pip install 'replaygate[anthropic]'" in result.output
    assert "check the server address" not in result.output


def test_an_http_fixture_re_sent_without_httpx2_names_the_extra_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With neither anthropic nor httpx2 installed (a plain install, or httpx alone), an
    HTTP fixture of Anthropic's was reported as "No module named 'httpx2'" and the run
    ended NOT CHECKED, telling to check the server address; a Gemini one, re-sent with no
    SDK, failed so where httpx alone was installed."""
    body = {"model": MODEL, "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}
    request = {"method": "POST", "path": "/v1/messages", "headers": {}, "body": body}
    fixture = Fixture.create(request, [{"status": 200, "body": {}}])
    monkeypatch.setitem(sys.modules, "httpx2", None)  # not installed
    monkeypatch.setitem(sys.modules, "anthropic", None)
    sender = LiveSender(base_url="http://127.0.0.1:1")
    with pytest.raises(MissingExtraError, match=r"pip install 'replaygate\[anthropic\]'"):
        sender.send(fixture)
    assert type(sender._http()) is httpx.Client  # Gemini's and Azure's routes: httpx will do
    sender.close()
    monkeypatch.setitem(sys.modules, "httpx", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'replaygate\[httpx\]'"):
        sender._http()


def test_an_http_fixture_is_re_sent_through_an_sdk_built_on_httpx(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """anthropic<1 (which a framework may need beside replaygate) sends through httpx, not
    httpx2: each HTTP fixture was reported as "No module named 'httpx2'" where httpx2 was
    not installed, and the run ended NOT CHECKED."""
    answer = {"type": "message", "content": []}

    class OldSDK:  # the part of anthropic 0.x's client drift uses
        _client = type("Wrapper", (httpx.Client,), {})()  # the SDK's subclass of httpx's

        def post(self, url: str, *, cast_to: type, **options: Any) -> Any:
            assert cast_to is httpx.Response  # returned as it is, unparsed
            return httpx.Response(200, json=answer, request=httpx.Request("POST", url))

    body = {"model": MODEL, "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}
    request = {"method": "POST", "path": "/v1/messages", "headers": {}, "body": body}
    fixture = Fixture.create(request, [{"status": 200, "body": answer}])
    monkeypatch.setitem(sys.modules, "httpx2", None)  # not installed
    sender = LiveSender(base_url="http://127.0.0.1:1")
    sender._clients["anthropic"] = OldSDK()
    assert sender.send(fixture)["body"] == answer
