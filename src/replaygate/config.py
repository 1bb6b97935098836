"""The one reader of ``[tool.replaygate]``: which ``pyproject.toml``, parsed once.

A fixture store belongs to a project: the one whose ``pyproject.toml`` is nearest at
or above the store (a ``.jsonl`` file or a folder, existing or not); a relative store
path is taken from the current folder, as the store itself is. With none above it,
the pytest rootdir's ``pyproject.toml`` is used when the pytest plugin gives it;
else the defaults apply. The walk stops at ``site-packages``: fixtures an installed
package ships are not sanitized by the project around the environment. So what is
written to or matched in a store depends neither on the folder a command runs from
nor on the machine (law 6).

Files are parsed with ``tomllib`` once and cached by path, modification time, size
and inode. :func:`tool_table` picks ``[tool.replaygate]`` from a parsed file; its
readers (:mod:`replaygate.sanitize.config`, :mod:`replaygate.evals.config`) check
it and name the file, line and key of what is wrong.
"""

from __future__ import annotations

import difflib
import os
import re
import stat
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from replaygate.collector import collector_paused
from replaygate.errors import (
    ReplaygateError,
    checked_out_link,
    located,
    lone_cr,
    lone_cr_reason,
    looks_like_wide_text,
    undecodable_byte,
    wide_reason,
)
from replaygate.regular import file_kind, read_regular_text, text_lines, unreadable

PYPROJECT = "pyproject.toml"
_INSTALLED = frozenset({"site-packages", "dist-packages"})
_BOM = "\ufeff"
TOOL_KEYS = (
    *("cases", "fixtures", "baseline", "history", "hits", "agent", "model", "max_tokens"),
    *("system", "prices", "max_cost", "gate", "ci", "report", "patrol", "sanitize"),
)
"""The keys of ``[tool.replaygate]``: another is refused as a typo, naming its line."""
MAX_TOKENS = 2**31 - 1
"""The largest ``max_tokens`` a request is built with (``[tool.replaygate]``, ``--max-tokens``):
a 32-bit count, as the APIs take; beyond it the HTTP client fails deep down (a timeout out
of range)."""

StrPath = str | os.PathLike[str]


class TomlFileError(ReplaygateError, ValueError):
    """A TOML file cannot be read or is not valid TOML; names the file and line (0: unknown)."""

    def __init__(self, file: Path, line: int, reason: str) -> None:
        self.file = file
        self.line = line
        self.reason = reason
        super().__init__(f"{located(str(file), line)}: {reason}")


@dataclass(frozen=True)
class TomlDocument:
    """A parsed TOML file: its path, its text (for line numbers) and its data (read-only)."""

    file: Path
    text: str
    data: Mapping[str, Any]


_cache: dict[Path, tuple[tuple[int, int, int], TomlDocument]] = {}


def read_toml(path: StrPath) -> TomlDocument:
    """``path`` parsed, from the cache while the file is unchanged."""
    file = Path(path)
    try:
        info = file.stat()
        stamp = (info.st_mtime_ns, info.st_size, info.st_ino)
        key = file.resolve()
        cached = _cache.get(key)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        text = read_regular_text(file)
    except OSError as err:
        raise TomlFileError(file, 0, f"cannot read: {err.strerror}") from None
    except UnicodeDecodeError as err:  # named as the fixture store names it
        if looks_like_wide_text(err.object[:4096]):
            raise TomlFileError(file, 1, _wide(file, err.object)) from None
        raise TomlFileError(file, *undecodable_byte(err.object, err.start)) from None
    if "\0" in text and looks_like_wide_text(text[:4096].encode("utf-8")):  # without a BOM
        raise TomlFileError(file, 1, _wide(file, text.encode("utf-8")))
    if text.startswith(_BOM):
        raise TomlFileError(
            file,
            1,
            "starts with a byte order mark (BOM), which TOML does not allow: "
            "save the file as UTF-8 without one",
        )
    try:
        with collector_paused():  # tomllib recurses: nested deep, it reaches Python's limit
            data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        found = re.search(r"at line (\d+)", str(err))
        line = int(found.group(1)) if found else 0
        if line and lone_cr(text.split("\n")[line - 1].encode("utf-8", "surrogatepass")):
            raise TomlFileError(file, line, lone_cr_reason(str(file))) from None
        link = checked_out_link(text.encode("utf-8", "surrogatepass"))
        if link is not None:  # a monorepo's shared pyproject.toml, linked
            raise TomlFileError(file, 1, link) from None
        raise TomlFileError(file, line, f"not valid TOML: {err}") from None
    except RecursionError:
        raise TomlFileError(
            file, 0, "cannot read: arrays or inline tables nested too deeply"
        ) from None
    document = TomlDocument(file, text, data)
    _cache[key] = (stamp, document)
    return document


