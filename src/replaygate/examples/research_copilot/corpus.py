"""The local document corpus and its BM25 search.

Tokens are lowercase ASCII words and letters-or-digits runs, plus overlapping
character bigrams of CJK text, so a Chinese query such as ``什么是 RAG`` still finds
the documents about RAG. Ranking is BM25 over title and text; scores are rounded to
nine decimals and ties are broken by ``doc_id``, so the order is the same on every
machine.
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from replaygate.examples.research_copilot import _jsonl

CORPUS_FILE = "corpus.jsonl"
"""Name of the packaged corpus file under ``data/``."""

_TOKEN = re.compile(r"[a-z0-9]+|[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]+")
_BM25_K1 = 1.5
_BM25_B = 0.75
_SCORE_DIGITS = 9


def tokenize(text: str) -> list[str]:
    """Split ``text`` into search tokens: ASCII words and CJK character bigrams."""
    tokens: list[str] = []
    for match in _TOKEN.finditer(text.lower()):
        run = match.group()
        if run.isascii() or len(run) == 1:
            tokens.append(run)
        else:
            tokens.extend(run[i : i + 2] for i in range(len(run) - 1))
    return tokens


@dataclass(frozen=True)
class Document:
    """One corpus document: a stable id such as ``doc-rag``, a title and its text."""

    doc_id: str
    title: str
    text: str

    def snippet(self, width: int = 80) -> str:
        """The first ``width`` characters of the text, cut at a word boundary."""
        if len(self.text) <= width:
            return self.text
        cut = self.text[:width]
        space = cut.rfind(" ")
        if space > width // 2:
            cut = cut[:space]
        return cut.rstrip(" ,;:") + "..."


@dataclass(frozen=True)
class SearchHit:
    """One ranked search result: the document and its BM25 score."""

    document: Document
    score: float


class Corpus:
    """An immutable set of documents with a BM25 index over title and text."""

    def __init__(self, documents: Iterable[Document]) -> None:
        docs = tuple(documents)
        by_id: dict[str, Document] = {}
        for doc in docs:
            if doc.doc_id in by_id:
                raise ValueError(f"duplicate doc_id {doc.doc_id!r} in corpus")
            by_id[doc.doc_id] = doc
        self._documents = docs
        self._by_id: Mapping[str, Document] = by_id
        self._term_counts = tuple(Counter(tokenize(f"{d.title} {d.text}")) for d in docs)
        self._lengths = tuple(sum(counts.values()) for counts in self._term_counts)
        total = sum(self._lengths)
        self._average_length = total / len(docs) if docs else 0.0
        frequency: Counter[str] = Counter()
        for counts in self._term_counts:
            frequency.update(counts.keys())
        size = len(docs)
        self._idf: Mapping[str, float] = {
            term: math.log(1.0 + (size - n + 0.5) / (n + 0.5)) for term, n in frequency.items()
        }

    @property
    def documents(self) -> tuple[Document, ...]:
        """Every document, in file order."""
        return self._documents

    def __len__(self) -> int:
        return len(self._documents)

    def get(self, doc_id: str) -> Document | None:
        """The document with ``doc_id``, or ``None``."""
        return self._by_id.get(doc_id)

    def search(self, query: str, k: int = 3) -> list[SearchHit]:
        """The at most ``k`` best documents for ``query``, best first.

        Only documents sharing at least one token with the query are returned.
        Equal scores are ordered by ``doc_id``.
        """
        terms = list(dict.fromkeys(t for t in tokenize(query) if t in self._idf))
        hits: list[SearchHit] = []
        for doc, counts, length in zip(
            self._documents, self._term_counts, self._lengths, strict=True
        ):
            score = 0.0
            for term in terms:
                tf = counts.get(term, 0)
                if tf:
                    norm = _BM25_K1 * (1 - _BM25_B + _BM25_B * length / self._average_length)
                    score += self._idf[term] * tf * (_BM25_K1 + 1) / (tf + norm)
            if score > 0:
                hits.append(SearchHit(doc, round(score, _SCORE_DIGITS)))
        hits.sort(key=lambda hit: (-hit.score, hit.document.doc_id))
        return hits[:k]


def load_corpus(path: str | os.PathLike[str] | None = None) -> Corpus:
    """Load a corpus from a JSONL file of ``{"doc_id", "title", "text"}`` objects.

    Without ``path``, the packaged corpus. A malformed line raises
    :class:`DataFormatError` naming file and line.
    """
    keys = ("doc_id", "title", "text")
    return Corpus(_jsonl.load_unique(path, CORPUS_FILE, keys, _document, "doc_id"))


def _document(name: str, line: int, record: Mapping[str, Any]) -> Document:
    return Document(
        doc_id=_jsonl.text_field(name, line, record, "doc_id"),
        title=_jsonl.text_field(name, line, record, "title"),
        text=_jsonl.text_field(name, line, record, "text"),
    )


@lru_cache(maxsize=1)
def default_corpus() -> Corpus:
    """The packaged corpus, loaded once."""
    return load_corpus()
