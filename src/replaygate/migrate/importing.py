"""Importing vcrpy cassettes into fixture stores, as a live recording would have stored them.

Each interaction takes the path of a live recording through :mod:`replaygate.http`:
its request becomes the HTTP request envelope
(:func:`~replaygate.http.envelope.request_envelope` of a
:func:`~replaygate.http.wire.wire_request`, as for any HTTP library),
keyed after the request-side sanitize steps
(:meth:`~replaygate.fixtures.session.FixtureSession.stored_request`); its response is
fed to a :class:`~replaygate.http.recording.Recording`, which builds the recorded
response (the whole body, or the server-sent events) and hands it to
:meth:`~replaygate.http.exchange.Exchange.record`: sanitize, secret refusal, ``meta``
(``source: vcrpy``, a note naming the cassette by its path under the folder given),
and identical requests answered in their recorded order.

A cassette is imported whole or not at all. It is first recorded into a scratch
store, so a secret, or a request for which the store already holds another answer,
stops it before the store is touched; then each of its fixtures is written to the
store (through its locked, atomic writer) unless the store already holds it.
"""

from __future__ import annotations

import base64
import dataclasses
import os
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from pathlib import Path, PurePath
from typing import Any, Literal

from replaygate import exact_json
from replaygate.errors import (
    ReplaygateError,
    StoreWriteError,
    UnservedRouteError,
    WireFormatError,
    not_utf8_text,
    shown_file,
)
from replaygate.fixtures.diff import field_diff
from replaygate.fixtures.fingerprint import fixture_key
from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.store import FixtureStore
from replaygate.fixtures.store.files import resolved
from replaygate.fixtures.store.writing import write_errors
from replaygate.http.envelope import host_of, is_model_api, request_envelope
from replaygate.http.exchange import Exchange
from replaygate.http.recorded import is_event_stream, labelled_json, replayed
from replaygate.http.recording import Recording
from replaygate.http.wire import wire_request
from replaygate.migrate.cassettes import (
    CassetteError,
    Interaction,
    find_cassettes,
    read_cassette,
    require_yaml,
)
from replaygate.pytest_plugin.store_names import store_name
from replaygate.sanitize import sanitizer_for

IMPORT_SOURCE = "vcrpy"
"""The ``meta.source`` of an imported fixture."""
IMPORT_NOTE = "imported from vcrpy cassette "
"""How the ``meta.note`` of an imported fixture starts, before its cassette's name."""

Outcome = Literal["imported", "unchanged", "empty", "refused", "error"]


@dataclass(frozen=True, slots=True)
class CassetteImport:
    """What importing one cassette into its store did.

    ``outcome`` is ``imported`` (answers written), ``unchanged`` (the store held them
    all), ``empty`` (the cassette holds no interaction: no store written), ``refused``
    (a secret, another answer already stored for one of its requests, or one request
    sent to two hosts without ``match_host``: nothing written) or ``error`` (the
    cassette or the store could not be read, or the store holds another cassette's
    fixtures: nothing written); ``problem`` says why, starting with the cassette's path.
    ``imported`` counts the answers written, ``unchanged`` those the store already
    held, ``skipped`` the interactions a recording does not keep (a 404 for a route the
    server does not serve), ``refused`` the interactions of a refused cassette,
    ``dropped`` the answers ``force`` removed past a request's count in the cassette.
    The store's name is the cassette's unless it holds a character the pytest plugin
    writes ``_`` in the name of a test's store (:attr:`renamed`).
    """

    cassette: str
    store: str
    outcome: Outcome
    imported: int = 0
    unchanged: int = 0
    skipped: int = 0
    refused: int = 0
    problem: str | None = None
    dropped: int = 0

    @property
    def renamed(self) -> bool:
        """Whether the store's name is not the cassette's (``a b.yaml`` -> ``a_b.jsonl``)."""
        return Path(self.cassette).stem != Path(self.store).stem