def _wide(file: Path, raw: bytes) -> str:
    """Why ``file``, UTF-32 or UTF-16 text ``raw``, is refused, with the commands that
    convert it."""
    return wide_reason(str(file), raw[:4096], 1)


_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")


def _normal(dotted: str) -> str:
    return ".".join(part.strip().strip("\"'") for part in dotted.split("."))


def line_of(text: str, section: str, key: str = "", occurrence: int = 0) -> int:
    """The 1-based line of ``key`` in ``[section]`` of a TOML text (or of the header; 0 if
    not found): ``tomllib`` keeps no line numbers.

    ``occurrence`` picks one of several ``[[section]]`` headers (0 for the first). A
    section that has no header of its own (an inline table, an item of an inline array
    of tables) is looked up as a key of its parent.
    """
    found = _scan(text, section, key, occurrence)
    if found or not section:
        return found
    parent, _, last = section.rpartition(".")
    return line_of(text, parent, last)  # an inline array's items are all on its key's line


_KEY_PART = r"""(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')"""
_KEY = re.compile(rf"^\s*({_KEY_PART}(?:\s*\.\s*{_KEY_PART})*)\s*=")
"""The (dotted) key of a ``key = value`` line."""


def _under(dotted: str, name: str) -> bool:
    """Whether the dotted key ``dotted`` is ``name`` or a key inside it."""
    return dotted == name or dotted.startswith(f"{name}.")


def _scan(text: str, section: str, key: str, occurrence: int) -> int:
    """The line of ``key`` in the ``occurrence``-th ``[section]``: as a key of its own
    header's table, or (for the first) as a dotted key or a header of a table above or
    below it (``[tool]`` then ``replaygate.agent = ...``); else the line of the header."""
    header_line = 0
    here = ""
    inside = section == ""
    seen = -1
    target = f"{section}.{key}" if section else key
    for number, line in statement_lines(text):
        header = _HEADER.match(line)
        if header:
            here = _normal(header.group(1))
            inside = here == section
            if inside:
                seen += 1
                inside = seen == occurrence
            if inside and not header_line:
                header_line = number
            elif key and occurrence == 0 and _under(here, target):
                return number  # [section.key] or [section.key.sub]
            continue
        found = _KEY.match(line) if key else None
        if found is None:
            continue
        dotted = _normal(found.group(1))
        if inside and _under(dotted, key):
            return number
        full = f"{here}.{dotted}" if here else dotted
        if not inside and occurrence == 0 and _under(full, target):
            return number
    return header_line


