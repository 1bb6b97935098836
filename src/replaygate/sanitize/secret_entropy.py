"""Secrets by context and by entropy, and the values known to be safe.

A credential without a known prefix is found two ways:

- **in a credential context**: the value of a field whose name looks like credentials
  (``x-api-key``, ``session_token``, ``password``...), of such a name written in text
  (``api_key=...``, ``"password": "..."``), of a query parameter (``?key=``,
  ``&sig=``), or after an auth scheme in any letter case (``bearer``, ``Basic``,
  ``TOKEN``...). It counts when it is at least :data:`CONTEXT_MIN_LENGTH` characters
  without white space and its Shannon entropy is at least :data:`CONTEXT_BITS` bits
  per character;
- **free-standing**: a run of token characters of at least :data:`FREE_MIN_LENGTH`
  characters that mixes upper case, lower case and digits, with an entropy of at
  least :data:`FREE_BITS` bits per character (random 32-character keys score 4.2 to
  4.8; words joined in camel case or with hyphens stay under 4.0), and that does not
  read as a name in code (:func:`identifier`: ``TestOpenAI.test_chat_completion_v1``,
  ``src/app/OAuth2Handler.refresh_token_v3``) nor as a list of names separated by ``/``
  (:func:`name_list`: a PDF font's glyph names), nor as a link's host and path none of
  whose parts is such a token alone (:func:`_link`). Values of fields that hold encoded data
  (by the object they stand in, :func:`encoded_field`, and by where they stand,
  :func:`is_encoded_path`), data URLs (:data:`DATA_URL`) and the base64 of an image, an
  audio or a PDF file (:func:`file_run`) or of a vector of numbers (:func:`vector_run`)
  wherever they stand, and JSON held as text (read
  string by string with its field names, :mod:`.secret_held`) are left to the token
  families and the credential contexts.

Known-safe values are never reported (:func:`known_safe`): the placeholders replaygate
itself uses, provider ids (``msg_``, ``toolu_``... and their stable forms) and model
ids. Hexadecimal values (fixture keys, sha256 digests, UUIDs) are never free-standing
secrets; in a credential context they are.
"""

from __future__ import annotations

import base64
import binascii
import functools
import math
import re
import string
import struct
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from replaygate.sanitize.ids import STABLE_ID, VOLATILE_PREFIXES
from replaygate.sanitize.secret_held import outside_held_json
from replaygate.sanitize.secret_prefilter import (
    Runs,
    at_string_start,
    folded,
    table_of,
    text_spans,
)
from replaygate.sanitize.secret_public import without_public_pem

CONTEXT_MIN_LENGTH = 20
CONTEXT_BITS = 3.5
FREE_MIN_LENGTH = 32
FREE_BITS = 4.0

CONTEXT = "high-entropy value in an auth-like field"
FREE = "high-entropy token"
SCHEME = "credential after an auth scheme"

FILE_PATH = re.compile(r"/?[\w.-]+(?:/[\w.-]+)+\.[a-z][a-z0-9]{1,7}")
"""A path of folders ending in a file name with a lower-case extension of two to eight
characters (``reports/2024/q3.csv``, ``.parquet``): an
object's key in a bucket listing (S3's ``Key``), no credential. Base64 has no ``.``,
base64url (a JWT's) no ``/``, and the token families are found by rules of their own."""
KNOWN_SAFE_VALUES: frozenset[str] = frozenset({"replaygate-replay-no-key", "sk-sim"})
"""Placeholders replaygate uses where a client wants a key (replay, the simulator)."""