class CassetteRefused(ReplaygateError):
    """A cassette that is not imported: a secret, or an answer the store holds otherwise."""


class StoreTaken(ReplaygateError):
    """A store that holds the fixtures of another cassette, imported into it before."""


@dataclass
class _Staged:
    """A cassette recorded into a scratch store: each fixture with the interactions
    (indexes) that sent its request, in order, and how many interactions were skipped."""

    fixtures: list[tuple[list[int], Fixture]] = field(default_factory=list)
    skipped: int = 0


PYTEST_RECORDING_FOLDER = "cassettes"
"""The folder pytest-recording keeps a test module's cassettes in, one folder a module."""


def cassettes_folder(root: Path) -> Path:
    """The folder the cassettes' paths are taken under: ``root``, or the folder of the
    one cassette file ``root``; or the ``cassettes`` folder above it, where that is one
    test module's folder of pytest-recording's layout (``cassettes/<module>/<test>.yaml``):
    its store then goes where the pytest plugin looks for the test's, ``<module>/<test>.jsonl``
    under ``--out``, as when the whole ``cassettes`` folder is imported."""
    folder = root if root.is_dir() else root.parent
    if folder.name != PYTEST_RECORDING_FOLDER and folder.parent.name == PYTEST_RECORDING_FOLDER:
        return folder.parent
    return folder


def cassette_stores(root: Path, out: Path) -> tuple[list[tuple[Path, Path]], list[CassetteError]]:
    """Each cassette under ``root`` (a folder, or one cassette file) and its store under
    ``out``: the same relative folder, and the name the pytest plugin gives the store of
    the test the cassette is named after
    (:func:`~replaygate.pytest_plugin.store_names.store_name`), ending in ``.jsonl``;
    and each folder under ``root`` that could not be listed
    (:func:`~replaygate.migrate.cassettes.find_cassettes`). Files under ``out`` (a
    folder store's ``.json`` files) are not cassettes; ``root`` inside ``out`` is a
    :class:`CassetteError` (every cassette would be passed over)."""
    base = cassettes_folder(root)
    stores = resolved(out)
    if resolved(root).is_relative_to(stores):
        raise CassetteError(
            root,
            f"is inside --out {out}, whose files are the stores, not cassettes: nothing "
            "would be imported; name an --out folder outside the cassettes",
        )
    found = find_cassettes(root)
    pairs = [
        (c, out / c.relative_to(base).parent / f"{store_name(c.stem)}.jsonl")
        for c in found.files
        if not resolved(c).is_relative_to(stores)
    ]
    return pairs, found.unlisted


def import_cassettes(
    root: Path, out: Path, *, force: bool = False, match_host: bool = False
) -> list[CassetteImport]:
    """Import every cassette under ``root`` into its store under ``out``; one result each,
    then an error for each folder under ``root`` that could not be listed (its stores
    folder under ``out`` as the store: nothing of it is written).

    Two cassettes that would share a store (``a.yaml`` and ``a.json``) are an error for
    the second: nothing of it is written. ``force`` and ``match_host`` are
    :func:`import_cassette`'s.
    """
    results = []
    claimed: dict[Path, Path] = {}
    folder = cassettes_folder(root)
    pairs, unlisted = cassette_stores(root, out)
    require_yaml([cassette for cassette, _ in pairs])
    for cassette, store in pairs:
        first = claimed.setdefault(store, cassette)
        if first != cassette:
            problem = (
                f"{_at(cassette)}: {_at(first)} is imported into the same store {_at(store)}; "
                "rename one of them"
            )
            results.append(CassetteImport(str(cassette), str(store), "error", problem=problem))
            continue
        results.append(
            import_cassette(cassette, store, force=force, base=folder, match_host=match_host)
        )
    for err in unlisted:
        stores_folder = out / err.file.relative_to(root)
        problem = f"{err}; no cassette in it was imported"
        results.append(CassetteImport(str(err.file), str(stores_folder), "error", problem=problem))
    return results


