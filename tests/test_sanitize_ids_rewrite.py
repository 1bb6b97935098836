"""A request is rewritten with the session's stable ids in time that does not grow with
the text it carries: a string that holds no start of a known id (a megabyte of base64, a
long document) is passed over in one search per start, and an id in any other string is
replaced as before."""

from __future__ import annotations

import base64
import random

from replaygate.sanitize.ids import IdMap, anchors

TOOL = "toolu_01A9xQ7rT2mK8pL4vN6sW3yZ"
OTHER_TOOL = "toolu_01B7cD5eF3gH1jK9mN2pQ4rS"
CALL = "call_Zx9Qm3Lr7Tk2Vb8Nw4Yp6Hs1"
RESPONSE_ID = "xK3fR9mQ2pL7"
"""A Gemini ``responseId``: no prefix."""


def _map() -> IdMap:
    ids = IdMap()
    for n, real in enumerate((TOOL, OTHER_TOOL, CALL, RESPONSE_ID, "fc_ab", "short")):
        ids.add(real, f"rg_{n}")
    return ids


def test_every_id_replaced_inside_a_text_holds_an_anchor() -> None:
    assert anchors([TOOL, OTHER_TOOL, CALL, RESPONSE_ID, "fc_ab", "short"]) == {
        "toolu_01",
        CALL,
        RESPONSE_ID,
        "fc_ab",
    }


def test_ids_inside_longer_strings_are_replaced_as_before() -> None:
    blob = base64.b64encode(random.Random(2).randbytes(3000)).decode()
    request = {
        "messages": [
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": TOOL}]},
            {"role": "user", "content": f"{blob} result of {OTHER_TOOL}: ok ({CALL}, fc_ab)"},
            {"role": "user", "content": f"{blob} answer {RESPONSE_ID} and short, {TOOL}x"},
            {"role": "user", "content": blob},
        ]
    }
    messages = _map().rewrite(request)["messages"]
    assert messages[0]["content"][0]["tool_use_id"] == "rg_0"
    assert messages[1]["content"] == f"{blob} result of rg_1: ok (rg_2, rg_4)"
    assert messages[2]["content"] == f"{blob} answer rg_3 and short, {TOOL}x"
    assert messages[3]["content"] is blob


class _Read(str):
    """A text that counts the searches made in it."""

    searches = 0

    def __contains__(self, part: object) -> bool:
        _Read.searches += 1
        return super().__contains__(part)


def test_a_long_text_without_an_id_is_passed_over_at_once() -> None:
    """Such a text is searched once for each anchor and then left as it is, never read token
    by token."""
    words = _Read(("the quick brown fox jumps over the lazy dog " * 20_000)[:800_000])
    data = _Read(base64.b64encode(random.Random(1).randbytes(600_000)).decode())
    request = {"messages": [{"role": "user", "content": words}, {"role": "user", "content": data}]}
    ids = _map()
    _Read.searches = 0
    rewritten = ids.rewrite(request)
    assert rewritten is request
    assert rewritten["messages"][0]["content"] is words
    assert _Read.searches == 2 * len(anchors(ids.snapshot()))
