"""A large JSONL store: open and verify against a bare parse of the same file.

Run: ``.venv/bin/python bench/bench_store_scale.py [--n 100000] [--jobs N] [--folder]
[--repeat K]`` (prints a markdown table).

Writes N fixtures of about 2.3 KB each (ResearchCopilot-like requests and answers,
each with its own question) into one ``.jsonl`` file, then measures, each in a fresh
process so its memory is its own: a bare ``orjson.loads`` of every line (the floor of
reading the file), ``FixtureStore.open`` (index built, ready for lookups) and
``verify_store`` (every check of ``replaygate verify``), in one process and with
``--jobs`` processes (default: what ``replaygate verify`` uses). Wall and CPU time
(worker processes, and the fork server they are forked from, included), peak resident
memory (of the process, and of the largest worker), and the memory an open store holds;
then the ratios side by side. ``--repeat``
measures each step K times, the steps in turns, and prints the medians (and verify's
ratio to open run by run): on shared cores one run moves by a fifth. Linux only
(memory is read from ``/proc/self/status``). ``--stages`` adds what verify spends a
fixture on in each of its stages (CPU, best of three, in one process: each stage is
what taking the fixtures one step further costs).

The store is written from a few hundred conversations, each line a template with its
question, answer, message id, recording time, key and seal filled in: every line,
its response and its meta are distinct, as in a recorded store (a cache of what
repeats gains only what a real store repeats: tools, system prompt, earlier turns),
and a million fixtures take seconds to write, not minutes.

``--folder`` writes the same fixtures in the folder layout instead, one pretty ``.json``
file each under ``anthropic.messages@2023-06-01/``, as a recording writes them; the
bare parse is then an ``orjson.loads`` of each file.
"""

from __future__ import annotations

import argparse
import functools
import gc
import hashlib
import itertools
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _data
from replaygate.fixtures.fingerprint import (
    KEY_LENGTH,
    SEAL_LENGTH,
    canonical_json,
    match_form,
    seal_of,
)
from replaygate.fixtures.fixture import Fixture, from_json, make_meta
from replaygate.fixtures.store.jsonl import read_line
from replaygate.hygiene.verify import verify_store
from replaygate.hygiene.verify_checks import Prepared, finish, key_check, prepare
from replaygate.hygiene.verify_jobs import default_jobs
from replaygate.hygiene.verify_segment import BATCH
from replaygate.hygiene.verify_segments import file_segments, segment_lines
from replaygate.sanitize.secret_allow import NOTHING_SAFE
from replaygate.sanitize.secret_lines import clean_lines

CONVERSATIONS = 500
STAGE_LINES = 50_000
"""Fixtures the stages are measured on (the first of the store, written apart)."""
_QUESTION = "QQQPLACEHOLDERQQQ"
_KEY = "K" * KEY_LENGTH
_ID = "msg_IDPLACEHOLDER"
_WHEN = "WHENPLACEHOLDER"
_SEAL = "5" * SEAL_LENGTH
_START = datetime(2026, 1, 1, tzinfo=UTC)

MEASURE = """
import json, os, resource, sys, time
from pathlib import Path


def status(field: str) -> float:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise LookupError(field)


def main() -> None:
    import orjson
    from replaygate.fixtures.store import FixtureStore
    from replaygate.hygiene.verify import verify_store

    path, what, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    before = status("VmRSS")
    wall, cpu = time.perf_counter(), time.process_time()
    if what == "parse" and os.path.isdir(path):
        for folder, _, names in os.walk(path):
            for name in names:
                with open(os.path.join(folder, name), "rb") as handle:
                    orjson.loads(handle.read())
    elif what == "parse":
        with open(path, "rb") as handle:
            for line in handle:
                orjson.loads(line)
    elif what == "open":
        store = FixtureStore.open(path)
        assert len(store) > 0
    else:
        count, problems = verify_store(Path(path), jobs=jobs)
        assert count > 0 and not problems, problems[:3]
        # the workers' fork server (and, reaped by it, the workers) counted as children
        from multiprocessing import forkserver
        forkserver._forkserver._stop()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({
        "wall": time.perf_counter() - wall,
        "cpu": time.process_time() - cpu + children.ru_utime + children.ru_stime,
        "peak": status("VmHWM"),
        "worker_peak": children.ru_maxrss / 1024,
        "held": status("VmRSS") - before,
    }))


if __name__ == "__main__":
    main()
"""