AUTH_WORDS = (
    r"auth(?!or)|authorization|api[-_]?key|apikey|secret|token(?!iz)|password|passwd|pwd|"
    r"credential|session|cookie"
)
"""The words of a credential's name; ``auth`` not as the start of ``author`` or
``authority`` (``author_email='...'`` in a ``setup.py``, ``Author-email:`` in a package's
metadata), ``token`` not as the start of ``tokenizer`` (``tokenizer_name:
sentence-transformers/all-MiniLM-L6-v2``)."""
AUTH_LIKE_FIELD = re.compile(rf"(?i)(^|[-_.])({AUTH_WORDS})s?($|[-_.])")
KEY_NAME = re.compile(r"(?i:(?:^|[-_.])key)|(?<=[a-z0-9])Key")
"""A name that is ``key`` or ends in it as a word: ``private_key``, ``access-key``,
``encryptionKey`` (not ``keys``, ``keyboard``, ``monkey``)."""
NOT_CREDENTIAL_KEYS = frozenset(
    {
        "cache",
        "dedup",
        "dedupe",
        "foreign",
        "group",
        "idempotency",
        "lookup",
        "object",
        "partition",
        "primary",
        "routing",
        "sort",
    }
)
"""The words before ``key`` that name no credential (``idempotency_key``,
``prompt_cache_key``, ``sort_key``)."""
_QUERY_WORDS = r"key|sig|signature|code"
_VALUE = r"[!#-%*+\--:=?-Z^-z|~]"  # printable ASCII but quotes, brackets, & ; , \
_NAME = "[A-Za-z0-9_.-]"
_QUOTE = r"(?:\\*[\"'])?"
"""The quote around a name or a value written in text, if any, escaped any number of
times (JSON quoted in text, once or more)."""
KEYWORD = re.compile(
    rf"(?i)(?:(?<=[?&;])(?:{_QUERY_WORDS})|(?<!{_NAME})(?>{_NAME}*?(?:{AUTH_WORDS})){_NAME}*+)"
    rf"{_QUOTE}\s*[=:]\s*{_QUOTE}({_VALUE}{{{CONTEXT_MIN_LENGTH},}})"
)
"""A credential name written in text and its value: ``api_key=...``, ``?key=...``,
``\\"password\\": \\"...\\"`` (JSON quoted in text: its quotes escaped).

A name is a whole run of name characters holding a key word: a match starting inside a
run would end where one starting at the run's start ends, so a search tries each run
once, from its start, and takes the first key word it holds without trying the others
(the value after the run is the same whichever it takes). Time grows with the text, not
with its square: a megabyte of digits or of base64 is read in a fraction of a second."""
KEY_KEYWORD = re.compile(
    rf"(?<![A-Za-z0-9_.-])([A-Za-z0-9_.-]*?(?:[Kk]ey|KEY))"
    rf"{_QUOTE}\s*[=:]\s*{_QUOTE}({_VALUE}{{{CONTEXT_MIN_LENGTH},}})"
)
"""A name ending in ``key`` written in text and its value (:func:`key_name` tells which
count): ``private_key=...``, ``"subscription-key": "..."``."""
AUTH_SCHEME = re.compile(r"(?i)\b(bearer|token|basic|digest|api-?key)\s+([A-Za-z0-9_\-.=+/~]{16,})")
BASE64_TEXT = re.compile(r"[A-Za-z0-9+/_\-]*={0,2}")
"""A text of base64's letters alone, ``=`` only at its end (an image, a document, audio):
none of :data:`KEYWORD`, :data:`KEY_KEYWORD` and :data:`AUTH_SCHEME` can match in it (each
needs ``=`` or ``:`` before a value, or white space after a scheme), so they are not run."""
FREE_RUN = re.compile(rf"[A-Za-z0-9+/_\-=.~]{{{FREE_MIN_LENGTH},}}")
_FREE_TABLE = table_of((string.ascii_letters + string.digits + "+/_-=.~").encode())
"""The characters of :data:`FREE_RUN`, for :func:`~.secret_prefilter.text_spans`."""
MEDIA_FIELDS = frozenset({"media_type", "mime_type", "mimeType", "format", "transcript"})
"""Fields next to a ``data`` that say it is an image, a document or audio."""
_DATA_TYPES = frozenset({"base64", "redacted_thinking"})
AUDIO_FIELDS = frozenset({"id", "data", "expires_at", "transcript"})
"""The fields of a Chat Completions answer's ``audio``, each chunk of a stream holding some."""
AUDIO_HOLDERS = frozenset({"message", "delta"})
"""What holds a Chat Completions answer's ``audio``: a choice's message, a stream chunk's delta."""
ENCODED_BY_TYPE = frozenset(
    {
        ("signature", "thinking"),
        ("signature", "signature_delta"),
        ("encrypted_index", "web_search_result_location"),
        ("result", "image_generation_call"),
        ("partial_image_b64", "response.image_generation_call.partial_image"),
        ("b64_json", "image_generation.partial_image"),
        ("b64_json", "image_generation.completed"),
        ("b64_json", "image_edit.partial_image"),
        ("b64_json", "image_edit.completed"),
        ("delta", "response.audio.delta"),
        ("delta", "response.output_audio.delta"),
        ("audio", "speech.audio.delta"),
        ("data", "reasoning.encrypted"),
        ("signature", "reasoning.text"),
    }
)
"""``(field, type)``: the field of an object of that ``type`` that holds encoded data: a
thinking block's signature, an Anthropic web search citation's ``encrypted_index``, an
image of the Responses API's image generation tool, of a streamed image generation, the
audio of a Responses API stream and of speech streamed as events, the encrypted or
signed ``reasoning_details`` of OpenAI-compatible servers (OpenRouter)."""
ENCODED_BY_HOLDER = frozenset(
    {
        ("signature", "reasoningText", "reasoningContent"),
        ("signature", "reasoningContent", "delta"),
        ("redactedContent", "reasoningContent", "content"),
        ("redactedContent", "reasoningContent", "delta"),
        ("bytes", "source", "document"),
        ("bytes", "source", "image"),
        ("bytes", "source", "video"),
        ("body", "invokeModel", "input"),
    }
)
"""``(field, holder, outer)``: the field of an object under the field ``holder`` of an
object under ``outer`` that holds encoded data: Amazon Bedrock's Converse API's reasoning
block, its signature (``reasoningContent.reasoningText.signature`` of a message's
``content``, a stream's ``delta.reasoningContent.signature``) and its redacted thinking
(``redactedContent``); the base64 ``bytes`` of a Converse document, image or video (a
``txt``, ``csv``, ``html`` or ``md`` document is text, of no file signature); and the
``invoke`` body a Bedrock token count (``count-tokens``) carries base64. Their decoding is
searched as any text is."""
WRAPPED_ENCODED = frozenset({"redactedContent"})
"""Fields of encoded data (:data:`ENCODED_BY_HOLDER`) whose base64 wraps encoded data of
its own, so that a decoding of them is encoded data too: Converse's ``redactedContent``,
Claude's redacted thought (itself base64) wrapped as a blob."""
GEMINI_PART_FIELDS = frozenset(
    {
        "text",
        "thought",
        "thoughtSignature",
        "functionCall",
        "functionResponse",
        "inlineData",
        "fileData",
        "executableCode",
        "codeExecutionResult",
        "videoMetadata",
        "partMetadata",
        "mediaResolution",
    }
)
"""The fields of a Gemini content part: a ``thoughtSignature`` in an entry of ``parts`` of no
other fields is encoded data (a streamed answer's last part may hold nothing else)."""
DATA_URL = re.compile(r"data:[\w.+-]+/[\w.+-]+(?:;[\w.+-]+=[^;,\s]*)*;base64,")
"""The start of a data URL of base64 content: ``data:image/png;base64,``."""
DATA_URL_BASE64 = re.compile(f"({DATA_URL.pattern})" + r"[A-Za-z0-9+/]*={0,2}")
"""A data URL of base64 content: its start (group 1, read as text) and its content (in
the standard alphabet, as a data URL holds it)."""
IMAGE_SIGNATURES = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a")
"""The first bytes of a PNG, a JPEG and a GIF: an image, whatever text its first chunks
hold (a diagram's source in a PNG's ``tEXt``, EXIF and XMP in a JPEG)."""
RIFF_IMAGES = (b"WEBP", b"WAVE")
"""The form types of a RIFF file that is an image or audio (``RIFF<size>WEBP``)."""
PDF_START = b"%PDF-"
FILE_RUN = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{64,}={0,2}")
"""A run of base64 (the standard alphabet, as a data URL's) long enough to be a file's."""


def binary_file(raw: bytes) -> bool:
    """Whether ``raw`` starts as an image or audio file does (:data:`IMAGE_SIGNATURES`,
    :data:`RIFF_IMAGES`)."""
    return raw.startswith(IMAGE_SIGNATURES) or (raw[:4] == b"RIFF" and raw[8:12] in RIFF_IMAGES)


