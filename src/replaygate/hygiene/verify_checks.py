"""The checks ``replaygate verify`` makes of one line, apart from those across the store.

:func:`prepare` makes the checks of one fixture that need no other, and :func:`finish`
those of a batch together (the secret scan). Each fixture's problems come with their
rank among the problems of its line (the checks made later across the whole store rank
between the key and the rest), with what those need: the request's identity and how its
responses are read. :func:`check_sample` does the same for a sample line.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import datetime
from typing import Any, NamedTuple

import orjson

from replaygate.errors import CanonicalFormError, shown_key
from replaygate.fixtures.fingerprint import KEY_LENGTH, SEAL_LENGTH, digest, match_form, seal_of
from replaygate.fixtures.fixture import (
    NO_RESPONSE,
    Fixture,
    folder_name_problem,
    from_json,
    interface_folder,
    meta_problems,
)
from replaygate.fixtures.store import SampleLine
from replaygate.fixtures.store.added import NULL_SAMPLE
from replaygate.http.envelope import envelope_problems
from replaygate.hygiene.number_forms import floats_written_whole
from replaygate.hygiene.verify_key import request_digest
from replaygate.hygiene.verify_replay import (
    NO_READER,
    is_http_reader,
    reader_of,
    replays_plainly,
    response_problems,
    unknown_interface,
)
from replaygate.sanitize.secret_allow import KnownSafe
from replaygate.sanitize.secret_lines import clean_lines
from replaygate.sanitize.secret_scan import (
    SecretFinding,
    find_each_fixture_secrets,
    find_fixture_secrets,
)
from replaygate.unicode_forms import Form, normalized

MISSING_META = (
    "meta is missing (interface, interface_version, recorded_at, source, replaygate_version); "
    "re-record the fixture, or pass --allow-missing-meta for a seed-style store"
)

KEY_RANK, STORE_RANK, OTHER_RANK = 0, 1, 2
"""Where a problem stands among those of its line: the key; what is decided across the
store (a duplicate, where a sample line applies and whether its response replays); the rest."""

_META_CACHE_SIZE = 1024
_meta_cache: dict[bytes, tuple[tuple[str, ...], bool]] = {}
"""The verdict of each meta seen, by its bytes (a valid ``recorded_at`` written as
:data:`_ANY_TIME`: it does not change the verdict, and a store's metas differ in it alone)."""
_ANY_TIME = "2000-01-01T00:00:00Z"


Ranked = tuple[tuple[int, str], ...]
"""Problems as ``(rank, reason)``, in the order of their line's report."""


class Prepared(NamedTuple):
    """A fixture's checks but its secret scan (:func:`prepare`), and its identity for the
    duplicate check.

    ``request`` (16 bytes naming the request: :func:`request_identity`) is empty when
    the request has no canonical form. The fixture itself is kept only when no line
    stands in for it: a line exactly as orjson writes it is read again where the fixture
    is needed (a secret scan that goes past the gate, rare), so the parsed fixture is let
    go at once.
    """

    key: str
    request: bytes
    reader: int
    """How its responses are read (:mod:`.verify_replay`), for the sample lines applied to it."""
    key_matches: bool
    """Its stored key starts its digest (only such a fixture takes sample lines)."""
    before: Ranked
    """Its problems ranked before a secret finding: the key, the responses."""
    after: Ranked
    """Its problems ranked after a secret finding: the meta."""
    line: bytes | None
    """The line it was read from, when that is exactly what ``orjson.dumps`` writes for it
    (without its seal when the seal is the one the store's writer stamps:
    :func:`_without_seal`)."""
    fixture: Fixture | None
    streamed: bool
    """A response is a stream (its events are joined and scanned, clean or not)."""
    empty: bool = False
    """Every response is ``null``: nothing to replay unless a sample line below fills one."""


def prepare(
    fixture: Fixture, line: bytes | None, form: bytes | None, file: str, require_meta: bool
) -> Prepared:
    """The checks of one fixture stored in ``file`` that need no other: its key,
    responses and meta.

    ``line`` is the line it was read from when that is exactly what ``orjson.dumps``
    writes for it, ``form`` its request's match form when it stands there verbatim
    (both None otherwise): the line is then read as it is, not written again. The seal
    the store's writer stamps on such a line vouches for its key, as it does for the
    replay (:func:`key_check`); any other key is recomputed from its request.
    """
    request, key = fixture.request, fixture.key
    try:
        identity, full = key_check(fixture, form)
    except CanonicalFormError as err:
        return Prepared(key, b"", NO_READER, False, ((KEY_RANK, str(err)),), (), None, None, False)
    reader = reader_of(request, fixture.meta)
    before = _other(_request_problems(request, reader) + _response_problems(fixture, reader))
    if full is None:  # vouched for by the writer's seal
        key_matches, scanned = True, _without_seal(line, fixture.seal)
    else:
        key_matches, scanned = len(key) >= KEY_LENGTH and full.startswith(key), line
        if not key_matches:
            before = ((KEY_RANK, _key_problem(key, full, request)), *before)
    after = _other(_meta_problems(fixture, file, require_meta))
    unknown = unknown_interface(reader, fixture.meta)
    if unknown is not None:
        after = (*after, (OTHER_RANK, unknown))
    responses = fixture.responses
    streamed = _streamed(responses[0]) or (len(responses) > 1 and any(map(_streamed, responses)))
    return Prepared(
        key,
        identity,
        reader,
        key_matches,
        before,
        after,
        scanned,
        fixture if line is None else None,
        streamed,
        fixture.recorded_nothing,
    )


def key_check(fixture: Fixture, form: bytes | None) -> tuple[bytes, str | None]:
    """The identity of ``fixture``'s request (:func:`request_identity`), and its digest,
    or None when the seal the store's writer stamps vouches for its key, as it does for
    the replay (``form``, its request's match form, is given when its line holds it
    verbatim: None otherwise).

    Raises :class:`~replaygate.errors.CanonicalFormError` when the request has no
    canonical form.
    """
    key, seal = fixture.key, fixture.seal
    if (
        form is not None
        and seal is not None
        and len(key) >= KEY_LENGTH
        and seal == seal_of(key, form)
    ):
        if len(key) == KEY_LENGTH:
            return bytes.fromhex(seal), None
        return request_identity(key[:KEY_LENGTH], form), None
    request = fixture.request
    full = request_digest(request, key, form)
    return request_identity(full[:KEY_LENGTH], match_form(request) if form is None else form), full


def request_identity(key: str, form: bytes) -> bytes:
    """16 bytes naming the request of key ``key`` (the first :data:`KEY_LENGTH` digits of
    its digest) and match form ``form`` in the checks across a store: the seal the
    store's writer stamps on its fixture, as bytes."""
    return bytes.fromhex(seal_of(key, form))


_SEAL_FIELD = b',"seal":"'
_SEALED_END = len(_SEAL_FIELD) + SEAL_LENGTH + len(b'"}')
"""How many bytes a written line ends with when its seal ends it: the field, the seal, ``"}``
(the line's last field, the seal written whole: no object in the line ends so)."""


def _without_seal(line: bytes | None, seal: str | None) -> bytes | None:
    """``line``, a fixture as ``orjson.dumps`` writes it with the seal the store's writer
    stamps (``seal``), as the secret scan reads it: what ``orjson.dumps`` writes for the
    fixture unsealed.

    Such a seal is a digest of the key and the request, which the scan reads; the writer's
    own check for secrets reads the fixture before it stamps the seal
    (:func:`~replaygate.fixtures.store.writing.check_writable`). Any other seal (a hand
    edit) is scanned with the rest of the line. The scan would otherwise decode each seal's
    32 hex digits as base64 and look for text, compressed data or a token among the bytes,
    which takes it longer than the rest of a recorded fixture's line together.
    """
    if line is None or seal is None or not line.endswith(b'%s%s"}' % (_SEAL_FIELD, seal.encode())):
        return line
    return line[:-_SEALED_END] + b"}"


def _key_problem(key: str, full: str, request: Any) -> str:
    """Why stored key ``key`` (shown escaped when it holds a control character) is refused,
    its request's digest being ``full``."""
    form = _recorded_form(request, key)
    whole = (
        None if form is not None or len(key) < KEY_LENGTH else floats_written_whole(request, key)
    )
    if form is not None:
        edit = (
            f"the request's text is no longer in the Unicode form it was recorded in, {form} "
            "(its key is that text's): an editor or a tool normalized it (NFC writes an "
            "accented letter as one character, U+00E9, NFD as a letter and a combining "
            "accent, U+0301)"
        )
    elif whole is not None:
        edit = (
            f"its request was recorded with {', '.join(whole)} as "
            f"{'a float' if len(whole) == 1 else 'floats'} (1.0), which a tool rewriting the "
            "file wrote as an integer (1), as jq 1.6 does (its key was computed from the floats)"
        )
    else:
        edit = "the request or its key was edited after recording"
    return (
        f"key {shown_key(key)} does not match its request (expected {full[:KEY_LENGTH]}); "
        f"{edit}: revert the edit, or remove it and record again (mode rerecord replaces it "
        "only where the code sends its request as it is now)"
    )


def _recorded_form(request: Any, key: str) -> Form | None:
    """The Unicode normal form (``NFC``, ``NFD``) in which ``request`` has ``key`` when it
    has another form now (a tool normalized its text after recording), or None."""
    if len(key) < KEY_LENGTH:
        return None
    forms: tuple[Form, ...] = ("NFC", "NFD")
    for form in forms:
        changed = normalized(request, form)
        if changed != request and digest(changed).startswith(key):
            return form
    return None


def finish(prepared: Sequence[Prepared], file: str, safe: KnownSafe) -> list[Ranked]:
    """Every problem of each prepared fixture (stored in ``file``) but a duplicate.

    Their secret scan clears the clean ones together (:func:`clean_lines`,
    :func:`find_each_fixture_secrets`); a fixture whose request has no canonical form
    is not scanned.
    """
    kept = [i for i, item in enumerate(prepared) if item.request]
    cleared = dict(zip(kept, clean_lines([prepared[i].line for i in kept]), strict=True))
    # A cleared fixture has no finding but what a stream joined across its events holds.
    scanned = [i for i, known in cleared.items() if not known or prepared[i].streamed]
    problems = [item.before + item.after for item in prepared]
    if scanned:
        found = find_each_fixture_secrets(
            [_fixture_of(prepared[i], file).to_json() for i in scanned],
            safe,
            cleared=[cleared[i] for i in scanned],
        )
        for i, secrets in zip(scanned, found, strict=True):
            if secrets:
                item = prepared[i]
                problems[i] = (*item.before, *_ranked(secrets), *item.after)
    return problems


def _ranked(secrets: list[SecretFinding]) -> Ranked:
    return _other([f"{found.detector} at {found.path}" for found in secrets])


def _other(reasons: Sequence[str]) -> Ranked:
    """``reasons`` ranked with the problems decided on the line alone, after the key."""
    return tuple((OTHER_RANK, reason) for reason in reasons) if reasons else ()


def _fixture_of(item: Prepared, file: str) -> Fixture:
    """The fixture, read again from its line when it was let go."""
    if item.fixture is not None:
        return item.fixture
    assert item.line is not None
    return from_json(orjson.loads(item.line), file, 0)


def _streamed(response: Any) -> bool:
    return isinstance(response, dict) and "events" in response


def check_sample(sample: SampleLine, safe: KnownSafe) -> list[tuple[int, str]]:
    """The problems a sample line holds itself: a secret, a null response, an incomplete
    ``meta``.

    Where it applies and whether its response replays are decided across the store
    (:mod:`.verify_across`).
    """
    line = {"key": sample.digest, "sample": sample.sample, "response": sample.response}
    if sample.meta is not None:
        line["meta"] = sample.meta
    problems = [
        (OTHER_RANK, f"{found.detector} at {found.path}")
        for found in find_fixture_secrets(line, safe)
    ]
    if sample.response is None:
        problems.append((OTHER_RANK, NULL_SAMPLE))
    if sample.meta is not None:
        problems.extend((OTHER_RANK, reason) for reason in _meta_verdict(sample.meta)[0])
    return problems


NOTHING_RECORDED = f"{NO_RESPONSE} (a hand edit?); re-record the fixture"
"""A fixture whose every response is ``null`` (one that never sent the request), with
no sample line filling one below it (decided across the store)."""


def _request_problems(request: Any, reader: int) -> tuple[str, ...]:
    """Why an HTTP envelope stored as a request can match no request sent, if it cannot
    (:func:`~replaygate.http.envelope.envelope_problems`)."""
    if not is_http_reader(reader) or not isinstance(request, dict):
        return ()
    return tuple(envelope_problems(request))


def _response_problems(fixture: Fixture, reader: int) -> tuple[str, ...]:
    """Why a recorded response could not be replayed, if it could not."""
    responses = fixture.responses
    if len(responses) == 1:
        response = responses[0]
        if replays_plainly(response, reader):
            return ()
        return tuple(response_problems(response, "response", reader, fixture.meta))
    return tuple(
        reason
        for i, response in enumerate(responses)
        for reason in response_problems(response, f"responses[{i}]", reader, fixture.meta)
    )


def _meta_problems(fixture: Fixture, file: str, require_meta: bool) -> tuple[str, ...]:
    """What is wrong with the meta of ``fixture`` stored in ``file``, its folder included."""
    meta = fixture.meta
    if meta is None:
        return (MISSING_META,) if require_meta else ()
    problems, names_folder = _meta_verdict(meta)
    if not names_folder or not file.endswith(".json"):
        return problems
    folder = os.path.basename(os.path.dirname(file))
    expected = interface_folder(meta)
    if "@" in folder and expected and folder != expected:
        return (
            *problems,
            f"stored in folder {folder}/ but its meta says {expected}: move it, or re-record it",
        )
    return problems


def _meta_verdict(meta: dict[str, object]) -> tuple[tuple[str, ...], bool]:
    """:func:`meta_problems` of ``meta``, and whether it can name a folder.

    A store's fixtures share a few metas but for their recording time, so each verdict
    is kept by the meta's bytes with a valid ``recorded_at`` written as :data:`_ANY_TIME`.
    """
    try:
        known = orjson.dumps({**meta, "recorded_at": _ANY_TIME} if _timed(meta) else meta)
    except TypeError:
        return tuple(meta_problems(meta)), folder_name_problem(meta) is None
    verdict = _meta_cache.get(known)
    if verdict is None:
        if len(_meta_cache) >= _META_CACHE_SIZE:
            _meta_cache.clear()
        verdict = (tuple(meta_problems(meta)), folder_name_problem(meta) is None)
        _meta_cache[known] = verdict
    return verdict


def _timed(meta: dict[str, object]) -> bool:
    """Whether ``meta.recorded_at`` is a valid time (any other valid one gives the same verdict)."""
    when = meta.get("recorded_at")
    if type(when) is not str or not when:
        return False
    try:
        datetime.fromisoformat(when)
    except ValueError:
        return False
    return True
