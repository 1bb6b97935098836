"""``verify`` takes the key of a line the store's writer sealed on the seal's word, as the
replay does, and still finds each sample line's fixture by its request's whole digest."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from replaygate import Fixture
from replaygate.fixtures.fingerprint import digest
from replaygate.fixtures.store import SampleLine
from replaygate.hygiene.verify_across import across_store
from replaygate.hygiene.verify_requests import StoreRequests
from replaygate.hygiene.verify_reread import Rereads
from replaygate.hygiene.verify_segment import check_segment
from replaygate.hygiene.verify_segments import REPLACED, file_segments
from replaygate.sanitize.secret_allow import NOTHING_SAFE
from test_verify_samples import META, answer, report, request, sample

NOTHING = "no response recorded (response, or every item of responses, is null)"


def fixture(i: int, *responses: Any, sealed: bool = True) -> Fixture:
    made = Fixture.create(request(i), list(responses or [answer(f"answer {i}")]), META)
    return made.sealed() if sealed else made


def colliding(i: int) -> dict[str, Any]:
    """Two requests whose digests share their first 12 hex digits (9cc2caaa136d), found
    by a birthday search: a key cut to 12 digits names both."""
    number = (3579253, 20690611)[i]
    return {
        "max_tokens": 16,
        "messages": [{"content": f"question {number}", "role": "user"}],
        "model": "m",
    }


def test_the_two_colliding_requests_share_their_key_only() -> None:
    first, second = digest(colliding(0)), digest(colliding(1))
    assert first[:12] == second[:12] == "9cc2caaa136d"
    assert first != second


@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
def test_a_sample_line_finds_its_fixture_among_those_sharing_its_key(
    order: tuple[int, int], tmp_path: Path
) -> None:
    # Both fixtures hold nothing; the sample line below them fills the one of its request.
    path = tmp_path / "s.jsonl"
    lines = [Fixture.create(colliding(i), [None], META).sealed().to_line() for i in order]
    filled = SampleLine(digest(colliding(0)), 0, answer("filled"), META).to_line()
    path.write_bytes(b"".join(lines) + filled)
    empty_line = order.index(1) + 1
    assert report(path) == [
        f"{path}:{empty_line}: {NOTHING}: nothing to replay (a hand edit?); re-record the fixture"
    ]


def test_sample_lines_of_sealed_fixtures_are_reported_as_those_of_unsealed_ones(
    tmp_path: Path,
) -> None:
    def store(sealed: bool) -> Path:
        path = tmp_path / f"{sealed}.jsonl"
        lines = [
            sample(0, 1, answer("too early")),
            fixture(0, sealed=sealed).to_line(),
            sample(0, 1, {"content": "not a message"}),
            sample(0, 2, answer("fine")),
            sample(7, 1, answer("no such request")),
            fixture(1, None, sealed=sealed).to_line(),
            sample(1, 0, answer("fills it")),
            fixture(2, None, sealed=sealed).to_line(),
        ]
        path.write_bytes(b"".join(lines))
        return path

    sealed, unsealed = store(True), store(False)
    found = report(sealed)
    assert [line.split(": ")[0] for line in found] == [f"{sealed}:{n}" for n in (1, 3, 5, 8)]
    assert found == [line.replace(str(unsealed), str(sealed)) for line in report(unsealed)]


def test_a_sealed_line_and_an_unsealed_copy_are_one_request(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(fixture(0).to_line() + fixture(0, sealed=False).to_line())
    assert report(path) == []
    other = fixture(0, answer("other"), sealed=False)
    longer = Fixture(digest(request(0))[:16], request(0), (answer("longer"),), META).sealed()
    path.write_bytes(fixture(0).to_line() + other.to_line() + longer.to_line())
    key = fixture(0).key
    assert report(path) == [
        f"{path}:{line}: request of key {shown} recorded twice with different responses "
        f"(also at {path}:1); keep one"
        for line, shown in ((2, key), (3, longer.key))
    ]


def test_a_sealed_line_whose_request_was_edited_is_reported(tmp_path: Path) -> None:
    # Written again as the store writes it, the old seal kept: the seal no longer vouches.
    edited = fixture(0).to_json()
    edited["request"]["max_tokens"] = 99
    path = tmp_path / "s.jsonl"
    path.write_bytes(orjson.dumps(edited) + b"\n")
    expected = Fixture.create(edited["request"], []).key
    assert report(path) == [
        f"{path}:1: key {edited['key']} does not match its request (expected {expected}); the "
        "request or its key was edited after recording: revert the edit, or remove it and "
        "record again (mode rerecord replaces it only where the code sends its request as it "
        "is now)"
    ]


def test_a_file_changed_before_its_sample_lines_were_placed_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(fixture(0).to_line() + sample(0, 1, answer("b")))
    results = [check_segment(segment, True, NOTHING_SAFE) for segment in file_segments(str(path))]
    rereads = Rereads()
    assert rereads.sampled_requests(results).requests != {}
    assert rereads.changed == []
    path.write_bytes(fixture(1).to_line() + sample(0, 1, answer("b")))  # the same lengths
    for gone in (False, True):
        if gone:
            path.unlink()
        rereads = Rereads()
        assert rereads.sampled_requests(results).requests == {}
        assert [(p.file, p.line, p.reason) for p in rereads.changed] == [(str(path), 0, REPLACED)]
        rereads.close()


def test_a_repeated_request_in_a_file_changed_meanwhile_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(fixture(0).to_line() * 2)
    results = [check_segment(segment, True, NOTHING_SAFE) for segment in file_segments(str(path))]
    path.write_bytes(fixture(1).to_line() * 2)
    requests, rereads = StoreRequests(), Rereads()
    assert list(across_store(results[0], requests, 0, {}, rereads)) == []
    rereads.close()
    assert not requests.repeated and requests.conflicts == 0
    assert [(p.file, p.reason) for p in rereads.changed] == [(str(path), REPLACED)]


def test_copies_of_a_fixture_whose_responses_differ_in_key_order_only_are_one(
    tmp_path: Path,
) -> None:
    one = fixture(0)
    shuffled = dict(reversed(list(one.response.items())))
    assert orjson.dumps(shuffled) != orjson.dumps(one.response)
    path = tmp_path / "s.jsonl"
    other = Fixture(one.key, one.request, (shuffled,), META).sealed()
    path.write_bytes(one.to_line() + other.to_line() + one.to_line())
    assert report(path) == []
