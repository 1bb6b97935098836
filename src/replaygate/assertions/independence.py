"""Who is the judge, who is under test, and whether they are too close (law 8).

Model ids are compared after :func:`normalize_model_id` (lower case, routing prefixes
such as ``anthropic/``, Bedrock's ``us.anthropic.`` or Databricks' ``databricks-``
removed, a fine-tune read as its base model). A *family rule* maps an id to its family;
two models of one family may not judge each other. The default, :func:`vendor_family`,
is the vendor: ``claude-*`` is ``anthropic``; ``gpt-*``, ``chatgpt-*``,
``o1``/``o3``/``o4...`` and the GPT-3 names (``davinci``, ``curie``, ``babbage``,
``ada``) are ``openai``; ``gemini-*``/``gemma-*`` are ``google``; ``llama*`` and
``meta-llama*`` are ``meta``; ``mistral``/``mixtral``/``codestral``... (also
``open-mistral-*``) are ``mistral``; ``command*`` is ``cohere``; ``deepseek*``,
``qwen*``/``qwq*`` (``alibaba``), ``grok*`` (``xai``); any other id's family is its
leading run of letters (``phi-3`` -> ``phi``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from replaygate.assertions.errors import JudgeIndependenceError

FamilyRule = Callable[[str], str | None]
"""Maps a normalized model id to its family; ``None`` means no family check."""

_BEDROCK = re.compile(
    r"^(?:[a-z]+(?:-[a-z]+)*\.)?"  # a cross-region profile: us., eu., apac., us-gov., global.
    r"(?:anthropic|meta|mistral|cohere|amazon|ai21|deepseek|openai|qwen|writer)\.(.+)$"
)
_BEDROCK_CUSTOM = re.compile(r":custom-model/([^/]+)/[^/]+$")
"""A Bedrock custom model's ARN, ``...:custom-model/<base model id>/<id>``: its base model
(an imported model's middle part is ``imported``, which names no base)."""
_FINE_TUNE = re.compile(r"^ft:([^:]+)(?::|$)|^([^:]+):ft-")
"""A fine-tune of the model it names: OpenAI's and Mistral's ``ft:<base>:<org>:...`` and
OpenAI's older ``<base>:ft-<org>-...``."""
_AZURE_FINE_TUNE = re.compile(r"\.ft-[^.:]*$")
"""The end of an Azure OpenAI fine-tune, ``<base>.ft-<hex>``."""
_PROVIDER = re.compile(
    r"^(?:anthropic|openai|azure(?:[-_]openai)?|google(?:[-_](?:gla|vertex|genai|vertexai))?"
    r"|vertexai|gemini|bedrock(?:[-_]converse)?|groq|mistral(?:ai)?|cohere|deepseek|xai"
    r"|openrouter|together|fireworks|ollama|huggingface|grok|heroku|cerebras):"
)
"""A ``provider:`` prefix (``openai:gpt-4o``, ``google-gla:gemini-2.0-flash``): the same
model as the id after it. Only known providers: ``llama3:8b`` is a tag, not a prefix."""
_DATABRICKS = re.compile(r"^databricks-")
"""The start of a Databricks Foundation Model endpoint's name, the base model's id after
it (``databricks-claude-3-7-sonnet``, ``databricks-meta-llama-3-3-70b-instruct``; LiteLLM's
``databricks/databricks-...``)."""
_O_SERIES = re.compile(r"^o\d")
_LEADING_LETTERS = re.compile(r"^[a-z]+")

VENDOR_PREFIXES: Mapping[str, str] = {
    "claude": "anthropic",
    "gpt": "openai",
    "chatgpt": "openai",
    "davinci": "openai",
    "curie": "openai",
    "babbage": "openai",
    "ada": "openai",
    "gemini": "google",
    "gemma": "google",
    "palm": "google",
    "llama": "meta",
    "meta-llama": "meta",
    "mistral": "mistral",
    "mixtral": "mistral",
    "codestral": "mistral",
    "open-mistral": "mistral",
    "open-mixtral": "mistral",
    "open-codestral": "mistral",
    "ministral": "mistral",
    "magistral": "mistral",
    "pixtral": "mistral",
    "command": "cohere",
    "deepseek": "deepseek",
    "qwen": "alibaba",
    "qwq": "alibaba",
    "grok": "xai",
}
"""Id prefixes and the vendor family they belong to (the default rule's table)."""


def normalize_model_id(model_id: str) -> str:
    """Lower case, surrounding space and routing prefixes (``vendor/``, Bedrock's,
    Databricks' ``databricks-``, and the ``provider:`` of pydantic-ai and LangChain's
    ``init_chat_model``) removed; a fine-tune (OpenAI's, Mistral's, Azure OpenAI's, a
    Bedrock custom model) is its base model."""
    plain = model_id.strip().lower()
    custom = _BEDROCK_CUSTOM.search(plain)
    if custom and custom.group(1) != "imported":
        plain = custom.group(1)
    plain = _DATABRICKS.sub("", _PROVIDER.sub("", plain.rsplit("/", 1)[-1]))
    tuned = _FINE_TUNE.match(plain)
    if tuned:
        plain = tuned.group(1) or tuned.group(2)
    plain = _AZURE_FINE_TUNE.sub("", plain)
    bedrock = _BEDROCK.match(plain)
    return bedrock.group(1) if bedrock else plain


def prefix_family(prefixes: Mapping[str, str]) -> FamilyRule:
    """A family rule from a prefix table (longest prefix wins); unknown ids have no family."""
    ordered = sorted(prefixes.items(), key=lambda item: -len(item[0]))

    def rule(model_id: str) -> str | None:
        return next((family for prefix, family in ordered if model_id.startswith(prefix)), None)

    return rule


_known_vendor = prefix_family(VENDOR_PREFIXES)


def vendor_family(model_id: str) -> str | None:
    """The default family rule: the vendor of ``model_id`` (see the module docstring)."""
    known = _known_vendor(model_id)
    if known is not None:
        return known
    if _O_SERIES.match(model_id):
        return "openai"
    letters = _LEADING_LETTERS.match(model_id)
    return letters.group(0) if letters else None


def exact_only(model_id: str) -> str | None:
    """A family rule that disables the family check: only equal ids are refused."""
    return None


def model_id_of(model: Any) -> str | None:
    """The model id a :class:`~replaygate.models.types.Model` sends: ``.settings.model``, or a
    string ``model_id`` / ``model`` attribute; ``None`` when it does not say."""
    settings = getattr(model, "settings", None)
    for value in (getattr(settings, "model", None), getattr(model, "model_id", None)):
        if isinstance(value, str) and value:
            return value
    value = getattr(model, "model", None)
    return value if isinstance(value, str) and value else None


_ONLY_PREFIX = re.compile(r"[./:]$|^[^a-z0-9]*$")
"""A normalized id that names no model: empty, no letter or digit, or ending in a routing
separator (``us.``, ``openai/`` and ``openai:`` normalize to nothing or to a prefix)."""


def told_id(model_id: str, who: str, argument: str) -> str:
    """``model_id`` if it names a model; :class:`JudgeIndependenceError` naming the id
    otherwise (an empty or blank id, or only a routing prefix, as an unset environment
    variable gives), since independence from it cannot be checked."""
    if _ONLY_PREFIX.search(normalize_model_id(model_id)):
        raise JudgeIndependenceError(
            f"cannot tell which model {who} is from the id {model_id!r}: it names no model "
            "(empty, blank or only a routing prefix), so the judge's independence cannot be "
            f"checked (law 8); pass {argument}='<model id>' (an unset environment variable "
            "gives an empty id)"
        )
    return model_id


def check_independence(judge_id: str, under_test_id: str, family_rule: FamilyRule) -> None:
    """Raise :class:`JudgeIndependenceError` when the ids, or their families, are equal."""
    judge, tested = normalize_model_id(judge_id), normalize_model_id(under_test_id)
    if judge == tested:
        same = (
            f"both are {judge_id!r}"
            if judge_id == under_test_id
            else f"{judge_id!r} and {under_test_id!r} are both {judge!r}"
        )
        raise JudgeIndependenceError(
            f"refusing a judge that is the model under test: {same}. "
            "A model grading its own output is biased towards its own style (law 8); "
            "use a judge from another vendor family."
        )
    judge_family, tested_family = family_rule(judge), family_rule(tested)
    if judge_family is not None and judge_family == tested_family:
        raise JudgeIndependenceError(
            f"refusing judge {judge_id!r} for model under test {under_test_id!r}: both are of "
            f"family {judge_family!r} under the family rule, and a family shares its biases "
            "(law 8). Use a judge from another family, or pass family_rule=exact_only to "
            "refuse only the very same model."
        )
