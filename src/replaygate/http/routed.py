"""A miss sent by a router that picks one of several deployments for each call.

LiteLLM's ``Router`` sends each call of a model group to one of its deployments: at
random under its default ``routing_strategy`` (``simple-shuffle``), by what earlier calls
measured under the others (latency, usage, load). A replay sends a call to the deployment
picked then, not to the one the recording sent it to, so a group of several deployments
misses at random, recorded again or not. A miss sent from inside such a Router says so.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from replaygate.caller import frames_out

ROUTER_MODULES = "litellm.router"
"""The prefix of the modules of LiteLLM's Router (``litellm.router``, its Rust core's
``litellm.router_rust.core``)."""

RANDOM_ROUTE = (
    "This request was sent by LiteLLM's Router, whose model group{s} {groups} ha{ve} "
    "deployments of several models or base paths: it picks one for each call (at random "
    "under its default routing_strategy, simple-shuffle; by the latency, usage or load "
    "earlier calls measured under the others), so a replay sends a call to another "
    "deployment than the recording did, or in another order, and misses at random, recorded "
    "again or not. Give the tests' Router one deployment per model group (the one under "
    "test), then record it."
)


def shared_groups(model_list: Any) -> list[str]:
    """The model names of ``model_list`` (a Router's deployments, each a mapping with a
    ``model_name`` and ``litellm_params``) whose deployments name more than one model, or
    base URLs of more than one path, sorted: deployments that differ only in key or in the
    host of their base URL send the same request, which a replay matches without its host."""
    models: dict[str, set[tuple[str, str]]] = {}
    try:
        for deployment in model_list:
            if isinstance(deployment, Mapping) and "model_name" in deployment:
                params = deployment.get("litellm_params")
                params = params if isinstance(params, Mapping) else {}
                base = urlsplit(str(params.get("api_base") or "")).path.rstrip("/")
                sent = (str(params.get("model")), base)
                models.setdefault(str(deployment["model_name"]), set()).add(sent)
    except Exception:  # a list of another shape: no note rather than an error in a miss
        return []
    return sorted(name for name, named in models.items() if len(named) > 1)


def random_route_note() -> str | None:
    """:data:`RANDOM_ROUTE` when the caller runs inside a LiteLLM Router (a frame of
    :data:`ROUTER_MODULES` whose ``self`` holds a ``model_list``) with a model group of
    several deployments, else None."""
    for frame in frames_out(sys._getframe(1)):
        if not str(frame.f_globals.get("__name__", "")).startswith(ROUTER_MODULES):
            continue
        groups = shared_groups(getattr(frame.f_locals.get("self"), "model_list", None))
        if groups:
            named = ", ".join(repr(name) for name in groups)
            many = len(groups) > 1
            return RANDOM_ROUTE.format(
                s="s" if many else "", groups=named, ve="ve" if many else "s"
            )
    return None


def tell_route(error: BaseException) -> None:
    """Add :func:`random_route_note` to the message of ``error`` (a miss), where it applies."""
    note = random_route_note()
    if note is not None and error.args and isinstance(error.args[0], str):
        error.args = (f"{error.args[0]}\n{note}", *error.args[1:])
