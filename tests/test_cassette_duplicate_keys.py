"""A cassette that names a key twice is refused, naming the file, the interaction and
the key: read as its last value, it would be imported as a request nobody sent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replaygate.migrate.cassettes import CassetteError, read_cassette
from run_cli import replaygate

BODY = '{"messages":[{"role":"user","content":"Say hi"}],"model":"gpt-4o-mini"}'
ANSWER = (
    '{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-4o-mini",'
    '"choices":[{"index":0,"message":{"role":"assistant","content":"Hi!"},'
    '"finish_reason":"stop"}]}'
)


def _yaml(method: str = "    method: POST\n", body: str = BODY) -> str:
    return (
        "interactions:\n- request:\n"
        f"    body: '{body}'\n"
        "    headers: {content-type: [application/json]}\n"
        f"{method}"
        "    uri: https://api.openai.com/v1/chat/completions\n"
        "  response:\n"
        f"    body: {{string: '{ANSWER}'}}\n"
        "    headers: {content-type: [application/json]}\n"
        "    status: {code: 200, message: OK}\n"
        "version: 1\n"
    )


def _json(body: str = BODY) -> str:
    request = {
        "method": "POST",
        "uri": "https://api.openai.com/v1/chat/completions",
        "headers": {"content-type": ["application/json"]},
        "body": body,
    }
    response = {
        "status": {"code": 200, "message": "OK"},
        "headers": {"content-type": ["application/json"]},
        "body": {"string": ANSWER},
    }
    return json.dumps({"version": 1, "interactions": [{"request": request, "response": response}]})


def _refused(path: Path) -> str:
    with pytest.raises(CassetteError) as caught:
        read_cassette(path)
    return str(caught.value)


def test_a_yaml_field_named_twice_is_refused_with_its_line(tmp_path: Path) -> None:
    pytest.importorskip("yaml")
    cassette = tmp_path / "x.yaml"
    cassette.write_text(_yaml("    method: POST\n    method: GET\n"))
    assert _refused(cassette) == (
        f"{cassette}: interaction 0: request.method: duplicate key (line 6): an object "
        "names it twice, and only its last value would be read; keep one"
    )


def test_a_json_field_named_twice_is_refused(tmp_path: Path) -> None:
    cassette = tmp_path / "x.json"
    cassette.write_text(_json().replace('"method": "POST"', '"method": "POST", "method": "GET"'))
    assert _refused(cassette).startswith(
        f"{cassette}: interaction 0: request.method: duplicate key: an object names it twice"
    )


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_a_key_named_twice_in_a_json_body_is_refused(tmp_path: Path, suffix: str) -> None:
    if suffix == ".yaml":
        pytest.importorskip("yaml")
    body = BODY.replace('"gpt-4o-mini"}', '"gpt-4o-mini","model":"gpt-4o"}')
    cassette = tmp_path / f"x{suffix}"
    cassette.write_text(_yaml(body=body) if suffix == ".yaml" else _json(body))
    assert _refused(cassette) == (
        f"{cassette}: interaction 0: request.body: its JSON has a duplicate key model: "
        "an object names it twice; keep one"
    )


def test_the_import_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "x.json").write_text(
        _json().replace('"method": "POST"', '"method": "POST", "method": "GET"')
    )
    (tmp_path / "c" / "ok.json").write_text(_json())
    done = replaygate("import-cassettes", "c", "--out", "out", cwd=tmp_path)
    assert done.returncode == 2, done
    assert "c/x.json: interaction 0: request.method: duplicate key" in done.stdout
    assert not (tmp_path / "out" / "x.jsonl").exists()
    assert (tmp_path / "out" / "ok.jsonl").exists()  # the other cassette is imported
