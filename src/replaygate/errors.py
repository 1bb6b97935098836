"""Every error replaygate raises on purpose, in one place.

Each one says what happened, where, and what to do next.
"""

from __future__ import annotations

import codecs
import os
import re
import sys
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Generic, Literal, TypeVar, get_args

from replaygate.shell_words import shell_quote

__all__ = [
    "BlockDroppedWarning",
    "CanonicalFormError",
    "CassetteAnsweredError",
    "CredentialsRefusedError",
    "FixtureFormatError",
    "FixtureMismatchError",
    "KeyTooShortError",
    "LiveAPIError",
    "LiveCallNotApproved",
    "LiveSendFailedWarning",
    "LocatedError",
    "MissKind",
    "MissingExtraError",
    "MockAnsweredError",
    "NetworkBlockedError",
    "NoRuleMatchedError",
    "NothingRecordedWarning",
    "ProcessOutsideBlockWarning",
    "ProxyRefusalError",
    "RecordingStoppedError",
    "ReplayErrorCaughtWarning",
    "ReplaygateError",
    "ReplaygateWarning",
    "RequestsMergedWarning",
    "ResponseLeftOpenWarning",
    "ScriptExhaustedError",
    "SecretInFixtureError",
    "SentAtOnceWarning",
    "SessionEndedError",
    "SimulatorRefusalError",
    "SpendingCapError",
    "StoreWriteError",
    "TaskOutlivesBlockWarning",
    "TelemetryRefusedError",
    "UnservedRouteError",
    "UnstorableValueError",
    "WireFormatError",
]
"""The errors and warnings a caller catches or filters, and the kind of a miss: what
``from replaygate.errors import *`` gives, not the helpers that word them."""

KEPT_ERRORS = 16
"""How many of the replay errors it raised a session or a replay model keeps, for the
check that none was hidden (each holds its traceback's frames)."""
CAUGHT_NOTE = "the code under test caught this error and went on; a miss must not be hidden"
"""The note of a kept replay error raised again once the code that caught it returned."""


def raise_caught(raised: Sequence[BaseException]) -> None:
    """Raise the first of ``raised``, the replay errors a model or an HTTP session kept,
    if any: called once the code under test returned, it is one that code caught and went
    on from (law 2), noted :data:`CAUGHT_NOTE`."""
    if raised:
        error = raised[0]
        if CAUGHT_NOTE not in getattr(error, "__notes__", ()):
            error.add_note(CAUGHT_NOTE)
        raise error


KeptT = TypeVar("KeptT", bound=Exception)


class KeepsRaised(Generic[KeptT]):
    """What a model raises of its own, kept in ``raised`` (the first :data:`KEPT_ERRORS`),
    so that :meth:`raise_caught` raises one the code under test caught and went on from."""

    raised: list[KeptT]

    @contextmanager
    def keeping(self, *kinds: type[KeptT]) -> Iterator[None]:
        """Keep an error of ``kinds`` raised inside the block, and let it go on."""
        try:
            yield
        except kinds as err:
            if len(self.raised) < KEPT_ERRORS:  # each holds its traceback's frames
                self.raised.append(err)
            raise

    def raise_caught(self) -> None:
        """Raise the first error this model raised, if any: called once the agent
        returned, it is one the agent caught and went on from (law 2)."""
        raise_caught(self.raised)


def carrier_of(error: BaseException) -> BaseException:
    """The exception that carried ``error`` out of the send that raised it: the client
    library's own (``httpx.ConnectError``, ``requests.ConnectionError``) where the library
    wrapped it, as it wraps a connection the network block refused; else ``error``. Where
    it stopped tells who caught ``error``."""
    carrier = getattr(error, "carrier", None)
    return carrier if isinstance(carrier, BaseException) else error


def exception_chain(error: BaseException) -> Iterator[BaseException]:
    """``error``, its causes and contexts, and the members of exception groups among them,
    a group's members first and in their order: the first of them is the first that
    failed (a ``FallbackExceptionGroup``'s first model), whose miss names the change."""
    seen: set[int] = set()
    stack = [error]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        stack.extend(e for e in (current.__cause__, current.__context__) if e is not None)
        if isinstance(current, BaseExceptionGroup):
            stack.extend(reversed(current.exceptions))  # popped in the group's order


def carried_in(error: ReplaygateError, chain: Sequence[BaseException], texts: str) -> bool:
    """Whether ``error`` is in ``chain`` (an error's :func:`exception_chain`), or named by
    ``texts`` (the chain's messages) with its first line: a framework that raises a miss
    again as its own error, the cause dropped (LiteLLM's ``completion(fallbacks=...)``
    raising a bare ``Exception``), keeps the miss's text."""
    return any(error is e for e in chain) or str(error).split("\n", 1)[0] in texts


def request_of(error: ReplaygateError) -> tuple[str, str]:
    """What tells the request ``error`` was raised for: a miss's fixture key (the
    fingerprint of the request, the same for each send of it), else the error's class and
    first line (a damaged store, a request with no canonical form)."""
    key = getattr(error, "key", "")
    if isinstance(key, str) and key:
        return "key", key
    return type(error).__name__, str(error).split("\n", 1)[0]


def missed_again(error: ReplaygateError, earlier: Sequence[ReplaygateError]) -> str | None:
    """The note of ``error``, a miss, when ``earlier`` replay errors of the same session hold
    misses of the same request: the code under test sent it again after it missed (most
    often a retry, its framework's or its SDK's), which no replay answers; or, for a request
    sent more often than recorded, a changed request of another key that missed before it:
    the code ran again a step that sends both (a retry of a graph's node, a chain, a
    function), and that miss is the change (:func:`retried_after`). Else None."""
    if not isinstance(error, FixtureMismatchError) or not getattr(error, "key", ""):
        return None
    own = request_of(error)
    before = sum(1 for e in earlier if isinstance(e, FixtureMismatchError) and request_of(e) == own)
    cause = retried_after(error, earlier)
    if cause is not None:
        return cause
    if not before:
        return None
    return (
        f"replaygate: this request missed {before + 1} times so far: the code under test "
        "sent it again after it missed, most often a retry (an agent's, such as "
        "CrewAI's max_retry_limit, an SDK's max_retries, LiteLLM's num_retries), which a "
        "replay answers no differently. Turn such retries off in replayed tests, so that a "
        "miss reaches the test once."
    )


