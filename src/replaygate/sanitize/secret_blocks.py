"""A secret split across the text blocks of one message: ``"sk-ant-api03-"`` + the rest.

A message's content may be a list of blocks that the model reads as one text: an
Anthropic message's ``text`` blocks (and a system prompt's, and a tool result's), the
``text`` parts of an OpenAI Chat message, the ``input_text`` and ``output_text`` parts of
a Responses API item. A key cut between two adjacent text blocks matches in neither.
Here each run of adjacent text blocks of one list is joined, as the model reads it, and
scanned whole; a finding names the blocks that hold the parts, the fewest adjacent ones
whose joined text a rule flags that flags none of them alone
(``request.messages[0].content[0..1].text``); what a block alone holds is named by the
scan of each string, which names that block.

The lists read are those of the wire shapes, found by their paths, not by a walk of the
whole fixture: a fixture without two adjacent text blocks costs a few lookups.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeGuard

if TYPE_CHECKING:
    from replaygate.sanitize.stream import Group

TEXT_BLOCKS = frozenset({"text", "input_text", "output_text"})
"""The ``type`` of a block or part whose ``text`` the model reads as the message's text."""
_MESSAGE_LISTS = frozenset({"messages", "input", "output"})
"""The fields holding a list of messages (or items) whose ``content`` may be blocks."""
_BODY_FIELDS = ("body", "system", "messages", "input", "content", "output", "choices")
"""The fields of a body where lists of blocks are found, in the order they are read
(``choices`` hold a ``message``)."""
_ANY_BODY_FIELD = frozenset(_BODY_FIELDS)

_OUTPUT_TEXT = "response.output_text.delta"
"""The Responses API event of an ``output_text`` part's text."""

Detect = Callable[[str], str | None]
"""The scan of one text: the name of the rule that flags it, or None."""
Run = tuple[str, int, list[str]]
"""A run of adjacent text blocks: the path of their list, the index of the first, and
their texts."""


def _runs(blocks: list[Any], where: str, found: list[Run]) -> None:
    """Add to ``found`` each run of two or more adjacent text blocks of ``blocks``, and
    those of the blocks of a tool result among them."""
    run = 0  # text blocks in a row before block j
    for j, block in enumerate(blocks):
        kind = block.get("type") if type(block) is dict else None
        if type(kind) is str and kind in TEXT_BLOCKS and type(block.get("text")) is str:
            run += 1
            continue
        if run > 1:
            found.append((where, j - run, [b["text"] for b in blocks[j - run : j]]))
        run = 0
        if kind == "tool_result" and type(block.get("content")) is list:
            _runs(block["content"], f"{where}[{j}].content", found)
    if run > 1:
        found.append((where, len(blocks) - run, [b["text"] for b in blocks[-run:]]))


def _may_run(blocks: Any) -> TypeGuard[list[Any]]:
    """Whether ``blocks`` is a list that may hold a run (:func:`_runs`): of two or more
    blocks, or of a tool result with blocks of its own (a quick look: most messages hold
    one block)."""
    if type(blocks) is not list:
        return False
    if len(blocks) > 1:
        return True
    return bool(blocks) and type(blocks[0]) is dict and type(blocks[0].get("content")) is list


def _body_runs(value: dict[str, Any], path: str, found: list[Run]) -> None:
    """Add to ``found`` the runs of adjacent text blocks of a request or response body
    ``value`` at ``path``: in its system prompt, its content, each message's or item's
    content, each Chat choice's message content."""
    present = value.keys() & _ANY_BODY_FIELD  # one look for the fields a body has
    for name in _BODY_FIELDS if present else ():
        if name not in present:
            continue
        field = value[name]
        if name == "body":
            if type(field) is dict:  # a request or response recorded at the HTTP seam
                _body_runs(field, f"{path}.body", found)
        elif name in _MESSAGE_LISTS or name == "choices":
            if type(field) is not list:
                continue
            inner = "message" if name == "choices" else None
            for i, item in enumerate(field):
                if inner is not None:
                    item = item.get(inner) if type(item) is dict else None
                if type(item) is dict and _may_run(blocks := item.get("content")):
                    place = f"{path}.{name}[{i}]" + (f".{inner}" if inner else "")
                    _runs(blocks, f"{place}.content", found)
        elif _may_run(field):
            _runs(field, f"{path}.{name}", found)


