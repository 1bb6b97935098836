"""Plain-text and Markdown tables: aligned columns, no colour, stable output."""

from __future__ import annotations

import re
from collections.abc import Sequence

MARKUP = re.compile(r"[`*_\[\]~]|\\(?=[!-/:-@\[-`{-~])")
"""What Markdown reads as a link or image (``[``, ``]``), emphasis or strikethrough (``*``,
``_``, ``~``), code (a backtick), or an escape (a backslash before ASCII punctuation; one
before another character, ``\\u00e9``, is shown as it is)."""


def text_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns padded to their widest cell, a dashed rule under the header."""
    widths = [len(h) for h in header]
    for row in rows:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=True)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

    return "\n".join([line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A GitHub-flavoured Markdown table (pipes in cells escaped)."""

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    return "\n".join([line(header), line(["---"] * len(header)), *(line(r) for r in rows)])


def html_text(text: str) -> str:
    """``text`` for Markdown, with ``&``, ``<`` and ``>`` written as entities: a case id
    holding ``<!--`` would hide the rest of a pull-request comment, ``<h1>`` write a
    heading of its own."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def markdown_text(text: str) -> str:
    """``text`` for Markdown, shown as written: :func:`html_text`, and each character of
    :data:`MARKUP` escaped with a backslash. A case id ``[docs](https://example.com)``
    would be a link of the comment, ``![x](https://example.com/p.png)`` an image it loads,
    ``*x*`` a word in italics, and a lone backtick would run into the next code span."""
    return MARKUP.sub(lambda markup: "\\" + markup.group(), html_text(text))