def retried_after(error: FixtureMismatchError, earlier: Sequence[ReplaygateError]) -> str | None:
    """The note of ``error``, a request sent more often than it was recorded, when a miss
    of a changed request of another key came before it in ``earlier``: a retry ran again
    the step that sent both (LangGraph's ``RetryPolicy``, ``.with_retry()``, tenacity's
    ``@retry`` around the agent), so this request, answered on the first try, ran out of
    answers on the next, and the test would fail naming it, not the change. Else None."""
    if error.kind != "sent-more":
        return None
    own = request_of(error)
    cause = next(
        (
            e
            for e in earlier
            if isinstance(e, FixtureMismatchError)
            and e.kind == "changed"
            and e.differences
            and request_of(e) != own
        ),
        None,
    )
    if cause is None:
        return None
    fields = ", ".join(dict.fromkeys(d.split(": ", 1)[0] for d in cause.differences))
    return (
        "replaygate: it was sent again after another request missed (key "
        f"{cause.key}, which differs from its nearest recorded request in {fields}): "
        "most often a retry ran again a step that sends both (LangGraph's RetryPolicy, "
        "LangChain's .with_retry(), tenacity's @retry around the agent), which a replay "
        "answers no differently, and this request, answered on the first try, has no "
        "answer for the next. That miss is the change to look at: revert it, or record it "
        "if it was meant; turn such retries off in replayed tests, so that a miss reaches "
        "the test once."
    )


def timed_out(error: BaseException) -> bool:
    """Whether pytest-timeout raised ``error`` (its signal method calls ``pytest.fail`` from
    a handler of its own, wherever the test was): a limit of the clock, which stops code
    where it happens to be, not an error of that code."""
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_globals.get("__name__") == "pytest_timeout":
            return True
        tb = tb.tb_next
    return False


class ReplaygateError(Exception):
    """Base class of every error raised by replaygate.

    It pickles as the replaygate class it is (:meth:`__reduce__`), so a miss raised in a
    worker process (``multiprocessing``, ``concurrent.futures``) reaches the parent whole,
    its message, differences and notes with it."""

    def __reduce__(self) -> tuple[Any, ...]:
        """Rebuilt without its ``__init__``, whose arguments are not its ``args``, as the
        first class of its kind a name reaches: not the copy a passthrough makes to
        derive from the SDKs' errors too (:mod:`replaygate.http.passthrough`)."""
        named = next(cls for cls in type(self).__mro__ if _by_name(cls) is cls)
        return _rebuilt, (named, self.args, self.__dict__)


def _by_name(cls: type) -> Any:
    """What ``cls``'s module and qualified name reach (as pickle finds a class)."""
    found: Any = sys.modules.get(cls.__module__)
    for part in cls.__qualname__.split("."):
        found = getattr(found, part, None)
    return found


def _rebuilt(cls: type[ReplaygateError], args: tuple[Any, ...], state: dict[str, Any]) -> Any:
    """An error of class ``cls`` holding ``args`` and the attributes ``state``."""
    error = cls.__new__(cls)
    error.args = args
    error.__dict__.update(state)
    return error


class CanonicalFormError(ReplaygateError, ValueError):
    """A value has no canonical form (NaN, Infinity, a non-JSON value): a request cannot
    be fingerprinted, or, ``writing``, a fixture's other fields (its responses, its meta)
    cannot be stored, and nothing was written (``path`` is then the fixture's field path)."""

    def __init__(self, path: str, reason: str, *, writing: bool = False) -> None:
        self.path = path
        self.reason = reason
        where = path or "<root>"
        if writing:
            message = f"refusing to write fixture: {reason} at {where}; nothing was written"
        else:
            message = f"cannot fingerprint request: {reason} at {where}"
        super().__init__(message)


_LINE_BREAKING = frozenset(("Cc", "Cf", "Zl", "Zp"))
"""Unicode categories of the characters that would break or garble a one-line message:
controls (a newline, a tab, an escape sequence), format controls (a right-to-left
override, which reverses the rest of the line) and line and paragraph separators."""


def has_control(text: str) -> bool:
    """Whether ``text`` holds a control character (a newline, a tab, an escape): a name
    printed on terminals and pages must not (a line of its own in a log, an escape
    sequence acting on the terminal)."""
    return any(unicodedata.category(char) == "Cc" for char in text)


def shown_file(file: str) -> str:
    """``file`` (a file's name, or any name a message prints: a stored key) as it is, or
    as ``repr`` shows it (quoted, ``\\n`` for a newline) when it holds a character that
    would split or garble the line it is printed on."""
    if any(unicodedata.category(char) in _LINE_BREAKING for char in file):
        return repr(file)
    return file


def shown_key(key: str) -> str:
    """A stored key as a message prints it: as it is when it is hex digits alone, as every
    key replaygate writes is, else quoted as ``repr`` shows it (a space an edit left at
    its end, a control character), so that it cannot read as the key it is compared with
    (``key 'fb2202a78099 ' does not match its request (expected fb2202a78099)``)."""
    if key and all(char in "0123456789abcdefABCDEF" for char in key):
        return key
    return repr(key)


def not_utf8_text(cause: UnicodeDecodeError | str, *, byte: bool = True) -> str:
    """The words of every reader refusing bytes that are not UTF-8 text: ``not UTF-8
    text (<reason> at byte <N>)`` for a decoding error (its reason alone without
    ``byte``, where an offset would tell the reader nothing), else ``not UTF-8 text
    (<cause>)``, the reader's own words (``it looks like UTF-16: ...``)."""
    if isinstance(cause, str):
        detail = cause
    else:
        detail = cause.reason + (f" at byte {cause.start}" if byte else "")
    return f"not UTF-8 text ({detail})"


_WIDE_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32"),  # before UTF-16's little-endian mark, which starts it
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)
"""The byte order marks of UTF-32 and UTF-16 text, with the encoding iconv reads by them."""


