"""Where in a JSON text the strict reader refused it: a value JSON does not hold, or the
deepest nesting.

:func:`replaygate.strict_json.loads` refuses ``NaN``, ``Infinity``, ``1e999`` and an
integer of more digits than are read while Python's reader parses, which tells no
position; a text nested too deeply ends in a ``RecursionError``, which tells none either.
These find the place again, as a line and a column counted as a syntax error's are.
"""

from __future__ import annotations

import json
import re

from replaygate import strict_json

_TOKEN = re.compile(
    r'"(?:[^"\\]|\\.)*"'  # a string, skipped whole: what it holds is no value
    r"|(?P<open>[\[{])|(?P<close>[\]}])"
    r"|(?P<value>-?(?:Infinity|NaN|(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?))",
    re.DOTALL,
)


def _text(text: str | bytes | bytearray) -> str:
    """``text`` as Python's JSON reader decodes it (UTF-8, -16 or -32 by its first bytes)."""
    if isinstance(text, str):
        return text
    return bytes(text).decode(json.detect_encoding(text), "surrogatepass")


def line_and_column(text: str, pos: int) -> str:
    """``line 2, column 7``: the place of ``pos``, numbered as a JSON syntax error's."""
    line = text.count("\n", 0, pos) + 1
    return f"line {line}, column {pos - text.rfind(chr(10), 0, pos)}"


def refused_value(text: str | bytes | bytearray) -> str | None:
    """Why and where the strict reader refuses a value of ``text`` (``NaN is not a
    number JSON can hold at line 2, column 7``): the first such value, as the reader
    meets it; None when every value is one JSON holds."""
    doc = _text(text)
    for match in _TOKEN.finditer(doc):
        value = match.group("value")
        if value is None:
            continue
        try:
            strict_json.loads(value)
        except json.JSONDecodeError:  # not a value the reader met (-NaN): it refused another
            continue
        except ValueError as err:
            return f"{err} at {line_and_column(doc, match.start())}"
    return None


def deepest(text: str | bytes | bytearray) -> str:
    """How deep ``text`` nests and where its deepest level opens: ``100,000 levels, the
    deepest opening at line 1, column 100000``."""
    doc = _text(text)
    depth = most = at = 0
    for match in _TOKEN.finditer(doc):
        if match.group("open"):
            depth += 1
            if depth > most:
                most, at = depth, match.start()
        elif match.group("close"):
            depth -= 1
    return f"{most:,} levels, the deepest opening at {line_and_column(doc, at)}"
