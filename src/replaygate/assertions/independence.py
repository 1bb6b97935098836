"""Who is the judge, who is under test, and whether they are too close (law 8).

Model ids are compared after :func:`normalize_model_id` (lower case, routing prefixes
such as ``anthropic/``, Bedrock's ``us.anthropic.`` or Databricks' ``databricks-``
removed, a fine-tune read as its base model), then as a model and its snapshot
(:func:`split_snapshot`): a date or version suffix (``-20250929``, ``-2024-08-06``,
``@20250929``, ``-0613``, ``-002``) names a snapshot, ``-latest`` and an undated id name
an alias, which may serve any snapshot of its model; OpenRouter's variants (``:free``,
``:beta``, ...) are the model they vary. Two ids are one model (:func:`same_model`) when
their models are equal and their snapshots are, or one of them is an alias. A *family
rule* maps an id to its family; two models of one family may not judge each other. The
default, :func:`vendor_family`, is the vendor: ``claude-*`` is ``anthropic``; ``gpt-*``,
``chatgpt-*``, ``o1``/``o3``/``o4...`` and the GPT-3 names (``davinci``, ``curie``, ``babbage``,
``ada``) are ``openai``; ``gemini-*``/``gemma-*`` are ``google``; ``llama*`` and
``meta-llama*`` are ``meta``; ``mistral``/``mixtral``/``codestral``... (also
``open-mistral-*``) are ``mistral``; ``command*`` is ``cohere``; ``deepseek*``,
``qwen*``/``qwq*`` (``alibaba``), ``grok*`` (``xai``); any other id's family is its
leading run of letters (``phi-3`` -> ``phi``).
"""

from __future__ import annotations

import re
import unicodedata
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
_BEDROCK_VERSION = re.compile(r"-v?\d+:\d+(?::\d+k)?$")
"""The version Bedrock appends to a model's id, ``-v1:0`` (and a context window,
``-v1:0:200k``; ``openai.gpt-oss-120b-1:0``)."""
_BEDROCK_VERSIONED_NAME = re.compile(r"^claude(?:-instant)?$")
"""Bedrock's old Claude ids, ``claude-v2:1`` (Claude 2.1), ``claude-instant-v1``, whose
version is the model's own name."""
_OPENROUTER_VARIANT = re.compile(r":(?:free|beta|extended|nitro|floor|online|thinking|exacto)$")
"""An OpenRouter variant of a model (``openai/gpt-4o:free``): the same model."""
_LATEST = re.compile(r"-latest$")
_SNAPSHOT = re.compile(r"[-@](\d{4}-\d{2}-\d{2}|\d{8}|\d{2}-\d{4}|\d{4}|00\d)$")
"""A snapshot suffix: a date (Anthropic's ``-20250929``, OpenAI's ``-2024-08-06``, Vertex
AI's ``@20250929``, Cohere's ``-08-2024``), an older ``-MMDD``/``-YYMM`` (``gpt-4-0613``,
``mistral-large-2407``) or a Gemini version (``-002``)."""
_CLAUDE_DOTTED_VERSION = re.compile(r"(?<=\d)\.(?=\d)")
"""OpenRouter spells Claude's versions with a dot (``claude-sonnet-4.5``), Anthropic with
a hyphen (``claude-sonnet-4-5``)."""
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
    """Lower case, in NFKC (a full-width ``ｃｌａｕｄｅ`` is ``claude``), invisible
    characters (a zero-width space, a direction mark), surrounding space and routing
    prefixes (``vendor/``, Bedrock's, Databricks' ``databricks-``, and the ``provider:``
    of pydantic-ai and LangChain's ``init_chat_model``) removed; a fine-tune (OpenAI's,
    Mistral's, Azure OpenAI's, a Bedrock custom model) is its base model."""
    shown = "".join(c for c in model_id if unicodedata.category(c) != "Cf")
    plain = unicodedata.normalize("NFKC", shown).strip().lower()
    custom = _BEDROCK_CUSTOM.search(plain)
    if custom and custom.group(1) != "imported":
        plain = custom.group(1)
    plain = _DATABRICKS.sub("", _PROVIDER.sub("", plain.rsplit("/", 1)[-1]))
    tuned = _FINE_TUNE.match(plain)
    if tuned:
        plain = tuned.group(1) or tuned.group(2)
    plain = _AZURE_FINE_TUNE.sub("", plain)
    bedrock = _BEDROCK.match(plain)
    if not bedrock:
        return plain
    model = bedrock.group(1)
    unversioned = _BEDROCK_VERSION.sub("", model)
    return model if _BEDROCK_VERSIONED_NAME.match(unversioned) else unversioned


def split_snapshot(model_id: str) -> tuple[str, str | None]:
    """The model ``model_id`` names and its snapshot: ``("claude-sonnet-4-5", "20250929")``
    for ``claude-sonnet-4-5-20250929``, ``("gpt-4o", None)`` for ``gpt-4o``,
    ``gpt-4o-latest`` or ``openai/gpt-4o:free`` (an alias: no snapshot named). The id is
    normalized first (:func:`normalize_model_id`); a snapshot date is given without
    separators."""
    plain = _OPENROUTER_VARIANT.sub("", normalize_model_id(model_id))
    if plain.startswith("claude"):
        plain = _CLAUDE_DOTTED_VERSION.sub("-", plain)
    plain = _LATEST.sub("", plain)
    snapshot = _SNAPSHOT.search(plain)
    if snapshot is None or snapshot.start() == 0:
        return plain, None
    return plain[: snapshot.start()], snapshot.group(1).replace("-", "")


def same_model(first: str, second: str) -> bool:
    """Whether two model ids may name one model: their models are equal
    (:func:`split_snapshot`) and so are their snapshots, or one of them names none (an
    alias such as ``gpt-4o`` or ``claude-3-5-sonnet-latest`` serves one of its model's
    snapshots, perhaps the other one)."""
    (model, snapshot), (other_model, other_snapshot) = (
        split_snapshot(first),
        split_snapshot(second),
    )
    if model != other_model:
        return False
    return snapshot is None or other_snapshot is None or snapshot == other_snapshot


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


def _alias_note(judge: str, tested: str) -> str:
    """Why two ids with different models or snapshots named are one model."""
    aliases = [model_id for model_id in (judge, tested) if split_snapshot(model_id)[1] is None]
    if len(aliases) != 1:
        return ""
    other = tested if aliases[0] == judge else judge
    return f" ({aliases[0]!r} names no snapshot: it may serve {other!r})"


def check_independence(judge_id: str, under_test_id: str, family_rule: FamilyRule) -> None:
    """Raise :class:`JudgeIndependenceError` when the ids, or their families, are equal."""
    judge, tested = normalize_model_id(judge_id), normalize_model_id(under_test_id)
    if judge == tested or same_model(judge, tested):
        same = (
            f"both are {judge_id!r}"
            if judge_id == under_test_id
            else f"{judge_id!r} and {under_test_id!r} are both {judge!r}"
            if judge == tested
            else f"{judge_id!r} and {under_test_id!r} name one model, "
            f"{split_snapshot(judge)[0]!r}{_alias_note(judge_id, under_test_id)}"
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
