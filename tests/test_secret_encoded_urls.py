"""A Slack webhook or a JWT split across the events of a stream of a shape replaygate
reads field by field (Bedrock's Converse stream, a server's own JSON events) is refused,
where the fields of such a stream are read as encoded data, in which a match glued after
a base64 letter was taken for chance: every webhook URL follows a ``/``. A match holding a
character base64 never holds (a dot) is no chance run."""

from __future__ import annotations

import json

from replaygate.sanitize.secret_rules import detect_family
from replaygate.sanitize.secret_scan import find_fixture_secrets

HOOK = "https://hooks.slack.com/services/T1GV60J6R/BBOX4I1FV/" + "xkB4SB44Ktj3ECuk" + "5rkCtyBz"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9." + "c2lnbmF0dXJlLW5vdC1yZWFs" + "X3Rlc3Q"


def converse_stream(text: str, size: int = 3) -> dict[str, object]:
    deltas = [
        {"event": "contentBlockDelta", "data": json.dumps({"delta": {"text": text[i : i + size]}})}
        for i in range(0, len(text), size)
    ]
    events = [{"event": "messageStart", "data": '{"role":"assistant"}'}, *deltas]
    return {"request": {"body": {}}, "response": {"status": 200, "events": events}}


def test_a_webhook_or_jwt_split_across_a_converse_stream_is_refused() -> None:
    for secret, rule in ((HOOK, "Slack webhook"), (JWT, "JSON web token")):
        found = find_fixture_secrets(converse_stream(f"Here: {secret} ok"))
        assert [f.detector for f in found] == [rule]
        assert found[0].path.startswith("response.events[1..")


def test_in_encoded_data_a_glued_run_of_base64_letters_is_still_chance() -> None:
    assert detect_family(f"x/{HOOK[8:]}", encoded=True) == "Slack webhook"
    glued = "Qk9YNEkxRlY/" + "sk-ant-" + "a" * 40  # base64 letters all through
    assert detect_family(glued, encoded=True) is None
    assert detect_family(glued) == "Anthropic API key"
