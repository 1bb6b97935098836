"""replaygate import-cassettes: vcrpy cassettes become stores that replay the same SDK calls.

The cassettes are recorded by vcrpy itself, patching the ``httpx2`` transport of the
official ``anthropic`` and ``openai`` SDKs, against the loopback simulator. They are
imported once for the module; each call is then replayed offline through
``replaygate.http`` (network blocked, the SDK pointed at the real API host) and must
give exactly what the SDK got while vcrpy recorded.
"""

from __future__ import annotations

import asyncio
import gzip
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import zlib
from collections.abc import Callable
from functools import partial
from pathlib import Path, PureWindowsPath
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result

from deadline import finishes
from loopback import Handler, serving
from replaygate.cli import main
from replaygate.errors import FixtureMismatchError
from replaygate.fixtures import fixture as fixture_module
from replaygate.fixtures.store import FixtureStore
from replaygate.http import block_network, httpx2_client
from replaygate.migrate.cassettes import CassetteError, read_cassette
from replaygate.models.types import ModelResponse
from replaygate.pytest_plugin.store_names import MAX_NAME, store_name
from replaygate.sim import ScriptBehavior, Simulator
from sdks import aiohttp, anthropic, openai, vcr

KEY = "test-key"
CLAUDE = "claude-sim-1"
GPT = "gpt-sim-1"
QUESTION = [{"role": "user", "content": "Why do agent tests flake in CI?"}]
CHANGED = [{"role": "user", "content": "Why do agent tests fail in CI?"}]
SECRET = "sk-ant-admin01-Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7"
HERE = Path(__file__).resolve().parent


def answer(text: str) -> ModelResponse:
    return ModelResponse(text=text)


# -- what user code does with a client, as comparable data ---------------------------------


def anthropic_plain(client: Any, question: list[dict[str, str]] = QUESTION) -> Any:
    reply = client.messages.create(model=CLAUDE, max_tokens=64, messages=question)
    return reply.model_dump(mode="json")


def anthropic_stream(client: Any) -> Any:
    with client.messages.stream(model=CLAUDE, max_tokens=64, messages=QUESTION) as stream:
        events = [event.model_dump(mode="json") for event in stream]
        final = stream.get_final_message().model_dump(mode="json")
    return {"events": events, "final": final}


def anthropic_twice(client: Any) -> Any:
    return [anthropic_plain(client), anthropic_plain(client)]


def openai_plain(client: Any) -> Any:
    return client.chat.completions.create(model=GPT, messages=QUESTION).model_dump(mode="json")


def openai_stream(client: Any) -> Any:
    stream = client.chat.completions.create(model=GPT, messages=QUESTION, stream=True)
    chunks = [chunk.model_dump(mode="json") for chunk in stream]
    text = "".join(c["choices"][0]["delta"]["content"] or "" for c in chunks if c["choices"])
    return {"chunks": chunks, "text": text}


SCENARIOS: dict[str, tuple[str, Callable[[Any], Any], list[str]]] = {
    "anthropic/plain.yaml": ("anthropic", anthropic_plain, ["Shared state between tests."]),
    "anthropic/stream.yaml": ("anthropic", anthropic_stream, ["Timing, order and state."]),
    "anthropic/twice.yaml": ("anthropic", anthropic_twice, ["First answer.", "Second answer."]),
    "openai/plain.yaml": ("openai", openai_plain, ["Unpinned model versions."]),
    "openai/stream.yaml": ("openai", openai_stream, ["Network calls in unit tests."]),
    "openai/json_serializer.json": ("openai", openai_plain, ["A JSON-serialized cassette."]),
}
"""Cassette path -> SDK, the calls it records, and the simulator's scripted answers."""


def client_for(
    sdk: str, base_url: str | None = None, **options: Any
) -> anthropic.Anthropic | openai.OpenAI:
    """An SDK client; ``base_url`` is the simulator's, None for the real API host."""
    if sdk == "anthropic":
        return anthropic.Anthropic(api_key=KEY, base_url=base_url, max_retries=0, **options)
    url = base_url + "/v1" if base_url else None
    return openai.OpenAI(api_key=KEY, base_url=url, max_retries=0, **options)


def replay(store: Path, sdk: str, call: Callable[[Any], Any]) -> Any:
    """``call`` through a replaying replaygate client, the network blocked."""
    with block_network(), client_for(sdk, http_client=httpx2_client(store)) as client:
        return call(client)


def _has(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def import_cassettes(*args: str | Path) -> Result:
    return CliRunner().invoke(main, ["import-cassettes", *map(str, args)])


def store_of(out: Path, cassette: str) -> Path:
    return out / Path(cassette).with_suffix(".jsonl")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """The cassettes vcrpy recorded (a folder), and what the SDK got for each."""
    folder = tmp_path_factory.mktemp("cassettes")
    recorder = vcr.VCR(cassette_library_dir=str(folder), record_mode="all")
    live = {}
    for name, (sdk, call, texts) in SCENARIOS.items():
        serializer = "json" if name.endswith(".json") else "yaml"
        with (
            Simulator(behavior=ScriptBehavior([answer(t) for t in texts])) as sim,
            recorder.use_cassette(name, serializer=serializer),
            client_for(sdk, sim.url) as client,
        ):
            live[name] = call(client)
    return folder, live


@pytest.fixture(scope="module")
def imported(
    recorded: tuple[Path, dict[str, Any]], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Result]:
    """The recorded cassettes imported once: the stores' folder and the command's result."""
    out = tmp_path_factory.mktemp("fixtures")
    return out, import_cassettes(recorded[0], "--out", out)


def cassettes_copy(recorded: tuple[Path, dict[str, Any]], tmp_path: Path, *names: str) -> Path:
    """A folder holding copies of the named recorded cassettes."""
    folder = tmp_path / "cassettes"
    for name in names:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(recorded[0] / name, folder / name)
    return folder


# libyaml's safe loader and dumper where PyYAML has them: the same documents, read and
# written several times faster than in pure Python (as the importer reads them).
YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
YAML_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def edit_yaml(path: Path, edit: Callable[[dict[str, Any]], object]) -> None:
    data = yaml.load(path.read_text(), Loader=YAML_LOADER)
    edit(data)
    path.write_text(yaml.dump(data, Dumper=YAML_DUMPER))


# -- the SDK calls replay offline ------------------------------------------------------------


def test_every_cassette_is_imported_with_its_counts(imported: tuple[Path, Result]) -> None:
    out, result = imported
    assert result.exit_code == 0, result.output
    assert "anthropic/twice.yaml -> " in result.output
    assert f"{store_of(out, 'anthropic/twice.yaml')}: 2 imported, 0 already there" in result.output
    assert "6 cassette(s): 6 imported, 0 unchanged, 0 empty, 0 refused, 0 error" in result.output
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.jsonl")) == [
        "anthropic/plain.jsonl",
        "anthropic/stream.jsonl",
        "anthropic/twice.jsonl",
        "openai/json_serializer.jsonl",
        "openai/plain.jsonl",
        "openai/stream.jsonl",
    ]


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_the_sdk_gets_the_same_results_offline(
    recorded: tuple[Path, dict[str, Any]], imported: tuple[Path, Result], name: str
) -> None:
    sdk, call, texts = SCENARIOS[name]
    result = replay(store_of(imported[0], name), sdk, call)
    assert result == recorded[1][name]
    assert texts[-1] in json.dumps(result)


