"""How a field path is written: ``usage.input_tokens``, ``headers["x.y"]``.

Every path replaygate shows (a diff, a miss, a secret found, a drift) is built with
:func:`path_step`, so a key that is no plain name reads as one step wherever it is shown.
"""

from __future__ import annotations

import json


def is_plain_key(key: str) -> bool:
    """Whether a path shows ``key`` as it is: letters and digits of any script, ``_``,
    ``-``, ``$``, ``@``, ``:`` and ``/``; not a dot, a bracket, a space, a control or
    format character, nor an empty key."""
    return bool(key) and all(char.isalnum() or char in "_-$@:/" for char in key)


def path_step(path: str, key: str) -> str:
    """``path`` and then ``key``: ``path.key``, or ``path["a.b"]`` (a JSON string in
    brackets) for a key that is no plain name (:func:`is_plain_key`), so that no key reads
    as two steps or a list index, and none prints a newline or an escape sequence where
    its path is shown."""
    if is_plain_key(key):
        return f"{path}.{key}" if path else key
    return f"{path}[{json.dumps(key)}]"
