"""Reading a file a user names, refusing anything but a regular file, never blocking.

A path given on the command line or found by walking a tree may be a FIFO (opening
one for reading waits for a writer that never comes), a device (``/dev/zero`` never
ends), a folder or a socket. :func:`open_regular_fd` opens it non-blocking and checks
what it opened, so such a path is refused at once with :class:`NotRegularFileError`,
an :class:`OSError` whose ``strerror`` says what the path is. Callers that already
turn an ``OSError`` into their own error ("cannot read ...: <strerror>") need nothing
more.
"""

from __future__ import annotations

import errno
import os
import re
import select
import stat
from collections.abc import Iterator
from pathlib import Path, PurePath

from replaygate.errors import checked_out_link


class NotRegularFileError(OSError):
    """A path that is there but is not a regular file (its ``strerror`` says what it is,
    and ``kind`` in a word or two: ``"a FIFO"``)."""

    kind: str


def file_kind(mode: int) -> str:
    """What a file of ``st_mode`` ``mode`` is, in words: ``"a FIFO"``, ``"a folder"``..."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def not_regular(path: str | os.PathLike[str], mode: int) -> NotRegularFileError:
    """The error for ``path``, found to be of ``st_mode`` ``mode``."""
    kind = file_kind(mode)
    error = NotRegularFileError(
        errno.EINVAL, f"is {kind}, where a file is expected", os.fspath(path)
    )
    error.kind = kind
    return error


def unreadable(path: str | os.PathLike[str], err: OSError, what: str) -> str:
    """Why the ``what`` (``"fixture file"``) at ``path`` could not be read (``err``): what
    it is where one is expected (a FIFO, a folder, a device, a symlink loop, a symlink to
    nothing), else ``cannot read this <what>: <the system's reason>``."""
    if isinstance(err, NotRegularFileError):
        kind = err.kind
    elif err.errno == errno.ELOOP:
        kind = "a symlink loop"
    elif isinstance(err, FileNotFoundError) and os.path.islink(path):
        kind = f"a symlink to {os.readlink(path)!r}, which does not exist"
    else:
        return f"cannot read this {what}: {err.strerror or err}"
    return f"is {kind}, where a {what} is expected"


def not_a_folder(path: str | os.PathLike[str]) -> str:
    """What ``path``, found to be no folder, is where a folder is expected: a file, a
    FIFO, a symlink to nothing, a symlink loop (``is a file, where a folder is expected``);
    a file holding only a path is named as the symlink to a folder git checked out so
    (:func:`~replaygate.errors.checked_out_link`)."""
    try:
        info = os.stat(path)
    except OSError as err:
        return unreadable(path, err, "folder")
    if not stat.S_ISREG(info.st_mode):
        return f"is {file_kind(info.st_mode)}, where a folder is expected"
    link = _link_held(path) if info.st_size <= 4096 else None
    return "is a file, where a folder is expected" + (f": it {link}" if link else "")


def _link_held(path: str | os.PathLike[str]) -> str | None:
    """Why the small regular file ``path`` is a symlink git checked out as a file, or None."""
    try:
        with open(path, "rb") as file:
            return checked_out_link(file.read(4097))
    except OSError:
        return None


def blocked_folder(path: str | os.PathLike[str]) -> str | None:
    """What keeps a file from being at ``path``: the nearest of its parents that is there,
    when it is no folder (``afile is a file, where a folder is expected``), or a name of
    it longer than the file system holds (:func:`name_too_long`); None when a file could
    be there."""
    for folder in Path(path).parents:
        if os.path.lexists(folder):
            if not folder.is_dir():
                return f"{folder} {not_a_folder(folder)}"
            break
    return name_too_long(path)


def _name_bytes(name: str) -> bytes:
    """``name`` as the file system holds it: in the locale's encoding, or in UTF-8 where
    the locale cannot encode it (``LC_ALL=C``: replaygate writes such a name in UTF-8)."""
    try:
        return os.fsencode(name)
    except UnicodeEncodeError:
        return name.encode("utf-8", "surrogateescape")


