"""ResearchPolicy: the simulator's ``research-copilot`` model, a rule-based stand-in.

It plays the model of a research agent with two tools, ``search_corpus`` (arguments
``{"q"}``, result ``{"hits": [{"doc_id", ...}]}``) and ``fetch_doc`` (arguments
``{"doc_id"}``, result ``{"doc_id", "title", "text"}``), such as the shipped
ResearchCopilot example. It reads the conversation and plays the model's part:
search for the question's key terms, fetch the top hit, answer with the fetched
document's first sentence and the citation ``[doc-id]``; on a tool error or an
empty search it says it could not find the information, with no citation.

Without an ``rng`` it always does the same thing. With one it varies like a real
model: it sometimes searches a second time with a reworded query, words its answer
in several ways and now and then drops the citation. The same ``rng`` state always
gives the same behaviour. A judge's prompt (the text to grade between ``<<<TEXT n>>>``
markers) it grades instead (:mod:`replaygate.sim.judging`).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from replaygate.models.types import Message, ModelResponse, ToolCall, ToolSpec, Usage
from replaygate.sim.judging import judge_reply

SEARCH_TOOL = "search_corpus"
"""Name of the search tool the policy calls."""
FETCH_TOOL = "fetch_doc"
"""Name of the fetch tool the policy calls."""

SECOND_SEARCH_RATE = 0.3
"""With an rng: how often the policy searches again before fetching."""
DROP_CITATION_RATE = 0.2
"""With an rng: how often the answer leaves out its citation."""

_STOPWORD_TEXT = """
a about an and any are as at be been being by can could describe did do does
explain for from how i in into is it its me mean means my of on or our please
should some tell that the their there these they this those to us was we were
what what's whats when where which who whom whose why will with would you your
"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_CJK_QUESTION_WORDS = (
    "请问",
    "什么是",
    "是什么",
    "为什么",
    "怎么样",
    "怎么",
    "怎样",
    "如何",
    "什么",
)
_CJK_PARTICLES = re.compile(r"[吗呢吧啊]+$")
_WORD = re.compile(
    r"[A-Za-z0-9]+(?:['’-][A-Za-z0-9]+)*|[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]+"
)
_FIRST_SENTENCE = re.compile(r"(.+?[.!?。！？])(?:\s|$)", re.DOTALL)
_REWORDINGS = ("{q} overview", "{q} definition", "{q} explained")
_ANSWERS = (
    "{sentence}{cite}.",
    "According to the corpus, {lowered}{cite}.",
    'From "{title}": {sentence}{cite}.',
    "In short, {lowered}{cite}.",
)


def search_query(question: str) -> str:
    """The search query for ``question``: its key terms, without question words."""
    terms: list[str] = []
    for word in _WORD.findall(question):
        plain = word.replace("’", "'")
        if plain.isascii():
            if plain.lower() not in _STOPWORDS:
                terms.append(plain)
            continue
        for phrase in _CJK_QUESTION_WORDS:
            word = word.replace(phrase, " ")
        terms.extend(_CJK_PARTICLES.sub("", part) for part in word.split())
    query = " ".join(term for term in terms if term)
    return query or " ".join(_WORD.findall(question))


def first_sentence(text: str) -> str:
    """The first sentence of ``text``, with its final punctuation."""
    match = _FIRST_SENTENCE.match(text.strip())
    return (match.group(1) if match else text).strip()


def _lower_first(sentence: str) -> str:
    """``sentence`` with its first letter lowercased, unless it starts an acronym."""
    first_word = sentence.split(" ", 1)[0].split("-", 1)[0]
    if first_word == "I" or (len(first_word) > 1 and not first_word[1:].islower()):
        return sentence
    return sentence[:1].lower() + sentence[1:]


@dataclass(frozen=True)
class _Exchange:
    call: ToolCall
    result: Message


def _question_and_exchanges(messages: Sequence[Message]) -> tuple[str, list[_Exchange]]:
    start = max((i for i, m in enumerate(messages) if m.role == "user"), default=-1)
    question = messages[start].content if start >= 0 else ""
    calls: dict[str, ToolCall] = {}
    exchanges: list[_Exchange] = []
    for message in messages[start + 1 :]:
        if message.role == "assistant":
            calls.update((call.id, call) for call in message.tool_calls)
        elif message.role == "tool" and message.tool_call_id in calls:
            exchanges.append(_Exchange(calls[message.tool_call_id], message))
    return question, exchanges


