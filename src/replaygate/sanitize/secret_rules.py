"""The secret rules: token families, auth schemes and credentials in URLs.

Each rule is a :class:`Detector`: a name, a regular expression, and literal anchors
of which every match contains at least one (the scanner searches a whole fixture for
the anchors first, so a clean fixture costs one pass). The families follow the
plugins of ``detect-secrets`` (``tests/test_secret_rules_vs_detect_secrets.py``
checks that every token its plugins find is found here too) and add the providers
an LLM application meets. To add a rule, append a :class:`Detector` to
:data:`DETECTORS` and a sample to that test's corpus; ``docs/security.md`` says more.
"""

from __future__ import annotations

import itertools
import re
import string
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from replaygate.sanitize.secret_prefilter import Runs, contains_any, folded

# Not preceded by a letter or digit (an underscore may precede: ``AWS_KEY_AKIA...``).
_START = r"(?<![A-Za-z0-9])"


def _started(prefix: str, rest: str) -> str:
    """``prefix`` (a pattern of one width) where :data:`_START` allows it, then ``rest``.

    The look-behind follows the prefix and reads the character before it, so that the
    pattern begins with the prefix's text or characters: re then skips to where those
    stand, where a pattern beginning with a look-behind is tried at every position of the
    text (the scan of a megabyte of base64, whose ``AC`` and ``SK`` wake the Twilio rule,
    in about half the time)."""
    return f"{prefix}(?<![A-Za-z0-9](?:{prefix})){rest}"


@dataclass(frozen=True)
class Detector:
    """A named pattern, literal texts of which every match contains at least one, and what
    a match must also hold (``valid``, read on the text matched), if anything."""

    name: str
    pattern: re.Pattern[str]
    anchors: tuple[str, ...]
    valid: Callable[[str], bool] | None = None

    def starts(self, text: str) -> Iterator[int]:
        """Where each match of this rule in ``text`` starts (matches do not overlap)."""
        return (start for start, _ in self.spans(text))

    def spans(self, text: str) -> Iterator[tuple[int, int]]:
        """``(start, end)`` of each match of this rule in ``text`` (they do not overlap)."""
        for match in self.pattern.finditer(text):
            if self.valid is None or self.valid(match.group()):
                yield match.span()

    def takes_whole(self, text: str) -> bool:
        """Whether ``text`` is one match of this rule, end to end."""
        return self.pattern.fullmatch(text) is not None and (self.valid is None or self.valid(text))


def _rule(
    name: str,
    pattern: str,
    *anchors: str,
    flags: int = 0,
    valid: Callable[[str], bool] | None = None,
) -> Detector:
    return Detector(name, re.compile(pattern, flags), anchors, valid)


_DIGIT = re.compile("[0-9]")


def _random_key(match: str) -> bool:
    """Whether an ``sk-`` run (:data:`DETECTORS`' OpenAI rule) is a key: 32 characters or
    more after ``sk-``, a digit among them (a hyphenated phrase, ``sk-task-...``, has none)."""
    return len(match) >= 35 and _DIGIT.search(match, 3) is not None


_PLACEHOLDER = re.compile(
    r"(?i)<[^<>]*>|\{[^{}]*\}|\$\{[^{}]*\}|\$[A-Z_][A-Z0-9_]*|%\([^()]*\)s|[*xX.]+|"
    r"(?:my|your|the)?[-_]?(?:password|passwd|pass|pwd|pw|secret)|changeme|redacted"
)
"""A password written as a placeholder: ``<password>``, ``{password}``, ``${DB_PASSWORD}``,
``$PGPASSWORD``, ``%(password)s``, ``****``, ``password``, ``your_password``."""


def _placeholder_password(url: str) -> bool:
    """Whether the password of ``url`` (a match of the ``password in URL`` rule) is a
    placeholder (:data:`_PLACEHOLDER`) or its user's name (``guest:guest``, a service's
    default in an example): a URL of documentation or a local setup, no secret."""
    user, _, password = url.partition("://")[2].partition("@")[0].partition(":")
    return password == user or _PLACEHOLDER.fullmatch(password) is not None


PEM_KEY = "PEM private key"
"""The rule whose match is a private key's first line (the key is the block it opens)."""

