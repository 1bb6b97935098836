"""40 MiB of decompressed text through the secret rules: the written credentials and the
token families' anchors.

Run: ``.venv/bin/python bench/bench_secret_decompressed_text.py [--repeat R] [--mib N]``
(prints a markdown table).

A compressed upload is read decompressed, up to 64 MiB a fixture, and each text read is
searched for a credential name and its value (``api_key=...``), a name ending in ``key``,
an auth scheme and a credential, and the token families. Measured, best of R runs, side
by side in one process, as they were (kept here only to compare: each pattern run over the
whole text, each anchor looked for alone) and as they are, over two texts of N MiB: a
server log (timestamps, ``key=value`` pairs, words such as ``token`` and ``session``) and
English prose. Both give the same findings (asserted).
"""

from __future__ import annotations

import argparse
import random
import re

from bench_secret_base64 import best
from replaygate.sanitize.secret_entropy import (
    AUTH_SCHEME,
    CONTEXT,
    KEY_KEYWORD,
    KEYWORD,
    SCHEME,
    _written_context,
    context_secret,
    key_name,
)
from replaygate.sanitize.secret_rules import DETECTORS, detect_family

WORDS = tuple(
    re.findall(
        r"\S+",
        "the a session token of user keys was code sig monkey secret author request value "
        "sent retry region cache passed failed with status for after",
    )
)


def log(size: int) -> str:
    """A server log of about ``size`` characters."""
    rng = random.Random(1)
    lines, total = [], 0
    while total < size:
        words = " ".join(rng.choice(WORDS) for _ in range(9))
        line = (
            f"2026-12-03T12:{rng.randint(10, 59)}:{rng.randint(10, 59)}Z INFO {words} "
            f"id={rng.randint(0, 10**9)} user_id: {rng.randint(0, 10**6)}\n"
        )
        lines.append(line)
        total += len(line)
    return "".join(lines)


def prose(size: int) -> str:
    """English prose of about ``size`` characters."""
    sentence = "The quick brown fox jumps over the lazy dog, and the session goes on. "
    return sentence * (size // len(sentence) + 1)


def old_written_context(text: str) -> str | None:
    """The written credentials as they were read: each pattern over the whole text."""
    if any(context_secret(m.group(1)) for m in KEYWORD.finditer(text)):
        return CONTEXT
    if any(key_name(m.group(1)) and context_secret(m.group(2)) for m in KEY_KEYWORD.finditer(text)):
        return CONTEXT
    for match in AUTH_SCHEME.finditer(text):
        scheme, value = match.groups()
        if scheme.lower() == "bearer" or any(c.isdigit() for c in value):
            return "bearer token" if scheme.lower() == "bearer" else SCHEME
    return None


def old_detect_family(text: str) -> str | None:
    """The token families as they were read: each anchor looked for alone, a rule ignoring
    case always run."""
    for detector in DETECTORS:
        may = detector.pattern.flags & re.IGNORECASE or any(a in text for a in detector.anchors)
        if may and next(detector.starts(text), None) is not None:
            return detector.name
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--mib", type=int, default=40)
    options = parser.parse_args()
    size = options.mib * 2**20
    print("| text | rules | as it was (s) | as it is (s) | was / is |")
    print("| --- | --- | --- | --- | --- |")
    for label, text in (
        (f"{options.mib} MiB log", log(size)),
        (f"{options.mib} MiB prose", prose(size)),
    ):
        for rules, old, new in (
            ("written credentials", old_written_context, _written_context),
            ("token families", old_detect_family, detect_family),
        ):
            assert old(text) == new(text)
            before = best(lambda: old(text), options.repeat)  # noqa: B023
            after = best(lambda: new(text), options.repeat)  # noqa: B023
            print(f"| {label} | {rules} | {before:.2f} | {after:.3f} | {before / after:,.1f}x |")


if __name__ == "__main__":
    main()
