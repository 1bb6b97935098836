"""Fixture review between two sides (seed 000, 12.2.6): what changed, and the alarm.

- fixtures whose request is on one side only are *added* or *removed*; a line added
  that repeats a fixture above it (request, key and responses) is a *copy*;
- an added and a removed fixture that belong together (same ``meta`` test or case,
  else the same ``.jsonl`` file or the same folder of ``.json`` files, and sharing a
  part of the request) are *paired*, nearest request first, and their request
  difference is given by field path: a changed ``system`` is a prompt change,
  ``messages[2]: <missing> != {...}`` an extra message;
- a fixture whose request is unchanged but whose recorded response changed is an
  *alarm*: a hand edit, or a silent model change. Recording more samples of the same
  request (earlier samples untouched) is not;
- a changed or added fixture whose stored key is not its request's fingerprint is an
  *alarm* too: a hand edit of the key or the request, which verify and the replay
  refuse. Fixtures that did not change are not checked again;
- so is a changed or added fixture that holds a secret-looking value (law 4), named by
  its field path and the rule that saw it, never shown: verify refuses it, and no
  recording would have written it;
- so is a fixture added to a store that holds its request already with other
  responses (two branches recorded it, joined by a ``merge=union`` or by hand), which
  verify and the replay refuse too;
- a fixture file renamed or moved (as git's rename detection finds it, or with the same
  bytes under another name) is *renamed*, and its fixtures are compared as those of one
  file: what changed inside it is reported as a change, what did not is not reported;
- a changed file named as a fixture file that is one of replaygate's other files (an eval
  cases file, a baseline: as ``verify`` tells them) is *passed over*, named with what
  changed in it, and not counted among the fixture files.
"""

from __future__ import annotations

import dataclasses
import os
import posixpath
import re
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from replaygate.errors import shown_file
from replaygate.fixtures.diff import FieldDifference, field_diff
from replaygate.fixtures.fingerprint import fixture_key, key_holds, parsed_match_form
from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.mismatch import read_from
from replaygate.fixtures.nearest import Features, features, rank_key
from replaygate.hygiene.errors import HygieneError
from replaygate.hygiene.gitlinks import lies_within
from replaygate.hygiene.gitrev import Repo
from replaygate.hygiene.review_others import PassedOver, other_file_change
from replaygate.hygiene.snapshot import Entry, Other, Side, revision, worktree
from replaygate.json_where import field_line
from replaygate.missing import pasted_location
from replaygate.sanitize.config import store_config
from replaygate.sanitize.secret_allow import NOTHING_SAFE, KnownSafe
from replaygate.sanitize.secret_mask import masked_pair
from replaygate.sanitize.secret_scan import SecretFinding, find_each_fixture_secrets

FULL_SCAN_LIMIT = 500
"""Groups up to this size are paired by ranking every candidate; larger ones by buckets."""


@dataclass(frozen=True)
class _Change:
    """A fixture as it was (``old``) and as it is (``new``)."""

    old: Entry
    new: Entry


@dataclass(frozen=True)
class _FieldsChange(_Change):
    """A change with the field paths that differ."""

    differences: tuple[FieldDifference, ...]


@dataclass(frozen=True)
class Paired(_FieldsChange):
    """A removed and an added fixture of the same test: the request changed."""

    response_changed: bool

    @property
    def summary(self) -> str:
        """What changed, in a few words: the top-level request fields, the message count."""
        return change_summary(self.old.fixture.request, self.new.fixture.request, self.differences)


@dataclass(frozen=True)
class ResponseChanged(_FieldsChange):
    """The ALARM: the same request, a different recorded response."""

    @property
    def recorded_again(self) -> bool:
        """Whether it was recorded again (its ``meta.recorded_at`` changed with it): the API
        answered the same request otherwise. Else its response was edited by hand."""
        old, new = (_recorded_at(e.fixture.meta) for e in (self.old, self.new))
        return old is not None and new is not None and old != new


