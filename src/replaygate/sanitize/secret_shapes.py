"""Made-up keys of the shape of every secret the scan refuses, for checking known-safe patterns.

A known-safe pattern (:mod:`.secret_allow`) that matches one of these would let every
real key of that shape be written (law 4). They are made here from the rules themselves:
for each family of :data:`~.secret_rules.DETECTORS`, each of its anchors followed by
filler of each length keys have, kept when the family's own pattern takes it whole;
the prefixes within a family (``sk-proj-``, ``sk-ant-admin01-``...) and the shapes an
anchor alone does not give (a webhook, a JWT, a PEM header...) are added by hand; and a
free-standing high-entropy token of every length from
:data:`~.secret_entropy.FREE_MIN_LENGTH` to 64, and long ones. The filler is no key of
anyone's: no key-shaped literal sits in the source.
"""

from __future__ import annotations

import functools

from replaygate.sanitize.secret_entropy import FREE, FREE_MIN_LENGTH
from replaygate.sanitize.secret_rules import DETECTORS

_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"
_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
_HEX = "0123456789abcdef"
_DIGITS = "0123456789"
_LENGTHS = (16, 20, 22, 24, 30, 32, 35, 36, 40, 43, 48, 56, 60, 64, 93, 128, 512, 4096)
"""Lengths keys have, and long ones: a family with no upper bound takes a pattern such
as ``[\\w.-]{120,}`` whole only at a length it allows."""


@functools.cache
def filler(length: int, alphabet: str = _ALPHABET) -> str:
    """``length`` characters of ``alphabet`` in a fixed, random-looking order."""
    return "".join(alphabet[(i * 23 + 5) % len(alphabet)] for i in range(length))


def _by_hand() -> list[tuple[str, str]]:
    """The shapes an anchor and filler do not make: prefixes within a family, and keys
    with more than one part."""
    f = filler
    return [
        ("Anthropic API key", "sk-ant-api03-" + f(93) + "AA"),
        ("Anthropic API key", "sk-ant-admin01-" + f(93) + "AA"),
        *(("OpenAI API key", f"sk-{kind}" + f(56)) for kind in ("proj-", "svcacct-", "admin-")),
        ("Langfuse secret key", "sk-lf-" + "-".join(f(n, _HEX) for n in (8, 4, 4, 4, 12))),
        *(
            ("LangSmith API key", f"lsv2_{kind}_" + f(32, _HEX) + "_" + f(10, _HEX))
            for kind in ("pt", "sk")
        ),
        ("Logfire token", "pylf_v1_us_" + f(40)),
        ("AWS access key id", "A3T" + f(1, _UPPER) + f(16, _UPPER)),
        *(("Slack token", f"xox{kind}-" + f(11, _DIGITS) + "-" + f(24)) for kind in "abposre"),
        ("Slack token", "xapp-1-" + f(11, _UPPER) + "-" + f(24)),
        ("Slack webhook", "hooks.slack.com/services/T" + f(8, _UPPER) + "/B" + f(8) + "/" + f(24)),
        ("SendGrid key", "SG." + f(22) + "." + f(43)),
        ("Mailchimp key", f(32, _HEX) + "-us12"),
        *(("Square token", f"sq0{kind}-" + f(22)) for kind in ("atp", "csp")),
        ("Telegram bot token", f(9, _DIGITS) + ":AA" + f(33)),
        ("Azure storage key", "AccountKey=" + f(86) + "=="),
        ("password in URL", "https://deploy:" + f(12) + "@example.com"),
        ("PEM private key", "-----BEGIN RSA PRIVATE KEY-----"),
        ("PEM private key", "PuTTY-User-Key-File-3"),
        ("JSON web token", "eyJ" + f(20) + ".eyJ" + f(30) + "." + f(40)),
        ("JSON web token", "eyJ" + f(36) + ".eyJ" + f(400) + "." + f(128)),
    ]


def _from_anchors() -> list[tuple[str, str]]:
    """For each family, anchor and length keys have, the anchor and filler of that
    length its pattern takes whole (the first alphabet it takes)."""
    made = []
    for detector in DETECTORS:
        for anchor in detector.anchors:
            for length in _LENGTHS:
                candidates = (anchor + filler(length, a) for a in (_ALPHABET, _UPPER, _HEX))
                shape = next((c for c in candidates if detector.takes_whole(c)), None)
                if shape is not None:
                    made.append((detector.name, shape))
    return made


@functools.cache
def real_shapes() -> tuple[tuple[str, str], ...]:
    """``(family, made-up key)`` for every shape a known-safe pattern must not match."""
    lengths = (*range(FREE_MIN_LENGTH, 65), 128, 512, 4096)
    free = [(FREE, filler(length)) for length in lengths]
    return (*_from_anchors(), *_by_hand(), *free)
