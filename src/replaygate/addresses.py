"""What a host is: an IP address as the C layer reads one, and whether it is on loopback.

"Loopback" is decided from the address, never the spelling of a name (the network block
of :mod:`replaygate.network` and the checks of a base URL both ask it here).
"""

from __future__ import annotations

import ipaddress
import socket
from typing import Any

LOCALHOST = "localhost"


def exact_address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``host`` as an IP address if the C layer reads it as one without a resolver:
    dotted-quad IPv4, or IPv6 with an optional zone (``fe80::1%eth0``). Brackets, a zone
    on IPv4 and every other spelling make a name, sent to a resolver."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def address_of(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``host`` as an IP address (see :func:`exact_address`), IPv4-mapped unwrapped."""
    ip = exact_address(host)
    if ip is None:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def is_loopback(host: str) -> bool:
    """Whether ``host`` is on the loopback interface, decided by its address.

    An address is loopback when it is in ``127.0.0.0/8``, is ``::1``, or maps one of
    those into IPv6. ``localhost`` (spelt so) is looked up and every address found must
    be loopback; any other name is not loopback, whatever it looks like. An IPv6 address
    may be given in brackets, as a URL holds it (``[::1]``).
    """
    if host.startswith("[") and host.endswith("]") and ":" in host:
        host = host[1:-1]
    ip = address_of(host)
    if ip is not None:
        return ip.is_loopback
    if host != LOCALHOST:
        return False
    try:
        found = socket.getaddrinfo(LOCALHOST, None)
    except OSError:
        return False
    return bool(found) and all(_loopback_sockaddr(info[4]) for info in found)


def _loopback_sockaddr(sockaddr: Any) -> bool:
    ip = address_of(str(sockaddr[0]))
    return ip is not None and ip.is_loopback
