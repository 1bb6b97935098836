"""Environment variables that look like a provider's API key under a name its SDK never
reads (``CLAUDE_API_KEY``, ``OPENAI_KEY``): named, never shown, where a message says which
variable the SDK found no key in."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

PROVIDER_WORDS: Mapping[str, tuple[str, ...]] = {
    "ANTHROPIC": ("ANTHROPIC", "CLAUDE"),
    "OPENAI": ("OPENAI",),
    "GEMINI": ("GEMINI", "GOOGLE"),
}
"""The words a variable meant for a provider's key holds, by the first word of the
variables its SDK reads."""

READ_TOO: Mapping[str, tuple[str, ...]] = {
    "ANTHROPIC": ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"),
    "GEMINI": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
}
"""Every variable an SDK reads a credential from, where it reads more than the one named."""


def misnamed_keys(read: Sequence[str], environ: Mapping[str, str] | None = None) -> str:
    """A sentence naming the set variables of ``environ`` (default: the process's) that look
    like a key meant for the SDK that reads ``read`` (its provider's word and ``KEY`` or
    ``TOKEN`` in the name) but are none it reads; "" when there is none. Values are never
    shown."""
    env = os.environ if environ is None else environ
    provider = read[0].split("_", 1)[0] if read else ""
    words = PROVIDER_WORDS.get(provider, ())
    wanted = {*read, *READ_TOO.get(provider, ())}
    found = sorted(
        name
        for name, value in env.items()
        if value
        and name.upper() not in wanted
        and any(word in name.upper() for word in words)
        and any(part in name.upper() for part in ("KEY", "TOKEN"))
    )
    if not found:
        return ""
    verb = "is" if len(found) == 1 else "are"
    return (
        f"{', '.join(found)} {verb} set, but the SDK reads no such variable: give the key "
        f"as {' or '.join(read)}"
    )
