"""A model API's base URL as a message shows it.

A base URL comes from the environment (``ANTHROPIC_BASE_URL``, ``OPENAI_BASE_URL``) or
an option, and a gateway's may hold credentials (``https://ci:TOKEN@gateway/``): a
message that reaches a CI log shows it through :func:`shown_url`, its user and password
masked whole and any token family in the rest masked as a replay miss masks it
(:func:`~replaygate.sanitize.secret_mask.masked_texts`).
"""

from __future__ import annotations

import re

from replaygate.sanitize.secret_mask import masked_texts

_AUTHORITY_END = re.compile(r"[/?#]")


def _split(url: str) -> tuple[str, str, str, str]:
    """``(scheme://, userinfo, host and port, rest)`` of ``url``, read as text: a URL
    that cannot be parsed is split too."""
    scheme, sep, after = url.partition("://")
    if not sep:
        return "", "", "", url
    end = _AUTHORITY_END.search(after)
    at = end.start() if end else len(after)
    userinfo, _, host = after[:at].rpartition("@")
    return scheme + sep, userinfo, host, after[at:]


def shown_url(url: str) -> str:
    """``url`` for a message: its user and password masked whole, whatever they are
    (``http://<user and password, 44 characters>@127.0.0.1:1/``), its host kept, and the
    secrets of the rest masked (``?key=<GitHub token #1, 40 characters>``)."""
    prefix, userinfo, host, rest = _split(url)
    if not prefix:
        return masked_texts([url])[0]
    prefix, host, rest = masked_texts([prefix, host, rest])
    hidden = f"<user and password, {len(userinfo)} characters>@" if userinfo else ""
    return f"{prefix}{hidden}{host}{rest}"
