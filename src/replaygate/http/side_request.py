"""A request to no model API that a framework sends of its own, and how to stop it.

tiktoken (``ChatOpenAI.get_num_tokens``, ``OpenAIEmbeddings``) downloads its encoding from
``openaipublic.blob.core.windows.net`` on first use; LiteLLM fetches its model cost map
and Anthropic beta headers from ``raw.githubusercontent.com``; LangSmith's tracing sends
runs to ``api.smith.langchain.com``, the OpenAI Agents SDK's its traces to
``api.openai.com/v1/traces/ingest``; Haystack's and DeepEval's telemetry go through PostHog's
client to ``eu.i.posthog.com`` and ``us.i.posthog.com``, as the process exits; Agno's its runs
to ``os-api.agno.com`` from a thread of its own; Langfuse's and Logfire's tracing their spans
to ``cloud.langfuse.com`` and ``logfire-us.pydantic.dev``, W&B Weave's its calls to
``trace.wandb.ai`` and its errors to Sentry (``*.sentry.io``); CrewAI's telemetry its spans to
``telemetry.crewai.com`` and, as it is imported, a pixel to ``api.scarf.sh`` from a thread of
its own, and its version check, as a verbose crew starts, asks ``pypi.org`` for its latest
release; ragas its usage to ``t.explodinggradients.com`` as an evaluation ends and as the
process exits; huggingface_hub its list of agent harnesses from ``huggingface.co``, a host a
tool may call too, told apart by its path. Such a request is no model call: recorded, a
store would hold a tokenizer or price file, so it is stopped where it is sent instead. A miss
of one says so, with the remedy of the library whose host it names.
"""

from __future__ import annotations

import re
import sys

from replaygate.http.envelope import PROVIDER_API_HOST, PROVIDER_TELEMETRY
from replaygate.http.token_fetch import METADATA_SERVER, metadata_server
from replaygate.network import Refusal

SIDE_REQUEST = "This request is to no model API"
"""How a miss of a request to no provider's API begins its note, whatever its host."""

OTEL_EXPORTER = "an OpenTelemetry exporter (Semantic Kernel's spans, say): OTEL_SDK_DISABLED=true"
"""How to stop an OpenTelemetry exporter the application set up, wherever it sends."""

CREWAI_VERSION_CHECK = (
    "CrewAI's version check (crewai_core.version, to pypi.org as a verbose crew starts): "
    "CREWAI_DISABLE_VERSION_CHECK=true"
)
"""How to stop CrewAI's check of its latest release, sent to a host others ask too."""

HF_AGENT_HARNESSES = (
    "huggingface_hub's list of AI agent harnesses (huggingface_hub.utils._detect_agent, "
    "fetched from huggingface.co/api/agent-harnesses at most once a day for its "
    "User-Agent, as smolagents' InferenceClientModel first calls): give it the empty list "
    "at the top of conftest.py, `from huggingface_hub.utils import _detect_agent; "
    "_detect_agent._registry = _detect_agent._EMPTY_REGISTRY` (HF_HUB_OFFLINE=1 stops it "
    "too, and the Hub's inference calls with it)"
)
"""How to stop huggingface_hub's fetch of its agent harnesses, sent to the Hub's host, which
a tool may call too (a model's card, a dataset)."""

PATH_REMEDIES: tuple[tuple[str, str, str], ...] = (
    ("huggingface.co", "/api/agent-harnesses", HF_AGENT_HARNESSES),
)
"""The host, path and remedy of what a framework fetches of its own from a host that is not
its alone, told apart by its path."""

OTLP_PATH = re.compile(r"/v1/(?:traces|metrics|logs)/?(?:\?|$)")
"""Where an OpenTelemetry exporter sends spans, metrics and logs (OTLP over HTTP), under any
base path and on any host: a collector of the application's choosing, a loopback one too."""

TRACING_HOSTS = ("smith.langchain.com",)
"""The hosts of the tracing services whose uploads an intercepted client sends, beside those
over OTLP (:data:`OTLP_PATH`, Langfuse's and Logfire's): LangSmith's runs, which its client
sends through ``requests``."""


def tracing_upload(method: str, host: str | None, path: str) -> bool:
    """Whether a ``method`` request to ``host`` and ``path`` goes to a tracing service: a POST
    over OTLP to any host (:data:`OTLP_PATH`; a GET of such a path, a tool reading an API's
    logs, is none), a provider's telemetry on its API host (the OpenAI Agents SDK's trace
    upload, :data:`~replaygate.http.envelope.PROVIDER_TELEMETRY`), or any request to a host
    of :data:`TRACING_HOSTS` or one of its subdomains (LangSmith's
    ``eu.api.smith.langchain.com``)."""
    if method.upper() == "POST" and OTLP_PATH.search(path) is not None:
        return True
    if host and PROVIDER_API_HOST.search(host) and PROVIDER_TELEMETRY.match(path):
        return True
    return bool(host) and any(host == h or str(host).endswith(f".{h}") for h in TRACING_HOSTS)