def _recorded_at(meta: Any) -> Any:
    """``meta.recorded_at``, or None."""
    return meta.get("recorded_at") if isinstance(meta, dict) else None


@dataclass(frozen=True)
class KeyMismatch:
    """The ALARM: a stored key that is not its request's fingerprint (``expected``).

    The key or the request was edited by hand: verify and the replay refuse the fixture.
    """

    new: Entry
    expected: str

    @property
    def differences(self) -> tuple[FieldDifference, ...]:
        """The stored key against its request's (stored != expected)."""
        return (FieldDifference("key", self.new.fixture.key, self.expected),)


@dataclass(frozen=True)
class RecordedTwice(_FieldsChange):
    """The ALARM: a fixture added (``new``) to a store that holds its request already
    (``old``) with other responses; the differences are those of the responses.

    Two branches recorded the request, and the lines of both were kept: verify and the
    replay refuse the store."""


@dataclass(frozen=True)
class SecretHeld:
    """The ALARM: a changed or added fixture that holds a secret-looking value (law 4),
    at ``finding``'s field path, found by its rule; the value is never shown.

    No recording writes such a fixture and verify refuses it: a hand edit, or a file
    written around replaygate's store."""

    new: Entry
    finding: SecretFinding

    @property
    def differences(self) -> tuple[FieldDifference, ...]:
        """None to show: the value is the secret."""
        return ()


Alarm = ResponseChanged | KeyMismatch | RecordedTwice | SecretHeld
"""What the review raises an ALARM for."""


@dataclass(frozen=True)
class Renamed:
    """A fixture file renamed or moved from ``old`` to ``new``; ``similarity``: how alike
    their bytes are, in percent, as git's rename detection rates them (100: the same)."""

    old: str
    new: str
    similarity: int


@dataclass(frozen=True)
class SamplesAdded(_Change):
    """The same request with more samples recorded; the earlier ones untouched."""

    added: int
    """How many answers were added (a sample line's index leaves the slots before it
    empty: they are not samples)."""
    indices: tuple[int, ...] = ()
    """The sample indices of the answers added."""


@dataclass(frozen=True)
class Copied(_Change):
    """A fixture line added that repeats another of the same side (``old``): the same
    request and responses, as a ``merge=union`` of two branches that recorded it gives.
    The store takes such copies; they add nothing to review."""


@dataclass(frozen=True)
class MetaChanged(_FieldsChange):
    """The same request and responses; only ``meta`` changed."""


@dataclass(frozen=True)
class Review:
    """The classified differences between the fixtures of two sides."""

    path: str
    base: str
    head: str
    files_compared: int
    """Every file named as a fixture file (``.jsonl``, ``.json``) on either side, changed or
    not, replaygate's other files among them: an unchanged file is compared by its content
    id, never read, so what it holds is not known."""
    files_changed: int
    """The fixture files whose content differs, :attr:`passed_over` not counted."""
    added: tuple[Entry, ...] = ()
    removed: tuple[Entry, ...] = ()
    paired: tuple[Paired, ...] = ()
    alarms: tuple[Alarm, ...] = ()
    samples_added: tuple[SamplesAdded, ...] = ()
    meta_changed: tuple[MetaChanged, ...] = ()
    copied: tuple[Copied, ...] = ()
    renamed: tuple[Renamed, ...] = ()
    files_removed: tuple[str, ...] = ()
    """The fixture files only the base side holds, not renamed: their fixtures removed, or
    moved to other files (a store split into a folder)."""
    files_added: tuple[str, ...] = ()
    """The fixture files only the head side holds, not renamed."""
    passed_over: tuple[PassedOver, ...] = ()
    """The changed files that are replaygate's other files (eval cases, a baseline...),
    not fixtures: named, never counted as fixture files."""

    @property
    def response_alarms(self) -> tuple[ResponseChanged, ...]:
        """The alarms for a response that changed under an unchanged request."""
        return tuple(a for a in self.alarms if isinstance(a, ResponseChanged))

    @property
    def key_alarms(self) -> tuple[KeyMismatch, ...]:
        """The alarms for a stored key that is not its request's."""
        return tuple(a for a in self.alarms if isinstance(a, KeyMismatch))

    @property
    def twice_alarms(self) -> tuple[RecordedTwice, ...]:
        """The alarms for a request its store now holds twice with other responses."""
        return tuple(a for a in self.alarms if isinstance(a, RecordedTwice))

    @property
    def secret_alarms(self) -> tuple[SecretHeld, ...]:
        """The alarms for a changed or added fixture holding a secret-looking value."""
        return tuple(a for a in self.alarms if isinstance(a, SecretHeld))

    @property
    def refused(self) -> bool:
        """True when an alarm names what verify (or the replay) refuses, which no reason
        makes acceptable."""
        return bool(self.key_alarms or self.twice_alarms or self.secret_alarms)

    @property
    def unchanged(self) -> bool:
        """True when no fixture was added, removed or changed."""
        return not (
            self.added
            or self.removed
            or self.paired
            or self.alarms
            or self.samples_added
            or self.meta_changed
            or self.copied
            or self.renamed
        )


