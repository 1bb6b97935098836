"""A repeated query parameter keeps the order of its values: the names are sorted, stably.

A tool of the agent searches a service on loopback with a sort priority
(``?sort=name&sort=date``) through ``httpx2``, recorded and then replayed with the
network blocked: the same parameters in another order of names match, the same values
in another order are another request and miss.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, parse_qsl, urlencode, urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from loopback import Handler, serving
from replaygate.errors import FixtureMismatchError
from replaygate.http import block_network, httpx2_client
from replaygate.http.envelope import canonical_path

ROWS = [{"name": "b", "date": 1}, {"name": "a", "date": 2}]


class Search(Handler):
    """Answers ``GET /v1/docs?sort=<field>...`` with the rows sorted by those fields, in
    the order the parameters name them."""

    def do_GET(self) -> None:
        keys = parse_qs(urlsplit(self.path).query)["sort"]
        self.answer_json(sorted(ROWS, key=lambda row: tuple(row[k] for k in keys)))


def search(client: object, base: str, *keys: str) -> str:
    """The name of the first row the search answers, sorted by ``keys``."""
    params = [("limit", "2"), *(("sort", key) for key in keys)]
    return client.get(f"{base}/v1/docs", params=params).json()[0]["name"]  # type: ignore[attr-defined]


def test_the_order_of_a_repeated_parameter_is_part_of_the_request(tmp_path: Path) -> None:
    store = tmp_path / "search.jsonl"
    with serving(Search) as base, httpx2_client(store, "record-missing", approve_live=True) as c:
        assert search(c, base, "name", "date") == "a"
        assert search(c, base, "date", "name") == "b"
    assert '"/v1/docs?limit=2&sort=name&sort=date"' in store.read_text()
    with block_network(), httpx2_client(store) as replay:
        assert search(replay, base, "date", "name") == "b"
        # the names in another order: the same request
        params = [("sort", "name"), ("limit", "2"), ("sort", "date")]
        got = replay.get(f"{base}/v1/docs", params=params)
        assert got.json()[0]["name"] == "a"


def test_values_of_a_repeated_parameter_in_another_order_miss(tmp_path: Path) -> None:
    store = tmp_path / "search.jsonl"
    with serving(Search) as base, httpx2_client(store, "record-missing", approve_live=True) as c:
        search(c, base, "name", "date")
    with block_network(), httpx2_client(store) as replay, pytest.raises(FixtureMismatchError) as e:
        search(replay, base, "date", "name")
    assert (
        "path: '/v1/docs?limit=2&sort=name&sort=date' != '/v1/docs?limit=2&sort=date&sort=name'"
        in e.value.differences
    )


NAMES = st.text("abcAB_[]", min_size=1, max_size=4)
VALUES = st.text("xy z&=", max_size=3)


@given(st.dictionaries(NAMES, VALUES, max_size=5))
def test_a_query_without_a_repeated_name_keeps_its_canonical_form(
    params: dict[str, str],
) -> None:
    # fixtures recorded when every pair was sorted still match: with each name once,
    # sorting by name is sorting the pairs
    query = urlencode(list(params.items())).encode()
    before = "/v1/x" + ("?" + urlencode(sorted(params.items())) if params else "")
    assert canonical_path("/v1/x", query) == before
    assert canonical_path("/v1/x", urlencode(list(reversed(params.items()))).encode()) == before


@given(st.lists(st.tuples(st.sampled_from("ab"), VALUES), max_size=6))
def test_each_name_keeps_the_order_of_its_values(pairs: list[tuple[str, str]]) -> None:
    kept = canonical_path("/v1/x", urlencode(pairs).encode())
    read = parse_qsl(urlsplit(kept).query, keep_blank_values=True)
    assert [name for name, _ in read] == sorted(name for name, _ in pairs)
    for name in "ab":
        assert [v for n, v in read if n == name] == [v for n, v in pairs if n == name]
