"""Structure, containment, sets, citations and checks: pass and fail paths, messages."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pydantic
import pytest

from replaygate import RecordingModel
from replaygate.assertions import (
    Check,
    Judge,
    Outcome,
    assert_contains,
    assert_json,
    assert_set,
    assert_structure,
    citations_check,
    contains_check,
    extract_citations,
    measure_contains,
    measure_set,
    measure_structure,
    set_check,
    structure_check,
)
from replaygate.assertions.contains import ContainsResult

SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["summary", "items", "citations"],
    "properties": {
        "summary": {"type": "string"},
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["entity"],
                "properties": {"entity": {"type": "string"}},
            },
        },
        "citations": {"type": "array", "items": {"type": "string"}},
        "kind": {"enum": ["refund", "chargeback"]},
    },
}


class Item(pydantic.BaseModel):
    entity: str
    count: int


class Report(pydantic.BaseModel):
    summary: str
    items: list[Item]


# -- structure -----------------------------------------------------------------------


def test_structure_passes_and_returns_the_payload() -> None:
    payload = {"summary": "s", "items": [{"entity": "a"}], "citations": ["doc-a"]}
    assert assert_structure(payload, SCHEMA) is payload


def test_structure_lists_every_failing_path_sorted() -> None:
    payload = {
        "items": [{"entity": 1}, {}, "x", {"entity": "ok"}, {}, {}, {}, {}, {}, {}, {"entity": 2}],
        "citations": "doc-a",
        "kind": "other",
    }
    with pytest.raises(AssertionError) as err:
        assert_structure(payload, SCHEMA)
    lines = str(err.value).splitlines()
    assert lines[0] == "payload does not match the schema: 13 failing path(s):"
    assert lines[1:4] == [
        "  $: 'summary' is a required property",
        "  $.citations: 'doc-a' is not of type 'array'",
        "  $.items[0].entity: 1 is not of type 'string'",
    ]
    assert lines[4] == "  $.items[1]: 'entity' is a required property"
    assert lines[-3:] == [
        "  $.items[9]: 'entity' is a required property",
        "  $.items[10].entity: 2 is not of type 'string'",
        "  $.kind: 'other' is not one of ['refund', 'chargeback']",
    ]


def test_structure_with_odd_keys_renders_them_quoted() -> None:
    schema = {"type": "object", "properties": {"a b": {"type": "integer"}}}
    with pytest.raises(AssertionError, match=r"\$\['a b'\]: 'x' is not of type 'integer'"):
        assert_structure({"a b": "x"}, schema)


def test_a_structure_failure_naming_two_texts_that_print_alike_writes_them_out() -> None:
    # '❤️' is not one of ['❤']: the two print alike, and nothing said how they differ
    schema = {
        "type": "object",
        "required": ["caf\u00e9"],
        "properties": {"mood": {"enum": ["\u2764"]}},
    }
    with pytest.raises(AssertionError) as err:
        assert_structure({"cafe\u0301": 1, "mood": "\u2764\ufe0f"}, schema)
    assert str(err.value).splitlines()[1:] == [
        "  $: 'caf\u00e9' is a required property (the payload's 'cafe\u0301' is cafe\\u0301, "
        "NFD; the schema's 'caf\u00e9' is caf\\u00e9, NFC)",
        "  $.mood: '\u2764\ufe0f' is not one of ['\u2764'] (the payload's '\u2764\ufe0f' is "
        "\\u2764\\ufe0f, NFC; the schema's '\u2764' is \\u2764, NFC)",
    ]


def test_structure_with_pydantic_returns_the_model_and_lists_every_loc() -> None:
    report = assert_structure({"summary": "s", "items": [{"entity": "a", "count": 1}]}, Report)
    assert isinstance(report, Report) and report.items[0].count == 1
    with pytest.raises(AssertionError) as err:
        assert_structure({"items": [{"entity": 3, "count": "many"}, {}]}, Report)
    assert str(err.value).splitlines()[1:] == [
        "  $.items[0].count: Input should be a valid integer",
        "  $.items[0].entity: Input should be a valid string",
        "  $.items[1].count: Field required",
        "  $.items[1].entity: Field required",
        "  $.summary: Field required",
    ]


class Scores(pydantic.BaseModel):
    score: float
    scores: list[float]
    bounded: float = pydantic.Field(default=1.0, le=5)


def test_structure_with_pydantic_fails_nan_and_infinities_at_their_path() -> None:
    payload = json.loads('{"score": NaN, "scores": [Infinity, 1.5, -Infinity], "bounded": NaN}')
    with pytest.raises(AssertionError) as err:
        assert_structure(payload, Scores)
    assert str(err.value).splitlines()[1:] == [
        "  $.bounded: Input should be less than or equal to 5",
        "  $.score: nan is not a number JSON can hold",
        "  $.scores[0]: inf is not a number JSON can hold",
        "  $.scores[2]: -inf is not a number JSON can hold",
    ]
    result = structure_check(Scores, kind="gate").evaluate(payload)
    assert (result.passed, result.score) == (False, 0.0)


def test_structure_refuses_a_payload_that_holds_itself_naming_where() -> None:
    looped: dict[str, object] = {"items": []}
    looped["items"].append({"parent": looped})  # type: ignore[attr-defined]
    for schema in ({"type": "object"}, Report):
        with pytest.raises(
            ValueError, match=r"the payload refers to itself: \$\.items\[0\]\.parent is \$,"
        ):
            assert_structure(looped, schema)
    shared = [1.0]  # one list held twice is no loop
    assert assert_structure({"a": shared, "b": shared}, {"type": "object"}) == {
        "a": shared,
        "b": shared,
    }


def test_structure_refuses_an_invalid_schema_and_a_non_schema() -> None:
    with pytest.raises(ValueError, match=r"invalid JSON Schema at \$.type: 'strin' is not valid"):
        assert_structure({}, {"type": "strin"})
    with pytest.raises(
        TypeError, match="JSON Schema mapping or a pydantic model class, got <class 'int'>"
    ):
        assert_structure({}, int)


@pytest.mark.parametrize("text", ["not json at all", '{"a": 1}'])
def test_an_invalid_schema_is_refused_before_any_output_is_read(text: str) -> None:
    # refused only once the output parsed: a text that was no JSON failed the check, and
    # a gate built on the schema blocked every sample
    invalid = r"invalid JSON Schema at \$.type: 'nope' is not valid"
    with pytest.raises(ValueError, match=invalid):
        assert_json(text, {"type": "nope"})
    with pytest.raises(ValueError, match=invalid):
        structure_check({"type": "nope"}, kind="gate", from_json=True)


def test_assert_json_parses_text_first() -> None:
    assert assert_json('{"summary": "s", "items": [], "citations": []}', SCHEMA)["summary"] == "s"
    with pytest.raises(
        AssertionError, match="output is not valid JSON: Expecting value at line 1, column 1"
    ):
        assert_json("Sure! Here is the JSON:", SCHEMA)
    with pytest.raises(  # an answer cut off by max_tokens
        AssertionError,
        match=r"output is not valid JSON: Unterminated string starting at line 1, column 13$",
    ):
        assert_json('{"summary": "RAG answers', SCHEMA)
    with pytest.raises(AssertionError, match=r"column 1 \(the text is in a Markdown code fence"):
        assert_json('```json\n{"summary": "s", "items": [], "citations": []}\n```', SCHEMA)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"score": NaN}', "NaN is not a number JSON can hold"),
        ("[Infinity]", "Infinity is not a number JSON can hold"),
        ('{"score": 1e999}', "1e999 is beyond the range of a number"),
        ('{"n": ' + "9" * 5000 + "}", "an integer of 5,000 digits"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ],
)
def test_assert_json_fails_what_is_not_json_or_cannot_be_checked(text: str, message: str) -> None:
    # NaN would pass {"type": "number"} though no JSON reader elsewhere accepts it
    with pytest.raises(AssertionError, match=f"output is not JSON that can be checked: {message}"):
        assert_json(text, {"type": ["object", "array"]})
    assert not structure_check({}, kind="gate", from_json=True).evaluate(text).passed


# -- containment ---------------------------------------------------------------------


def test_contains_passes_with_case_folding_and_width_folding() -> None:
    result = assert_contains(
        "ＲＡＧ retrieves  from an External\ncorpus", ["rag", "external corpus"]
    )
    assert result.found == {"rag": "rag", "external corpus": "external corpus"}
    assert result.score == 1.0


def test_contains_aliases_count_for_the_piece() -> None:
    text = "检索增强生成先检索再生成。"
    result = assert_contains(
        text, ["RAG"], aliases={"RAG": ["检索增强生成", "retrieval-augmented generation"]}
    )
    assert result.found == {"RAG": "检索增强生成"}


def test_contains_names_what_is_missing_with_its_aliases() -> None:
    with pytest.raises(AssertionError) as err:
        assert_contains(
            "It searches the corpus.",
            ["RAG", "corpus", "context"],
            aliases={"RAG": ["检索增强生成", "retrieval-augmented generation"]},
        )
    assert str(err.value) == (
        "text is missing 2 of 3 required piece(s): 'RAG' (or aliases '检索增强生成', "
        "'retrieval-augmented generation'), 'context'; text: 'It searches the corpus.'"
    )


def test_contains_can_respect_case() -> None:
    assert measure_contains("rag", ["RAG"]).passed
    result = measure_contains("rag", ["RAG"], ignore_case=False)
    assert (result.passed, result.missing, result.score) == (False, ("RAG",), 0.0)


@pytest.mark.parametrize(
    ("text", "piece", "anywhere", "whole"),
    [
        ("Data storage is cheap.", "RAG", True, False),  # inside a word: found only anywhere
        ("RAG, then an answer.", "RAG", True, True),
        ("It uses rag.", "RAG", True, True),
        ("retrieval first", "retriev", True, False),  # a stem runs on into the word
        ("I write C++, mostly.", "C++", True, True),  # ends in no letter: nothing to run on
        ("see gpt-4o-mini", "gpt-4o", True, True),  # a hyphen ends a word, as regex's \b
        ("a storage RAG pipeline", "RAG", True, True),  # a later whole word counts
        ("检索增强生成先检索", "检索", True, False),  # a script without spaces: leave it off
    ],
)
def test_contains_whole_words_finds_a_piece_no_letter_runs_on_from(
    text: str, piece: str, anywhere: bool, whole: bool
) -> None:
    assert measure_contains(text, [piece]).passed is anywhere
    assert measure_contains(text, [piece], whole_words=True).passed is whole
    check = contains_check([piece], kind="gate", whole_words=True)
    measured = check.fn(text)
    assert isinstance(measured, ContainsResult) and measured.passed is whole


def test_contains_whole_words_takes_an_alias_as_a_whole_word_and_must_be_a_bool() -> None:
    aliases = {"RAG": ["retrieval-augmented generation"]}
    text = "Retrieval-augmented generation over storage."
    assert assert_contains(text, ["RAG"], aliases=aliases, whole_words=True).found == {
        "RAG": "retrieval-augmented generation"
    }
    with pytest.raises(TypeError, match="whole_words must be True or False, got 'yes'"):
        measure_contains(text, ["RAG"], whole_words="yes")  # type: ignore[arg-type]


def test_contains_refuses_aliases_for_pieces_not_required_and_a_bare_string() -> None:
    with pytest.raises(ValueError, match="aliases given for 'RGA', which is not required"):
        measure_contains("x", ["RAG"], aliases={"RGA": ["x"]})
    with pytest.raises(TypeError, match="not one string"):
        measure_contains("x", "RAG")


@pytest.mark.parametrize(
    ("required", "aliases"),
    [([], None), ([""], None), (["  \u3000"], None), (["RAG"], {"RAG": [" "]})],
)
def test_contains_refuses_what_every_text_contains(
    required: list[str], aliases: dict[str, list[str]] | None
) -> None:
    # an empty requirement would pass every text: a gate that never fails
    with pytest.raises(ValueError, match="every text would"):
        contains_check(required, kind="gate", aliases=aliases)
    with pytest.raises(ValueError, match="every text would"):
        assert_contains("anything", required, aliases=aliases)


def test_contains_and_sets_name_a_wrong_type_of_argument() -> None:
    with pytest.raises(TypeError, match="the text to search must be a string, got NoneType"):
        assert_contains(None, ["RAG"])  # type: ignore[arg-type]
    # a bare string would be read as a set of its characters
    with pytest.raises(TypeError, match="not one string: 'doc-rag'"):
        citations_check("doc-rag", kind="gate")


@pytest.mark.parametrize("output", [None, 5, {"text": "[doc-a]"}])
def test_citations_and_json_name_an_output_that_is_no_text(output: object) -> None:
    # a model turn holding only tool calls has no text: None
    kind = type(output).__name__
    with pytest.raises(
        TypeError, match=f"text to search for citations must be a string, got {kind}"
    ):
        extract_citations(output)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=f"for citations must be a string, got {kind}"):
        citations_check({"doc-a"}, kind="gate").evaluate(output)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=f"the output to parse as JSON must be text, got {kind}"):
        assert_json(output, {"type": "object"})  # type: ignore[arg-type]


def test_contains_previews_a_long_text() -> None:
    with pytest.raises(AssertionError, match=r"text: 'aaaa.*\.\.\.'$"):
        assert_contains("a" * 500, ["b"])


# -- sets ----------------------------------------------------------------------------


def test_set_passes_on_full_recall_and_ignores_extras_by_default() -> None:
    result = assert_set(["doc-a", "doc-b", "doc-b", "doc-x"], {"doc-a", "doc-b"})
    assert (result.recall, result.precision, result.extra) == (1.0, 2 / 3, ["doc-x"])


def test_set_reports_missing_and_extra_with_recall_and_precision() -> None:
    with pytest.raises(AssertionError) as err:
        assert_set(["doc-a", "doc-x"], ["doc-a", "doc-b"], min_recall=0.8, min_precision=0.9)
    assert str(err.value) == (
        "recall 0.50 < min_recall 0.80; precision 0.50 < min_precision 0.90 "
        "(recall 0.50, precision 0.50); missing: ['doc-b']; extra: ['doc-x']"
    )


def test_set_items_extracted_with_numpy_are_reported_as_python_values() -> None:
    numpy = pytest.importorskip("numpy")
    with pytest.raises(AssertionError) as err:
        assert_set(numpy.array(["doc-a", "doc-x"]), numpy.array(["doc-a", "doc-b"]))
    assert str(err.value).endswith("missing: ['doc-b']; extra: ['doc-x']")
    assert assert_set(numpy.array([3, 1]), {1}).extra == [3]


@pytest.mark.parametrize(
    ("got", "expected", "minimum", "said"),
    [
        (["a", "b"], {"a", "b", "c"}, 0.6667, "recall 0.66667 < min_recall 0.66670"),
        (
            [str(i) for i in range(199)],
            {str(i) for i in range(200)},
            0.996,
            "recall 0.995 < min_recall 0.996",
        ),
    ],
    ids=["two roundings alike", "a minimum of three decimals"],
)
def test_a_failed_minimum_is_told_apart_from_the_rate_and_as_given(
    got: list[str], expected: set[str], minimum: float, said: str
) -> None:
    # "recall 0.67 < min_recall 0.67", and 0.996 shown as "1.00"
    with pytest.raises(AssertionError) as err:
        assert_set(got, expected, min_recall=minimum)
    assert str(err.value).startswith(f"{said} (")


def test_set_items_written_in_two_unicode_forms_are_one_item() -> None:
    result = assert_set(["cafe\u0301", "ＲＡＧ", 3], {"café", "RAG", 3}, min_precision=1.0)
    assert (result.recall, result.precision) == (1.0, 1.0)


def test_text_in_a_tuple_item_is_folded_and_a_bool_is_not_the_number_it_equals() -> None:
    # (entity, kind) pairs: 'cafe\u0301' was a missing and an extra item that read alike;
    # and Python's sets take True for 1, so a flag extracted where an id was due passed
    pairs = assert_set(
        [("cafe\u0301", "place"), ("ＲＡＧ", "method")], {("café", "place"), ("RAG", "method")}
    )
    assert pairs.recall == 1.0
    with pytest.raises(AssertionError, match=r"missing: \[0, 1\]; extra: \[False, True\]"):
        assert_set([True, False], {0, 1})
    with pytest.raises(AssertionError, match=r"missing: \[\('a', 1\)\]; extra: \[\('a', True\)\]"):
        assert_set([("a", True)], {("a", 1)})
    assert assert_set([True, 1.0], [True, 1]).extra == []


@pytest.mark.parametrize("unseen", ["\u00ad", "\u034f", "\u180e", "\u2061", "\u3164", "\U000e0101"])
def test_a_default_ignorable_character_is_drawn_as_nothing_and_dropped(unseen: str) -> None:
    # a soft hyphen copied from a page (retrie\u00adval) failed 'retrieval', and a combining
    # grapheme joiner or a Hangul filler failed it with a message whose text read alike
    answer = f"RAG retrie{unseen}val first [doc{unseen}-rag]."
    assert assert_contains(answer, ["retrieval"]).passed
    assert extract_citations(answer) == ("doc-rag",)
    assert assert_set([f"doc{unseen}-rag"], {"doc-rag"}).recall == 1.0
    # the tags of a flag's emoji sequence still tell England's flag from Scotland's
    england, scotland = (
        "\U0001f3f4" + "".join(chr(0xE0000 + ord(c)) for c in f"gb{n}\x7f") for n in ("eng", "sct")
    )
    assert not measure_set([england], [scotland]).passed


def test_an_alias_list_keyed_by_its_piece_in_another_unicode_form_is_the_piece_s() -> None:
    # refused as "aliases given for 'café', which is not required", naming a piece that
    # read as the one required
    aliases = {"cafe\u0301": ["coffee"]}
    assert assert_contains("Black coffee.", ["caf\u00e9"], aliases=aliases).found == {
        "café": "coffee"
    }
    with pytest.raises(AssertionError, match=r"'café' \(or aliases 'coffee'\)"):
        assert_contains("Tea.", ["caf\u00e9"], aliases=aliases)
    with pytest.raises(ValueError, match="aliases given for 'cafe', which is not required"):
        assert_contains("Tea.", ["caf\u00e9"], aliases={"cafe": ["coffee"]})


def test_a_long_failing_value_is_cut_in_the_message_and_said_by_its_size() -> None:
    # a 100,000-character answer failing maxLength wrote itself whole into the message
    schema = {"type": "object", "properties": {"s": {"maxLength": 10}, "n": {"maxItems": 1}}}
    message = measure_structure({"s": "x" * 100_000, "n": list(range(999))}, schema).message
    assert len(message) < 700
    assert "$.s: '" + "x" * 196 + "... (a string of 100,000 characters) is too long" in message
    assert "... (an array of 999 items) is too long" in message
    short = measure_structure({"s": "x" * 11}, schema).message
    assert f"$.s: '{'x' * 11}' is too long" in short


def test_a_bracket_that_never_closes_is_searched_in_linear_time() -> None:
    # an answer's 200,000-character "[a.a.a..." took seconds per search (each sample, each
    # check), backtracking over every way to split the run into an id and what follows
    started = time.perf_counter()
    assert extract_citations("[a" + ".a" * 100_000) == ()
    assert extract_citations("[doc-" + "a-" * 100_000 + " see [doc-rag]") == ("doc-rag",)
    assert time.perf_counter() - started < 0.5
    assert extract_citations("[a.b] [a.] [a--b] [x:y/z, a.]") == ("a.b", "a--b")


def test_superscripts_and_subscripts_keep_what_an_item_or_a_piece_says() -> None:
    # NFKC writes 10⁶ (a million) as 106: the set and the text passed against another number
    with pytest.raises(AssertionError, match="missing: \\['10⁶', 'x₂'\\]"):
        assert_set(["106", "x2", "ﬁle"], ["10⁶", "x₂", "file"])
    with pytest.raises(AssertionError, match="missing 1 of 1"):
        assert_contains("We reached 106 users", ["10⁶"])


def test_an_emoji_with_or_without_its_presentation_selector_is_one_text() -> None:
    # ❤️ is ❤ and U+FE0F: a set reported them as a missing and an extra item that read alike
    assert assert_set(["\u2764\ufe0f", "\u2714"], {"\u2764", "\u2714\ufe0f"}).recall == 1.0
    assert_contains("Love it \u2764", ["it \u2764\ufe0f"])
    with pytest.raises(ValueError, match="every text would"):
        assert_contains("anything", ["\ufe0f"])


def test_typographic_hyphens_quotes_and_apostrophes_are_the_ascii_ones() -> None:
    # a model's retrieval‑augmented (U+2011) and don’t failed must_contain terms typed in
    # ASCII, the error showing a text that read as holding them
    answer = "RAG is retrieval\u2011augmented generation; don\u2019t skip the \u201ccontext\u201d."
    assert_contains(answer, ["retrieval-augmented generation", "don't", '"context"'])
    assert_contains("it's retrieval-augmented", ["it\u2019s retrieval\u2010augmented"])
    assert assert_set(["\u2018doc\u2011a\u2019"], {"'doc-a'"}).recall == 1.0
    with pytest.raises(AssertionError, match="missing 1 of 1"):
        assert_contains("ranges 1\u20135", ["1-5"])  # an en dash is no hyphen


def test_set_min_recall_below_one_tolerates_a_miss() -> None:
    assert assert_set(["a", "b", "c"], ["a", "b", "c", "d"], min_recall=0.75).recall == 0.75
    with pytest.raises(AssertionError, match=r"^precision 0.50 < min_precision 1.00"):
        assert_set(["a", "z"], ["a"], min_precision=1.0)


def test_set_edge_cases_and_argument_errors() -> None:
    assert measure_set([], [], min_precision=1.0).passed  # nothing expected, nothing extra
    assert measure_set([], ["a"]).precision == 1.0
    with pytest.raises(ValueError, match=r"min_recall must be between 0 and 1, got 1.5"):
        measure_set([], ["a"], min_recall=1.5)
    with pytest.raises(ValueError, match=r"got 80 \(a rate, not a percent: 0.8 for 80%\)"):
        assert_set(["a"], ["a"], min_recall=80)
    for odd in ("0.5", True):  # "0.5" raised a comparison TypeError naming no argument
        with pytest.raises(
            TypeError, match=f"min_recall must be a number between 0 and 1, got {odd!r}"
        ):
            measure_set([], ["a"], min_recall=odd)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not strings"):
        measure_set("abc", ["a"])


# -- citations -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "ids"),
    [
        ("RAG retrieves first [doc-rag].", ("doc-rag",)),
        ("Two [doc-a, doc-b] and again [doc-a; doc-c].", ("doc-a", "doc-b", "doc-c")),
        ("Full width ［doc-rag］ counts.", ("doc-rag",)),
        (
            "Versions [api-v1.2] and paths [notes/rag.md] and [1].",
            ("api-v1.2", "notes/rag.md", "1"),
        ),
        ("A [link](https://x.y) and [see above] and [] and [-x] are not.", ()),
        ("Trailing dot inside [doc-a.] is not an id.", ()),
        ("Spaced [doc-a ,doc-b] and [doc-c ;\ndoc-d].", ("doc-a", "doc-b", "doc-c", "doc-d")),
        ("Code:\n```python\nx = items[0]\n```\nthen `d[key]` [doc-rag].", ("doc-rag",)),
        ("  ~~~~\na[1]\n~~~\nb[2]\n  ~~~~\n[doc-a] ``c[3]`` [doc-b]", ("doc-a", "doc-b")),
        ("Unclosed fence [doc-a]\n```\nx[0]\n[doc-b]", ("doc-a",)),
        ("A lone ` tick\n\n[doc-a] and ``` mid-line [doc-b]", ("doc-a", "doc-b")),
        ("Steps:\n- [x] fetched [doc-a]\n1. [X] read\n- [ ] cite\nsee [x]", ("doc-a", "x")),
        ("Non-breaking hyphens [doc\u2011rag; doc\u2010a]", ("doc-rag", "doc-a")),
    ],
)
def test_extract_citations(text: str, ids: tuple[str, ...]) -> None:
    assert extract_citations(text) == ids


@pytest.mark.parametrize("doc_id", ["doc-cafe\u0301", "\uff44\uff4f\uff43-a", "doc-\ufb01le"])
def test_an_expected_id_is_normalized_as_the_cited_ones(doc_id: str) -> None:
    # NFD (as macOS file names are written), full width, a ligature: cited byte for byte
    outcome = citations_check({doc_id}, kind="gate", min_precision=1.0).evaluate(f"see [{doc_id}]")
    assert (outcome.passed, outcome.message) == (
        True,
        "set matches (recall 1.00, precision 1.00); missing: []; extra: []",
    )


# -- checks: gates and signals --------------------------------------------------------


def test_a_failing_signal_is_recorded_and_does_not_block() -> None:
    signal = contains_check(["context"], kind="signal")
    outcome = signal.evaluate("no such word")
    assert outcome == Outcome(
        "contains",
        "signal",
        False,
        "text is missing 1 of 1 required piece(s): 'context'; text: 'no such word'",
        0.0,
        "contains",
    )
    assert not outcome.blocks


def test_a_failing_gate_blocks() -> None:
    gate = citations_check(["doc-rag"], kind="gate")
    outcome = gate.evaluate("no citation")
    assert outcome.blocks and outcome.score == 0.0 and outcome.category == "set"
    assert gate.evaluate("cited [doc-rag]").passed


def test_custom_checks_raise_or_return() -> None:
    def short(text: str) -> None:
        assert len(text) < 5, f"too long: {len(text)} chars"

    check: Check[str] = Check("short", "gate", short)
    assert check.evaluate("abc").passed
    failed = check.evaluate("abcdefgh")
    assert (failed.passed, failed.category) == (False, "custom")
    assert failed.message.startswith("too long: 8 chars")


def test_a_broken_check_propagates() -> None:
    def broken(text: str) -> None:
        raise KeyError("oops")

    with pytest.raises(KeyError):
        Check("broken", "gate", broken).evaluate("x")


@pytest.mark.parametrize("returned", [True, False, 0, "ok"])
def test_a_check_returning_no_measure_is_an_error_naming_it(returned: object) -> None:
    # a predicate's bool is the usual slip: it must raise AssertionError or return a measure
    with pytest.raises(
        TypeError,
        match=rf"check 'short': fn must return a measure .* or raise AssertionError to fail; "
        rf"got {type(returned).__name__}",
    ):
        Check("short", "gate", lambda text: returned).evaluate("x")


def test_a_check_wrapping_assert_json_says_what_to_use_instead() -> None:
    # assert_json returns the payload it validated: the check refused every sample that
    # passed it, naming no way out
    shape = Check("shape", "gate", lambda text: assert_json(text, {"type": "object"}))
    with pytest.raises(
        TypeError,
        match=r"got dict \{'a': 1\} \(a value given back after the "
        r"check passed: .*structure_check\(schema, kind=..., from_json=True\)",
    ):
        shape.evaluate('{"a": 1}')
    assert not shape.evaluate("[1]").passed
    with pytest.raises(TypeError, match=r"got bool False \(a predicate: write assert"):
        Check("short", "gate", lambda text: len(text) < 2).evaluate("xyz")


def test_check_declarations_are_validated() -> None:
    with pytest.raises(ValueError, match="kind must be 'gate' or 'signal', got 'hard'"):
        Check("x", "hard", lambda v: None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="non-empty name"):
        Check("", "gate", lambda v: None)
    with pytest.raises(ValueError, match="non-empty name, one not only spaces: got '  '"):
        Check("  ", "gate", lambda v: None)  # refused only as the results file was written
    with pytest.raises(ValueError, match="half of a surrogate pair"):
        Check("a\ud800", "gate", lambda v: None)
    with pytest.raises(ValueError, match="category must be one of"):
        Check("x", "gate", lambda v: None, "vibes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="which is not required"):
        contains_check(["a"], kind="gate", aliases={"b": ["c"]})
    with pytest.raises(ValueError, match="min_precision must be between 0 and 1"):
        set_check(["a"], kind="gate", extract=list, min_precision=2.0)


def test_structure_check_from_json_fails_on_non_json() -> None:
    outcome = structure_check(SCHEMA, kind="gate", from_json=True).evaluate("not json")
    assert (outcome.passed, outcome.category) == (False, "structure")
    assert outcome.message.startswith("output is not valid JSON")


def test_a_structure_failure_on_text_holding_json_says_to_parse_it() -> None:
    # model text is a string to a schema: every sample failed with only "is not of type
    # 'object'", and nothing said that the text was never parsed
    text = '{"summary": "RAG retrieves [doc-rag]."}'
    schema = {"type": "object", "required": ["summary"]}
    message = structure_check(schema, kind="gate").evaluate(text).message
    assert message.splitlines() == [
        "payload does not match the schema: 1 failing path(s):",
        """  $: '{"summary": "RAG retrieves [doc-rag]."}' is not of type 'object'""",
        "  the payload is text holding JSON (an object), and was checked as a string, not as "
        "the JSON it holds: pass from_json=True to structure_check to parse it first",
    ]
    assert structure_check(schema, kind="gate", from_json=True).evaluate(text).passed
    with pytest.raises(AssertionError, match=r"\(a number\), .*: use assert_json\(text, schema\)"):
        assert_structure("5", {"type": "integer"})
    # text that is no JSON fails as it is; a failure of parsed JSON names no text
    assert "payload is" not in structure_check(schema, kind="gate").evaluate("RAG").message
    with pytest.raises(AssertionError) as err:
        assert_json('"{\\"a\\": 1}"', schema)  # JSON text of a string that holds JSON
    assert "payload is" not in str(err.value)


def test_outcome_round_trips_through_json() -> None:
    outcome = Outcome("c", "signal", True, "fine", 0.5, "judge")
    assert Outcome.from_json(outcome.to_json()) == outcome


def test_a_schema_reference_is_resolved_within_it_never_fetched() -> None:
    # under a nested $id, jsonschema fetched "other.json" from http://e.example/ (a call
    # nobody approved), and a "#/..." reference, which points into that resource, was
    # refused as pointing nowhere
    from replaygate.assertions.structure import measure_structure
    from replaygate.network import block_network

    nested = {"$id": "http://e.example/d", "$defs": {"x": {"type": "integer"}}}
    valid = {"properties": {"b": {**nested, "properties": {"q": {"$ref": "#/$defs/x"}}}}}
    assert measure_structure({"b": {"q": 1}}, valid).problems == ()
    assert [p.message for p in measure_structure({"b": {"q": "1"}}, valid).problems] == [
        "'1' is not of type 'integer'"
    ]
    remote = {"properties": {"b": {**nested, "properties": {"q": {"$ref": "other.json"}}}}}
    with block_network(), pytest.raises(ValueError) as caught:
        measure_structure({"b": {"q": 1}}, remote)
    assert "cannot resolve $ref 'other.json'" in str(caught.value)
    assert "none is fetched" in str(caught.value) and "Unresolvable" not in str(caught.value)


@pytest.mark.parametrize(
    ("call", "said"),
    [
        (lambda: assert_contains("a1", [1]), "required piece or alias 1 is an int: each is text"),
        (
            lambda: assert_contains("a", ["a"], aliases={"a": [None]}),
            "required piece or alias None is a NoneType: each is text",
        ),
        (
            lambda: assert_contains("ABC", ["abc"], ignore_case="no"),
            "ignore_case must be True or False, got 'no'",
        ),
        (
            lambda: contains_check(["abc"], kind="gate", ignore_case="no"),
            "ignore_case must be True or False, got 'no'",
        ),
        (
            lambda: Judge(None, "r", threshold=3, under_test="claude-x", judge_id="gpt-4o"),
            "Judge: model must be a model (an object with complete(messages, tools)), got None",
        ),
        (
            lambda: Check("c", "gate", None),
            "check 'c': fn must be a function of the value, got None",
        ),
        (
            lambda: set_check({"a"}, kind="gate", extract="cites"),
            "check 'set': extract must be a function of the output, got 'cites'",
        ),
        (
            lambda: RecordingModel(None, "a.jsonl", approve_live=True, model="m", max_tokens=8),
            "RecordingModel: live must be a model (an object with complete(messages, tools)), "
            "got None",
        ),
    ],
    ids=[
        "a number to contain",
        "no alias",
        "a text flag",
        "a text flag to a check",
        "a judge of no model",
        "a check of no function",
        "a set check of no extract function",
        "a recording of no model",
    ],
)
def test_an_argument_of_the_wrong_type_is_refused_by_its_name_as_it_is_given(
    call: Callable[[], object], said: str
) -> None:
    # a number was "empty after NFKC", "no" folded case as True would, and a model or
    # function that is none failed on first use, deep inside ("'NoneType' object has no
    # attribute 'complete'")
    with pytest.raises(TypeError) as err:
        call()
    assert str(err.value) == said


def test_an_integer_too_long_to_write_fails_at_its_path_and_a_nan_bound_is_refused() -> None:
    # the first raised Python's "Exceeds the limit (4300 digits)" from inside jsonschema;
    # a maximum of NaN let every value pass
    with pytest.raises(AssertionError) as err:
        assert_structure({"n": 10**5000}, {"properties": {"n": {"maximum": 5}}})
    assert str(err.value).endswith("$.n: an integer of more than 4,300 digits cannot be checked")
    with pytest.raises(ValueError) as bad:
        assert_structure({"n": 10**9}, {"properties": {"n": {"maximum": float("nan")}}})
    assert str(bad.value) == (
        "invalid JSON Schema at $.properties.n.maximum: nan is not a number JSON can hold: "
        "every value would compare false with it"
    )