def _utf32_place(raw: bytes) -> int | None:
    """The place in ``raw`` (0 to 3, counted in fours from its first byte) of the byte
    that is not NUL in each character of ASCII text saved as UTF-32, whose other three
    bytes are NUL: None unless those three places hold NULs, at least half of all bytes
    and about as many in each, and the fourth few of them (NULs on all four sides, as a
    crash leaves, are not UTF-32; nor is UTF-16, NULs in every other byte)."""
    counts = [raw[at::4].count(0) for at in range(4)]
    place = min(range(4), key=counts.__getitem__)
    others = counts[:place] + counts[place + 1 :]
    if counts[place] == len(raw[place::4]) or sum(others) * 2 < len(raw):
        return None
    if min(others) * 2 < max(others) or counts[place] * 4 > min(others):
        return None
    return place


def _utf16_nuls(raw: bytes) -> bool:
    """True for bytes with a NUL beside every ASCII byte, as UTF-16 text holds them:
    NULs in every other byte, at least a third of the bytes, and few in the bytes between.
    NULs on both sides (the zeros a crash leaves before a line, a binary file) are not."""
    even, odd = raw[::2].count(0), raw[1::2].count(0)
    return 0 < len(raw) <= (even + odd) * 3 and min(even, odd) * 4 <= max(even, odd)


def wide_encoding(raw: bytes, offset: int = 0) -> str | None:
    """How ``raw`` (bytes from byte ``offset`` of a file) is encoded when it is UTF-32 or
    UTF-16 text, by the name iconv reads it by, else None. ``UTF-32`` or ``UTF-16`` for
    text starting with its byte order mark (iconv reads the mark); else the byte order
    the NULs of ASCII text say: three in each four bytes for UTF-32 (``UTF-32LE``,
    ``UTF-32BE``), one in each two for UTF-16 (``UTF-16LE``, ``UTF-16BE``, as Windows
    PowerShell 5 writes a file with ``>`` or ``Out-File``). UTF-32 is looked for first:
    its little-endian mark starts with UTF-16's."""
    for bom, name in _WIDE_BOMS:
        if raw.startswith(bom):
            return name
    place = _utf32_place(raw)
    if place is not None:  # little-endian: the character's byte comes first
        return "UTF-32BE" if (offset + place) % 4 == 3 else "UTF-32LE"
    if not _utf16_nuls(raw):
        return None
    odd = raw[(offset + 1) % 2 :: 2].count(0)  # little-endian: the NUL after each character
    return "UTF-16LE" if odd >= raw[offset % 2 :: 2].count(0) else "UTF-16BE"


def looks_like_wide_text(raw: bytes) -> bool:
    """True for bytes of UTF-32 or UTF-16 text (:func:`wide_encoding`)."""
    return wide_encoding(raw) is not None


def wide_text(family: str) -> str:
    """Why a line or file of ``family`` text (``UTF-16``, ``UTF-32``) is refused, in
    :func:`not_utf8_text` (:func:`wide_reason` adds what to do)."""
    return not_utf8_text(f"it looks like {family}: re-save the file as UTF-8")


UTF16_TEXT = wide_text("UTF-16")
"""Why a line or file of UTF-16 text is refused."""
UTF32_TEXT = wide_text("UTF-32")
"""Why a line or file of UTF-32 text is refused."""
WIDE_TEXTS = (UTF16_TEXT, UTF32_TEXT)
"""How the reason of a line or file of UTF-16 or UTF-32 text starts."""


def wide_text_of(raw: bytes) -> str | None:
    """:data:`UTF32_TEXT` or :data:`UTF16_TEXT` for ``raw`` that :func:`wide_encoding`
    names so, else None."""
    encoding = wide_encoding(raw)
    if encoding is None:
        return None
    return UTF32_TEXT if encoding.startswith("UTF-32") else UTF16_TEXT


def converted_name(file: str, tag: str) -> str:
    """The name of a converted copy of ``file``, beside it: ``tag`` put before its suffix
    (``s.jsonl``, ``utf8``: ``s.utf8.jsonl``), or after a name with none (``s.utf8``).
    Never ``file`` itself, which a shell empties when it is named for a command's output
    before the command reads it."""
    cut = max(file.rfind("/"), file.rfind(os.sep)) + 1
    base = file[cut:]
    dot = base.rfind(".")
    if dot <= 0:  # no suffix, or a name such as ``.hidden``
        return f"{file}.{tag}"
    return f"{file[:cut]}{base[:dot]}.{tag}{base[dot:]}"


def rewrite_advice(convert: str, file: str, tag: str) -> str:
    """``e.g. `<convert> > <copy>`, then `mv <copy> <file>```: the commands that write
    ``file`` through the command line ``convert`` (which reads it) into a copy beside it
    (:func:`converted_name`), then move the copy in its place. Names are quoted for the
    shell (:func:`shell_path`)."""
    copy = shell_path(converted_name(file, tag))
    return f"e.g. `{convert} > {copy}`, then `mv {copy} {shell_path(file)}`"


def wide_reason(file: str, raw: bytes, line: int, offset: int = 0) -> str:
    """Why line ``line`` of ``file``, ``raw`` (UTF-32 or UTF-16 text from byte ``offset``
    of the file: :func:`wide_encoding`), is refused: :func:`wide_text`, with the
    commands that convert a file saved so (:func:`rewrite_advice`), or, further down a
    file, what appended lines in that encoding."""
    encoding = wide_encoding(raw, offset) or "UTF-16"
    family = encoding[:6]
    if line > 1:
        writer = " (as Windows PowerShell's `>>` or `Out-File` writes them)"
        return (
            f"{wide_text(family)}: lines from here on were added in {family}"
            f"{writer if family == 'UTF-16' else ''}; convert them to UTF-8, or delete "
            "them and record them again"
        )
    convert = f"iconv -f {encoding} -t UTF-8 {shell_path(file)}"
    return f"{wide_text(family)}, {rewrite_advice(convert, file, 'utf8')}"


_CONFLICT_MARKERS = (b"<<<<<<<", b"|||||||", b"=======", b">>>>>>>")


