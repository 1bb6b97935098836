"""A pytest session replaying a store whose file name is not UTF-8 logs its hits: the name
is written as ``--json`` writes it (``caf\\udce9.jsonl``) and read back as the same name."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from forked_cli import ASCII_LOCALE, Forker
from replaygate.fixtures import hits
from replaygate.models.live import AnthropicModel
from replaygate.models.replay import RecordingModel
from replaygate.models.types import Message
from replaygate.sim import Simulator
from sdks import anthropic

# Records and replays in a pytest session of its own (pytester): end to end.
pytestmark = pytest.mark.slow

MODEL = "claude-test-model"
NAME = os.fsdecode(b"caf\xe9.jsonl")
TEST = f"""
from pathlib import Path

from replaygate.models.replay import ReplayModel
from replaygate.models.types import Message

STORE = Path(__file__).parent / "fixtures" / {NAME!r}


def test_replay():
    model = ReplayModel(STORE, model={MODEL!r}, max_tokens=64)
    assert model.complete([Message.user("What is RAG?")], []).text
"""


def test_a_store_named_in_latin_1_is_logged_and_read_back(pytester: pytest.Pytester) -> None:
    store = pytester.path / "tests" / "fixtures" / NAME
    with (
        Simulator(behavior="research-copilot", seed=1) as sim,
        anthropic.Anthropic(api_key="sim-key", base_url=sim.url, max_retries=0) as client,
    ):
        live = AnthropicModel(client, model=MODEL, max_tokens=64)
        recorder = RecordingModel(
            live, store, approve_live=True, model=MODEL, max_tokens=64, source="sim"
        )
        recorder.complete([Message.user("What is RAG?")], [])
    pytester.makepyfile(**{"tests/test_latin1_named_store": TEST})

    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK, result.outlines
    [logged] = hits.read_hits(pytester.path / hits.DEFAULT_DIR)
    assert logged.store == f"tests/fixtures/{NAME}"
    assert logged.test == "tests/test_latin1_named_store.py::test_replay"
    [file] = (pytester.path / hits.DEFAULT_DIR).glob("*.jsonl")
    assert b'"store":"tests/fixtures/caf\\udce9.jsonl"' in file.read_bytes()


ASCII_LOCALE_HITS = """
import os
from pathlib import Path
from replaygate.fixtures import hits
store = Path(os.fsdecode("évals/x.jsonl".encode()))  # as the file system names it
store.parent.mkdir()
store.write_text("{}\\n")
log = hits.HitLog(Path("hits"), "run-1", root=Path.cwd())
log.note(store, "abc")
log.flush()
[hit] = hits.read_hits(Path("hits"))
print(b'"store":"\\xc3\\xa9vals/x.jsonl"' in log.file.read_bytes(), open(hit.store).read())
"""


def test_a_store_named_in_utf8_is_logged_as_its_text_and_read_back_in_an_ascii_locale(
    tmp_path: Path, ascii_forker: Forker
) -> None:
    # under LC_ALL=C the log held the name's bytes as escapes ("\udcc3\udca9vals"), where a
    # UTF-8 locale writes évals; a log written so was read as a name the ASCII file system
    # encoding cannot encode: patrol and prune ended in a UnicodeEncodeError traceback
    env = {**os.environ, **ASCII_LOCALE}
    done = ascii_forker.capture([], cwd=tmp_path, env=env, code=ASCII_LOCALE_HITS)
    assert done.stdout == b"True {}\n\n", done.stderr.decode()