def file_run(run: str) -> bool:
    """Whether a base64 run (:data:`FILE_RUN`) is an image, audio or PDF file by its first
    bytes (:func:`binary_file`, ``%PDF-``): a file sent as base64 in text (a tool's result
    holding a screenshot), as a data URL without its ``data:`` prefix."""
    try:
        head = base64.b64decode(run[:16], validate=True)
    except (binascii.Error, ValueError):
        return False
    return binary_file(head) or head.startswith(PDF_START)


VECTOR_READ = 128
"""The characters of a base64 run read as float32 numbers by :func:`vector_run` (96 bytes,
24 numbers)."""
VECTOR_EXPONENTS = range(127 - 24, 127 + 17)
"""The biased exponents of float32 numbers from 2^-24 to just under 2^17 in magnitude."""


def vector_run(run: str) -> bool:
    """Whether a base64 run (:data:`FILE_RUN`) is a vector of float32 numbers, as an
    embedding is sent as base64 (to a vector database, a search service) or kept in a file:
    a whole number of them, the first (up to :data:`VECTOR_READ` characters) each 0 or of a
    magnitude from 2^-24 to 2^17 (:data:`VECTOR_EXPONENTS`). Random bytes (a key) read so
    give such a number about one time in six: the 12 of the shortest run, about one key in
    3 billion."""
    if len(run) % 4 or len(run.rstrip("=")) * 3 // 4 % 4:
        return False
    try:
        raw = base64.b64decode(run[:VECTOR_READ], validate=True)
    except (binascii.Error, ValueError):
        return False
    words = struct.unpack(f"<{len(raw) // 4}I", raw[: len(raw) // 4 * 4])
    return all(
        (word & 0x7FFFFFFF) == 0 or ((word >> 23) & 0xFF) in VECTOR_EXPONENTS for word in words
    )


def _without_files(text: str) -> str:
    """``text`` with the base64 of each file (:func:`file_run`), vector of numbers
    (:func:`vector_run`) and PEM block of public data, a certificate or a public key
    (:func:`~.secret_public.without_public_pem`), in it taken out."""
    return FILE_RUN.sub(
        lambda run: " " if file_run(run.group()) or vector_run(run.group()) else run.group(),
        without_public_pem(text),
    )


ENCODED_TEXT_LEAST = 1024
"""The least length of a text :func:`encoded_text` takes for base64 data by its look."""


def encoded_text(text: str) -> bool:
    """Whether ``text`` is base64 data by its look, whatever field holds it: of
    :data:`ENCODED_TEXT_LEAST` characters or more, base64's letters alone
    (:data:`BASE64_TEXT`) or a data URL of base64 content (an image, a PDF sent inline).
    It holds no words a reader looks for."""
    return len(text) >= ENCODED_TEXT_LEAST and (
        BASE64_TEXT.fullmatch(text) is not None or DATA_URL_BASE64.fullmatch(text) is not None
    )


HELD_ENCODED_NAMES = frozenset({"embedding", "b64_json"})
"""The field names :data:`HELD_ENCODED_PATH` ends with."""
_ANSWER_DATA = rf"body\.data\[\d+\]\.(?:{'|'.join(sorted(HELD_ENCODED_NAMES))})"
"""The embeddings and images of an answer's ``data``, by field path from its envelope."""
ENCODED_PATH = re.compile(
    r"(?:(?:request|response|responses\[\d+\])\.)?"
    rf"(?:base64|(?<!request\.){_ANSWER_DATA})"
)
"""Where an envelope holds encoded data, by field path (:func:`is_encoded_path`)."""
HELD_ENCODED_PATH = re.compile(rf"response\.{_ANSWER_DATA}")
"""Where JSON held as text holds encoded data, by field path from where it starts: an
answer's embeddings and images in a line of a batch's results (``{"custom_id": ...,
"response": {"status_code": 200, "body": ...}}``)."""


def encoded_field(
    name: str, siblings: Mapping[str, Any], holder: str = "", outer: str = ""
) -> bool:
    """Whether the string under ``name`` of an object holding ``siblings`` (itself under
    the field ``holder`` of an object under ``outer``) is encoded data:
    ``encrypted_content``; the ``data`` of an image, a document or audio (next to a
    ``media_type``, ``mime_type``, ``format`` or ``transcript``, under a ``type`` of
    ``base64``, but never under a ``type`` of ``text``, a plain-text document's own words;
    or of an ``audio`` object of no other fields than :data:`AUDIO_FIELDS` in
    a message or a delta: a Chat Completions answer's audio) or of a redacted thinking
    block; the ``thoughtSignature`` of a Gemini content part, an entry of ``parts``
    (:data:`GEMINI_PART_FIELDS`); a field named with the object's ``type`` in
    :data:`ENCODED_BY_TYPE` (the ``signature`` of a thinking block, ...), or with its
    ``holder`` and ``outer`` in :data:`ENCODED_BY_HOLDER` (a Converse reasoning block's
    ``signature``)."""
    if name == "encrypted_content":
        return True
    kind = siblings.get("type")
    if not isinstance(kind, str):
        kind = None
    if (
        name == "data"
        and kind != "text"
        and (
            kind in _DATA_TYPES
            or not MEDIA_FIELDS.isdisjoint(siblings)
            or (holder == "audio" and outer in AUDIO_HOLDERS and AUDIO_FIELDS.issuperset(siblings))
        )
    ):
        return True
    if name == "thoughtSignature":
        return holder == "parts" and GEMINI_PART_FIELDS.issuperset(siblings)
    return (name, kind) in ENCODED_BY_TYPE or (name, holder, outer) in ENCODED_BY_HOLDER


def is_encoded_path(path: str, held: bool = False) -> bool:
    """Whether the leaf at ``path`` (of a fixture, or of an envelope scanned alone) is
    encoded data by where it stands: an HTTP body that is not UTF-8, kept as ``base64``
    (a file upload, speech audio; still searched once decoded), or an embedding or an
    image (``b64_json``) of an answer's ``data`` (the openai SDK asks for base64 vectors;
    ``images.generate``). A field of those names anywhere else is text like any other.

    In JSON held as text (``held``: ``path`` from where that JSON starts) only an answer's
    embeddings and images count (:data:`HELD_ENCODED_PATH`): a ``base64`` is an
    envelope's own field, never one of the JSON it holds."""
    pattern = HELD_ENCODED_PATH if held else ENCODED_PATH
    return pattern.fullmatch(path) is not None


FREE_PART = re.compile(rb"[A-Za-z0-9+/_\-=.~]+")
"""A stretch of the characters a free-standing token is made of."""

# The first pass, in lower case: a superset of what the rules find (quotes may be
# escaped, white space written as \n, any name that contains a key word counts).
# Every name AUTH_LIKE_FIELD matches holds one of the field words.
FIELD_WORDS = tuple(b"auth key secret token passw pwd credential session cookie".split())
_WORDS = (*FIELD_WORDS, b"sig", b"code", b"bearer", b"basic", b"digest")
_SPACE = rb"(?:\s|\\[nrt])*"
BEFORE_SOURCE = rb"(?:%s)[a-z0-9_.\-]*\\?[\"']?%s[=:]?%s\\?[\"']?" % (
    b"|".join(_WORDS),
    _SPACE,
    _SPACE,
)
"""What stands just before a value in a credential context (lower case): ``api_key = "``."""
_BEFORE = re.compile(BEFORE_SOURCE + rb"\Z")
NAMED_SOURCE = rb"(?:%s)[a-z0-9_.\-]*[=:]" % b"|".join(_WORDS)
"""A credential name and its ``=`` or ``:`` in a run (lower case): ``api_key=``."""
_NAMED = re.compile(NAMED_SOURCE)
TAG_SOURCE = rb"<[^<>]*(?:%s)" % b"|".join(FIELD_WORDS)
"""The start of a tag holding a credential word (lower case): ``<password``, ``<add key=``,
read by :mod:`.secret_tables` (a table's header needs no pattern of its own: in serialized
JSON the line break after it is written ``\\n``, a backslash after the word)."""
_TAG = re.compile(TAG_SOURCE)
_LESS_THAN = ord("<")
_WINDOW = 64
_BACKSLASH, _EQUALS, _COLON = b"\\=:"
_COMMA, _SEMICOLON, _PIPE = b",;|"
"""Single bytes, looked for as integers (``b"x" in data`` raises and catches a TypeError first)."""
_ID = re.compile("(?:" + "|".join(re.escape(p) for p in VOLATILE_PREFIXES) + r")[A-Za-z0-9_\-]+")
_ID_TOKEN = re.compile(r"(?<![A-Za-z0-9_\-])" + _ID.pattern)
"""A provider id standing as a whole token inside a longer run of token characters: a
path naming a resource (``/v1/messages/batches/msgbatch_01...``), a URL in a text."""
_MODEL_ID = re.compile(
    r"(?i)(?:claude|gpt|chatgpt|o[0-9]|gemini|text-embedding)[-.][A-Za-z0-9.\-]+"
)
_OPEN_MODEL_PIECE = re.compile(r"[A-Za-z0-9]{1,24}")
_OPEN_MODEL_SIZE = re.compile(r"A?[0-9]{1,4}(?:x[0-9]{1,4})?[BbMm]")
"""A model's size among the pieces of its name: ``7B``, ``70b``, ``8x7B``, ``A22B``."""
_OPEN_MODEL_TAG = re.compile(r"[A-Za-z0-9][\w.\-]*")
_OPEN_MODEL_SEPARATOR = re.compile(r"[-._=]")
_HEX = re.compile(r"[0-9a-fA-F\-]+")
_SEGMENT = re.compile(r"[^._/\-]+")
_PIECE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+|[^A-Za-z0-9]")
"""A piece of a segment of a name: an acronym before a word, a word, an acronym, a
number, a sign."""
_ONE_PIECE = re.compile(r"[0-9]+|[a-z]+|[A-Z][A-Z0-9]*")
"""A segment that is one piece: a number, a lower-case word, a constant (``MAX``, ``HTTP2``)."""
_VOWELS = frozenset("aeiouyAEIOUY")
ACRONYM_MAX = 5
"""The longest acronym within a segment (``HTTPSConnection``)."""
WORD_MEAN = 3.75
"""The least mean length of the words of a name."""
RARE_PAIRS_MAX = 1
"""The most pairs of letters outside :data:`PAIRS` in the words of a name (``mtls``)."""
SHOUTED_SHARE = 0.25
"""The largest share of a name's letters in acronyms."""
PAIRS = frozenset(
    first + second
    for first, seconds in {
        "a": "bcdfgiklmnoprstuvwxyz",
        "b": "aceghijlorstuy",
        "c": "acefhiklmoprstuy",
        "d": "adefgilmorstu",
        "e": "abcdefgilmnopqrstuvwxy",
        "f": "acefilorstu",
        "g": "aeghilmnorstuy",
        "h": "aeiorstuy",
        "i": "abcdefgklmnoprstvxz",
        "j": "aeos",
        "k": "adegils",
        "l": "abdegiklopstuvy",
        "m": "abcdeilmopstuy",
        "n": "acdefgijklmnopstuvy",
        "o": "abcdfghijklmnoprstuvwx",
        "p": "acdehikloprstuxy",
        "q": "u",
        "r": "abcdefgiklmnoprstuvy",
        "s": "acdefhiklnopstuvy",
        "t": "acdefhiklmoprstuwyz",
        "u": "abcdefgilmnprst",
        "v": "aceio",
        "w": "aehinors",
        "x": "ceipty",
        "y": "acdgilmnopstz",
        "z": "aeim",
    }.items()
    for second in seconds
)
"""The pairs of letters that make up 99.5% of those in the lower-case words of names in
code (measured over the qualified names and file paths of common Python packages): about
half of all pairs, so two random letters make one about every other time."""
LISTED_MIN = 4
"""The fewest entries of a list of names separated by ``/`` (:func:`name_list`)."""
_LISTED_WORD = re.compile(rf"[0-9]+|[A-Z]?[a-z]+|[A-Z]{{2,{ACRONYM_MAX}}}")
"""An entry of a list of names that is a number, a word in lower case or capitalized
(``bracketleft``, ``Atilde``), or an acronym (``AE``)."""
SDK_CACHE_KEY = re.compile(r"agents-sdk:(?:run|group|session|conversation):[0-9a-f]{32}\b")
"""A ``prompt_cache_key`` the OpenAI Agents SDK makes: no credential."""
AUTH_LIKE_NAMES: dict[str, bool] = {}
"""Field names already checked by :func:`auth_like`."""


def entropy(text: str) -> float:
    """Shannon entropy of ``text`` in bits per character."""
    size = len(text)
    counts = Counter(text).values()
    if size > _TERMS_MAX:
        return -sum(n / size * math.log2(n / size) for n in counts)
    return -sum(map(_terms(size).__getitem__, counts))


_TERMS_MAX = 512
"""The longest text whose terms :func:`entropy` looks up (:func:`_terms`)."""


@functools.lru_cache(maxsize=64)
def _terms(size: int) -> tuple[float, ...]:
    """Each count's term of the entropy of a text of ``size`` characters, by count: the
    same numbers, summed in the same order, as computing each term anew (a token's
    entropy is asked of thousands of tokens of a few lengths)."""
    return (0.0, *(n / size * math.log2(n / size) for n in range(1, size + 1)))


def open_model_id(value: str) -> bool:
    """Whether ``value`` is the id of an open-weight model as OpenAI-compatible servers
    (Together, OpenRouter, vLLM, Ollama) name one, or a path or parameter naming one: owners
    and a name split at ``/``, each of short pieces joined by ``-``, ``.``, ``_`` or ``=``,
    the name holding its size, and an optional ``:tag``
    (``mistralai/Mixtral-8x7B-Instruct-v0.1``,
    ``hf.co/TheBloke/Mixtral-8x7B-Instruct-v0.1-GGUF:Q5_K_M``,
    ``/models/mistralai/Mixtral-8x7B-Instruct-v0.1/v1/chat/completions``). A piece is
    shorter than a free-standing key (:data:`FREE_MIN_LENGTH`), and a random key has no
    ``/`` (base64url) or no ``-`` (base64)."""
    name, _, tag = value.partition(":")
    segments = name.split("/")
    if len(segments) < 2 or (tag and _OPEN_MODEL_TAG.fullmatch(tag) is None):
        return False
    sized = False
    for segment in segments:
        if not segment:  # a path's leading ``/``
            continue
        pieces = _OPEN_MODEL_SEPARATOR.split(segment)
        if not all(_OPEN_MODEL_PIECE.fullmatch(piece) for piece in pieces):
            return False
        sized = sized or ("-" in segment and any(map(_OPEN_MODEL_SIZE.fullmatch, pieces)))
    return sized


DIGEST = re.compile(
    r"sha(?:1-[A-Za-z0-9+/]{27}=|256-[A-Za-z0-9+/]{43}=|384-[A-Za-z0-9+/]{64}"
    r"|512-[A-Za-z0-9+/]{86}==|256=[A-Za-z0-9_-]{43})"
)
"""A digest in base64 after its algorithm's name, of the digest's exact length: the
``integrity`` of a package in an npm or yarn lockfile, or of a script in a web page
(Subresource Integrity); a file's ``sha256=`` in base64url without padding, as a wheel's
``RECORD`` lists it. A file's hash, no secret."""
SSH_PUBLIC_FIELDS: dict[bytes, int] = {
    b"ssh-ed25519": 2,
    b"ssh-rsa": 3,
    b"ssh-dss": 5,
    b"ecdsa-sha2-nistp256": 3,
    b"ecdsa-sha2-nistp384": 3,
    b"ecdsa-sha2-nistp521": 3,
    b"sk-ssh-ed25519@openssh.com": 3,
    b"sk-ecdsa-sha2-nistp256@openssh.com": 4,
}
"""How many fields the public key of each SSH key type has, its type's name the first: a
private key in the same wire format (an ssh-agent's) has more."""


def ssh_public_key(value: str) -> bool:
    """Whether ``value`` is the base64 of an SSH public key (a line of ``authorized_keys``
    or ``known_hosts``, ``ssh-ed25519 AAAAC3Nza...``): length-prefixed fields that fill
    it exactly, as many as its key type's public key has. A public key, no secret."""
    if not value.startswith("AAAA"):
        return False
    try:
        blob = base64.b64decode(value, validate=True)
    except binascii.Error:
        return False
    at, fields = 0, []
    while at + 4 <= len(blob):
        size = int.from_bytes(blob[at : at + 4], "big")
        fields.append(blob[at + 4 : at + 4 + size])
        at += 4 + size
    return at == len(blob) and SSH_PUBLIC_FIELDS.get(fields[0] if fields else b"") == len(fields)


def known_safe(value: str) -> bool:
    """Whether ``value`` is one replaygate knows to be no secret (ids, placeholders, a
    digest of a file, a public key)."""
    return (
        value in KNOWN_SAFE_VALUES
        or STABLE_ID.fullmatch(value) is not None
        or _ID.fullmatch(value) is not None
        or _MODEL_ID.fullmatch(value) is not None
        or open_model_id(value)
        or DIGEST.fullmatch(value) is not None
        or ssh_public_key(value)
    )


def key_name(name: str) -> bool:
    """Whether ``name`` is ``key`` or ends in it as a word (``private_key``, ``access-key``,
    ``encryptionKey``), but for a key that names no credential (:data:`NOT_CREDENTIAL_KEYS`)."""
    match = KEY_NAME.search(name)
    if match is None or match.end() != len(name):
        return False
    before = name[: match.start()].strip("-_.").lower().replace("-", "_")
    return not any(before.endswith(word) for word in NOT_CREDENTIAL_KEYS)


def auth_like(field_name: str) -> bool:
    """Whether a field of this name holds credentials (``x-api-key``, ``session_token``,
    ``private_key``...)."""
    known = AUTH_LIKE_NAMES.get(field_name)
    if known is None:
        known = AUTH_LIKE_FIELD.search(field_name) is not None or key_name(field_name)
        if len(AUTH_LIKE_NAMES) < 4096:
            AUTH_LIKE_NAMES[field_name] = known
    return known


def context_secret(value: str) -> bool:
    """Whether a value in a credential context is secret-looking."""
    token = value.strip()
    return (
        len(token) >= CONTEXT_MIN_LENGTH
        and not any(c.isspace() for c in token)
        and not known_safe(token)
        and entropy(token) >= CONTEXT_BITS
        and FILE_PATH.fullmatch(token) is None
    )


def _odd(pieces: list[str], i: int, lower: bool) -> bool:
    """Whether ``pieces[i]`` of a segment (``lower``: in lower case) is unlike a piece of a
    name. A sign is; a word is not; an acronym is when longer than :data:`ACRONYM_MAX`.
    A single letter is but before a number at the start of the segment or as ``v``
    (``x509``, ``T2``, ``v1``), after a number at its end (``3d``, ``2D``), or in upper case
    before a word or after one at the end (``OAuth``, ``getX``). A number is when it
    follows a single letter not at the start (``ab1c2``), or comes before a lower-case word
    in a segment with upper case (``Ab2cd``; ``f2py`` is a name)."""
    piece = pieces[i]
    before = pieces[i - 1] if i else ""
    after = pieces[i + 1] if i + 1 < len(pieces) else ""
    if piece.isdigit():
        last_letter = len(after) == 1 and i + 2 == len(pieces)
        if after[:1].islower() and not (lower or last_letter):
            return True
        after_word = i >= 2 and before.isupper() and len(pieces[i - 2]) >= 2
        return not (i <= 1 or len(before) >= 2 or before in "vV" or after_word)
    if not piece.isalpha():
        return True
    if len(piece) == 1:
        if after.isdigit() and (i == 0 or piece in "vV" or piece.isupper()):
            return False
        if not after and before.isdigit():
            return False
        return piece.islower() or not (after[1:2].islower() or (not after and len(before) >= 2))
    return piece.isupper() and len(piece) > ACRONYM_MAX


def identifier(token: str) -> bool:
    """Whether a run of token characters reads as a name in code: a qualified name, a test
    id, a file path (``tests/test_llm/TestOpenAI.test_chat_completion_v1.yaml``).

    The run is split at ``.``, ``_``, ``/`` and ``-`` into segments, and each segment at
    letter case and digits into pieces. It is a name when no piece is odd (:func:`_odd`),
    its words (pieces of two letters or more, and single-letter segments) average at least
    :data:`WORD_MEAN` letters, at most :data:`SHOUTED_SHARE` of its letters are in
    acronyms, at most one distinct word lacks a vowel (``src``, ``http``), and its
    lower-case words hold at most :data:`RARE_PAIRS_MAX` pairs of letters outside
    :data:`PAIRS`. A random key's pieces are short and mixed (``x9kL2m``)."""
    letters = words = shouted = rare = 0
    unsounded: set[str] = set()
    for segment in _SEGMENT.findall(token):
        if _ONE_PIECE.fullmatch(segment):
            pieces = [segment]
        else:
            pieces = _PIECE.findall(segment)
            lower = segment.islower()
            if any(_odd(pieces, i, lower) for i in range(len(pieces))):
                return False
        for piece in pieces:
            if not piece.isalpha() or (len(piece) == 1 and len(pieces) > 1):
                continue
            letters += len(piece)
            words += 1
            if piece.isupper():
                shouted += len(piece)
                continue
            word = piece.lower()
            rare += sum(word[j : j + 2] not in PAIRS for j in range(len(word) - 1))
            if _VOWELS.isdisjoint(word):
                unsounded.add(word)
    return (
        words > 0
        and letters >= WORD_MEAN * words
        and shouted <= SHOUTED_SHARE * letters
        and len(unsounded) <= 1
        and rare <= RARE_PAIRS_MAX
    )


def _listed(part: str) -> bool:
    """Whether ``part`` of a run split at ``/`` reads as an entry of a list of names: a
    number, a single character, a word (:data:`_LISTED_WORD`) or a name (:func:`identifier`)."""
    return len(part) <= 1 or _LISTED_WORD.fullmatch(part) is not None or identifier(part)


def name_list(token: str) -> bool:
    """Whether a run of token characters is a list of at least :data:`LISTED_MIN` entries
    separated by ``/``, each a number, a single character or a word (:func:`_listed`): the
    glyph names of a PDF font's ``/Differences`` array
    (``65/A/B/C/.../Z/bracketleft/backslash``), where the single capitals pull the mean
    length of its words down. A key among them is not such an entry."""
    parts = token.split("/")
    return len(parts) >= LISTED_MIN and all(_listed(part) for part in parts)


def free_secret(token: str) -> bool:
    """Whether a free-standing run of token characters is secret-looking. The cheap checks
    come first: :func:`identifier` (about 20 µs a run) reads only a run that passes them."""
    chars = set(token)
    return (
        not chars.isdisjoint(string.digits)
        and not chars.isdisjoint(string.ascii_uppercase)
        and not chars.isdisjoint(string.ascii_lowercase)
        and _HEX.fullmatch(token) is None
        and not known_safe(token)
        and entropy(token) >= FREE_BITS
        and not identifier(token)
        and not name_list(token)
    )


def detect_context(
    text: str, field_name: str, encoded: bool = False, held: bool = False
) -> str | None:
    """The credential-context or entropy finding in ``text`` (under ``field_name``), or None.
    Encoded data (``encoded``: :func:`encoded_field`, :func:`is_encoded_path`) gets no
    free-standing check, nor does the base64 of a data URL (:data:`DATA_URL`) or of an
    image, audio or PDF file (:func:`file_run`) or of a vector of float32 numbers
    (:func:`vector_run`) anywhere in the text, nor, when ``held``
    (the caller reads its strings with their field names), the JSON held in it
    (:func:`~.secret_held.outside_held_json`).

    The OpenAI Agents SDK's prompt cache keys (:data:`SDK_CACHE_KEY`) are passed over: they
    name a run, group, session or conversation of the SDK's own, and read as a credential
    after ``session:``."""
    if field_name and auth_like(field_name) and context_secret(text):
        return CONTEXT
    if "agents-sdk:" in text:
        text = SDK_CACHE_KEY.sub(" ", text)
    if BASE64_TEXT.fullmatch(text) is None and (written := _written_context(text)) is not None:
        return written
    if encoded:
        return None
    free = DATA_URL_BASE64.sub(r"\1 ", text) if "base64," in text else text
    if not _free_token(free):
        return None
    kept = _without_files(free)  # a file's base64 in text, as a data URL's
    if kept != free and not _free_token(kept):  # the same text reads the same: not again
        return None
    free = kept
    if held:  # a token that stands in held JSON is read there, with its field's rules
        outside = outside_held_json(free)  # the text itself when it holds no JSON
        return FREE if outside is free or _free_token(outside) else None
    return FREE


def _written_context(text: str) -> str | None:
    """The finding of a credential name and its value (:data:`KEYWORD`, :data:`KEY_KEYWORD`)
    or of an auth scheme and a credential (:data:`AUTH_SCHEME`) written in ``text``, or None.

    The patterns are not run over the whole text, where Python's regular expressions try
    each character (seconds for megabytes of text): each is run only where a match of it
    would start (:func:`_matches`), the same matches as a search of the whole text."""
    keyword, key_keyword = _matches(KEYWORD, text), _matches(KEY_KEYWORD, text)
    if any(context_secret(m.group(1)) and not _code(text, m, 1) for m in keyword):
        return CONTEXT
    if any(
        key_name(m.group(1)) and context_secret(m.group(2)) and not _code(text, m, 2)
        for m in key_keyword
    ):
        return CONTEXT
    return next((name for _, name in scheme_credentials(text)), None)


_HEX_DIGITS = re.compile(r"[0-9a-fA-F]+")


_DOTTED_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")


def _code(text: str, match: re.Match[str], group: int) -> bool:
    """Whether the value of ``match`` (its ``group``) is a name in code (:func:`identifier`)
    called where it stands or reached through an attribute written as code names one, with
    an underscore, a capital inside a word or from ``self`` (``credential =
    DefaultAzureCredential()``, ``self.session = aiohttp.ClientSession(...)``,
    ``sessions = self.manifest.all_sessions``), or the name itself given on
    (``self.token_func = token_func``): source code a tool read, not a credential written.
    A random key reads as no name, and words joined by dots
    (``correct.horse.battery.staple``) are a passphrase."""
    value = match.group(group)
    named = _DOTTED_NAME.match(match.group())
    if named is not None and value in (named.group(), named.group().rpartition(".")[2]):
        return True  # the name given on as itself: self.token_func = token_func
    if _DOTTED_NAME.fullmatch(value) is None:
        return False
    if value.startswith(("self.", "cls.")):
        return True  # an attribute of the object at hand: self.password = self.dist.password
    called = text.startswith("(", match.end(group))
    attribute = "." in value and _CODE_NAME.search(value) is not None
    return (called or attribute) and identifier(value)


_CODE_NAME = re.compile(r"_|[a-z][A-Z]")
"""What names an attribute in code and no passphrase: an underscore, a capital inside a
word."""


def scheme_credentials(text: str) -> Iterator[tuple[re.Match[str], str]]:
    """Each auth scheme and credential written in ``text`` that counts as a secret (any
    after ``Bearer``; after another scheme, one holding a digit), with its finding. A
    hexadecimal value after ``digest`` is a hash the word names (``the SHA-256 digest
    9f86d0...``), which HTTP's Digest scheme never sends bare: no credential."""
    for match in _matches(AUTH_SCHEME, text):
        scheme, value = match.groups()
        scheme = scheme.lower()
        if scheme == "digest" and _HEX_DIGITS.fullmatch(value) is not None:
            continue
        if scheme == "bearer" or any(c.isdigit() for c in value):
            yield match, "bearer token" if scheme == "bearer" else SCHEME


_FOLDED_LETTERS = "\u0130\u0131\u017f\u212a"
"""The letters beyond ASCII a pattern ignoring case takes for ASCII ones."""
_SEPARATORS = tuple(
    re.compile(rf"{sign}(?=\s*{_QUOTE}{_VALUE[:-1]}{_FOLDED_LETTERS}]{{{CONTEXT_MIN_LENGTH}}})")
    for sign in "=:"
)
"""The ``=`` or ``:`` of each match of :data:`KEYWORD` and :data:`KEY_KEYWORD`: followed by
a value long enough, in their letters ignoring case too (a pattern starting with a literal
and not ignoring case is searched for at C speed)."""
_NAME_CHARS = string.ascii_letters + string.digits + "_.-"
_FOLDED_NAME_CHARS = _NAME_CHARS + _FOLDED_LETTERS
"""The name characters of a pattern ignoring case."""
_QUOTES = "\"'"
_SCHEMES = re.compile(r"(?:bearer|token|basic|digest|api-?key)(?=\s+[a-z0-9_\-.=+/~]{16})")
"""Where a match of :data:`AUTH_SCHEME` starts, in the text in lower case
(:func:`~.secret_prefilter.folded`)."""


_IGNORECASE = int(re.IGNORECASE)
"""The flag as a plain number: a flag operation on the enum costs microseconds."""


def _matches(pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """The matches of ``pattern`` (:data:`KEYWORD`, :data:`KEY_KEYWORD` or
    :data:`AUTH_SCHEME`) in ``text``, as ``pattern.finditer(text)`` gives them, tried only
    where one may start: the run of name characters before each separator
    (:data:`_SEPARATORS`), a quote and white space between (a match starts at a run's
    start, ends after its value, and the next is looked for from there); each scheme
    word followed by a credential (:data:`_SCHEMES`)."""
    if pattern is AUTH_SCHEME:
        lowered = folded(text)
        if lowered is None:
            yield from pattern.finditer(text)
            return
        starts: Iterable[int] = (m.start() for m in _SCHEMES.finditer(lowered))
    else:
        ignoring_case = bool(pattern.flags & _IGNORECASE)
        starts = _name_starts(text, _FOLDED_NAME_CHARS if ignoring_case else _NAME_CHARS)
    end = 0
    for start in starts:
        if start >= end and (match := pattern.match(text, start)) is not None:
            end = match.end()
            yield match


def _name_starts(text: str, name_chars: str) -> Iterator[int]:
    """In order, the start of the run of ``name_chars`` before each separator with a long
    enough value after it (the quote, escaped or not, and white space between passed over)."""
    found = [m.start() for separator in _SEPARATORS for m in separator.finditer(text)]
    for at in sorted(found):
        name_end = _run_start(text, at, None)
        if name_end > 0 and text[name_end - 1] in _QUOTES:
            name_end -= 1
            while name_end > 0 and text[name_end - 1] == "\\":  # its escapes
                name_end -= 1
        start = _run_start(text, name_end, name_chars)
        if start < name_end:
            yield start


def _run_start(text: str, end: int, chars: str | None) -> int:
    """Where the run of ``chars`` (white space when None) ending at ``end`` starts."""
    width = 64
    while True:
        start = max(0, end - width)
        kept = len(text[start:end].rstrip(chars))
        if kept or start == 0:
            return start + kept
        width *= 8


GO_MODULE_HASH = re.compile(r"[A-Za-z0-9+/]{43}=")
"""The base64 of a SHA-256 digest, as a line of ``go.sum`` writes it after ``h1:``."""


def _go_module_hash(text: str, start: int, end: int) -> bool:
    """Whether the run of ``text`` from ``start`` to ``end`` is a Go module's hash
    (``golang.org/x/net v0.17.0 h1:...=`` in ``go.sum``): a file's digest, no secret."""
    return (
        text.startswith("h1:", start - 3) and GO_MODULE_HASH.fullmatch(text, start, end) is not None
    )


def _link(text: str, start: int, end: int) -> bool:
    """Whether the run of ``text`` from ``start`` to ``end`` is a URL's host and path (it
    follows the ``:`` of ``https://``) or a file's path (:data:`FILE_PATH`) none of whose
    parts between slashes is a free-standing secret on its own: a link to a license, a
    changelog or an advisory (``//www.apache.org/licenses/LICENSE-2.0``), a license file
    a package's metadata names (``src/pip/_vendor/urllib3/LICENSE.txt``), whose words
    joined by slashes are long and mixed as a key is. A key in such a part (a file named
    after one), or in the query, is still one."""
    run = text[start:end]
    url = start > 0 and text[start - 1] == ":" and run.startswith("//")
    if not url and FILE_PATH.fullmatch(run) is None:
        return False
    parts = run.split("/")
    return not any(len(part) >= FREE_MIN_LENGTH and _free_run_secret(part) for part in parts)


def _free_token(text: str) -> bool:
    spans = text_spans(text, FREE_RUN, _FREE_TABLE, FREE_MIN_LENGTH)
    return any(
        _free_run_secret(text[start:end])
        and not _go_module_hash(text, start, end)
        and not _link(text, start, end)
        for start, end in spans
    )


def _free_run_secret(run: str) -> bool:
    """:func:`free_secret` of a run, judged again without the provider ids that stand in
    it as whole tokens (:data:`_ID_TOKEN`): each piece around them on its own, as an id
    alone is :func:`known_safe`."""
    if not free_secret(run):
        return False
    pieces = _ID_TOKEN.split(run)
    return len(pieces) == 1 or any(
        len(piece) >= FREE_MIN_LENGTH and free_secret(piece) for piece in pieces
    )


def may_have_auth_like_field(data: bytes) -> bool:
    """False only when no object of serialized JSON ``data`` has a string or a list under an
    auth-like name (a superset: any name holding one of the words, any list counts), and no
    string holds a credential named by a table or markup (:mod:`.secret_tables`): a word
    followed in its string by a delimiter of cells (a table's last row, ``password,...``;
    a line break, written ``\\n``, counts as a backslash) or a tag holding a word
    (:data:`TAG_SOURCE`).

    The backslashes that escape the quote closing a name of JSON held as text
    (``\\"input_tokens\\":15``, in every event of an Anthropic stream) count only when that
    name's value may be a string or a list (:func:`_held_scalar_name`): a number, ``null``,
    ``true``, ``false`` or an object under a name is read for no credential, in held JSON
    as in the value itself, and no table's cell ends in ``":``."""
    lowered = data.lower()
    if _LESS_THAN in data and _TAG.search(lowered):
        return True
    for word in FIELD_WORDS:
        at = lowered.find(word)
        while at >= 0:
            end = lowered.find(b'"', at)
            if end < 0:
                break
            after = lowered[at:end]
            if (
                (_BACKSLASH in after and not _held_scalar_name(lowered, after, end))
                or lowered[end : end + 3] in (b'":"', b'":[')
                or _COMMA in after
                or _SEMICOLON in after
                or _PIPE in after
            ):
                return True
            at = lowered.find(word, end)
    return False


_SCALAR_STARTS = frozenset(b"0123456789-ntf{")
"""The first byte of a JSON value that is no string and no list (lower case)."""


def _held_scalar_name(lowered: bytes, after: bytes, end: int) -> bool:
    """Whether ``after`` (a field word and what follows it up to the quote at ``end`` of
    ``lowered``) is the end of a name of JSON held as text whose value is no string and no
    list: its only backslashes escape that quote, and the quote is followed by ``:`` and
    the first byte of a number, ``null``, ``true``, ``false`` or an object."""
    return (
        _BACKSLASH not in after.rstrip(b"\\")
        and lowered[end + 1 : end + 2] == b":"
        and end + 2 < len(lowered)
        and lowered[end + 2] in _SCALAR_STARTS
    )


def may_detect_context(runs: Runs) -> bool:
    """False only when no string of a serialized fixture has a context or entropy finding.

    Field names are checked by the caller; this covers credentials written in text
    and free-standing tokens (a superset: data fields are not told apart here).
    """
    data = runs.data
    for start, end in runs.spans:
        run = data[start:end]
        if (_EQUALS in run or _COLON in run) and _NAMED.search(run.lower()):
            return True
        if not at_string_start(data, start) and _BEFORE.search(
            data[max(0, start - _WINDOW) : start].lower()
        ):
            return True
    # A free-standing token mixes upper and lower case: a run written in one case holds none.
    return any(
        free_secret(part.decode())
        for run in runs.texts(FREE_MIN_LENGTH)
        if not (run.islower() or run.isupper())
        for part in FREE_PART.findall(run)
        if len(part) >= FREE_MIN_LENGTH
    )