REMEDIES: tuple[tuple[str | None, str, str], ...] = (
    (
        "openaipublic.blob.core.windows.net",
        "tiktoken",
        "tiktoken: fill TIKTOKEN_CACHE_DIR beforehand",
    ),
    (
        "raw.githubusercontent.com",
        "litellm",
        "LiteLLM: LITELLM_OFFLINE_MODE=true, and LITELLM_LOCAL_MODEL_COST_MAP=True for "
        "releases that do not read it",
    ),
    ("api.smith.langchain.com", "langsmith", "LangSmith: LANGSMITH_TRACING=false"),
    (
        "api.openai.com",
        "agents.tracing",
        "the OpenAI Agents SDK's tracing: set_tracing_disabled(True) or "
        "OPENAI_AGENTS_DISABLE_TRACING=1",
    ),
    (
        "posthog.com",
        "posthog",
        "PostHog analytics (Haystack's telemetry: HAYSTACK_TELEMETRY_ENABLED=False; DeepEval's: "
        "DEEPEVAL_TELEMETRY_OPT_OUT=1)",
    ),
    ("agno.com", "agno.api", "Agno's telemetry: AGNO_TELEMETRY=false"),
    ("explodinggradients.com", "ragas", "ragas's usage tracking: RAGAS_DO_NOT_TRACK=true"),
    ("langfuse.com", "langfuse", "Langfuse: LANGFUSE_TRACING_ENABLED=false"),
    (
        "pydantic.dev",
        "logfire",
        "Logfire: send_to_logfire=False in logfire.configure() (LOGFIRE_SEND_TO_LOGFIRE=false "
        "where it is not given one), and --no-logfire for its pytest plugin, on in CI when "
        "LOGFIRE_TOKEN is set",
    ),
    ("trace.wandb.ai", "weave", "W&B Weave: WEAVE_DISABLED=true"),
    (
        "crewai.com",
        "crewai",
        "CrewAI's telemetry: CREWAI_DISABLE_TELEMETRY=true (its traces to app.crewai.com: "
        "tracing=False on the Crew or Flow)",
    ),
    (None, "crewai_core.version", CREWAI_VERSION_CHECK),
    (
        "sentry.io",
        "sentry_sdk",
        "Sentry's error reports and traces (the application's: SENTRY_DSN unset or empty "
        'where sentry_sdk.init() is given no dsn, or dsn=""; W&B Weave\'s: '
        "WANDB_ERROR_REPORTING=false)",
    ),
    (None, "opentelemetry.exporter", OTEL_EXPORTER),
    (None, "huggingface_hub.utils._detect_agent", HF_AGENT_HARNESSES),
)
"""The hosts frameworks send to of their own (and their subdomains, such as LangSmith's
``eu.api.smith.langchain.com``; None for a host the application chooses, as an
OpenTelemetry exporter's collector, or one that is not the framework's alone, as the
``pypi.org`` CrewAI asks for its latest release), the package that sends there, and how to
stop it. Of a
provider's API host, only its telemetry's paths are side requests
(:data:`~replaygate.http.envelope.PROVIDER_TELEMETRY`): the Agents SDK's trace upload."""


def _host_remedy(host: str | None) -> str | None:
    """How to stop what is sent to ``host`` of its own, if it is a host of :data:`REMEDIES`
    or one of its subdomains; else None."""
    return next(
        (
            r
            for name, _, r in REMEDIES
            if name and host and (host == name or host.endswith(f".{name}"))
        ),
        None,
    )


def sender_remedy(module: str, host: str | None = None) -> str | None:
    """How to stop what ``module`` (a refused attempt's sender, such as
    ``agents.tracing.processors``) sends of its own, if it is a package of
    :data:`REMEDIES`; else None. A sender of no host of its own (an OpenTelemetry
    exporter, which sends where the application set it up to) is told the remedy of the
    service at ``host`` when it is known: Langfuse's spans go through one. A send to a
    provider's API host (:data:`~replaygate.http.envelope.PROVIDER_API_HOST`) of no package
    whose own host it is is a model call (LiteLLM's clients send theirs from its package):
    no remedy stops it, and None is returned."""
    found = next(
        (
            (name, r)
            for name, package, r in REMEDIES
            if module == package or module.startswith(f"{package}.")
        ),
        None,
    )
    if found is None:
        return None
    name, remedy = found
    if not name:
        return _host_remedy(host) or remedy
    if host and PROVIDER_API_HOST.search(host) and _host_remedy(host) != remedy:
        return None
    return remedy


