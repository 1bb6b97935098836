"""Drift between fixtures and the live API, or between two fixture sets (seed 003, 4.3).

The field sets of responses (:mod:`replaygate.hygiene.fieldset`) are compared answer by
answer and gathered per interface, both ways: fields in live responses but in no fixture
(the parser may read a field the fixtures never give it), and fields in fixtures but in
no live response (the fixtures feed data that no longer exists). Live mode re-sends a
seeded sample of recorded requests once each and compares each live answer with the
first recorded answer of its own fixture; ``--against`` compares each recorded answer
with the answer the other fixture set holds for the same request and sample index (error
answers left out on both sides, as live mode leaves them out: :mod:`.drift_answers`),
and the answers of the requests only one side holds pooled per interface (a set recorded
again carries new tool ids and words past the first turn, a set of another model a new
``model``). An interface drifted when any answer has a field its counterpart lacks, or
lacks one it has (pooled: the answers of one side have a field none of the other side's
has), or when the live answers (or OTHER's) hold a field with a JSON type no answer of
the fixtures holds it with (:mod:`.drift_types`: a count that came null, an object that
came as a list).
"""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from itertools import zip_longest
from pathlib import Path
from typing import Any, Literal, NamedTuple, TypeAlias

from replaygate.errors import MissingExtraError, first_few
from replaygate.fixtures.fingerprint import match_form
from replaygate.fixtures.fixture import Fixture, is_envelope
from replaygate.fixtures.modes import require_live_approval
from replaygate.fixtures.store import Location
from replaygate.hygiene.drift_answers import (
    compared_answer,
    error_answer,
    live_shape,
    no_answer,
)
from replaygate.hygiene.drift_script import ScriptLines
from replaygate.hygiene.drift_types import Retyped, answer_shape, retyped
from replaygate.hygiene.errors import HygieneError
from replaygate.hygiene.fieldset import (
    UNKNOWN,
    Shape,
    interface_of_fixture,
    merge_shape,
    not_json_answer,
    response_shape,
)
from replaygate.hygiene.resend import LiveSender, unsendable
from replaygate.hygiene.stored import each_fixture, fixtures_at, where
from replaygate.jsondoc import json_fields
from replaygate.sanitize.secret_mask import masked_pair, masked_texts

Mode = Literal["live", "against"]
Compared = Literal["by request", "pooled"]


@dataclass(frozen=True)
class InterfaceDrift:
    """The field-set difference of one interface; ``new`` is live (or OTHER), ``old`` PATH."""

    interface: str
    only_new: tuple[str, ...]
    only_old: tuple[str, ...]
    old_responses: int
    new_responses: int
    compared: Compared = "by request"
    retyped: tuple[Retyped, ...] = ()
    """The fields ``new`` sent with a type no answer of ``old`` holds them with."""

    @property
    def drifted(self) -> bool:
        """Whether either side has a field the other lacks, or ``new`` a type ``old`` lacks."""
        return bool(self.only_new or self.only_old or self.retyped)

    def to_json(self) -> dict[str, Any]:
        """The JSON of one interface, each retyped field an object."""
        return {**json_fields(self), "retyped": [json_fields(r) for r in self.retyped]}


def _found(
    interface: str,
    fields: tuple[set[str], set[str], list[Retyped]],
    responses: tuple[int, int],
    compared: Compared,
) -> InterfaceDrift:
    """An interface's drift from the fields only ``new`` and only ``old`` have and the
    fields retyped, a secret used as a field name masked (the report may be written to a
    file)."""
    only_new, only_old, found = fields
    (new, paths), old = masked_pair([sorted(only_new), [r.field for r in found]], sorted(only_old))
    shown = [Retyped(path, r.old, r.new) for path, r in zip(paths, found, strict=True)]
    return InterfaceDrift(
        interface, tuple(new), tuple(old), *responses, compared, retyped=tuple(shown)
    )


DRIFT_FORMAT = "replaygate.drift"
"""The ``format`` of drift's JSON report, by which the stores and the hygiene commands
pass over a report written among the fixtures or at the project's top."""


