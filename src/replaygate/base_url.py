"""A model API's base URL as a message shows it, and what makes one unusable.

A base URL comes from the environment (``ANTHROPIC_BASE_URL``, ``OPENAI_BASE_URL``) or
an option, and a gateway's may hold credentials (``https://ci:TOKEN@gateway/``): a
message that reaches a CI log shows it through :func:`shown_url`, its user and password
masked whole and any token family in the rest masked as a replay miss masks it
(:func:`~replaygate.sanitize.secret_mask.masked_texts`). :func:`base_url_problem` says
what keeps a client from being built with one (a port that is no number, a ``[`` left
open), or from sending to it (no ``http://`` or ``https://``, no host), before anything
is built or sent.
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

from replaygate.addresses import is_loopback
from replaygate.sanitize.secret_mask import masked_texts

LOOPBACK_KEY = "loopback-key"
"""The key a client recording from a base URL on this machine (a simulator or a server of
the user's own, :func:`loopback_url`) is given when the environment holds none: nothing
leaves the machine."""
_AUTHORITY_END = re.compile(r"[/?#]")
_NO_HOST = "it names no host"
_IPV4 = re.compile(r"[0-9]+(?:\.[0-9]+){3}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def loopback_url(url: str | None) -> bool:
    """Whether ``url`` is an HTTP URL of a loopback address (``http://127.0.0.1:8765``)."""
    try:
        parts = urlsplit(url or "")
        host = parts.hostname
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and host is not None and is_loopback(host)


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


def _host_problem(host: str) -> str | None:
    """What is wrong with the host and port part of a URL (``127.0.0.1:abc``)."""
    if host.startswith("["):
        address, closed, port = host[1:].partition("]")
        if not closed:
            return "its host opens '[' and never closes it (an IPv6 address: http://[::1]:8765)"
        try:
            ipaddress.IPv6Address(address)
        except ValueError:
            return f"[{address}] is not an IPv6 address"
        if port and not port.startswith(":"):
            return f"'{port}' follows the IPv6 address where ':' and a port should"
        port = port[1:]
        name = address
    else:
        name, _, port = host.partition(":")
    if not name:
        return _NO_HOST
    if _IPV4.fullmatch(name):
        try:
            ipaddress.IPv4Address(name)
        except ValueError:
            return f"{name} is not an IPv4 address"
    if port and not (port.isascii() and port.isdigit() and int(port) <= 65535):
        return f"its port '{port}' is not a number from 0 to 65535"
    return None


def base_url_problem(url: str, *, sending: bool = True) -> str | None:
    """What makes ``url`` no base URL a model API client can use, else ``None``.

    A client cannot be built with a control character, a port that is no number, an
    IPv4 address that is not one or an IPv6 address not closed or not one; with
    ``sending``, neither can a request be sent to an empty URL, one without ``http://``
    or ``https://`` or one that names no host.
    """
    control = _CONTROL.search(url)
    if control is not None:
        return f"it holds the control character {control.group()!r} at position {control.start()}"
    prefix, _, host, _ = _split(url)
    problem = _host_problem(host) if prefix else None
    if problem is not None and (sending or problem != _NO_HOST):
        return masked_texts([problem])[0]  # a token where the port should be
    if not sending:
        return None
    if not url:
        return "it is empty"
    if not prefix:
        return "it does not start with http:// or https://"
    if prefix[:-3].lower() not in ("http", "https"):
        return f"its scheme '{prefix[:-3]}' is not http or https"
    return None


def refused_base_url(name: str, url: str, *, sending: bool = True) -> str | None:
    """Why ``url``, given as ``name`` (an environment variable, an option), cannot be
    used (:func:`base_url_problem`), naming it and its value masked; ``None`` if it can."""
    problem = base_url_problem(url, sending=sending)
    if problem is None:
        return None
    shown = _CONTROL.sub(
        lambda found: repr(found.group())[1:-1], shown_url(url)
    )  # a CR shown as \\r
    return f"{name} '{shown}' is not a URL a model API can be reached at: {problem}"
