"""Splitting an eval run over machines, and putting the pieces back together.

``replaygate eval --shard i/n`` runs a deterministic share of the cases: case ``c`` is
in shard ``1 + h % n``, ``h`` the first 8 bytes of ``sha256(c.id)`` read as an integer,
whatever the order of the cases file and whichever machine asks, so every case runs in
exactly one shard of ``n``. Each shard's results say which shard they are, how many
cases the whole run has and where each of theirs stood in it. ``replaygate eval merge``
checks that the shards of one run are all there, once each, and combines them into the
results a serial run would have written, cases in their file order (run information
apart: each shard's timing is kept under ``shards``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from replaygate.errors import first_few
from replaygate.evals.cases import EvalCase
from replaygate.evals.errors import ResultsError
from replaygate.evals.results import CaseResult, EvalResults, load_eval_results
from replaygate.jsonfields import parse_time
from replaygate.models.replay import RequestSettings

C = TypeVar("C", bound=EvalCase)
_SPEC = re.compile(r"([0-9]+)/([0-9]+)")  # ASCII digits: \d takes ３ and ٣ too
SAME_RUN = (
    "model",
    "interface",
    "mode",
    "cases_file",
    "cases_digest",
    "agent",
    "fixtures",
    "fixtures_digest",
    "settings_digest",
    "recording",
    "prices",
    "commit",
    "replaygate_version",
)
"""Run information every shard of one run must agree on (the merged results state it once)."""
_DIGESTS: dict[str, tuple[str, str, str | None]] = {
    "cases_digest": ("ran other cases", "the cases file", "cases_file"),
    "fixtures_digest": ("replayed other fixtures", "the fixture store", "fixtures"),
    "settings_digest": (
        "sent other requests",
        "the request settings (model, max_tokens, system)",
        None,
    ),
}
"""The digests of what a shard read or sent: what differs, what it is, and the run
information naming it (None: none does)."""
SHARD_ONLY = ("shard", "time", "fixtures_digest", "settings_digest", "recording")
"""Run information of a shard that the merged results do not keep, as a serial run
writes none of it: where the shard stood, its time (kept under ``shards``), the digest
of the store it replayed and that of its request settings, and what a recording shard
recorded from (the simulator and its seed, or live), each checked to agree across the
shards."""
MAX_SHARDS = 10_000
"""The most shards a run is split into: each is a file `eval merge` must be given."""


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``."""

    index: int
    count: int

    @staticmethod
    def parse(text: str) -> Shard:
        """``"2/4"`` as a shard; ``ValueError`` says what is wrong."""
        match = _SPEC.fullmatch(text.strip())
        if match is None:
            raise ValueError(f"expected I/N in digits 0-9 (for example 2/4), got {text!r}")
        index, count = int(match.group(1)), int(match.group(2))
        if count == 0:
            raise ValueError(f"shard {index}/0: N must be at least 1, the number of shards")
        if not 1 <= index <= count:
            raise ValueError(f"shard {index}/{count}: I must be from 1 to N")
        if count > MAX_SHARDS:
            raise ValueError(f"shard {index}/{count}: N must be at most {MAX_SHARDS:,}")
        return Shard(index, count)

    def holds(self, case_id: str) -> bool:
        """Whether the case called ``case_id`` runs in this shard."""
        digest = hashlib.sha256(case_id.encode("utf-8")).digest()
        return int.from_bytes(digest[:8], "big") % self.count == self.index - 1

    def select(self, cases: Sequence[C]) -> tuple[list[C], dict[str, Any]]:
        """This shard's cases, in file order, and the run information that places them."""
        chosen = [(i, case) for i, case in enumerate(cases) if self.holds(case.id)]
        positions = [i for i, _ in chosen]
        info = {
            "index": self.index,
            "count": self.count,
            "cases": len(cases),
            "positions": positions,
            "placed": placed_digest(positions, [case.id for _, case in chosen]),
        }
        return [case for _, case in chosen], info

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def load_shard(path: Path) -> EvalResults:
    """The results file of a shard at ``path``, as :func:`load_eval_results` reads it; a
    file pattern that matched nothing (``shard-*.json``, which a shell passes on as it is)
    is refused saying that the shards' files are not there, and where they may be."""
    if not os.path.lexists(path) and any(char in path.name for char in "*?["):
        raise ResultsError(
            f"{path}: no file matches this pattern (a shell passes on a pattern that matches "
            "nothing as it is): the shards' results files are not here. Download them "
            "first; actions/download-artifact puts each artifact in a folder of its name "
            "(shard-1/shard-1.json) unless given merge-multiple: true"
        )
    return load_eval_results(path)


