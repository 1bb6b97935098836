"""A credential named by a table's column header or by markup is refused like one written
beside its name (``password = ...``), and ordinary prose, tables and markup are not."""

from __future__ import annotations

import re
from typing import Any

import orjson
import pytest

from replaygate.sanitize.secret_entropy import CONTEXT
from replaygate.sanitize.secret_lines import quiet_lines
from replaygate.sanitize.secret_mask import masked_pair
from replaygate.sanitize.secret_scan import detect_in_text, find_fixture_secrets
from replaygate.sanitize.secret_tables import named_credential

SECRET = "Xk9mQ2pL7vR4tZ8wB3nH6yJ1"
"""24 characters: under the free-standing rule's 32, a credential only by its name."""

NAMED = {
    "csv": f"Check this export:\nservice,username,password\nbilling,admin,{SECRET}\n",
    "csv, CRLF and quotes": f'"service","password"\r\n"billing","{SECRET}"\r\n',
    "csv, later row": f"name,api_key,note\nprod,short,x\nstaging,{SECRET},y\n",
    "tsv": f"service\tsecret_token\nbilling\t{SECRET}\n",
    "semicolons": f"service;Passwort;password\nbilling;x;{SECRET}",
    "pipes": f"service|access_token\nbilling|{SECRET}\n",
    "markdown": f"| service | api_key |\n|---|---|\n| billing | {SECRET} |",
    "markdown, spaced header, code": f"| Service | API Key |\n| :-- | --: |\n| x | `{SECRET}` |",
    "name and value row": f"setting,value\npassword,{SECRET}\n",
    "markdown name and value": f"| setting | value |\n|---|---|\n| client_secret | {SECRET} |",
    "name, value, note": f"name,value,note\nregion,eu,x\napi_token,{SECRET},rotated monthly\n",
    "xml element": f"<creds><password>{SECRET}</password></creds>",
    "xml element, camel case": f"<config><apiKey>{SECRET}</apiKey></config>",
    "xml element, namespace, spaces": f"<cfg:apiKey>\n  {SECRET}\n</cfg:apiKey>",
    "xml cdata": f"<db><password><![CDATA[{SECRET}]]></password></db>",
    "xml attributes": f'<appSettings><add key="ApiKey" value="{SECRET}" /></appSettings>',
    "xml entry text": f'<properties><entry key="db.password">{SECRET}</entry></properties>',
    "html password input": f"<form><input type='password' name='pw' value='{SECRET}'></form>",
    "plist": f"<dict>\n  <key>api_token</key>\n  <string>{SECRET}</string>\n</dict>",
    "value before name, upper case": f'<INPUT VALUE="{SECRET}" NAME="api_key">',
    "upper-case element": f"<APIKey>{SECRET}</APIKey>",
}


NAMED["csv, a key with a slash"] = f"service,password\nbilling,{SECRET[:12]}/{SECRET[12:]}\n"


@pytest.mark.parametrize("text", NAMED.values(), ids=NAMED.keys())
def test_a_value_named_by_a_column_or_a_tag_is_refused(text: str) -> None:
    assert named_credential(text) == CONTEXT
    assert detect_in_text(text) == CONTEXT


PLAIN = {
    "prose": (
        "Forgot your password, token or API key? Click reset, then log in again.\n"
        "Choose a new one, at least 12 characters, and keep it safe.\n"
    ),
    "a hidden cell": "| user | password |\n|---|---|\n| alice | (hidden) |\n| bob | ******** |",
    "token counts": (
        "| model | input tokens | output tokens |\n|---|---|---|\n| claude-sonnet-4-5 | 1234 | 56 |"
    ),
    "a random id in a column of no credential": f"id,name,session_count\n{SECRET},alice,3\n",
    "names under key beside value": "key,value\nanthropic_default_model_identifier,x\n",
    "a row of another width": f"service,password\nbilling,admin,{SECRET}\n",
    "a line between": f"service,password\n\nbilling,{SECRET}\n",
    "a sentence as header": f"we rotate the secret token, then\nagain,{SECRET}\n",
    "xml of other names": f"<tokenizer>{SECRET}</tokenizer><monkey>{SECRET}</monkey>",
    "plist of another key": f"<key>CFBundleIdentifier</key><string>{SECRET}</string>",
    "html text input": f'<input type="text" name="username" value="{SECRET}">',
    "html prose": "<p>Enter your <b>password</b> below; a session token lasts an hour.</p>",
    "an unclosed element": f"Type <password> then {SECRET} and press enter",
    "a bucket listing": "Key,LastModified,Size\ndata/exports/orders_2024_11_30.parquet,x,9\n",
    "a bucket listing in markdown": "| Key | Size |\n|---|---|\n| reports/q3/summary-v2.csv | 1 |",
    "an object's key": "Key: uploads/user-avatars/7f3a9c2e1b4d.png\nSize: 1024",
}


