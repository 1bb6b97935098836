"""Personal data: built-in patterns and user rules that replace text with constructed values.

Built-in classes (``personal_data = [...]``):

- ``email``: an address (its local part and domain in any script) becomes
  ``user-<8 hex>@example.com``. Addresses at reserved
  domains (``example.com``/``.net``/``.org``, ``*.example``, ``*.invalid``,
  ``*.test``, ``*.localhost``) are not personal and are kept;
- ``phone``: a number of 10 to 15 ASCII digits written with a leading ``+``, an area code
  in parentheses, or in at least three groups (not a list of years) becomes
  ``+1-<area>-555-01<nn> ext. <8 digits>`` (the range reserved for fiction, with an
  extension that keeps the replacements of different numbers apart);
- ``card``: 13 to 19 ASCII digits (spaces or hyphens allowed) starting with 2 to 6 and
  passing the Luhn check become ``0000-<11 digits and a Luhn check digit>``, in groups
  of four.

A constructed value depends only on the original text (a SHA-256 of it), so the same
address gets the same replacement in every fixture and at replay; cards and phones have
enough digits (10^11 cards, about 10^13 phones) that two different numbers do not share
one, since a request about one would then match the fixture of the other. An address
gets a 32-bit digest: two share one with odds of about 1 in 4 billion per pair.
It is a fixed point: running the rules on it again leaves it as it is. That is what keeps a
redacted fixture matching the live-shaped request, whose later turns carry the
constructed values of replayed responses. Someone who guesses an original value can
check the guess against its replacement; the original itself is not stored.

User rules (:class:`RedactionRule`) replace a literal text or a regular expression's matches
with a fixed replacement, and run before the built-in classes. All of them read text
written with ``\\u`` escapes decoded (:mod:`~replaygate.sanitize.encoded`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from replaygate.sanitize.aligned import Edited, Plain
from replaygate.sanitize.encoded import unescaped
from replaygate.sanitize.patterns import pattern_problem

BUILTIN_CLASSES: tuple[str, ...] = ("email", "phone", "card")
DEFAULT_REPLACEMENT = "[redacted]"


def _digest(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


# -- e-mail -------------------------------------------------------------------------------

_EMAIL = re.compile(
    r"(?<![\w.%+\-])[\w.%+\-]+@(?:[^\W_](?:(?:[^\W_]|-)*[^\W_])?\.)+[^\W\d_]{2,}(?![\w\-])"
)
"""An address whose parts may hold any letter or digit, not only ASCII ones (``jörg@``,
``@corp-mäil.com``), so a match never starts or ends inside a word."""
_RESERVED_DOMAIN = re.compile(
    r"(?i)(?:^|\.)(?:example\.(?:com|net|org)|example|invalid|test|localhost)$"
)


def _email(match: re.Match[str]) -> str:
    address = match.group(0)
    if _RESERVED_DOMAIN.search(address.rpartition("@")[2]):
        return address
    return f"user-{_digest(address.lower()) % 16**8:08x}@example.com"


# -- phone --------------------------------------------------------------------------------

_PHONE = re.compile(
    r"(?<![\w+\-.:])(?:"
    r"\+[0-9]{1,3}[ \-]?(?:\([0-9]{1,4}\)[ \-]?)?[0-9]{1,14}(?:[ \-.][0-9]{1,8}){0,5}"
    r"|(?:\([0-9]{1,4}\)[ \-]?)?[0-9]{2,4}(?:[ \-.][0-9]{2,4}){1,5}"
    r")(?![\w\-:]|\.[0-9])"
)
"""A number with a leading ``+`` (E.164 written whole, ``+14155552671``, or in groups of
one to eight digits, as countries write them: ``+33 6 12 34 56 78``, ``+49 30 12345678``),
or in groups of two to four after an area code in parentheses or alone; groups are
separated by a space, a hyphen or a dot."""
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])"
_IPV4 = re.compile(rf"(?:{_OCTET}\.){{3}}{_OCTET}")
_FICTIONAL_PHONE = re.compile(r"1?[0-9]{3}55501[0-9]{2}")
_YEAR = re.compile(r"(?:19|20)\d\d")


def _leading_phone(text: str) -> str:
    """``text``, a ``+`` number run on into more groups than a number holds (``+14155552671
    12345678``, an order number after it), with the longest run of its leading groups that
    is a number (10 to 15 digits) replaced, the groups after it kept as they were."""
    pieces = re.split(r"([ \-.])", text)
    for end in range(len(pieces) - 2, 0, -2):  # drop the last group (and its separator)
        head = "".join(pieces[:end])
        if len(re.sub(r"[^0-9]", "", head)) <= 15:
            match = _PHONE.fullmatch(head)
            return (_phone(match) if match else head) + "".join(pieces[end:])
    return text


def _phone(match: re.Match[str]) -> str:
    text = match.group(0)
    digits = re.sub(r"[^0-9]", "", text)
    if text.startswith("+") and len(digits) > 15:
        return _leading_phone(text)
    if not 10 <= len(digits) <= 15 or _FICTIONAL_PHONE.fullmatch(digits):
        return text
    prefixed = text.startswith("+") or "(" in text
    groups = re.split(r"[ \-.]", text)
    if not prefixed and (
        len(groups) < 3 or all(_YEAR.fullmatch(g) for g in groups) or _IPV4.fullmatch(text)
    ):
        return text
    n = _digest(digits)
    area, n = 200 + n % 800, n // 800
    line, n = n % 100, n // 100
    return f"+1-{area}-555-01{line:02d} ext. {n % 10**8:08d}"


# -- card ---------------------------------------------------------------------------------

_CARD = re.compile(r"(?<![0-9\-])[2-6](?:[ \-]?[0-9]){12,18}(?![0-9\-])")


def _luhn_sum(digits: str) -> int:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total


def luhn_valid(digits: str) -> bool:
    """Whether a digit string passes the Luhn check (as card numbers do)."""
    return _luhn_sum(digits) % 10 == 0


def _card(match: re.Match[str]) -> str:
    text = match.group(0)
    digits = re.sub(r"[^0-9]", "", text)
    if not luhn_valid(digits):
        return text
    body = f"0000{_digest(digits) % 10**11:011d}"
    number = body + _luhn_digit(body)
    return "-".join(number[i : i + 4] for i in range(0, 16, 4))


def _luhn_digit(digits: str) -> str:
    """The check digit that makes ``digits`` followed by it pass the Luhn check."""
    return str(-_luhn_sum(digits + "0") % 10)


@dataclass(frozen=True)
class _Builtin:
    name: str
    pattern: re.Pattern[str]
    replace: Callable[[re.Match[str]], str]
    digits: bool
    """Whether a match holds ten ASCII digits (phones, cards): a shared quick check."""


_TEN_DIGITS = re.compile(r"[0-9](?:[^0-9]{0,3}[0-9]){9}")
"""Ten digits at most three other characters apart: in every phone or card match."""

BUILTINS: dict[str, _Builtin] = {
    "card": _Builtin("card", _CARD, _card, digits=True),
    "email": _Builtin("email", _EMAIL, _email, digits=False),
    "phone": _Builtin("phone", _PHONE, _phone, digits=True),
}


# -- user rules ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RedactionRule:
    """A user rule: ``literal`` text or a ``pattern`` (regular expression), and its replacement.

    ``replace`` is inserted as it is (no group references). Exactly one of
    ``literal`` and ``pattern`` is given. ``distinct``: each text matched gets a
    replacement of its own, ``replace`` and a digest of the text (``customer-<12 hex>``),
    so two ids stay two requests. Build one from Python or from a
    ``[[tool.replaygate.sanitize.rules]]`` table.
    """

    literal: str | None = None
    pattern: str | None = None
    replace: str = DEFAULT_REPLACEMENT
    ignore_case: bool = False
    distinct: bool = False
    compiled: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if (self.literal is None) == (self.pattern is None):
            raise ValueError("a rule needs exactly one of 'literal' and 'pattern'")
        source = re.escape(self.literal) if self.literal is not None else str(self.pattern)
        if not source:
            raise ValueError("a rule's literal or pattern must not be empty")
        flags = re.IGNORECASE if self.ignore_case else 0
        problem = pattern_problem(source, flags) if self.pattern is not None else None
        if problem is not None:
            raise ValueError(problem)
        compiled = re.compile(source, flags)
        object.__setattr__(self, "compiled", compiled)
        for sample in self.samples():
            if self.apply(sample) != sample:
                raise ValueError(
                    f"the replacement {sample!r} is itself matched by the rule and would "
                    "change again at replay; choose a replacement the rule does not match"
                )

    def apply(self, text: str) -> str:
        """``text`` with every match replaced."""
        return self.compiled.sub(self.replacement, text)

    def replacement(self, match: re.Match[str]) -> str:
        """What a match is replaced with."""
        if self.distinct:
            return f"{self.replace}-{_digest(match.group()) % 16**12:012x}"
        return self.replace

    def samples(self) -> tuple[str, ...]:
        """Replacements to check against the rules: ``replace``, or with ``distinct`` its
        forms made of digits alone and of letters alone."""
        if self.distinct:
            return (f"{self.replace}-{'0' * 12}", f"{self.replace}-{'f' * 12}")
        return (self.replace,)


class TextRules:
    """User rules then built-in classes, applied to one text at a time."""

    def __init__(self, classes: Sequence[str] = (), rules: Sequence[RedactionRule] = ()) -> None:
        unknown = [name for name in classes if name not in BUILTINS]
        if unknown:
            raise ValueError(
                f"unknown personal data class(es) {unknown}; known: {', '.join(BUILTIN_CLASSES)}"
            )
        self.rules = tuple(rules)
        # Cards before phones: a card number also looks like a long phone number.
        self.builtins = tuple(BUILTINS[name] for name in BUILTIN_CLASSES if name in classes)

    def __bool__(self) -> bool:
        return bool(self.rules or self.builtins)

    def apply(self, text: str) -> str:
        """``text`` with every rule applied, in order, to what it says once its ``\\u``
        escapes are decoded (:func:`~replaygate.sanitize.encoded.unescaped`)."""
        return unescaped(text, self._apply)

    def _apply(self, text: Plain | Edited) -> None:
        for rule in self.rules:
            text.sub(rule.compiled, rule.replacement)
        digits: bool | None = None
        for builtin in self.builtins:
            if builtin.digits:
                if digits is None:
                    digits = _TEN_DIGITS.search(text.text) is not None
                if not digits:
                    continue
            elif "@" not in text.text:
                continue
            text.sub(builtin.pattern, builtin.replace)
