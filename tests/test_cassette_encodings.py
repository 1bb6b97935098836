"""A cassette saved in another encoding is named as the fixture store names such a file,
with its line, and the walk of a folder of cassettes leaves virtualenvs and tools'
folders out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replaygate.migrate.cassettes import CassetteError, find_cassettes, read_cassette

pytest.importorskip("yaml")

BODY = '{"type": "message", "content": [{"type": "text", "text": "Café"}]}'
YAML = f"""\
interactions:
- request:
    body: '{{}}'
    headers: {{}}
    method: POST
    uri: https://api.anthropic.com/v1/messages
  response:
    body: {{string: '{BODY}'}}
    headers: {{}}
    status: {{code: 200, message: OK}}
version: 1
"""
DOCUMENT = {
    "interactions": [
        {
            "request": {"body": "{}", "headers": {}, "method": "POST", "uri": "https://x/v1"},
            "response": {"body": {"string": BODY}, "headers": {}, "status": {"code": 200}},
        }
    ],
    "version": 1,
}
JSON = json.dumps(DOCUMENT, ensure_ascii=False, indent=1)
UTF16 = "not UTF-8 text (it looks like UTF-16: re-save the file as UTF-8), e.g. `iconv"
THEN = "{path} > {new}`, then `mv {new} {path}`"


def cassette(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        # PyYAML said "unacceptable character #x0022: invalid trailing UTF-8 octet ...
        # position 216", the JSON reader Python's "'utf-8' codec can't decode byte 0xe9"
        ("c.yaml", YAML.encode("latin-1"), "not UTF-8 text (byte 0xe9 at line 8, column 82)"),
        ("c.json", JSON.encode("latin-1"), "not UTF-8 text (byte 0xe9 at line 12, column 91)"),
        # PyYAML said "unacceptable character #x0000"
        ("c.yaml", YAML.encode("utf-16-le"), f"{UTF16} -f UTF-16LE -t UTF-8 {THEN}"),
        ("c.yaml", YAML.encode("utf-16-be"), f"{UTF16} -f UTF-16BE -t UTF-8 {THEN}"),
        ("c.json", JSON.encode("utf-16")[:-1], f"{UTF16} -f UTF-16 -t UTF-8 {THEN}"),
    ],
    ids=["yaml-latin-1", "json-latin-1", "yaml-utf-16le", "yaml-utf-16be", "json-utf-16-cut"],
)
def test_a_cassette_in_another_encoding_is_named_with_its_line_or_the_command(
    tmp_path: Path, name: str, data: bytes, reason: str
) -> None:
    path = cassette(tmp_path, name, data)
    with pytest.raises(CassetteError) as caught:
        read_cassette(path)
    new = path.with_name(f"c.utf8{path.suffix}")
    assert str(caught.value) == f"{path}: {reason.format(path=path, new=new)}"


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("c.yaml", YAML.encode("utf-16")),
        ("c.yaml", YAML.encode("utf-8-sig")),
        ("c.yaml", YAML.replace("\n", "\r").encode()),
        ("c.json", JSON.encode("utf-16")),
        ("c.json", JSON.encode("utf-16-le")),
        ("c.json", JSON.encode("utf-8-sig")),
    ],
    ids=["yaml-utf-16", "yaml-bom", "yaml-cr", "json-utf-16", "json-utf-16le", "json-bom"],
)
def test_what_the_yaml_and_json_readers_read_is_still_read(
    tmp_path: Path, name: str, data: bytes
) -> None:
    (interaction,) = read_cassette(cassette(tmp_path, name, data))
    assert "Café" in interaction.response.body.decode("utf-8")


def test_the_walk_leaves_virtualenvs_and_tools_folders_out(tmp_path: Path) -> None:
    # a project's top folder: the .json files of .venv and site-packages were read as
    # cassettes, each refused as "not a vcrpy cassette"
    root = tmp_path / "project"
    for folder in ("tests/cassettes/t", ".venv/lib", "env/lib", "node_modules/x", ".tox/py"):
        (root / folder).mkdir(parents=True)
        (root / folder / "c.yaml").write_text(YAML, encoding="utf-8")
    (root / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    (root / "tests" / "cassettes" / "u.json").write_text(JSON, encoding="utf-8")
    found = find_cassettes(root)
    assert found.files == [root / "tests/cassettes/t/c.yaml", root / "tests/cassettes/u.json"]
    assert found.unlisted == []


def test_a_folder_named_as_a_cassette_is_walked_into(tmp_path: Path) -> None:
    (tmp_path / "old.json").mkdir()
    (tmp_path / "old.json" / "c.yaml").write_text(YAML, encoding="utf-8")
    assert find_cassettes(tmp_path).files == [tmp_path / "old.json" / "c.yaml"]
