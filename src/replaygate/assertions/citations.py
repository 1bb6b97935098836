r"""Citations in an answer: ``[doc-id]``, and ``[doc-a, doc-b]`` for several.

Grammar (after NFKC, so full-width ``［doc-rag］`` counts, and a hyphen U+2010 or U+2011
read as ``-``)::

    citation := "[" id ( ws* ("," | ";") ws* id )* "]"  not followed by "("; ws: whitespace
    id       := a letter or digit, then letters, digits, "_", "-", ".", ":", "/",
                ending in a letter, digit or "_"

A Markdown link ``[text](url)`` is not a citation; neither is a bracket holding
spaces inside an id (``[see above]``) or an empty one, nor one in Markdown code (a
fenced block, an inline span): ``items[0]`` in a code sample indexes, it cites nothing;
nor the ``[x]`` that marks a task list's item done (``- [x] step``).
"""

from __future__ import annotations

import re
import unicodedata

from replaygate.assertions.text import HYPHENS, require_text

_ID = r"[^\W_](?:[\w.:/-]*\w)?"
CITATION = re.compile(rf"\[({_ID}(?:\s*[,;]\s*{_ID})*)\](?!\()")
"""A citation bracket; group 1 holds its ids and separators."""
_SEPARATOR = re.compile(r"\s*[,;]\s*")
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
_ID_ONLY = re.compile(_ID)


_AS_HYPHEN = str.maketrans(HYPHENS)


def citation_id(doc_id: str) -> str:
    """``doc_id`` as :func:`extract_citations` gives it (NFKC, a non-breaking hyphen as
    ``-``): an expected id compared with the cited ones is normalized the same way, so
    ``doc-cafe\u0301`` matches itself, and ``doc‑rag`` (U+2011) is ``doc-rag``."""
    return unicodedata.normalize("NFKC", doc_id).translate(_AS_HYPHEN)


def citable(doc_id: str) -> bool:
    """Whether ``[doc_id]`` in an answer is read as a citation of ``doc_id`` (NFKC): an id
    outside the grammar (``faq#3``, ``KB 12``) is never extracted, so never cited."""
    return _ID_ONLY.fullmatch(citation_id(doc_id)) is not None


def extract_citations(text: str) -> tuple[str, ...]:
    """The ids cited in ``text``, each once, in order of first appearance; brackets in
    Markdown code (a fenced block, an inline code span) and a task list's ``[x]`` are
    passed over."""
    seen: dict[str, None] = {}
    cited = require_text(text, "the text to search for citations")
    for match in CITATION.finditer(_NOT_CITING.sub(" ", citation_id(cited))):
        for doc_id in _SEPARATOR.split(match.group(1)):
            seen.setdefault(doc_id, None)
    return tuple(seen)