def import_cassette(
    cassette: Path,
    store: Path,
    *,
    force: bool = False,
    base: Path | None = None,
    match_host: bool = False,
) -> CassetteImport:
    """Import the cassette at ``cassette`` into the store at ``store`` (whole, or nothing).

    A request the store already answers otherwise is refused unless ``force``, which
    replaces its answers with the cassette's. The note of its fixtures names the
    cassette by its path under ``base`` (the folder of the cassettes; its own folder by
    default): the same however that folder is named, from any working directory. A
    store holding the fixtures of a cassette of another name is an error. With
    ``match_host`` each request is stored with its host, as a recording with
    ``match_host=True`` stores it; without, a cassette that sends one request to two
    hosts is refused (:func:`_check_one_host`).
    """
    names = (str(cassette), str(store))
    try:
        interactions = read_cassette(cassette)
    except ReplaygateError as err:
        return CassetteImport(*names, "error", problem=_named(cassette, err))
    if not interactions:
        return CassetteImport(*names, "empty")
    try:
        named = cassette.relative_to(cassette.parent if base is None else base)
        staged = _stage(cassette, named, interactions, store, match_host)
        with FixtureStore.open(store) as target:
            imported, unchanged, dropped = _write(cassette, staged, target, force)
    except CassetteRefused as err:
        return CassetteImport(*names, "refused", refused=len(interactions), problem=str(err))
    except ReplaygateError as err:
        return CassetteImport(*names, "error", problem=_named(cassette, err))
    outcome: Outcome = "imported" if imported or dropped else "unchanged"
    return CassetteImport(*names, outcome, imported, unchanged, staged.skipped, dropped=dropped)


def _at(file: Path) -> str:
    """``file`` as a message names it: on one line, a newline in its name escaped."""
    return shown_file(str(file))


def _named(cassette: Path, err: ReplaygateError) -> str:
    """``err``'s message, starting with the cassette's path."""
    return str(err) if isinstance(err, CassetteError) else f"{_at(cassette)}: {err}"


def _stage(
    cassette: Path,
    named: Path,
    interactions: tuple[Interaction, ...],
    store: Path,
    match_host: bool,
) -> _Staged:
    """Record ``interactions`` into a scratch store, sanitized with ``store``'s settings,
    each fixture's note naming the cassette as ``named``, each request with its host
    when ``match_host``."""
    staged = _Staged()
    sends: dict[str, list[Interaction]] = {}
    hosts: dict[str, dict[str, list[int]]] = {}
    with tempfile.TemporaryDirectory(prefix="replaygate-import-") as scratch:
        exchange = Exchange(
            Path(scratch) / "cassette.jsonl",
            mode="record-missing",
            approve_live=True,  # no call goes live: a session writes only in a recording mode
            match_host=match_host,
            source=IMPORT_SOURCE,
            note=f"{IMPORT_NOTE}{_note_name(named)}",
            sanitize=sanitizer_for(store),
        )
        with exchange.store:
            for interaction in interactions:
                _check_body_as_sent(cassette, interaction)
                try:
                    key, host = _record(exchange, interaction)
                except UnservedRouteError:
                    staged.skipped += 1
                    continue
                except StoreWriteError as err:  # the scratch folder is full or read-only
                    raise CassetteError(
                        cassette,
                        f"cannot stage it in a scratch folder under {tempfile.gettempdir()} "
                        f"(TMPDIR): {err.reason}",
                        index=interaction.index,
                    ) from None
                except ReplaygateError as err:
                    raise CassetteRefused(
                        f"{_at(cassette)}: interaction {interaction.index}: {err}"
                    ) from None
                sends.setdefault(key, []).append(interaction)
                hosts.setdefault(key, {}).setdefault(host, []).append(interaction.index)
            staged.fixtures = [
                ([i.index for i in sends[f.key]], _dated(f, sends[f.key])) for f in exchange.store
            ]
    for sent_to in hosts.values():
        _check_one_host(cassette, sent_to)
    for indexes, fixture in staged.fixtures:
        _check_request_json(cassette, sends[fixture.key], fixture)
        _check_replayable(cassette, indexes, fixture)
    return staged


