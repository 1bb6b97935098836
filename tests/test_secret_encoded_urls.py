"""A Slack webhook or a JWT split across the events of a stream of a server's own shape,
which replaygate reads field by field, is refused, where the fields of such a stream are
read as encoded data, in which a match glued after a base64 letter was taken for chance:
every webhook URL follows a ``/``. A match holding a character base64 never holds (a dot)
is no chance run. A Bedrock Converse stream is joined per content block as a client joins
it, so a key with no known prefix split across it is refused too."""

from __future__ import annotations

import json

from replaygate.sanitize.secret_rules import detect_family
from replaygate.sanitize.secret_scan import find_fixture_secrets

HOOK = "https://hooks.slack.com/services/T1GV60J6R/BBOX4I1FV/" + "xkB4SB44Ktj3ECuk" + "5rkCtyBz"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9." + "c2lnbmF0dXJlLW5vdC1yZWFs" + "X3Rlc3Q"


def stream(text: str, converse: bool, size: int = 3) -> dict[str, object]:
    """A stream of ``text`` in pieces: Converse's ``contentBlockDelta`` events, or events of
    a server's own JSON."""
    pieces = [text[i : i + size] for i in range(0, len(text), size)]
    data = (
        [{"delta": {"text": piece}, "contentBlockIndex": 0} for piece in pieces]
        if converse
        else [{"chunk": {"piece": piece}} for piece in pieces]
    )
    events = [{"event": "contentBlockDelta", "data": json.dumps(d)} for d in data]
    first = {"event": "messageStart", "data": '{"role":"assistant"}'}
    return {"request": {"body": {}}, "response": {"status": 200, "events": [first, *events]}}


def test_a_webhook_or_jwt_split_across_a_stream_of_a_servers_own_is_refused() -> None:
    for secret, rule in ((HOOK, "Slack webhook"), (JWT, "JSON web token")):
        found = find_fixture_secrets(stream(f"Here: {secret} ok", converse=False))
        assert [f.detector for f in found] == [rule]
        assert found[0].path.startswith("response.events[1..")


def test_a_key_split_across_a_converse_stream_is_refused_and_plain_text_is_not() -> None:
    bare = "q8Zr2LxV9mT4wK7pB1nC6dH3" + "Yw5Ej0Fs4kPq"  # no known prefix: read by entropy
    for secret, rule in ((bare, "high-entropy token"), (HOOK, "Slack webhook")):
        found = find_fixture_secrets(stream(f"the key is {secret} ok", converse=True))
        assert [(f.path[:19], f.detector) for f in found] == [("response.events[1..", rule)]
    assert find_fixture_secrets(stream("An ordinary answer, nothing secret.", converse=True)) == []


def test_in_encoded_data_a_glued_run_of_base64_letters_is_still_chance() -> None:
    assert detect_family(f"x/{HOOK[8:]}", encoded=True) == "Slack webhook"
    glued = "Qk9YNEkxRlY/" + "sk-ant-" + "a" * 40  # base64 letters all through
    assert detect_family(glued, encoded=True) is None
    assert detect_family(glued) == "Anthropic API key"


def test_a_key_split_between_two_text_blocks_of_a_converse_answer_is_refused() -> None:
    key = "sk-ant-api03-" + "Zk3Qm9Xr2Lp7Vw4Tn8Bc5Hy1Jd6Fs0Ga2Ue" * 2

    def delta(index: int, text: str) -> dict[str, str]:
        data = {"delta": {"text": text}, "contentBlockIndex": index}
        return {"event": "contentBlockDelta", "data": json.dumps(data)}

    events = [delta(0, "see "), delta(0, key[:20]), delta(1, key[20:]), delta(1, " ok")]
    found = find_fixture_secrets({"request": {}, "response": {"status": 200, "events": events}})
    split = "Anthropic API key (split across text blocks 0..1)"
    assert ("response.events[0..3].data", split) in [(f.path, f.detector) for f in found]
