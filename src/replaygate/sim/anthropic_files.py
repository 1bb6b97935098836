"""Anthropic's Files API (``/v1/files`` with Anthropic's credentials): files uploaded, their
metadata listed and read, deleted, and named by a Messages request (a document's or an
image's ``source`` of ``type`` ``file``).

Routes: ``POST /v1/files`` (a multipart form: ``file``, optional ``expires_in_seconds``
of :data:`EXPIRES_IN`), ``GET /v1/files`` (newest first), ``GET`` and ``DELETE
/v1/files/{id}``, ``GET /v1/files/{id}/content``. The API answers in the shapes of the
``files-api-2025-04-14`` beta when the request names it (``anthropic-beta``): a list page
``{data, first_id, last_id, has_more}`` paged by ``after_id`` and ``before_id``, a file
without ``expires_at``; else in its own: a page ``{data, next_page}`` paged by ``page``
(or up to 100 ``ids``), where ``after_id`` and ``before_id`` are refused, and a file with
``expires_at``. An upload is ``downloadable: false``: its content is refused
(``file_not_downloadable``), as the API refuses it. An id the server does not hold is a
404. The most recent :data:`KEPT_CONVERSATIONS` are kept.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

from replaygate.digits import integer
from replaygate.sim.anthropic_lists import anthropic_page, page_body
from replaygate.sim.bounded import KEPT_CONVERSATIONS, Bounded, beside
from replaygate.sim.conversations import created_at
from replaygate.sim.draws import Draws, digest_of
from replaygate.sim.message_batches import rfc3339
from replaygate.sim.openai_batches import Field
from replaygate.sim.validation import OWN_WORDING, Invalid

Answer = tuple[int, Any]
"""An HTTP status and its JSON body."""

FILES_BETA = "files-api-2025-04-14"
"""The beta whose shapes the API answers in when a request names it."""

EXPIRES_IN = (3600, 7_776_000)
"""The fewest and most ``expires_in_seconds`` an upload may ask for (an hour, 90 days)."""

MOST_IDS = 100
"""The most ``ids`` one list may ask for."""

DOCUMENT_TYPES = ("application/pdf", "text/plain")
"""The types of a file a ``document`` block may name."""

IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
"""The types of a file an ``image`` block may name."""

_PAGE = "page_"


def _refused(message: str, status: int = 400, code: str | None = None) -> Invalid:
    return Invalid(message, status=status, code=code)


def _unheld(file_id: str) -> Invalid:
    return _refused(f"File not found: {file_id} {OWN_WORDING}", 404)


def beta_named(headers: Mapping[str, str]) -> bool:
    """Whether a request's ``anthropic-beta`` header names :data:`FILES_BETA`."""
    return FILES_BETA in (b.strip() for b in headers.get("anthropic-beta", "").split(","))


@dataclass
class _File:
    """A file the server holds: its metadata in the API's own shape (with
    ``expires_at``), and its bytes (None for one learned from a replayed answer)."""

    meta: dict[str, Any]
    data: bytes | None


def _shown(meta: Mapping[str, Any], beta: bool) -> dict[str, Any]:
    """A file's metadata as answered: without ``expires_at`` in the beta's shape."""
    return {k: v for k, v in meta.items() if not (beta and k == "expires_at")}


def _mime_type(field: Field, filename: str) -> str:
    """The type a file is stored as: its part's, else its name's, else bytes of no type."""
    named = (field.content_type or "").split(";")[0].strip().lower()
    if named and named != "application/octet-stream":
        return named
    guessed, _ = mimetypes.guess_type(filename)
    return guessed or "application/octet-stream"