def _check_one_host(cassette: Path, sent_to: dict[str, list[int]]) -> None:
    """Refuse one request (as stored: without its host unless ``--match-host``) sent to
    more than one host, ``sent_to`` holding the interactions that sent it to each: its
    answers would be served in the cassette's order, whichever host a test calls (vcrpy
    matches the host by default)."""
    if len(sent_to) < 2:
        return
    indexes = sorted(i for sent in sent_to.values() for i in sent)
    named = "; ".join(f"{host} (interaction {_listed(sent)})" for host, sent in sent_to.items())
    raise CassetteRefused(
        f"{_at(cassette)}: interaction {_listed(indexes)}: one request is sent to "
        f"{len(sent_to)} hosts: {named}; without its host, a replay would serve "
        "their answers in the cassette's order, whichever host a test calls. Nothing of this "
        "cassette was written; import it with --match-host, and set match_host=True on the "
        "tests that replay it (the replaygate marker's, or replaygate_config's)."
    )


def _check_body_as_sent(cassette: Path, interaction: Interaction) -> None:
    """Refuse a request recorded with no body where its ``content-length`` header says one
    was sent: a ``before_record_request`` hook or a filter blanked it after it was sent, so
    the stored request would be one no test sends, and its every replay a miss. (A body
    edited by hand, its header left as it was, is taken as the one a test now sends.)"""
    request = interaction.request
    if request.body:
        return
    sent = [v.strip() for k, v in request.headers if k.lower() == "content-length"]
    if not any(v.isascii() and v.isdigit() and int(v) > 0 for v in sent):
        return
    raise CassetteRefused(
        f"{_at(cassette)}: interaction {interaction.index}: request.body: empty, where its "
        f"content-length header says {sent[0]} byte(s) were sent: a before_record_request "
        "hook or a filter blanked the body after it was sent, and no request a test sends "
        "would match it. Nothing of this cassette was written; record it again without "
        "blanking the request body (a sanitize rule keeps a value out of a fixture in "
        "replaygate), or record the test with replaygate."
    )


def _check_request_json(cassette: Path, interactions: list[Interaction], fixture: Fixture) -> None:
    """Refuse a model API's request labelled JSON whose body is no JSON object (no JSON,
    kept as ``text`` or ``base64``, or JSON of another kind, an array or a string) where
    the API answered it with a success: every model API takes an object, so an edit of
    the cassette broke it, and no request a test sends would match it."""
    request = fixture.request
    field: str | None = next((f for f in ("text", "base64") if f in request), None)
    if field is None and not isinstance(request.get("body"), dict | None):
        field = "body"
    if field is None or not is_model_api(str(request.get("path", ""))):
        return
    for interaction in interactions:
        kept = {k.lower(): v for k, v in interaction.request.headers}
        if labelled_json(kept) and 200 <= interaction.response.status < 300:
            raise CassetteRefused(
                f"{_at(cassette)}: interaction {interaction.index}: request.{field}: "
                f"labelled {kept['content-type']}, but not a JSON object "
                f"({_json_problem(field, request[field])}), where the API answered it "
                "with a success, as no model API answers a body that is no JSON object: an "
                "edit of the cassette broke it, and no request a test sends would match it. "
                "Nothing of this cassette was written; mend the JSON of that request's "
                "body in the cassette (its content-length may be left as it is) and import "
                "it again."
            )


def _json_problem(field: str, value: Any) -> str:
    """Why a body kept as ``field`` (``text``, ``base64``: bytes that are not UTF-8, or
    ``body``: JSON that is no object) ``value`` is no JSON object, as the UTF-8 decoder or
    the JSON parser says it, or the kind of JSON it is."""
    if field == "body":
        kinds = ((bool, "a boolean"), (str, "a string"), (list, "an array"))
        return next((k for t, k in kinds if isinstance(value, t)), "a number")
    if field == "base64":
        try:
            base64.b64decode(value).decode("utf-8")
        except UnicodeDecodeError as err:
            return not_utf8_text(err)
    try:
        exact_json.loads(str(value).encode("utf-8"))
    except ValueError as err:  # orjson's JSONDecodeError
        return str(err)
    return "null"


