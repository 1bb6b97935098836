"""What a replay miss and its neighbours say, through the SDK, the CLI and the plugin.

Each says what happened and names a command that does what it says: a fixture whose
request was edited by hand (its key left as it was) is named as such, not as the
"nearest" of a key the message says is not there; ``replaygate eval`` over a store never
recorded says how to record it, as ``replaygate run`` does; and a request sent more often
than recorded, or a sample never recorded, says how to record from the simulator again
when its fixture came from there, as a miss does.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import asdict, replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import httpx2
import pytest
from click.testing import CliRunner

from loopback import Counted, Handler, serving
from nested_pytest import sessions_loading
from replaygate import ReplayModel
from replaygate.cli import main
from replaygate.errors import (
    FixtureFormatError,
    FixtureMismatchError,
    SecretInFixtureError,
    TelemetryRefusedError,
)
from replaygate.examples.research_copilot import SETTINGS, answer
from replaygate.fixtures.fixture import InterfaceVersionError
from replaygate.fixtures.mismatch import (
    FROM_SIMULATOR,
    IN_ADDRESS,
    IN_CARRIED_HISTORY,
    IN_CLOCK,
    IN_HISTORY_APART,
    IN_LINE_ORDER,
    IN_ORDER,
    IN_RANDOM_ID,
    IN_RUN_VALUES,
    IN_ZONE,
    RECORD_FIRST,
    SERVED_SIMULATOR,
    SIMULATOR_OPTIONS,
)
from replaygate.fixtures.store import FixtureStore
from replaygate.http import httpx2_client
from replaygate.http.envelope import request_envelope
from replaygate.http.side_request import HF_AGENT_HARNESSES, TOOL_SERVICE
from replaygate.http.token_fetch import METADATA_SERVER, TOKEN_FETCH, token_fetch
from replaygate.models.fakes import ScriptedModel
from replaygate.models.replay import RecordingModel
from replaygate.models.types import Message, ModelResponse
from replaygate.network import block_network
from replaygate.pytest_plugin.misses import (
    CREDENTIALS,
    NO_MODEL_API,
    STOP_SIDE_REQUESTS,
    UNSERVED,
    Miss,
    MissSummary,
    miss_of,
)
from replaygate.sanitize import RedactionRule, SanitizeConfig
from replaygate.sim import Simulator
from sdks import anthropic

# the modules the slow tests' pytest sessions import (the plugin's, the SDK), loaded once
# here where each session imported them anew
sessions_find_their_modules = sessions_loading(anthropic, slow_only=True)

ASKED = [{"role": "user", "content": "What is RAG?"}]
EDITED = [{"role": "user", "content": "What is RAG, really?"}]
AGENT = ["--agent", "replaygate.examples.research_copilot:copilot"]
SIM_NOTE = (
    'It was recorded from the simulator (meta.source "sim"), and that command records from '
    f"the live API: {SIMULATOR_OPTIONS}."
)
HTTP_HOW = (
    "to record from the simulator again, record inside intercept() given `live_origin=sim.url` "
    "of a `replaygate.sim.Simulator`, or send to its url as the client's base_url, or mark the "
    "test `@pytest.mark.replaygate` in place of its own block and give pytest "
    "`--replaygate-simulator=NAME` (NAME the behaviour it was recorded with: "
    "research-copilot, the default, echo or script:FILE)"
)
"""How an HTTP client factory's errors say to record from the simulator (as ``from_sim`` does)."""
HTTP_SIM_NOTE = SIM_NOTE.replace(SIMULATOR_OPTIONS, HTTP_HOW)


def ask(store: Path, messages: list[dict[str, Any]], mode: str = "replay", **kw: Any) -> Any:
    """Send ``messages`` through the anthropic SDK over ``store`` (``mode``; a recording
    one from ``base_url`` of ``kw``)."""
    base_url = kw.pop("base_url", None)
    http = httpx2_client(store, mode, approve_live=mode != "replay", **kw)
    with anthropic.Anthropic(
        api_key="test", base_url=base_url, http_client=http, max_retries=0
    ) as client:
        return client.messages.create(model="m", max_tokens=8, messages=messages)