@pytest.mark.parametrize("text", PLAIN.values(), ids=PLAIN.keys())
def test_prose_tables_and_markup_of_no_credential_are_not_refused(text: str) -> None:
    assert named_credential(text) is None
    assert detect_in_text(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "aws_secret_access_key: wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY",
        f"api_key: files/{SECRET}.png?sig={SECRET}",
        f"password = {SECRET[:12]}/{SECRET[12:]}.x",
        f"password = {SECRET[:12]}/{SECRET[12:]}.Qz9",
    ],
    ids=[
        "slashes",
        "a file name and a query",
        "a one-letter extension",
        "upper case after the dot",
    ],
)
def test_a_key_beside_its_name_is_refused_though_it_holds_a_path_s_signs(text: str) -> None:
    """A value shaped as a path to a file (``reports/q3.csv``, an object's key in a
    bucket listing) is no credential; a value with more than that is one."""
    assert detect_in_text(text) == CONTEXT


@pytest.mark.parametrize(
    "text",
    [
        "password,x\n" * 50_000,
        "| api_key | x |\n" * 50_000,
        "service,password\n" + "billing,x\n" * 50_000,
        "<a key=token " * 50_000,
        "<password>" * 50_000,
        ("<" + "k" * 60) * 20_000,
    ],
    ids=["name-value rows", "markdown rows", "rows", "open tags", "unclosed", "long tag names"],
)
def test_a_long_text_holds_no_named_credential(text: str) -> None:
    """Each line is read as a row once, whatever header it sits under: 50,000 rows read
    again under each line above them took minutes, which the suite's time would show."""
    assert named_credential(text) is None


def _fixture(content: str) -> dict[str, Any]:
    request = {"body": {"model": "m", "messages": [{"role": "user", "content": content}]}}
    return {"key": "0" * 12, "request": request, "response": {"status": 200, "body": {}}}


@pytest.mark.parametrize("name", NAMED.keys())
def test_a_fixture_holding_one_is_refused_naming_the_field(name: str) -> None:
    """Through the gate: an XML element on one line holds no line break (no ``\\n`` in its
    serialized JSON), so the gate looks for a tag with a credential word."""
    found = find_fixture_secrets(_fixture(NAMED[name]))
    assert [(f.path, f.detector) for f in found] == [("request.body.messages[0].content", CONTEXT)]


def test_the_one_pass_scan_of_written_lines_does_not_clear_them() -> None:
    pytest.importorskip("hyperscan")
    lines = [orjson.dumps(_fixture(text)) for text in (*NAMED.values(), "plain words")]
    quiet = quiet_lines(lines)
    assert quiet is not None
    assert quiet == [False] * len(NAMED) + [True]


def test_a_miss_masks_the_value() -> None:
    left, right = masked_pair({"content": NAMED["xml element"]}, {"content": "other"})
    assert SECRET not in str(left)
    assert left["content"].startswith(f"<{CONTEXT} #1")
    assert right == {"content": "other"}


def test_a_tag_is_read_once_whatever_number_of_naming_attributes_it_holds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each naming attribute read its tag again to its end: a tag of 300 of them before
    a megabyte without ``>`` took 8 seconds."""
    from replaygate.sanitize import secret_tables

    read: list[int] = []
    opened = secret_tables._OPENED

    class Counted:
        def match(self, text: str, at: int) -> re.Match[str] | None:
            read.append(at)
            return opened.match(text, at)

    monkeypatch.setattr(secret_tables, "_OPENED", Counted())
    assert named_credential("<a token " + "name=password " * 300 + "x" * 1000) is None
    assert read == [0]
    assert named_credential(f'<add key="ApiKey" name="password" value="{SECRET}"/>') == CONTEXT
