"""A command line printed where the output cannot encode a character of it (a latin-1
stream) still names, pasted into a shell, the question or test it was printed for."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import sys

import pytest
from click.testing import CliRunner

from replaygate.cli import main
from replaygate.examples.research_copilot import shipped_fixtures
from replaygate.pytest_plugin.options import quoted_nodeid
from replaygate.shell_words import shell_join, shell_quote

QUESTION = "什么是 RAG→？ it's é"
"""Characters latin-1 cannot encode, one it can, and a quote."""

NODEID = "tests/test_q.py::test_什么[\\u4ec0 it's]"
"""A test named beyond latin-1, with a parameter id pytest escaped itself (literal ``\\u``)."""


def pasted(words: str) -> list[str]:
    """The arguments bash hands a program given the command line text ``words``."""
    done = subprocess.run(
        ["bash", "-c", f"printf '%s\\0' {words}"], capture_output=True, check=True
    )
    return done.stdout.decode("utf-8").split("\0")[:-1]


def streams(monkeypatch: pytest.MonkeyPatch, encoding: str) -> None:
    """stdout and stderr (the process's own too) in ``encoding``, as ``PYTHONIOENCODING``
    makes them."""
    for name in ("stdout", "stderr", "__stdout__", "__stderr__"):
        monkeypatch.setattr(sys, name, io.TextIOWrapper(io.BytesIO(), encoding=encoding))


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash to paste the command into")
def test_the_record_command_of_a_miss_on_a_latin_1_stream_records_the_question() -> None:
    # printed `... --approve-live '\u4ec0\u4e48...'`: pasted, it recorded another question
    done = CliRunner(charset="latin-1").invoke(
        main,
        ["run", "--agent", "replaygate.examples.research_copilot:copilot",
         "--fixtures", str(shipped_fixtures()), QUESTION],
    )  # fmt: skip
    assert done.exit_code == 1, done.output
    command = re.search(r"re-record: `replaygate record (.*?)`\. Otherwise", done.output)
    assert command is not None, done.output
    assert "\\u" not in command.group(1)
    assert pasted(command.group(1))[-1] == QUESTION


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash to paste the command into")
def test_a_node_id_and_words_quoted_for_a_latin_1_stream_paste_as_they_are(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    streams(monkeypatch, "latin-1")
    shown = [quoted_nodeid(NODEID), shell_join(["--x", QUESTION]), shell_quote("plain")]
    text = " ".join(shown)
    text.encode("latin-1")  # printable as it is: nothing is left for the stream to escape
    assert shown[0].startswith("$'") and shown[2] == "plain"
    assert pasted(text) == [NODEID, "--x", QUESTION, "plain"]


def test_on_a_utf_8_stream_the_words_are_quoted_as_shlex_quotes_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    streams(monkeypatch, "utf-8")
    assert quoted_nodeid(NODEID) == "'tests/test_q.py::test_什么[\\u4ec0 it'\\''s]'"
    assert shell_join(["a b", "什么"]) == "'a b' '什么'"