def merge(
    parts: Sequence[EvalResults], names: Sequence[str], files: Sequence[str] | None = None
) -> EvalResults:
    """The results of one run from the results of each of its shards (``names`` name them
    in errors; ``files``, default ``names``, in the merged run's ``eval.shards``: give
    them as :func:`~replaygate.evals.results.project_path` does, so the same shards named
    two ways merge alike).

    Raises :class:`~replaygate.evals.errors.ResultsError` when a part is not a shard,
    shards are missing or repeated, they come from different runs, a shard holds a
    case its id does not place there (listed in two shards, it would count twice), or
    its ``eval.shard.positions`` do not agree with its cases (:func:`_place`).
    """
    if not parts:
        raise ResultsError("nothing to merge: give the results file of every shard")
    shards = [_shard_info(part, name) for part, name in zip(parts, names, strict=True)]
    count, total = shards[0]["count"], shards[0]["cases"]
    for name, part, shard in zip(names, parts, shards, strict=True):
        if (shard["count"], shard["cases"]) != (count, total):
            raise ResultsError(
                f"{name}: shard {shard['index']}/{shard['count']} of a run of "
                f"{shard['cases']} cases, but {names[0]} is of {count} shards and {total} cases"
            )
        # the mode first (a recording shard states no digest of a store), then contents
        for key in sorted(SAME_RUN, key=lambda k: (k != "mode", k not in _DIGESTS)):
            mine, first = part.info.get(key), parts[0].info.get(key)
            if mine == first or _same_contents(key, part.info, parts[0].info):
                continue
            if key in _DIGESTS and mine is not None and first is not None:
                what, noun, named = _DIGESTS[key]
                called = "" if named is None else f" {part.info.get(named)!r}"
                if named is not None and part.info.get(named) != parts[0].info.get(named):
                    raise ResultsError(
                        f"{name}: {what} than {names[0]}: it read {noun}{called}, and "
                        f"{names[0]} {parts[0].info.get(named)!r}; run every shard on the "
                        "same one"
                    )
                raise ResultsError(
                    f"{name}: {what} than {names[0]} (eval.{key} {mine!r}, not {first!r}): "
                    f"{noun}{called} changed between these shards; run every shard on one "
                    "version of it"
                )
            raise ResultsError(
                f"{name}: {key} is {_stated(mine)}, but {_stated(first)} in {names[0]}: these "
                "shards come from different runs"
            )
    seen: dict[int, str] = {}
    for name, shard in zip(names, shards, strict=True):
        if shard["index"] in seen:
            other = seen[shard["index"]]
            if other == name:
                raise ResultsError(
                    f"{name}: given twice (shard {shard['index']}/{count}): give each shard's "
                    "file once"
                )
            raise ResultsError(f"shard {shard['index']}/{count} given twice: {other} and {name}")
        seen[shard["index"]] = name
    missing = sorted(set(range(1, count + 1)) - set(seen))  # count: at most MAX_SHARDS
    if missing:
        given = [f"{seen[i]} ({i}/{count})" for i in sorted(seen)]
        raise ResultsError(
            f"{len(missing)} of {count} shard(s) missing: "
            f"{first_few([f'{i}/{count}' for i in missing], 10)} (given: {first_few(given, 10)}): "
            "merge needs the results of every shard of the run"
        )
    placed = _place(parts, names, shards)
    if sorted(placed) != list(range(total)):
        raise _not_the_run(placed, total)
    earliest = _earliest(str(p.info["time"]) for p in parts if p.info.get("time"))
    # the run information of shard 1, whatever order the shards are given in: where the
    # shards name one input two ways (a price table of the same prices from two files), the
    # merged run names it alike in every merge
    lead = min(zip(parts, shards, strict=True), key=lambda item: item[1]["index"])[0]
    info = {  # the run's time first, where a serial run writes it
        **({} if earliest is None else {"time": earliest}),
        **{k: v for k, v in lead.info.items() if k not in SHARD_ONLY},
    }
    info["shards"] = [
        {"shard": f"{s['index']}/{count}", "time": p.info.get("time"), "file": file}
        for file, p, s in sorted(
            zip(names if files is None else files, parts, shards, strict=True),
            key=lambda item: item[2]["index"],
        )
    ]
    return EvalResults(tuple(placed[i].case for i in range(total)), info)