def name_too_long(path: str | os.PathLike[str]) -> str | None:
    """Why no file can be at ``path``, one of whose names is longer than the file system
    of its nearest folder that is there holds, or None (a recording to it failed with
    "File name too long" after a replay had said to record it)."""
    there = next((folder for folder in Path(path).parents if os.path.isdir(folder)), Path("."))
    try:
        most = os.pathconf(there, "PC_NAME_MAX")
    except (OSError, ValueError):  # no such figure on this system
        return None
    for name in Path(path).parts:
        size = len(_name_bytes(name))
        if size > most and name != Path(path).anchor:
            return (
                f"a name in it is {size:,} bytes long ({name[:24]}...), longer than the "
                f"{most:,} bytes this file system holds in a name: give a shorter one"
            )
    return None


WAITING = "a file that waits for something to write it (a kernel or device file)"
"""What a regular file whose read would wait (``/proc/kmsg``) is, refused as no file."""


def open_regular_fd(path: str | os.PathLike[str]) -> int:
    """A read-only descriptor of the regular file ``path``; anything else is refused, and
    so is a regular file with nothing to read until something writes it (``/proc/kmsg``:
    a read that does not wait gives nothing, which a reader would take for an empty file)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as err:
        if err.errno == errno.ENXIO:  # a socket cannot be opened: "No such device or address"
            raise not_regular(path, os.stat(path).st_mode) from None
        raise
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise not_regular(path, mode)
    if not _ready(fd):  # a file on disk always is
        os.close(fd)
        raise waiting(path)
    return fd


def _ready(fd: int) -> bool:
    """Whether a read of ``fd`` would give something now (``poll``: any descriptor number,
    where ``select`` takes none past 1023)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(0))


def read_regular_bytes(path: str | os.PathLike[str]) -> bytes:
    """The bytes of the regular file ``path`` (:class:`NotRegularFileError` otherwise)."""
    with os.fdopen(open_regular_fd(path), "rb") as handle:
        data = handle.read()
    if data is None:  # opened without waiting: a file that waits for data (/proc/kmsg)
        raise waiting(path)
    return data


def waiting(path: str | os.PathLike[str]) -> NotRegularFileError:
    """The error for the regular file ``path`` whose read, on a descriptor that does not
    wait, gave nothing at all (``None``): it waits for data to be written."""
    error = NotRegularFileError(
        errno.EAGAIN, f"is {WAITING}, where a file is expected", os.fspath(path)
    )
    error.kind = WAITING
    return error


def read_regular_text(path: str | os.PathLike[str]) -> str:
    """The UTF-8 text of the regular file ``path`` (``UnicodeDecodeError`` if it is not)."""
    return read_regular_bytes(path).decode("utf-8")


JSON_SPACE = " \t\r\n"
"""The white space JSON allows between tokens (``str.isspace`` and ``bytes.isspace`` also
count a vertical tab and a form feed, which JSON refuses, and ``str`` more)."""
_JSON_SPACE_BYTES = JSON_SPACE.encode("ascii")


def file_state(found: os.stat_result) -> tuple[int, ...]:
    """What of a file's ``stat`` changes when another program edits it, cuts it, appends
    to it or moves another file over its path: its device and inode, size, and times of
    modification and change. Equal before and after a read: the bytes read are the file's."""
    return (found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)


def is_blank(line: str | bytes) -> bool:
    """Whether a JSONL line holds nothing but JSON's white space: a blank line, passed
    over. A line holding a form feed, a vertical tab or another space is not: it is
    read, and refused as JSON refuses it, naming its line."""
    if isinstance(line, bytes):
        return not line.strip(_JSON_SPACE_BYTES)
    return not line.strip(JSON_SPACE)


SHELL_LEFT = "it was quoted, followed an =, or stands in a file"
"""Why a shell left a ``~`` of a command line unexpanded (:func:`unexpanded_tilde`)."""


def unexpanded_tilde(path: str, base: str | os.PathLike[str], why: str = SHELL_LEFT) -> str | None:
    """Why ``path`` cannot be taken as written: it starts with a ``~`` a shell would have
    made a home folder (``~``, ``~/x``, ``~alice/x``), but none did (``why``: it was
    quoted, followed an ``=``, or stands in a file; Python expands none), so it names a
    new folder called ``~`` under ``base``; None for any other path, or when a folder of
    that name is there."""
    first = path.split("/", 1)[0].split(os.sep, 1)[0]
    if not first.startswith("~") or os.path.expanduser(first) == first:
        return None
    if os.path.lexists(os.path.join(base, first)):  # a folder really named so
        return None
    return (
        f"{path!r}: the {first} was not expanded to a home folder ({why}), so it would "
        f"name a new folder called {first} in {os.fspath(base) or '.'}: write the home "
        "folder's path itself, or a relative one"
    )