@dataclass(frozen=True)
class DriftReport:
    """The outcome of one drift check."""

    mode: Mode
    path: str
    other: str
    interfaces: tuple[InterfaceDrift, ...]
    sampled: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    unmatched: tuple[str, ...] = ()
    pooled: tuple[str, ...] = ()
    seed: int | None = None
    not_compared: int = 0
    """How many requests only one side holds had nothing on the other side to be
    compared with (``--against``): named under :attr:`unmatched`."""
    answers_not_compared: int = 0
    """How many answers of requests both sides hold had no answer of the other side to
    be compared with, of a sample or a fixture only one side recorded (``--against``):
    named under :attr:`unmatched`."""
    uninjected: tuple[str, ...] = ()
    """The simulator's drift rules that changed no answer (a misspelt field): the drift
    they were to inject was not there to be found."""

    @property
    def drifted(self) -> bool:
        """Whether any interface drifted."""
        return any(i.drifted for i in self.interfaces)

    @property
    def drifted_interfaces(self) -> int:
        """How many interfaces drifted, by request or pooled."""
        return len({i.interface for i in self.interfaces if i.drifted})

    @property
    def verdict(self) -> bool | None:
        """True on drift, False on none; None when nothing drifted but a request could
        not be re-sent, a recorded request or answer was compared with nothing, or a
        drift rule of the simulator injected nothing: the check did not run whole, which
        is no pass."""
        if self.drifted:
            return True
        unchecked = self.errors or self.not_compared or self.answers_not_compared
        return None if unchecked or self.uninjected else False

    def to_json(self) -> dict[str, Any]:
        """The JSON report, tagged with :data:`DRIFT_FORMAT`."""
        return {
            "format": DRIFT_FORMAT,
            **json_fields(self, ("mode", "path", "other", "seed")),
            "drift": self.verdict,
            "interfaces": [i.to_json() for i in self.interfaces],
            **json_fields(
                self, ("sampled", "skipped", "errors", "unmatched", "pooled", "uninjected")
            ),
        }


@dataclass
class _Pairs:
    """Per-request differences of one interface: each live answer against its own
    recorded answer, the fields either side lacks gathered over the requests, and the
    types of the new answers gathered."""

    only_new: set[str] = field(default_factory=set)
    only_old: set[str] = field(default_factory=set)
    types: Shape = field(default_factory=dict)
    responses: int = 0

    def add(self, old: Shape, new: Shape) -> None:
        self.only_new |= new.keys() - old.keys()
        self.only_old |= old.keys() - new.keys()
        merge_shape(self.types, new)
        self.responses += 1

    def drift(self, interface: str, fixtures: Shape) -> InterfaceDrift:
        """The interface's drift; each request was compared with one answer each side,
        the types of the new answers with those of every answer of ``fixtures``."""
        fields = (self.only_new, self.only_old, retyped(fixtures, self.types))
        return _found(interface, fields, (self.responses, self.responses), "by request")


LIVE_DRIFT = "drift re-sends recorded requests to the live API, which costs money,"
SIM_DRIFT = "drift re-sends recorded requests, here to the loopback simulator (free),"
"""Why ``drift --simulator`` needs the approval too, where it costs nothing."""


Answer: TypeAlias = "Shape | str | None"
"""A recorded answer as compared: its field set with its types, why it is not a JSON
object (an HTML page), or None when that sample never sent the request."""


class _Sampled(NamedTuple):
    """A recorded answer as compared, with the sample index it was recorded at."""

    sample: int
    answer: Answer


class _Recorded(NamedTuple):
    """A fixture of one fixture set: where it is, its request's match form, its
    interface and its answers, error answers left out
    (:func:`~.drift_answers.error_answer`: a request recorded through an SDK's retries,
    429 then 200, is compared by its 200, as live mode compares it)."""

    place: str
    interface: str
    answers: tuple[_Sampled, ...]
    form: bytes = b""
    """The SHA-256 digest of its request's match form: a set of 20,000 fixtures held each
    request whole (78 MB) to pair them."""
    file: str = ""
    """Its file, relative to the fixture set's path (``.`` for a set of one file)."""


_NOTHING = _Recorded("", UNKNOWN, ())
"""The counterpart of a fixture the other side holds no more of: none of its answers."""


