"""Secrets masked in what is printed: the values a replay miss's diff shows.

A miss goes to the test's output, which CI logs and JUnit reports keep; the request that
missed may carry a key the code under test put in a prompt. :func:`masked_pair` gives two
values with each match of a token family (:data:`~.secret_rules.DETECTORS`) in their
strings and field names, and each credential after an auth scheme (``Bearer ...``),
replaced by its rule, a number and its length (``<GitHub token #1, 40 characters>``): one
key reads the same on both sides and two keys read apart, so the diff still shows where
the change is. A string the recording's secret scan would still refuse once those are
masked (:func:`~.secret_scan.detect_in_text`, under its field's name) is masked whole: a
key in a decoded form (``\\u``-escaped, in base64), a high-entropy value in a
credential-named field (``metadata.api_key``) or after a credential name written in text
(``api_key: ...``; of a request's ``path``, its query alone:
``?aws_secret_access_key=...``).
A key split across adjacent text blocks of one list (:mod:`.secret_blocks`) is masked
in each block that holds a part of it.
The free-standing rule is left out, so that a nonce that makes a request miss still shows.

Compressed data is read within one :class:`~.secret_compressed.Budget` for each value, as
for the fixture it would be, and a string both hold is read once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from replaygate.sanitize.secret_blocks import split_blocks
from replaygate.sanitize.secret_compressed import Budget
from replaygate.sanitize.secret_entropy import SCHEME, scheme_credentials
from replaygate.sanitize.secret_rules import PEM_KEY, candidates
from replaygate.sanitize.secret_scan import detect_in_text

_PEM_END = re.compile(r"-----END [^\n-]*-----")


def _key_end(text: str, end: int) -> int:
    """Where the private key whose header ends at ``end`` ends: after its END line, or
    with the text."""
    found = _PEM_END.search(text, end)
    return found.end() if found else len(text)


def _spans(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, rule)`` of each token-family match and credential after a scheme; a
    private key's header with its body, to its ``-----END ...-----`` line or the text's end."""
    spans = [
        (start, _key_end(text, end) if detector.name == PEM_KEY else end, detector.name)
        for detector in candidates(text)
        for start, end in detector.spans(text)
    ]
    spans += [(m.start(2), m.end(2), SCHEME) for m, _ in scheme_credentials(text)]
    return sorted(spans)


def masked_pair(left: Any, right: Any) -> tuple[Any, Any]:
    """``left`` and ``right`` (JSON values) with the secrets of their strings and field
    names masked, numbered over both."""
    numbers: dict[str, int] = {}
    done: dict[tuple[str, str], str] = {}

    def shown(secret: str, name: str) -> str:
        number = numbers.setdefault(secret, len(numbers) + 1)
        return f"<{name} #{number}, {len(secret)} characters>"

    def mask(text: str, field_name: str, budget: Budget) -> str:
        if (text, field_name) in done:
            return done[text, field_name]
        pieces, at = [], 0
        for start, end, name in _spans(text):
            if start < at:  # inside a match already masked (two rules overlap)
                continue
            pieces += [text[at:start], shown(text[start:end], name)]
            at = end
        masked = "".join([*pieces, text[at:]])
        # what the recording would refuse, but the free-standing rule (encoded=True)
        found = detect_in_text(masked, field_name, encoded=True, budget=budget)
        if found is None:
            result = masked
        elif (
            field_name == "path"
            and (parts := text.partition("?"))[1]
            and mask(parts[0], "", budget) == parts[0]
        ):
            result = f"{parts[0]}?{shown(parts[2], found)}"  # a URL's query, its path kept
        else:
            result = shown(text, found)
        done[text, field_name] = result
        return result

    def masked(value: Any, budget: Budget, field_name: str = "") -> Any:
        if isinstance(value, str):
            return mask(value, field_name, budget)
        if isinstance(value, dict):
            return {
                mask(k, "", budget) if isinstance(k, str) else k: masked(v, budget, str(k))
                for k, v in value.items()
            }
        if isinstance(value, list):
            items = [masked(item, budget, field_name) for item in value]
            for index, name in split_blocks(value, lambda text: found_in(text, budget)).items():
                items[index] = {**items[index], "text": shown(value[index]["text"], name)}
            return items
        return value

    def found_in(text: str, budget: Budget) -> str | None:
        return detect_in_text(text, "text", encoded=True, budget=budget)

    # one budget for each request, as the scan of its fixture has one
    return masked(left, Budget()), masked(right, Budget())


def masked_value(value: Any) -> Any:
    """``value`` (a JSON value: a run's output kept in a results file) with the secrets of
    its strings and field names masked as :func:`masked_pair` masks them."""
    return masked_pair(value, None)[0]


def masked_texts(texts: Iterable[str]) -> tuple[str, ...]:
    """``texts`` (lines of a report: an error a live server answered, a field path it
    sent) with their secrets masked as :func:`masked_pair` masks them, numbered over all."""
    shown, _ = masked_pair(list(texts), [])
    return tuple(shown)


def masked_error(error: BaseException) -> str:
    """``<kind>: <message>`` of ``error``, as a message or a report shows it, with the secrets
    its message holds masked as :func:`masked_texts` masks them (an API's error echoing the
    key it was sent, an agent's error quoting one)."""
    return masked_texts([f"{type(error).__name__}: {error}"])[0]