def _earliest(times: Iterable[str]) -> str | None:
    """The earliest of the shards' ISO 8601 times, by the instant each names whatever its UTC
    offset (``12:00:00-06:00`` is after ``17:00:00Z``, though it sorts before it as text);
    None when no shard states one (made from Python without one, or deleted by hand): the
    merged run then states none either, as such a results file does, rather than an
    empty time no results file may hold."""

    def instant(text: str) -> tuple[bool, datetime, str]:
        try:
            return True, parse_time(text), text
        except ValueError:
            return False, datetime.min.replace(tzinfo=UTC), text

    return min(times, key=instant, default=None)


def _same_contents(key: str, mine: Mapping[str, Any], first: Mapping[str, Any]) -> bool:
    """Whether the run information ``key`` of two shards names one input read at two
    places (two checkouts, two installations): a file whose digest both keep and agree
    on, or a price table of the same prices. Results written before they named files
    from the project folder hold absolute paths, which differ from checkout to checkout."""
    digest = next((d for d, (_, _, named) in _DIGESTS.items() if named == key), None)
    if digest is not None:
        return mine.get(digest) is not None and mine.get(digest) == first.get(digest)
    if key == "prices":
        ours, theirs = mine.get(key), first.get(key)
        if isinstance(ours, Mapping) and isinstance(theirs, Mapping):
            return {**ours, "source": None} == {**theirs, "source": None}
    return False


@dataclass(frozen=True)
class _Placed:
    """A case of a shard at the position its ``eval.shard.positions[index]`` gives."""

    case: CaseResult
    file: str
    index: int


def _stated(value: Any) -> str:
    """A field's value in a message: none where a shard states none (null, or no field)."""
    return "none" if value is None else repr(value)


def _not_the_run(placed: Mapping[int, _Placed], total: int) -> ResultsError:
    """The error of shards whose cases (``placed`` by position) are not the ``total`` cases
    their ``eval.shard.cases`` give: the positions no shard holds, and those beyond."""
    empty = [str(p) for p in range(total) if p not in placed]
    beyond = [f"{p} ({placed[p].file})" for p in sorted(placed) if not 0 <= p < total]
    said = [f"no shard holds position(s) {first_few(empty, 5)}"] if empty else []
    said += [f"position(s) {first_few(beyond, 5)} beyond them"] if beyond else []
    return ResultsError(
        f"the shards hold {len(placed)} cases, where their eval.shard.cases give {total}: "
        f"{'; '.join(said)}: the files were edited, or come from different runs"
    )


def _place(
    parts: Sequence[EvalResults], names: Sequence[str], shards: Sequence[Mapping[str, Any]]
) -> dict[int, _Placed]:
    """Each case of the shards by its position in the run, once the positions agree with
    the cases: a case is in the shard its id decides, a shard's positions increase (its
    cases are in file order) and no position is given twice."""
    placed: dict[int, _Placed] = {}
    for name, part, shard in zip(names, parts, shards, strict=True):
        count = shard["count"]
        for i, (position, case) in enumerate(zip(shard["positions"], part.cases, strict=True)):
            if not Shard(shard["index"], count).holds(case.id):
                raise ResultsError(
                    f"{name}: case {case.id!r} is not in shard {shard['index']}/{count} (a "
                    "case's id decides its shard): the file was edited, or its shards come "
                    "from different cases files"
                )
            field = f"eval.shard.positions[{i}]"
            if position in placed:
                other = placed[position]
                where = "" if other.file == name else f" of {other.file}"
                raise ResultsError(
                    f"{name}: {field} is {position}, as is eval.shard.positions[{other.index}]"
                    f"{where}: position {position} given twice (cases {other.case.id!r} and "
                    f"{case.id!r}); the file was edited"
                )
            if i and position < shard["positions"][i - 1]:
                before = shard["positions"][i - 1]
                raise ResultsError(
                    f"{name}: {field} is {position}, before eval.shard.positions[{i - 1}] "
                    f"({before}): a shard's cases are in file order, so its positions increase "
                    f"(case {part.cases[i - 1].id!r} at {before}, then case {case.id!r} at "
                    f"{position}); the file was edited"
                )
            placed[position] = _Placed(case, name, i)
        _check_placed(name, part, shard)
    return placed


def _check_placed(name: str, part: EvalResults, shard: Mapping[str, Any]) -> None:
    """Refuse a shard whose cases are not those it ran from its ``positions``, by its
    ``eval.shard.placed`` (a shard written before it was kept has none: merged as before).
    Cases reordered in the file, with their positions left, would be merged into other
    places of the run than the serial run's, and so would positions swapped between shards."""
    stated = shard.get("placed")
    if stated is None or stated == placed_digest(shard["positions"], [c.id for c in part.cases]):
        return
    held = [f"{c.id!r} at {p}" for p, c in zip(shard["positions"], part.cases, strict=True)]
    raise ResultsError(
        f"{name}: eval.shard.placed: its cases are not those the shard ran from "
        f"eval.shard.positions (it holds {first_few(held, 5)}): "
        "the file was edited (its cases reordered, or a position changed); make the shard "
        "again (`replaygate eval --shard I/N --out FILE`), or restore the file"
    )