def _listed(indexes: list[int]) -> str:
    """``0, 3``: interaction indexes as a message names them."""
    return ", ".join(map(str, indexes))


def _dated(fixture: Fixture, interactions: list[Interaction]) -> Fixture:
    """``fixture`` with ``meta.recorded_at`` the earliest ``Date`` header its answers came
    with (when the server answered, not when the cassette was imported, so ``patrol``
    tells an old cassette's answers from fresh ones); as recorded, the import's time,
    when none carries a date that can be read."""
    dates = [
        when
        for interaction in interactions
        for name, value in interaction.response.headers
        if name.lower() == "date" and (when := _http_date(value)) is not None
    ]
    if not dates or fixture.meta is None:
        return fixture
    recorded_at = min(dates).isoformat().replace("+00:00", "Z")
    meta = {**fixture.meta, "recorded_at": recorded_at}
    return dataclasses.replace(fixture, meta=meta)


def _http_date(value: str) -> datetime | None:
    """The UTC time of an HTTP ``Date`` header (``Wed, 03 Jul 2024 10:00:00 GMT``), to the
    second, or None for one that names no time with a zone a datetime holds."""
    try:
        when = parsedate_to_datetime(value)
        return None if when.tzinfo is None else when.astimezone(UTC).replace(microsecond=0)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def _check_replayable(cassette: Path, indexes: list[int], fixture: Fixture) -> None:
    """Refuse a fixture no replay could serve, as replay and verify do: a model API's
    success labelled JSON whose body (a hand edit broke it) is no JSON."""
    model_api = is_model_api(str(fixture.request.get("path", "")))
    for index, response in zip(indexes, fixture.responses, strict=False):
        try:
            replayed(response, model_api=model_api)
        except WireFormatError as err:
            raise CassetteRefused(f"{_at(cassette)}: interaction {index}: {err}") from None


def _note_name(cassette: PurePath) -> str:
    """``cassette`` as the note of its fixtures names it: its folders separated by ``/``
    on every system (Windows' ``test_chat\\x.yaml`` too, so a store imported there holds
    the bytes one imported on Linux does), and valid text, each byte of its name that is
    not UTF-8 written as its escape (``caf\\xe9.yaml``), where Python holds it as a
    character no store can write."""
    return os.fsencode(cassette.as_posix()).decode("utf-8", "backslashreplace")


def _record(exchange: Exchange, interaction: Interaction) -> tuple[str, str]:
    """Record one interaction as the live path does; the key of its request, and the
    host it was sent to."""
    request, response = interaction.request, interaction.response
    sent = wire_request(request.method, request.uri, request.headers, request.body)
    envelope = request_envelope(sent, match_host=exchange.match_host)
    stored = exchange.session.stored_request(envelope)
    slot = exchange.next_slot(stored)
    headers = list(response.headers)
    recording = Recording(exchange, slot, response.status, headers, is_event_stream(headers))
    recording.feed(response.body)
    recording.finish("complete")
    return fixture_key(stored), host_of(sent.url)