def is_conflict_marker(raw: bytes) -> bool:
    """True for a line git writes around a conflict it left in a merged file: seven
    ``<``, ``|``, ``=`` or ``>`` (``=======`` alone on its line), no JSON line's start."""
    text = raw.rstrip(b"\r\n")
    return text.startswith(_CONFLICT_MARKERS) and (text == b"=======" or text[7:8] in (b"", b" "))


def conflict_line(raw: bytes) -> int:
    """The number of the first line of ``raw`` (a whole file) that is a git conflict
    marker (:func:`is_conflict_marker`), or 0."""
    for number, line in enumerate(raw.splitlines(), 1):
        if is_conflict_marker(line):
            return number
    return 0


LFS_POINTER = b"version https://git-lfs.github.com/spec/"
"""How the file git holds for a Git LFS file begins (the pointer to its content)."""

SQLITE_HEADER = b"SQLite format 3\x00"
"""The first bytes of a SQLite file: a history database, given where a document is."""
SQLITE_HELD = "a SQLite database (an eval history, which `replaygate eval` appends each run to)"
"""What a file starting with :data:`SQLITE_HEADER` holds, in a user's words."""


_LINK_TEXT = re.compile(rb"[^\s\"'{}\[\],:;]+")
"""What a symbolic link checked out as a file holds: its target's path, on one line."""


def checked_out_link(raw: bytes) -> str | None:
    """Why ``raw``, a whole file read where JSON was expected, is refused when it holds
    only a path (``../../shared/copilot.jsonl``, no newline: what git writes in place of
    a symbolic link where symlinks are off, ``core.symlinks=false`` as on Windows by
    default), or None for any other text."""
    if len(raw) > 4096 or not _LINK_TEXT.fullmatch(raw):
        return None
    if b"/" not in raw and not raw.endswith((b".json", b".jsonl")):
        return None
    target = raw.decode("utf-8", "replace")
    return (
        f"holds only the path {target!r}: a symbolic link to it that git checked out as a "
        "file holding its target's path, as it does where symlinks are off "
        "(core.symlinks=false, the default on Windows). Turn them on there (Windows' "
        "Developer Mode, then `git config core.symlinks true`, and check the file out "
        "again), or commit the file itself in place of the link"
    )


def lfs_pointer_reason(what: str) -> str:
    """Why a file holding a Git LFS pointer is refused where ``what`` (``the fixtures``,
    ``eval cases``) was expected, and how to get it."""
    return (
        f"a Git LFS pointer, not {what}: the file was checked out without Git LFS "
        "(install git-lfs, run `git lfs install`, then `git lfs pull`)"
    )


def shell_path(name: str) -> str:
    """``name`` as a word of a command line shown to be run: quoted for the shell, and a
    relative name that starts with ``-`` (``-t.jsonl``) as ``./-t.jsonl``, which no
    command takes for an option."""
    return shell_quote(f"./{name}" if name.startswith("-") else name)


_BINARY = re.compile(rb"[\x00-\x08\x0e-\x1a\x1c-\x1f]")
"""A control byte no text file holds (a tab, a form feed, an escape are text's): a line
holding one is binary data."""


def lone_cr(raw: bytes) -> bool:
    """True when a line of text holds a carriage return before its end: line ends of CR
    alone. A line holding a control byte no text holds (:data:`_BINARY`) is not: a binary
    file (an image, an archive, a SQLite history) holds CRs too, and converting them
    would damage it."""
    return b"\r" in raw.rstrip() and not _BINARY.search(raw)


def lone_cr_reason(file: str) -> str:
    """Why a line of ``file`` with lone CR line ends (:func:`lone_cr`) is refused, with
    the commands that convert them (:func:`rewrite_advice`)."""
    advice = rewrite_advice(f"tr '\\r' '\\n' < {shell_path(file)}", file, "fixed")
    return (
        "lines end in a lone carriage return (CR) where a newline (LF) is expected, so "
        f"they run together: convert the line ends first, {advice}"
    )


BOM_REASON = (
    "starts with a UTF-8 byte order mark (BOM), which JSON does not allow (an "
    "editor saving as 'UTF-8 with BOM' writes one): re-save the file as UTF-8 without it"
)
"""Why a JSON file or a JSONL file's first line starting with a UTF-8 byte order mark is refused."""


def inner_bom_reason(file: str, line: int) -> str:
    """Why line ``line`` (after the first) of JSONL ``file`` starting with a UTF-8 byte
    order mark is refused, with the command that deletes it."""
    strip = f"sed -i '{line}s/^\\xef\\xbb\\xbf//' {shell_path(file)}"
    return (
        "starts with a UTF-8 byte order mark (BOM), which JSON does not allow, in the "
        "middle of the file (a file saved as 'UTF-8 with BOM' joined to another): "
        f"delete it from this line, e.g. `{strip}`"
    )


def undecodable_byte(raw: bytes, start: int, *, whole: bool = False) -> tuple[int, str]:
    """The line (from 1) of the byte at ``start`` of ``raw`` that is not UTF-8, and why,
    naming the byte and its column: ``not UTF-8 text (byte 0xe9 at column 12)``, as a
    Latin-1 or Windows-1252 file's é is; with its line too for a ``whole`` document
    that is read at once (``at line 3, column 12``)."""
    head = raw[:start]
    line = head.count(b"\n") + 1
    column = len(head[head.rfind(b"\n") + 1 :].decode("utf-8", "replace")) + 1
    where = f"line {line}, column {column}" if whole else f"column {column}"
    return line, not_utf8_text(f"byte 0x{raw[start]:02x} at {where}")


def line_encoding_reason(raw: bytes, file: str, line: int) -> str | None:
    """Why line ``line`` of JSONL ``file``, ``raw``, that a reader refused, cannot be read
    as written, in the fixture store's words: UTF-32 or UTF-16 text (:func:`wide_reason`),
    a UTF-8 byte order mark (:data:`BOM_REASON`, :func:`inner_bom_reason`) or lone CR line
    ends (:func:`lone_cr_reason`), each with what to do; None when it is none of these."""
    if looks_like_wide_text(raw):
        return wide_reason(file, raw, line)
    if raw.startswith(codecs.BOM_UTF8):
        return BOM_REASON if line == 1 else inner_bom_reason(file, line)
    if lone_cr(raw):
        return lone_cr_reason(file)
    return None