@dataclass
class _Side:
    """What one fixture set holds for the comparison: its requests (by the digest of their
    match form), the interfaces of its recorded answers and the types of their fields, and
    why a fixture that recorded only error answers was left out."""

    path: Path
    requests: dict[bytes, list[_Recorded]] = field(default_factory=dict)
    interfaces: set[str] = field(default_factory=set)
    types: dict[str, Shape] = field(default_factory=lambda: defaultdict(dict))
    skipped: list[str] = field(default_factory=list)
    _shapes: dict[tuple[tuple[str, tuple[str, ...]], ...], Shape] = field(default_factory=dict)
    _held: dict[tuple[bytes, str], tuple[_Sampled, ...]] = field(default_factory=dict)
    """The answers of the first fixture of each request in each file: a later fixture of
    the file whose answers show the same fields (a copy a ``merge=union`` of two branches
    leaves, which the store takes as the fixture it repeats) is compared once, not as
    answers the other side lacks."""

    @staticmethod
    def read(path: Path) -> _Side:
        """The fixtures at ``path``, read one at a time; a request several fixtures hold
        (the per-test stores of a folder sharing a first turn), each of them in store
        order, a copy of a fixture in its own file once."""
        side = _Side(path)
        for loc, fixture in each_fixture(path):
            if all(response is None for response in fixture.responses):
                continue
            if compared_answer(fixture) is None:  # no answer but errors: none shows a field
                side.skipped.append(f"{where(loc)}: {no_answer(fixture)}")
                continue
            interface = interface_of_fixture(fixture)
            side.interfaces.add(interface)
            answers = tuple(
                _Sampled(index, side.shared(_answer(fixture.request, response)))
                for index, response in enumerate(fixture.responses)
                if error_answer(fixture.request, response) is None
            )
            side.add_types(interface, answers)
            form = hashlib.sha256(match_form(fixture.request)).digest()
            file = _relative(loc.file, path)
            first = side._held.setdefault((form, file), answers)
            if first is not answers and first == answers:
                continue  # a copy of a fixture of its file, as a merge=union leaves
            place = f"{where(loc)} (key {fixture.key})"
            side.requests.setdefault(form, []).append(
                _Recorded(place, interface, answers, form, file)
            )
        return side

    def shared(self, answer: Answer) -> Answer:
        """``answer``, or the equal field set an earlier answer of this side holds: the
        answers of a store mostly share a few field sets, each held once (never changed)."""
        if not isinstance(answer, dict):
            return answer
        fields = tuple(sorted((path, tuple(sorted(types))) for path, types in answer.items()))
        return self._shapes.setdefault(fields, answer)

    def add_types(self, interface: str, answers: tuple[_Sampled, ...]) -> None:
        """Gather the types of ``answers`` under ``interface``."""
        for _, answer in answers:
            if isinstance(answer, dict):
                merge_shape(self.types[interface], answer)

    def unpaired(self, other: _Side) -> dict[str, list[_Recorded]]:
        """The fixtures of the requests of this side that ``other`` does not hold, by
        interface."""
        found: dict[str, list[_Recorded]] = defaultdict(list)
        for form, fixtures in self.requests.items():
            if form not in other.requests:
                for recorded in fixtures:
                    found[recorded.interface].append(recorded)
        return dict(found)


def _relative(file: Path, path: Path) -> str:
    """``file`` relative to the fixture set ``path`` it was read from."""
    try:
        return file.relative_to(path).as_posix()
    except ValueError:
        return str(file)


def _matched(
    mine: list[_Recorded], theirs: list[_Recorded]
) -> Iterator[tuple[_Recorded, _Recorded]]:
    """The fixtures of one request on two sides in pairs: those of the same file under
    each side's path first (a test's own store, in the pytest plugin's layout of one
    store per test), then the rest in store order; a fixture one side holds more of is
    paired with :data:`_NOTHING`."""
    rest = list(theirs)
    left: list[_Recorded] = []
    for recorded in mine:
        same = next((found for found in rest if found.file == recorded.file), None)
        if same is None:
            left.append(recorded)
        else:
            rest.remove(same)
            yield recorded, same
    yield from zip_longest(left, rest, fillvalue=_NOTHING)


def _answer(request: dict[str, Any], response: Any) -> Answer:
    """A recorded ``response`` to ``request`` as compared (:data:`Answer`)."""
    if response is None:
        return None
    problem = not_json_answer(request, response)
    if problem is not None:
        return problem
    return response_shape(response, envelope=is_envelope(request))