def review(
    base: Side,
    head: Side,
    path: str,
    moved: Sequence[tuple[str, str, int]] = (),
    safe: KnownSafe = NOTHING_SAFE,
) -> Review:
    """Compare the fixtures of ``base`` and ``head`` (only files whose content differs);
    ``moved``: the files git finds renamed, ``(old, new, similarity)``
    (:meth:`~replaygate.hygiene.gitrev.Repo.renames`); ``safe``: the project's known-safe
    values, which the secret scan of the fixtures changed or added lets through."""
    names = set(base.files) | set(head.files)
    changed = sorted(n for n in names if base.files.get(n) != head.files.get(n))
    old, old_others = base.entries(n for n in changed if n in base.files)
    new, new_others = head.entries(n for n in changed if n in head.files)
    others = _others(changed, base, head, old_others, new_others)
    skipped = {other.file for other in others}
    renamed = [r for r in _renamed(base, head, moved) if not {r.old, r.new} & skipped]
    origin = {file.new: file.old for file in renamed}
    removed, added, same = _match_requests(old, new, origin)
    removed, added, same, copied, twice = _checked_moves(removed, added, same, origin)
    rekeyed = [b for a, b in same if a.fixture.key != b.fixture.key]
    keys = _key_mismatches([*rekeyed, *added, *(alarm.new for alarm in twice)])
    edited = [b for a, b in same if a.fixture != b.fixture]
    secrets = _secrets_held([*edited, *added, *(alarm.new for alarm in twice)], safe, head)
    alarms, samples, metas = _classify_same(same)
    pairs, added_only, removed_only = pair_up(removed, added, origin)
    return Review(
        path=path,
        base=base.label,
        head=head.label,
        files_compared=len(names),
        files_changed=len(changed) - len(others),
        added=tuple(added_only),
        removed=tuple(removed_only),
        paired=tuple(pairs),
        alarms=tuple(
            sorted([*alarms, *keys, *twice, *secrets], key=lambda a: (a.new.file, a.new.line))
        ),
        samples_added=tuple(samples),
        meta_changed=tuple(metas),
        copied=tuple(copied),
        renamed=tuple(renamed),
        files_removed=_only_in(changed, base, head, {*skipped, *origin.values()}),
        files_added=_only_in(changed, head, base, {*skipped, *origin}),
        passed_over=tuple(others),
    )


def _only_in(names: Sequence[str], side: Side, other: Side, left: set[str]) -> tuple[str, ...]:
    """Those of ``names`` that ``side`` holds and ``other`` does not, but those of ``left``."""
    return tuple(n for n in names if n in side.files and n not in other.files and n not in left)


