"""Personal data replacements keep different originals apart.

Two card numbers (or phone numbers, or numeric ids taken for cards) that shared one
constructed value would make a request about one match the fixture recorded for the
other: a replayed answer for a request that was never recorded. Checked through the
``anthropic`` SDK against the simulator, replayed with the network blocked.
"""

from __future__ import annotations

import random
import re
import string
import warnings
from pathlib import Path

import pytest

from replaygate.errors import FixtureMismatchError, RequestsMergedWarning
from replaygate.fixtures.session import FixtureSession
from replaygate.http import Exchange, block_network, httpx2_client
from replaygate.sanitize import SanitizeConfig, Sanitizer
from replaygate.sanitize.pii import TextRules, luhn_valid
from replaygate.sim import Simulator
from sdks import anthropic

CARD_SHAPE = re.compile(r"0000-[0-9]{4}-[0-9]{4}-[0-9]{4}")
PHONE_SHAPE = re.compile(r"\+1-[2-9][0-9]{2}-555-01[0-9]{2} ext\. [0-9]{8}")


def ask(client: anthropic.Anthropic, text: str) -> str:
    message = client.messages.create(
        model="m", max_tokens=64, messages=[{"role": "user", "content": text}]
    )
    return str(message.content[0].text)


@pytest.mark.parametrize(
    ("kind", "recorded", "asked"),
    [  # pairs that shared one replacement when cards kept 4 digits and phones 5
        ("card", "4111111111110329", "4111111111111905"),
        ("card", "4242424242424242", "4242424200065243"),
        ("phone", "(212) 555-0375", "(212) 555-0444"),
    ],
)
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_request_about_another_number_misses(
    tmp_path: Path, kind: str, recorded: str, asked: str
) -> None:
    store = tmp_path / "pii.jsonl"
    sanitize = Sanitizer(SanitizeConfig(personal_data=(kind,)))
    with Simulator(behavior="echo") as sim:
        exchange = Exchange(store, mode="record-missing", approve_live=True, sanitize=sanitize)
        with anthropic.Anthropic(
            api_key="sk-sim", base_url=sim.url, http_client=httpx2_client(exchange)
        ) as client:
            assert ask(client, f"Refund the charge for {recorded}").endswith(recorded)
    replay = httpx2_client(Exchange(store, sanitize=sanitize))
    with block_network(), anthropic.Anthropic(api_key="t", http_client=replay) as client:
        assert ask(client, f"Refund the charge for {recorded}").startswith("echo: ")
        with pytest.raises(FixtureMismatchError) as caught:
            ask(client, f"Refund the charge for {asked}")
    assert any("messages[0].content" in line for line in caught.value.differences)


def _card(rng: random.Random) -> str:
    body = str(rng.randint(2, 6)) + "".join(rng.choices(string.digits, k=14))
    return next(body + d for d in "0123456789" if luhn_valid(body + d))


def _phone(rng: random.Random) -> str:
    return f"({rng.randint(200, 999)}) {rng.randint(200, 999)}-{rng.randint(0, 9999):04d}"


def test_thousands_of_numbers_get_thousands_of_replacements() -> None:
    rng = random.Random(7)
    cards = {_card(rng) for _ in range(3000)}
    phones = {_phone(rng) for _ in range(3000)}
    every = TextRules(["email", "phone", "card"])
    card_rules, phone_rules = TextRules(["card"]), TextRules(["phone"])
    made_cards = {card_rules.apply(card) for card in cards}
    made_phones = {phone_rules.apply(phone) for phone in phones}
    assert len(made_cards) == len(cards) and len(made_phones) == len(phones)
    for made, shape in ((made_cards, CARD_SHAPE), (made_phones, PHONE_SHAPE)):
        for value in list(made)[:200]:
            assert shape.fullmatch(value), value
            assert every.apply(value) == value  # a fixed point of every class
    assert all(luhn_valid(card.replace("-", "")) for card in made_cards)


def test_a_numeric_id_taken_for_a_card_keeps_its_distinctness() -> None:
    rules = TextRules(["card"])
    first, second = rules.apply("order 4000000000000002"), rules.apply("order 4000000000000010")
    assert first != second and CARD_SHAPE.fullmatch(first.split()[1])


def test_an_address_keeps_its_stored_replacement_and_the_docs_state_its_odds() -> None:
    rules = TextRules(["email"])
    # Replacements are 32-bit digests, kept so that stored fixtures holding them still match.
    assert rules.apply("customer70678@acme.io") == "user-45345f2d@example.com"
    assert rules.apply("customer132725@acme.io") == "user-45345f2d@example.com"
    docs = " ".join((Path(__file__).parents[1] / "docs" / "sanitize.md").read_text().split())
    assert "An address's replacement is a 32-bit digest" in docs
    assert "16^8 addresses" not in docs


def test_a_rule_that_makes_two_requests_one_warns_naming_the_field(tmp_path: Path) -> None:
    rule = {"pattern": "customer-[0-9]+", "replace": "customer-X"}
    session = FixtureSession(
        tmp_path / "s.jsonl",
        mode="record-missing",
        approve_live=True,
        sanitize=SanitizeConfig(rules=[rule]),
    )

    def sent(who: str) -> dict[str, object]:
        return {"model": "m", "messages": [{"role": "user", "content": f"refund {who}"}]}

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        session.stored_request(sent("customer-1"))
        session.stored_request(sent("customer-1"))  # the same request again: a repeat
    with pytest.warns(
        RequestsMergedWarning, match=r"at request\.messages\[0\]\.content\).*`distinct = true`"
    ):
        session.stored_request(sent("customer-2"))


def test_a_distinct_rule_gives_each_id_its_own_replacement(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[[tool.replaygate.sanitize.rules]]\n"
        'pattern = "customer-[0-9]+"\nreplace = "client"\ndistinct = true\n'
    )
    session = FixtureSession(
        tmp_path / "s.jsonl",
        mode="record-missing",
        approve_live=True,
        sanitize=Sanitizer.from_pyproject(tmp_path / "pyproject.toml"),
    )

    def stored(who: str) -> str:
        sent = {"model": "m", "messages": [{"role": "user", "content": f"refund {who}"}]}
        return str(session.stored_request(sent)["messages"][0]["content"])

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RequestsMergedWarning: two requests stay two
        first, second = stored("customer-1"), stored("customer-2")
    assert first != second and stored("customer-1") == first
    assert re.fullmatch(r"refund client-[0-9a-f]{12}", first)
