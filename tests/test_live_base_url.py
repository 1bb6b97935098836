"""The base URL a recording command sends to (``ANTHROPIC_BASE_URL``), as its errors show
it: a gateway's credentials in it masked, since the error reaches CI logs."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from loopback import Handler, serving
from replaygate.base_url import shown_url
from replaygate.cli import main

RECORD = ["record", "--agent", "replaygate.examples.research_copilot:copilot", "--approve-live"]
TOKEN = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


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