def jsonl_not_utf8(data: bytes, start: int, file: str) -> tuple[int, str]:
    """The line (from 1) and the reason of JSONL ``file``, ``data``, that stops being
    UTF-8 text at byte ``start``: its first line of UTF-32 or UTF-16 text (a file saved
    so, or lines appended so; :func:`line_encoding_reason`), else the byte by its column
    (:func:`undecodable_byte`)."""
    end = data.find(b"\n", start)
    lines = data[: end if end >= 0 else len(data)].split(b"\n")
    for number, line in enumerate(lines, start=1):
        if number == len(lines) or looks_like_wide_text(line):
            reason = line_encoding_reason(line, file, number)
            if reason is not None:
                return number, reason
    return undecodable_byte(data, start)


def located(file: str, line: int) -> str:
    """``file:line``, or ``file`` alone for line 0 (a whole-file problem); a file name
    holding a control character is shown escaped (:func:`shown_file`)."""
    name = shown_file(file)
    return f"{name}:{line}" if line else name


def first_few(names: Sequence[str], most: int) -> str:
    """``names`` joined by commas, the first ``most`` of them and ``...`` after, for a
    message naming what may be many."""
    return ", ".join(names[:most]) + (", ..." if len(names) > most else "")


class LocatedError(ReplaygateError):
    """A problem at a line of a file (1-based, or 0 for a whole-file problem), with the reason."""

    def __init__(self, file: str, line: int, reason: str) -> None:
        self.file = file
        self.line = line
        self.reason = reason
        super().__init__(f"{located(file, line)}: {reason}")


class FixtureFormatError(LocatedError):
    """A fixture store holds something that is not a valid fixture.

    Names the file, the line (1-based, or 0 for a whole-file problem) and the reason.
    """


class StoreWriteError(LocatedError):
    """A fixture could not be written (a full disk, a read-only folder); nothing stored was lost."""


class UnstorableValueError(ReplaygateError, ValueError):
    """A fixture holds a value the store cannot keep exactly (an integer beyond 64 bits).

    ``before_send``: the request of a live call holds it, and the call was not made
    (its answer could never be recorded).
    """

    def __init__(self, path: str, reason: str, *, before_send: bool = False) -> None:
        self.path = path
        self.reason = reason
        if before_send:
            message = (
                f"refusing to send this request: {reason} at {path}, which no fixture can "
                "hold; nothing was sent and nothing was written"
            )
        else:
            message = f"refusing to write fixture: {reason} at {path}; nothing was written"
        super().__init__(message)


class SpendingCapError(ReplaygateError):
    """A live call was not sent: it could take a recording past its spending cap."""


class LiveAPIError(ReplaygateError):
    """A recording command cannot use the live API: no key, no network, a refused key."""


class MissingExtraError(ReplaygateError, ImportError):
    """An optional dependency a feature needs is not installed; names the extra to install."""


class RecordingStoppedError(ReplaygateError):
    """A recording got an answer that is no model's reply, and wrote nothing for it:
    ``method``, ``path`` and ``status`` name the request and the answer's status."""

    def __init__(self, method: str, path: str, status: int, message: str) -> None:
        self.method = method
        self.path = path
        self.status = status
        super().__init__(message)


class UnservedRouteError(RecordingStoppedError):
    """A recording got the server's "no such route" 404: the answer is not a model reply.

    Nothing is written; ``simulator`` says the recording was made from replaygate's
    simulator, ``twice`` that the path holds the API version twice (``/v1/v1/messages``).
    """

    def __init__(
        self, method: str, path: str, status: int, *, simulator: bool = False, twice: bool = False
    ) -> None:
        if twice:
            where = (
                "Its path holds the API version twice: the client's base URL ends in the "
                "version its SDK adds again (the anthropic SDK adds /v1 itself: "
                "ANTHROPIC_BASE_URL=https://api.anthropic.com, not .../v1), so the live API "
                "would not serve it either. Correct the base URL (ANTHROPIC_BASE_URL, "
                "OPENAI_BASE_URL, base_url=) and record again."
            )
        elif simulator:
            where = (
                "replaygate's simulator does not serve it (a route of the API it lacks, a "
                "cloud's call it lacks such as another publisher's model on Vertex AI, or a "
                "base URL without the API version): record this call from the live API, "
                "or from a loopback server of yours that answers it, given to an intercept() "
                "block of its own as live_origin, or leave it out of the recording."
            )
        else:
            where = (
                "Point the client at a server that serves this path (check its base URL "
                "and the API version in the path), or leave this call out of the recording."
            )
        super().__init__(
            method,
            path,
            status,
            f"recording stopped: {method} {path} was answered {status}, the server's answer "
            "to a route it does not serve (not an API error about a model or a resource); "
            f"nothing was written. {where}",
        )


class CredentialsRefusedError(LiveAPIError):
    """A recording got a model API's refusal of the credentials the client sent (a 401, a
    403, Gemini's invalid key): not a model reply, so nothing is written.

    ``method``, ``path`` and ``status`` name the request, ``key`` where its key is set.
    """

    def __init__(self, method: str, path: str, status: int, key: str) -> None:
        self.method = method
        self.path = path
        self.status = status
        self.key = key
        super().__init__(
            f"recording stopped: {method} {path} was answered {status}: the live API refused "
            "the credentials the client sent (a missing, placeholder, revoked or "
            "under-permitted key). Nothing was recorded for this request: a fixture of it "
            f"would replay the refusal as the model's answer. Set {key} to a valid key and "
            "record again."
        )


class SimulatorRefusalError(RecordingStoppedError):
    """A recording got an error replaygate's simulator made of its own accord (a script
    run out, a behaviour that raised): not a model reply, so nothing is written.

    ``reason`` is the simulator's message.
    """

    def __init__(self, method: str, path: str, status: int, reason: str) -> None:
        self.reason = reason
        super().__init__(
            method,
            path,
            status,
            f"recording stopped: {method} {path} was answered {status} by replaygate's "
            f"simulator with an error of its own, not a model's answer: "
            f"{reason.removesuffix('.')}. Nothing was written for this request.",
        )


