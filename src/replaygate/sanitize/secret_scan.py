"""Detectors for secret-looking values in a fixture (law 4: nothing secret is written).

Each detector is a small named rule: a regular expression and the literal anchors
that any match contains. :func:`find_secrets` walks a JSON value and returns every
path holding a match, so the error can name the field.

It is fast on the common, clean fixture: the value is serialized and searched for
the anchors (``sk-``, ``AKIA``, ``ghp_``...); when none occurs, and no string sits
under an auth-like field name, no leaf can match and nothing more is done. Large
sub-values found clean (a store's tool list and system prompt, repeated in every
fixture) are remembered by their exact serialized bytes and not searched again. A
store of 10,000 fixtures is scanned in a fraction of a second.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import orjson


@dataclass(frozen=True)
class Detector:
    """A named pattern, and literal texts of which every match contains at least one."""

    name: str
    pattern: re.Pattern[str]
    anchors: tuple[str, ...]


DETECTORS: tuple[Detector, ...] = (
    Detector(
        "Anthropic API key",
        re.compile(r"(?<![A-Za-z0-9])sk-ant-[A-Za-z0-9_\-]{20,}"),
        ("sk-ant-",),
    ),
    # A key is random: it has a digit, which a hyphenated phrase ("task-...") has not.
    Detector(
        "OpenAI API key",
        re.compile(
            r"(?<![A-Za-z0-9])sk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z_\-]*[0-9])[A-Za-z0-9_\-]{32,}"
        ),
        ("sk-",),
    ),
    Detector("AWS access key id", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), ("AKIA", "ASIA")),
    Detector(
        "GitHub token",
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})"),
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    Detector("bearer token", re.compile(r"\b[Bb]earer\s+[A-Za-z0-9_\-.=+/]{16,}"), ("earer",)),
    Detector(
        "PEM private key",
        re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"),
        ("PRIVATE KEY",),
    ),
    Detector("Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"), ("xox",)),
    Detector(
        "Google API key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])"), ("AIza",)
    ),
    Detector(
        "Stripe secret key", re.compile(r"\b[rs]k_live_[0-9A-Za-z]{16,}"), ("sk_live_", "rk_live_")
    ),
    Detector(
        "JSON web token",
        re.compile(r"\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}"),
        ("eyJ",),
    ),
)
_ANCHOR_SEARCHES: tuple[re.Pattern[bytes], ...] = (
    re.compile(rb"sk-"),
    re.compile(rb"k_live_"),
    re.compile(rb"A(?:KIA|SIA|Iza)"),
    re.compile(rb"gh[pousr]_|github_pat_"),
    re.compile(rb"earer"),
    re.compile(rb"PRIVATE KEY"),
    re.compile(rb"xox"),
    re.compile(rb"eyJ"),
)
"""Searches for every detector anchor, a few anchors per search (each is a fast scan)."""
_CLEAN_MIN_SIZE = 256
_CLEAN_MAX_ENTRIES = 256
_clean: dict[bytes, None] = {}

AUTH_LIKE_FIELD = re.compile(
    r"(?i)(^|[-_.])(auth|authorization|api[-_]?key|secret|token|password|passwd|credential|"
    r"session|cookie)s?($|[-_.])"
)
HIGH_ENTROPY = "high-entropy value in an auth-like field"
_ENTROPY_MIN_LENGTH = 20
_ENTROPY_BITS_PER_CHAR = 3.5
_auth_like_cache: dict[str, bool] = {}


@dataclass(frozen=True)
class SecretFinding:
    """Where a secret-looking value sits and which detector saw it."""

    path: str
    detector: str


def _entropy(text: str) -> float:
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def _high_entropy(text: str) -> bool:
    token = text.strip()
    return (
        len(token) >= _ENTROPY_MIN_LENGTH
        and " " not in token
        and _entropy(token) >= _ENTROPY_BITS_PER_CHAR
    )


def auth_like(field_name: str) -> bool:
    """Whether a field of this name holds credentials (``x-api-key``, ``session_token``...)."""
    known = _auth_like_cache.get(field_name)
    if known is None:
        known = AUTH_LIKE_FIELD.search(field_name) is not None
        if len(_auth_like_cache) < 4096:
            _auth_like_cache[field_name] = known
    return known


def detect_in_text(text: str, field_name: str = "") -> str | None:
    """The name of the detector that matches ``text``, or None."""
    for detector in DETECTORS:
        if detector.pattern.search(text):
            return detector.name
    if field_name and auth_like(field_name) and _high_entropy(text):
        return HIGH_ENTROPY
    return None


def _leaves(value: Any, path: str, field_name: str) -> Iterator[tuple[str, str, str]]:
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield from _leaves(item, f"{path}.{key}" if path else str(key), str(key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _leaves(item, f"{path}[{i}]", field_name)
    elif isinstance(value, str):
        yield path, field_name, value


def _holds_text(value: Any) -> bool:
    """Whether a field's value has a string leaf that keeps the field's name (not in an object)."""
    if isinstance(value, str):
        return True
    return isinstance(value, list) and any(_holds_text(item) for item in value)


def _auth_like_name(key: Any) -> bool:
    flag = _auth_like_cache.get(key)
    return auth_like(str(key)) if flag is None else flag


def _text_under_auth_like_field(value: Any) -> bool:
    """Whether a string sits under an auth-like field name (``value`` serializes with orjson).

    Only called on values orjson serialized, so every mapping in them is a dict. A
    tight loop: it runs on every fixture a store verifies.
    """
    if not isinstance(value, dict | list):
        return False
    stack = [value]
    pop, push = stack.pop, stack.append
    while stack:
        item = pop()
        if not isinstance(item, dict):
            push_children = [c for c in item if isinstance(c, dict | list)]
            stack.extend(push_children)
            continue
        for key, child in item.items():
            kind = type(child)
            if kind is str:
                if _auth_like_name(key):
                    return True
            elif kind is dict:
                push(child)
            elif kind is list:
                if _auth_like_name(key) and _holds_text(child):
                    return True
                push(child)
            elif isinstance(child, dict | list | str):  # a subclass: the general check
                if _auth_like_name(key) and _holds_text(child):
                    return True
                if not isinstance(child, str):
                    push(child)
    return False


def _anchored(text: bytes) -> bool:
    return any(search.search(text) for search in _ANCHOR_SEARCHES)


def _parts(value: Any) -> Iterator[tuple[str | None, Any]]:
    """(field name, container) two levels down; then (None, [[name, scalar], ...]) for the rest."""
    if not isinstance(value, dict):
        yield None, [["", value]]
        return
    rest: list[list[Any]] = []
    for key, child in value.items():
        if isinstance(child, dict):
            for name, item in child.items():
                if isinstance(item, dict | list):
                    yield name, item
                else:
                    rest.append([name, item])
        elif isinstance(child, list):
            yield key, child
        else:
            rest.append([key, child])
    yield None, rest


def may_hold_secret(value: Any) -> bool:
    """False only when no leaf of ``value`` can match a built-in detector (a fast check)."""
    pending: list[tuple[bytes, Any]] = []
    try:
        for name, part in _parts(value):
            if name is None:
                # The scalars gathered as [name, value] pairs: check their names here.
                if any(isinstance(v, str) and _auth_like_name(n) for n, v in part):
                    return True
            elif _auth_like_name(name) and _holds_text(part):
                return True
            data = orjson.dumps(part, option=orjson.OPT_NON_STR_KEYS)
            if len(data) < _CLEAN_MIN_SIZE or data not in _clean:
                pending.append((data, part))
    except TypeError:
        return True
    if _anchored(b"".join(data for data, _ in pending)):
        return True
    if any(_text_under_auth_like_field(part) for _, part in pending):
        return True
    for data, _ in pending:
        if len(data) >= _CLEAN_MIN_SIZE:
            if len(_clean) >= _CLEAN_MAX_ENTRIES:
                del _clean[next(iter(_clean))]
            _clean[data] = None
    return False


def find_secrets(
    value: Any, detect: Callable[[str, str], str | None] = detect_in_text
) -> list[SecretFinding]:
    """Every leaf of ``value`` that a detector flags, by path."""
    if detect is detect_in_text and not may_hold_secret(value):
        return []
    return [
        SecretFinding(path, name)
        for path, field_name, text in _leaves(value, "", "")
        if (name := detect(text, field_name)) is not None
    ]


def find_stream_secrets(events: Any, path: str) -> list[SecretFinding]:
    """Secrets split across the events of a recorded stream, by the events' path.

    A streamed text arrives in fragments, so a key may straddle two events and
    match in no single one: the fragments of each block are joined and scanned
    whole (see :mod:`replaygate.sanitize.stream`). A finding's path names the first
    and last event of the block: ``response.events[3..7].data``.
    """
    if not isinstance(events, list):
        return []
    from replaygate.sanitize.stream import event_data, fragments

    parsed = [event_data(event) for event in events]
    owner: dict[int, int] = {}
    for i, event in enumerate(parsed):
        for container in _containers(event):
            owner[id(container)] = i
    findings = []
    for parts in fragments([event for event in parsed if event is not None]).values():
        whole = "".join(container[name] for container, name in parts)
        name = detect_in_text(whole)
        if name is not None:
            spots = sorted(owner.get(id(container), -1) for container, _ in parts)
            first, last = spots[0], spots[-1]
            where = f"[{first}]" if first == last else f"[{first}..{last}]"
            findings.append(SecretFinding(f"{path}{where}.data", name))
    return findings


def _containers(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        yield value
        for child in value.values():
            yield from _containers(child)
    elif isinstance(value, list):
        for child in value:
            yield from _containers(child)


def find_fixture_secrets(fixture: Mapping[str, Any]) -> list[SecretFinding]:
    """:func:`find_secrets` of a fixture's JSON, plus secrets split across stream events."""
    findings = find_secrets(fixture)
    if "response" in fixture:
        recorded = [("response", fixture["response"])]
    else:
        responses = fixture.get("responses")
        items = responses if isinstance(responses, list) else []
        recorded = [(f"responses[{i}]", r) for i, r in enumerate(items)]
    for path, response in recorded:
        if isinstance(response, dict) and "events" in response:
            findings.extend(find_stream_secrets(response["events"], f"{path}.events"))
    return findings