def drift_against(path: Path, other: Path) -> DriftReport:
    """Compare the fixtures at ``path`` with those at ``other`` (offline).

    A request both sides hold is compared in every fixture that holds it (each with the
    fixture of the same file on the other side, the others in store order; the answers
    of a fixture the other side holds no more of are named and counted, not compared),
    sample by sample: each answer's field set with that of the same request's answer of
    the same sample index in ``other`` (one good answer does not hide an empty one;
    error answers left out, so a request recorded through an SDK's retries is compared
    by its 200, and a fixture that recorded only errors is named under ``skipped``, its
    request one that side does not hold); an answer of a sample index only one side
    recorded is named and counted, not compared. The answers of the requests only one
    side holds are compared pooled per interface, the fields of all of them in ``path``
    against those of all of them in ``other`` (a set recorded again, or for another
    model, shares few requests or none); where only one side holds such requests of an
    interface (or the interface), they are named and counted, not compared, and so is an
    answer that is not a JSON object (a proxy's HTML page), named under ``errors``:
    either way, with no drift found, the check did not run whole. The types of
    ``other``'s answers compared are checked against those of every answer of ``path``
    of their interface."""
    old, new = _Side.read(path), _Side.read(other)
    _refuse_nothing_in_common(old, new)
    pairs: dict[str, _Pairs] = defaultdict(_Pairs)
    alone: dict[tuple[str, str, Path], list[str]] = defaultdict(list)
    errors: list[str] = []
    seen: tuple[set[str], set[str]] = (set(), set())  # the interfaces compared, by side
    answers_not_compared = 0
    for form, mine in old.requests.items():
        theirs = new.requests.get(form)
        if theirs is None:
            continue
        for before, after in _matched(mine, theirs):
            # a fixture without meta (interface unknown) is compared as the other side's
            interface = after.interface if before.interface == UNKNOWN else before.interface
            old.add_types(interface, before.answers)
            seen[0].add(interface)
            seen[1].add(interface)
            # the n-th answer of each side, error answers left out (samples as recorded)
            none = _Sampled(-1, None)
            for a, b in zip_longest(before.answers, after.answers, fillvalue=none):
                for recorded, (index, answer), counterpart, side in (
                    (before, a, b.answer, path),
                    (after, b, a.answer, other),
                ):
                    if isinstance(answer, str):
                        errors.append(f"{recorded.place}, sample {index}: {answer}")
                    elif answer is not None and counterpart is None:
                        place = f"{recorded.place}, sample {index}"
                        alone[interface, "answer(s)", side].append(place)
                        answers_not_compared += 1
                if isinstance(a.answer, dict) and isinstance(b.answer, dict):
                    pairs[interface].add(a.answer, b.answer)
    only_old, only_new = old.unpaired(new), new.unpaired(old)
    seen[0].update(only_old)
    seen[1].update(only_new)
    pooled: dict[str, InterfaceDrift] = {}
    pooled_places: list[str] = []
    for interface in sorted(only_old.keys() & only_new.keys()):
        mine, theirs = only_old.pop(interface), only_new.pop(interface)
        found = _pooled(
            interface, _gathered(mine, errors), _gathered(theirs, errors), old.types[interface]
        )
        if found is not None:
            pooled[interface] = found
        pooled_places += [
            f"{interface}: {_requests(fixtures)} request(s) only in {side}, compared pooled: "
            + first_few([r.place for r in fixtures], 3)
            for side, fixtures in ((path, mine), (other, theirs))
        ]
    not_compared = 0
    counted: dict[tuple[str, str, Path], int] = {}
    for side, unpaired in ((path, only_old), (other, only_new)):
        for interface, fixtures in unpaired.items():
            alone[interface, "request(s)", side] += [r.place for r in fixtures]
            counted[interface, "request(s)", side] = _requests(fixtures)
            not_compared += _requests(fixtures)
    unmatched = [
        f"{interface}: only in {path if interface in seen[0] else other}, not compared"
        for interface in sorted(seen[0] ^ seen[1])
    ]
    unmatched += [
        f"{interface}: {counted.get((interface, what, side), len(places))} {what} only in "
        f"{side}, not compared: " + first_few(places, 3)
        for (interface, what, side), places in sorted(
            alone.items(), key=lambda item: (item[0][0], item[0][1] == "answer(s)")
        )
        if interface in seen[0] & seen[1]
    ]
    compared = [pairs[i].drift(i, old.types[i]) for i in sorted(pairs)] + list(pooled.values())
    return DriftReport(
        "against",
        str(path),
        str(other),
        tuple(sorted(compared, key=lambda found: found.interface)),
        skipped=tuple(old.skipped + new.skipped),
        errors=tuple(errors),
        unmatched=tuple(unmatched),
        pooled=tuple(pooled_places),
        not_compared=not_compared,
        answers_not_compared=answers_not_compared,
    )


