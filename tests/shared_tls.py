"""A pytest plugin: the clients a session builds share one default TLS context.

Building one reads the whole CA bundle (about 40 ms of CPU). Each SDK client, each
plain httpx client and each fixture transport with a live side builds its own, a few
hundred times in the suite, and no test makes a TLS connection: the simulator is plain
HTTP on loopback, and replay blocks the network. A ``google.genai`` client builds three
more (its httpx, aiohttp and websocket ones) through ``ssl.create_default_context``,
naming the CA file (or folder) to read: those are shared too.

The suite's conftest loads it. A project a test generates may get its code at the top
of its conftest (``nested_pytest.conftest_sharing_tls``): the xdist workers of a nested
session cannot import it from ``tests/``.
"""

import functools
import ssl
from collections.abc import Callable

import pytest

SHARE_HTTPX = True
"""Whether plain httpx's clients share one too. A generated project whose clients are
all ``httpx2`` ones sets it to False after this code (importing httpx costs each xdist
worker about 0.1 s of CPU)."""


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("numprocesses", None) and not hasattr(config, "workerinput"):
        return  # the controller of xdist workers: they build the clients
    patch = pytest.MonkeyPatch()
    config.add_cleanup(patch.undo)
    patch.setattr(ssl, "create_default_context", one_per_ca_file(ssl.create_default_context))
    try:
        import httpcore2
    except ImportError:  # without the SDKs' transport there is nothing to share
        pass
    else:
        patch.setattr(
            httpcore2, "default_ssl_context", functools.cache(httpcore2.default_ssl_context)
        )
    if not SHARE_HTTPX:
        return
    try:
        from httpx._transports import default as httpx_transports
    except ImportError:
        pass
    else:  # the transports call it by this name, with hashable arguments by default
        patch.setattr(
            httpx_transports,
            "create_ssl_context",
            functools.cache(httpx_transports.create_ssl_context),
        )


def one_per_ca_file(create: Callable[..., ssl.SSLContext]) -> Callable[..., ssl.SSLContext]:
    """``ssl.create_default_context`` giving one context per CA file and folder named (as
    ``SSL_CERT_FILE`` and ``SSL_CERT_DIR`` name them, or certifi's bundle). A call that
    names neither, or CA data, builds its own context, as before: its caller may change
    the context it is given (aiohttp sets its ALPN protocols)."""
    shared = functools.cache(create)

    def create_default_context(
        purpose: ssl.Purpose = ssl.Purpose.SERVER_AUTH,
        *,
        cafile: str | None = None,
        capath: str | None = None,
        cadata: str | bytes | None = None,
    ) -> ssl.SSLContext:
        if (cafile is None and capath is None) or cadata is not None:
            return create(purpose, cafile=cafile, capath=capath, cadata=cadata)
        return shared(purpose, cafile=cafile, capath=capath)

    return create_default_context
