"""A value's type named in an error message, with its article: ``an int``, ``a str``."""

from __future__ import annotations


def a_type(value: object) -> str:
    """``an int``, ``a list``: the name of ``value``'s type after its indefinite article."""
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"