def placed_digest(positions: Sequence[int], ids: Sequence[str]) -> str:
    """A SHA-256 (hex) of which case a shard ran from each position of the cases file:
    ``eval.shard.placed``, which ties its cases to its ``positions``."""
    text = json.dumps(list(zip(positions, ids, strict=True)), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def settings_digest(settings: RequestSettings) -> str:
    """A SHA-256 (hex) of the request settings (model, ``max_tokens``, system prompt,
    interface and its version): shards run with other ``--max-tokens`` or ``--system``
    replay other recordings of the same store, and are two runs."""
    text = json.dumps(dataclasses.asdict(settings), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def shards_digest(parts: Sequence[EvalResults]) -> str:
    """A SHA-256 (hex) of what ``parts`` hold, their run times among it, whatever their
    order or file names: the same shards merged again give the same digest."""
    digests = sorted(
        hashlib.sha256(
            json.dumps(part.to_json(), sort_keys=True, ensure_ascii=False, default=str).encode(
                "utf-8", "surrogatepass"
            )
        ).hexdigest()
        for part in parts
    )
    return hashlib.sha256("\n".join(digests).encode("ascii")).hexdigest()


def check_whole_run(results: EvalResults, name: str, use: str) -> None:
    """Refuse (:class:`ResultsError`) ``results`` that say they are one shard of a run
    where a whole run is meant: ``use`` says what taking the shard for it would do."""
    shard = results.info.get("shard")
    if shard is None:
        return
    which = "a shard"
    if isinstance(shard, Mapping) and _integer(shard.get("index")) and _integer(shard.get("count")):
        which = f"shard {shard['index']}/{shard['count']}"
    raise ResultsError(
        f"{name}: holds the results of {which} of a run ({len(results.cases)} case(s)), not of "
        f"a whole run: {use}. Merge the shards first: `replaygate eval merge SHARD.json ... "
        "--out results.json`"
    )


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _shard_problem(shard: Any, cases: int) -> str | None:
    """What is wrong with ``shard`` (``eval.shard`` of a part holding ``cases`` cases), by
    its field: it must say which shard it is, of how many, of a run of how many cases,
    and where each of its cases stood; None when nothing is."""
    if shard is None:
        return "eval.shard is missing"
    if not isinstance(shard, Mapping):
        return f"eval.shard must be an object, got {shard!r}"
    for key in ("index", "count", "cases"):
        if not _integer(shard.get(key)):
            got = "is missing" if key not in shard else f"must be an integer, got {shard[key]!r}"
            return f"eval.shard.{key} {got}"
    if not 1 <= shard["index"] <= shard["count"] <= MAX_SHARDS:
        return (
            f"eval.shard says shard {shard['index']}/{shard['count']}: I must be from 1 to N "
            f"and N at most {MAX_SHARDS:,}"
        )
    if shard["cases"] < 0:
        return f"eval.shard.cases must be 0 or more, got {shard['cases']}"
    if "placed" in shard and not isinstance(shard["placed"], str):
        return f"eval.shard.placed must be a string, got {shard['placed']!r}"
    positions = shard.get("positions")
    if not isinstance(positions, list):
        return f"eval.shard.positions must be a list, got {positions!r}"
    if len(positions) != cases:
        return f"eval.shard.positions holds {len(positions)} position(s) for {cases} case(s)"
    for i, position in enumerate(positions):
        if not (_integer(position) and 0 <= position < shard["cases"]):
            return (
                f"eval.shard.positions[{i}] must be an integer from 0 to "
                f"{shard['cases'] - 1}, got {position!r}"
            )
    return None


def _shard_info(part: EvalResults, name: str) -> Mapping[str, Any]:
    shard = part.info.get("shard")
    merged = part.info.get("shards")
    if shard is None and isinstance(merged, list) and merged:
        raise ResultsError(
            f"{name}: holds the results merged from {len(merged)} shard(s) (eval.shards), "
            "not those of one shard: leave it out (an `eval merge --out` of an earlier "
            "merge, matched by the shard files' pattern) and give each shard's file"
        )
    problem = _shard_problem(shard, len(part.cases))
    if problem is not None:
        raise ResultsError(
            f"{name}: not the results of a shard ({problem}): run each shard with "
            "`replaygate eval --shard I/N --out FILE`"
        )
    assert isinstance(shard, Mapping)
    return shard
