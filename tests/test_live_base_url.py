"""The base URL a recording command sends to (``ANTHROPIC_BASE_URL``): one that is no URL
refused before anything is sent, naming what is wrong, and as its errors show it, a
gateway's credentials in it masked, since the error reaches CI logs."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from loopback import Handler, serving
from replaygate.base_url import base_url_problem, shown_url
from replaygate.cli import main
from replaygate.examples.research_copilot import shipped_eval_cases

AGENT = ["--agent", "replaygate.examples.research_copilot:copilot"]
RECORD = ["record", *AGENT, "--approve-live"]
TOKEN = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"

# Its tests import the provider SDKs through replaygate (the record command's client).


MASKED = "<GitHub token #1, 40 characters>"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (
            f"http://ci:{TOKEN}@127.0.0.1:1/",
            "http://<user and password, 43 characters>@127.0.0.1:1/",
        ),
        ("https://ci:hunter2@gw.example", "https://<user and password, 10 characters>@gw.example"),
        (
            f"https://{TOKEN}@gw.example/v1",
            "https://<user and password, 40 characters>@gw.example/v1",
        ),
        (f"http://127.0.0.1:1/v1?key={TOKEN}", f"http://127.0.0.1:1/v1?key={MASKED}"),
        ("http://127.0.0.1:8765", "http://127.0.0.1:8765"),
        ("http://127.0.0.1:abc", "http://127.0.0.1:abc"),
        (f"gw:{TOKEN}", f"gw:{MASKED}"),
    ],
)
def test_a_url_is_shown_with_its_credentials_masked_and_its_host_kept(url: str, shown: str) -> None:
    assert shown_url(url) == shown


def _record(tmp_path: Path, base_url: str) -> str:
    """What ``record`` prints on stderr, recording from ``base_url``, which ends it (exit 2)."""
    env = {"ANTHROPIC_API_KEY": "sk-ant-dummy", "ANTHROPIC_BASE_URL": base_url}
    args = [*RECORD, "--fixtures", str(tmp_path / "new.jsonl"), "hi"]
    done = CliRunner().invoke(main, args, env=env)
    assert done.exit_code == 2, done.output
    assert not (tmp_path / "new.jsonl").exists()
    return done.stderr


def test_a_gateways_credentials_in_the_base_url_are_masked_when_it_cannot_be_reached(
    tmp_path: Path,
) -> None:
    # Error: cannot reach the model API at http://ci:ghp_...@127.0.0.1:1/, in the CI log
    with serving(Handler) as url:
        pass  # a port nothing listens on any more
    port = url.rpartition(":")[2]
    stderr = _record(tmp_path, f"http://ci:{TOKEN}@127.0.0.1:{port}/")
    assert stderr.startswith(
        "Error: cannot reach the model API at "
        f"http://<user and password, 43 characters>@127.0.0.1:{port}/: "
    ), stderr
    assert TOKEN not in stderr


class _EchoesTheKey(Handler):
    """Answers every request 400, quoting a key in its message, as some gateways do."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        message = f"upstream key {TOKEN} is not allowed for this route"
        self.answer_json({"type": "error", "error": {"type": "x", "message": message}}, 400)


def test_a_key_the_api_quotes_in_an_error_is_masked(tmp_path: Path) -> None:
    with serving(_EchoesTheKey) as url:
        stderr = _record(tmp_path, url.replace("http://", f"http://ci:{TOKEN}@"))
    assert f"answered 400: upstream key {MASKED} is not allowed" in stderr
    assert "http://<user and password, 43 characters>@127.0.0.1:" in stderr
    assert TOKEN not in stderr


@pytest.mark.parametrize(
    ("url", "problem", "unbuildable"),
    [
        ("http://127.0.0.1:abc", "its port 'abc' is not a number from 0 to 65535", True),
        ("http://127.0.0.1:99999", "its port '99999' is not a number from 0 to 65535", True),
        ("http://[::1", "its host opens '[' and never closes it (an IPv6 address: "
                        "http://[::1]:8765)", True),
        ("http://[zz]:1", "[zz] is not an IPv6 address", True),
        ("http://[::1]x", "'x' follows the IPv6 address where ':' and a port should", True),
        ("http://999.0.0.1", "999.0.0.1 is not an IPv4 address", True),
        ("http://127.0.0.1:8765\r", "it holds the control character '\\r' at position 21", True),
        (f"http://ci:{TOKEN}/v1", f"its port '{MASKED}' is not a number from 0 to 65535", True),
        ("", "it is empty", False),
        ("localhost:8765", "it does not start with http:// or https://", False),
        ("ftp://127.0.0.1", "its scheme 'ftp' is not http or https", False),
        ("http://:8765", "it names no host", False),
        ("HTTPS://[::1]:8765/v1", None, False),
        ("http://ci:pw@gw.example:8080/v1?x=1", None, False),
    ],
)  # fmt: skip
def test_what_makes_a_base_url_unusable(url: str, problem: str | None, unbuildable: bool) -> None:
    assert base_url_problem(url) == problem
    # what no client can be built with, whatever it will send to
    assert base_url_problem(url, sending=False) == (problem if unbuildable else None)


EVAL = ["eval", *AGENT, "--cases", str(shipped_eval_cases()), "--record-mode", "record-missing",
        "--approve-live", "--no-history"]  # fmt: skip


@pytest.mark.parametrize("command", [[*RECORD, "hi"], EVAL], ids=["record", "eval"])
@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("http://127.0.0.1:abc", "its port 'abc' is not a number from 0 to 65535"),
        ("http://[::1", "its host opens '[' and never closes it"),
        ("http://[zz]:1", "[zz] is not an IPv6 address"),
        ("localhost:8765", "it does not start with http:// or https://"),
        ("", "it is empty"),
    ],
)
@pytest.mark.slow  # a real git repository
def test_a_base_url_that_is_no_url_ends_the_command_before_anything_is_sent(
    tmp_path: Path, command: list[str], url: str, problem: str
) -> None:
    # httpx2.InvalidURL: Invalid port: 'abc', a traceback and exit 1 (a verdict's status)
    env = {"ANTHROPIC_API_KEY": "sk-ant-dummy", "ANTHROPIC_BASE_URL": url}
    store = tmp_path / "new.jsonl"
    done = CliRunner().invoke(main, [*command, "--fixtures", str(store)], env=env)
    assert done.exit_code == 2, done.output
    assert done.stderr.startswith(
        f"Error: ANTHROPIC_BASE_URL '{url}' is not a URL a model API can be reached at: {problem}"
    ), done.stderr
    assert (
        "nothing was sent: set it to the server's URL (http://127.0.0.1:8765), or unset it to "
        "record from https://api.anthropic.com, or record from the loopback simulator instead "
        "with --simulator\n"
    ) in done.stderr
    assert isinstance(done.exception, SystemExit)  # no other exception, no traceback
    assert not store.exists()


def test_the_base_url_refused_is_shown_with_its_credentials_masked(tmp_path: Path) -> None:
    stderr = _record(tmp_path, f"http://ci:{TOKEN}@127.0.0.1:abc/")
    assert stderr.startswith(
        "Error: ANTHROPIC_BASE_URL 'http://<user and password, 43 characters>@127.0.0.1:abc/' "
        "is not a URL a model API can be reached at: its port 'abc' is not a number"
    ), stderr
    assert TOKEN not in stderr
