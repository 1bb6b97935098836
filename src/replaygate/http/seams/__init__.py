"""The client methods :func:`~replaygate.http.intercept` patches, one module per library shape.

=================  ==========================================  ======================
library            patched                                     module
=================  ==========================================  ======================
httpx2, httpx      ``Client.send``, ``AsyncClient.send``       :mod:`.httpx_send`
aiohttp            ``ClientSession._request`` (every request)  :mod:`.aiohttp_session`
requests           ``Session.send``                            :mod:`.requests_session`
botocore (boto3)   ``httpsession.URLLib3Session.send``         :mod:`.botocore_session`
aiobotocore        ``httpsession.AIOHTTPSession.send`` (a      :mod:`.aiobotocore_session`
                   miss let through unwrapped)
multiprocessing    ``BaseProcess.start`` (warns, always)       :mod:`.process_start`
=================  ==========================================  ======================

Each patched method asks :func:`~replaygate.http.active.answering` which session
answers, and otherwise calls the original. A library is imported only if it is
installed, when the first interception starts; the patches stay while any
interception is active and are removed when the last one ends.
"""

from __future__ import annotations

import importlib
import importlib.util
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from replaygate.addresses import is_loopback
from replaygate.network import watch_listeners

if TYPE_CHECKING:
    from replaygate.http.exchange import Exchange

SEAMS: dict[str, str] = {
    "httpx2": "httpx_send",
    "httpx": "httpx_send",
    "aiohttp": "aiohttp_session",
    "requests": "requests_session",
    "botocore": "botocore_session",
    "aiobotocore": "aiobotocore_session",
}
"""Intercepted library -> the module of this package that patches it."""

# From here on, an application this process serves (Django's live server, started by a
# LiveServerTestCase before its tests enter intercept()) is known to own_app(): a test's
# request to it reaches it.
watch_listeners()

Patch = tuple[type, str, Callable[[Any], Any]]
"""A class, the name of one of its methods, and what makes the replacement from the original."""


_MOVING: ContextVar[Exchange | None] = ContextVar("replaygate_moving", default=None)
"""The session whose live request a client is sending, while it sends it."""


@contextmanager
def moving(exchange: Exchange) -> Iterator[None]:
    """While inside, a live request of ``exchange`` is being sent (:func:`moving_for`)."""
    token = _MOVING.set(exchange)
    try:
        yield
    finally:
        _MOVING.reset(token)


def moving_for() -> Exchange | None:
    """The session whose live request is being sent in this context (a client's send of
    it, down to the library its transport sends with), or None."""
    return _MOVING.get()


def unproxied(url: str) -> bool:
    """Whether a request moved to ``url`` (a session's ``live_origin``) goes there past any
    proxy the client has from the environment: a loopback one, the simulator in this
    process, which a proxy could not reach (``NO_PROXY`` semantics)."""
    host = urlsplit(url).hostname
    return bool(host) and is_loopback(host or "")


def installed() -> tuple[str, ...]:
    """The intercepted libraries that are installed, in :data:`SEAMS` order."""
    return tuple(name for name in SEAMS if importlib.util.find_spec(name) is not None)


class _Patches:
    """The patches in place, and how many interceptions use them."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.users = 0
        self.saved: list[tuple[type, str, Any, Any]] = []
        """Each patched method's class and name, its original, and the patch set there."""

    def install(self) -> None:
        for name in installed():
            seam = importlib.import_module(f"{__name__}.{SEAMS[name]}")
            self.apply(seam.patches(name))
        self.apply(importlib.import_module(f"{__name__}.process_start").patches())

    def apply(self, patches: list[Patch]) -> None:
        for cls, method, make in patches:
            original = cls.__dict__[method]
            ours = make(original)
            self.saved.append((cls, method, original, ours))
            setattr(cls, method, ours)

    def restore(self) -> None:
        """Put each original back, but where other code patched the method over ours while
        the patches lasted (Sentry's HttpxIntegration, set up by a ``sentry_sdk.init()``
        inside a block): its patch is kept, ours beneath it calling the original, as it does
        where no block answers, rather than dropped for the rest of the process."""
        for cls, method, original, ours in reversed(self.saved):
            if cls.__dict__.get(method) is ours:
                setattr(cls, method, original)
        self.saved.clear()


_patches = _Patches()


@contextmanager
def patched() -> Iterator[None]:
    """Every installed library's client methods patched while inside (nested blocks share)."""
    with _patches.lock:
        if _patches.users == 0:
            try:
                _patches.install()
            except BaseException:
                _patches.restore()
                raise
        _patches.users += 1
    try:
        yield
    finally:
        with _patches.lock:
            _patches.users -= 1
            if _patches.users == 0:
                _patches.restore()