def _templates() -> list[tuple[str, bytes, bytes]]:
    """(canonical request, match form, JSONL line) of each conversation, with the
    question, message id, recording time, key and seal left open."""
    found = []
    for i in range(CONVERSATIONS):
        request = _data.request(i)
        text = request["messages"][0]["content"][0]["text"]
        request["messages"][0]["content"][0]["text"] = _QUESTION + text.split(":", 1)[1]
        response = _data.response(i)
        response["id"] = _ID
        answer = response["content"][0]
        answer["text"] = f"On {_QUESTION}: {answer['text']}"
        meta = make_meta("anthropic.messages", "2023-06-01", "sim", recorded_at=_WHEN)
        line = Fixture(_KEY, request, (response,), meta, _SEAL).to_line()
        found.append((canonical_json(request), match_form(request), line))
    return found


def write_store(path: Path, n: int) -> None:
    """``n`` fixtures, each with its own question, answer, id and time (plain ASCII,
    written alike in every form), each sealed as the store's writer seals it."""
    templates = _templates()
    placeholder = _QUESTION.encode()
    with path.open("wb") as out:
        for i in range(n):
            canonical, form, line = templates[i % CONVERSATIONS]
            question = f"Question {i}".encode()
            key = hashlib.sha256(canonical.encode().replace(placeholder, question)).hexdigest()
            key = key[:KEY_LENGTH]
            seal = seal_of(key, form.replace(placeholder, question))
            when = (_START + timedelta(seconds=i)).isoformat().replace("+00:00", "Z")
            out.write(
                line.replace(placeholder, question)
                .replace(_KEY.encode(), key.encode(), 1)
                .replace(_ID.encode(), b"msg_%012d" % i, 1)
                .replace(_WHEN.encode(), when.encode(), 1)
                .replace(_SEAL.encode(), seal.encode(), 1)
            )


FOLDER = "anthropic.messages@2023-06-01"
"""The interface folder of the ``--folder`` layout."""


def write_folder(root: Path, n: int) -> None:
    """:func:`write_store`'s fixtures in the folder layout: one pretty ``.json`` file each."""
    lines = root / "lines.jsonl"
    root.mkdir()
    write_store(lines, n)
    folder = root / FOLDER
    folder.mkdir()
    with lines.open("rb") as handle:
        for number, line in enumerate(handle, 1):
            fixture = from_json(orjson.loads(line), str(lines), number)
            (folder / f"{fixture.key}.json").write_bytes(fixture.to_pretty())
    lines.unlink()


def measure(path: Path, what: str, jobs: int = 1) -> dict[str, float]:
    """One step in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, str(path), what, str(jobs)], capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    result: dict[str, float] = json.loads(done.stdout)
    return result


def _median_row(rows: list[dict[str, float]]) -> dict[str, float]:
    """Each figure of ``rows`` (one step measured several times): its median."""
    return {name: statistics.median(row[name] for row in rows) for name in rows[0]}


def _best(step: Callable[[], object], times: int = 3) -> float:
    """The least CPU time of ``times`` runs of ``step`` (the cycle collector paused, as
    verify pauses it)."""
    spent = []
    for _ in range(times):
        gc.collect()
        gc.disable()
        start = time.process_time()
        step()
        spent.append(time.process_time() - start)
        gc.enable()
    return min(spent)


def _through(name: str, upto: str) -> None:
    """The fixtures of store ``name`` taken through verify's steps up to ``upto``."""
    batch = []
    for segment in file_segments(name):
        for number, raw in segment_lines(segment):
            text = raw[:-1]
            fixture, form = read_line(text, name, number)
            assert isinstance(fixture, Fixture)
            if upto == "key":
                key_check(fixture, form)
            elif upto != "read":
                batch.append(prepare(fixture, None if form is None else text, form, name, True))
            if len(batch) == BATCH:
                _batch_step(batch, name, upto)
                batch = []
    _batch_step(batch, name, upto)


def _batch_step(batch: list[Prepared], name: str, upto: str) -> None:
    if upto == "secret":
        clean_lines([item.line for item in batch])
    elif upto == "finish":
        finish(batch, name, NOTHING_SAFE)


def stages(path: str) -> dict[str, float]:
    """Verify's CPU a fixture, in µs, stage by stage, on the first :data:`STAGE_LINES`
    lines of ``path`` (every line a fixture as the store writes it): each stage is what
    taking the fixtures one step further costs."""
    part = Path(path).with_suffix(".part.jsonl")
    with open(path, "rb") as handle:
        data = b"".join(itertools.islice(handle, STAGE_LINES))
    part.write_bytes(data)
    name = str(part)
    spent = {upto: _best(functools.partial(_through, name, upto)) for upto in STEPS}
    spent["verify"] = _best(lambda: verify_store(part))
    lines = data.count(b"\n")
    micros = {step: seconds / lines * 1e6 for step, seconds in spent.items()}
    return {
        "read": micros["read"],
        "key": micros["key"] - micros["read"],
        "prepare": micros["prepare"] - micros["read"],
        "secret": micros["secret"] - micros["prepare"],
        "finish": micros["finish"] - micros["prepare"],
        "rest": micros["verify"] - micros["finish"],
        "verify": micros["verify"],
        "lines": lines,
    }


