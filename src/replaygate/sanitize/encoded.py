"""Text rules run on what encoded text says: ``\\u`` escapes and percent-encoded forms.

A Python client builds tool results and arguments with ``json.dumps``, which writes
every letter beyond ASCII as a ``\\u`` escape (``Jos\\u00e9``), and a form body or a
query string percent-encodes its values (``alice%40corp-mail.com``); a request's path
names what it asks for (``/v1/customers/alice@corp-mail.com``). The secret scan
reads these decoded (:mod:`~replaygate.sanitize.secret_decode`); the text rules do too:
the rules run on the decoded text, and a text they change is written back encoded
the way it came, so it still parses, and the same request redacted again at replay
gives the same stored form.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable
from itertools import accumulate, compress
from urllib.parse import quote_plus, unquote_plus

from replaygate.sanitize.aligned import Edited, Plain

TextFn = Callable[[str], str]
Rules = Callable[[Plain | Edited], None]
"""Text rules run on a text (:meth:`~.aligned.Plain.sub`), changing it in place."""

ESCAPE = re.compile(
    r"\\\\|\\u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})"
    r"|\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})|\\/"
)
"""An escape: an escaped backslash (so ``\\\\u00e9`` is a backslash and ``u00e9``), a
surrogate pair (one character beyond the Basic Multilingual Plane), one ``\\u`` escape,
a ``\\x`` escape or an escaped ``/``."""

_STRUCTURE = re.compile(r"[/?#]")
"""What a path segment written back escapes, so a replacement cannot split it."""

_FORM = re.compile(r"[^\s&=]+=[^\s&]*(?:&[^\s&=]+=[^\s&]*)*")
"""A body that is only ``name=value`` pairs joined by ``&`` (a form), no blank."""


def _escape(char: str) -> str:
    code = ord(char)
    if code > 0xFFFF:
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def escaped_char(match: re.Match[str]) -> str:
    """The character an escape of :data:`ESCAPE` stands for."""
    high, low, single, byte = match.groups()
    if high is not None:
        return chr(0x10000 + (int(high, 16) - 0xD800) * 0x400 + (int(low, 16) - 0xDC00))
    code = single or byte
    return chr(int(code, 16)) if code else match.group(0)[1]


def decode_escapes(text: str) -> str:
    """``text`` with every escape of :data:`ESCAPE` decoded."""
    return ESCAPE.sub(escaped_char, text)


_DECODED_ASCII = frozenset("@<>&'=")
"""The ASCII characters whose escapes are decoded: those serializers escape to keep
JSON safe in HTML (``\\u003c``), and ``@``. Any other stays escaped as written, so
writing every decoded one back escaped cannot change what the JSON held as text means
(a quote, a bracket, a space or a digit written escaped would)."""


_ESCAPES = re.compile("(" + ESCAPE.pattern.replace("(", "(?:") + ")")
""":data:`ESCAPE` as one group (its only parentheses are its groups), to split a text at."""


def _decoded(written: str) -> str:
    """What the escape ``written`` is decoded to: its character, or itself where that is
    ASCII not in :data:`_DECODED_ASCII`."""
    char = decode_escapes(written)
    return written if char.isascii() and char not in _DECODED_ASCII else char


def _plainly(text: str, rules: Rules) -> str:
    """``text`` as ``rules`` change it, where no escape needs writing back."""
    plain = Plain(text)
    rules(plain)
    return plain.text


def unescaped(text: str, rules: Rules) -> str:
    """``rules`` run on ``text`` with its ``\\u`` and ``\\x`` escapes decoded; what they
    changed (:meth:`~.aligned.Edited.stretches`) is written back escaped: each character as
    it was escaped in what it replaced, and, in a text written in ASCII only, any new
    character beyond ASCII as a ``\\u`` escape. What they did not change is written back
    as it was."""
    if "\\u" not in text and "\\x" not in text:
        return _plainly(text, rules)
    # the text and its escapes in turn (text, escape, text, ..., text), each escape told
    # once however often it is written: a big body escapes the same few characters
    # hundreds of thousands of times, and a step of Python per escape took seconds
    parts = _ESCAPES.split(text)
    escapes = parts[1::2]
    said = {written: _decoded(written) for written in set(escapes)}
    parts[1::2] = chars = [said[written] for written in escapes]
    told = [char != written for char, written in zip(chars, escapes, strict=True)]
    if not any(told):
        return _plainly(text, rules)
    # the decoded text's places of decoded escapes, and the escapes written there
    places = list(compress(list(accumulate(map(len, parts), initial=0))[1::2], told))
    writings = list(compress(escapes, told))
    decoded = "".join(parts)
    edited = Edited(decoded)
    rules(edited)
    out = edited.text
    if out == decoded:
        return text
    longer = list(accumulate((len(w) - 1 for w in writings), initial=0))

    def origin(at: int) -> int:
        """Where the decoded text's place ``at`` stands in ``text``."""
        return at + longer[bisect_left(places, at)]

    def first_writings(first: int, last: int) -> dict[str, str]:
        """The escape first written for each character decoded at ``places[first:last]``."""
        return {decoded[places[k]]: writings[k] for k in reversed(range(first, last))}

    everywhere = first_writings(0, len(places))
    ascii_only = text.isascii()
    written_back: list[str] = []
    for i1, i2, j1, j2, same in edited.stretches():
        if same:
            written_back.append(text[origin(i1) : origin(i2)])
            continue
        here = first_writings(bisect_left(places, i1), bisect_left(places, i2))
        new = out[j1:j2]
        if not here and not (ascii_only and not new.isascii()):
            written_back.append(new)  # no character of it to write escaped
            continue
        written_back.extend(
            here.get(c)
            or (everywhere.get(c) or _escape(c) if ascii_only and not c.isascii() else c)
            for c in new
        )
    return "".join(written_back)


def form_values(text: str, fn: TextFn) -> str:
    """``fn`` run on each value of a query string or form body, percent-decoded; a value
    it changes is written back encoded (as ``urlencode`` does), the rest as they were."""
    pairs = text.split("&")
    changed = False
    for i, pair in enumerate(pairs):
        name, equals, value = pair.partition("=")
        if not equals:
            name, value = "", pair
        plain = unquote_plus(value, errors="surrogateescape")
        out = fn(plain)
        if out != plain:
            pairs[i] = name + equals + quote_plus(out, safe="", errors="surrogateescape")
            changed = True
    return "&".join(pairs) if changed else text


def is_form(text: str) -> bool:
    """Whether a text body is a form: ``name=value`` pairs joined by ``&``, no blank."""
    return _FORM.fullmatch(text) is not None


def path_parts(path: str, fn: TextFn) -> str:
    """``fn`` run on each segment of an envelope's path (kept decoded) and each value of
    its query string (:func:`form_values`); a segment it changes is written back with
    ``/``, ``?`` and ``#`` escaped, so the path keeps its segments."""
    bare, question, query = path.partition("?")
    segments = bare.split("/")
    changed = False
    for i, segment in enumerate(segments):
        out = fn(segment) if segment else segment
        if out != segment:
            segments[i] = _STRUCTURE.sub(lambda m: f"%{ord(m.group()):02X}", out)
            changed = True
    done = form_values(query, fn) if query else query
    if not changed and done is query:
        return path
    return "/".join(segments) + question + done
