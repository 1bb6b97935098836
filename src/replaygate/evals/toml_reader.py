"""Typed reads from a parsed TOML table, with errors naming file, line and key.

``tomllib`` keeps no line numbers, so :func:`~replaygate.config.line_of` finds them in
the text: the line of ``key = ...`` inside the ``[section]`` header (or of the header
itself), which is what a person needs to fix it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path, PurePath
from typing import Any

from replaygate.config import TomlFileError, described, line_of, meant_key, read_toml
from replaygate.errors import has_control, located
from replaygate.evals.errors import ConfigError
from replaygate.locale_names import on_disk
from replaygate.regular import backslashed, unexpanded_tilde, windows_unfit


def load_toml(path: Path) -> tuple[Mapping[str, Any], str]:
    """Parse ``path``; a syntax error becomes a :class:`ConfigError` at its line."""
    try:
        document = read_toml(path)
    except TomlFileError as err:
        raise ConfigError(str(path), err.line, "", err.reason) from None
    return document.data, document.text


class TableReader:
    """Reads typed values from one TOML table; every error names file, line and key."""

    def __init__(
        self,
        file: str,
        text: str,
        section: str,
        table: Mapping[str, Any],
        index: int | None = None,
    ) -> None:
        self.file = file
        self.text = text
        self.section = section
        self.table = table
        self.index = index

    def error(self, key: str, reason: str) -> ConfigError:
        """A :class:`ConfigError` for ``key`` of this table."""
        return ConfigError(self.file, *self._place(key), reason)

    def where(self, key: str) -> str:
        """Where ``key`` of this table is: ``file:line: section.key``."""
        line, dotted = self._place(key)
        return f"{located(self.file, line)}: {dotted}"

    def line(self, key: str) -> int:
        """The line of ``key`` of this table."""
        return self._place(key)[0]

    def _place(self, key: str) -> tuple[int, str]:
        """The line of ``key`` and its dotted name."""
        top = key.split(".", 1)[0]
        here = self.section if self.index is None else f"{self.section}[{self.index}]"
        dotted = f"{here}.{key}" if here and key else here or key
        return line_of(self.text, self.section, top, self.index or 0), dotted

    def sub(self, key: str) -> TableReader:
        """The reader of the sub-table ``key`` (an empty one when absent)."""
        value = self.table.get(key, {})
        if not isinstance(value, Mapping):
            raise self.error(key, f"expected a table, got {described(value)}")
        section = f"{self.section}.{key}" if self.section else key
        return TableReader(self.file, self.text, section, value)

    def check_known(self, known: tuple[str, ...]) -> None:
        """Refuse keys this table does not define (a typo would be silently ignored), with
        the known key it is close to (``sanitise``: did you mean ``sanitize``?)."""
        for key in self.table:
            if key not in known:
                raise self.error(
                    key, f"unknown key{self._meant(key, known)} known keys: {', '.join(known)}"
                )

    def _meant(self, key: str, known: tuple[str, ...]) -> str:
        """``: did you mean <the close known key's dotted name>?``, or ``;``."""
        close = meant_key(key, known)
        return f": did you mean {self._place(close)[1]}?" if close else ";"

    def string(self, key: str, default: str | None = None, *, nonempty: bool = False) -> str | None:
        """A string value (with ``nonempty``, one that is not blank)."""
        value = self.table.get(key, default)
        if value is not None and not isinstance(value, str):
            raise self.error(key, f"expected a string, got {described(value)}")
        if nonempty and value is not None and not value.strip():
            raise self.error(key, f"expected a non-empty string, got {described(value)}")
        return value

    def label(self, key: str, missing: str) -> str:
        """A name printed in tables and terminals: a non-empty string with no control
        character (a newline split a table's row in two); ``missing`` says why one is
        needed."""
        value = self.string(key)
        if not value:
            raise self.error(key, missing)
        if has_control(value):
            raise self.error(
                key,
                "must hold no control character (a newline, a tab, an escape): it is printed "
                f"in tables and on terminals, got {value!r}",
            )
        return value

    def path(self, key: str, *, nonempty: bool = True) -> str | None:
        """A file or folder name: a string (with ``nonempty``, one that is not blank) that
        holds no NUL character (no file system takes one: the first use of the path would
        fail naming neither the file nor the key) and does not start with a ``~`` a shell
        would have made a home folder (:func:`~replaygate.regular.unexpanded_tilde`), as
        the file system names it (:func:`~replaygate.locale_names.on_disk`: an ASCII locale
        opens ``évals/cases.jsonl`` too)."""
        value = self.string(key, nonempty=nonempty)
        if value is None:
            return None
        if "\0" in value:
            raise self.error(key, f"a path cannot hold a NUL character (\\u0000), got {value!r}")
        folder = os.path.dirname(self.file) or "."  # the project's
        problem = _escaped(value) or backslashed(value) or unexpanded_tilde(value, folder)
        problem = problem or _windows_unfit(value)
        if problem is not None:
            raise self.error(key, problem)
        return on_disk(value)

    def integer(
        self, key: str, default: int, *, minimum: int = 0, maximum: int | None = None
    ) -> int:
        """An integer at least ``minimum`` (and at most ``maximum``, when given)."""
        value = self.table.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(key, f"expected an integer, got {described(value)}")
        if value < minimum:
            raise self.error(key, f"must be at least {minimum}, got {value}")
        if maximum is not None and value > maximum:
            raise self.error(key, f"must be at most {maximum}, got {value}")
        return value

    def number(
        self, key: str, default: float, *, minimum: float = 0.0, maximum: float | None = None
    ) -> float:
        """A number (integer or float) at least ``minimum`` (and at most ``maximum``)."""
        value = self.table.get(key, default)
        return self.check_number(key, value, minimum=minimum, maximum=maximum)

    def check_number(
        self, key: str, value: Any, *, minimum: float = 0.0, maximum: float | None = None
    ) -> float:
        """``value`` as a float; refuses booleans, strings, NaN and values below ``minimum``
        (or above ``maximum``, infinity too)."""
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.error(key, f"expected a number, got {described(value)}")
        if value != value or value < minimum:
            raise self.error(key, f"must be a number >= {minimum}, got {value!r}")
        if maximum is not None and value > maximum:
            raise self.error(key, f"must be at most {maximum:,.0f}, got {value!r}")
        return float(value)

    def boolean(self, key: str, default: bool) -> bool:
        """A boolean."""
        value = self.table.get(key, default)
        if not isinstance(value, bool):
            raise self.error(key, f"expected true or false, got {described(value)}")
        return value

    def strings(self, key: str, default: tuple[str, ...] = ()) -> tuple[str, ...]:
        """A list of non-empty strings."""
        value = self.table.get(key, list(default))
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise self.error(key, f"expected a list of non-empty strings, got {described(value)}")
        return tuple(value)

    def checked_strings(self, key: str, why: Callable[[str], str | None]) -> tuple[str, ...]:
        """A list of non-empty strings (:meth:`strings`), each refused at the key's line
        when ``why`` gives a reason for it (a path whose folders a backslash separates)."""
        values = self.strings(key)
        for value in values:
            problem = why(value)
            if problem is not None:
                raise self.error(key, problem)
        return values

    def tables(self, key: str) -> list[TableReader]:
        """An array of tables (``[[section.key]]``), each as a reader."""
        value = self.table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
            raise self.error(key, f"expected an array of tables ([[...]]), got {described(value)}")
        section = f"{self.section}.{key}" if self.section else key
        return [TableReader(self.file, self.text, section, v, i) for i, v in enumerate(value)]


def _windows_unfit(path: str) -> str | None:
    """Why the project's relative ``path`` cannot be checked out on Windows (a device's
    name, ``evals/aux/cases.jsonl``; a name holding ``?``), or None; an absolute one is in
    no checkout."""
    named = PurePath(path)
    unfit = None if named.is_absolute() else windows_unfit(named)
    if unfit is None:
        return None
    return f"{path!r} cannot be checked out on Windows: {unfit}; choose another name"


def _escaped(path: str) -> str | None:
    """Why ``path`` read from TOML holds a control character, or None: in a double-quoted
    string a backslash begins an escape (``"evals\\fixtures"`` reads ``\\f`` as a form
    feed), so a Windows-style path quietly names another file."""
    if not has_control(path):
        return None
    return (
        f"{path!r} holds a control character: in a double-quoted TOML string a backslash "
        "begins an escape (\\f a form feed, \\t a tab, \\n a new line); separate folders "
        "with /, which every system reads alike"
    )