def _requests(fixtures: list[_Recorded]) -> int:
    """How many requests ``fixtures`` hold (two per-test stores may hold one)."""
    return len({recorded.form for recorded in fixtures})


class _Pool(NamedTuple):
    """The answers of one side's unpaired requests of an interface, gathered."""

    fields: Shape
    answers: int


def _gathered(fixtures: list[_Recorded], errors: list[str]) -> _Pool:
    """The union of the field sets (with their types) of every answer of ``fixtures``;
    an answer that is not a JSON object goes to ``errors``."""
    fields: Shape = {}
    answers = 0
    for recorded in fixtures:
        for index, answer in recorded.answers:
            if isinstance(answer, str):
                errors.append(f"{recorded.place}, sample {index}: {answer}")
            elif answer is not None:
                merge_shape(fields, answer)
                answers += 1
    return _Pool(fields, answers)


def _pooled(interface: str, old: _Pool, new: _Pool, fixtures: Shape) -> InterfaceDrift | None:
    """The pooled drift of ``interface``, the types of ``new`` against those of every
    answer of ``fixtures``; None when a side has no JSON answer to pool (its answers are
    under ``errors``: empty, it would read as every field dropped)."""
    if not (old.answers and new.answers):
        return None
    mine, theirs = old.fields.keys(), new.fields.keys()
    fields = (set(theirs - mine), set(mine - theirs), retyped(fixtures, new.fields))
    return _found(interface, fields, (old.answers, new.answers), "pooled")


def _refuse_nothing_in_common(old: _Side, new: _Side) -> None:
    """Refuse a comparison with no interface on both sides: it could not run, and "no
    drift" would read as a pass (an empty store, a wrong path, stores of other APIs). A
    request both sides hold is compared whatever the interfaces their meta name."""
    if old.interfaces & new.interfaces or old.requests.keys() & new.requests.keys():
        return
    path, other = old.path, new.path
    empty = {str(side.path): side.skipped for side in (old, new) if not side.requests}
    if any(empty.values()):  # a side recorded only error answers
        reason = "; ".join(
            f"no fixture at {held} holds an answer that is not an error ({first_few(why, 3)})"
            if why
            else f"{held} holds no recorded response"
            for held, why in empty.items()
        )
        reason += "; re-record those requests (an error answer shows no field the API sends)"
    elif empty:
        holds = " and ".join(empty)
        reason = f"{holds} {'holds' if len(empty) == 1 else 'hold'} no recorded response"
    else:
        reason = (
            f"no interface is in both: {path} holds {', '.join(sorted(old.interfaces))}; "
            f"{other} holds {', '.join(sorted(new.interfaces))}"
        )
    raise HygieneError(f"nothing to compare: {reason}")


def _unanswered(fixture: Fixture, shape: Shape | None) -> str | None:
    """Why ``fixture`` holds no recorded answer a live one can be compared with, or None;
    ``shape`` is that of its compared answer (:func:`answer_shape`)."""
    answer = compared_answer(fixture)
    if answer is None:
        return no_answer(fixture)
    problem = not_json_answer(fixture.request, answer)
    if problem is not None:
        return f"its recorded answer: {problem}"
    if not shape:
        return "its recorded answer holds no field"
    return None


def _store_order(loc: Location) -> tuple[str, int]:
    """File and line order, as the fixtures of a store are listed."""
    return str(loc.file), loc.line


class Drawable(NamedTuple):
    """What one read of the fixtures at a path gives a live drift, no fixture held."""

    eligible: list[tuple[Location, str]]
    """Where each re-sendable fixture is and its key, in file and line order."""
    skipped: list[str]
    """Why each other fixture is not re-sent, in file and line order."""
    types: dict[str, Shape]
    """The types every recorded answer holds, by interface."""


