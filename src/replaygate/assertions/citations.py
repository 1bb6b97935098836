r"""Citations in an answer: ``[doc-id]``, and ``[doc-a, doc-b]`` for several.

Grammar (after NFKC, so full-width ``［doc-rag］`` counts, and a hyphen U+2010 or U+2011
read as ``-``)::

    citation := "[" id ( ws* sep ws* id )* "]"  not followed by "("; ws: whitespace
    sep      := "," | ";" | "、" | "،" | "؛"  (the ideographic comma, the Arabic comma
                and semicolon)
    id       := a letter or digit, then letters, digits, combining marks, "_", "-",
                ".", ":", "/", ending in a letter, digit, combining mark or "_"

A combining mark belongs to its letter: an Arabic id with its vowel marks
(``[doc-عَرَبِيّ]``) or a Devanagari one (``[doc-हिन्दी]``) is one id.

A Markdown link ``[text](url)`` is not a citation; neither is a bracket holding
spaces inside an id (``[see above]``) or an empty one, nor one in Markdown code (a
fenced block, an inline span): ``items[0]`` in a code sample indexes, it cites nothing;
nor the ``[x]`` that marks a task list's item done (``- [x] step``).
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

import regex

from replaygate.assertions.text import HYPHENS, UNSEEN, require_text

_SEP = "[,;\u3001\u060c\u061b]"
"""Between two ids of one bracket: a comma or semicolon, or the ideographic comma ``、``,
the Arabic comma ``،`` or semicolon ``؛`` of an answer in those scripts."""

_ID = r"[^\W_\p{M}](?:[.:/-]*+[\w\p{M}])*+"
"""An id, in the ``regex`` module's dialect: its ``\\w`` and ``\\p{M}`` take the combining
marks that Python's ``re`` leaves out of ``\\w`` (an id ending in a vowel mark was cut, or
not read at all). Each of its parts after the first character is a run of ``.:/-`` and
the letter, digit or mark that ends it, read whole (possessively): no part can be read
two ways, so a bracket that never closes is searched in linear time, where an answer's
200,000-character ``[a.a.a...`` took seconds per search, backtracking over every split."""


@cache
def _citation() -> regex.Pattern[str]:
    """A citation bracket; group 1 holds its ids and separators (compiled once, when first
    used: the ``regex`` module takes a while to import)."""
    return regex.compile(rf"\[({_ID}(?:\s*{_SEP}\s*{_ID})*)\](?!\()")


@cache
def _id_only() -> regex.Pattern[str]:
    """One id, whole."""
    return regex.compile(_ID)


_SEPARATOR = re.compile(rf"\s*{_SEP}\s*")
_NOT_CITING = re.compile(
    r"^ {0,3}(?P<fence>(?P<mark>[`~])(?P=mark){2,})[^\n]*(?:\n|\Z).*?"  # a fenced block,
    r"(?:^ {0,3}(?P=fence)(?P=mark)*[ \t]*$|\Z)"  # to its closing fence or the end
    r"|(?P<ticks>`+)(?!`)(?:(?!\n[ \t]*\n).)+?(?<!`)(?P=ticks)(?!`)"  # an inline span,
    # within its paragraph
    r"|^[ \t]*(?:[-*+]|\d+[.)])[ \t]+\[[xX]\](?=[ \t])",  # a task list's item done, - [x]
    re.MULTILINE | re.DOTALL,
)
"""Markdown code, whose brackets are code's (``items[0]``), and the ``[x]`` of a task
list's item done: never citations."""


_AS_HYPHEN = str.maketrans({**HYPHENS, **dict.fromkeys(UNSEEN)})
"""A hyphen U+2010 or U+2011 as ``-``; what is drawn as nothing and says nothing
(:data:`~replaygate.assertions.text.UNSEEN`) dropped (an Arabic answer's ``[doc-a]`` with a
right-to-left mark inside its bracket cites ``doc-a``)."""


def citation_id(doc_id: str) -> str:
    """``doc_id`` as :func:`extract_citations` gives it (NFKC, a non-breaking hyphen as
    ``-``, direction marks and zero-width characters dropped): an expected id compared
    with the cited ones is normalized the same way, so ``doc-cafe\u0301`` matches itself,
    and ``doc‑rag`` (U+2011) is ``doc-rag``."""
    return unicodedata.normalize("NFKC", doc_id).translate(_AS_HYPHEN)


def citable(doc_id: str) -> bool:
    """Whether ``[doc_id]`` in an answer is read as a citation of ``doc_id`` (NFKC): an id
    outside the grammar (``faq#3``, ``KB 12``) is never extracted, so never cited."""
    return _id_only().fullmatch(citation_id(doc_id)) is not None


def extract_citations(text: str) -> tuple[str, ...]:
    """The ids cited in ``text``, each once, in order of first appearance; brackets in
    Markdown code (a fenced block, an inline code span) and a task list's ``[x]`` are
    passed over."""
    seen: dict[str, None] = {}
    cited = require_text(text, "the text to search for citations")
    for match in _citation().finditer(_NOT_CITING.sub(" ", citation_id(cited))):
        for doc_id in _SEPARATOR.split(match.group(1)):
            seen.setdefault(doc_id, None)
    return tuple(seen)