_WINDOWS_DEVICES = frozenset(
    {"CON", "PRN", "AUX", "NUL", *(f"{port}{n}" for port in ("COM", "LPT") for n in "123456789")}
)
"""The names Windows gives its devices: no file or folder is so named, whatever its suffix."""


_WINDOWS_FORBIDDEN = re.compile(r'[<>:"|?*]')
"""The printable characters no Windows file name holds (a backslash and a control
character aside, refused where a path is given)."""


def windows_unfit(path: PurePath) -> str | None:
    """Why Windows cannot hold a part of ``path`` under its name, or None: a device's name
    up to the part's first dot (``CON``, ``nul.txt``, ``Com1.test_x.jsonl``), a part
    ending in a dot or a space, which Windows drops, or one holding a character Windows
    forbids (``what?.jsonl``). ``.`` and ``..`` are no names, and the root no part."""
    for part in path.relative_to(path.anchor).parts:
        if part in (".", ".."):
            continue
        forbidden = _WINDOWS_FORBIDDEN.search(part)
        if forbidden is not None:
            return f"{part!r} holds {forbidden.group()!r}, which no file name holds on Windows"
        if part.split(".", 1)[0].rstrip(" ").upper() in _WINDOWS_DEVICES:
            return (
                f"{part!r} is a device's name on Windows (CON, PRN, AUX, NUL, COM1-9, "
                "LPT1-9, whatever follows a dot)"
            )
        if part.endswith((".", " ")):
            return f"{part!r} ends in a dot or a space, which Windows drops from a name"
    return None


def spelled_otherwise(path: str | os.PathLike[str]) -> Path | None:
    """The path that is there and differs from ``path``, which is not, in the case of its
    names only (``Tests/Fixtures`` for ``tests/fixtures``): one file on macOS and
    Windows, which do not tell case apart, and two names on Linux; None when there is
    none (or ``path`` is there)."""
    path = Path(path)
    if os.path.lexists(path):
        return None
    found = Path(path.anchor) if path.is_absolute() else Path()
    for part in path.relative_to(path.anchor).parts:
        if not os.path.lexists(found / part):
            try:
                names = os.listdir(found)
            except OSError:
                return None
            part = next((name for name in names if name.casefold() == part.casefold()), "")
            if not part:
                return None
        found = found / part
    return found


def backslashed(path: str) -> str | None:
    """Why ``path``, written where every system reads it (a test's marker, shared through
    git), cannot be taken: it separates folders with a backslash, which only Windows reads
    as a separator; None for a path without one."""
    if "\\" not in path:
        return None
    portable = path.replace("\\", "/")
    return (
        f"{path!r} separates folders with a backslash, which Linux and macOS take for a "
        f"character of the file's name (so CI would use another file than Windows): write "
        f"{portable!r}, which every system reads alike"
    )


def backslashed_here(path: str, base: str | os.PathLike[str]) -> str | None:
    """Why ``path`` (from ``base``), given on Linux or macOS, is taken for a path written
    on Windows (:func:`backslashed`), or None: on Windows, for a path without a backslash,
    and for one whose names holding a backslash are there (these systems allow one in a
    name: ``a\\b/new.jsonl`` in a folder ``a\\b``)."""
    if os.sep != "/" or "\\" not in path:
        return None
    parts = path.split("/")
    last = max(i for i, part in enumerate(parts) if "\\" in part)
    if os.path.lexists(os.path.join(base, *parts[: last + 1])):
        return None
    return backslashed(path)


def same_file(one: str | os.PathLike[str], other: str | os.PathLike[str]) -> bool:
    """Whether two paths name one file (through links too); a path yet to be made is
    compared by where it resolves to."""
    try:
        return os.path.samefile(one, other)
    except OSError:
        pass
    try:
        return os.path.realpath(one, strict=False) == os.path.realpath(other, strict=False)
    except (OSError, ValueError):  # a link that loops names no file
        return False


def text_lines(text: str) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of ``text``, each line without its ``\n`` or ``\r\n``.

    Lines end there only: ``str.splitlines()`` also breaks at U+2028, U+0085 and others,
    which JSON and TOML hold unescaped inside a string, and would number every line
    after one wrong.
    """
    for number, line in enumerate(text.split("\n"), start=1):
        yield number, line.removesuffix("\r")
