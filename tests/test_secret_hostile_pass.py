"""Law 4 against a hostile user: keys hidden in ways a person does not see, spelt in hex,
or carried into the reports written beside the fixtures.

Each key is recorded through a real client (the ``anthropic`` and ``openai`` SDKs from the
loopback simulator, ``httpx`` and ``requests`` under ``intercept`` against a loopback server
of the test's own) and must be refused naming its field, nothing written; a report a live
server's answer reaches (``drift --report``, an eval's results) shows the key masked.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import orjson
import pytest
import requests
from click.testing import CliRunner

from loopback import Handler, serving
from replaygate.cli import main
from replaygate.errors import SecretInFixtureError
from replaygate.evals import AgentEntry, RecordPlan, load_eval_results, run_eval
from replaygate.evals.cases import EvalCase
from replaygate.fixtures.fingerprint import fixture_key
from replaygate.fixtures.fixture import Fixture, make_meta
from replaygate.http import httpx2_client, intercept
from replaygate.hygiene.verify import verify_store
from replaygate.models.fakes import FunctionModel
from replaygate.models.replay import RequestSettings
from replaygate.models.types import Message, ModelResponse
from replaygate.sanitize.secret_decode import INVISIBLE_BYTES, SHOWN
from replaygate.sanitize.secret_lines import quiet_lines
from replaygate.sanitize.secret_scan import find_fixture_secrets
from replaygate.sim import Simulator
from sdks import anthropic, openai

# Made-up values of real shapes, built in pieces so no scanner mistakes this file for a leak.
GITHUB = "ghp_" + "Zq8Xv7Wm2Kp9Rt4Ly6Hb8Nc3Jd5Fg1Ss0Aa9b"
ANTHROPIC = "sk-ant-api03-" + "Zq8Xv7Wm2Kp9Rt4Ly6Hb8Nc3Jd5Fg1Ss0Aa9b-Qx7"
AWS = "AKIA" + "Q3EGRTZ5KX7NMBPL"
SLACK = "xoxb-" + "2048113-1024557-AbCdEfGhIjKlMn"
USAGE = {"input_tokens": 1, "output_tokens": 1}


def zero_width(secret: str) -> str:
    """``secret`` with a zero-width space between each two of its characters."""
    return "\u200b".join(secret)


def tags(secret: str) -> str:
    """``secret`` in Unicode tag characters: nothing shows, a model reads it."""
    return "".join(chr(0xE0000 + ord(c)) for c in secret)


def test_the_bytes_searched_for_are_the_invisible_characters_as_utf8() -> None:
    """The gate searches bytes: every character the scan removes is found there, and the
    punctuation most texts beyond ASCII hold is not."""
    for code in SHOWN:
        assert INVISIBLE_BYTES.match(chr(code).encode()), hex(code)
    for visible in "—“”‘’…é中👍\u00a0\u2010\u2028":
        assert INVISIBLE_BYTES.search(visible.encode()) is None, visible


@pytest.fixture(scope="module")
def sim(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Simulator]:
    """A simulator answering a zero-width-spaced key, then a tool call whose arguments
    hold one in tag characters."""
    script = tmp_path_factory.mktemp("script") / "answers.jsonl"
    lines = [
        {"text": f"Here it is: {zero_width(GITHUB)}"},
        {"tool_calls": [{"id": "call_1", "name": "deploy", "arguments": {"env": tags(SLACK)}}]},
    ]
    script.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    with Simulator(behavior=f"script:{script}") as running:
        yield running


def test_invisible_keys_from_the_sdks_are_refused_and_nothing_is_written(
    sim: Simulator, tmp_path: Path
) -> None:
    store = tmp_path / "http.jsonl"
    store.write_bytes(b"")
    http = httpx2_client(store, "record-missing", approve_live=True)
    with (
        anthropic.Anthropic(
            api_key="k", base_url=sim.url, http_client=http, max_retries=0
        ) as client,
        pytest.raises(SecretInFixtureError) as streamed,
        client.messages.stream(
            model="m", max_tokens=64, messages=[{"role": "user", "content": "the key?"}]
        ) as stream,
    ):
        stream.until_done()
    assert "GitHub token (in invisible-character text) found at response.events[" in str(
        streamed.value
    )
    http = httpx2_client(store, "record-missing", approve_live=True)
    with (
        openai.OpenAI(
            api_key="k", base_url=sim.openai_base_url, http_client=http, max_retries=0
        ) as chat,
        pytest.raises(SecretInFixtureError) as called,
    ):
        chat.chat.completions.create(model="g", messages=[{"role": "user", "content": "go"}])
    assert (
        "Slack token (in invisible-character text) found at "
        "response.body.choices[0].message.tool_calls[0].function.arguments"
    ) in str(called.value)
    assert store.read_bytes() == b""


class Counts(Handler):
    """Answers every request ``{"ok": true}``, counting them."""

    seen = 0

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        Counts.seen += 1
        self.answer_json({"ok": True})


def test_a_key_spelt_in_hex_is_refused_before_it_is_sent(tmp_path: Path) -> None:
    store = tmp_path / "hex.jsonl"
    spelt = ANTHROPIC.encode().hex()
    Counts.seen = 0
    with serving(Counts) as url, intercept(store, "record-missing", approve_live=True):
        with pytest.raises(SecretInFixtureError) as in_json:
            httpx.post(f"{url}/v1/tools", json={"dump": f"0x{spelt}"})
        with pytest.raises(SecretInFixtureError) as in_form:
            requests.post(f"{url}/v1/form", data={"blob": AWS.encode().hex().upper() + "0a"})
        httpx.post(f"{url}/v1/tools", json={"sha256": "9f" * 32, "seal": "3c" * 16})
    assert "Anthropic API key (in hex text) found at request.body.dump" in str(in_json.value)
    assert "AWS access key id (in hex text) found at request.text" in str(in_form.value)
    assert Counts.seen == 1  # the digests went; the keys were never sent
    assert b"9f9f" in store.read_bytes() and spelt.encode() not in store.read_bytes()


def test_verify_finds_the_hidden_keys_in_a_store_written_by_hand(tmp_path: Path) -> None:
    """A store that reached the disk another way: ``verify`` names each line, and the
    one-pass search for many lines (``quiet_lines``, when Hyperscan is there) does not
    clear them."""
    store = tmp_path / "hand.jsonl"
    texts = [zero_width(GITHUB), "ok " + tags(SLACK), AWS.encode().hex(), "clean — “text” 👨‍👩‍👧"]
    lines = []
    for i, text in enumerate(texts):
        request = {"messages": [{"role": "user", "content": f"question {i}"}]}
        fixture = Fixture(
            fixture_key(request),
            request,
            [{"content": [{"type": "text", "text": text}], "usage": USAGE}],
            meta=make_meta("anthropic.messages", "2023-06-01", "hand"),
        )
        lines.append(orjson.dumps(fixture.to_json()))
    store.write_bytes(b"".join(line + b"\n" for line in lines))
    read, problems = verify_store(store)
    assert read == 4
    assert [(p.line, p.reason) for p in problems] == [
        (line, f"{rule} at response.content[0].text")
        for line, rule in (
            (1, "GitHub token (in invisible-character text)"),
            (2, "Slack token (in invisible-character text)"),
            (3, "AWS access key id (in hex text)"),
        )
    ]
    quiet = quiet_lines(lines)
    assert quiet is None or quiet == [False, False, False, quiet[3]]
    assert find_fixture_secrets(orjson.loads(lines[3])) == []


class EchoesKeys(Handler):
    """A live server gone wrong: an error echoing the key it was sent, or an answer with a
    field named by one."""

    mode = "error"

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        if EchoesKeys.mode == "error":
            self.answer_json({"type": "error", "error": {"message": f"bad key {ANTHROPIC}"}}, 401)
        else:
            answer = {"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
                      "content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn",
                      "usage": {"input_tokens": 1, "output_tokens": 1},
                      "metadata": {GITHUB: True}}  # fmt: skip
            self.answer_json(answer)


@pytest.mark.slow
@pytest.mark.parametrize(("mode", "shown"), [("error", "Anthropic API key"), ("field", "GitHub")])
def test_a_drift_report_masks_a_key_the_live_server_sent(
    sim: Simulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str, shown: str
) -> None:
    store = tmp_path / "http"
    with Simulator(behavior="echo") as echo:
        http = httpx2_client(store, "record-missing", approve_live=True, source="sim")
        with anthropic.Anthropic(api_key="k", base_url=echo.url, http_client=http) as client:
            client.messages.create(
                model="m", max_tokens=64, messages=[{"role": "user", "content": "hi"}]
            )
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    EchoesKeys.mode = mode
    report, as_json = tmp_path / "drift.txt", tmp_path / "drift.json"
    with serving(EchoesKeys) as url:
        done = CliRunner().invoke(
            main,
            ["drift", str(store), "--live-sample", "1", "--approve-live", "--base-url", url,
             "--report", str(report), "--json-out", str(as_json)],
        )  # fmt: skip
    assert done.exit_code in (1, 2), done.output
    for written in (done.output, report.read_text(), as_json.read_text()):
        assert ANTHROPIC[:20] not in written and GITHUB[:20] not in written
        assert f"<{shown}" in written


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::replaygate.sampling.advice.SamplingWarning")
def test_eval_results_mask_a_key_in_an_error_the_agent_gives_up_on(tmp_path: Path) -> None:
    def agent(model: FunctionModel, question: str) -> None:
        model.complete([Message.user(question)], [])
        raise RuntimeError(f"401 from the proxy: invalid key {ANTHROPIC}")

    settings = RequestSettings("scripted-model", 32)
    live = FunctionModel(lambda messages, tools: ModelResponse(text="fine"))
    gives_up = AgentEntry(agent, failures=(RuntimeError,), settings=settings)
    case = EvalCase("rag", "What is RAG?", 1, 1, must_contain=("RAG",))
    plan = RecordPlan(live, approve_live=True, source="scripted")
    results = run_eval([case], tmp_path / "f.jsonl", agent=gives_up, recording=plan)
    results.write(tmp_path / "results.json")
    written = (tmp_path / "results.json").read_text()
    assert ANTHROPIC[:20] not in written
    (sample,) = load_eval_results(tmp_path / "results.json").cases[0].sampled.samples
    assert sample.output["error"] == (
        "RuntimeError: 401 from the proxy: invalid key <Anthropic API key #1, 54 characters>"
    )