def test_a_one_word_change_is_a_loud_miss(imported: tuple[Path, Result]) -> None:
    store = store_of(imported[0], "anthropic/plain.yaml")
    with pytest.raises(FixtureMismatchError, match=r"messages\[0\]\.content") as miss:
        replay(store, "anthropic", lambda client: anthropic_plain(client, CHANGED))
    assert "flake" in str(miss.value) and "fail" in str(miss.value)


def test_repeated_requests_keep_their_order_and_one_more_is_a_miss(
    imported: tuple[Path, Result],
) -> None:
    store = store_of(imported[0], "anthropic/twice.yaml")
    (fixture,) = FixtureStore.open(store)
    texts = [r["body"]["content"][0]["text"] for r in fixture.responses]
    assert texts == ["First answer.", "Second answer."]
    with pytest.raises(FixtureMismatchError, match="recorded 2 times and sent 3 times"):
        replay(store, "anthropic", lambda c: [anthropic_plain(c) for _ in range(3)])


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_stores_match_a_live_recording_of_the_same_calls(
    imported: tuple[Path, Result], tmp_path: Path
) -> None:
    for name in ("anthropic/plain.yaml", "anthropic/stream.yaml", "openai/stream.yaml"):
        sdk, call, texts = SCENARIOS[name]
        live_store = tmp_path / Path(name).with_suffix(".jsonl")
        http = httpx2_client(live_store, "record-missing", approve_live=True, source="sim")
        with (
            Simulator(behavior=ScriptBehavior([answer(t) for t in texts])) as sim,
            client_for(sdk, sim.url, http_client=http) as client,
        ):
            call(client)
        (live,) = FixtureStore.open(live_store)
        (fixture,) = FixtureStore.open(store_of(imported[0], name))
        assert (fixture.key, fixture.request, fixture.responses) == (
            live.key,
            live.request,
            live.responses,
        )
        assert fixture.meta is not None and live.meta is not None
        assert fixture.meta["interface"] == live.meta["interface"]
        assert fixture.meta["interface_version"] == live.meta["interface_version"]
        assert fixture.meta["source"] == "vcrpy"
        assert fixture.meta["note"].endswith(name)
    stream = fixture.response
    assert stream["stream_end"] == "complete" and stream["events"][-1]["data"] == "[DONE]"


def test_auth_headers_never_reach_the_store(
    recorded: tuple[Path, dict[str, Any]], imported: tuple[Path, Result]
) -> None:
    assert b"Bearer test-key" in (recorded[0] / "anthropic/plain.yaml").read_bytes()
    for store in imported[0].rglob("*.jsonl"):
        text = store.read_bytes().lower()
        assert b"test-key" not in text and b"authorization" not in text, store


def encoded_plain(
    recorded: tuple[Path, dict[str, Any]],
    tmp_path: Path,
    coding: str,
    compress: Callable[[bytes], bytes],
) -> Path:
    """A copy of the recorded cassettes whose plain Anthropic answer is ``compress``-ed and
    labelled ``coding``."""
    folder = cassettes_copy(recorded, tmp_path, "anthropic/plain.yaml")

    def encode(data: dict[str, Any]) -> None:
        response = data["interactions"][0]["response"]
        body = response["body"]["string"].encode()
        response["body"]["string"] = compress(body)
        response["headers"]["content-encoding"] = [coding]

    edit_yaml(folder / "anthropic/plain.yaml", encode)
    return folder


@pytest.mark.parametrize(
    ("coding", "compress"),
    [
        ("gzip", gzip.compress),
        ("deflate", zlib.compress),
        ("deflate", lambda b: zlib.compress(b)[2:-4]),
    ],
    ids=["gzip", "deflate", "raw-deflate"],
)
def test_compressed_bodies_are_decoded(
    recorded: tuple[Path, dict[str, Any]],
    tmp_path: Path,
    coding: str,
    compress: Callable[[bytes], bytes],
) -> None:
    folder = encoded_plain(recorded, tmp_path, coding, compress)
    assert b"!!binary" in (folder / "anthropic/plain.yaml").read_bytes()
    result = import_cassettes(folder, "--out", tmp_path / "out")
    assert result.exit_code == 0, result.output
    store = store_of(tmp_path / "out", "anthropic/plain.yaml")
    assert replay(store, "anthropic", anthropic_plain) == recorded[1]["anthropic/plain.yaml"]


@pytest.mark.parametrize(
    ("coding", "compress"),
    [("deflate", zlib.compress), ("deflate", lambda b: zlib.compress(b)[2:-4])],
    ids=["deflate", "raw-deflate"],
)
def test_a_compressed_body_with_bytes_after_its_end_is_named_not_cut(
    recorded: tuple[Path, dict[str, Any]],
    tmp_path: Path,
    coding: str,
    compress: Callable[[bytes], bytes],
) -> None:
    # the bytes after the compressed stream were dropped without a word
    folder = encoded_plain(recorded, tmp_path, coding, lambda body: compress(body) + b"more")
    result = import_cassettes(folder, "--out", tmp_path / "out")
    assert result.exit_code == 2, result.output
    assert (
        f"{folder / 'anthropic/plain.yaml'}: interaction 0: response.body: not deflate data "
        "as its content-encoding says (cut short, or other bytes after its end)"
    ) in result.output
    assert not store_of(tmp_path / "out", "anthropic/plain.yaml").exists()


@pytest.mark.parametrize("coding", ["gzip", "deflate"])
def test_an_empty_body_labelled_compressed_is_read_empty(tmp_path: Path, coding: str) -> None:
    # a HEAD or 204 answer keeps the coding its body would have: an empty deflate body
    # refused the cassette as "not deflate data"
    from replaygate.migrate.cassettes import _Fields

    fields = _Fields(tmp_path / "c.yaml", 0)
    assert fields.decoded(b"", (("content-encoding", coding),)) == b""