def _others(
    changed: Sequence[str],
    base: Side,
    head: Side,
    old: Mapping[str, Other],
    new: Mapping[str, Other],
) -> list[PassedOver]:
    """The files of ``changed`` that are replaygate's other files (``old`` and ``new``:
    those of each side) on each side that holds them: passed over, not fixture files."""
    found = []
    for name in changed:
        was, now = old.get(name), new.get(name)
        there = (was or name not in base.files) and (now or name not in head.files)
        if there and (held := now or was) is not None:
            before, after = (None if o is None else o.data for o in (was, now))
            found.append(other_file_change(name, held.kind, before, after))
    return found


def _renamed(base: Side, head: Side, moved: Sequence[tuple[str, str, int]]) -> list[Renamed]:
    """The fixture files only ``base`` holds that ``head`` holds under another name: those
    of ``moved`` (git's rename detection), then those with the same bytes (a move git does
    not see: its new file is not yet added), in the order of their new names."""
    gone = {n for n in base.files if n not in head.files}
    came = {n for n in head.files if n not in base.files}
    found = [Renamed(old, new, alike) for old, new, alike in moved if old in gone and new in came]
    gone.difference_update(file.old for file in found)
    came.difference_update(file.new for file in found)
    by_bytes: dict[str, list[str]] = defaultdict(list)
    for name in sorted(gone):
        by_bytes[base.files[name]].append(name)
    for name in sorted(came):
        same = by_bytes.get(head.files[name])
        if same:
            found.append(Renamed(same.pop(0), name, 100))
    return sorted(found, key=lambda file: file.new)


def _read_from_here(path: Path, root: Path) -> str:
    """Where the relative ``path``, not there, was read from (the working folder), and the
    path to give from there when the repository's top folder (at ``root``) holds one of
    that name: ``diff`` run from a folder of the project (``cd tests``) read its default,
    ``tests/fixtures``, from that folder; nothing for a path that is there."""
    if path.is_absolute() or os.path.lexists(path):
        return ""
    said = read_from(path)
    meant = root / path
    if os.path.lexists(meant):
        here = shown_file(os.path.relpath(meant))
        said += f"; the repository's top folder holds {path}, which from here is {here}"
    return said


def review_store(path: Path, base: str = "HEAD", head: str | None = None) -> Review:
    """Review the store at ``path`` between revision ``base`` and ``head`` (or the working
    tree), files renamed or moved as git's rename detection finds them.

    A fixture file moved into the store (or out of it), from or to anywhere in the
    repository, is compared with the file it was moved from (or to): a store folder moved
    is reviewed by its new name as by its old one, and a store file moved into a folder
    of stores is no fixture added.
    """
    repo = Repo.containing(path, base)
    relpath = repo.relative(path)
    safe = store_config(path).safe_values()  # the project's known_safe, as verify reads it

    def at_head(where: str) -> Side:
        return worktree(repo, where) if head is None else revision(repo, head, where)

    old, new = revision(repo, base, relpath), at_head(relpath)
    if not old.files and not new.files:
        located = pasted_location(path)
        raise HygieneError(
            f"no fixture files (.jsonl, .json) at {path} in {old.label} nor in {new.label}"
            + (f": {located}" if located else _read_from_here(path, repo.root))
        )
    commits = repo.commit(base), None if head is None else repo.commit(head)
    moved = repo.renames(*commits, relpath) if old.files and new.files else []
    if old.files.keys() == new.files.keys():  # no file came or went
        return review(old, new, relpath, moved, safe)
    across = [
        pair
        for pair in repo.renames(*commits, "")
        if lies_within(pair[0], relpath) != lies_within(pair[1], relpath)
    ]
    came = [before for before, after, _ in across if lies_within(after, relpath)]
    went = [after for before, after, _ in across if lies_within(before, relpath)]
    old = _joined([old, *_files_of(lambda where: revision(repo, base, where), came)])
    new = _joined([new, *_files_of(at_head, went)])
    return review(old, new, relpath, [*moved, *across], safe)