@pytest.fixture(scope="module")
def from_sim(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of one message recorded from the echo simulator (meta.source "sim")."""
    store = tmp_path_factory.mktemp("sim") / "s.jsonl"
    with Simulator(behavior="echo") as sim:
        ask(store, ASKED, "record-missing", base_url=sim.url, source="sim")
    return store


def edited_copy(store: Path, to: Path) -> Path:
    """``store`` with its one request's question edited by hand, its key left as it was."""
    to.write_text(store.read_text().replace("What is RAG?", "What is RAG, really?"))
    return to


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_request_whose_fixture_was_edited_is_told_so(from_sim: Path, tmp_path: Path) -> None:
    # it said "key K not in s.jsonl", then "nearest recorded request: key K": the key it
    # had just said was not there
    store = edited_copy(from_sim, tmp_path / "s.jsonl")
    (fixture,) = FixtureStore.open(store)
    with block_network(), pytest.raises(FixtureMismatchError) as missed:
        ask(store, ASKED)
    lines = str(missed.value).splitlines()
    assert lines[0] == (
        f"no fixture recorded for this HTTP request (POST https://api.anthropic.com/v1/messages)"
        f": key {fixture.key} in {store} (1 fixture) is held by the fixture at {store}:1, but "
        "its request was edited after recording (its key no longer matches it), so it answers "
        "neither this HTTP request nor the edited one"
    )
    assert lines[1:3] == [
        "the fields that differ (stored != requested):",
        "  body.messages[0].content: 'What is RAG, really?' != 'What is RAG?'",
    ]
    assert lines[3].startswith("Revert the edit, or remove that fixture and re-record: ")
    assert lines[4:] == [HTTP_SIM_NOTE]
    assert "nearest" not in str(missed.value) and " not in " not in lines[0]
    assert missed.value.key == fixture.key
    assert missed.value.differences == (
        "body.messages[0].content: 'What is RAG, really?' != 'What is RAG?'",
    )
    # the edited request itself is refused as its first serve says, and what that says works
    with block_network(), pytest.raises(FixtureFormatError) as served:
        ask(store, EDITED)
    assert "the request or its key was edited after recording. Revert the edit, or record it " in (
        str(served.value)
    )
    assert "mode rerecord, which replaces it" in str(served.value)
    with Simulator(behavior="echo") as sim:
        with pytest.raises(FixtureFormatError, match="edited after recording"):
            ask(store, EDITED, "record-missing", base_url=sim.url)  # "stops here too"
        ask(store, EDITED, "rerecord", base_url=sim.url)
    (replaced,) = FixtureStore.open(store)
    assert replaced.request["body"]["messages"] == EDITED
    with block_network():
        assert ask(store, EDITED).content[0].text == "echo: What is RAG, really?"


def test_a_fixture_whose_key_alone_was_edited_is_not_said_to_have_an_edited_request(
    from_sim: Path, tmp_path: Path
) -> None:
    # it said "the request was edited after recording", the request being as recorded
    store = tmp_path / "s.jsonl"
    line = json.loads(from_sim.read_text())
    line["key"] = ("0" if line["key"][0] != "0" else "1") + line["key"][1:]
    store.write_text(json.dumps(line) + "\n")
    with block_network(), pytest.raises(FixtureFormatError) as served:
        ask(store, ASKED)
    assert f"{store}:1: key {line['key']} does not match its request (expected " in str(
        served.value
    )
    assert "the request or its key was edited after recording. Revert the edit" in str(served.value)
    verified = CliRunner().invoke(main, ["verify", str(store)])
    assert "the request or its key was edited after recording: revert the edit" in (verified.output)


def test_an_edit_of_the_api_version_alone_is_told_as_an_edit(
    from_sim: Path, tmp_path: Path
) -> None:
    # it said the client speaks another API version than the one recorded
    store = tmp_path / "s.jsonl"
    line = json.loads(from_sim.read_text())
    line["request"]["headers"]["anthropic-version"] = "2023-01-01"
    store.write_text(json.dumps(line) + "\n")
    with block_network(), pytest.raises(FixtureMismatchError) as missed:
        ask(store, ASKED)
    assert "its request was edited after recording" in str(missed.value)
    assert "speaks another API version" not in str(missed.value)


def test_a_miss_of_a_fixture_not_edited_still_names_the_nearest(from_sim: Path) -> None:
    with block_network(), pytest.raises(FixtureMismatchError) as missed:
        ask(from_sim, EDITED)
    text = str(missed.value)
    assert " not in " in text.splitlines()[0] and "nearest recorded request: key" in text
    assert "edited after recording" not in text
    assert text.splitlines()[-1] == FROM_SIMULATOR.format(how=HTTP_HOW)
    assert missed.value.kind == "changed" and missed.value.differences
    assert missed.value.record_mode == "record-missing"


def test_a_miss_sent_to_a_loopback_simulator_says_to_serve_it_there(from_sim: Path) -> None:
    # a client whose base URL names a `replaygate sim serve` (LlamaIndex's api_base) was told
    # the command records from the live API and to add --replaygate-simulator, which sends
    # a loopback request as addressed all the same
    with block_network(), pytest.raises(FixtureMismatchError) as missed:
        ask(from_sim, EDITED, base_url="http://127.0.0.1:8765")
    text = str(missed.value)
    assert text.splitlines()[-1] == SERVED_SIMULATOR.format(
        which="The nearest", origin="http://127.0.0.1:8765", port=" --port 8765"
    )
    assert "live API" not in text and "--replaygate-simulator" not in text


def test_one_send_more_than_recorded_from_the_simulator_says_how_to_record_from_it(
    from_sim: Path,
) -> None:
    # it named only the re-record command, which records from the live API
    http = httpx2_client(from_sim)
    with (
        block_network(),
        anthropic.Anthropic(api_key="t", http_client=http, max_retries=0) as client,
    ):
        client.messages.create(model="m", max_tokens=8, messages=ASKED)
        with pytest.raises(FixtureMismatchError) as missed:
            client.messages.create(model="m", max_tokens=8, messages=ASKED)
    text = str(missed.value)
    assert "recorded 1 time and sent 2 times in this session" in text
    # the end-of-run list named record-missing where this advice names rerecord
    assert (missed.value.kind, missed.value.record_mode) == ("sent-more", "rerecord")
    assert "opt in with repeat_last=True. " + HTTP_SIM_NOTE in text
    assert text.endswith(HTTP_SIM_NOTE)


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_one_send_more_than_recorded_live_says_nothing_of_the_simulator(tmp_path: Path) -> None:
    store = tmp_path / "live.jsonl"
    with Simulator(behavior="echo") as sim:
        ask(store, ASKED, "record-missing", base_url=sim.url, source="live")  # told live
    http = httpx2_client(store)
    with (
        block_network(),
        anthropic.Anthropic(api_key="t", http_client=http, max_retries=0) as client,
    ):
        client.messages.create(model="m", max_tokens=8, messages=ASKED)
        with pytest.raises(FixtureMismatchError) as missed:
            client.messages.create(model="m", max_tokens=8, messages=ASKED)
    assert "simulator" not in str(missed.value)


def test_a_prompt_sent_with_other_line_ends_or_a_bom_names_the_cause_and_its_fix(
    tmp_path: Path,
) -> None:
    # a prompt file read as bytes in a core.autocrlf checkout (Windows) sent CRLF where the
    # recording had LF: the miss said only "if the change was meant, re-record"
    store, question = tmp_path / "s.jsonl", [Message.user("What is RAG?")]
    settings = {"model": "m", "max_tokens": 8}
    live = ScriptedModel([ModelResponse(text="RAG.")])
    RecordingModel(
        live, store, approve_live=True, system="Be brief.\nCite.\n", **settings
    ).complete(question, [])
    replay = ReplayModel(store, system="Be brief.\r\nCite.\r\n", **settings)
    with pytest.raises(FixtureMismatchError) as missed:
        replay.complete(question, [])
    assert (
        "system differs only in line ends, sent with CRLF where the recording has LF: text "
        "read from a file of the project whose line ends git converts on checkout "
        "(core.autocrlf=true, as on Windows)"
    ) in str(missed.value)
    assert "`*.txt text eol=lf`" in str(missed.value)
    saved = ReplayModel(store, system="\ufeffBe brief.\nCite.\n", **settings)  # Notepad's
    with pytest.raises(FixtureMismatchError) as missed:
        saved.complete(question, [])
    assert (
        "system differs only by a byte order mark (U+FEFF) at the start of the text sent: "
        "an editor saving a file as 'UTF-8 with BOM'"
    ) in str(missed.value)
    dated = tmp_path / "dated.jsonl"  # CrewAI's inject_date=True, replayed a day later
    RecordingModel(
        ScriptedModel([ModelResponse(text="RAG.")]), dated, approve_live=True, **settings
    ).complete([Message.user("What is RAG?\nCurrent Date: 2026-12-06 21:11")], [])
    with pytest.raises(FixtureMismatchError) as missed:
        ReplayModel(dated, **settings).complete(
            [Message.user("What is RAG?\nCurrent Date: 2026-12-07 09:30")], []
        )
    assert (
        "messages[0].content[0].text differs only in a date or time: one the clock writes into "
        "a prompt (CrewAI's inject_date=True"
    ) in str(missed.value)
    # the run's list of misses says so too (Agno's add_datetime_to_context=True), rather
    # than only to record the test again, which misses again on the next run
    test = cast(pytest.Item, SimpleNamespace(stash=pytest.Stash(), function=None))
    listed = (miss_of(test, missed.value) or ("",))[0]
    assert listed.endswith(f" ({IN_CLOCK})")


@pytest.mark.parametrize(
    ("recorded", "sent", "told"),
    [
        ("2026-01-01T12:00:00.5", "2026-01-01T21:00:00.5", "9 h ahead"),  # UTC, then Tokyo
        ("2026-01-01 12:00:00", "2026-01-01 06:30:00", "5 h 30 min behind"),
        ("2026-01-01T12:00:00", "2026-01-01T12:00:07", None),  # a clock left running
        ("2026-01-01", "2026-01-02", None),  # a date alone: another day
    ],
)
def test_a_time_another_time_zone_wrote_names_the_zone(
    tmp_path: Path, recorded: str, sent: str, told: str | None
) -> None:
    # ADK's PreloadMemoryTool writes each memory's time in local time: with the clock fixed
    # by time-machine, a machine in another time zone sent other times, and the miss said to
    # fix the clock, which was fixed
    store, settings = tmp_path / "s.jsonl", {"model": "m", "max_tokens": 8}
    text = "Memories:\nTime: {}\nuser: My favourite city is Paris."
    RecordingModel(
        ScriptedModel([ModelResponse(text="Paris.")]), store, approve_live=True, **settings
    ).complete([Message.user(text.format(recorded))], [])
    with pytest.raises(FixtureMismatchError) as missed:
        ReplayModel(store, **settings).complete([Message.user(text.format(sent))], [])
    said = str(missed.value)
    zoned = f"differs only in a date and time, each sent {told} from the one recorded"
    assert (zoned in said) is (told is not None), said
    assert ("Fix the time zone in tests too" in said) is (told is not None)
    assert ("Fix the clock in tests" in said) is (told is None)
    test = cast(pytest.Item, SimpleNamespace(stash=pytest.Stash(), function=None))
    listed = (miss_of(test, missed.value) or ("",))[0]
    assert listed.endswith(f" ({IN_ZONE if told else IN_CLOCK})"), listed


def test_a_prompt_holding_a_path_of_another_checkout_names_the_cause(tmp_path: Path) -> None:
    # LlamaIndex's SimpleDirectoryReader writes each file's absolute file_path into the text
    # it embeds and shows the model: recorded in one checkout, replayed in CI's, the miss
    # said only "if the change was meant, re-record", which records it for that folder alone
    store, settings = tmp_path / "s.jsonl", {"model": "m", "max_tokens": 8}
    text = "file_path: {}/data/rag.txt\n\nRAG means retrieval-augmented generation."
    here = tmp_path / "work" / "proj"
    (here / "data").mkdir(parents=True)
    (here / "data" / "rag.txt").write_text("RAG means retrieval-augmented generation.")
    RecordingModel(
        ScriptedModel([ModelResponse(text="RAG.")]), store, approve_live=True, **settings
    ).complete([Message.user(text.format("/home/alice/proj"))], [])
    with pytest.raises(FixtureMismatchError) as missed:
        ReplayModel(store, **settings).complete([Message.user(text.format(here))], [])
    assert (
        "messages[0].content[0].text differs only in the folders of a file's absolute path: "
    ) in str(missed.value)
    for other in (
        "/home/alice/proj/data/faq.txt",  # another file
        "https://example.com/home/alice/proj/data",  # a URL's path
        "/home/bob/proj/data/rag.txt",  # a path of no file here: an API's, a changed prompt
        "/" + "x" * 5000 + "/data/rag.txt",  # too long a name for the file system: no error
    ):
        with pytest.raises(FixtureMismatchError) as missed:  # another file, or a URL's path
            ReplayModel(store, **settings).complete(
                [Message.user(text.replace("{}/data/rag.txt", other))], []
            )
        assert "absolute path" not in str(missed.value)


def test_a_prompt_holding_its_passages_in_another_order_names_the_cause(tmp_path: Path) -> None:
    # LlamaIndex's SimpleKeywordTableIndex ranks the nodes a keyword matches through a set:
    # its context lists them in another order under another PYTHONHASHSEED, and the miss
    # said only "if the change was meant, re-record", which misses again on the next run
    store, settings = tmp_path / "s.jsonl", {"model": "m", "max_tokens": 8}
    passages = ["RAG retrieves documents.", "Agents call tools.", "Embeddings map text."]

    def prompt(order: list[str]) -> list[Message]:
        return [Message.user("Context:\n" + "\n\n".join(order) + "\n---\nQuery: RAG?")]

    RecordingModel(
        ScriptedModel([ModelResponse(text="RAG.")]), store, approve_live=True, **settings
    ).complete(prompt(passages), [])
    with pytest.raises(FixtureMismatchError) as missed:
        ReplayModel(store, **settings).complete(prompt(passages[::-1]), [])
    assert "messages[0].content[0].text holds the lines recorded, in another order: " in str(
        missed.value
    )
    test = cast(pytest.Item, SimpleNamespace(stash=pytest.Stash(), function=None))
    assert (miss_of(test, missed.value) or ("",))[0].endswith(f" ({IN_LINE_ORDER})")
    with pytest.raises(FixtureMismatchError) as missed:  # a passage changed, not moved
        ReplayModel(store, **settings).complete(prompt([*passages[:2], "Embeddings."]), [])
    assert "in another order" not in str(missed.value)


def test_an_upload_sent_with_another_guessed_content_type_names_the_cause(tmp_path: Path) -> None:
    # a file given as a path is sent with the type the machine's MIME table guesses from its
    # name: recorded where /etc/mime.types knows .m4a, replayed on a slim container image,
    # the miss said only "if the change was meant, re-record", which no change explains
    store = tmp_path / "s.jsonl"

    def upload(client: httpx2.Client, kind: str) -> None:
        files = {"file": ("clip.m4a", b"\xff\xf1m4a", kind)}
        client.post("https://api.openai.com/v1/audio/transcriptions", files=files)

    answer = httpx2.MockTransport(lambda request: httpx2.Response(200, json={"text": "hi"}))
    with httpx2_client(store, "record-missing", approve_live=True, transport=answer) as client:
        upload(client, "audio/mp4")
    with (
        block_network(),
        httpx2_client(store) as client,
        pytest.raises(FixtureMismatchError) as missed,
    ):
        upload(client, "application/octet-stream")
    assert (
        "base64 (multipart file content-type) differs in the content type of an uploaded file, "
        "sent as 'application/octet-stream' where the recording has 'audio/mp4'"
    ) in str(missed.value)


def test_a_list_sent_in_another_order_names_the_cause(tmp_path: Path) -> None:
    # the openai SDK's file_batches.upload_and_poll lists its files in the order their
    # concurrent uploads end: most replays missed, told only "if the change was meant,
    # re-record", which records another order again
    store = tmp_path / "s.jsonl"
    url = "https://api.openai.com/v1/vector_stores/vs_1/file_batches"
    answer = httpx2.MockTransport(lambda request: httpx2.Response(200, json={"id": "vsfb_1"}))
    with httpx2_client(store, "record-missing", approve_live=True, transport=answer) as client:
        client.post(url, json={"file_ids": ["file-a", "file-b"]})
    notes = []
    for path in (url, "https://api.example.com/v1/merge"):
        with (
            block_network(),
            httpx2_client(store) as client,
            pytest.raises(FixtureMismatchError) as missed,
        ):
            client.post(path, json={"file_ids": ["file-b", "file-a"]})
        notes.append(str(missed.value).splitlines()[-1])
    assert notes[0].startswith(
        "body.file_ids holds the values recorded, in another order: the openai SDK's "
        "vector_stores.file_batches.upload_and_poll lists the files in the order their uploads end"
    )
    assert "a list built from a set (whose order of strings changes" in notes[1]
    assert notes[1].endswith("with a fixed hash seed (PYTHONHASHSEED=0).")  # Strands' Graph


def test_tool_results_handed_back_in_the_order_the_tools_ended_name_the_cause(
    tmp_path: Path,
) -> None:
    # Semantic Kernel runs a turn's function calls at once and adds each result to the
    # history as its tool ends: most replays sent them in another order, nested in an
    # Anthropic message's blocks, and the miss said only "if the change was meant, re-record"
    store = tmp_path / "s.jsonl"
    calls = {"role": "assistant", "tool_calls": [{"id": "call_a"}, {"id": "call_b"}]}
    chat = [{"role": "tool", "tool_call_id": c, "content": c} for c in ("call_a", "call_b")]
    blocks = [{"type": "tool_result", "tool_use_id": t, "content": t} for t in ("tu_a", "tu_b")]
    sent = {
        "https://api.openai.com/v1/chat/completions": lambda r: {"messages": [calls, *r]},
        "https://api.anthropic.com/v1/messages": lambda r: {
            "messages": [{"role": "user", "content": "Hi"}, {"role": "user", "content": r}]
        },
    }
    answer = httpx2.MockTransport(lambda request: httpx2.Response(200, json={"id": "x"}))
    with httpx2_client(store, "record-missing", approve_live=True, transport=answer) as client:
        for (url, body), results in zip(sent.items(), (chat, blocks), strict=True):
            client.post(url, json=body(results))
    notes = []
    for (url, body), results in zip(sent.items(), (chat, blocks), strict=True):
        with (
            block_network(),
            httpx2_client(store) as client,
            pytest.raises(FixtureMismatchError) as missed,
        ):
            client.post(url, json=body(results[::-1]))
        notes.append(next(n for n in str(missed.value).splitlines() if "another order" in n))
    assert notes[0].startswith("body.messages holds the values recorded, in another order: ")
    assert notes[1].startswith("body.messages[1].content holds the values recorded")
    assert all("in the order the tools ended" in note for note in notes)
    # the run's list of misses says so too, rather than only to record the test again
    test = cast(pytest.Item, SimpleNamespace(stash=pytest.Stash(), function=None))
    assert (miss_of(test, missed.value) or ("",))[0].endswith(f" ({IN_ORDER})")


def test_a_conversation_carried_over_from_an_earlier_run_names_the_cause(tmp_path: Path) -> None:
    # the OpenAI Agents SDK's SQLiteSession(session_id, "conversations.db") kept the
    # recording's turns: each replay sent them before its own first turn, and the miss said
    # only "if the change was meant, re-record", which records a history the next run outgrows
    store, url = tmp_path / "s.jsonl", "https://api.openai.com/v1/responses"
    hi, answer = {"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}
    again = {"role": "user", "content": "And again?"}
    replied = httpx2.MockTransport(lambda request: httpx2.Response(200, json={"id": "resp_1"}))
    with httpx2_client(store, "record-missing", approve_live=True, transport=replied) as client:
        client.post(url, json={"input": [hi]})
        client.post(url, json={"input": [hi, answer, again]})
    notes = []
    for sent in ([hi, answer, again, answer, hi], [hi, answer, again, answer, again]):
        with (
            block_network(),
            httpx2_client(store) as client,
            pytest.raises(FixtureMismatchError) as missed,
        ):
            client.post(url, json={"input": sent})
        notes.append(str(missed.value))
    assert (
        "body.input holds the whole conversation recorded and goes on to a turn that starts it "
        "over (body.input[4] repeats body.input[0]): a history kept from an earlier run"
    ) in notes[0]
    assert "SQLiteSession(session_id) keeps it in memory" in notes[0]
    assert "a LangGraph graph's SqliteSaver.from_conn_string('checkpoints.db')" in notes[0]
    assert "an Agno Agent's SqliteDb(db_file='agno.db'))" in notes[0]
    assert "starts it over" not in notes[1]  # a turn added to the conversation
    # the run's list of misses says so too, rather than only to record the test again
    test = cast(pytest.Item, SimpleNamespace(stash=pytest.Stash(), function=None))
    listed = (miss_of(test, missed.value) or ("",))[0]
    assert not listed.endswith(f" ({IN_CARRIED_HISTORY})")  # notes[1]: a turn added
    with (
        block_network(),
        httpx2_client(store) as client,
        pytest.raises(FixtureMismatchError) as missed,
    ):
        client.post(url, json={"input": [hi, answer, again, answer, hi]})
    listed = (miss_of(test, missed.value) or ("",))[0]
    assert listed == f"body.input[3], body.input[4] ({IN_CARRIED_HISTORY})"


CHAT = "https://api.openai.com/v1/chat/completions"


def _record_prompt(store: Path, content: str, *, role: str = "system") -> None:
    """Record into ``store`` a Chat Completions request of one message of ``content``,
    answered by a stand-in of the API."""
    replied = httpx2.MockTransport(lambda request: httpx2.Response(200, json={"id": "c"}))
    with httpx2_client(store, "record-missing", approve_live=True, transport=replied) as client:
        client.post(CHAT, json={"messages": [{"role": role, "content": content}]})


def _missed_prompt(store: Path, content: str, *, role: str = "system") -> FixtureMismatchError:
    """The miss of such a request of ``content``, replayed offline from ``store``."""
    with (
        block_network(),
        httpx2_client(store) as client,
        pytest.raises(FixtureMismatchError) as missed,
    ):
        client.post(CHAT, json={"messages": [{"role": role, "content": content}]})
    return missed.value


def test_a_prompt_holding_the_clock_and_a_random_id_names_the_cause(tmp_path: Path) -> None:
    # pydantic-ai's @agent.instructions returning f"Now is {datetime.now()}. Session
    # {uuid4()}.": neither the clock's note nor the random id's told it, each holding the
    # other's value, and the miss said only "if the change was meant, re-record"
    store = tmp_path / "s.jsonl"
    prompt = "Now is {}. Session {}."
    recorded = prompt.format("2026-12-07T15:16:24.877713", "f3b65323-3b39-44dc-b504-7214b9a1c0de")
    _record_prompt(store, recorded)
    sent = prompt.format("2026-12-07T15:16:27.315638", "f28b4d19-5f5b-4742-abd6-fea2104b22aa")
    missed = _missed_prompt(store, sent)
    assert (
        "body.messages[0].content differs only in values the code under test makes anew on "
        "each run and writes into a prompt, a random id and a date or time the clock writes, "
        "none of which alone makes the difference"
    ) in str(missed)
    assert "only in a random id" not in str(missed)
    test = cast(pytest.Item, SimpleNamespace(stash=pytest.Stash(), function=None))
    listed = (miss_of(test, missed) or ("",))[0]
    assert listed == f"body.messages[0].content ({IN_RUN_VALUES})"


def test_a_prompt_holding_a_random_id_names_the_cause(tmp_path: Path) -> None:
    # Agno's MemoryManager lists the user's memories in its prompt by their uuid4 ids, new
    # on each run: the miss said only "if the change was meant, re-record", which misses again
    store = tmp_path / "s.jsonl"
    prompt = "<existing_memories>\nID: {}\nMemory: {}\n</existing_memories>"
    _record_prompt(store, prompt.format("93c7bc2d-125d-46bb-bb2e-84f868364601", "Ann likes tea."))
    test = cast(pytest.Item, SimpleNamespace(stash=pytest.Stash(), function=None))
    listed = []
    for memory in ("Ann likes tea.", "Ann likes coffee."):
        missed = _missed_prompt(
            store, prompt.format("54eb72a5-4ba8-488c-a986-de7f1933190d", memory)
        )
        listed.append((str(missed), (miss_of(test, missed) or ("",))[0]))
    assert (
        "body.messages[0].content differs only in a random id (a UUID, or a name made from "
        "one, as Agno's 'elegant-euler-3f2a1b4c'): one the code under test makes anew on each "
        "run and writes into a prompt (the memory ids Agno's MemoryManager lists"
    ) in listed[0][0]
    assert listed[0][1] == f"body.messages[0].content ({IN_RANDOM_ID})"
    assert "random id" not in listed[1][0]  # the memory changed too
    assert listed[1][1] == "body.messages[0].content"
    # an Agno Team's members given no name: ids made from a uuid4, Docker's way
    team = '<member id="{}" name="None">\n  Role: Weather lookups\n</member>'
    _record_prompt(store, team.format("sound-celsius-ce6facf7"))
    missed = _missed_prompt(store, team.format("sound-einstein-5698f3a4"))
    assert (miss_of(test, missed) or ("",))[0] == f"body.messages[0].content ({IN_RANDOM_ID})"


def test_a_run_the_agents_sdk_did_not_group_says_a_trace_s_group_is_not_the_run_s(
    tmp_path: Path,
) -> None:
    # a run inside trace("wf", group_id=...) sends a prompt_cache_key of its own on every
    # run: told to group the run, its author answered that the trace grouped it
    store, url = tmp_path / "s.jsonl", "https://api.openai.com/v1/responses"
    replied = httpx2.MockTransport(lambda request: httpx2.Response(200, json={"id": "resp_1"}))
    with httpx2_client(store, "record-missing", approve_live=True, transport=replied) as client:
        client.post(url, json={"input": "Hi", "prompt_cache_key": f"agents-sdk:run:{'a' * 32}"})
    with (
        block_network(),
        httpx2_client(store) as client,
        pytest.raises(FixtureMismatchError) as missed,
    ):
        client.post(url, json={"input": "Hi", "prompt_cache_key": f"agents-sdk:run:{'b' * 32}"})
    assert (
        "`run_config=RunConfig(group_id=...)`, a session or a conversation, then record it "
        "(a trace(..., group_id=...) around the run groups its spans, not its requests)."
    ) in str(missed.value)


def test_a_store_asked_for_in_another_case_names_the_one_there(tmp_path: Path) -> None:
    # recorded as Rag.jsonl and asked for as rag.jsonl: one file on macOS and Windows,
    # while Linux said "there is no store at .../rag.jsonl: record it first"
    (tmp_path / "Rag.jsonl").touch()
    with pytest.raises(FixtureMismatchError) as missed:
        ReplayModel(tmp_path / "rag.jsonl", model="m", max_tokens=8).complete(
            [Message.user("What is RAG?")], []
        )
    assert (
        f"there is no store at {tmp_path / 'rag.jsonl'}, but there is {tmp_path / 'Rag.jsonl'}: "
        "their names differ in case only"
    ) in str(missed.value)
    assert "record it first" not in str(missed.value)


@pytest.mark.parametrize("there", [None, "an empty file"])
def test_a_miss_of_a_store_never_recorded_is_of_its_own_kind(
    tmp_path: Path, there: str | None
) -> None:
    store = tmp_path / "s.jsonl"
    if there is not None:
        store.touch()
    with block_network(), pytest.raises(FixtureMismatchError) as missed:
        ask(store, ASKED)
    assert missed.value.kind == "not-recorded" and "record it first" in str(missed.value)


@pytest.fixture
def one_case(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cases file of one case asked once, in the working folder ``tmp_path``."""
    monkeypatch.chdir(tmp_path)
    case = {
        "id": "rag",
        "question": "What is RAG?",
        "must_contain": ["RAG"],
        "samples": 1,
        "floor": 1,
    }
    cases = tmp_path / "cases.jsonl"
    cases.write_text(json.dumps(case) + "\n")
    return cases


@pytest.mark.parametrize("there", [None, "an empty file", "an empty folder"])
@pytest.mark.slow  # the eval runner's whole flow
def test_eval_over_a_store_never_recorded_says_how_to_record_it(
    one_case: Path, there: str | None
) -> None:
    # an empty store gave a miss: "If the change was meant, re-record..."; a missing one
    # named the recording flags only
    store = "ev" if there == "an empty folder" else "ev.jsonl"
    if there == "an empty file":
        Path(store).touch()
    elif there == "an empty folder":
        Path(store).mkdir()
    replay = ["eval", *AGENT, "--cases", "cases.jsonl", "--fixtures", store, "--no-history"]
    missed = CliRunner().invoke(main, replay)
    assert missed.exit_code == 2, missed.output
    error = missed.output[missed.output.index("Error: ") :]
    assert error.startswith(f"Error: no fixtures at {store}: record them first (`")
    assert error.endswith("or point --fixtures at a recorded store\n")  # that alone
    assert "`; add --simulator to record from the built-in simulator, with no key and no" in (
        missed.output
    )
    assert "If the change was meant" not in missed.output
    assert Path(store).exists() is (there is not None)  # left as it was
    command = error.split("(`", 1)[1].split("`", 1)[0]
    words = shlex.split(command)
    assert words[:5] == ["replaygate", "eval", "--record-mode", "record-missing", "--approve-live"]
    recorded = CliRunner().invoke(main, [*words[1:], "--simulator", "--no-history"])
    assert recorded.exit_code == 0, recorded.output
    replayed = CliRunner().invoke(main, replay)
    assert replayed.exit_code == 0, replayed.output


@pytest.mark.slow  # the eval runner's whole flow
def test_eval_of_a_sample_never_recorded_names_the_eval_command_and_the_simulator(
    one_case: Path,
) -> None:
    # it named `--record-mode=record-missing --approve-live` alone, and not the simulator
    run = ["eval", *AGENT, "--cases", "cases.jsonl", "--fixtures", "ev.jsonl", "--no-history"]
    recorded = CliRunner().invoke(
        main, [*run, "--record-mode", "record-missing", "--approve-live", "--simulator"]
    )
    assert recorded.exit_code == 0, recorded.output
    one_case.write_text(one_case.read_text().replace('"samples": 1', '"samples": 2'))
    missed = CliRunner().invoke(main, run)
    assert missed.exit_code == 2, missed.output
    text = " ".join(missed.output.split())
    assert "has no response for sample 1 (recorded samples: [0])" in text
    record = shlex.join(
        [
            "replaygate",
            "eval",
            "--record-mode",
            "record-missing",
            "--approve-live",
            *AGENT,
            "--cases",
            "cases.jsonl",
            "--fixtures",
            "ev.jsonl",
        ]
    )
    assert f"Record the samples again (`{record}`) or lower the sample count." in text
    assert " ".join(SIM_NOTE.split()) in text


SAMPLED = """
import pytest

from replaygate.assertions import contains_check


@pytest.mark.sampled(n={n}, floor=1)
@pytest.mark.replaygate(fixtures="once.jsonl")
def test_sampled(replaygate_sample, replaygate_checks, anthropic_client):
    answer = anthropic_client(max_retries=0).messages.create(
        model="m", max_tokens=8, messages=[{{"role": "user", "content": "again"}}]
    )
    replaygate_checks.evaluate(answer.content[0].text, contains_check(["again"], kind="gate"))
"""


@pytest.mark.native_tracebacks  # the sessions' failures, as Python prints them
@pytest.mark.slow  # runs pytest on a project of its own
def test_a_sample_missing_from_a_simulator_recording_says_how_to_record_from_it(
    pytester: pytest.Pytester,
) -> None:
    # it named the pytest command alone, which records from the live API
    pytester.makepyfile(test_sampled=SAMPLED.format(n=1))
    recorded = pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "--replaygate-record-mode=record-missing",
        "--replaygate-approve-live",
        "--replaygate-simulator=echo",
    )
    recorded.assert_outcomes(passed=1)
    # a test besides: a suite of one test, which no test comes before, is told no caveat
    pytester.makepyfile(test_sampled=SAMPLED.format(n=2) + "\n\ndef test_plain():\n    pass\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(
        [
            "*recorded 1 time and sent 2 times in this session*Record the missing samples "
            "(`pytest *--replaygate-record-mode=record-missing --replaygate-approve-live`)*"
            'sampled test). It was recorded from the simulator (meta.source "sim"), and that '
            "command records from the live API: add `--replaygate-simulator=NAME` (NAME the "
            "behaviour it was recorded with: research-copilot, the default, echo or "
            "script:FILE) to record from the simulator again*",
        ]
    )
    # the run's list of misses said 'no nearest request' and to revert the change
    result.stdout.fnmatch_lines(
        [
            "*replaygate: 1 test(s) missed their fixtures*",
            "test_sampled.py::test_sampled: a recorded request, sent more often than it has "
            "answers",
            "Record them all in one run: *--replaygate-record-mode=record-missing*",
            # it named no script's caveat: `--lf` with a script recorded other tests' lines
            "Some were recorded from the simulator: add `--replaygate-simulator=NAME` *(with "
            "script:FILE, run every test it answers, with no --lf and no test named: *",
        ]
    )


OWN_MODEL = """
from replaygate.fakes import ScriptedModel
from replaygate.models.replay import RecordingModel, ReplayModel
from replaygate.models.types import Message, ModelResponse

ASKED = [Message(role="user", content="hi")]
SETTINGS = {"model": "m", "max_tokens": 8}


def test_own(tmp_path):
    store = tmp_path / "own.jsonl"
    for sample in range(RECORDED):  # recorded by the test, samples 0 to RECORDED - 1
        live = ScriptedModel([ModelResponse(text=f"answer {sample}")])
        RecordingModel(
            live, store, approve_live=True, source="scripted", sample=sample, **SETTINGS
        ).complete(ASKED, [])
    ReplayModel(store, sample=RECORDED, **SETTINGS).complete(ASKED, [])
"""


@pytest.mark.native_tracebacks  # the sessions' failures, as Python prints them
@pytest.mark.slow  # runs pytest on a project of its own
@pytest.mark.parametrize(
    ("recorded", "missed"),
    [
        (0, "not recorded yet (no store, or an empty one)"),
        (2, "a recorded request, sent more often than it has answers"),
    ],
)
def test_the_list_of_misses_says_its_command_reaches_a_model_a_test_builds_only_as_recording(
    pytester: pytest.Pytester, recorded: int, missed: str
) -> None:
    # it named pytest's record mode alone, which records nothing for a ReplayModel; a
    # sample the store has no answer for was 'no nearest request', to be reverted
    pytester.makepyfile(test_own=f"RECORDED = {recorded}\n" + OWN_MODEL)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*replaygate: 1 test(s) missed their fixtures*",
            f"test_own.py::test_own: {missed} (through a model the test builds)",
            "Record them all in one run: *",
            "The command records the tests marked (through a model the test builds) only "
            "where such a test builds a RecordingModel with `mode=replaygate_mode`*",
        ]
    )


OWN_BLOCK = """
import unittest

import httpx2

from replaygate.http import intercept


class Agent(unittest.TestCase):
    def setUp(self):
        self.enterContext(intercept("own.jsonl"))

    def test_own(self):
        httpx2.post("https://api.anthropic.com/v1/messages", json={"model": "m"})
"""


@pytest.mark.native_tracebacks  # the sessions' failures, as Python prints them
@pytest.mark.slow  # runs pytest on a project of its own
def test_the_list_of_misses_says_its_command_reaches_a_block_a_test_enters_only_as_recording(
    pytester: pytest.Pytester,
) -> None:
    # a unittest case replaying through its own intercept() was listed with pytest's
    # record mode as the command recording it, which leaves such a block replaying
    pytester.makepyfile(test_own=OWN_BLOCK)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*replaygate: 1 test(s) missed their fixtures*",
            "test_own.py::Agent::test_own: not recorded yet (no store, or an empty one) "
            "(through an intercept() or client the test builds)",
            "Record them all in one run: *",
            "The command records the tests marked (through an intercept() or client the test "
            "builds) only where such a test gives its intercept() or client factory "
            "`mode=replaygate_mode, approve_live=True`, and from the live API*Or mark the "
            "test `@pytest.mark.replaygate`*",
        ]
    )


def test_a_fixture_answering_nothing_says_how_to_record_from_the_simulator(
    from_sim: Path, tmp_path: Path
) -> None:
    # "re-record it (...)" named a live recording alone
    store = tmp_path / "s.jsonl"
    line = json.loads(from_sim.read_text())
    line["response"] = None  # a hand edit
    store.write_text(json.dumps(line) + "\n")
    with block_network(), pytest.raises(FixtureMismatchError) as missed:
        ask(store, ASKED)
    assert "holds no response at all (its response is null: edited by hand?)" in str(missed.value)
    assert (missed.value.kind, missed.value.record_mode) == ("other", "rerecord")
    assert str(missed.value).endswith(f"names its line. {HTTP_SIM_NOTE}")
    # the run's list of misses said 'no nearest request' of it, and to revert the change
    test = cast(pytest.Item, SimpleNamespace(stash=pytest.Stash(), function=None))
    fields, mode, _, _, changed, _ = miss_of(test, missed.value) or ("", "", *[False] * 4)
    assert (fields, mode, changed) == (UNSERVED, "rerecord", False)


def test_another_api_version_than_a_simulator_recording_says_how_to_record_from_it(
    from_sim: Path,
) -> None:
    http = httpx2_client(from_sim)
    with (
        block_network(),
        anthropic.Anthropic(
            api_key="t",
            http_client=http,
            max_retries=0,
            default_headers={"anthropic-version": "2023-01-01"},
        ) as client,
        pytest.raises(FixtureMismatchError) as missed,
    ):
        client.messages.create(model="m", max_tokens=8, messages=ASKED)
    text = str(missed.value)
    version = json.loads(from_sim.read_text())["request"]["headers"]["anthropic-version"]
    assert "requested 2023-01-01: the client speaks another API version" in text
    # it said to pin the client, not how: an SDK upgrade changed the version it sends
    pinned = {"anthropic-version": version}
    assert text.endswith(
        f"or pin the client to anthropic-version {version} (default_headers={pinned!r} "
        f"where the SDK client is built). {HTTP_SIM_NOTE}"
    )
    with (
        block_network(),
        anthropic.Anthropic(
            api_key="t", http_client=httpx2_client(from_sim), max_retries=0, default_headers=pinned
        ) as client,
    ):
        assert client.messages.create(model="m", max_tokens=8, messages=ASKED).content


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_model_replaying_another_version_than_recorded_from_the_simulator_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    record = ["record", *AGENT, "--fixtures", "rc.jsonl", "--approve-live", "--simulator", "Hi"]
    assert CliRunner().invoke(main, record).exit_code == 0
    settings = replace(SETTINGS, interface_version="2023-01-01")
    model = ReplayModel("rc.jsonl", **asdict(settings))
    with pytest.raises(InterfaceVersionError) as refused:
        answer(model, "Hi")
    assert "this run asks for anthropic.messages version 2023-01-01" in str(refused.value)
    assert str(refused.value).endswith(SIM_NOTE)


@pytest.mark.slow  # the eval runner's whole flow
def test_run_and_eval_name_their_own_command_to_record_a_fixture_anew(
    one_case: Path,
) -> None:
    # they said "re-record it (--record-mode=rerecord --approve-live)": no option of
    # `replaygate record`, and half of the `replaygate eval` command
    inputs = [*AGENT, "--fixtures", "rc.jsonl"]
    recorded = CliRunner().invoke(
        main, ["record", *inputs, "--approve-live", "--simulator", "What is RAG?"]
    )
    assert recorded.exit_code == 0, recorded.output
    store = Path("rc.jsonl")
    lines = store.read_text().splitlines()
    fixture = json.loads(lines[0])
    fixture["response"] = None  # a hand edit
    broken = "\n".join([json.dumps(fixture), *lines[1:]]) + "\n"
    cases = ["--cases", "cases.jsonl"]
    for replay, anew, more in [
        (
            ["run", *inputs, "What is RAG?"],
            ["record", *inputs, "--mode", "rerecord", "--approve-live", "What is RAG?"],
            [],
        ),
        (
            ["eval", *AGENT, *cases, "--fixtures", "rc.jsonl", "--no-history"],
            ["eval", "--record-mode", "rerecord", "--approve-live", *AGENT, *cases, *inputs[2:]],
            ["--no-history"],
        ),
    ]:
        store.write_text(broken)
        failed = CliRunner().invoke(main, replay)
        assert failed.exit_code != 0
        said = " ".join(failed.output.split())
        assert "holds no response at all" in said, said
        assert f"re-record it (`{shlex.join(['replaygate', *anew])}`)" in said
        assert " ".join(SIM_NOTE.split()) in said
        assert CliRunner().invoke(main, [*anew, "--simulator", *more]).exit_code == 0
        replayed = CliRunner().invoke(main, replay)
        assert replayed.exit_code == 0, replayed.output


SIDE_FETCHES = [
    (
        "https://raw.githubusercontent.com/BerriAI/litellm/main/prices.json",
        "LiteLLM: LITELLM_OFFLINE_MODE=true, and LITELLM_LOCAL_MODEL_COST_MAP=True for releases "
        "that do not read it; ",
    ),
    (
        "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
        "tiktoken: fill TIKTOKEN_CACHE_DIR beforehand; ",
    ),
    ("https://eu.api.smith.langchain.com/info", "LangSmith: LANGSMITH_TRACING=false; "),
    ("https://telemetry.example.com/v1/events", ""),
    (  # the Agents SDK's exporter, uploading the spans of a replayed run during a test
        "https://api.openai.com/v1/traces/ingest",
        "the OpenAI Agents SDK's tracing: set_tracing_disabled(True) or "
        "OPENAI_AGENTS_DISABLE_TRACING=1; ",
    ),
    (  # Haystack's telemetry, sent through PostHog's client
        "https://eu.i.posthog.com/batch/",
        "PostHog analytics (Haystack's telemetry: HAYSTACK_TELEMETRY_ENABLED=False; DeepEval's: "
        "DEEPEVAL_TELEMETRY_OPT_OUT=1); ",
    ),
    (  # ragas's usage tracking, posted as an evaluation ends (its evaluate(), a metric's score)
        "https://t.explodinggradients.com/",
        "ragas's usage tracking: RAGAS_DO_NOT_TRACK=true; ",
    ),
    (  # Agno's telemetry, posted from a thread of its own after each run
        "https://os-api.agno.com/telemetry/runs",
        "Agno's telemetry: AGNO_TELEMETRY=false; ",
    ),
    (  # Logfire's spans, exported during a test by its batch processor's thread
        "https://logfire-us.pydantic.dev/v1/traces",
        "Logfire: send_to_logfire=False in logfire.configure() (LOGFIRE_SEND_TO_LOGFIRE=false "
        "where it is not given one), and --no-logfire for its pytest plugin, on in CI when "
        "LOGFIRE_TOKEN is set; ",
    ),
    (  # Langfuse's spans, exported through an OpenTelemetry exporter of its own
        "https://cloud.langfuse.com/api/public/otel/v1/traces",
        "Langfuse: LANGFUSE_TRACING_ENABLED=false; ",
    ),
    ("https://trace.wandb.ai/server_info", "W&B Weave: WEAVE_DISABLED=true; "),
    (  # CrewAI's telemetry, exported during a test by its span processor's thread
        "https://telemetry.crewai.com:4319/v1/traces",
        "CrewAI's telemetry: CREWAI_DISABLE_TELEMETRY=true (its traces to app.crewai.com: "
        "tracing=False on the Crew or Flow); ",
    ),
    ("https://api.wandb.ai/graphql", ""),  # wandb's own API: no switch of Weave's stops it
    (  # huggingface_hub's agent harnesses, fetched for smolagents' InferenceClientModel
        "https://huggingface.co/api/agent-harnesses",
        f"{HF_AGENT_HARNESSES}; ",
    ),
    ("https://huggingface.co/api/models/gpt2", ""),  # the Hub's API, which a tool may call
    (  # Langfuse's spans to a Langfuse the team runs itself (LANGFUSE_HOST): its switch
        "http://127.0.0.1:3000/api/public/otel/v1/traces",
        "Langfuse: LANGFUSE_TRACING_ENABLED=false; ",
    ),
    (  # an OTLP exporter's spans to a collector of the application's, here a local one
        "http://127.0.0.1:4318/v1/traces",
        "an OpenTelemetry exporter (Semantic Kernel's spans, say): OTEL_SDK_DISABLED=true; ",
    ),
]


@pytest.mark.parametrize(("side", "remedy"), SIDE_FETCHES)
def test_a_miss_of_a_request_to_no_model_api_says_to_stop_it_at_its_source(
    tmp_path: Path, counted: str, side: str, remedy: str
) -> None:
    # LiteLLM's fetch of its price file missed with a re-record hint and the diff of an
    # unrelated model call: nothing said it was the framework's own request; tiktoken's
    # download of its encoding (ChatOpenAI.get_num_tokens) and LangSmith's tracing were
    # told LiteLLM's remedy; the Agents SDK's upload of its traces to api.openai.com was
    # told as a changed model call, with the command that would record it; and each was
    # told to re-record it before being told not to record it
    store = tmp_path / "s.jsonl"
    with httpx2_client(store, mode="record-missing", approve_live=True) as client:
        client.post(counted, content=b'{"model":"m"}', headers={"anthropic-version": "1"})
    with block_network(), httpx2_client(store) as client:
        with pytest.raises(FixtureMismatchError) as fetched:
            client.get(side)
        with pytest.raises(FixtureMismatchError) as model_call:
            client.post(counted, content=b'{"model":"n"}', headers={"anthropic-version": "1"})
    assert str(fetched.value).startswith(f"no fixture recorded for this HTTP request (GET {side})")
    assert "re-record" not in str(fetched.value)  # the opposite of stopping it
    # a host no known library sends to may be a tool's own service (a weather API the
    # agent's tool calls), whose call was told only to be stopped at its source
    assert str(fetched.value).endswith(
        "\nThis request is to no model API: if the code under test sends it of its own (a "
        "framework fetching a price or tokenizer file, telemetry), stop it at its source "
        f"rather than record it ({remedy}see docs/frameworks.md).{'' if remedy else TOOL_SERVICE}"
    )
    assert "no model API" not in str(model_call.value)


@pytest.mark.parametrize("path", ["/v1/traces", "/collector/v1/metrics"])
def test_a_recording_refuses_a_tracing_exporters_upload_unsent_and_unwritten(
    tmp_path: Path, counted: str, path: str
) -> None:
    # an OTLP exporter's spans to a collector on loopback (its default, localhost:4318)
    # were sent as addressed and recorded, the run green: every replay missed them, their
    # trace ids new at each run; with no collector there, the failed send was told as a
    # local model server's (Ollama, vLLM) to start
    store = tmp_path / "s.jsonl"
    collector = counted.removesuffix("/v1/messages") + path
    with httpx2_client(store, mode="record-missing", approve_live=True) as client:
        with pytest.raises(TelemetryRefusedError) as refused:
            client.post(collector, content=b"\n\x05spans")
        client.post(counted, content=b'{"model":"m"}', headers={"anthropic-version": "1"})
    assert Counted.received == [13]  # the model call alone was sent
    assert [json.loads(line)["request"]["path"] for line in store.read_text().splitlines()] == [
        "/v1/messages"
    ]
    said = str(refused.value)
    assert said.startswith(f"refusing to record POST {collector}: a request to a tracing")
    assert "nothing was sent and nothing was written" in said
    assert "OTEL_SDK_DISABLED=true" in said


def test_a_recording_keeps_a_get_of_an_otlp_like_path(tmp_path: Path, counted: str) -> None:
    # only a POST is an exporter's upload: a tool reading an API's logs (GET /v1/logs) is
    # recorded as any request it sends
    store = tmp_path / "s.jsonl"
    logs = counted.removesuffix("/v1/messages") + "/v1/logs"
    with (
        httpx2_client(store, mode="record-missing", approve_live=True) as client,
        pytest.raises(httpx2.HTTPStatusError),  # Counted answers a POST alone
    ):
        client.get(logs).raise_for_status()
    assert [json.loads(line)["request"]["path"] for line in store.read_text().splitlines()] == [
        "/v1/logs"
    ]


def test_a_recording_refuses_langsmiths_upload_of_runs(tmp_path: Path) -> None:
    # LangSmith's runs (LANGSMITH_TRACING=true), sent by its client through requests, were
    # recorded from the live API, their run ids new at each run: every replay missed them
    store = tmp_path / "s.jsonl"
    runs = "https://eu.api.smith.langchain.com/runs/multipart"
    with (
        block_network(),
        httpx2_client(store, mode="record-missing", approve_live=True) as client,
        pytest.raises(TelemetryRefusedError) as refused,
    ):
        client.post(runs, content=b"--b\r\n\r\n{}\r\n--b--\r\n")
    assert not store.exists()
    assert str(refused.value).startswith(f"refusing to record POST {runs}: a request to a tracing")
    assert "(LangSmith: LANGSMITH_TRACING=false; see docs/frameworks.md)" in str(refused.value)


def test_a_recording_refuses_the_agents_sdk_s_upload_of_traces(tmp_path: Path) -> None:
    # the OpenAI Agents SDK's exporter, left on, uploads a run's spans to api.openai.com
    # from a thread of its own every few seconds: a block recording from the live API sent
    # it and recorded it, its trace and span ids new at each run, so every replay missed it
    store = tmp_path / "s.jsonl"
    upload = "https://api.openai.com/v1/traces/ingest"
    with (
        block_network(),
        httpx2_client(store, mode="record-missing", approve_live=True) as client,
        pytest.raises(TelemetryRefusedError) as refused,
    ):
        client.post(upload, json={"data": [{"object": "trace", "id": "trace_0af7651916cd43dd"}]})
    assert not store.exists()
    said = str(refused.value)
    assert said.startswith(f"refusing to record POST {upload}: a request to a tracing service")
    assert "the OpenAI Agents SDK's traces" in said
    assert "set_tracing_disabled(True) or OPENAI_AGENTS_DISABLE_TRACING=1" in said


def test_a_secret_refused_in_a_request_to_no_model_api_says_to_stop_it_at_its_source(
    tmp_path: Path,
) -> None:
    # recording, Agno's telemetry (a run's session id, a uuid, in its body) was refused as
    # a secret with 'Add a sanitize rule or remove the value.' alone: nothing said it was
    # the framework's telemetry, nor how to turn it off
    body = b'{"session_id":"7f3c9a1e-52b4-4d8e-9c6a-1b2e3f4a5d6c","type":"agent"}'
    with (
        block_network(),
        httpx2_client(tmp_path / "s.jsonl", mode="record-missing", approve_live=True) as client,
        pytest.raises(SecretInFixtureError) as refused,
    ):
        client.post("https://os-api.agno.com/telemetry/runs", content=body)
    said = str(refused.value)
    assert said.startswith("refusing to send this request (its fixture could never be written)")
    assert "found at request.body.session_id; nothing was sent" in said
    assert (
        "stop it at its source rather than record it (Agno's telemetry: AGNO_TELEMETRY=false"
        in said
    )
    assert not (tmp_path / "s.jsonl").exists()


def test_the_list_of_misses_offers_no_recording_of_a_request_to_no_model_api(
    tmp_path: Path,
) -> None:
    # the run's list of misses told a test that missed tiktoken's download to record it
    # (`pytest --lf --replaygate-record-mode=record-missing ...`), the opposite of its error
    (tmp_path / "s.jsonl").write_bytes(b"")
    with (
        block_network(),
        httpx2_client(tmp_path / "s.jsonl") as client,
        pytest.raises(FixtureMismatchError) as fetched,
    ):
        client.get(SIDE_FETCHES[1][0])
    test = cast(pytest.Item, SimpleNamespace(stash=pytest.Stash(), function=None))
    summary = MissSummary()
    summary.misses["test_tokens.py::test_tokens"] = cast(Miss, miss_of(test, fetched.value))
    said: list[str] = []
    reporter = SimpleNamespace(section=said.append, line=said.append)
    summary.pytest_terminal_summary(cast(pytest.TerminalReporter, reporter), cast(Any, None))
    assert said == [
        "replaygate: 1 test(s) missed their fixtures",
        f"test_tokens.py::test_tokens: {NO_MODEL_API}",
        STOP_SIDE_REQUESTS,
    ]


@pytest.mark.parametrize(
    "url",
    [
        "https://api.openai.com/v1/files",
        "https://eu.api.openai.com/v1/batches",
        "https://x.openai.azure.com/openai/files",
        "https://api.anthropic.com/v1/files",
        "http://127.0.0.1:8000/v1/audio/transcriptions",
        "https://api.groq.com/openai/v1/audio/translations",
        "http://localhost:8880/v1/audio/speech",
        "https://llm-gateway.example/v1/images/generations",
        "http://127.0.0.1:4000/v1/moderations",
    ],
)
def test_a_miss_of_a_call_to_a_provider_s_api_says_nothing_of_side_requests(
    tmp_path: Path, url: str
) -> None:
    # a file upload, a batch: the user's own call of the API was told to be stopped at its
    # source as a framework's side request (a price file's download, telemetry); so was a
    # transcription sent to a speech server of the OpenAI audio API's (a local Whisper), and
    # an image or a moderation asked of a gateway
    assert "no model API" not in str(_replay_missed(tmp_path, "POST", url, content=b"--x--"))


@pytest.mark.parametrize(
    "body",
    [
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "now"}},
        [{"jsonrpc": "2.0", "method": "notifications/initialized"}],
    ],
)
def test_a_miss_of_an_mcp_server_s_call_says_how_to_record_it(tmp_path: Path, body: Any) -> None:
    # an agent's MCP tool call over HTTP, missed, was told to be stopped at its source as a
    # framework's side request (a price file, telemetry), with no command to record it
    said = str(_replay_missed(tmp_path, "POST", "http://127.0.0.1:8000/mcp", json=body))
    assert "no model API" not in said and RECORD_FIRST in said


def _replay_missed(tmp_path: Path, method: str, url: str, **options: Any) -> FixtureMismatchError:
    """The miss of ``method url``, replayed from an empty store."""
    store = tmp_path / "s.jsonl"
    store.write_bytes(b"")
    with (
        block_network(),
        httpx2_client(store) as client,
        pytest.raises(FixtureMismatchError) as caught,
    ):
        client.request(method, url, **options)
    return caught.value


TOKEN_FETCHES = [
    (
        "POST",
        "https://oauth2.googleapis.com/token",
        b"grant_type=refresh_token&client_id=1.apps.googleusercontent.com"
        b"&refresh_token=1%2F%2F0gAbcdefghijklmnopqrstuvwxyz0123456789",
    ),
    (
        "POST",
        "https://login.microsoftonline.com/t/oauth2/v2.0/token",
        b"grant_type=client_credentials&client_id=c&scope=https%3A%2F%2Fcognitiveservices",
    ),
    (
        "GET",
        "http://metadata.google.internal/computeMetadata/v1/instance/service-accounts/default/token",
        b"",
    ),
    (  # google-auth's impersonated credentials
        "POST",
        "https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/"
        "sa@p.iam.gserviceaccount.com:generateAccessToken",
        b'{"scope": ["https://www.googleapis.com/auth/cloud-platform"], "lifetime": "3600s"}',
    ),
]


@pytest.mark.parametrize(("method", "url", "form"), TOKEN_FETCHES)
def test_a_token_fetch_is_refused_and_missed_saying_to_give_the_client_a_token(
    tmp_path: Path, method: str, url: str, form: bytes
) -> None:
    # google-auth refreshing Vertex AI's token was refused as a secret with "add a
    # sanitize rule", and at replay missed with "re-record it": neither can be done
    store = tmp_path / "s.jsonl"
    headers = {"content-type": "application/x-www-form-urlencoded"}
    with (
        block_network(),
        httpx2_client(store, mode="record-missing", approve_live=True) as recorder,
        pytest.raises(SecretInFixtureError) as recording,
    ):
        recorder.request(method, url, content=form or None, headers=headers)
    with (
        block_network(),
        httpx2_client(store) as client,
        pytest.raises(FixtureMismatchError) as replaying,
    ):
        client.request(method, url, content=form or None, headers=headers)
    assert "an access token request" in str(recording.value)
    assert "nothing was sent and nothing was written" in str(recording.value)
    assert not store.exists() or store.read_bytes() == b""
    for said in (str(recording.value), str(replaying.value)):
        assert said.endswith(TOKEN_FETCH), said
        assert "sanitize rule" not in said and "stop it at its source" not in said


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/",
        "http://metadata.google.internal/computeMetadata/v1/instance/service-accounts/default/"
        "?recursive=true",
    ],
)
def test_a_replayed_metadata_server_probe_says_to_give_the_client_a_token(
    tmp_path: Path, url: str
) -> None:
    # AnthropicVertex without credentials: google-auth probes the metadata server and reads
    # the service account before any token fetch; its miss said to stop a framework's
    # tokenizer or price file or telemetry "at its source"
    missed = _replay_missed(tmp_path, "GET", url, headers={"metadata-flavor": "Google"})
    said = str(missed)
    assert said.endswith(METADATA_SERVER), said
    assert "no model API" not in said
    # google-genai's Client(vertexai=True) probes it too: its way to a token is named
    assert "genai.Client(vertexai=True, credentials=google.oauth2" in said, said
    # the run's list of misses named its "body, method, path" and said to record it
    test = cast(pytest.Item, SimpleNamespace(stash=pytest.Stash(), function=None))
    summary = MissSummary()
    summary.misses["test_vertex.py::test_ask"] = cast(Miss, miss_of(test, missed))
    listed: list[str] = []
    reporter = SimpleNamespace(section=listed.append, line=listed.append)
    summary.pytest_terminal_summary(cast(pytest.TerminalReporter, reporter), cast(Any, None))
    assert listed[1:] == [f"test_vertex.py::test_ask: {CREDENTIALS}", STOP_SIDE_REQUESTS]


@pytest.mark.parametrize(
    ("body", "headers"),
    [
        # a file upload whose text quotes a token form: its multipart body holds the form
        (
            b'--b\r\ncontent-disposition: form-data; name="file"; filename="oauth.txt"\r\n'
            b"\r\nPOST the form client_id=c&grant_type=client_credentials&scope=read\r\n--b--\r\n",
            {"content-type": "multipart/form-data; boundary=b"},
        ),
        # the user's own API granting a permission
        (b'{"user": "u1", "grant_type": "read"}', {"content-type": "application/json"}),
    ],
)
def test_a_request_that_only_mentions_a_grant_type_is_no_token_fetch(
    body: bytes, headers: dict[str, str]
) -> None:
    # both were refused as token fetches before they were sent: nothing could record them
    request = httpx2.Request(
        "POST", "https://api.openai.com/v1/files", content=body, headers=headers
    )
    assert token_fetch(request_envelope(request)) is None


class _Paths(Handler):
    """Answers any GET with its path and query."""

    def do_GET(self) -> None:
        self.answer_json({"path": self.path})


def test_a_miss_of_a_request_with_no_body_names_the_nearest_by_its_path(tmp_path: Path) -> None:
    # every GET differs in its path alone: the store's first line was named, /q?a=2&b=1
    store = tmp_path / "g.jsonl"
    paths = ["/q?b=1&a=2", "/q?sort=name&sort=date", "/kv?key=alice", "/p/a%2Fb"]
    with (
        serving(_Paths) as base,
        httpx2_client(store, "record-missing", approve_live=True) as recording,
    ):
        for path in paths:
            assert recording.get(base + path).json() == {"path": path}
    replaying = httpx2_client(store)
    with block_network(), replaying, pytest.raises(FixtureMismatchError) as missed:
        replaying.get(base + "/kv?key=bob")
    assert missed.value.differences == ("path: '/kv?key=alice' != '/kv?key=bob'",)


MAILED = [{"role": "user", "content": "Plan Lisbon, mail bob@corp-mail.com"}]
ASKING: dict[str, Any] = {"model": "claude-sonnet-4-5", "max_tokens": 64}


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_miss_of_a_request_a_sanitize_rule_added_since_rewrote_says_so(tmp_path: Path) -> None:
    # the diff showed a value the code never wrote, and said to revert the code's change
    store = tmp_path / "s.jsonl"
    with Simulator(behavior="echo") as sim:
        ask(store, MAILED, "record-missing", base_url=sim.url)
    (recorded,) = FixtureStore.open(store)
    rules = SanitizeConfig(personal_data=("email",))
    with block_network(), pytest.raises(FixtureMismatchError) as http_miss:
        ask(store, MAILED, sanitize=rules)
    models = tmp_path / "m.jsonl"
    question = [Message.user(MAILED[0]["content"])]
    live = ScriptedModel([ModelResponse(text="ok")])
    RecordingModel(live, models, approve_live=True, **ASKING).complete(question, [])
    (by_model,) = FixtureStore.open(models)
    with pytest.raises(FixtureMismatchError) as model_miss:
        ReplayModel(models, sanitize=rules, **ASKING).complete(question, [])
    for miss, fixture, path in ((http_miss, recorded, store), (model_miss, by_model, models)):
        assert (
            f"The request as sent, before the sanitize rules rewrote it, is recorded (key "
            f"{fixture.key} at {path}:1): a rule added since it was recorded"
        ) in str(miss.value)
    # a miss the rules did not cause says nothing of them
    with block_network(), pytest.raises(FixtureMismatchError) as other:
        ask(store, EDITED, sanitize=rules)
    assert "sanitize" not in str(other.value)


def test_a_miss_of_a_request_one_of_several_rules_added_since_rewrote_names_that_rule(
    tmp_path: Path,
) -> None:
    # recorded under the email class, replayed with a rule added beside it: the request as
    # sent, before every rule, was never stored (the address was redacted), so the miss
    # said nothing of the rules and its diff showed a value the code never wrote
    lisbon = RedactionRule(literal="Lisbon", replace="a city")
    before, after = (
        SanitizeConfig(personal_data=("email",)),
        SanitizeConfig(personal_data=("email",), rules=(lisbon,)),
    )
    models = tmp_path / "m.jsonl"
    question = [Message.user(MAILED[0]["content"])]
    live = ScriptedModel([ModelResponse(text="ok")])
    RecordingModel(live, models, approve_live=True, sanitize=before, **ASKING).complete(
        question, []
    )
    with pytest.raises(FixtureMismatchError) as model_miss:
        ReplayModel(models, sanitize=after, **ASKING).complete(question, [])
    store = tmp_path / "h.jsonl"
    answer = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [{"type": "text", "text": "ok"}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    live_http = httpx2.MockTransport(lambda request: httpx2.Response(200, json=answer))
    body = {**ASKING, "messages": MAILED}
    with httpx2_client(
        store, "record-missing", approve_live=True, transport=live_http, sanitize=before
    ) as recording:
        recording.post("http://127.0.0.1:9/v1/messages", json=body)
    with (
        block_network(),
        httpx2_client(store, sanitize=after) as replaying,
        pytest.raises(FixtureMismatchError) as http_miss,
    ):
        replaying.post("http://127.0.0.1:9/v1/messages", json=body)
    for miss, path in ((model_miss, models), (http_miss, store)):
        (fixture,) = FixtureStore.open(path)
        said = str(miss.value)
        assert (
            f"The request as sent, rewritten by every sanitize rule but one, is recorded "
            f"(key {fixture.key} at {path}:1): the one left out was added since it was "
            "recorded, and rewrites it now (sanitize rules: tool.replaygate.sanitize.rules[0]: "
            "the rule (literal 'Lisbon'))"
        ) in said, said


BUILT_BY_THE_TEST = """
from replaygate.models.fakes import ScriptedModel
from replaygate.models.replay import RecordingModel, ReplayModel
from replaygate.models.types import Message, ModelResponse

ASKING = dict(model="claude-sonnet-4-5", max_tokens=64)


def test_built_here(replaygate_mode):
    mode = {mode}
    if mode == "replay":
        model = ReplayModel("answers.jsonl", **ASKING)
    else:
        live = ScriptedModel([ModelResponse(text="ok")])
        model = RecordingModel(live, "answers.jsonl", mode=mode, approve_live=True, **ASKING)
    assert model.complete([Message.user("What is RAG?")], []).text == "ok"
"""


@pytest.mark.native_tracebacks  # the sessions' failures, as Python prints them
@pytest.mark.slow  # pytest sessions of its own
def test_a_model_a_test_builds_is_recorded_as_its_miss_says(pytester: pytest.Pytester) -> None:
    # the miss named pytest's record options, which reach no model a test builds itself
    pytester.makepyfile(test_model=BUILT_BY_THE_TEST.format(mode='"replay"'))
    missed = pytester.runpytest("-p", "no:cacheprovider")
    missed.assert_outcomes(failed=1)
    missed.stdout.fnmatch_lines(["*reaches the clients of the plugin's fixtures, not a model*"])
    record = ("--replaygate-record-mode=record-missing", "--replaygate-approve-live")
    pytester.runpytest("-p", "no:cacheprovider", *record).assert_outcomes(failed=1)
    assert not (pytester.path / "answers.jsonl").exists()  # the options did not reach it
    pytester.makepyfile(test_model=BUILT_BY_THE_TEST.format(mode="replaygate_mode"))
    pytester.runpytest("-p", "no:cacheprovider", *record).assert_outcomes(passed=1)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_a_second_run_on_the_session_of_the_first_says_to_make_it_anew(tmp_path: Path) -> None:
    # A notebook cell run again on a ReplayModel an earlier cell made: the miss named only a
    # retry or a loop, and re-recording or repeat_last, neither of which is the remedy.
    store = tmp_path / "own.jsonl"
    asked = [Message(role="user", content="hi")]
    live = ScriptedModel([ModelResponse(text="hello")])
    RecordingModel(live, store, approve_live=True, model="m", max_tokens=8).complete(asked, [])
    model = ReplayModel(store, model="m", max_tokens=8)
    assert model.complete(asked, []).text == "hello"
    with pytest.raises(FixtureMismatchError) as missed:
        model.complete(asked, [])
    text = str(missed.value)
    assert "recorded 1 time and sent 2 times in this session" in text
    assert "or the code ran again on the session of an earlier run (a notebook cell" in text
    assert "make it anew for each run)" in text
    assert ReplayModel(store, model="m", max_tokens=8).complete(asked, []).text == "hello"


def test_a_replay_kept_open_finds_what_was_recorded_since_it_was_opened(tmp_path: Path) -> None:
    # A notebook's ReplayModel made in one cell, the store recorded into by a later cell
    # (replaygate record, another kernel): its fixtures were missed as "not in rc.jsonl (1
    # fixture)", though the store held them.
    store = tmp_path / "rc.jsonl"
    first, later = [Message(role="user", content="one")], [Message(role="user", content="two")]

    def record(asked: list[Message], text: str) -> None:
        live = ScriptedModel([ModelResponse(text=text)])
        RecordingModel(live, store, approve_live=True, model="m", max_tokens=8).complete(asked, [])

    record(first, "first")
    model = ReplayModel(store, model="m", max_tokens=8)
    assert model.complete(first, []).text == "first"
    record(later, "later")
    assert model.complete(later, []).text == "later"


def test_a_miss_of_another_endpoint_shows_its_path_first(tmp_path: Path) -> None:
    # a fallback from an OpenAI generator to an Anthropic one (Haystack's
    # FallbackChatGenerator) missed against the only fixture, a chat completion: twelve
    # of its body fields were shown and the path that told it apart was among the hidden
    store = tmp_path / "s.jsonl"
    asked = {f"field_{i:02}": i for i in range(14)}
    with (
        serving(Counted) as base,
        httpx2_client(store, "record-missing", approve_live=True) as recording,
    ):
        recording.post(f"{base}/v1/chat/completions", json={**asked, "model": "gpt"})
    replaying = httpx2_client(store)
    with block_network(), replaying, pytest.raises(FixtureMismatchError) as missed:
        replaying.post(f"{base}/v1/messages", json={"model": "claude"})
    assert missed.value.differences[0] == "path: '/v1/chat/completions' != '/v1/messages'"
    assert "path: '/v1/chat/completions'" in str(missed.value).splitlines()[2]


def test_a_sender_trying_again_after_the_session_is_told_once(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # DeepEval's telemetry: PostHog's client tries three times as the interpreter exits, and
    # each refusal was told, the same line three times at the end of every run
    from replaygate.http import side_request
    from replaygate.network import Refusal
    from replaygate.pytest_plugin.offline import _tell_at_exit

    monkeypatch.setattr(side_request, "_TOLD", set())
    for host in ("us.i.posthog.com", "us.i.posthog.com", "eu.i.posthog.com", "us.i.posthog.com"):
        _tell_at_exit(Refusal("lookup of", f"'{host}'", "posthog.request"))
    told = [line.split(" refused ")[0] for line in capsys.readouterr().err.splitlines()]
    assert told == [
        "replaygate: lookup of 'us.i.posthog.com'",
        "replaygate: lookup of 'eu.i.posthog.com'",
    ]


def test_a_conversation_kept_from_one_test_to_the_next_names_the_cause(tmp_path: Path) -> None:
    # a LangGraph graph compiled once with InMemorySaver(), two tests on one thread_id: the
    # second test's request, recorded after the first's turns, missed alone, and the miss
    # compared it with the first test's request, as if its question had been edited
    store, url = tmp_path / "s.jsonl", "https://api.openai.com/v1/chat/completions"
    system = {"role": "system", "content": "Be brief."}
    one, two = {"role": "user", "content": "Leak one"}, {"role": "user", "content": "Leak two"}
    answer = {"role": "assistant", "content": "echo: Leak one"}
    replied = httpx2.MockTransport(lambda request: httpx2.Response(200, json={"id": "c_1"}))
    with httpx2_client(store, "record-missing", approve_live=True, transport=replied) as client:
        client.post(url, json={"model": "m", "messages": [system, one]})
        client.post(url, json={"model": "m", "messages": [system, one, answer, two]})
    notes = []
    for sent in ([system, two], [system, two, answer, one], [one]):
        with (
            block_network(),
            httpx2_client(store) as client,
            pytest.raises(FixtureMismatchError) as missed,
        ):
            client.post(url, json={"model": "m", "messages": sent})
        notes.append(str(missed.value))
    assert "body.messages[1].content: 'Leak one' != 'Leak two'" in notes[0]
    assert (
        f"key {FixtureStore.open(store).keys()[1]} at {store}:2 holds this request's "
        "conversation after 2 turns more, which this request does not send: a conversation "
        "kept from one test to the next (a LangGraph checkpointer made once"
    ) in notes[0]
    assert "this request sends 2 turns more before the whole conversation of key" in notes[1]
    assert f"at {store}:1, which was recorded without them" in notes[1]
    assert "kept from one test to the next" not in notes[2]  # its instructions left out
    # the run's list of misses says so too (an AutoGen AssistantAgent made in a module)
    test = cast(pytest.Item, SimpleNamespace(stash=pytest.Stash(), function=None))
    with (
        block_network(),
        httpx2_client(store) as client,
        pytest.raises(FixtureMismatchError) as missed,
    ):
        client.post(url, json={"model": "m", "messages": [system, two]})
    listed = (miss_of(test, missed.value) or ("",))[0]
    assert listed == f"body.messages[1].content ({IN_HISTORY_APART})"


def test_huggingface_hub_s_fetch_of_its_agent_harnesses_is_told_its_remedy() -> None:
    # smolagents' InferenceClientModel: huggingface_hub asks the Hub for its list of agent
    # harnesses, a refusal told only to turn "the sender" off; its downloads are no such fetch
    from replaygate.http.side_request import sender_remedy

    assert sender_remedy("huggingface_hub.utils._detect_agent", "huggingface.co") == (
        HF_AGENT_HARNESSES
    )
    assert sender_remedy("huggingface_hub.file_download", "huggingface.co") is None


def test_a_prompt_holding_an_object_s_memory_address_names_the_cause(tmp_path: Path) -> None:
    # a smolagents CodeAgent whose snippet ended with a def wrote the function's repr, at an
    # address of its process, into its next request: the miss said only to re-record
    store = tmp_path / "s.jsonl"
    said = "Last output from code snippet:\n<function create_function.<locals>.new_func at {}>"
    _record_prompt(store, said.format("0x7f95"), role="user")
    test = cast(pytest.Item, SimpleNamespace(stash=pytest.Stash(), function=None))
    listed = []
    for sent in (said.format("0x7f0d598cd940"), said.replace("new_func", "f").format("0x7f0d")):
        missed = _missed_prompt(store, sent, role="user")
        listed.append((str(missed), (miss_of(test, missed) or ("",))[0]))
    assert "body.messages[0].content differs only in an object's memory address" in listed[0][0]
    assert listed[0][1] == f"body.messages[0].content ({IN_ADDRESS})"
    assert "memory address" not in listed[1][0]  # the function changed too


def test_a_miss_in_a_folder_store_names_a_part_of_it_no_store_reads(
    from_sim: Path, tmp_path: Path
) -> None:
    # An interface folder shared through a symlink that is not there on a CI machine was
    # passed over by replay, and its misses named the nearest of the rest, not the link.
    folder = tmp_path / "fixtures"
    folder.mkdir()
    (folder / "s.jsonl").write_bytes(from_sim.read_bytes())
    (folder / "shared").symlink_to("../elsewhere/shared")
    with block_network(), pytest.raises(FixtureMismatchError) as missed:
        ask(folder, EDITED)
    lines = str(missed.value).splitlines()
    unread = next(line for line in lines if "read by no store" in line)
    assert unread.startswith(f"1 part(s) of {folder} are read by no store")
    assert f"{folder / 'shared'}: is a symlink to '../elsewhere/shared', which does not" in unread
    assert lines.index(unread) < next(i for i, ln in enumerate(lines) if "re-record" in ln)
    (folder / "shared").unlink()
    with block_network(), pytest.raises(FixtureMismatchError) as missed:
        ask(folder, EDITED)
    assert "read by no store" not in str(missed.value)