class GzippedChat(Handler):
    """A chat completion answered gzipped, as the APIs answer a client that accepts it."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        body = gzip.compress(json.dumps(CHAT_ANSWER).encode())
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-encoding", "gzip")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


CHAT_ANSWER = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1,
    "model": GPT,
    "choices": [
        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Hi!"}}
    ],
}


def test_a_cassette_vcrpy_recorded_through_aiohttp_is_imported(tmp_path: Path) -> None:
    # vcrpy's aiohttp stub keeps a json= body as the object (request.body.string: missing
    # field) and the body aiohttp decoded under the server's content-encoding (not gzip data)
    cassette = tmp_path / "cassettes" / "test_aio" / "test_hi.yaml"

    async def ask(base: str) -> Any:
        async with aiohttp.ClientSession() as session:
            sent = {"model": GPT, "messages": QUESTION}
            async with session.post(f"{base}/v1/chat/completions", json=sent) as answer:
                return await answer.json()

    with serving(GzippedChat) as base, vcr.use_cassette(str(cassette), record_mode="all"):
        assert asyncio.run(ask(base)) == CHAT_ANSWER
    result = import_cassettes(tmp_path / "cassettes", "--out", tmp_path / "out")
    assert result.exit_code == 0, result.output
    store = tmp_path / "out" / "test_aio" / "test_hi.jsonl"
    assert replay(store, "openai", openai_plain)["choices"][0]["message"]["content"] == "Hi!"
    # an answer it read no body of (a 204, a HEAD) is written "body: {}"
    edit_yaml(cassette, lambda data: data["interactions"][0]["response"].update(body={}))
    again = import_cassettes(cassette, "--out", tmp_path / "empty")
    assert again.exit_code == 1 and "response.body: labelled application/json, but empty" in (
        again.output
    )


@pytest.mark.parametrize("coding", [None, "gzip", "br"])
def test_the_httpx_response_form_of_older_vcrpy_releases_is_read(
    recorded: tuple[Path, dict[str, Any]], tmp_path: Path, coding: str | None
) -> None:
    # its content is what httpx handed over, decoded, under the server's content-encoding:
    # decoding it again refused every compressed answer ("not gzip data", "'br' cannot")
    folder = cassettes_copy(recorded, tmp_path, "anthropic/plain.yaml")
    sent = {"content-encoding": [coding]} if coding else {}

    def to_legacy(data: dict[str, Any]) -> None:
        for item in data["interactions"]:
            new = item["response"]
            item["response"] = {
                "status_code": new["status"]["code"],
                "http_version": "HTTP/1.1",
                "headers": {**new["headers"], **sent},
                "content": new["body"]["string"],
            }

    edit_yaml(folder / "anthropic/plain.yaml", to_legacy)
    assert import_cassettes(folder, "--out", tmp_path / "out").exit_code == 0
    store = store_of(tmp_path / "out", "anthropic/plain.yaml")
    assert replay(store, "anthropic", anthropic_plain) == recorded[1]["anthropic/plain.yaml"]
    edit_yaml(
        folder / "anthropic/plain.yaml", lambda d: d["interactions"][0]["response"].pop("content")
    )
    broken = import_cassettes(folder, "--out", tmp_path / "out")
    assert broken.exit_code == 2
    assert "interaction 0: response.content: missing field" in broken.output


def plant_secret(data: dict[str, Any]) -> None:
    response = data["interactions"][0]["response"]
    response["body"]["string"] = response["body"]["string"].replace(
        "Shared state", f"Rotate {SECRET} now"
    )


def test_a_cassette_holding_a_secret_is_refused_whole_and_the_others_imported(
    recorded: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    folder = cassettes_copy(recorded, tmp_path, "anthropic/plain.yaml", "openai/plain.yaml")
    edit_yaml(folder / "anthropic/plain.yaml", plant_secret)
    out = tmp_path / "out"
    result = import_cassettes(folder, "--out", out)
    assert result.exit_code == 1, result.output
    refusal = next(line for line in result.output.splitlines() if "REFUSED" in line)
    cassette = folder / "anthropic/plain.yaml"
    assert refusal.startswith(f"REFUSED (nothing written): {cassette}: interaction 0: ")
    assert "response.body.content[0].text" in refusal
    assert SECRET not in result.output
    assert not store_of(out, "anthropic/plain.yaml").exists()
    assert len(FixtureStore.open(store_of(out, "openai/plain.yaml"))) == 1
    assert "2 cassette(s): 1 imported, 0 unchanged, 0 empty, 1 refused, 0 error" in result.output


def test_a_secret_in_a_later_interaction_leaves_the_earlier_ones_unwritten(
    recorded: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    folder = cassettes_copy(recorded, tmp_path, "anthropic/twice.yaml")

    def second_asks_with_a_secret(data: dict[str, Any]) -> None:
        request = data["interactions"][1]["request"]
        request["body"] = request["body"].replace("in CI?", f"with key {SECRET}?")

    edit_yaml(folder / "anthropic/twice.yaml", second_asks_with_a_secret)
    result = import_cassettes(folder, "--out", tmp_path / "out", "--json")
    assert result.exit_code == 1, result.output
    (report,) = json.loads(result.output)["cassettes"]
    assert report["outcome"] == "refused" and report["refused"] == 2
    assert "interaction 1: " in report["problem"]
    assert "request.body.messages[0].content" in report["problem"]
    assert not (tmp_path / "out").exists()


def test_an_answer_labelled_json_that_an_edit_broke_is_refused_naming_the_interaction(
    recorded: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    # it was imported, and the replay died in the SDK's json.loads naming no fixture

    def lose_a_quote(data: dict[str, Any]) -> None:
        body = data["interactions"][0]["response"]["body"]
        body["string"] = body["string"].replace('",', ",", 1)

    folder, refusal = refused_alone(recorded, tmp_path, "openai/plain.yaml", lose_a_quote)
    assert f"{folder / 'openai/plain.yaml'}: interaction 0: response.text: " in refusal
    assert "labelled application/json, but not JSON" in refusal


def refused_alone(
    recorded: tuple[Path, dict[str, Any]],
    tmp_path: Path,
    name: str,
    edit: Callable[[dict[str, Any]], object],
) -> tuple[Path, str]:
    """The copied cassettes' folder and the refusal line of cassette ``name`` edited by
    ``edit`` and imported alone: exit 1, and nothing written of it."""
    folder = cassettes_copy(recorded, tmp_path, name)
    edit_yaml(folder / name, edit)
    result = import_cassettes(folder, "--out", tmp_path / "out")
    assert result.exit_code == 1, result.output
    assert not store_of(tmp_path / "out", name).exists()
    return folder, next(line for line in result.output.splitlines() if "REFUSED" in line)


def test_a_stream_whose_body_was_left_unrecorded_is_refused(
    recorded: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    # a vcrpy that did not read streamed bodies recorded them empty: imported, it replayed
    # a stream of no event, and the SDK failed on it naming no fixture
    folder, refusal = refused_alone(
        recorded,
        tmp_path,
        "openai/stream.yaml",
        lambda data: data["interactions"][0]["response"]["body"].update(string=""),
    )
    assert f"{folder / 'openai/stream.yaml'}: interaction 0: response.events: " in refusal


@pytest.mark.parametrize(
    ("filtered", "field"),
    [(gzip.compress, "base64"), (lambda body: b"", "body")],
    ids=["gzip without its content-encoding", "blanked"],
)
def test_an_answer_a_filter_left_unreadable_is_refused(
    recorded: tuple[Path, dict[str, Any]],
    tmp_path: Path,
    filtered: Callable[[bytes], bytes],
    field: str,
) -> None:
    # imported and verified clean, the replay died in the SDK's json.loads naming no fixture

    def filter_the_body(data: dict[str, Any]) -> None:
        body = data["interactions"][0]["response"]["body"]
        body["string"] = filtered(body["string"].encode())

    folder, refusal = refused_alone(recorded, tmp_path, "openai/plain.yaml", filter_the_body)
    assert f"{folder / 'openai/plain.yaml'}: interaction 0: response.{field}: " in refusal
    assert "labelled application/json, but " in refusal


def test_a_request_body_a_hook_blanked_is_refused(
    recorded: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    # a before_record_request hook blanked it: imported, every replay of it was a miss
    folder, refusal = refused_alone(
        recorded,
        tmp_path,
        "openai/plain.yaml",
        lambda d: d["interactions"][0]["request"].update(body=""),
    )
    assert f"{folder / 'openai/plain.yaml'}: interaction 0: request.body: empty, " in refusal
    assert "before_record_request" in refusal


@pytest.mark.parametrize(
    ("broken", "field"),
    [
        (lambda body: body.replace('",', ",", 1), "text"),
        (lambda body: body.replace("?", "\u00e9?", 1).encode("latin-1"), "base64"),
        (lambda body: f"[{body}]", "body"),
    ],
    ids=["an edit broke its JSON", "not UTF-8", "JSON but no object"],
)
def test_a_request_body_labelled_json_that_is_none_is_refused(
    recorded: tuple[Path, dict[str, Any]],
    tmp_path: Path,
    broken: Callable[[str], str | bytes],
    field: str,
) -> None:
    # it was imported as a request no SDK sends, and every replay of it was a miss

    def break_the_body(data: dict[str, Any]) -> None:
        request = data["interactions"][0]["request"]
        request["body"] = broken(request["body"])

    folder, refusal = refused_alone(recorded, tmp_path, "openai/plain.yaml", break_the_body)
    assert f"{folder / 'openai/plain.yaml'}: interaction 0: request.{field}: " in refusal
    assert "labelled application/json, but not a JSON object (" in refusal


BAD_INPUT = {
    "malformed YAML": ("interactions:\n- request: {method: POST\n", "not valid YAML at line 3"),
    "unknown version": ("version: 2\ninteractions: []\n", "unknown cassette version 2"),
    "no version": ("interactions: []\n", "missing field 'version'"),
    "version true": ("version: true\ninteractions: []\n", "version: must be an integer, got true"),
    "before vcrpy 1.0": ("- request: {}\n", "vcrpy's format from before 1.0"),
    "no interactions": ("version: 1\n", "missing field 'interactions' (a list)"),
    "a python tag": ("version: !!python/name:os.system 1\n", "not valid YAML at line 1"),
    "an interaction that is no object": (
        "version: 1\ninteractions:\n- [1, 2]\n",
        "interaction 0: expected an object, got a list",
    ),
    "a request that is no object": (
        "version: 1\ninteractions:\n- {request: 5, response: {}}\n",
        "interaction 0: request: expected an object, got a number",
    ),
}


@pytest.mark.parametrize("case", list(BAD_INPUT))
def test_a_cassette_that_cannot_be_read_is_named_with_exit_2_and_no_traceback(
    recorded: tuple[Path, dict[str, Any]], tmp_path: Path, case: str
) -> None:
    folder = cassettes_copy(recorded, tmp_path, "openai/plain.yaml")
    text, expected = BAD_INPUT[case]
    (folder / "broken.yml").write_text(text)
    result = import_cassettes(folder, "--out", tmp_path / "out")
    assert result.exit_code == 2, result.output
    assert f"ERROR (nothing written): {folder / 'broken.yml'}: " in result.output
    assert expected in result.output and "Traceback" not in result.output
    assert not store_of(tmp_path / "out", "broken.yml").exists()
    assert store_of(tmp_path / "out", "openai/plain.yaml").exists()


SPECIAL: dict[str, tuple[Callable[[Path], object], str]] = {
    "FIFO": (os.mkfifo, "is a FIFO, where a cassette file is expected"),
    "device": (lambda path: path.symlink_to("/dev/zero"), "is a device, where a cassette"),
    "symlink loop": (lambda path: path.symlink_to(path.name), "is a symlink loop, where a"),
    "dangling symlink": (lambda path: path.symlink_to("gone.yaml"), "is a symlink to 'gone.yaml'"),
}


@pytest.mark.parametrize("case", list(SPECIAL))
def test_a_cassette_that_is_not_a_regular_file_is_named_not_passed_over(
    recorded: tuple[Path, dict[str, Any]], tmp_path: Path, case: str
) -> None:
    # Named on its own it was "no cassette under ..." (a loop: click's "does not exist");
    # in a folder it was passed over in silence.
    folder = cassettes_copy(recorded, tmp_path, "openai/plain.yaml")
    make, expected = SPECIAL[case]
    special = folder / "special.yaml"
    make(special)
    for named in (special, folder):
        result = finishes(partial(import_cassettes, named, "--out", tmp_path / "out"), seconds=5)
        assert result.exit_code == 2, result.output
        assert f"ERROR (nothing written): {special}: {expected}" in result.output
        assert "Traceback" not in result.output
    assert store_of(tmp_path / "out", "openai/plain.yaml").exists()


def test_a_linked_folder_of_cassettes_is_followed_once(
    recorded: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    # a linked folder was passed over in silence: "1 imported", exit 0
    folder = cassettes_copy(recorded, tmp_path, "openai/plain.yaml")
    shared = cassettes_copy(recorded, tmp_path / "shared", "anthropic/plain.yaml")
    (folder / "anthropic").symlink_to(shared / "anthropic")
    (folder / "same").symlink_to(shared / "anthropic")  # a second way to one folder
    (folder / "openai" / "up").symlink_to("..")  # a loop
    out = tmp_path / "out"
    result = finishes(partial(import_cassettes, folder, "--out", out), seconds=10)
    assert result.exit_code == 0, result.output
    assert "2 cassette(s): 2 imported, 0 unchanged, 0 empty, 0 refused, 0 error" in result.output
    stored = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.jsonl"))
    assert stored == ["anthropic/plain.jsonl", "openai/plain.jsonl"]


@pytest.mark.slow  # a process of its own, where the folder's permissions apply
@pytest.mark.skipif(
    os.geteuid() == 0 and not shutil.which("setpriv"), reason="root, and no setpriv"
)
def test_a_folder_that_cannot_be_listed_is_an_error_naming_it(
    fresh_interpreter: tuple[str, Path, list[tuple[int, str, str]]],
) -> None:
    # the folder was passed over in silence: "1 imported", exit 0
    _, tmp_path, ((status, out, err), (json_status, json_out, _)) = fresh_interpreter
    hidden = tmp_path / "cassettes" / "anthropic"
    assert status == 2, out + err
    assert (
        f"ERROR (nothing written): {hidden}: cannot read this folder: Permission denied; no "
        "cassette in it was imported"
    ) in out
    assert "2 cassette(s): 1 imported, 0 unchanged, 0 empty, 0 refused, 1 error" in out
    assert "Traceback" not in err
    assert json_status == 2
    [error] = [c for c in json.loads(json_out)["cassettes"] if c["outcome"] == "error"]
    assert error["cassette"] == str(hidden) and error["store"] == str(tmp_path / "out/anthropic")
    assert store_of(tmp_path / "out", "openai/plain.yaml").exists()


def test_an_out_folder_that_is_a_symlink_loop_is_refused_without_a_traceback(
    recorded: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    folder = cassettes_copy(recorded, tmp_path, "openai/plain.yaml")
    loop = tmp_path / "out"
    loop.symlink_to(loop.name)
    result = import_cassettes(folder, "--out", loop)
    assert result.exit_code == 2, result.output
    assert f"Error: {loop}" in result.output and "symbolic links" in result.output
    assert "Traceback" not in result.output
    missing = import_cassettes(tmp_path / "nope", "--out", tmp_path / "o")
    assert missing.exit_code == 2 and f"Error: {tmp_path / 'nope'}: no such file" in missing.output


@pytest.mark.parametrize("name", ["stores.jsonl", "stores.JSON", "stores.yaml"])
def test_an_out_named_as_a_file_is_refused_before_anything_is_written(
    tmp_path: Path, name: str
) -> None:
    # the stores went into a folder stores.jsonl, which verify and the replay refuse
    (tmp_path / "c.yaml").write_text("interactions: []\nversion: 1\n", encoding="utf-8")
    result = import_cassettes(tmp_path / "c.yaml", "--out", tmp_path / name)
    assert result.exit_code == 2, result.output
    assert f"Error: --out {tmp_path / name}: is named as a file" in result.output
    assert not (tmp_path / name).exists()


@pytest.mark.parametrize(
    ("edit", "where"),
    [
        (lambda i: i[1]["response"].pop("status"), "interaction 1: response.status: missing field"),
        (
            lambda i: i[0]["response"]["status"].update(code="200"),
            "interaction 0: response.status.code: expected an HTTP status, got '200'",
        ),
        (
            lambda i: i[1]["request"].update(uri="/v1/messages"),
            "interaction 1: request.uri: expected an absolute http(s) URI",
        ),
        pytest.param(
            lambda i: (
                i[0]["response"]["headers"].update({"content-encoding": ["br"]}),
                i[0]["response"]["body"].update(string=b"\x8b\x00\xff"),
            ),
            # it said "cannot be decoded (gzip and deflate can)", not what would decode it
            "interaction 0: response.headers.content-encoding: content-encoding 'br' cannot be "
            "decoded here: it needs the brotli package (1.2 or later: pip install 'brotli>=1.2')",
            marks=pytest.mark.skipif(_has("brotli"), reason="brotli is installed"),
        ),
        pytest.param(
            lambda i: (
                i[0]["response"]["headers"].update({"content-encoding": ["br"]}),
                i[0]["response"]["body"].update(string=b"\x8b\x00\xff"),
            ),
            "interaction 0: response.body: not br data as its content-encoding says",
            marks=pytest.mark.skipif(not _has("brotli"), reason="brotli is not installed"),
        ),
        (
            lambda i: (
                i[0]["response"]["headers"].update({"content-encoding": ["compress"]}),
                i[0]["response"]["body"].update(string=b"\x8b\x00\xff"),
            ),
            "interaction 0: response.headers.content-encoding: content-encoding 'compress' cannot "
            "be decoded (replaygate decodes gzip, deflate, br",
        ),
        (
            lambda i: (
                i[0]["response"]["headers"].update({"content-encoding": ["gzip"]}),
                i[0]["response"]["body"].update(string=gzip.compress(b"{}")[:-3]),
            ),
            "interaction 0: response.body: not gzip data as its content-encoding says",
        ),
        (lambda i: i[0]["request"].pop("method"), "interaction 0: request.method: missing field"),
        (
            lambda i: i[1]["request"].update(headers=["accept"]),
            "interaction 1: request.headers: expected an object of header names",
        ),
        (
            lambda i: i[0]["response"]["headers"].update({"retry-after": [3]}),
            "interaction 0: response.headers.retry-after: expected strings, got [3]",
        ),
        (
            lambda i: i[0]["request"].update(body=42),
            "interaction 0: request.body: expected text or bytes, got a number",
        ),
        (
            lambda i: i[0]["request"].update(body={"max_tokens": float("nan")}),
            "interaction 0: request.body: an object that is not JSON (Out of range float",
        ),
        (
            lambda i: i[1]["response"].update(body={"text": "hi"}),
            "interaction 1: response.body.string: missing field",
        ),
    ],
    ids=[
        "missing status",
        "status text",
        "relative uri",
        "brotli missing",
        "not brotli",
        "unknown coding",
        "not gzip",
        "no method",
        "header list",
        "header number",
        "body number",
        "body object not JSON",
        "no body string",
    ],
)
def test_a_bad_field_is_named_with_its_interaction(
    recorded: tuple[Path, dict[str, Any]],
    tmp_path: Path,
    edit: Callable[[list[dict[str, Any]]], object],
    where: str,
) -> None:
    folder = cassettes_copy(recorded, tmp_path, "anthropic/twice.yaml")
    edit_yaml(folder / "anthropic/twice.yaml", lambda data: edit(data["interactions"]))
    result = import_cassettes(folder / "anthropic/twice.yaml", "--out", tmp_path / "out")
    assert result.exit_code == 2, result.output
    assert f"{folder / 'anthropic/twice.yaml'}: {where}" in result.output
    assert not (tmp_path / "out").exists()


def test_stores_inside_the_cassettes_folder_are_not_read_as_cassettes(
    recorded: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    folder = cassettes_copy(recorded, tmp_path, "openai/plain.yaml")
    review = folder / "fixtures" / "review" / "one-fixture.json"
    review.parent.mkdir(parents=True)
    review.write_text("{}")
    result = import_cassettes(folder, "--out", folder / "fixtures")
    assert result.exit_code == 0, result.output
    assert "1 cassette(s): 1 imported" in result.output
    assert (folder / "fixtures" / "openai" / "plain.jsonl").exists()


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b'{"version": 1,\n "interactions": [}\n', "not valid JSON at line 2"),
        (
            b'{"version": 1, "interactions": ["\xff"]}',
            "not UTF-8 text (byte 0xff at line 1, column 34)",
        ),
        (b"[]", "not a vcrpy cassette: a list"),
        (b"7", "not a vcrpy cassette: no object"),
        (
            b'{"version": 1, "interactions": [{"request": {"method": "GET", "uri": '
            b'"https://a.example/", "headers": {}, "body": "\\ud800"}, "response": '
            b'{"status": {"code": 200}, "headers": {}, "body": {"string": ""}}}]}',
            "interaction 0: request.body: text that is not UTF-8",
        ),
        (b"[" * 100_000 + b"]" * 100_000, "not valid JSON: nested too deeply"),
        # it said "not valid JSON: Exceeds the limit (4300 digits) ...": Python's advice
        (
            b'{"version": ' + b"9" * 5000 + b"}",
            "version: must be an integer, got an integer of 5,000",
        ),
    ],
    ids=["syntax", "not utf-8", "list", "number", "lone surrogate", "deep", "5,000 digits"],
)
def test_a_json_cassette_that_cannot_be_read_is_named(
    tmp_path: Path, content: bytes, expected: str
) -> None:
    (tmp_path / "c.json").write_bytes(content)
    result = import_cassettes(tmp_path / "c.json", "--out", tmp_path / "out")
    assert result.exit_code == 2, result.output
    assert f"{tmp_path / 'c.json'}: {expected}" in result.output


def test_an_unreadable_cassette_is_named(tmp_path: Path) -> None:
    expected = rf"^{tmp_path}: is a folder, where a cassette file is expected$"
    with pytest.raises(CassetteError, match=expected):
        read_cassette(tmp_path)


def test_a_damaged_store_is_an_error_naming_it(
    recorded: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    folder = cassettes_copy(recorded, tmp_path, "openai/plain.yaml")
    store = store_of(tmp_path / "out", "openai/plain.yaml")
    store.parent.mkdir(parents=True)
    store.write_text('{"key": "abc"\n{}\n')
    result = import_cassettes(folder, "--out", tmp_path / "out")
    assert result.exit_code == 2, result.output
    assert f"ERROR (nothing written): {folder / 'openai/plain.yaml'}: {store}:1: " in result.output
    assert store.read_text() == '{"key": "abc"\n{}\n'


def test_importing_again_writes_nothing(
    recorded: tuple[Path, dict[str, Any]], imported: tuple[Path, Result]
) -> None:
    out = imported[0]
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    again = import_cassettes(recorded[0], "--out", out)
    assert again.exit_code == 0, again.output
    assert f"{store_of(out, 'anthropic/twice.yaml')}: 0 imported, 2 already there" in again.output
    assert "6 cassette(s): 0 imported, 6 unchanged, 0 empty, 0 refused, 0 error" in again.output
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def twice_imported(
    recorded: tuple[Path, dict[str, Any]], tmp_path: Path
) -> tuple[Path, Path, Path]:
    """A copy of the cassette asking one request twice, imported: its folder, the stores'
    folder and its store."""
    folder = cassettes_copy(recorded, tmp_path, "anthropic/twice.yaml")
    out = tmp_path / "out"
    assert import_cassettes(folder, "--out", out).exit_code == 0
    return folder, out, store_of(out, "anthropic/twice.yaml")


def test_a_store_answering_otherwise_is_kept_unless_forced(
    recorded: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    folder, out, store = twice_imported(recorded, tmp_path)
    before = store.read_bytes()

    def reword(data: dict[str, Any]) -> None:
        body = data["interactions"][1]["response"]["body"]
        body["string"] = body["string"].replace("Second answer.", "Other answer.")

    edit_yaml(folder / "anthropic/twice.yaml", reword)
    refused = import_cassettes(folder, "--out", out)
    assert refused.exit_code == 1, refused.output
    assert "interaction 1: " in refused.output and "answer 2" in refused.output
    assert "response.body.content[0].text: 'Second answer.' != 'Other answer.'" in refused.output
    assert "--force" in refused.output
    # or the answer is another test's: two modules of one name, whose cassettes share a name
    same_name = "test modules named anthropic.py in two folders, each with a cassette anthropic"
    assert same_name in refused.output and "--force would replace that test's" in refused.output
    assert store.read_bytes() == before

    forced = import_cassettes(folder, "--out", out, "--force")
    assert forced.exit_code == 0, forced.output
    texts = [r["content"][0]["text"] for r in replay(store, "anthropic", anthropic_twice)]
    assert texts == ["First answer.", "Other answer."]


def test_a_forced_import_leaves_the_request_the_cassettes_answers_alone(
    recorded: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    # vcrpy recorded the request again, answered once: --force replaced the first answer
    # and kept the second of the earlier cassette, served to a second send as if recorded
    folder, out, store = twice_imported(recorded, tmp_path)

    def answered_once_otherwise(data: dict[str, Any]) -> None:
        data["interactions"].pop()
        body = data["interactions"][0]["response"]["body"]
        body["string"] = body["string"].replace("First answer.", "Other answer.")

    edit_yaml(folder / "anthropic/twice.yaml", answered_once_otherwise)
    forced = import_cassettes(folder, "--out", out, "--force")
    assert forced.exit_code == 0, forced.output
    assert "1 imported, 0 already there, 0 skipped, 0 refused, 1 dropped" in forced.output
    assert replay(store, "anthropic", anthropic_plain)["content"][0]["text"] == "Other answer."
    with pytest.raises(FixtureMismatchError):
        replay(store, "anthropic", anthropic_twice)
    again = import_cassettes(folder, "--out", out)
    assert again.exit_code == 0 and "0 imported, 1 already there" in again.output


def test_a_forced_import_drops_the_answers_past_an_unchanged_first_one(
    recorded: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    # the retry vcrpy no longer recorded: the same first answer, one fewer; --force kept both
    folder, out, store = twice_imported(recorded, tmp_path)
    edit_yaml(folder / "anthropic/twice.yaml", lambda data: data["interactions"].pop())
    kept = import_cassettes(folder, "--out", out)  # without --force: nothing is taken away
    assert "0 imported, 1 already there" in kept.output and "dropped" not in kept.output
    forced = import_cassettes(folder, "--out", out, "--force")
    assert forced.exit_code == 0, forced.output
    assert "0 imported, 1 already there, 0 skipped, 0 refused, 1 dropped (--force: " in (
        forced.output
    )
    assert "1 cassette(s): 1 imported" in forced.output
    (fixture,) = FixtureStore.open(store)
    assert len(fixture.responses) == 1
    assert replay(store, "anthropic", anthropic_plain)["content"][0]["text"] == "First answer."


@pytest.mark.parametrize("given", ["anthropic/plain.yaml", "anthropic", "."])
def test_a_cassette_of_a_test_module_folder_goes_where_the_plugin_looks_for_its_store(
    recorded: tuple[Path, dict[str, Any]], tmp_path: Path, given: str
) -> None:
    # pytest-recording's cassettes/<module>/<test>.yaml: imported alone, its store went to
    # <out>/<test>.jsonl, where no test looks, and the miss asked for a paid recording
    folder = cassettes_copy(recorded, tmp_path, "anthropic/plain.yaml")
    out = tmp_path / "out"
    done = import_cassettes(folder / given, "--out", out)
    assert done.exit_code == 0, done.output
    assert [p.relative_to(out).as_posix() for p in out.rglob("*.jsonl")] == [
        "anthropic/plain.jsonl"
    ]


def test_a_store_with_fewer_answers_gets_the_missing_ones(
    recorded: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    folder = cassettes_copy(recorded, tmp_path, "anthropic/twice.yaml")
    cassette = folder / "anthropic/twice.yaml"
    whole = cassette.read_text()
    edit_yaml(cassette, lambda data: data["interactions"].pop())
    out = tmp_path / "out"
    assert import_cassettes(folder, "--out", out).exit_code == 0
    cassette.write_text(whole)
    result = import_cassettes(folder, "--out", out)
    assert "1 imported, 1 already there" in result.output
    (fixture,) = FixtureStore.open(store_of(out, "anthropic/twice.yaml"))
    assert fixture.samples == 2


def interaction(method: str, uri: str, status: int, body: str) -> dict[str, Any]:
    return {
        "request": {"method": method, "uri": uri, "body": None, "headers": {}},
        "response": {
            "status": {"code": status, "message": ""},
            "headers": {"Content-Type": ["application/json"]},
            "body": {"string": body},
        },
    }


def test_other_requests_are_imported_as_http_and_an_unserved_route_is_skipped(
    tmp_path: Path,
) -> None:
    cassette = {
        "version": 1,
        "interactions": [
            interaction("GET", "https://tools.example.com/v1/search?q=flaky&limit=3", 200, "[]"),
            interaction("GET", "https://tools.example.com/nope", 404, '{"detail": "Not Found"}'),
        ],
    }
    (tmp_path / "tools.json").write_text(json.dumps(cassette))
    result = import_cassettes(tmp_path / "tools.json", "--out", tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert "1 imported, 0 already there, 1 skipped, 0 refused" in result.output
    (fixture,) = FixtureStore.open(tmp_path / "out" / "tools.jsonl")
    assert fixture.request == {
        "method": "GET",
        "path": "/v1/search?limit=3&q=flaky",
        "headers": {},
        "body": None,
    }
    assert fixture.meta is not None and fixture.meta["interface"] == "http"
    assert fixture.response == {
        "status": 200,
        "headers": {"content-type": "application/json"},
        "body": [],
    }


def test_two_cassettes_for_one_store_and_an_empty_folder_are_errors(
    recorded: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    folder = cassettes_copy(recorded, tmp_path, "openai/plain.yaml")
    shutil.copy(recorded[0] / "openai/json_serializer.json", folder / "openai/plain.json")
    shutil.copy(recorded[0] / "openai/plain.yaml", folder / "openai/a b.yaml")
    shutil.copy(recorded[0] / "openai/plain.yaml", folder / "openai/a_b.yaml")
    result = import_cassettes(folder, "--out", tmp_path / "out")
    assert result.exit_code == 2, result.output
    for first, second in [("plain.json", "plain.yaml"), ("a b.yaml", "a_b.yaml")]:
        store = tmp_path / "out" / "openai" / f"{Path(first).stem.replace(' ', '_')}.jsonl"
        assert (
            f"{folder / 'openai' / second}: {folder / 'openai' / first} is imported into the "
            f"same store {store}; rename one of them"
        ) in result.output
    (tmp_path / "empty").mkdir()
    empty = import_cassettes(tmp_path / "empty")
    assert empty.exit_code == 2
    assert "Error: no cassette (*.yaml, *.yml, *.json) under" in empty.output


def test_a_store_is_named_as_the_plugin_names_the_store_of_its_test(
    recorded: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    # pytest-recording names a cassette after the test, each of <>?%*:|"'/\ written -
    folder = tmp_path / "cassettes"
    names = {
        "test_says_hi[hello world].yaml": "test_says_hi[hello_world].jsonl",
        "test_says_hi[caf\u00e9 #1 (b)].yaml": "test_says_hi[caf___1__b_].jsonl",
        "test_says_hi[a-b].yaml": "test_says_hi[a-b].jsonl",  # pytest-recording's a/b too
        "TestChat.test_says_hi[x=1,y+2].yaml": "TestChat.test_says_hi[x=1,y+2].jsonl",
    }
    for name in names:
        (folder / "test_chat").mkdir(parents=True, exist_ok=True)
        shutil.copy(recorded[0] / "openai/plain.yaml", folder / "test_chat" / name)
    out = tmp_path / "out"
    result = import_cassettes(folder, "--out", out)
    assert result.exit_code == 0, result.output
    stored = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.jsonl"))
    assert stored == sorted(f"test_chat/{store}" for store in names.values())
    renamed = [line for line in result.output.splitlines() if line.startswith("  renamed ")]
    assert renamed == [
        f"  renamed {Path(cassette).stem} -> {Path(store).stem}: the name the pytest plugin "
        "gives the test's store (each character outside A-Z a-z 0-9 _ . - [ ] = , + written _)"
        for cassette, store in sorted(names.items())
        if Path(cassette).stem != Path(store).stem
    ]
    assert len(renamed) == 2


def test_a_cassette_name_longer_than_a_store_name_is_cut_as_the_plugin_cuts_it(
    recorded: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    folder = tmp_path / "cassettes" / "test_chat"
    folder.mkdir(parents=True)
    stem = "test_says_hi[" + "x" * 235 + "]"
    shutil.copy(recorded[0] / "openai/plain.yaml", folder / f"{stem}.yaml")
    out = tmp_path / "out"
    result = import_cassettes(folder.parent, "--out", out)
    assert result.exit_code == 0, result.output
    (store,) = out.rglob("*.jsonl")
    assert store.stem == store_name(stem) and len(store.stem) == MAX_NAME
    assert f"  renamed {stem} -> {store.stem}: " in result.output
    assert "written _; cut at 230 characters, ending in a digest)" in result.output


def test_an_answer_is_dated_by_the_date_header_the_server_sent(
    recorded: tuple[Path, dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # recorded_at was the time of the import: a cassette two years old read as fresh to
    # patrol --max-age for months after its import
    began = fixture_module.now_iso()
    folder = cassettes_copy(recorded, tmp_path, "anthropic/twice.yaml", "openai/plain.yaml")
    sent = ["Wed, 03 Jul 2024 10:00:00 GMT", "Tue, 02 Jul 2024 12:00:00 +0200"]

    def dated(data: dict[str, Any]) -> None:
        for interaction, date in zip(data["interactions"], sent, strict=True):
            interaction["response"]["headers"]["Date"] = [date]

    edit_yaml(folder / "anthropic/twice.yaml", dated)
    edit_yaml(
        folder / "openai/plain.yaml",
        lambda data: data["interactions"][0]["response"]["headers"].update(date=["soon"]),
    )
    out = tmp_path / "out"
    assert import_cassettes(folder, "--out", out).exit_code == 0
    (twice,) = FixtureStore.open(store_of(out, "anthropic/twice.yaml"))
    assert twice.meta is not None and twice.meta["recorded_at"] == "2024-07-02T10:00:00Z"
    (plain,) = FixtureStore.open(store_of(out, "openai/plain.yaml"))
    assert plain.meta is not None and plain.meta["recorded_at"] >= began  # no date read
    monkeypatch.chdir(tmp_path)  # no tests folder to search, no hits log to read
    patrolled = CliRunner().invoke(main, ["patrol", str(out), "--max-age", "90d", "--json"])
    stale = {
        Path(row["fixture"]).stem: row["stale"] for row in json.loads(patrolled.output)["fixtures"]
    }
    assert stale == {"twice": True, "plain": False}


def test_the_note_names_the_cassette_by_its_path_under_the_folder_given(
    recorded: tuple[Path, dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the note held the path as given: a long absolute one (under pytest's tmp folder) was
    # refused as a high-entropy token, and a store's bytes hung on how DIR was named
    # (both imports in one second: meta.recorded_at is the time of the import)
    monkeypatch.setattr(fixture_module, "now_iso", lambda: "2026-01-02T03:04:05Z")
    folder = tmp_path / "pytest-of-root" / "pytest-67" / "popen-gw0" / "test_x0"
    cassette = folder / "test_chat" / "TestChat.test_says_hi[x=1,y+2].yaml"
    cassette.parent.mkdir(parents=True)
    shutil.copy(recorded[0] / "openai/plain.yaml", cassette)
    store = Path("test_chat", "TestChat.test_says_hi[x=1,y+2].jsonl")
    absolute = import_cassettes(folder, "--out", tmp_path / "a")
    assert absolute.exit_code == 0, absolute.output
    monkeypatch.chdir(folder.parent)
    relative = import_cassettes("test_x0", "--out", tmp_path / "b")
    assert relative.exit_code == 0, relative.output
    assert (tmp_path / "a" / store).read_bytes() == (tmp_path / "b" / store).read_bytes()
    (fixture,) = FixtureStore.open(tmp_path / "a" / store)
    assert fixture.meta is not None
    assert fixture.meta["note"] == f"imported from vcrpy cassette {cassette.relative_to(folder)}"
    assert fixture.meta["recorded_at"] == "2026-01-02T03:04:05Z"
    alone = import_cassettes(cassette, "--out", tmp_path / "c")
    assert alone.exit_code == 0, alone.output
    (fixture,) = FixtureStore.open(tmp_path / "c" / store.name)
    assert fixture.meta is not None
    assert fixture.meta["note"] == f"imported from vcrpy cassette {cassette.name}"


def test_the_note_names_a_cassette_in_a_folder_with_a_slash_on_every_system() -> None:
    # imported on Windows, the note said test_chat\\x.yaml: the store's bytes were not
    # those of an import on Linux, where importing it again was refused as another's
    from replaygate.migrate.importing import _note_name

    named = PureWindowsPath("test_chat", "TestChat.test_says_hi.yaml")
    assert _note_name(named) == "test_chat/TestChat.test_says_hi.yaml"


def test_a_cassette_whose_name_is_not_utf8_is_imported_and_named_by_its_bytes(
    recorded: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    # the note held the name as Python holds it (caf\udce9), which no store can write:
    # the cassette was refused, blaming its request ("at meta.note")
    folder = tmp_path / "cassettes"
    folder.mkdir()
    cassette = folder / os.fsdecode(b"caf\xe9.json")
    shutil.copy(recorded[0] / "openai/json_serializer.json", cassette)
    out = tmp_path / "out"
    result = import_cassettes(folder, "--out", out)
    assert result.exit_code == 0, result.output
    assert "1 cassette(s): 1 imported, 0 unchanged, 0 empty, 0 refused, 0 error" in result.output
    (fixture,) = FixtureStore.open(out / "caf_.jsonl")  # the plugin's name for the test
    assert fixture.meta is not None
    assert fixture.meta["note"] == "imported from vcrpy cassette caf\\xe9.json"
    again = import_cassettes(folder, "--out", out, "--json")
    assert again.exit_code == 0, again.output
    [entry] = json.loads(again.stdout_bytes)["cassettes"]
    assert os.fsencode(entry["cassette"]) == os.fsencode(cassette)
    assert entry["outcome"] == "unchanged"


@pytest.mark.slow  # a new interpreter, to see what importing the importer loads
def test_the_importer_names_stores_without_loading_pytest(
    fresh_interpreter: tuple[str, Path, list[tuple[int, str, str]]],
) -> None:
    # the plugin's name rule is shared with the importer, which runs outside pytest
    assert fresh_interpreter[0] == "False"


@pytest.mark.slow
def test_a_migrated_test_replays_its_imported_store_through_the_plugin(
    recorded: tuple[Path, dict[str, Any]], pytester: pytest.Pytester
) -> None:
    cassettes = pytester.path / "tests" / "cassettes" / "test_chat"
    cassettes.mkdir(parents=True)
    # as pytest-recording names them: a parametrized id with a space, a test of a class
    for name in ("test_answer.yaml", "test_asked[hello world].yaml", "TestChat.test_answer.yaml"):
        shutil.copy(recorded[0] / "openai/plain.yaml", cassettes / name)
    assert import_cassettes("tests/cassettes").exit_code == 0  # into tests/fixtures
    test = f"""
        import pytest

        def test_answer(openai_client):
            reply = openai_client().chat.completions.create(model={GPT!r}, messages={QUESTION!r})
            assert reply.choices[0].message.content == "Unpinned model versions."

        @pytest.mark.parametrize("who", ["hello world"])
        def test_asked(openai_client, who):
            test_answer(openai_client)

        class TestChat:
            def test_answer(self, openai_client):
                test_answer(openai_client)
    """
    pytester.makepyfile(**{"tests/test_chat": test})
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=3)


IN_TURN = """\
import contextlib, io, json, sys
{setup}
from replaygate.cli import main
said = []
for args in {runs!r}:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(args, prog_name="replaygate")
            code = 0
        except SystemExit as done:
            code = done.code
    said.append([code, out.getvalue(), err.getvalue()])