class ProxyRefusalError(RecordingStoppedError):
    """A recording got a proxy's ``407 Proxy Authentication Required``: the proxy between
    the client and the server refused to pass the request on, so the server never saw it
    and nothing is written.
    """

    def __init__(self, method: str, path: str, status: int) -> None:
        super().__init__(
            method,
            path,
            status,
            f"recording stopped: {method} {path} was answered {status} (Proxy Authentication "
            "Required) by a proxy between the client and the server, which refused to pass "
            "the request on: not the server's answer. Nothing was written for this request: "
            "a fixture of it would replay the proxy's refusal as the model's answer. Give the "
            "proxy its credentials (in HTTPS_PROXY or HTTP_PROXY, http://user:password@host:port, "
            "or in the client's proxy option), or send the request past it (NO_PROXY), and "
            "record again.",
        )


class TelemetryRefusedError(ReplaygateError):
    """A recording refused to send a tracing service's upload (OpenTelemetry's spans,
    metrics or logs over OTLP, to a collector on any host, a loopback one too; LangSmith's
    runs): no model call, and its trace ids are new at each run, so its fixture would miss
    at every replay. Nothing is sent, nothing is written."""


class CassetteAnsweredError(ReplaygateError):
    """A recording's live model call was answered by vcrpy from the test's cassette (a
    ``vcr`` mark left on the test), not by the model: nothing is written.

    ``request`` names the call (``POST /v1/messages``), ``cassette`` the cassette's file,
    ``recorded_now`` vcrpy's record mode when the answer is one vcrpy recorded into the
    cassette in this run (an earlier model call of the test, ``new_episodes``), else "".
    """

    def __init__(self, request: str, cassette: str, recorded_now: str = "") -> None:
        self.request = request
        self.cassette = cassette
        self.recorded_now = recorded_now
        if recorded_now:
            why = (
                "vcrpy recorded an earlier model call of this test into the cassette in this "
                f"run (its record mode, {recorded_now!r}, records what the cassette lacks), "
                "and, matching a request by method and URL, not by its body, answered this "
                "one with that call's answer"
            )
            remedy = "and delete the model calls vcrpy wrote into the cassette"
        else:
            why = (
                "vcrpy matches a request by method and URL, not by its body, so this is an "
                "answer recorded earlier, perhaps to another prompt"
            )
            remedy = "or delete them from the cassette"
        super().__init__(
            f"recording stopped: {request} was answered by vcrpy from the test's cassette "
            f"{cassette or '(its file unknown)'}, not by the model: {why}. Nothing was "
            "written for this request. Let the model calls by on the test's vcr mark "
            "(`@pytest.mark.vcr(ignore_localhost=True)` for the simulator, "
            f"`ignore_hosts=[...]` naming the API's host for the live API), {remedy}, "
            "then record again."
        )


class MockAnsweredError(ReplaygateError):
    """A recording's live model call was answered by an HTTP mock of the test (respx,
    pytest-httpx's ``httpx_mock``), not by the model: nothing is written.

    ``request`` names the call (``POST /v1/messages``), ``mock`` what answered it, and
    ``let_by`` how to let the model calls past it.
    """

    def __init__(self, request: str, mock: str, let_by: str) -> None:
        self.request = request
        self.mock = mock
        super().__init__(
            f"recording stopped: {request} was answered by {mock}, not by the model: a "
            "recording sends a model call live below the client, where the mock answers "
            "it, and its answer would be stored as the model's. Nothing was written for "
            f"this request. Let the model calls by ({let_by}), then record again."
        )


class KeyTooShortError(ReplaygateError, ValueError):
    """A fixture key (or a key prefix asked for) is shorter than ``fingerprint.KEY_LENGTH``."""


MissKind = Literal["changed", "not-recorded", "sent-more", "other"]
"""Which miss a :class:`FixtureMismatchError` is: a request no fixture holds
(``changed``: its nearest recorded request, if any, in ``differences``), a store that is
not there or holds nothing (``not-recorded``), a recorded request sent more often than it
has answers, or by a sample that did not send it when it was recorded (``sent-more``),
or another (``other``: an answer edited away, a stream read further than recorded, a
request repeated within a sampled run)."""
MISS_KINDS: tuple[MissKind, ...] = get_args(MissKind)
RecordAdvice = Literal["record-missing", "rerecord"]
"""The record mode a miss's advice names."""


class FixtureMismatchError(ReplaygateError, RuntimeError):
    """A request in replay mode has no recorded fixture (law 2).

    Never answered by call order, a default response or a live call: re-record the
    fixture (``--record-mode=record-missing --approve-live``) or revert the change.
    ``key``, ``store`` and ``differences`` (``path: recorded != requested`` lines of
    the nearest recorded request) let a test inspect it, ``kind`` says which miss it
    is (one of :data:`MISS_KINDS`), and ``record_mode`` the record mode its advice names
    (``record-missing``, which records what the store lacks, or ``rerecord``, which
    records the fixture anew). ``masked`` says that the message masks a secret the
    request (or the nearest recorded one) holds, which the frames the miss went through
    hold unmasked.
    """

    record_mode: RecordAdvice = "record-missing"

    def __init__(
        self,
        message: str,
        *,
        key: str = "",
        store: str = "",
        differences: tuple[str, ...] = (),
        kind: MissKind = "changed",
        record_mode: RecordAdvice | None = None,
        masked: bool = False,
    ) -> None:
        super().__init__(message)
        self.key = key
        self.store = store
        self.differences = differences
        self.kind = kind
        self.masked = masked
        if record_mode is not None:
            self.record_mode = record_mode


class LiveCallNotApproved(ReplaygateError):
    """A recording mode was asked for without an explicit approval for this run (law 3)."""


class SecretInFixtureError(ReplaygateError):
    """A fixture about to be written still holds a secret-looking value (law 4);
    ``before_send``: the request of a live call does, and the call was not made."""

    def __init__(
        self,
        path: str,
        detector: str,
        *,
        before_send: bool = False,
        remedy: str | None = None,
    ) -> None:
        self.path = path
        self.detector = detector
        self.before_send = before_send
        if remedy is None:
            remedy = "Add a sanitize rule or remove the value."
            if detector.startswith("high-entropy token"):  # found by its look alone
                remedy += (
                    " If it is no secret (a name, an id), list it in known_safe of "
                    "[tool.replaygate.sanitize] in pyproject.toml."
                )
        self.remedy = remedy
        refusal = (
            "refusing to send this request (its fixture could never be written)"
            if before_send
            else "refusing to write fixture"
        )
        done = "nothing was sent and nothing was written" if before_send else "nothing was written"
        super().__init__(f"{refusal}: {detector} found at {path}; {done}. {remedy}")