def _files_of(side_at: Callable[[str], Side], names: Sequence[str]) -> list[Side]:
    """The sides ``side_at`` reads at the folders holding ``names`` (repository-relative),
    each holding those of ``names`` alone."""
    sides = []
    for folder in dict.fromkeys(posixpath.dirname(name) for name in names):
        side = side_at(folder)
        held = {n: side.files[n] for n in names if n in side.files}
        sides.append(Side(side.label, held, side.read))
    return sides


def _joined(sides: Sequence[Side]) -> Side:
    """One side holding the files of ``sides`` (of one revision, or the working tree)."""
    if len(sides) == 1:
        return sides[0]

    def read(paths: list[str]) -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        for side in sides:
            found.update(side.read([p for p in paths if p in side.files and p not in found]))
        return found

    files = {name: oid for side in sides for name, oid in side.files.items()}
    return Side(sides[0].label, files, read)


def _match_requests(
    old: list[Entry], new: list[Entry], origin: Mapping[str, str]
) -> tuple[list[Entry], list[Entry], list[tuple[Entry, Entry]]]:
    """Split into removed, added, and (old, new) entries holding the same request.

    A request is matched in its own file first (a renamed file by its old name,
    ``origin``: new name -> old), then in another file with the same answers, then in
    any other: two stores may each hold it with answers of their own, a store renamed is
    no answer changed, and one moved where git sees no rename keeps its answers.
    """
    same: list[tuple[Entry, Entry]] = []
    left = new
    for by_file, alike in ((True, False), (False, True), (False, False)):
        taken = {id(pair[0]) for pair in same}
        by_form: dict[tuple[str, bytes, str | None], list[Entry]] = defaultdict(list)
        for entry in old:
            if id(entry) not in taken:
                home = entry.file if by_file else ""
                by_form[(home, *_identity(entry.fixture))].append(entry)
        unmatched: list[Entry] = []
        for entry in left:
            home = origin.get(entry.file, entry.file) if by_file else ""
            olds = by_form.get((home, *_identity(entry.fixture)), [])
            answers = entry.fixture.responses
            at = next(
                (i for i, o in enumerate(olds) if not alike or o.fixture.responses == answers), None
            )
            if at is None:
                unmatched.append(entry)
            else:
                same.append((olds.pop(at), entry))
        left = unmatched
    taken = {id(pair[0]) for pair in same}
    return [entry for entry in old if id(entry) not in taken], left, same


def _checked_moves(
    removed: list[Entry],
    added: list[Entry],
    same: list[tuple[Entry, Entry]],
    origin: Mapping[str, str],
) -> tuple[list[Entry], list[Entry], list[tuple[Entry, Entry]], list[Copied], list[RecordedTwice]]:
    """:func:`_copies` of the fixtures added and of those moved into another file
    (``origin``: a renamed file's new name -> old), whose new store may hold their
    request already: such a move is a copy or a request recorded twice there, and the
    fixture it was moved from is removed; any other move stays a pair of ``same``."""
    moved = {id(b) for a, b in same if origin.get(b.file, b.file) != a.file}
    kept = [b for _, b in same if id(b) not in moved]
    really, copied, twice = _copies([*added, *(b for _, b in same if id(b) in moved)], kept)
    stays = {id(entry) for entry in really}
    gone = [a for a, b in same if id(b) in moved and id(b) not in stays]
    same = [(a, b) for a, b in same if id(b) not in moved or id(b) in stays]
    added = [entry for entry in really if id(entry) not in moved]
    removed = sorted([*removed, *gone], key=lambda e: (e.file, e.line))
    return removed, added, same, copied, twice