def split_finding(texts: list[str], detect: Detect) -> tuple[int, int, str] | None:
    """``(first, last, rule)``: the fewest adjacent ``texts`` whose join a rule flags that
    flags none of them alone (what a block alone holds is named by the scan of each
    string), or None."""
    whole = detect("".join(texts))
    alone = [detect(text) for text in texts]
    if whole is None or whole in alone:
        return None
    for width in range(2, len(texts)):
        for first in range(len(texts) - width + 1):
            name = detect("".join(texts[first : first + width]))
            if name is not None and name not in alone[first : first + width]:
                return first, first + width - 1, name
    return 0, len(texts) - 1, whole


def split_blocks(blocks: list[Any], detect: Detect) -> dict[int, str]:
    """The index of each block of ``blocks`` (one list, not the lists of a tool result in
    it) that holds a part of a secret split across adjacent text blocks, with the name of
    its finding (``GitHub token (split across text blocks)``)."""
    runs: list[Run] = []
    _runs(blocks, "", runs)
    parts: dict[int, str] = {}
    for where, start, texts in runs:
        split = split_finding(texts, detect) if not where else None
        if split is not None:
            first, last, name = split
            for index in range(start + first, start + last + 1):
                parts[index] = f"{name} (split across text blocks)"
    return parts


def find_block_secrets(
    fixture: Mapping[str, Any], recorded: list[tuple[str, Any]], detect: Detect
) -> list[tuple[str, str]]:
    """``(path, rule)`` of each secret split across adjacent text blocks of one list in the
    request of ``fixture`` or one of its ``recorded`` responses (``(path, response)``)."""
    runs: list[Run] = []
    for path, value in [("request", fixture.get("request")), *recorded]:
        if type(value) is dict:
            _body_runs(value, path, runs)
    found = []
    for where, start, texts in runs:
        split = split_finding(texts, detect)
        if split is not None:
            first, last, name = split
            place = f"{where}[{start + first}..{start + last}].text"
            found.append((place, f"{name} (split across text blocks)"))
    return found


_BLOCKS = frozenset({"block", "converse"})
"""The groups of a streamed answer's content blocks (:mod:`.stream`): an Anthropic
answer's, a Converse answer's."""


def streamed_runs(groups: Iterable[Group]) -> list[list[tuple[int, Group]]]:
    """The runs of two or more adjacent text blocks of one streamed answer, among the
    groups of its fragments (:func:`~.stream.fragments`), each block with its index: an
    Anthropic answer's ``text`` blocks of consecutive indexes (a Bedrock Converse
    answer's, by ``contentBlockIndex``), the ``output_text`` parts of consecutive
    ``content_index`` of one Responses API item."""
    blocks: dict[Group, list[tuple[int, Group]]] = defaultdict(list)
    for group in groups:
        if group[0] in _BLOCKS and group[2:] == ("text",) and type(group[1]) is int:
            blocks[group[:1]].append((group[1], group))
        elif group[:2] == ("item", _OUTPUT_TEXT) and type(group[4]) is int:
            blocks[group[2:4]].append((group[4], group))
    runs: list[list[tuple[int, Group]]] = []
    for members in blocks.values():
        last = None
        for index, group in sorted(members, key=lambda member: member[0]):
            if last is None or index != last + 1:
                runs.append([])
            runs[-1].append((index, group))
            last = index
    return [run for run in runs if len(run) > 1]
