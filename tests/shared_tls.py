"""A pytest plugin: the clients a session builds share one default TLS context.

Building one reads the whole CA bundle (about 40 ms of CPU). Each SDK client, each
plain httpx client and each fixture transport with a live side builds its own, a few
hundred times in the suite, and no test makes a TLS connection: the simulator is plain
HTTP on loopback, and replay blocks the network.

The suite's conftest loads it. A project a test generates may get its code at the top
of its conftest (``nested_pytest.conftest_sharing_tls``): the xdist workers of a nested
session cannot import it from ``tests/``.
"""

import functools

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