class ScriptExhaustedError(ReplaygateError):
    """A :class:`~replaygate.models.fakes.ScriptedModel` was called more often than scripted."""


class NoRuleMatchedError(ReplaygateError):
    """A :class:`~replaygate.models.fakes.RuleStub` has no rule for the conversation given."""


class SessionEndedError(ReplaygateError):
    """A request was sent through a session that is over: that of a pytest test which has
    ended, sent by a task the test left running (its event loop outlives it)."""


class NetworkBlockedError(ReplaygateError, ConnectionError):
    """A connection beyond loopback was attempted while replaying (law 3).

    Its message is its ``strerror`` too, which the clients that name an ``OSError`` by it
    show (aiohttp's ``Cannot connect to host example.com:443 ssl:default [...]``), where
    they would show ``None``."""

    sent_live: str | None = None
    """The request (``GET /encodings/o200k_base.tiktoken``) an HTTP session of replaygate
    sent live when the block refused it, set by that session; None for a client it does
    not intercept. Recording from a simulator, such a request calls no provider's API: it
    goes where it is addressed, not to the simulator, and is refused there."""

    carrier: BaseException | None = None
    """The error of the client library that carried this one out of that session's send
    (:func:`carrier_of`), set with :attr:`sent_live`."""

    unintercepted: bool = False
    """Whether the attempt was made by a WebSocket client, or while an ``intercept()``
    block answered, by no client it intercepts (a transport of the sender's own): where
    the client was built, and which block answers, do not matter then."""

    @property
    def strerror(self) -> str:  # type: ignore[override]  # read from the message
        """The message."""
        return str(self.args[0]) if self.args else ""


class WireFormatError(ReplaygateError, ValueError):
    """A wire-format dict (request or response) lacks a field or holds a wrong type."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


class ReplaygateWarning(UserWarning):
    """Base class of the warnings replaygate gives."""


class NothingRecordedWarning(ReplaygateWarning):
    """A recording ``intercept`` block ended without seeing a single request."""


class LiveSendFailedWarning(ReplaygateWarning):
    """A live send of a recording failed before any answer (a timeout, a refused
    connection), or its answer, not a stream, broke off before its end (the connection
    closed, a bad chunk, a compression that does not decode): nothing was recorded for it,
    so its replay misses, or sends once less than the recording did where a retry was
    answered."""


OUTAGE_REMEDY = "Record it again once the live API answers it."
"""What a send that failed of the API's or the network's doing is told to do."""

PAST_SIMULATOR = (
    " Recording from the simulator, this request was sent as addressed, to a loopback "
    "server (a local model server: Ollama, vLLM), not to the simulator: start that server, "
    "or build the client for the provider's API host, whose calls go to the simulator."
)
"""What a failed send that went past the simulator a session records from is told too."""

CLOSED_LOOP_REMEDY = (
    "The API did not fail: the client sent on a connection of an event loop that has ended, "
    "or of another event loop than the one sending now (one async client used from several "
    "event loops: a second asyncio.run, another async test, a sync call in each thread of a "
    "pool, as pydantic-ai's run_sync makes; the OpenAI Agents SDK's default client, shared "
    "by every Agent given a model name). The request may have reached the server all the "
    "same, its answer left unread: the live API bills it, and a simulator's script: "
    "behaviour spends a line on it, so a retry is answered with the next line. Give each "
    "event loop a client of its own (an Agent's: OpenAIResponsesModel(model=..., "
    "openai_client=AsyncOpenAI())), or make the async calls in one event loop "
    "(docs/frameworks.md: LangChain, the OpenAI Agents SDK, Haystack, Semantic Kernel, "
    "Mirascope, Agno, Strands Agents, AutoGen, magentic, LlamaIndex), then record it again."
)
"""What a send that met the closed or other event loop of its connection is told to do."""

CLOSED_CLIENT = "Cannot send a request, as the client has been closed."
"""How httpx and httpx2 refuse a send on a client that was closed (their RuntimeError)."""

CLOSED_CLIENT_REMEDY = (
    "The API did not fail: the HTTP client given to the SDK was closed before this send, "
    "by code that closes the SDK client it made around it once a request is done (Strands' "
    'OpenAIModel given client_args={"http_client": ...} opens and closes an AsyncOpenAI '
    "for each request, and so the http_client after the first; google-genai closes its "
    "HTTP client once no name holds the genai.Client, as in genai.Client().models."
    "generate_content(...), which fails live alike). Give the framework an SDK client it "
    "keeps (Strands: OpenAIModel(client=AsyncOpenAI(http_client=...)), "
    "docs/frameworks.md#strands-agents-under-pytest; google-genai: client = genai.Client() "
    "first, then client.models.generate_content(...)), or none and enter intercept() "
    "around the run, then record it again."
)
"""What a send on an HTTP client that was already closed is told to do."""

_OTHER_LOOP_ENDINGS = (" is bound to a different event loop", " attached to a different loop")
"""How asyncio ends its refusal of a lock, an event or a future of another event loop."""


def _closed_loop(err: BaseException) -> bool:
    """Whether ``err`` is asyncio's refusal of a connection whose event loop has ended, or
    of one whose locks and futures belong to another event loop than the running one."""
    text = str(err)
    return isinstance(err, RuntimeError) and (
        text == "Event loop is closed" or text.endswith(_OTHER_LOOP_ENDINGS)
    )


BLOCKED_PREFIX = "Network is disabled for host "
"""How pytest-recording's ``--block-network`` refuses a connection (its RuntimeError)."""


ILLEGAL_HEADER = "Illegal header value"
"""How h11 (under httpx and httpx2) begins its refusal of a header value it cannot send."""