def statement_lines(text: str) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of the lines of a TOML text that start a statement (a
    ``key = value`` or a ``[header]``): not those that start inside a multi-line string
    (a system prompt's ``[RULES]`` or ``model = ...`` is text, not a header or a key) nor
    inside an array or inline table that spans lines."""
    inner = _continued_lines(text)
    for number, line in text_lines(text):
        if number not in inner:
            yield number, line


def _continued_lines(text: str) -> set[int]:
    """The numbers of the lines of a TOML text that start inside a multi-line string, an
    array or an inline table begun on a line before."""
    inner: set[int] = set()
    line = 1
    depth = 0  # of open arrays and inline tables
    at = 0
    while at < len(text):
        char = text[at]
        if char == "\n":
            line += 1
            if depth:
                inner.add(line)
            at += 1
        elif char == "#":  # a comment, to the end of its line
            end = text.find("\n", at)
            at = len(text) if end < 0 else end
        elif char in "\"'" and text.startswith(char * 3, at):
            end = _multi_line_end(text, at + 3, char)
            lines = text.count("\n", at, end)
            inner.update(range(line + 1, line + lines + 1))
            line += lines
            at = end
        elif char in "\"'":
            at = _string_end(text, at + 1, char)
        else:
            if char in "[{":
                depth += 1
            elif char in "]}" and depth:
                depth -= 1
            at += 1
    return inner


def _multi_line_end(text: str, at: int, quote: str) -> int:
    """Where the multi-line string whose text starts at ``at`` ends (after its closing
    quotes: up to two more quotes before them are the string's): ``quote`` is ``"`` for a
    basic string, whose backslash escapes the character after it, ``'`` for a literal one."""
    while at < len(text):
        char = text[at]
        if char == "\\" and quote == '"':
            at += 2
        elif text.startswith(quote * 3, at):
            end = at + 3
            while end < len(text) and end - at < 5 and text[end] == quote:
                end += 1
            return end
        else:
            at += 1
    return len(text)


def _string_end(text: str, at: int, quote: str) -> int:
    """Where the one-line string whose text starts at ``at`` ends (after its closing
    quote, or at the end of its line)."""
    while at < len(text) and text[at] != "\n":
        char = text[at]
        if char == quote:
            return at + 1
        at += 2 if char == "\\" and quote == '"' else 1
    return at


MEANT_CUTOFF = 0.75
"""How alike a key must be to a known one to be taken for it misspelled."""


def meant_key(key: str, known: Iterable[str]) -> str | None:
    """The known key ``key`` is most likely a misspelling of (``sanitise``: ``sanitize``),
    or None when none is alike enough (:data:`MEANT_CUTOFF`)."""
    close = difflib.get_close_matches(key.lower(), list(known), n=1, cutoff=MEANT_CUTOFF)
    return close[0] if close else None


def described(value: Any) -> str:
    """A TOML value as an error shows what was found: ``the string 'x'``, ``int 5``."""
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        return "an array of tables ([[...]])"
    return f"{type(value).__name__} {value!r}"


def tool_table(data: Mapping[str, Any]) -> Any:
    """The ``[tool.replaygate]`` value of a parsed ``pyproject.toml`` (``{}`` when absent).

    Returned as parsed: a reader checks that it is a table.
    """
    tool = data.get("tool", {})
    return tool.get("replaygate", {}) if isinstance(tool, Mapping) else {}


def find_pyproject(start: StrPath | None = None) -> Path | None:
    """The nearest ``pyproject.toml`` at or above ``start`` (default: the current folder).

    ``start`` may be a file or a folder, and may not exist yet; symbolic links in it are
    followed (a loop is left as it is: the store reports it when opened). The walk stops
    at an installed-packages folder (``site-packages``). Written on path strings: a
    session looks its project up each time one is made. A ``pyproject.toml`` that is
    there but is no regular file (a symlink to nothing, a FIFO, a folder) is the
    project's all the same: it is refused (:class:`TomlFileError`), never passed over
    for a folder above's, whose settings and store are another project's.
    """
    return _walk_up(os.path.realpath(start if start is not None else "."))


def _walk_up(folder: str) -> Path | None:
    """The nearest ``pyproject.toml`` at or above the absolute path ``folder``, taken as
    written (:func:`find_pyproject`)."""
    while True:
        found = _project_file(os.path.join(folder, PYPROJECT))
        if found is not None:
            return found
        parent, name = os.path.split(folder)
        if name in _INSTALLED or parent == folder:
            return None
        folder = parent


def _project_file(candidate: str) -> Path | None:
    """``candidate``, a ``pyproject.toml`` path, when it is a regular file; None when
    nothing is there; refused when something else is (:func:`find_pyproject`)."""
    try:
        found = os.stat(candidate)
    except OSError as err:
        if not os.path.lexists(candidate):
            return None
        reason = unreadable(candidate, err, "file")
    else:
        if stat.S_ISREG(found.st_mode):
            return Path(candidate)
        reason = f"is {file_kind(found.st_mode)}, where a file is expected"
    raise TomlFileError(
        Path(candidate),
        0,
        f"{reason} (the project's {PYPROJECT}: the settings of a folder above are not "
        "used in its place)",
    )


def store_pyproject(store: StrPath | None, root: StrPath | None = None) -> Path | None:
    """The ``pyproject.toml`` of the project that owns ``store``, or None.

    The nearest one at or above ``store``, its symbolic links followed; with none there,
    the nearest above the path as named (a store in a folder linked into the project from
    outside any, ``tests/fixtures -> /srv/shared``, is the project's); else ``root``'s
    (the pytest rootdir), if given. Only when neither is known is it the one found from
    the current folder.
    """
    if store is None and root is None:
        return find_pyproject()
    found = find_pyproject(store) if store is not None else None
    if found is None and store is not None:
        found = _walk_up(os.path.abspath(store))
    if found is None and root is not None:
        found = _project_file(os.path.join(os.path.realpath(root), PYPROJECT))
    return found


def project_folder(pyproject: StrPath) -> Path:
    """The project folder of ``pyproject``, a ``pyproject.toml`` found or given: the
    folder it is in, where relative paths in ``[tool.replaygate]`` are taken from. A
    ``pyproject.toml`` that is a symbolic link (a config shared from another checkout)
    belongs to the folder of the link, not of the file it points to, as pytest takes
    the link's folder for its rootdir."""
    return Path(os.path.realpath(os.path.dirname(os.path.abspath(pyproject))))