def _copies(
    added: list[Entry], kept: list[Entry]
) -> tuple[list[Entry], list[Copied], list[RecordedTwice]]:
    """Split ``added`` into the fixtures really added, the copies of another fixture of
    the head side (one of ``kept``, there on both sides, else the first of ``added``, of
    the same request in the same store, file or folder) with the same key and responses,
    and those whose responses differ from that other fixture's."""
    first: dict[tuple[str, tuple[bytes, str | None]], Entry] = {}
    for entry in [*kept, *sorted(added, key=lambda e: (e.file, e.line))]:
        first.setdefault((_store_of(entry), _identity(entry.fixture)), entry)
    really: list[Entry] = []
    copies: list[Copied] = []
    twice: list[RecordedTwice] = []
    for entry in added:
        original = first.get((_store_of(entry), _identity(entry.fixture)))
        if original is None or original is entry:
            really.append(entry)
        elif original.fixture.responses != entry.fixture.responses:
            pair = _answers(original.fixture, entry.fixture)
            twice.append(RecordedTwice(original, entry, tuple(field_diff(*pair))))
        elif original.fixture.key == entry.fixture.key:
            copies.append(Copied(original, entry))
        else:
            really.append(entry)
    return really, copies, twice


def _store_of(entry: Entry) -> str:
    """The store ``entry`` belongs to, for copies: its ``.jsonl`` file, or the folder of
    its ``.json`` file."""
    return entry.file if entry.file.endswith(".jsonl") else posixpath.dirname(entry.file)


def _key_mismatches(entries: Sequence[Entry]) -> list[KeyMismatch]:
    """The entries whose stored key is not their request's, as the replay checks it: an
    intact seal vouches for the key, or else the key is recomputed (:func:`has_key`)."""
    found = []
    for entry in entries:
        fixture = entry.fixture
        form = parsed_match_form(fixture.request)
        if not key_holds(fixture.request, fixture.key, fixture.seal, form):
            found.append(KeyMismatch(entry, fixture_key(fixture.request)))
    return found


def _secrets_held(entries: Sequence[Entry], safe: KnownSafe, head: Side) -> list[SecretHeld]:
    """The entries that hold a secret-looking value, each with its first finding, as
    verify and the store's writer scan a fixture (the text of a stream joined too); one
    of a one-fixture ``.json`` file put at the line of ``head``'s file that holds the
    field, as verify puts it (:func:`~replaygate.json_where.field_line`)."""
    found = find_each_fixture_secrets([entry.fixture.to_json() for entry in entries], safe)
    held = [SecretHeld(e, seen[0]) for e, seen in zip(entries, found, strict=True) if seen]
    whole = sorted({alarm.new.file for alarm in held if not alarm.new.line})
    if not whole:
        return held
    files = head.read(whole)
    return [
        dataclasses.replace(alarm, new=dataclasses.replace(alarm.new, line=line))
        if not alarm.new.line
        and (line := field_line(files.get(alarm.new.file, b""), alarm.finding.path))
        else alarm
        for alarm in held
    ]


def interface_version(fixture: Fixture) -> str | None:
    """``meta.interface_version``: a fixture is bound to it, like to its request."""
    version = (fixture.meta or {}).get("interface_version")
    return None if version is None else str(version)


def _identity(fixture: Fixture) -> tuple[bytes, str | None]:
    return parsed_match_form(fixture.request), interface_version(fixture)


def _answers(old: Fixture, new: Fixture) -> tuple[Any, Any]:
    """The answers of two fixtures, masked, as their differences name them: ``response``
    when each holds one, else ``responses`` on both sides, so a poll answered once more
    shows the answer added, not each side's answers whole under another name."""
    if len(old.responses) == len(new.responses) == 1:
        return masked_pair({"response": old.responses[0]}, {"response": new.responses[0]})
    return masked_pair({"responses": list(old.responses)}, {"responses": list(new.responses)})


def _only_samples_added(old: Fixture, new: Fixture) -> bool:
    if len(new.responses) <= len(old.responses):
        return False
    return all(o is None or o == n for o, n in zip(old.responses, new.responses, strict=False))


def _added_samples(old: Fixture, new: Fixture) -> tuple[int, ...]:
    """The indices of the answers ``new`` holds where ``old`` holds none."""
    before = len(old.responses)
    return tuple(
        index
        for index, answer in enumerate(new.responses)
        if answer is not None and (index >= before or old.responses[index] is None)
    )


