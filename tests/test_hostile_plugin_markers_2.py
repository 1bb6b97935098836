"""``@pytest.mark.replaygate`` on a module, a class and a test: their arguments combine.

The closest mark alone was read: a module's ``pytestmark = pytest.mark.replaygate(
fixtures=..., repeat_last=True)`` was dropped whole for a test that also carried a mark
of its own (a ``note``), so the test replayed another store and matched otherwise, and
nothing said so (``match_host=True`` on the module was silently off for it).
pytest-recording combines its ``vcr`` marks the same way: the closest one wins, key by
key.
"""

from __future__ import annotations

from typing import Any

import pytest

from echo_recording import record_echoes
from replaygate.http import httpx2_client

pytestmark = pytest.mark.slow  # pytest runs on a project of its own (pytester)

LAYERED = """
import pytest

pytestmark = pytest.mark.replaygate(fixtures="once.jsonl", repeat_last=True, note="module")


def ask(client):
    return client.messages.create(
        model="m", max_tokens=8, messages=[{"role": "user", "content": "again"}]
    ).content[0].text


@pytest.mark.replaygate(note="the test's own")
def test_own_note_keeps_the_modules_store_and_repeat(anthropic_client):
    client = anthropic_client()
    assert [ask(client), ask(client)] == ["echo: again", "echo: again"]


@pytest.mark.replaygate(repeat_last=False)
class TestClass:
    @pytest.mark.replaygate(note="in a class")
    def test_the_class_mark_is_closer_than_the_modules(self, anthropic_client):
        from replaygate.errors import FixtureMismatchError

        client = anthropic_client()
        assert ask(client) == "echo: again"
        with pytest.raises(FixtureMismatchError, match="recorded 1 time and sent 2 times"):
            ask(client)


@pytest.mark.replaygate(repeat_lats=True)
def test_a_wrong_argument_on_any_mark_is_named(anthropic_client):
    pass
"""


def test_marks_on_the_module_class_and_test_combine_closest_first(
    pytester: pytest.Pytester,
) -> None:
    record_echoes(pytester.path / "tests/fixtures/once.jsonl", ["again"])
    pytester.makepyfile(test_layered=LAYERED)
    result = pytester.runpytest("-p", "no:recording")
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(
        ["*test_a_wrong_argument_on_any_mark_is_named: unknown argument(s) repeat_lats*"]
    )


def test_a_wrong_argument_on_the_module_mark_is_named(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        pytestmark = pytest.mark.replaygate(match_host="yes")

        @pytest.mark.replaygate(note="fine")
        def test_marked(replaygate_store):
            pass
        """
    )
    result = pytester.runpytest("-p", "no:recording")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*match_host must be True or False*"])


ASKED = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "again"}]}
HEADERS = {"x-api-key": "k", "anthropic-version": "2023-06-01"}


def test_a_store_named_outside_ascii_is_replayed_in_an_ascii_locale(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, sim: Any
) -> None:
    # under LC_ALL=C the ASCII file system encoding cannot encode "shared é.jsonl" as the
    # test's code gives it: the test errored in a UnicodeEncodeError at its setup. The
    # request is plain HTTP, as the SDK sends it: the new interpreter does not import the
    # SDK (about 1.5 s of CPU), which has no part in where the store is.
    store = pytester.path / "tests/fixtures/shared é.jsonl"
    with httpx2_client(store, "record-missing", approve_live=True, base_url=sim.url) as http:
        http.post("/v1/messages", json=ASKED, headers=HEADERS).raise_for_status()
    pytester.makepyfile(
        f"""
        import pytest

        from replaygate.http import httpx2_client

        @pytest.mark.replaygate(fixtures="shared é.jsonl")
        def test_shared(replaygate_exchange):
            client = httpx2_client(replaygate_exchange, base_url="https://api.anthropic.com")
            reply = client.post("/v1/messages", json={ASKED!r}, headers={HEADERS!r})
            assert reply.json()["content"][0]["text"] == "echo: again"
        """
    )
    for name, value in {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0"}.items():
        monkeypatch.setenv(name, value)
    pytester.runpytest_subprocess("-p", "no:recording").assert_outcomes(passed=1)