class UploadedFiles:
    """File id -> the file. An id, ``file_sim_<n>_<digits>``, counts the files of the same
    name, type and bytes, and comes from the seed."""

    def __init__(self, limit: int = KEPT_CONVERSATIONS, seed: int = 0) -> None:
        self._kept: Bounded[_File] = Bounded(limit)
        self.seed = seed
        self._made = Draws()

    def answer(
        self, method: str, route: str, query: str, fields: Any, beta: bool
    ) -> Answer | Invalid:
        """The status and body answering ``method`` on ``route`` (under ``/v1/files``),
        ``fields`` the form of an upload, ``beta`` whether the request names
        :data:`FILES_BETA`."""
        parts = [p for p in route.removeprefix("/v1/files").split("/") if p]
        if not parts:
            if method == "GET":
                return self._listed(parse_qs(query), beta)
            if method == "POST":
                return self._uploaded(fields, beta)
            return _refused("Method Not Allowed", 405)
        held = self._kept.get(parts[0])
        if held is None or parts[1:] not in ([], ["content"]):
            return _unheld(parts[0])
        if parts[1:] == ["content"]:
            if method != "GET":
                return _refused("Method Not Allowed", 405)
            if held.meta.get("downloadable") is True:  # a tool's, learned from a replay
                return Invalid(
                    f"The simulator holds {parts[0]} only as a replayed answer gave it, without "
                    "its bytes: record its download from the live API",
                    own=True,
                )
            return _refused(
                f"File {parts[0]} is not downloadable: only a file a tool made (the code "
                f"execution tool's) can be downloaded {OWN_WORDING}",
                code="file_not_downloadable",
            )
        if method == "DELETE":
            del self._kept[parts[0]]
            return 200, {"id": parts[0], "type": "file_deleted"}
        if method != "GET":
            return _refused("Method Not Allowed", 405)
        return 200, _shown(held.meta, beta)

    def _uploaded(self, fields: Any, beta: bool) -> Answer | Invalid:
        if isinstance(fields, Invalid):  # a broken form
            return fields
        if not isinstance(fields, dict):
            return _refused(f"Expected a multipart/form-data body with 'file' {OWN_WORDING}")
        field = fields.get("file")
        if not isinstance(field, Field):
            return _refused("file: Field required")
        expires = None
        if "expires_in_seconds" in fields:
            low, high = EXPIRES_IN
            try:
                expires = integer(fields["expires_in_seconds"].data.decode("utf-8", "replace"))
            except ValueError:
                return _refused("expires_in_seconds: Input should be a valid integer")
            if not low <= expires <= high:
                return _refused(f"expires_in_seconds: Input should be between {low} and {high}")
        filename = (field.filename or "").replace("\\", "/").rsplit("/", 1)[-1]
        mime_type = _mime_type(field, filename)
        if not filename:
            filename = "unnamed" + (mimetypes.guess_extension(mime_type) or "")
        digest = digest_of(filename, mime_type, field.data.decode("latin-1"))
        while True:  # one held may be learned from a replayed answer
            file_id = f"file_sim_{self._made.counted(digest).tag(self.seed)}"
            if file_id not in self._kept:
                break
        made = created_at(0)
        meta = {
            "id": file_id,
            "type": "file",
            "filename": filename,
            "mime_type": mime_type,
            "size_bytes": len(field.data),
            "created_at": rfc3339(made),
            "downloadable": False,
            "expires_at": None if expires is None else rfc3339(made + expires),
        }
        held = _File(meta, field.data)
        self._kept.put(file_id, held)
        return 200, _shown(held.meta, beta)

    def _listed(self, query: Mapping[str, list[str]], beta: bool) -> Answer | Invalid:
        def last(name: str) -> str:
            return (query.get(name) or [""])[-1]

        newest = [held.meta for held in reversed(self._kept.values())]
        if beta:
            paged = anthropic_page(newest, self._kept.place, query)
            if isinstance(paged, Invalid):
                return paged
            page, more = paged
            return 200, page_body([_shown(meta, beta) for meta in page], has_more=more)
        try:
            limit = integer(last("limit") or "20")
        except ValueError:
            return _refused("limit: Input should be a valid integer")
        if not 1 <= limit <= 1000:
            return _refused("limit: Input should be between 1 and 1000")
        after, before = last("after_id"), last("before_id")
        if after or before:
            named = "after_id" if after else "before_id"
            return _refused(f"{named}: pages are asked with page, or with the beta {FILES_BETA}")
        asked = [i for v in query.get("ids[]", []) + query.get("ids", []) for i in v.split(",")]
        if asked:
            if "page" in query or "limit" in query:
                return _refused("ids: not given with page or limit")
            if len(set(asked)) > MOST_IDS:
                return _refused(f"ids: at most {MOST_IDS} ids")
            found = [meta for meta in newest if meta["id"] in set(asked)]
            return 200, {"data": [_shown(meta, beta) for meta in found], "next_page": None}
        cursor = last("page")
        if cursor:
            last_id = cursor.removeprefix(_PAGE)
            if not cursor.startswith(_PAGE) or self._kept.place(last_id) is None:
                return _refused(f"page: {cursor!r} is no page of this list {OWN_WORDING}")
            newest = beside(newest, self._kept.place, last_id, newer=False)
        page = newest[:limit]
        more = len(newest) > limit
        return 200, {
            "data": [_shown(meta, beta) for meta in page],
            "next_page": f"{_PAGE}{page[-1]['id']}" if more else None,
        }

    def learn(self, method: str, answer: Mapping[str, Any]) -> None:
        """Take ``answer``, replayed to ``method`` from a fixture, as given here: a file
        uploaded (held without its bytes, which the answer does not hold), one deleted."""
        file_id = answer.get("id")
        if not isinstance(file_id, str):
            return
        if method == "DELETE" and answer.get("type") == "file_deleted":
            if file_id in self._kept:
                del self._kept[file_id]
        elif answer.get("type") == "file" and file_id not in self._kept:
            meta = {"expires_at": None, **answer}
            self._kept.put(file_id, _File(meta, None))

    def named_problem(self, body: Any) -> Invalid | None:
        """Why the API refuses a Messages request for a file it names (a ``document`` or
        ``image`` block's ``source`` of ``type`` ``file``): one the server does not hold
        (404), or one of a type the block does not take; None for none."""
        for where, kind, file_id in _named_files(body):
            held = self._kept.get(file_id)
            if held is None:
                return Invalid(f"{where}: File not found: {file_id} {OWN_WORDING}", status=404)
            mime_type = str(held.meta.get("mime_type", ""))
            taken = DOCUMENT_TYPES if kind == "document" else IMAGE_TYPES
            if mime_type and mime_type not in taken:
                return Invalid(
                    f"{where}: {_with_article(kind)} block takes a file of "
                    f"{', '.join(taken)}, and {file_id} is {mime_type} {OWN_WORDING}"
                )
        return None