print(json.dumps(said))
"""
"""``replaygate ARGS`` for each ARGS of ``runs`` in turn, in one interpreter, after the
Python ``setup``: the exit status, stdout and stderr of each, as JSON."""


def in_turn(
    runs: list[list[str]], setup: str = "", before: tuple[str, ...] = ()
) -> list[tuple[int, str, str]]:
    """:data:`IN_TURN` in a fresh interpreter (started by the command ``before`` it)."""
    return in_turn_after(runs, setup, before)[1]


def in_turn_after(
    runs: list[list[str]], setup: str = "", before: tuple[str, ...] = ()
) -> tuple[list[str], list[tuple[int, str, str]]]:
    """:func:`in_turn`, with the lines ``setup`` printed before the runs."""
    code = IN_TURN.format(setup=setup, runs=runs)
    done = subprocess.run(
        [*before, sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    *printed, said = done.stdout.splitlines()
    return printed, [tuple(run) for run in json.loads(said)]


@pytest.fixture(scope="module")
def fresh_interpreter(
    recorded: tuple[Path, dict[str, Any]], tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, Path, list[tuple[int, str, str]]]:
    """One new interpreter for the checks that need one: whether importing the importer
    first thing loaded pytest ("True" or "False"), then the import of a folder of two
    cassettes one of whose folders cannot be listed (a folder holding ``cassettes`` and
    ``out``), as text and as JSON (none where the tests run as root without setpriv).
    As root it runs without root's capability to pass over the folder's permissions."""
    tmp_path = tmp_path_factory.mktemp("unlistable")
    folder = cassettes_copy(recorded, tmp_path, "openai/plain.yaml", "anthropic/plain.yaml")
    hidden = folder / "anthropic"
    hidden.chmod(0)
    caps = "-dac_override,-dac_read_search"  # root's capability to pass over permissions
    drop = () if os.geteuid() else ("setpriv", f"--inh-caps={caps}", f"--bounding-set={caps}")
    args = ["import-cassettes", str(folder), "--out", str(tmp_path / "out")]
    runs = [args, [*args, "--json"]] if not drop or shutil.which("setpriv") else []
    try:
        loaded = "import replaygate.cli.import_cmd\nprint('pytest' in sys.modules)"
        printed, said = in_turn_after(runs, loaded, before=drop if runs else ())
    finally:
        hidden.chmod(0o755)
    return printed[-1], tmp_path, said


ONLY_DECLARED = f"sys.path.insert(0, {str(HERE)!r})\nimport only_declared\nonly_declared.install()"
"""The imports of a plain ``pip install replaygate`` (tests/only_declared.py)."""


@pytest.mark.slow  # an interpreter of its own, with only the declared dependencies
def test_yaml_needs_the_cassettes_extra_and_json_does_not(
    recorded: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    cassettes = [recorded[0] / "openai/plain.yaml", recorded[0] / "openai/json_serializer.json"]
    runs = [["import-cassettes", str(cassette), "--out", str(tmp_path)] for cassette in cassettes]
    (yaml_status, yaml_out, yaml_err), (json_status, json_out, json_err) = in_turn(
        runs, ONLY_DECLARED
    )
    yaml_said, json_said = yaml_out + yaml_err, json_out + json_err
    assert yaml_status == 2, yaml_said
    assert f"Error: reading the YAML cassettes ({cassettes[0]})" in yaml_err
    assert "pip install 'replaygate[cassettes]'" in yaml_err
    assert "Traceback" not in yaml_said
    assert json_status == 0, json_said
    assert (tmp_path / "json_serializer.jsonl").exists()


@pytest.mark.parametrize("target", ["nowhere/x", os.devnull], ids=["dangling", "devnull"])
def test_a_store_whose_lock_is_a_symlink_is_an_error_naming_the_lock(
    recorded: tuple[Path, dict[str, Any]], tmp_path: Path, target: str
) -> None:
    folder = cassettes_copy(recorded, tmp_path, "openai/plain.yaml")
    store = store_of(tmp_path / "out", "openai/plain.yaml")
    lock = store.with_name(store.name + ".lock")
    lock.parent.mkdir(parents=True)
    lock.symlink_to(target)
    result = import_cassettes(folder, "--out", tmp_path / "out")
    assert result.exit_code == 2, result.output
    assert f"ERROR (nothing written): {folder / 'openai/plain.yaml'}: {store}: " in result.output
    assert f"its lock {lock} is a symlink to {target!r}" in result.output
    assert "symbolic links" not in result.output and "Traceback" not in result.output
    assert not store.exists() and lock.is_symlink()


@pytest.mark.parametrize("name", ["anthropic/twice.yaml", "openai/json_serializer.json"])
def test_a_status_of_more_digits_than_python_reads_is_named_as_a_bad_status(
    recorded: tuple[Path, dict[str, Any]], tmp_path: Path, name: str
) -> None:
    # YAML ended in a traceback, JSON in "not valid JSON: Exceeds the limit (4300 digits)
    # for integer string conversion ...; use sys.set_int_max_str_digits()"
    folder = cassettes_copy(recorded, tmp_path, name)
    text = (folder / name).read_text()
    marker = "code: 200" if name.endswith(".yaml") else '"code": 200'
    assert marker in text
    (folder / name).write_text(text.replace(marker, marker.replace("200", "1" + "0" * 5000), 1))
    result = import_cassettes(folder / name, "--out", tmp_path / "out")
    assert result.exit_code == 2, result.output
    assert (
        f"{folder / name}: interaction 0: response.status.code: expected an HTTP status, got an "
        "integer of 5,001 digits (too long to read)"
    ) in result.output
    assert "set_int_max_str_digits" not in result.output


def test_the_default_out_is_the_project_s_tests_fixtures_from_any_folder_in_it(
    recorded: tuple[Path, dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # run from the project's tests/ folder, the stores went to tests/tests/fixtures,
    # where no pytest run of the project looks
    project = tmp_path / "project"
    (project / "tests").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    cassettes = cassettes_copy(recorded, project / "tests", "anthropic/plain.yaml")
    monkeypatch.chdir(project / "tests")
    done = import_cassettes(cassettes.name)
    assert done.exit_code == 0, done.output
    assert store_of(project / "tests/fixtures", "anthropic/plain.yaml").is_file()
    assert "-> fixtures/anthropic/plain.jsonl" in done.output  # from the folder it ran in
    assert not (project / "tests/tests").exists()