_EMPTY_KEY = "b'Bearer '"
"""How h11 quotes an ``Authorization`` header of an empty key (its trailing space refused)."""


def group_leaves(err: BaseException) -> list[BaseException]:
    """``err``, or, for an exception group, the errors it holds, groups in it opened in
    turn: anyio's ``connect_tcp`` (an async client's connection, as pydantic-ai's, over
    httpx2's anyio backend) raises a refused connection inside an ``ExceptionGroup``."""
    if not isinstance(err, BaseExceptionGroup):
        return [err]
    return [leaf for member in err.exceptions for leaf in group_leaves(member)]


def send_remedy(err: BaseException) -> str:
    """What the warning of a live send that ``err`` ended tells to do: an outage is waited
    out; a closed event loop or client, or pytest-recording's ``--block-network``, is no
    API's doing, in an exception group too (the first of its errors that is told)."""
    remedies = (_one_send_remedy(leaf) for leaf in group_leaves(err))
    return next((told for told in remedies if told != OUTAGE_REMEDY), OUTAGE_REMEDY)


def _one_send_remedy(err: BaseException) -> str:
    """What :func:`send_remedy` tells of ``err``, an error that is no group."""
    if _closed_loop(err):
        return CLOSED_LOOP_REMEDY
    text = str(err)
    if isinstance(err, RuntimeError) and text == CLOSED_CLIENT:
        return CLOSED_CLIENT_REMEDY
    if isinstance(err, RuntimeError) and text.startswith(BLOCKED_PREFIX):
        host = text[len(BLOCKED_PREFIX) :].split(" (allowed hosts:")[0].strip("'\"")
        return (
            "The API did not fail: pytest-recording's --block-network refused the connection "
            f"to {host!r}. Allow it for the run (--allowed-hosts={host}, comma-separated with "
            "any other host allowed; --replaygate-simulator answers on 127.0.0.1, "
            "docs/migrating.md), then record it again."
        )
    if ILLEGAL_HEADER in text:
        if _EMPTY_KEY in text:
            return (
                "The API did not fail: the client sent an empty API key (a header "
                "'Bearer ' with nothing after it, which HTTP does not allow): give it "
                "one (a placeholder does for the simulator: ANTHROPIC_API_KEY=test, "
                "OPENAI_API_KEY=test), then record it again."
            )
        return (
            "The API did not fail: a header value holds a line break or another character "
            "HTTP does not allow (an API key read from a file with its line break: strip "
            "it), then record it again."
        )
    if text.startswith(HTTPX_MOCK_REFUSAL):
        return (
            "The API did not fail: pytest-httpx's httpx_mock refused the request, for which "
            "the test gave it no response. Leave the host to the network "
            "(`@pytest.mark.httpx_mock(should_mock=lambda request: request.url.host != "
            '"127.0.0.1")` for the simulator), then record it again.'
        )
    return _TEST_TOOL_REMEDIES.get(type(err).__module__.partition(".")[0], OUTAGE_REMEDY)


HTTPX_MOCK_REFUSAL = "No response can be found for "
"""How pytest-httpx's refusal of a request it has no response for begins (it raises it as
``httpx.TimeoutException``)."""


_TEST_TOOL_REMEDIES = {
    "pytest_socket": (
        "The API did not fail: pytest-socket refused the socket (its --disable-socket, "
        "--allow-hosts or disable_socket marker). Allow the host for the run "
        "(--allow-hosts=127.0.0.1 for the simulator, which --replaygate-simulator serves "
        "there; the API's host for the live API), then record it again."
    ),
    "vcr": (
        "The API did not fail: vcrpy refused the request, which the test's cassette does "
        "not hold in its record mode (a vcr mark left on the test, docs/migrating.md). Let "
        "the model calls by on the test's vcr mark (`@pytest.mark.vcr(ignore_localhost=True)` "
        "for the simulator, `ignore_hosts=[...]` naming the API's host for the live API), "
        "not into the cassette (record mode new_episodes, which would answer the test's "
        "next model call with this one's answer), then record it again."
    ),
    "respx": (
        "The API did not fail: respx refused the request, which no route of its mock "
        "matches. Give the mock a pass-through route for the host "
        '(`respx.route(host="127.0.0.1").pass_through()` for the simulator), then record '
        "it again."
    ),
}
"""What a live send refused by a test tool's mock or socket guard (by the module of its
error) tells to do, in place of waiting for the API."""


class ReplayErrorCaughtWarning(ReplaygateWarning):
    """A replaying ``intercept`` block ended normally after raising replay errors: the code
    under test caught them and went on."""


class TaskOutlivesBlockWarning(ReplaygateWarning):
    """An ``intercept`` block ended while asyncio or trio tasks started inside it still ran:
    what they send after it is not answered from the store, nor recorded."""


class BlockDroppedWarning(ReplaygateWarning):
    """An ``intercept`` or ``block_network`` block was entered and its object dropped
    without leaving it (``intercept(store).__enter__()`` keeping no object, a notebook cell
    that enters a block run again): it ends as the object is collected, and what is sent
    after it is neither answered from the store nor recorded, nor blocked."""


class ProcessOutsideBlockWarning(ReplaygateWarning):
    """A process was started by ``spawn`` or ``forkserver`` inside an ``intercept`` block:
    it does not share the block, so what it sends is neither answered from the store nor
    recorded."""


class RequestsMergedWarning(ReplaygateWarning):
    """While recording, the sanitize rules rewrote two different requests into one: they
    share a fixture, and replay answers them in the order they were sent."""


class SentAtOnceWarning(ReplaygateWarning):
    """While recording, identical requests were sent at once: a replay answers them in the
    order they are sent then, which may give one the answer another was recorded with."""


class ResponseLeftOpenWarning(ReplaygateWarning):
    """A recording block ended while a live response (not an event stream) was neither
    read to its end nor closed: it could not be recorded."""


def kind_of(value: Any) -> str:
    """What ``value`` is, in a user's words: ``a number``, ``text``, ``a list``..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    for kinds, word in (
        (int | float, "a number"),
        (str, "text"),
        (bytes, "bytes"),
        (list | tuple, "a list"),
        (dict, "an object"),
    ):
        if isinstance(value, kinds):
            return word
    return "a value of another kind"
