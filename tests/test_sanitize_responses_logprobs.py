"""A Responses API text stream redacted across its delta events keeps their ``logprobs``
lists: only a legacy Completions choice's ``logprobs`` become null."""

from __future__ import annotations

import json

from replaygate.sanitize import SanitizeConfig, Sanitizer

CONFIG = SanitizeConfig(personal_data=("email",))


def _delta(text: str, number: int) -> dict[str, str]:
    event = {
        "type": "response.output_text.delta",
        "item_id": "msg_1",
        "output_index": 0,
        "content_index": 0,
        "sequence_number": number,
        "delta": text,
        "logprobs": [],
    }
    return {"event": event["type"], "data": json.dumps(event)}


def test_a_responses_delta_split_address_keeps_its_logprobs_list() -> None:
    record = {"status": 200, "events": [_delta("mail alice@co", 1), _delta("rp.com now", 2)]}
    stored = Sanitizer(CONFIG).recorded(record, key="k", interface="openai.responses")
    events = [json.loads(event["data"]) for event in stored["events"]]
    assert "".join(event["delta"] for event in events).startswith("mail user-")
    assert [event["logprobs"] for event in events] == [[], []]