def _classify_same(
    same: list[tuple[Entry, Entry]],
) -> tuple[list[ResponseChanged], list[SamplesAdded], list[MetaChanged]]:
    alarms: list[ResponseChanged] = []
    samples: list[SamplesAdded] = []
    metas: list[MetaChanged] = []
    for old, new in same:
        a, b = old.fixture, new.fixture
        if a.responses != b.responses:
            if _only_samples_added(a, b):
                indices = _added_samples(a, b)
                samples.append(SamplesAdded(old, new, len(indices), indices))
            else:
                diffs = field_diff(*_answers(a, b))
                alarms.append(ResponseChanged(old, new, tuple(diffs)))
        elif (a.meta or {}) != (b.meta or {}):
            changed = field_diff(*masked_pair(a.meta or {}, b.meta or {}))
            metas.append(MetaChanged(old, new, tuple(changed)))
    return alarms, samples, metas


def groups_of(entry: Entry, origin: Mapping[str, str] | None = None) -> set[tuple[str, ...]]:
    """The groups a fixture belongs to: its meta test/case, and its file (or folder), a
    renamed file by its old name (``origin``: new name -> old)."""
    found: set[tuple[str, ...]] = set()
    meta = entry.fixture.meta or {}
    test, case = meta.get("test"), meta.get("case")
    if test is not None or case is not None:
        found.add(("meta", str(test), str(case)))
    file = entry.file if origin is None else origin.get(entry.file, entry.file)
    if file.endswith(".jsonl"):
        found.add(("file", file))
    else:
        found.add(("folder", _folder_group(file)))
    return found


def _folder_group(file: str) -> str:
    """The folder of a ``.json`` fixture, an ``@version`` suffix dropped.

    ``<store>/<interface>@<version>/<key>.json``: a new interface version is a new
    folder, and its fixtures still belong with those of the old one.
    """
    head, _, last = posixpath.dirname(file).rpartition("/")
    return posixpath.join(head, last.split("@", 1)[0])


ALIKE_FIELDS = frozenset({"method", "headers"})
"""Fields of a request without a conversation that most requests of a store share, so
sharing them makes no two requests alike."""
MULTIPART_KIND = 0
"""The value :func:`.nearest.features` gives a ``text`` or ``base64`` field holding a
multipart body, which it reads as its parts: a kind, no part of its own."""


def _shares_a_part(target: Features, candidate: Features, request: Mapping[str, Any]) -> bool:
    """Whether two requests share part of them: a field or a message of a conversation;
    for requests without one (an upload, a batch, a GET), a field other than
    :data:`ALIKE_FIELDS` (the path, the model, a multipart part), no body counting as none."""
    if target.messages or candidate.messages:
        parts = 1 + max(len(target.messages), len(candidate.messages))
        return rank_key(target, candidate)[0] < parts
    skip = ALIKE_FIELDS | ({"body"} if request.get("body") is None else set())
    return any(
        name not in skip and value != MULTIPART_KIND for name, value in target.head & candidate.head
    )


@dataclass
class _Group:
    """The removed fixtures of one group, indexed by messages once the group is large."""

    members: list[int] = field(default_factory=list)
    by_messages: dict[tuple[int, ...], list[int]] | None = None
    by_first: dict[tuple[int, ...], list[int]] | None = None

    def candidates(self, feats: Sequence[Features], target: Features) -> Sequence[int]:
        """The members worth ranking against ``target``.

        All of a small group; in a large one, those with the same messages, else those
        with the same first message.
        """
        if len(self.members) <= FULL_SCAN_LIMIT:
            return self.members
        if self.by_messages is None or self.by_first is None:
            self.by_messages, self.by_first = defaultdict(list), defaultdict(list)
            for i in self.members:
                self.by_messages[feats[i].messages].append(i)
                self.by_first[feats[i].messages[:1]].append(i)
        same = self.by_messages.get(target.messages)
        if same:
            return same[:FULL_SCAN_LIMIT]
        return self.by_first.get(target.messages[:1], [])[:FULL_SCAN_LIMIT]


