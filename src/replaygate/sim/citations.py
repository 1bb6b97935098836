"""Citations of the documents and search results a Messages request turns them on for.

A request may give ``document`` blocks and ``search_result`` blocks (in a user turn or
in a tool's result) with ``"citations": {"enabled": true}``; the API's answer then
cites them: a text block carries ``citations``, each naming the passage it rests on
(``char_location`` in a plain-text document, ``content_block_location`` in a document
of custom content, ``search_result_location`` in a search result).

The simulator's final answer (one calling no tool) cites each such source of the latest
message that gives any: a plain-text document by its first sentence, a document of
custom content and a search result by their first text block. A PDF or a document
given by URL or file id is not cited: the simulator reads no PDF.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from replaygate.sim.validation import OWN_WORDING, Invalid

Citation = dict[str, Any]

_SOURCES = ("document", "search_result")
_FIRST_SENTENCE = re.compile(r"\S.*?(?:[.!?](?=\s)|\Z)", re.DOTALL)
"""From the first character that is not a space to the first end of a sentence."""


def cited(body: Mapping[str, Any]) -> list[Citation]:
    """The citations an answer to ``body`` (a Messages request) gives: one for each
    citable source of the latest message that holds any, in their order."""
    latest: list[Citation] = []
    counts = dict.fromkeys(_SOURCES, 0)
    messages = body.get("messages")
    for message in messages if isinstance(messages, list) else ():
        found = []
        for block in _sources(message):
            kind = block["type"]
            index, counts[kind] = counts[kind], counts[kind] + 1
            citation = _citation(block, index) if _enabled(block) else None
            if citation is not None:
                found.append(citation)
        latest = found or latest
    return latest


def citations_with_a_schema(body: Mapping[str, Any], schema: object) -> Invalid | None:
    """The refusal of citations turned on in a request that also asks for structured
    output (``schema``, the JSON schema it gives, or None): the API takes only one."""
    messages = body.get("messages")
    sources = (s for m in (messages if isinstance(messages, list) else ()) for s in _sources(m))
    if schema is None or not any(_enabled(source) for source in sources):
        return None
    return Invalid(
        f"Citations cannot be turned on in a request that asks for structured output {OWN_WORDING}",
        own=True,
    )


def with_citations(content: list[dict[str, Any]], citations: list[Citation]) -> None:
    """``citations`` given to the first text block of ``content`` that holds text."""
    text = next((b for b in content if b.get("type") == "text" and b.get("text")), None)
    if text is not None and citations:
        text["citations"] = citations


def _sources(message: Any) -> Iterator[Mapping[str, Any]]:
    """The documents and search results of ``message``, those in a tool's result
    included, in the order they are given."""
    content = message.get("content") if isinstance(message, Mapping) else None
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, Mapping):
            continue
        if block.get("type") in _SOURCES:
            yield block
        elif block.get("type") == "tool_result" and isinstance(block.get("content"), list):
            yield from _sources({"content": block["content"]})


def _enabled(block: Mapping[str, Any]) -> bool:
    config = block.get("citations")
    return isinstance(config, Mapping) and config.get("enabled") is True


def _citation(block: Mapping[str, Any], index: int) -> Citation | None:
    """The citation of ``block``'s first passage, or None when it gives none to cite."""
    if block["type"] == "search_result":
        named = {
            "search_result_index": index,
            "source": block.get("source"),
            "title": block.get("title"),
        }
        return _of_blocks("search_result_location", block.get("content"), named)
    source = block.get("source")
    if not isinstance(source, Mapping):
        return None
    # no file_id: the API names one only for a document uploaded to its Files API
    named = {"document_index": index, "document_title": block.get("title")}
    if source.get("type") == "content":
        return _of_blocks("content_block_location", source.get("content"), named)
    if source.get("type") != "text":  # a PDF, or one given by URL or file id: not read
        return None
    found = _FIRST_SENTENCE.search(str(source.get("data", "")))
    if found is None:
        return None
    sentence = found.group().rstrip()
    return {
        "type": "char_location",
        "cited_text": sentence,
        **named,
        "start_char_index": found.start(),
        "end_char_index": found.start() + len(sentence),
    }


def _of_blocks(kind: str, content: Any, named: Citation) -> Citation | None:
    """A citation of type ``kind`` of the first text block of ``content``, or None."""
    first = _first_text_block(content)
    if first is None:
        return None
    index, text = first
    end = index + 1
    return {
        "type": kind,
        "cited_text": text,
        **named,
        "start_block_index": index,
        "end_block_index": end,
    }


def _first_text_block(content: Any) -> tuple[int, str] | None:
    """The index and text of the first text block of ``content`` holding text (a string
    stands for one text block)."""
    if isinstance(content, str):
        return (0, content) if content.strip() else None
    for index, block in enumerate(content if isinstance(content, list) else ()):
        if not isinstance(block, Mapping) or block.get("type") != "text":
            continue
        text = block.get("text")
        if isinstance(text, str) and text.strip():
            return index, text
    return None