def _write(
    cassette: Path, staged: _Staged, store: FixtureStore, force: bool
) -> tuple[int, int, int]:
    """Write the staged fixtures the store lacks; (answers written, answers already held,
    answers dropped).

    Without ``force``, a request the store answers otherwise refuses the whole cassette
    before anything is written; with it, such a request holds the cassette's answers
    alone, and so does one the store answers more times than the cassette (the answers
    past its count are dropped). A cassette of nothing to keep leaves no trace, not even
    a lock file.
    """
    if not staged.fixtures:
        return 0, 0, 0
    lock = store.lock()  # its folder made: one --out cannot hold (a link loop) ends the command
    # no other writer between what is compared and what is written; a lock file that
    # cannot be taken (a symlink) is this store's error, named as every writer names it
    with write_errors(store.path), lock:
        store.refresh()
        _check_not_taken(staged, store)
        writes: list[tuple[Fixture, bool]] = []
        imported = unchanged = dropped = 0
        for indexes, fixture in staged.fixtures:
            found = store.find(fixture.request)
            stored = found[1] if found else None
            held = stored.responses if stored else ()
            new = fixture.responses
            differ = [i for i in range(min(len(held), len(new))) if held[i] != new[i]]
            if stored and differ and not force:
                raise CassetteRefused(
                    _conflict(cassette, store, indexes, fixture, stored, differ[0])
                )
            if differ or len(new) > len(held) or (force and len(held) > len(new)):
                # --force replaces the request's answers with the cassette's, all of them:
                # an earlier answer past its count would be served mixed with the new ones
                kept = 0 if differ else min(len(held), len(new))
                writes.append((fixture, found is not None))
                imported += len(new) - kept
                unchanged += kept
                dropped += max(len(held) - len(new), 0)
            else:
                unchanged += len(new)
        for fixture, replace in writes:
            store.put(fixture, replace=replace)
    return imported, unchanged, dropped


def _imported_from(fixture: Fixture) -> str | None:
    """The name of the cassette ``fixture`` was imported from (its ``meta.note``), or None
    for a fixture recorded otherwise."""
    meta = fixture.meta or {}
    note = meta.get("note")
    if meta.get("source") != IMPORT_SOURCE or not isinstance(note, str):
        return None
    return note.removeprefix(IMPORT_NOTE) if note.startswith(IMPORT_NOTE) else None


def _check_not_taken(staged: _Staged, store: FixtureStore) -> None:
    """Refuse ``store`` when it holds fixtures imported from a cassette of another name
    than the staged one's: two cassettes the store name rule gives one store (``a b.yaml``,
    ``a_b.yaml``), imported one at a time, whose fixtures would be mixed in it. A cassette
    of the same name (in any folder) is taken to be the same, imported again."""
    ours = {PurePath(name).name for _, f in staged.fixtures if (name := _imported_from(f))}
    for fixture in store:
        theirs = _imported_from(fixture)
        if theirs is not None and PurePath(theirs).name not in ours:
            raise StoreTaken(
                f"the cassette {shown_file(theirs)} was imported into the same store "
                f"{_at(store.path)} (the "
                "meta.note of its fixtures says so); rename one of them, or remove that "
                "store if that cassette is gone"
            )


def _conflict(
    cassette: Path,
    store: FixtureStore,
    indexes: list[int],
    fixture: Fixture,
    held: Fixture,
    answer: int,
) -> str:
    """The refusal of a cassette whose ``answer``-th answer the store's fixture ``held``
    holds otherwise."""
    changes = "; ".join(
        d.render()
        for d in field_diff(held.responses[answer], fixture.responses[answer], "response")[:3]
    )
    refusal = (
        f"{_at(cassette)}: interaction {indexes[answer]}: {_at(store.path)} already holds another "
        f"answer to this request (key {fixture.key}, answer {answer + 1}): {changes}. Nothing "
        "of this cassette was written; import it with --force to replace that answer"
    )
    name = _imported_from(held)
    if name is None:
        return refusal + "."
    folder = PurePath(name).parent.name
    if folder:  # pytest-recording's layout: <module>/<test>.yaml
        whose = f"test modules named {folder}.py in two folders, each with a cassette {name}"
    else:
        whose = f"tests in two folders, each with a cassette {name}"
    return (
        f"{refusal}, when this cassette was recorded again. If that answer is another "
        f"test's ({whose}: the pytest plugin gives those tests one store), --force would "
        "replace that test's answer: rename one of them (and its cassette) and import it "
        "again."
    )
