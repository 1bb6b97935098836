"""replaygate import-cassettes: a cassette that cannot be read is named on one line, with
the field that is wrong (missing apart from of the wrong kind) or the line and column of
the YAML that cannot be read, whichever reader PyYAML uses (libyaml counts a position in
bytes, its own reader in characters)."""

from __future__ import annotations

import errno
import json
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate.cli import main
from replaygate.migrate import cassettes
from replaygate.migrate.cassettes import CassetteError, read_cassette


@pytest.fixture(params=["libyaml", "pure"])
def reader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each of PyYAML's loaders in turn: libyaml's, and its own (where it has no libyaml)."""
    if request.param == "pure":
        monkeypatch.delattr("yaml.CSafeLoader", raising=False)
    cassettes._yaml_loader.cache_clear()
    yield request.param
    cassettes._yaml_loader.cache_clear()


def refusal(tmp_path: Path, raw: bytes, name: str = "c.yaml") -> str:
    """The one-line error reading the cassette ``raw`` ends in, without its file name."""
    path = tmp_path / name
    path.write_bytes(raw)
    with pytest.raises(CassetteError) as caught:
        read_cassette(path)
    said = str(caught.value)
    assert "\n" not in said
    assert said.startswith(f"{path}: ")
    return said.removeprefix(f"{path}: ")


def interaction(request: str = "{}", response: str = "{}") -> bytes:
    """A cassette of one interaction, its request and response written as YAML flow."""
    return f"version: 1\ninteractions:\n- request: {request}\n  response: {response}\n".encode()


GOOD_REQUEST = "{method: GET, uri: 'https://a.example/', headers: {}, body: null}"
GOOD_STATUS = "status: {code: 200}"

WRONG_KIND = {
    "interactions an object": (
        b"interactions: {a: 1}\nversion: 1\n",
        "interactions: expected a list, got an object",
    ),
    "interactions null": (
        b"version: 1\ninteractions:\n",
        "interactions: expected a list, got null",
    ),
    "interaction a list": (
        b"version: 1\ninteractions:\n- [1, 2]\n",
        "interaction 0: expected an object, got a list",
    ),
    "response text": (
        interaction(GOOD_REQUEST, "'ok'"),
        "interaction 0: response: expected an object, got text",
    ),
    "status a number": (
        interaction(GOOD_REQUEST, "{status: 200, headers: {}, body: {string: ''}}"),
        "interaction 0: response.status: expected an object, got a number",
    ),
    "headers a list": (
        interaction("{method: GET, uri: 'https://a.example/', headers: [accept], body: null}"),
        "interaction 0: request.headers: expected an object of header names, got a list",
    ),
    "body string an object": (
        interaction(GOOD_REQUEST, f"{{{GOOD_STATUS}, headers: {{}}, body: {{string: {{a: 1}}}}}}"),
        # it said "response.body.string.string: missing field"
        "interaction 0: response.body.string: expected text or bytes, got an object",
    ),
}


@pytest.mark.parametrize("case", list(WRONG_KIND))
def test_a_field_of_the_wrong_kind_is_named_as_such_not_as_missing(
    tmp_path: Path, case: str
) -> None:
    raw, expected = WRONG_KIND[case]
    assert refusal(tmp_path, raw) == expected


MISSING = {
    "version": (b"interactions: []\n", "missing field 'version'"),
    "interactions": (b"version: 1\n", "missing field 'interactions' (a list)"),
    "body string": (
        interaction(GOOD_REQUEST, f"{{{GOOD_STATUS}, headers: {{}}, body: {{text: hi}}}}"),
        "interaction 0: response.body.string: missing field",
    ),
}


@pytest.mark.parametrize("case", list(MISSING))
def test_a_missing_field_is_still_named_missing(tmp_path: Path, case: str) -> None:
    raw, expected = MISSING[case]
    assert refusal(tmp_path, raw) == expected


CTRL = (
    "not valid YAML at line 3, column 12: a control character (U+0001), which YAML text "
    'cannot hold: delete it, or write it as "\\x01" in a double-quoted string'
)

UNPRINTABLE = {
    "control character": (b'interactions:\n- request:\n    uri: "x\x01"\nversion: 1\n', CTRL),
    "utf-16 with its BOM": (
        'interactions:\n- request:\n    uri: "x\x01"\nversion: 1\n'.encode("utf-16"),
        CTRL,
    ),
    "utf-8 BOM, crlf and nel line ends": (
        '\ufeffa: 1\r\nb: 2\x85interactions:\n- request:\n    uri: "x\x01"\n'.encode(),
        CTRL.replace("line 3", "line 5"),
    ),
    "a character past ascii before it": ('a: "é\x01"\n'.encode(), "at line 1, column 6: "),
    "NUL": (b"version: 1\x00\n", "at line 1, column 11: a control character (U+0000)"),
    "noncharacter": (
        "a: \ufffe\n".encode(),
        'a noncharacter (U+FFFE), which YAML text cannot hold: delete it, or write it as "\\ufffe"',
    ),
}


@pytest.mark.parametrize("case", list(UNPRINTABLE))
def test_a_character_yaml_cannot_hold_is_named_by_its_line_and_column(
    tmp_path: Path, reader: str, case: str
) -> None:
    # it said "not valid YAML: unacceptable character #x0001: control characters are not
    # allowed" and, on a line of its own, "in "<byte string>", position 36"
    raw, expected = UNPRINTABLE[case]
    assert expected in refusal(tmp_path, raw)


def test_utf16_that_is_not_is_named_by_its_line_and_column(tmp_path: Path, reader: str) -> None:
    raw = "version: 1\ninteractions: []\n".encode("utf-16-le")
    said = refusal(tmp_path, b"\xff\xfe" + raw + b"\x00\xd8")
    assert said == "not UTF-16 text (bytes 0x00 0xd8 at line 3, column 1: unexpected end of data)"


CAFE = "{method: POST, uri: 'https://abc.example/v1', body: 'café'}"
LATIN1 = interaction(CAFE).decode().encode("latin-1")
"""A cassette saved as Latin-1: its é is the byte 0xe9, at line 3, column 68."""


def test_a_latin1_cassette_gets_what_the_docs_say(tmp_path: Path) -> None:
    # the docs said it came with the iconv command and the mv, as UTF-16 and UTF-32 do
    said = refusal(tmp_path, LATIN1)
    assert said == "not UTF-8 text (byte 0xe9 at line 3, column 68)"
    docs = (Path(__file__).parent.parent / "docs/migrating.md").read_text()
    quoted = re.search(r"Latin-1[^`]*`([^`]*)`", " ".join(docs.split()))
    assert quoted is not None and quoted.group(1) == said  # the first quote after it


PYTHON2 = b"""version: 1
interactions:
- request:
    method: !!python/unicode 'GET'
    uri: !!python/unicode 'https://a.example/'
    headers: {!!python/unicode 'Accept': [!!python/str '*/*']}
    body: null
  response:
    status: {code: 200, message: !!python/unicode 'OK'}
    headers: {}
    body: {string: !!python/unicode 'hi'}
