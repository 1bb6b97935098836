"""The route a request moved to replaygate's simulator is sent to: the client's base path
taken off.

A client built for an API gateway (``https://gw.example.com/openai/v1``), Azure
OpenAI (``/openai/deployments/<name>/chat/completions``, and ``/openai/responses`` for
its Responses API) or an OpenAI-compatible provider (DeepInfra's ``/v1/openai``,
DeepSeek's ``/beta``, Perplexity's none) sends a model API's route after a path of its
own. The simulator
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
_OPENAI_CALL = re.compile(r"/(?:chat/completions|responses)$")
"""A model call of OpenAI's API (Chat Completions, Responses) at a path's end: after
``/v1``, or after a base path of another name (DeepInfra's ``/v1/openai``, Novita's
``/v3/openai``, DeepSeek's ``/beta``, Gemini's ``/v1beta/openai``) or none (Perplexity's
``https://api.perplexity.ai``), in place of OpenAI's ``/v1``."""
_VERSION = re.compile(r"/v\d+(?:beta\d*|alpha\d*)?(?=/|$)")
"""A version segment (``/v1``, ``/v1beta``): where a provider's route begins."""


def api_route(path: str) -> str:
    """``path`` (its query kept) from the provider's route on: from its last version
    segment, or from Azure's deployment path or, in a path of no version, its base path
    ``/openai`` (as ``/v1``); a model call of OpenAI's API after another base path than
    ``/v1`` as ``/v1``'s (:data:`_OPENAI_CALL`); as it is otherwise."""
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
        call = _OPENAI_CALL.search(route)
        if call is not None and route[: call.start()] != "/v1":
            route = "/v1" + route[call.start() :]
    return route + mark + query


_ROOT_HOST = re.compile(r"(?:^|\.)(?:api\.anthropic\.com|api\.openai\.com)\.?$", re.IGNORECASE)
"""The providers' API hosts that serve their routes at the root and nowhere else: a base
path there (``ANTHROPIC_BASE_URL=https://api.anthropic.com/v1``, to which the SDK adds
its own ``/v1``) reaches a route the API does not serve. Gemini's host is not one: its
OpenAI compatibility is served after ``/v1beta/openai``."""


_AZURE_SERVED = re.compile(
    r"/openai/(?:deployments/[^/]+/(?:chat/completions|embeddings)|responses)"
)
"""Azure OpenAI's routes the simulator serves at Azure's own paths
(:mod:`replaygate.sim.platforms`): answered there as Azure answers, the model a body leaves
out read from the deployment, its refusals in Azure's shape."""
_AZURE_V1_SERVED = re.compile(r"/openai/v1/(?:chat/completions|embeddings|responses)")
"""The routes of Azure OpenAI's ``v1`` API the simulator serves as Azure's: kept as sent
to an Azure host alone (:data:`_AZURE_HOST`), a gateway's ``/openai/v1`` being OpenAI's."""
_AZURE_HOST = re.compile(r"\.(?:openai|cognitiveservices)\.azure\.com\.?$", re.IGNORECASE)
"""An Azure OpenAI resource's host."""


def azure_route(host: str | None, path: str) -> bool:
    """Whether ``path`` (its query kept) sent to ``host`` (None: not known) is a model route
    of Azure OpenAI's: a deployment's or its Responses API's (:data:`_AZURE_SERVED`), or
    one of its ``v1`` API's sent to an Azure host (:data:`_AZURE_V1_SERVED`)."""
    route = path.partition("?")[0]
    if _AZURE_SERVED.fullmatch(route):
        return True
    return bool(host and _AZURE_HOST.search(host)) and bool(_AZURE_V1_SERVED.fullmatch(route))


def moved_route(host: str | None, path: str) -> str:
    """The path (its query kept) a request to ``host`` moved to the simulator is sent to:
    ``path`` as it is to a host of :data:`_ROOT_HOST`, whose API answers a base path with
    a 404, as the simulator does then, and at a route of Azure OpenAI's it serves
    (:func:`azure_route`); else from the provider's route on (:func:`api_route`)."""
    if (host and _ROOT_HOST.search(host)) or azure_route(host, path):
        return path
    return api_route(path)


def version_twice(path: str) -> bool:
    """Whether ``path`` holds more than one version segment (``/v1/v1/messages``): a base
    URL ending in the version the client adds to it again."""
    return len(_VERSION.findall(path.partition("?")[0])) > 1