def drawable(path: Path, script: ScriptLines | None = None) -> Drawable:
    """Read every fixture at ``path`` once, one at a time (a store of any size is never
    held whole); with ``script``, only those a line of it answers as recorded are
    re-sendable. A request held again (a copy a ``merge=union`` of two branches leaves,
    two tests' stores holding one request) is drawable once, where it is read first: it
    is re-sent once, never paid for twice."""
    eligible, skipped = [], []
    types: dict[str, Shape] = {}
    drawn: set[bytes] = set()
    for loc, fixture in each_fixture(path):
        shapes = [answer_shape(fixture.request, r) for r in fixture.responses]
        into = types.setdefault(interface_of_fixture(fixture), {})
        for shape in filter(None, shapes):
            merge_shape(into, shape)
        compared = next((s for s in shapes if s is not None), None)
        reason = unsendable(fixture) or _unanswered(fixture, compared)
        if reason is None and script is not None:
            reason = script.unanswered(fixture)
        if reason is None:
            form = hashlib.sha256(match_form(fixture.request)).digest()
            if form not in drawn:
                drawn.add(form)
                eligible.append((loc, fixture.key))
        else:
            skipped.append((loc, f"{where(loc)}: {reason}"))
    eligible.sort(key=lambda item: _store_order(item[0]))
    skipped.sort(key=lambda item: _store_order(item[0]))
    return Drawable(eligible, [text for _, text in skipped], types)


def sample(path: Path, n: int, seed: int, drawable: Drawable) -> list[tuple[Location, Fixture]]:
    """``n`` of the re-sendable fixtures at ``path`` drawn with ``seed``, in store order."""
    eligible = drawable.eligible
    picked = random.Random(seed).sample(range(len(eligible)), min(n, len(eligible)))
    return fixtures_at(path, [eligible[i] for i in sorted(picked)])


def _gone(err: Exception, fixture: Fixture) -> str:
    """What to do about a 404 naming the model ``fixture`` asks for (a model retired since
    it was recorded: :func:`~replaygate.models.live.unserved_model`); else nothing."""
    from replaygate.models.live import unserved_model

    body = fixture.request.get("body") if is_envelope(fixture.request) else fixture.request
    model = body.get("model") if isinstance(body, Mapping) else None
    said = unserved_model(getattr(err, "status_code", None), str(err), str(model or ""))
    return "" if said is None else f" ({said}: re-record it with a current model)"


def drift_live(
    path: Path,
    n: int,
    sender: LiveSender,
    seed: int = 0,
    *,
    approve_live: bool = False,
    script: ScriptLines | None = None,
) -> DriftReport:
    """Re-send ``n`` sampled requests with ``sender``; compare each answer's field set
    with that of its own recorded answer (one good answer does not hide an empty one),
    and the types of the live answers' fields with those of every recorded answer of
    their interface (a field null in some fixtures and set in others is no drift).
    With ``script`` (a simulator answering from one), each request is answered with the
    line it was recorded from.

    Re-sending is a live call: it needs ``approve_live=True`` for this run (law 3).
    """
    require_live_approval(approve_live, why=LIVE_DRIFT)
    if n < 1:
        raise HygieneError(f"--live-sample must be at least 1, got {n}")
    found = drawable(path, script)
    chosen, skipped, types = sample(path, n, seed, found), found.skipped, found.types
    if not chosen:
        raise HygieneError(
            f"no fixture at {path} can be re-sent: "
            + ("; ".join(skipped[:3]) if skipped else "the store is empty")
        )
    pairs: dict[str, _Pairs] = defaultdict(_Pairs)
    sent, errors = [], []
    for loc, fixture in chosen:
        if script is not None:
            script.before(fixture)
        try:
            live = sender.send(fixture)
        except (HygieneError, MissingExtraError):  # the run's own set-up: no fixture's
            raise
        except Exception as err:  # an SDK or network error: reported, the rest still run
            cause = f" ({err.__cause__})" if err.__cause__ is not None else ""
            errors.append(f"{where(loc)} (key {fixture.key}): {err}{cause}{_gone(err, fixture)}")
            continue
        problem = error_answer(fixture.request, live)
        if problem is not None:  # an error is no answer, streamed or not: not compared
            errors.append(f"{where(loc)} (key {fixture.key}): live answer: {problem}")
            continue
        envelope = is_envelope(fixture.request)
        recorded = compared_answer(fixture)
        pairs[interface_of_fixture(fixture)].add(
            response_shape(recorded, envelope=envelope),
            live_shape(recorded, live, envelope=envelope),
        )
        sent.append(f"{where(loc)} (key {fixture.key})")
    return DriftReport(
        "live",
        str(path),
        sender.target,
        tuple(pairs[i].drift(i, types.get(i, {})) for i in sorted(pairs)),
        sampled=tuple(sent),
        skipped=tuple(skipped),
        errors=masked_texts(errors),  # what a live server answered, a key it echoed masked
        seed=seed,
    )