"""


def test_python2_text_tags_are_read_as_text(tmp_path: Path, reader: str) -> None:
    # it said "could not determine a constructor for the tag
    # 'tag:yaml.org,2002:python/unicode'"
    path = tmp_path / "py2.yaml"
    path.write_bytes(PYTHON2)
    (read,) = read_cassette(path)
    assert (read.request.method, read.request.uri) == ("GET", "https://a.example/")
    assert read.request.headers == (("Accept", "*/*"),)
    assert read.response.body == b"hi"


def test_a_key_named_twice_with_a_python2_text_tag_is_a_duplicate(
    tmp_path: Path, reader: str
) -> None:
    raw = b"version: 1\ninteractions: []\na: 1\n!!python/unicode 'a': 2\n"
    assert refusal(tmp_path, raw).startswith("a: duplicate key (line 4): ")


@pytest.mark.parametrize("tag", ["python/object/apply:os.mkdir", "python/name:os.mkdir"])
def test_other_python_tags_are_refused_and_nothing_is_run(
    tmp_path: Path, reader: str, tag: str
) -> None:
    ran = tmp_path / "ran"
    said = refusal(tmp_path, f"version: 1\ninteractions: !!{tag} ['{ran}']\n".encode())
    assert said == (
        "not valid YAML at line 2, column 15: could not determine a constructor for the tag "
        f"'tag:yaml.org,2002:{tag}'"
    )
    assert not ran.exists()


BETAMAX = {
    "http_interactions": [
        {
            "request": {"method": "GET", "uri": "https://a.example/", "headers": {}},
            "response": {"status": {"code": 200}, "headers": {}, "body": {"string": "hi"}},
            "recorded_at": "2024-07-03T10:00:00",
        }
    ],
    "recorded_with": "betamax/0.8.1",
}
RUBY_VCR = b"""---
http_interactions:
- request:
    method: get
    uri: https://a.example/
  response:
    status: {code: 200, message: OK}
    body: {encoding: UTF-8, string: hi}
  recorded_at: Wed, 03 Jul 2024 10:00:00 GMT
recorded_with: VCR 6.2.0
"""
HAR = {"log": {"version": "1.2", "creator": {"name": "Firefox"}, "entries": []}}
RESPONSES = b"""responses:
- response:
    auto_calculate_content_length: false
    body: hi
    content_type: text/plain
    method: GET
    status: 200
    url: https://a.example/