DETECTORS: tuple[Detector, ...] = (
    _rule("Anthropic API key", _started("sk-ant-", r"[A-Za-z0-9_\-]{20,}"), "sk-ant-"),
    # Before OpenAI's rule, whose sk- it starts with, so a match is named for Langfuse.
    _rule(
        "Langfuse secret key",
        _started("sk-lf-", "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
        "sk-lf-",
    ),
    # The whole run after sk- is taken at once and then checked (_random_key): a search
    # for its digit from each sk- of a run would read the rest of the run each time (a run
    # of "sk-" repeated took seconds). A key of a kind (sk-proj-...) is in that run.
    _rule("OpenAI API key", _started("sk-", r"[A-Za-z0-9_\-]*+"), "sk-", valid=_random_key),
    # A Realtime API client secret (client.realtime.client_secrets.create()), which a
    # browser or phone opens a voice session with, billed to the key's organization.
    _rule("OpenAI ephemeral key", _started("ek_", "[0-9a-f]{32}(?![0-9A-Za-z])"), "ek_"),
    _rule(
        "AWS access key id",
        _started("A", r"(?:KIA|SIA|BIA|CCA|3T[A-Z0-9])[0-9A-Z]{16}(?![0-9A-Z])"),
        "AKIA",
        "ASIA",
        "ABIA",
        "ACCA",
        "A3T",
    ),
    _rule(
        "GitHub token",
        _started("g", r"(?:h[pousr]_[A-Za-z0-9_]{36,}|ithub_pat_[A-Za-z0-9_]{40,})"),
        "ghp_",
        "gho_",
        "ghu_",
        "ghs_",
        "ghr_",
        "github_pat_",
    ),
    _rule(
        "GitLab token",
        "(?:"
        + _started("gl", r"(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas)-[A-Za-z0-9_\-]{20,}")
        + "|"
        + _started("GR1348941", r"[A-Za-z0-9_\-]{20,}")
        + ")",
        "glpat-",
        "gldt-",
        "glft-",
        "glsoat-",
        "glrt-",
        "glcbt-",
        "glimt-",
        "glptt-",
        "glagent-",
        "gloas-",
        "GR1348941",
    ),
    _rule(
        "Slack token",
        _started("x", r"(?:ox[abposre]|app)-[0-9A-Za-z\-.]{11,}"),
        "xox",
        "xapp-",
        flags=re.IGNORECASE,
    ),
    # Also as a request's path, without its host: a replay miss prints the path read apart.
    _rule(
        "Slack webhook",
        r"hooks\.slack\.com/(?:services|workflows)/T[A-Za-z0-9_]+/[A-Za-z0-9_/]+"
        r"|/services/T[A-Z0-9]{8,12}/B[A-Z0-9]{8,12}/[A-Za-z0-9]{24}(?![A-Za-z0-9])",
        "hooks.slack.com",
        "/services/T",
    ),
    _rule("Google API key", _started("AIza", r"[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])"), "AIza"),
    _rule(
        "Google OAuth token",
        "(?:"
        + _started(r"ya29\.", r"[0-9A-Za-z_\-]{20,}")
        + "|"
        + _started("GOCSPX-", r"[0-9A-Za-z_\-]{20,}")
        + "|"
        + _started("1//0", r"[0-9A-Za-z_\-]{30,}")
        + ")",
        "ya29.",
        "GOCSPX-",
        "1//0",
    ),
    _rule(
        "Stripe secret key",
        _started("sk_live_", "[0-9A-Za-z]{16,}")
        + "|"
        + _started("rk_live_", "[0-9A-Za-z]{16,}")
        + "|whsec_[0-9A-Za-z]{24,}",
        "sk_live_",
        "rk_live_",
        "whsec_",
    ),
    _rule("Hugging Face token", _started("hf_", "[A-Za-z0-9]{30,}"), "hf_"),
    # Tracing services' keys, which a traced agent's environment holds: LangSmith's are
    # lower-case hex, under the free-standing entropy rule's mix of cases.
    _rule(
        "LangSmith API key",
        _started("lsv2_", r"(?:pt|sk)_[A-Za-z0-9]{32,}+(?:_[A-Za-z0-9]++)*+"),
        "lsv2_",
    ),
    _rule("Logfire token", _started("pylf_v", r"[0-9]++_[a-z]++_[A-Za-z0-9_\-]{20,}"), "pylf_v"),
    _rule("npm token", _started("npm_", "[A-Za-z0-9]{36}(?![A-Za-z0-9])"), "npm_"),
    _rule("PyPI token", _started("pypi-AgE", r"[A-Za-z0-9_\-]{50,}"), "pypi-AgE"),
    _rule("SendGrid key", _started(r"SG\.", r"[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}"), "SG."),
    _rule("Twilio key", _started("(?:AC|SK)", "[a-f0-9]{32}(?![A-Za-z0-9])"), "AC", "SK"),
    _rule("Mailchimp key", _started("[0-9a-f]", "[0-9a-f]{31}-us[0-9]{1,2}(?![0-9])"), "-us"),
    _rule("Square token", _started("sq0", r"(?:csp|atp)-[0-9A-Za-z\-_]{22,}"), "sq0"),
    # Also after the "bot" that the Bot API's URLs put before it (/bot<token>/sendMessage).
    _rule(
        "Telegram bot token",
        _started("[0-9]", r"[0-9]{7,9}:AA[0-9A-Za-z_\-]{33}")
        + r"|bot[0-9]{8,10}:AA[0-9A-Za-z_\-]{33}",
        ":AA",
    ),
    _rule(
        "Azure storage key",
        r"AccountKey=[A-Za-z0-9+/=]{86,88}",
        "AccountKey=",
    ),
    # AKCp, not AKC: "+AKC" or "/AKC" and 60 letters or digits turn up by chance about
    # once in 4 MB of base64 (an image); an Artifactory key starts AKCp.
    _rule("Artifactory token", _started("AKCp", "[A-Za-z0-9]{60,}"), "AKCp"),
    _rule(
        "password in URL",
        # The scheme is read from the start of its run of scheme characters, once: a
        # search starting at each letter of a long run would read the rest of it again.
        # The user may be empty: a Redis URL gives the password alone (redis://:pw@host).
        r"(?<![A-Za-z0-9+.\-])[0-9+.\-]*+[A-Za-z][A-Za-z0-9+.\-]*+"
        r"://[!#-.0-9;-?A-~]*:[!#-.0-9;-?A-~]{3,}@[!#-.0-9;-?A-~]+",
        "://",
        valid=lambda url: not _placeholder_password(url),
    ),
    _rule(
        PEM_KEY,
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-",
        "PRIVATE KEY",
        "PuTTY-User-Key-File-",
    ),
    _rule(
        "JSON web token",
        _started("eyJ", r"[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}"),
        "eyJ",
    ),
)
"""Every token family replaygate refuses, in the order they are tried."""


_CASES = tuple((detector, bool(detector.pattern.flags & re.IGNORECASE)) for detector in DETECTORS)
"""Each rule, and whether it ignores case (read once: a flag test costs an enum operation)."""
_SHORTEST_ANCHOR = min(len(anchor) for detector in DETECTORS for anchor in detector.anchors)
"""The length of the shortest anchor: every match holds one, so no shorter text matches."""


def _spellings(anchor: str) -> list[str]:
    """``anchor`` in each mix of upper and lower case of its ASCII letters."""
    return [
        "".join(letters) for letters in itertools.product(*({c.lower(), c.upper()} for c in anchor))
    ]


def _branches(words: list[str]) -> list[str]:
    """The alternatives of a pattern of ``words`` (none starting another): one a first
    character, followed by what follows it in those words, as a tree."""
    by_first: dict[str, list[str]] = {}
    for word in words:
        by_first.setdefault(word[0], []).append(word[1:])
    return [
        re.escape(first)
        + (re.escape(rest[0]) if len(rest) == 1 else f"(?:{'|'.join(_branches(rest))})")
        for first, rest in by_first.items()
    ]


def _any_of(words: set[str]) -> str:
    """A pattern matching where any of ``words`` starts: a word that starts with another
    is left to that one, and the rest branch on each character in turn, so that re tries
    one branch a character at each place, not every word (a third of the time)."""
    least = sorted(w for w in words if not any(w.startswith(v) and v != w for v in words))
    return "|".join(_branches(least))


_ANY_ANCHOR = re.compile(
    _any_of(
        {
            spelled
            for d, folds in _CASES
            for a in d.anchors
            for spelled in (_spellings(a) if folds else [a])
        }
    )
)
"""Any rule's anchor, in its case or in any case as its rule reads it: in ASCII text, where
ignoring case is lowering it (:func:`~.secret_prefilter.folded`), no match means no rule
can match. An anchor read in any case is written in each of its spellings: every branch
of the pattern starts with a literal character, so the search skips, in C, to where one
of those stands (a branch ignoring case would have it try every branch at every
character)."""

LONG_TEXT = 1 << 20
"""Characters from which a text's anchors are looked for in its runs (:func:`candidates`)."""
_ANYWHERE = frozenset({"password in URL", PEM_KEY})
"""The rules a match of which may stand outside a run: a quote in a URL's password, a space
in a PEM header."""


def candidates(text: str) -> Iterator[Detector]:
    """The rules of :data:`DETECTORS`, in order, of which an anchor occurs in ``text``: the
    others cannot match. Substring searches cost a fraction of a pattern's on a long text
    (a megabyte of base64); the anchors are looked for by their first two characters first
    (those of the ten GitLab anchors are one search), and those of a rule ignoring case in
    ``text`` in lower case (:func:`~.secret_prefilter.folded`), once. In a text of
    :data:`LONG_TEXT` characters or more they are looked for in its runs
    (:class:`~.secret_prefilter.Runs`: every match of a rule but those of :data:`_ANYWHERE`
    lies in one, its characters all in a run's), a fraction of the text but in a log or
    base64."""
    if len(text) < _SHORTEST_ANCHOR:  # no anchor fits (the printable stretches of most binary)
        return
    if len(text) < LONG_TEXT and text.isascii() and _ANY_ANCHOR.search(text) is None:
        return  # most strings of a request: one search in C instead of one a rule
    starts: dict[str, bool] = {}

    def occurs(anchor: str) -> bool:
        start = anchor[:2]
        found = starts.get(start)
        if found is None:
            found = starts[start] = start in text
        return found and anchor in text

    runs = (
        Runs.of(text.encode("utf-8", "surrogatepass")).joined() if len(text) >= LONG_TEXT else None
    )
    lowered: str | None = None
    for detector, ignores_case in _CASES:
        if ignores_case:
            if lowered is None:
                lowered = folded(text) or ""  # "": no lower case of the same length
            if lowered and not any(anchor.lower() in lowered for anchor in detector.anchors):
                continue
        elif runs is not None and detector.name not in _ANYWHERE:
            if not contains_any(runs, (anchor.encode() for anchor in detector.anchors)):
                continue
        elif not any(occurs(anchor) for anchor in detector.anchors):
            continue
        yield detector


def _anchors() -> tuple[tuple[bytes, ...], tuple[bytes, ...], tuple[bytes, ...]]:
    exact, folded, spaced = set(), set(), set()
    for detector in DETECTORS:
        for anchor in detector.anchors:
            if " " in anchor:
                spaced.add(anchor.encode())
            elif detector.pattern.flags & re.IGNORECASE:
                folded.add(anchor.lower().encode())
            else:
                exact.add(anchor.encode())
    return tuple(sorted(spaced)), tuple(sorted(exact)), tuple(sorted(folded))


SPACED_ANCHORS, EXACT_ANCHORS, FOLDED_ANCHORS = _anchors()
"""The rules' anchors: those holding a space, the others in their case, the others in lower
case (their rule ignores case)."""


def _alternatives(anchors: tuple[bytes, ...]) -> re.Pattern[bytes]:
    """One alternation, grouped by first byte (a position is tried against one group)."""
    groups: dict[bytes, list[bytes]] = {}
    for anchor in sorted(anchors, key=len, reverse=True):
        groups.setdefault(anchor[:1], []).append(re.escape(anchor[1:]))
    return re.compile(
        b"|".join(
            re.escape(first) + b"(?:" + b"|".join(rest) + b")" for first, rest in groups.items()
        )
    )


_EXACT, _FOLDED = _alternatives(EXACT_ANCHORS), _alternatives(FOLDED_ANCHORS)


def may_match_family(runs: Runs) -> bool:
    """False only when no rule of :data:`DETECTORS` can match (none of its anchors occurs).

    Anchors without a space are looked for in the runs only (a short text).
    """
    if contains_any(runs.data, SPACED_ANCHORS):
        return True
    joined = runs.joined()
    return bool(joined) and bool(_EXACT.search(joined) or _FOLDED.search(runs.lowered()))


_ENCODED_LETTERS = frozenset(string.ascii_letters + string.digits + "+/-_")
"""The letters of base64 and base64url."""
_ENCODED_TEXT = _ENCODED_LETTERS | {"="}
"""What base64 and base64url data hold: their letters and the padding."""


def detect_family(text: str, *, encoded: bool = False) -> str | None:
    """The name of the first rule of :data:`DETECTORS` that matches ``text``, or None.

    In encoded data (``encoded``: an image, a provider's encrypted reasoning) a match
    counts only where it stands apart, not glued after a letter of base64 or base64url:
    ``-sk-`` followed by 32 such letters turns up by chance about once in 8 MB of
    base64url (an ``encrypted_content`` is), ``+AKCp`` and 60 letters in base64. A match
    holding a character neither writes (the dots of a Slack webhook's host, a JWT's) is no
    chance run of either and counts wherever it stands: ``https://hooks.slack.com/...``
    follows a ``/``.

    A rule whose anchors are matched in their case is run only when one of them occurs
    in ``text``: a substring search costs a fraction of a pattern's on a long text (a
    megabyte of base64)."""
    for detector in candidates(text):
        if not encoded:
            if next(detector.starts(text), None) is not None:
                return detector.name
        elif any(_apart(text, start, end) for start, end in detector.spans(text)):
            return detector.name
    return None


def _apart(text: str, start: int, end: int) -> bool:
    """Whether the match from ``start`` to ``end`` is no chance run of encoded data: it
    stands apart from a letter before it, or holds a character no base64 holds."""
    if start == 0 or text[start - 1] not in _ENCODED_LETTERS:
        return True
    return not _ENCODED_TEXT.issuperset(text[start:end])
