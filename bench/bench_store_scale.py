"""A large JSONL store: open and verify against a bare parse of the same file.

Run: ``.venv/bin/python bench/bench_store_scale.py [--n 100000] [--jobs N]`` (prints a
markdown table).

Writes N fixtures of about 2.3 KB each (ResearchCopilot-like requests and answers,
each with its own question) into one ``.jsonl`` file, then measures, each in a fresh
process so its memory is its own: a bare ``orjson.loads`` of every line (the floor of
reading the file), ``FixtureStore.open`` (index built, ready for lookups) and
``verify_store`` (every check of ``replaygate verify``), in one process and with
``--jobs`` processes (default: what ``replaygate verify`` uses). Wall and CPU time
(worker processes included), peak resident memory (of the process, and of the largest
worker), and the memory an open store holds; then the ratios side by side. Linux only
(memory is read from ``/proc/self/status``).

The store is written from a few hundred conversations, each line a template with its
question, answer, message id, recording time, key and seal filled in: every line,
its response and its meta are distinct, as in a recorded store (a cache of what
repeats gains only what a real store repeats: tools, system prompt, earlier turns),
and a million fixtures take seconds to write, not minutes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
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
from replaygate.fixtures.fixture import Fixture, make_meta
from replaygate.hygiene.verify_jobs import default_jobs

CONVERSATIONS = 500
_QUESTION = "QQQPLACEHOLDERQQQ"
_KEY = "K" * KEY_LENGTH
_ID = "msg_IDPLACEHOLDER"
_WHEN = "WHENPLACEHOLDER"
_SEAL = "5" * SEAL_LENGTH
_START = datetime(2026, 1, 1, tzinfo=UTC)

MEASURE = """
import json, resource, sys, time
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
    if what == "parse":
        with open(path, "rb") as handle:
            for line in handle:
                orjson.loads(line)
    elif what == "open":
        store = FixtureStore.open(path)
        assert len(store) > 0
    else:
        count, problems = verify_store(Path(path), jobs=jobs)
        assert count > 0 and not problems, problems[:3]
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


def measure(path: Path, what: str, jobs: int = 1) -> dict[str, float]:
    """One step in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, str(path), what, str(jobs)], capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    result: dict[str, float] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--jobs", type=int, default=default_jobs())
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "store.jsonl"
        write_store(path, args.n)
        with path.open("rb") as handle:
            assert orjson.loads(handle.readline())["key"] != _KEY
        size = path.stat().st_size / 2**20
        steps = {
            "parse": measure(path, "parse"),
            "open": measure(path, "open"),
            "verify": measure(path, "verify", 1),
            "parallel": measure(path, "verify", args.jobs),
        }
    print(f"{args.n:,} fixtures in one JSONL file of {size:.0f} MiB\n")
    print("| step | wall time | CPU time | peak memory | held after | peak / file size |")
    print("| --- | --- | --- | --- | --- | --- |")
    labels = {
        "parse": "bare `orjson.loads` of each line",
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


if __name__ == "__main__":
    main()