def _with_article(kind: str) -> str:
    """A block's kind after its article: ``a document``, ``an image``."""
    return f"{'an' if kind[:1] in 'aeiou' else 'a'} {kind}"


def _named_files(body: Any) -> Iterator[tuple[str, str, str]]:
    """Where, in which kind of block and which file a Messages request names: each
    ``document`` or ``image`` block of its messages (in a tool's result too) whose
    ``source`` is a ``file``."""
    messages = body.get("messages") if isinstance(body, Mapping) else None
    for i, message in enumerate(messages if isinstance(messages, list) else []):
        content = message.get("content") if isinstance(message, Mapping) else None
        yield from _blocks(f"messages.{i}.content", content)


def _blocks(where: str, content: Any) -> Iterator[tuple[str, str, str]]:
    for j, block in enumerate(content if isinstance(content, list) else []):
        if not isinstance(block, Mapping):
            continue
        kind, source = block.get("type"), block.get("source")
        if kind in ("document", "image") and isinstance(source, Mapping):
            file_id = source.get("file_id")
            if source.get("type") == "file" and isinstance(file_id, str):
                yield f"{where}.{j}.{kind}.source", str(kind), file_id
        elif kind == "tool_result":
            yield from _blocks(f"{where}.{j}.content", block.get("content"))