STEPS = ("read", "key", "prepare", "secret", "finish")
STAGE_ROWS = {
    "read": "reading the lines (`jsonl.read_line`, segments)",
    "prepare": "the key, responses and meta (`prepare`)",
    "key": "of which the key (its seal checked, or its canonical text hashed)",
    "finish": "the batch's checks (`finish`)",
    "secret": "of which the secret scan (`clean_lines`)",
    "rest": "the rest (problems, records, merging)",
}


def measure_stages(path: Path) -> dict[str, float]:
    """:func:`stages` in a fresh process."""
    done = subprocess.run(
        [sys.executable, __file__, "--stages-of", str(path)], capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    spent: dict[str, float] = json.loads(done.stdout)
    return spent


def print_stages(spent: dict[str, float]) -> None:
    """The stages as a markdown table."""
    print(f"\nverify's stages on the first {spent['lines']:,.0f} fixtures, CPU, best of three:\n")
    print("| stage | µs a fixture |\n| --- | ---: |")
    for step, label in STAGE_ROWS.items():
        print(f"| {label} | {spent[step]:.1f} |")
    print(f"| **`verify_store`** | **{spent['verify']:.1f}** |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--jobs", type=int, default=default_jobs())
    parser.add_argument("--stages", action="store_true", help="also verify's stages")
    parser.add_argument(
        "--repeat", type=int, default=1, help="measure each step this many times, in turns"
    )
    parser.add_argument(
        "--folder", action="store_true", help="the folder layout: one .json file a fixture"
    )
    parser.add_argument("--stages-of", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.stages_of:
        print(json.dumps(stages(args.stages_of)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        if args.folder:
            path = Path(tmp) / "store"
            write_folder(path, args.n)
            files = list((path / FOLDER).iterdir())
            size = sum(file.stat().st_size for file in files) / 2**20
            where = f"{len(files):,} one-fixture .json files ({size:.0f} MiB in all)"
        else:
            path = Path(tmp) / "store.jsonl"
            write_store(path, args.n)
            with path.open("rb") as handle:
                assert orjson.loads(handle.readline())["key"] != _KEY
            size = path.stat().st_size / 2**20
            where = f"one JSONL file of {size:.0f} MiB"
        runs = [
            {
                "parse": measure(path, "parse"),
                "open": measure(path, "open"),
                "verify": measure(path, "verify", 1),
                "parallel": measure(path, "verify", args.jobs),
            }
            for _ in range(args.repeat)
        ]
        steps = {what: _median_row([run[what] for run in runs]) for what in runs[0]}
        spent = measure_stages(path) if args.stages and not args.folder else None
    print(
        f"{args.n:,} fixtures in {where}"
        + (f", median of {args.repeat} runs" if args.repeat > 1 else "")
        + "\n"
    )
    print("| step | wall time | CPU time | peak memory | held after | peak / file size |")
    print("| --- | --- | --- | --- | --- | --- |")
    labels = {
        "parse": f"bare `orjson.loads` of each {'file' if args.folder else 'line'}",
        "open": "`FixtureStore.open`",
        "verify": "`verify_store`, one process",
        "parallel": f"`verify_store`, {args.jobs} jobs",
    }
    for what, label in labels.items():
        row = steps[what]
        peak = f"{row['peak']:.0f} MiB"
        if row["worker_peak"]:
            peak += f" + {args.jobs} x {row['worker_peak']:.0f} MiB"
        held = f"{row['held']:.0f} MiB" if what == "open" else ""
        print(
            f"| {label} | {row['wall']:.2f} s | {row['cpu']:.2f} s | {peak} | {held} | "
            f"{(row['peak'] + args.jobs * row['worker_peak']) / size:.2f} |"
        )
    parse, opened = steps["parse"], steps["open"]
    print()
    print(
        f"open / bare parse: {opened['wall'] / parse['wall']:.2f}x wall, "
        f"{opened['cpu'] / parse['cpu']:.2f}x CPU; "
        f"held after open / file size: {opened['held'] / size:.2f}"
    )
    for what in ("verify", "parallel"):
        row = steps[what]
        print(
            f"{labels[what]} / open: {row['wall'] / opened['wall']:.2f}x wall, "
            f"{row['cpu'] / opened['cpu']:.2f}x CPU"
        )
    if args.repeat > 1:
        ratios = [run["verify"]["cpu"] / run["open"]["cpu"] for run in runs]
        each = ", ".join(f"{ratio:.2f}x" for ratio in ratios)
        print(
            f"`verify_store`, one process / open, CPU, run by run: {each} "
            f"(median {statistics.median(ratios):.2f}x)"
        )
    if spent is not None:
        print_stages(spent)


if __name__ == "__main__":
    main()
