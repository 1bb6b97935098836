"""Containment: every required piece (or one of its aliases) appears in the text."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from replaygate.assertions.text import fold, normalize, preview, require_text
from replaygate.type_names import a_type


@dataclass(frozen=True)
class ContainsResult:
    """Which required pieces were found (``found`` maps piece -> the form that matched)."""

    found: Mapping[str, str]
    missing: tuple[str, ...]
    aliases: Mapping[str, tuple[str, ...]]
    text: str

    @property
    def passed(self) -> bool:
        """True when nothing is missing."""
        return not self.missing

    @property
    def score(self) -> float:
        """The share of required pieces found (1.0 when nothing was required)."""
        total = len(self.found) + len(self.missing)
        return len(self.found) / total if total else 1.0

    @property
    def message(self) -> str:
        """What is missing, with the aliases that were also tried."""
        total = len(self.found) + len(self.missing)
        if self.passed:
            return f"all {total} required piece(s) found"
        described = ", ".join(self._describe(piece) for piece in self.missing)
        return (
            f"text is missing {len(self.missing)} of {total} required piece(s): {described}; "
            f"text: {preview(self.text)}"
        )

    def _describe(self, piece: str) -> str:
        alternatives = self.aliases.get(piece, ())
        if not alternatives:
            return repr(piece)
        return f"{piece!r} (or aliases {', '.join(map(repr, alternatives))})"


def _alias_map(aliases: Mapping[str, Sequence[str]] | None) -> dict[str, tuple[str, ...]]:
    """``aliases`` with each list as a tuple; one string as a list is refused: it was taken
    letter by letter, so a text holding any of its letters passed."""
    if aliases is None:
        return {}
    if not isinstance(aliases, Mapping):
        raise TypeError(
            f"aliases must map a required piece to its other forms, got {type(aliases).__name__}"
        )
    for key, values in aliases.items():
        if isinstance(values, str | bytes) or not isinstance(values, Sequence | set | frozenset):
            raise TypeError(
                f"aliases[{key!r}] must be a list of strings, got {values!r}: write "
                f"[{values!r}] for one alias"
                if isinstance(values, str)
                else f"aliases[{key!r}] must be a list of strings, got {type(values).__name__}"
            )
    return {key: tuple(values) for key, values in aliases.items()}


_UNSEEN = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp"})
"""The categories of characters that show nothing: controls, format marks (a direction
mark, a zero-width joiner) and spaces."""


def _visible(piece: str) -> bool:
    """Whether ``piece`` holds a character that shows: one of only direction marks or
    zero-width joiners is as good as empty (a text can carry them unseen)."""
    return any(unicodedata.category(char) not in _UNSEEN for char in piece)


def _by_piece(
    alias_map: Mapping[str, tuple[str, ...]], required: tuple[str, ...]
) -> dict[str, tuple[str, ...]]:
    """The aliases of each required piece, an alias list keyed by the piece in another
    Unicode form taken as its own (``cafe\u0301`` for ``café``, as a macOS file or editor
    writes it: refused as not required, with a message naming a piece that read alike);
    a key no required piece folds to is refused (it is usually a typo)."""
    pieces = {fold(piece) for piece in required}
    unknown = sorted(key for key in alias_map if fold(key) not in pieces)
    if unknown:
        raise ValueError(
            f"aliases given for {', '.join(map(repr, unknown))}, which is not required; "
            "key each alias list by the required piece it stands for"
        )
    by_fold: dict[str, tuple[str, ...]] = {}
    for key, forms in alias_map.items():
        by_fold[fold(key)] = by_fold.get(fold(key), ()) + forms
    return {piece: by_fold[fold(piece)] for piece in required if fold(piece) in by_fold}


def pieces_of(required: Iterable[str]) -> tuple[str, ...]:
    """The pieces of ``required``, read once (a generator gives them once: a check that
    read it again required nothing, and passed); one string, or bytes, is refused."""
    if isinstance(required, str | bytes | bytearray):
        kind = "one string" if isinstance(required, str) else "bytes"
        raise TypeError(f"required must be a sequence of strings, not {kind}")
    return tuple(required)


def _within(haystack: str, form: str, whole_words: bool) -> bool:
    """Whether ``form`` is in ``haystack``; with ``whole_words``, only where no letter or
    digit stands beside it on a side where it begins or ends with one (``RAG`` is not in
    ``storage``, ``retriev`` is not in ``retrieval``; ``C++`` is in ``C++,``)."""
    if not whole_words:
        return form in haystack
    at = haystack.find(form)
    while at >= 0:
        end = at + len(form)
        open_before = at == 0 or not (form[0].isalnum() and haystack[at - 1].isalnum())
        open_after = end == len(haystack) or not (form[-1].isalnum() and haystack[end].isalnum())
        if open_before and open_after:
            return True
        at = haystack.find(form, at + 1)
    return False


def measure_contains(
    text: str,
    required: Sequence[str],
    *,
    aliases: Mapping[str, Sequence[str]] | None = None,
    ignore_case: bool = True,
    whole_words: bool = False,
) -> ContainsResult:
    """Look for each piece of ``required`` (or an alias) in ``text``, after NFKC.

    Text, pieces and aliases are NFKC-normalized (full and half width forms agree),
    whitespace runs count as one space, and case is folded unless ``ignore_case`` is
    False. ``aliases`` maps a required piece to other acceptable forms. A piece is found
    anywhere in the text (``RAG`` in ``storage``) unless ``whole_words``: then only
    where no letter or digit runs on from it (:func:`_within`).
    """
    required = pieces_of(required)
    require_text(text, "the text to search")
    if not required:
        raise ValueError("required is empty: every text would pass; name at least one piece")
    if type(ignore_case) is not bool:  # "no" is true
        raise TypeError(f"ignore_case must be True or False, got {ignore_case!r}")
    if type(whole_words) is not bool:
        raise TypeError(f"whole_words must be True or False, got {whole_words!r}")
    alias_map = _alias_map(aliases)
    for piece in (*required, *(form for forms in alias_map.values() for form in forms)):
        if not isinstance(piece, str):
            raise TypeError(f"required piece or alias {piece!r} is {a_type(piece)}: each is text")
        if not _visible(normalize(piece)):
            raise ValueError(
                f"required piece or alias {piece!r} is empty after NFKC and whitespace, or "
                "holds only characters that show nothing (a direction mark, a zero-width "
                "joiner): every text would contain it, or carry it unseen"
            )
    alias_map = _by_piece(alias_map, required)
    haystack = normalize(text, ignore_case=ignore_case)
    found: dict[str, str] = {}
    missing: list[str] = []
    for piece in required:
        forms = (piece, *alias_map.get(piece, ()))
        match = next(
            (
                f
                for f in forms
                if _within(haystack, normalize(f, ignore_case=ignore_case), whole_words)
            ),
            None,
        )
        if match is None:
            missing.append(piece)
        else:
            found[piece] = match
    return ContainsResult(found, tuple(missing), alias_map, text)


def assert_contains(
    text: str,
    required: Sequence[str],
    *,
    aliases: Mapping[str, Sequence[str]] | None = None,
    ignore_case: bool = True,
    whole_words: bool = False,
) -> ContainsResult:
    """Raise :class:`AssertionError` naming each missing piece; see :func:`measure_contains`."""
    result = measure_contains(
        text, required, aliases=aliases, ignore_case=ignore_case, whole_words=whole_words
    )
    if not result.passed:
        raise AssertionError(result.message)
    return result
