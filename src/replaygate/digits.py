"""Numbers written in ASCII digits, for every option and setting that takes a number.

Python's ``int()`` and ``float()`` also read full-width and other Unicode digits
(``３``) and underscores (``1_000``): a value typed with another keyboard layout would
be read as a number nobody wrote. These checks take the digits 0-9 only (an optional
sign, a decimal point, an exponent; ``nan`` and ``inf`` are left to each option's own
range check). The command lines' click types (:mod:`replaygate.click_numbers`) and the
pytest plugin's options and ini settings use them.
"""

from __future__ import annotations

import re

_INTEGER = re.compile(r"[+-]?[0-9]+", re.ASCII)
_DECIMAL = re.compile(
    r"[+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|nan|inf|infinity)",
    re.ASCII | re.IGNORECASE,
)


def an_integer(text: str) -> bool:
    """Whether ``text`` is an integer written in ASCII digits, with an optional sign."""
    return _INTEGER.fullmatch(text.strip()) is not None


def a_decimal(text: str) -> bool:
    """Whether ``text`` is a decimal number written in ASCII digits (``2``, ``0.5``,
    ``1e-3``), or ``nan`` or ``inf``."""
    return _DECIMAL.fullmatch(text.strip()) is not None


def integer(text: str) -> int:
    """``text`` as an integer; a ValueError unless it is written in the digits 0-9 (as an
    ``argparse`` type, the error reads ``invalid integer value: '３'``)."""
    if not an_integer(text):
        raise ValueError(f"{text!r} is not an integer written in the digits 0-9")
    return int(text)


def number(text: str) -> float:
    """``text`` as a float; a ValueError unless it is written in the digits 0-9 (as an
    ``argparse`` type, the error reads ``invalid number value: '０.5'``)."""
    if not a_decimal(text):
        raise ValueError(f"{text!r} is not a number written in the digits 0-9")
    return float(text)
