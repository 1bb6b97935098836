"""The route a request moved to replaygate's simulator is sent to: the client's base path
taken off.

A client built for an API gateway (``https://gw.example.com/openai/v1``) or Azure
OpenAI (``/openai/deployments/<name>/chat/completions``, and ``/openai/responses`` for
its Responses API) sends a model API's route after a path of its own. The simulator
serves the routes as the providers name them (``/v1/chat/completions``), so a request
moved there goes to the route alone; what is recorded is the request as sent, its base
path included.
"""

from __future__ import annotations

import re

_AZURE_DEPLOYMENT = re.compile(r"/openai/deployments/[^/]+(?=/)")
"""Azure OpenAI's deployment path, in place of OpenAI's ``/v1``."""
_AZURE_BASE = re.compile(r"/openai(?=/)")
"""Azure OpenAI's base path, before a route it serves outside a deployment (its
Responses API: ``/openai/responses``), in place of OpenAI's ``/v1``."""
_VERSION = re.compile(r"/v\d+(?:beta\d*|alpha\d*)?(?=/|$)")
"""A version segment (``/v1``, ``/v1beta``): where a provider's route begins."""


def api_route(path: str) -> str:
    """``path`` (its query kept) from the provider's route on: from its last version
    segment, or from Azure's deployment path or, in a path of no version, its base path
    ``/openai`` (as ``/v1``); as it is otherwise."""
    route, mark, query = path.partition("?")
    azure = _AZURE_DEPLOYMENT.search(route)
    if azure is not None:
        route = "/v1" + route[azure.end() :]
    else:
        versions = list(_VERSION.finditer(route))
        azure = _AZURE_BASE.match(route)
        if versions:
            route = route[versions[-1].start() :]
        elif azure is not None:
            route = "/v1" + route[azure.end() :]
    return route + mark + query
