"""Answers with no body by HTTP's rules replay the length headers they had live (RFC
9110): a ``HEAD`` answer and a ``304`` the ``content-length`` of the representation, or
none when none was sent; a ``204`` none at all. They were replayed as
``content-length: 0``, a length the server never said."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import httpx
import httpx2
import pytest
import requests

from loopback import Handler, serving
from replaygate.fixtures.store import FixtureStore
from replaygate.http import Exchange, block_network, httpx2_client, intercept
from sdks import aiohttp, anthropic

SIZE = "1234"
"""The length of the representation a HEAD or a 304 names, whose body it does not send."""


class Bodiless(Handler):
    """Answers with no body: ``HEAD /file`` (a length), ``HEAD /unsized`` (none),
    ``HEAD /gzipped`` (the length of an encoded body), ``DELETE /thing`` 204 and
    ``GET /cached`` 304 (a length)."""

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("content-type", "application/octet-stream")
        if self.path == "/v1/gzipped":  # the length of the encoded body
            self.send_header("content-encoding", "gzip")
        if self.path != "/v1/unsized":
            self.send_header("content-length", SIZE)
        self.end_headers()

    def do_DELETE(self) -> None:
        self.send_response(204)
        self.send_header("request-id", "req_204")
        self.end_headers()

    def do_GET(self) -> None:
        self.send_response(304)
        self.send_header("etag", '"v1"')
        self.send_header("content-length", SIZE)
        self.end_headers()


def _lengths(headers: httpx.Headers | httpx2.Headers) -> list[str]:
    return headers.get_list("content-length")


def _sdk_answers(http: httpx2.Client, base: str) -> dict[str, list[str]]:
    """The length headers of each answer, asked through the anthropic SDK (HEAD through its
    HTTP client: the SDK has no HEAD method)."""
    with anthropic.Anthropic(api_key="k", base_url=base, http_client=http) as sdk:
        deleted = sdk.delete("/v1/thing", cast_to=httpx2.Response)
        with pytest.raises(anthropic.APIStatusError) as not_modified:  # not a success
            sdk.get("/v1/cached", cast_to=httpx2.Response)
        return {
            "head": _lengths(http.head(f"{base}/v1/file").headers),
            "head unsized": _lengths(http.head(f"{base}/v1/unsized").headers),
            "204": _lengths(deleted.headers),
            "304": _lengths(not_modified.value.response.headers),
        }


LIVE = {"head": [SIZE], "head unsized": [], "204": [], "304": [SIZE]}


def test_an_sdk_over_httpx2_is_handed_the_lengths_it_had_live(tmp_path: Path) -> None:
    store = tmp_path / "bodiless.jsonl"
    with serving(Bodiless) as base:
        with httpx2_client(store, "record-missing", approve_live=True) as http:
            assert _sdk_answers(http, base) == LIVE
        assert len(FixtureStore.open(store)) == 4
        with block_network(), httpx2_client(Exchange(store)) as http:
            assert _sdk_answers(http, base) == LIVE


ASKED = {
    "head": ("HEAD", "/v1/file"),
    "head unsized": ("HEAD", "/v1/unsized"),
    "204": ("DELETE", "/v1/thing"),
    "304": ("GET", "/v1/cached"),
}


def _httpx(base: str) -> dict[str, list[str]]:
    with httpx.Client(base_url=base) as client:
        return {name: _lengths(client.request(*asked).headers) for name, asked in ASKED.items()}


def _requests(base: str) -> dict[str, list[str]]:
    with requests.Session() as session:
        answers = {name: session.request(m, base + path) for name, (m, path) in ASKED.items()}
    return {
        name: [v for k, v in r.headers.items() if k.lower() == "content-length"]
        for name, r in answers.items()
    }


def _aiohttp(base: str) -> dict[str, list[str]]:
    async def run() -> dict[str, list[str]]:
        out = {}
        async with aiohttp.ClientSession() as session:
            for name, (method, path) in ASKED.items():
                async with session.request(method, base + path) as response:
                    await response.read()
                    out[name] = response.headers.getall("content-length", [])
        return out

    return asyncio.run(run())


@pytest.mark.parametrize(
    "answers", [_httpx, _requests, _aiohttp], ids=["httpx", "requests", "aiohttp"]
)
def test_an_intercepted_client_is_handed_the_lengths_it_had_live(
    tmp_path: Path, answers: Callable[[str], dict[str, list[str]]]
) -> None:
    store = tmp_path / "bodiless.jsonl"
    with serving(Bodiless) as base:
        with intercept(store, "record-missing", approve_live=True):
            assert answers(base) == LIVE
        with intercept(store):
            assert answers(base) == LIVE


def test_the_length_of_an_encoded_body_is_not_kept(tmp_path: Path) -> None:
    # a client handed the body decoded is not handed the encoded body's length, live
    store = tmp_path / "gzipped.jsonl"
    with serving(Bodiless) as base:
        with httpx2_client(store, "record-missing", approve_live=True) as http:
            assert _lengths(http.head(f"{base}/v1/gzipped").headers) == []
        (fixture,) = FixtureStore.open(store)
        assert "content-length" not in fixture.responses[0]["headers"]
        with block_network(), httpx2_client(Exchange(store)) as http:
            assert _lengths(http.head(f"{base}/v1/gzipped").headers) == []