def _tokens(length: int) -> int:
    """About four characters a token, at least one."""
    return max(1, (length + 3) // 4)


def _load_object(text: str) -> Mapping[str, Any] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


class ResearchPolicy:
    """Plays the model of a research agent by reading the conversation.

    ``respond`` (and ``complete``, the same thing, so a policy is itself a
    :class:`~replaygate.models.types.Model`) returns the next turn. Tool-call ids are
    ``toolu_01``, ``toolu_02``, ... counting the tool calls already in the
    conversation. Usage is derived from text lengths. Pass ``rng`` for a policy that
    varies like a real model; leave it out for the canonical, fixed behaviour.
    """

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        """The next turn for ``messages``; same as :meth:`respond`."""
        return self.respond(messages, tools)

    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        """The next turn: a tool call, or the final answer."""
        question, exchanges = _question_and_exchanges(messages)
        graded = None if exchanges else judge_reply(question, self.rng)
        if graded is not None:
            return self._reply(messages, tools, text=graded)
        query = search_query(question)
        offered = {spec.name for spec in tools}
        if not exchanges:
            if SEARCH_TOOL not in offered:
                return self._reply(messages, tools, text=self._not_found(query))
            return self._call(messages, tools, SEARCH_TOOL, {"q": query})
        last = exchanges[-1]
        result = None if last.result.is_error else _load_object(last.result.content)
        if result is None:
            return self._reply(messages, tools, text=self._not_found(query))
        if last.call.name == SEARCH_TOOL:
            return self._after_search(messages, tools, query, exchanges, result, offered)
        if last.call.name == FETCH_TOOL:
            return self._reply(messages, tools, text=self._answer(result, query))
        return self._reply(messages, tools, text=self._not_found(query))

    def _after_search(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        query: str,
        exchanges: Sequence[_Exchange],
        result: Mapping[str, Any],
        offered: set[str],
    ) -> ModelResponse:
        hits = result.get("hits")
        first = hits[0] if isinstance(hits, list) and hits else None
        top = first.get("doc_id") if isinstance(first, Mapping) else None
        if not isinstance(top, str) or FETCH_TOOL not in offered:
            return self._reply(messages, tools, text=self._not_found(query))
        searches = sum(1 for exchange in exchanges if exchange.call.name == SEARCH_TOOL)
        if self.rng is not None and searches == 1 and self.rng.random() < SECOND_SEARCH_RATE:
            template = _REWORDINGS[self.rng.randrange(len(_REWORDINGS))]
            return self._call(messages, tools, SEARCH_TOOL, {"q": template.format(q=query)})
        return self._call(messages, tools, FETCH_TOOL, {"doc_id": top})

    def _answer(self, document: Mapping[str, Any], query: str) -> str:
        doc_id = document.get("doc_id")
        text = document.get("text")
        if not isinstance(doc_id, str) or not isinstance(text, str):
            return self._not_found(query)
        sentence = first_sentence(text).rstrip(".。!?！？")
        template = _ANSWERS[0]
        cite = f" [{doc_id}]"
        if self.rng is not None:
            template = _ANSWERS[self.rng.randrange(len(_ANSWERS))]
            if self.rng.random() < DROP_CITATION_RATE:
                cite = ""
        title = document.get("title")
        return template.format(
            sentence=sentence,
            lowered=_lower_first(sentence),
            cite=cite,
            title=title if isinstance(title, str) else doc_id,
        )

    @staticmethod
    def _not_found(query: str) -> str:
        subject = query.strip() or "that"
        return f"I could not find information about {subject} in the corpus."

    def _call(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        name: str,
        arguments: dict[str, Any],
    ) -> ModelResponse:
        made = sum(len(message.tool_calls) for message in messages)
        call = ToolCall(id=f"toolu_{made + 1:02d}", name=name, arguments=arguments)
        output = name + json.dumps(arguments, ensure_ascii=False, sort_keys=True)
        return ModelResponse(
            tool_calls=(call,),
            stop_reason="tool_use",
            usage=Usage(_input_tokens(messages, tools), _tokens(len(output)) + 8),
        )

    @staticmethod
    def _reply(
        messages: Sequence[Message], tools: Sequence[ToolSpec], *, text: str
    ) -> ModelResponse:
        return ModelResponse(
            text=text,
            stop_reason="end_turn",
            usage=Usage(_input_tokens(messages, tools), _tokens(len(text))),
        )


def _input_tokens(messages: Sequence[Message], tools: Sequence[ToolSpec]) -> int:
    size = sum(
        len(m.content)
        + sum(
            len(c.name) + len(json.dumps(dict(c.arguments), ensure_ascii=False, sort_keys=True))
            for c in m.tool_calls
        )
        for m in messages
    )
    size += sum(
        len(spec.name)
        + len(spec.description)
        + len(json.dumps(dict(spec.input_schema), ensure_ascii=False, sort_keys=True))
        for spec in tools
    )
    return 16 + _tokens(size)