def pair_up(
    removed: Sequence[Entry], added: Sequence[Entry], origin: Mapping[str, str] | None = None
) -> tuple[list[Paired], list[Entry], list[Entry]]:
    """Pair removed and added fixtures of the same group, nearest request first; an added
    fixture of a renamed file is grouped by the file's old name (``origin``: new -> old).

    Returns the pairs, the added fixtures left alone, the removed fixtures left alone.
    """
    old_feats = [features(e.fixture.request) for e in removed]
    new_feats = [features(e.fixture.request) for e in added]
    groups: dict[tuple[str, ...], _Group] = defaultdict(_Group)
    for i, entry in enumerate(removed):
        for name in groups_of(entry):
            groups[name].members.append(i)
    candidates: list[tuple[tuple[int, int, int], int, int]] = []
    for j, entry in enumerate(added):
        seen: set[int] = set()
        for name in groups_of(entry, origin):
            group = groups.get(name)
            if group is None:
                continue
            explicit = name[0] == "meta"
            for i in group.candidates(old_feats, new_feats[j]):
                if i in seen:
                    continue
                seen.add(i)
                if explicit or _shares_a_part(new_feats[j], old_feats[i], entry.fixture.request):
                    candidates.append((rank_key(new_feats[j], old_feats[i]), j, i))
    candidates.sort()
    used_old: set[int] = set()
    used_new: set[int] = set()
    pairs: list[Paired] = []
    for _, j, i in candidates:
        if i in used_old or j in used_new:
            continue
        used_old.add(i)
        used_new.add(j)
        pairs.append(_paired(removed[i], added[j]))
    pairs.sort(key=lambda p: (p.new.file, p.new.line))
    left_new = [e for j, e in enumerate(added) if j not in used_new]
    left_old = [e for i, e in enumerate(removed) if i not in used_old]
    return pairs, left_new, left_old


def _paired(old: Entry, new: Entry) -> Paired:
    diffs = field_diff(*masked_pair(old.fixture.request, new.fixture.request))
    before, after = interface_version(old.fixture), interface_version(new.fixture)
    if before != after:
        diffs.append(FieldDifference("meta.interface_version", before, after))
    return Paired(old, new, tuple(diffs), old.fixture.responses != new.fixture.responses)


def _messages(request: Any) -> list[Any] | None:
    holder = request.get("body") if isinstance(request.get("body"), dict) else request
    messages = holder.get("messages")
    return messages if isinstance(messages, list) else None


MULTIPART_STEP = re.compile(r"(?:text|base64) \((multipart [^,)]*)")
"""A difference of a multipart body's part (``text (multipart file, a.wav)``), the part's
name its group: the file name in it may hold a dot."""


def change_summary(
    old: dict[str, Any], new: dict[str, Any], differences: Sequence[FieldDifference]
) -> str:
    """``system``, ``messages 2 -> 3``, ``model, tools``...: the request fields that changed."""
    fields: list[str] = []
    for diff in differences:
        path = diff.path.removeprefix("body.").removeprefix("meta.")
        part = MULTIPART_STEP.match(path)
        top = part[1] if part else path.split(".", 1)[0].split("[", 1)[0] or "<root>"
        if top not in fields:
            fields.append(top)
    before, after = _messages(old), _messages(new)
    parts = []
    for name in fields:
        if name == "messages" and before is not None and after is not None:
            if len(before) != len(after):
                parts.append(f"messages {len(before)} -> {len(after)}")
                continue
            changed = sorted(
                {d.path.split("]", 1)[0] + "]" for d in differences if "messages[" in d.path}
            )
            parts.append(", ".join(p.removeprefix("body.") for p in changed) or "messages")
            continue
        parts.append(name)
    return ", ".join(parts) or "no request difference"