_REFUSED_HOST = re.compile(r" '?\[?([^\s'\]]+?)\]?'?(?::\d+)? \(from ")
"""The host of a refusal's line (``lookup of 'host' (from ...)``, ``connect to host:80
(from ...)``)."""


def refused_host(line: str) -> str | None:
    """The host of a refusal's line (``str(refusal)`` of a
    :class:`~replaygate.network.Refusal`, a line of the list of refusals), if it names one."""
    found = _REFUSED_HOST.search(line)
    return None if found is None else found.group(1)


def refusal_remedy(refusal: Refusal) -> str | None:
    """How to stop the sender of ``refusal`` (:func:`sender_remedy`), if it is known."""
    return sender_remedy(refusal.caller, refused_host(str(refusal)))


def refusal_told(refusal: Refusal, when: str, kept: str, turn_off: str) -> str:
    """The line telling ``refusal``, made ``when`` no run of replaygate's was going on
    (after a session or a command): why it was refused (``kept``), and ``turn_off`` with the
    switch that stops its sender, if it is known."""
    remedy = refusal_remedy(refusal)
    stop = f"; {turn_off} ({remedy})" if remedy else ""
    return (
        f"replaygate: {refusal.what} {refusal.target} refused {when} (from {refusal.caller}): "
        f"{kept}{stop}\n"
    )


_TOLD: set[str] = set()
"""The lines :func:`tell_once` wrote."""


def tell_once(line: str) -> None:
    """Write ``line`` (of :func:`refusal_told`) on stderr unless it was written already: a
    sender that tries again (PostHog's client, three times as the interpreter exits) is told
    once."""
    if line not in _TOLD:
        _TOLD.add(line)
        sys.stderr.write(line)


LANGFUSE_OTLP = "/api/public/otel/"
"""Where Langfuse takes spans over OTLP, on its cloud's host and on one the team runs
itself (``LANGFUSE_HOST=http://localhost:3000``)."""


def _path_remedy(host: str | None, path: str) -> str | None:
    """How to stop the fetch of ``path`` on ``host`` (:data:`PATH_REMEDIES`), if it is one a
    framework sends of its own; else None."""
    route = path.split("?", 1)[0]
    return next((r for h, p, r in PATH_REMEDIES if host == h and route == p), None)


def _otlp_remedy(path: str) -> str | None:
    """How to stop an upload over OTLP to ``path`` (:data:`OTLP_PATH`) on a host of no known
    service: Langfuse's switch for its path (:data:`LANGFUSE_OTLP`), else OpenTelemetry's;
    None for any other path."""
    if OTLP_PATH.search(path) is None:
        return None
    return _host_remedy("cloud.langfuse.com") if LANGFUSE_OTLP in path else OTEL_EXPORTER


def side_request_note(host: str | None, path: str = "") -> str:
    """What a miss of a request to ``host`` and ``path``, of no provider's API, adds: to stop
    it at its source, with the remedy of the library sending there, if one is known (by its
    host, else by its host and path, :data:`PATH_REMEDIES`, else an OpenTelemetry
    exporter's by its path, :data:`OTLP_PATH`); for a cloud
    metadata server's host, how to give the client a token instead."""
    if metadata_server(host):
        return METADATA_SERVER
    known = _host_remedy(host) or _path_remedy(host, path) or _otlp_remedy(path)
    remedy = f"{known}; " if known else ""
    return (
        f"{SIDE_REQUEST}: if the code under test sends it of its own (a framework fetching "
        "a price or tokenizer file, telemetry), stop it at its source rather than record it "
        f"({remedy}see docs/frameworks.md).{'' if known else TOOL_SERVICE}"
    )


TOOL_SERVICE = (
    " If a tool of the agent calls this service, give the tool a fake in tests, or record "
    "the service's answers with the model's: a recording from the live API, with approval, "
    "reaches the service; one from the simulator does not (nothing leaves loopback)."
)
"""What a miss of a request to a host no known library sends to adds: it may be a tool's
call of its own service, for which stopping it at its source is not the remedy."""


def side_request_told(said: str) -> str | None:
    """The note of :func:`side_request_note` in ``said``, a miss's text, or None when the
    miss is of a call of a provider's API."""
    return next((line for line in said.splitlines() if line.startswith(SIDE_REQUEST)), None)
