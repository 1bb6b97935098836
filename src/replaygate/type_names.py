"""A value's type named in an error message, with its article: ``an int``, ``a str``."""

from __future__ import annotations


def a_type(value: object) -> str:
    """``an int``, ``a list``: the name of ``value``'s type after its indefinite article."""
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def numpy_note(value: object, said: str = "") -> str:
    """What a numpy value is and how to convert it to Python's own (`` (a numpy.int64:
    convert it with .item())``, ``said`` after its type; ``.tolist()`` for an array), or
    ``""`` for any other value: a message saying ``np.int64(4)`` is no integer reads as
    wrong otherwise."""
    kind = type(value)
    if kind.__module__.partition(".")[0] != "numpy":
        return ""
    how = ".tolist()" if getattr(value, "ndim", 0) else ".item()"
    return f" (a numpy.{kind.__name__}{said}: convert it with {how})"