"""
OTHER_RECORDINGS = {
    "betamax": (
        json.dumps(BETAMAX).encode(),
        "c.json",
        "a Betamax recording (http_interactions, recorded_with 'betamax/0.8.1')",
    ),
    "ruby vcr": (
        RUBY_VCR,
        "c.yml",
        "a Ruby VCR recording (http_interactions, recorded_with 'VCR 6.2.0')",
    ),
    "har": (json.dumps(HAR).encode(), "c.json", "a HAR file (log)"),
    "responses": (RESPONSES, "c.yaml", "a responses recorder's file (responses)"),
}


@pytest.mark.parametrize("case", list(OTHER_RECORDINGS))
def test_another_librarys_recording_is_named_as_such(tmp_path: Path, case: str) -> None:
    # it said "missing field 'version'", as if adding one would do
    raw, name, what = OTHER_RECORDINGS[case]
    assert refusal(tmp_path, raw, name) == (
        f"not a vcrpy cassette: it looks like {what}; replaygate imports vcrpy's and "
        "pytest-recording's cassettes only"
    )


SYNTAX = {
    "unclosed flow": (b"interactions:\n- request: {method: POST\n", "line 3, column 1"),
    "tab indent": (b"version: 1\n\tinteractions: []\n", "line 2, column 1"),
    "undefined alias": (b"version: 1\ninteractions: *none\n", "line 2, column 15"),
}


@pytest.mark.parametrize("case", list(SYNTAX))
def test_a_yaml_error_is_one_line_with_its_line_and_column(
    tmp_path: Path, reader: str, case: str
) -> None:
    raw, where = SYNTAX[case]
    assert refusal(tmp_path, raw).startswith(f"not valid YAML at {where}: ")


def test_the_reported_cassettes_are_named_on_one_line_each_and_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("c").mkdir()
    Path("c/dict.yaml").write_bytes(b"interactions: {a: 1}\nversion: 1\n")
    Path("c/ctrl.yaml").write_bytes(b'interactions:\n- request:\n    uri: "x\x01"\nversion: 1\n')
    result = CliRunner().invoke(main, ["import-cassettes", "c", "--out", "out"])
    assert result.exit_code == 2, result.output
    assert result.output.splitlines() == [
        f"ERROR (nothing written): c/ctrl.yaml: {CTRL}",
        "ERROR (nothing written): c/dict.yaml: interactions: expected a list, got an object",
        "2 cassette(s): 0 imported, 0 unchanged, 0 empty, 0 refused, 2 error",
    ]
    assert not Path("out").exists()


GOOD_CASSETTE = b"""\
interactions:
- request:
    body: '{"model": "m", "max_tokens": 5, "messages": []}'
    headers: {content-type: [application/json]}
    method: POST
    uri: https://api.anthropic.com/v1/messages
  response:
    body: {string: '{"type": "message", "id": "m1", "role": "assistant", "content": []}'}
    headers: {content-type: [application/json]}
    status: {code: 200, message: OK}
version: 1
"""


def test_a_cassette_named_with_a_newline_is_printed_on_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("c").mkdir()
    Path("c/a\nb.yaml").write_bytes(GOOD_CASSETTE)
    Path("c/bad\tx.yaml").write_bytes(b"interactions: {a: 1}\nversion: 1\n")
    result = CliRunner().invoke(main, ["import-cassettes", "c", "--out", "out"])
    assert result.exit_code == 2, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("'c/a\\nb.yaml' -> out/a_b.jsonl: 1 imported")
    assert lines[1].startswith("  renamed 'a\\nb' -> a_b: ")
    assert lines[2] == (
        "ERROR (nothing written): 'c/bad\\tx.yaml': interactions: expected a list, got an object"
    )
    assert len(lines) == 4


def test_a_full_scratch_folder_is_an_error_not_a_refusal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("c.yaml").write_bytes(GOOD_CASSETTE)

    def full(fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full)
    result = CliRunner().invoke(main, ["import-cassettes", "c.yaml", "--out", "out"])
    assert result.exit_code == 2, result.output
    assert result.output.startswith(
        "ERROR (nothing written): c.yaml: interaction 0: cannot stage it in a scratch folder "
        f"under {tempfile.gettempdir()} (TMPDIR): cannot write a fixture: No space left"
    )
    assert not Path("out").exists()


def test_yaml_cassettes_without_pyyaml_stop_the_import_before_any_cassette(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each YAML cassette was an error of its own, with the same install line, and the
    # JSON ones beside them imported: half an import, to be run again once PyYAML is in
    request = {"method": "POST", "uri": "https://api.openai.com/v1/chat/completions"}
    response = {"status": {"code": 200}, "headers": {}, "body": {"string": "{}"}}
    cassette = {"version": 1, "interactions": [{"request": request, "response": response}]}
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.json").write_text(json.dumps(cassette), encoding="utf-8")
    for name in ("b.yaml", "c.yml"):
        (tmp_path / "in" / name).write_text("interactions: []\nversion: 1\n", encoding="utf-8")
    monkeypatch.setitem(sys.modules, "yaml", None)  # not installed
    out = tmp_path / "out"
    done = CliRunner().invoke(main, ["import-cassettes", str(tmp_path / "in"), "--out", str(out)])
    assert done.exit_code == 2, done.output
    yamls = f"{tmp_path / 'in' / 'b.yaml'}, {tmp_path / 'in' / 'c.yml'}"
    assert done.output == (
        f"Error: reading the YAML cassettes ({yamls}) needs the 'yaml' package, which is not "
        "installed: pip install 'replaygate[cassettes]'\n"
    )
    assert not out.exists()
