"""The sanitize configuration: :class:`SanitizeConfig`, read from ``[tool.replaygate.sanitize]``.

Every key is optional; with none, nothing in a recorded interaction is rewritten
(secrets are refused whatever the configuration)::

    [tool.replaygate.sanitize]
    ids = true                      # volatile ids -> stable ids
    times = true                    # created, created_at, ... -> fixed values
    normalize_usage = false         # token counts -> 0
    personal_data = ["email", "phone", "card"]
    known_safe = ["AKIAIOSFODNN7EXAMPLE"]          # secret-looking values that are not
    known_safe_patterns = ['acme_test_[0-9a-f]{32}']

    [[tool.replaygate.sanitize.rules]]
    literal = "ACME Corp"
    replace = "Example Corp"

    [tool.replaygate.sanitize.trim]
    "anthropic.messages" = ["content", "stop_reason", "usage", "model"]

An error names the file, the line and the key: ``pyproject.toml:12: tool.replaygate.
sanitize.rules[0].pattern: invalid regular expression ...``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from replaygate.config import (
    TomlFileError,
    described,
    find_pyproject,
    line_of,
    meant_key,
    read_toml,
    store_pyproject,
    tool_table,
)
from replaygate.errors import LocatedError
from replaygate.sanitize.pii import BUILTIN_CLASSES, DEFAULT_REPLACEMENT, RedactionRule
from replaygate.sanitize.secret_allow import (
    KnownSafe,
    compile_known_safe,
    safe_pattern_problem,
    safe_value_problem,
)
from replaygate.sanitize.secret_scan import detect_in_text
from replaygate.sanitize.trim import KNOWN_FIELDS

SECTION = "tool.replaygate.sanitize"
KEYS = (
    "ids",
    "times",
    "normalize_usage",
    "personal_data",
    "rules",
    "trim",
    "known_safe",
    "known_safe_patterns",
)
RULE_KEYS = ("literal", "pattern", "replace", "ignore_case", "distinct")


class SanitizeConfigError(LocatedError, ValueError):
    """The sanitize configuration is invalid; names the file, the line (0: unknown) and the key."""

    def __init__(self, source: str, key: str, reason: str, line: int = 0) -> None:
        super().__init__(source, line, f"{key}: {reason}")
        self.source = source
        self.key = key
        self.reason = reason


@dataclass(frozen=True)
class ConfigOrigin:
    """The file a configuration was read from, and its text (where a key's line is found)."""

    file: str
    text: str

    def error(self, key: str, reason: str) -> SanitizeConfigError:
        """The error of ``key`` in this file, naming its line."""
        return SanitizeConfigError(self.file, key, reason, _line_of(self.text, key))


@dataclass(frozen=True)
class SanitizeConfig:
    """What the sanitize pipeline does; every class is off unless asked for.

    ``ids``: volatile ids become stable ids. ``times``: timestamps become fixed
    values. ``normalize_usage``: token counts become 0. ``personal_data``: built-in
    classes (``email``, ``phone``, ``card``). ``rules``: user :class:`RedactionRule` s.
    ``trim``: per interface, the response fields the code reads (others that
    replaygate knows are dropped). ``known_safe`` and ``known_safe_patterns``:
    secret-looking values the secret scan lets through (:mod:`.secret_allow`).
    ``origin``: the file it was read from (None: built in code), which a refusal of its
    rules while recording names, with the line.
    """

    ids: bool = False
    times: bool = False
    normalize_usage: bool = False
    personal_data: tuple[str, ...] = ()
    rules: tuple[RedactionRule, ...] = ()
    trim: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    known_safe: tuple[str, ...] = ()
    known_safe_patterns: tuple[str, ...] = ()
    origin: ConfigOrigin | None = field(default=None, compare=False, repr=False)

    def error(self, key: str, reason: str) -> SanitizeConfigError:
        """The error of ``key`` of this configuration found while recording: naming the
        file and line it was read from, else ``sanitize rules``."""
        if self.origin is None:
            return SanitizeConfigError("sanitize rules", key, reason)
        return self.origin.error(key, reason)

    def safe_values(self) -> KnownSafe:
        """The known-safe values the secret scan blanks out before it looks."""
        return compile_known_safe(self.known_safe, self.known_safe_patterns)

    def __post_init__(self) -> None:
        _coerce(self, "SanitizeConfig")
        check_config(self, "SanitizeConfig")

    @staticmethod
    def from_mapping(data: Mapping[str, Any], source: str = "<config>") -> SanitizeConfig:
        """A config from the ``[tool.replaygate.sanitize]`` table (parsed TOML)."""
        return _from_mapping(data, source)


def _coerce(config: SanitizeConfig, source: str) -> None:
    """Take the shapes of the TOML table in code too: lists for tuples, a rule's table
    (``{"literal": "ACME Corp", "replace": "Example Corp"}``) for a :class:`RedactionRule`;
    raise :class:`SanitizeConfigError` naming the field for any other shape (a string where a
    list of strings is meant is not read letter by letter)."""
    for name in ("personal_data", "known_safe", "known_safe_patterns"):
        value = _sequence(getattr(config, name), source, f"{SECTION}.{name}", str, "strings")
        object.__setattr__(config, name, value)
    rules_key = f"{SECTION}.rules"
    rules = _sequence(config.rules, source, rules_key, (RedactionRule, dict), "rules")
    rules = tuple(
        _rule(rule, source, f"{rules_key}[{i}]") if isinstance(rule, dict) else rule
        for i, rule in enumerate(rules)
    )
    object.__setattr__(config, "rules", rules)
    trim_key = f"{SECTION}.trim"
    if not isinstance(config.trim, Mapping):
        raise SanitizeConfigError(
            source,
            trim_key,
            f"expected a mapping of interface to fields, got {described(config.trim)}",
        )
    trim = {
        name: _sequence(keep, source, f'{trim_key}."{name}"', str, "strings")
        for name, keep in config.trim.items()
    }
    object.__setattr__(config, "trim", trim)


def _sequence(
    value: Any, source: str, key: str, kind: type | tuple[type, ...], what: str
) -> tuple[Any, ...]:
    """``value``, a list or tuple of ``kind``, as a tuple."""
    expected = (
        "a list of RedactionRule or of tables with literal or pattern, and replace"
        if what == "rules"
        else "a list of strings"
    )
    if not isinstance(value, list | tuple):
        raise SanitizeConfigError(source, key, f"expected {expected}, got {described(value)}")
    for i, item in enumerate(value):
        if not isinstance(item, kind):
            raise SanitizeConfigError(
                source, f"{key}[{i}]", f"expected {expected}, got {described(item)}"
            )
    return tuple(value)


def check_config(config: SanitizeConfig, source: str) -> None:
    """Raise :class:`SanitizeConfigError` for a value no TOML table could fix silently."""
    for name in ("ids", "times", "normalize_usage"):
        value = getattr(config, name)
        if not isinstance(value, bool):
            raise SanitizeConfigError(
                source, f"{SECTION}.{name}", f"expected true or false, got {value!r}"
            )
    unknown = [c for c in config.personal_data if c not in BUILTIN_CLASSES]
    if unknown:
        raise SanitizeConfigError(
            source,
            f"{SECTION}.personal_data",
            f"unknown class(es) {', '.join(map(repr, unknown))}; "
            f"known: {', '.join(BUILTIN_CLASSES)}",
        )
    for name, check in (
        ("known_safe", safe_value_problem),
        ("known_safe_patterns", safe_pattern_problem),
    ):
        for i, value in enumerate(getattr(config, name)):
            reason = check(value)
            if reason is not None:
                raise SanitizeConfigError(source, f"{SECTION}.{name}[{i}]", reason)
    _check_rule_chain(config.rules, source)
    _check_replacements(config, source)
    for interface, keep in config.trim.items():
        key = f'{SECTION}.trim."{interface}"'
        known = KNOWN_FIELDS.get(interface)
        if known is None:
            raise SanitizeConfigError(
                source, key, f"unknown interface; known: {', '.join(sorted(KNOWN_FIELDS))}"
            )
        strange = [f for f in keep if f not in known]
        if strange:
            raise SanitizeConfigError(
                source,
                key,
                f"{', '.join(map(repr, strange))} is not a known response field of "
                f"{interface} (known: {', '.join(sorted(known))}); fields replaygate does "
                "not know are always kept, so list only known ones",
            )


def _check_rule_chain(rules: tuple[RedactionRule, ...], source: str) -> None:
    """Refuse rules whose replacement the rules after it turn into text a rule redacts:
    ``Bob -> Carol`` then ``Carol -> Bob`` wrote every "Bob" back to disk, and running
    the rules again changed nothing, so nothing said so. A chain that ends in text no
    rule matches (``Bob -> Carol``, ``Carol -> someone``) is kept."""
    for i, rule in enumerate(rules):
        for sample in rule.samples():
            after = sample
            for later in rules[i + 1 :]:
                after = later.apply(after)
            for k, other in enumerate(rules):
                if other.apply(after) != after:  # matched and changed: one left as it is is fine
                    becomes = (
                        "" if after == sample else f", which the rules after it make {after!r},"
                    )
                    raise SanitizeConfigError(
                        source,
                        f"{SECTION}.rules[{i}].replace",
                        f"the replacement {sample!r}{becomes} is matched by rules[{k}]: the "
                        "text that rule redacts would be written as it was (rules run in order, "
                        "once); choose replacements no rule matches",
                    )


def _check_replacements(config: SanitizeConfig, source: str) -> None:
    """Refuse a replacement the secret scan flags (not among ``known_safe``): every
    recording it went into would be refused naming a field of the request, where the code
    sent no such value, and nothing would say that a rule put it there."""
    safe = config.safe_values()
    for i, rule in enumerate(config.rules):
        for sample in rule.samples():
            name = detect_in_text(safe.mask(sample))
            if name is not None:
                raise SanitizeConfigError(
                    source,
                    f"{SECTION}.rules[{i}].replace",
                    f"the replacement looks like a secret ({name}): every fixture it went "
                    "into would be refused as holding one; choose a replacement that is no "
                    "credential, or list it in known_safe if it is none",
                )


def _expect(value: Any, kind: type, source: str, key: str, what: str) -> Any:
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise SanitizeConfigError(source, key, f"expected {what}, got {value!r}")
    return value


def _strings(value: Any, source: str, key: str) -> tuple[str, ...]:
    """A TOML array of strings, as :class:`SanitizeConfig` takes one in code (:func:`_sequence`):
    an item of another type is named by its index (``personal_data[1]``)."""
    return _sequence(value, source, key, str, "strings")


def _rule(table: Any, source: str, key: str) -> RedactionRule:
    _expect(table, dict, source, key, "a table with literal or pattern, and replace")
    unknown = sorted(set(table) - set(RULE_KEYS))
    if unknown:
        raise SanitizeConfigError(
            source, f"{key}.{unknown[0]}", f"unknown key; known: {', '.join(RULE_KEYS)}"
        )
    for name in ("literal", "pattern", "replace"):
        if name in table:
            _expect(table[name], str, source, f"{key}.{name}", "a string")
    ignore_case, distinct = (
        _expect(table.get(name, False), bool, source, f"{key}.{name}", "true or false")
        for name in ("ignore_case", "distinct")
    )
    where = f"{key}.pattern" if "pattern" in table else f"{key}.literal"
    try:
        return RedactionRule(
            literal=table.get("literal"),
            pattern=table.get("pattern"),
            replace=table.get("replace", DEFAULT_REPLACEMENT),
            ignore_case=ignore_case,
            distinct=distinct,
        )
    except ValueError as err:
        if "replacement" in str(err):
            where = f"{key}.replace"
        raise SanitizeConfigError(source, where, str(err)) from None


def _from_mapping(
    data: Mapping[str, Any], source: str, origin: ConfigOrigin | None = None
) -> SanitizeConfig:
    _expect(data, dict, source, SECTION, "a table")
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise SanitizeConfigError(
            source, f"{SECTION}.{unknown[0]}", f"unknown key; known: {', '.join(KEYS)}"
        )
    flags = {
        name: _expect(data.get(name, False), bool, source, f"{SECTION}.{name}", "true or false")
        for name in ("ids", "times", "normalize_usage")
    }
    classes = _strings(data.get("personal_data", []), source, f"{SECTION}.personal_data")
    rules_key = f"{SECTION}.rules"
    tables = _expect(data.get("rules", []), list, source, rules_key, "an array of tables")
    rules = tuple(_rule(table, source, f"{rules_key}[{i}]") for i, table in enumerate(tables))
    trim_key = f"{SECTION}.trim"
    trim_table = _expect(data.get("trim", {}), dict, source, trim_key, "a table")
    trim = {
        name: _strings(keep, source, f'{trim_key}."{name}"') for name, keep in trim_table.items()
    }
    safe_values = _strings(data.get("known_safe", []), source, f"{SECTION}.known_safe")
    patterns_key = f"{SECTION}.known_safe_patterns"
    safe_patterns = _strings(data.get("known_safe_patterns", []), source, patterns_key)
    try:
        return SanitizeConfig(
            personal_data=classes,
            rules=rules,
            trim=trim,
            known_safe=safe_values,
            known_safe_patterns=safe_patterns,
            origin=origin,
            **flags,
        )
    except SanitizeConfigError as err:
        raise SanitizeConfigError(source, err.key, err.reason) from None


def load_config(pyproject: str | os.PathLike[str] | None = None) -> SanitizeConfig:
    """The ``[tool.replaygate.sanitize]`` config of ``pyproject``.

    Default: the nearest ``pyproject.toml`` from the current folder; a store's config
    is :func:`store_config`. No file, or no such table, gives the default config.
    """
    return _config_of(Path(pyproject) if pyproject is not None else find_pyproject())


def store_config(
    store: str | os.PathLike[str] | None, root: str | os.PathLike[str] | None = None
) -> SanitizeConfig:
    """The sanitize config of the project that owns ``store`` (see :mod:`replaygate.config`).

    ``root`` is the pytest rootdir, used when no ``pyproject.toml`` is above ``store``.
    """
    return _config_of(store_pyproject(store, root))


def _config_of(path: Path | None) -> SanitizeConfig:
    if path is None:
        return SanitizeConfig()
    try:
        document = read_toml(path)
    except TomlFileError as err:
        raise SanitizeConfigError(str(path), SECTION, err.reason, err.line) from None
    _refuse_misspelled_tool(document.data, path, document.text)
    tool = tool_table(document.data)
    if not isinstance(tool, Mapping):  # not its sanitize table: the section above it
        where = line_of(document.text, "tool.replaygate")
        raise SanitizeConfigError(
            str(path), "tool.replaygate", f"expected a table, got {described(tool)}", where
        )
    _refuse_misspelled_section(tool, path, document.text)
    table: Any = tool.get("sanitize", {})
    if table == {}:
        return SanitizeConfig()
    origin = ConfigOrigin(str(path), document.text)
    try:
        return _from_mapping(table, str(path), origin)
    except SanitizeConfigError as err:
        raise origin.error(err.key, err.reason) from None


def _refuse_misspelled_tool(data: Mapping[str, Any], path: Path, text: str) -> None:
    """Refuse a ``[tool.<name>]`` table whose name is ``replaygate`` misspelled
    (``replaygte``, ``replay-gate``, ``Replaygate``) and that holds a ``sanitize`` table:
    read by no one, it would let every fixture be written unsanitized."""
    tools = data.get("tool")
    if not isinstance(tools, Mapping):
        return
    for name, table in tools.items():
        if name == "replaygate" or not isinstance(table, Mapping):
            continue
        if meant_key(str(name), ("replaygate",)) and _holds_sanitize(table):
            raise SanitizeConfigError(
                str(path),
                f"tool.{name}",
                "unknown table: did you mean tool.replaygate? As written, no sanitize rule applies",
                line_of(text, f"tool.{name}") or line_of(text, "tool", str(name)),
            )


def _holds_sanitize(table: Mapping[str, Any]) -> bool:
    """Whether ``table`` has a key that is ``sanitize``, or ``sanitize`` misspelled."""
    return any(meant_key(str(key), ("sanitize",)) for key in table)


def _refuse_misspelled_section(tool: Mapping[str, Any], path: Path, text: str) -> None:
    """Refuse a ``[tool.replaygate]`` key that is ``sanitize`` misspelled (``sanitise``,
    ``sanitizer``), or a key of the sanitize table written beside it (``personal_data``,
    ``[[tool.replaygate.rules]]``): read by no one, it would let every fixture be written
    unsanitized."""
    for key in tool:
        if key in KEYS:
            raise SanitizeConfigError(
                str(path),
                f"tool.replaygate.{key}",
                f"a key of {SECTION}, written under tool.replaygate: move it into "
                f"[{SECTION}]. As written, no sanitize rule applies",
                line_of(text, f"tool.replaygate.{key}") or line_of(text, "tool.replaygate", key),
            )
    if "sanitize" in tool:
        return
    for key in tool:
        if meant_key(str(key), ("sanitize",)):
            raise SanitizeConfigError(
                str(path),
                f"tool.replaygate.{key}",
                f"unknown key: did you mean {SECTION}? As written, no sanitize rule applies",
                line_of(text, f"tool.replaygate.{key}") or line_of(text, "tool.replaygate", key),
            )


_KEY = re.compile(r"\.(\w+)(?:\[(\d+)\])?(?:\.(.+))?")
"""A key below :data:`SECTION`: ``.rules[1].pattern``, ``.trim."openai.responses"``."""


def _line_of(text: str, key: str) -> int:
    """The line of ``key`` (a dotted key an error names) in the text of ``pyproject.toml``."""
    found = _KEY.fullmatch(key.removeprefix(SECTION))
    if found is None:  # the section itself
        return line_of(text, SECTION)
    name, index, below = found.groups()
    if below is None and index is not None:  # an item: its own [[header]], else its key's line
        return line_of(text, f"{SECTION}.{name}", "", int(index))
    if below is None:
        return line_of(text, SECTION, name)
    return line_of(text, f"{SECTION}.{name}", below.strip('"'), int(index or 0))
