"""Verify benchmark: ``replaygate verify`` on a folder of 10,000 one-file fixtures.

Run: ``.venv/bin/python bench/bench_verify.py [--quick] [--profile]`` (prints a
markdown table).

The folder holds N pretty ``.json`` fixtures (the ResearchCopilot-like conversations
of ``bench/_data.py``, about 4 KB a file pretty-printed) under
``anthropic.messages@2023-06-01/``, each with a complete ``meta``, as a recording
writes them. Measured, best of R repetitions with the files in the page cache, in
CPU time (the machine may be shared: other load does not count) and in wall time:

- ``verify_store`` in process, and per fixture;
- the secret scan alone (``find_fixture_secrets`` on every fixture, already parsed), the
  part that dominated before it was made fast;
- the command a pre-commit hook runs, ``replaygate verify PATH``, as a subprocess
  (interpreter start and imports included; CPU time from the children's rusage),
  its start-up alone (``replaygate verify --help``: the interpreter and what the
  command imports), and ``replaygate --help``, which imports every command.

Target: the command under 2 s for 10,000 fixtures. ``--quick`` uses 2,000 fixtures
and fewer repetitions; ``--profile`` prints the top functions of one in-process run.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import platform
import pstats
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _data
from replaygate import __version__
from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.store import read_json_file, store_files
from replaygate.hygiene.verify import verify_store
from replaygate.sanitize.secret_scan import find_fixture_secrets

FOLDER = "anthropic.messages@2023-06-01"
TARGET_SECONDS = 2.0


def write_folder(root: Path, n: int) -> int:
    """Write ``n`` one-file fixtures under ``root``; returns the total size in bytes."""
    folder = root / FOLDER
    folder.mkdir(parents=True)
    size = 0
    for i in range(n):
        base = _data.fixture(i)
        meta = {
            "interface": "anthropic.messages",
            "interface_version": "2023-06-01",
            "recorded_at": "2025-01-01T00:00:00Z",
            "source": "scripted",
            "replaygate_version": __version__,
        }
        data = Fixture(base.key, base.request, base.responses, meta).to_pretty()
        (folder / f"{base.key}.json").write_bytes(data)
        size += len(data)
    return size


def _cpu() -> float:
    """CPU time of this process and of its finished children, in seconds."""
    own = time.process_time()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own + children.ru_utime + children.ru_stime


def best(fn: Callable[[], object], repetitions: int) -> tuple[float, float]:
    """The best (CPU, wall) times of ``repetitions`` runs of ``fn``, in seconds."""
    cpu, wall = [], []
    for _ in range(repetitions):
        start_cpu, start_wall = _cpu(), time.perf_counter()
        fn()
        cpu.append(_cpu() - start_cpu)
        wall.append(time.perf_counter() - start_wall)
    return min(cpu), min(wall)


def _replaygate(*args: str) -> None:
    """Run ``python -m replaygate ARGS`` to its end."""
    subprocess.run([sys.executable, "-m", "replaygate", *args], capture_output=True, check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--quick", action="store_true", help="2,000 fixtures, fewer runs")
    parser.add_argument("--profile", action="store_true", help="profile one in-process run")
    args = parser.parse_args()
    n, repetitions = (2_000, 3) if args.quick else (10_000, 5)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "fixtures"
        size = write_folder(root, n)
        count, problems = verify_store(root)
        assert count == n and not problems, problems[:3]
        fixtures = [read_json_file(path).to_json() for path in store_files(root)]

        in_process = best(lambda: verify_store(root), repetitions)
        scan = best(lambda: [find_fixture_secrets(f) for f in fixtures], repetitions)
        cli = best(functools.partial(_replaygate, "verify", str(root)), repetitions)
        startup = best(functools.partial(_replaygate, "verify", "--help"), repetitions)
        every_command = best(functools.partial(_replaygate, "--help"), repetitions)
        if args.profile:
            profile = cProfile.Profile()
            profile.runcall(verify_store, root)
            pstats.Stats(profile).sort_stats("cumulative").print_stats(18)

    print(
        f"Python {platform.python_version()} on {platform.machine()}, "
        f"{'quick run, ' if args.quick else ''}{n:,} one-file fixtures "
        f"({size / n / 1024:.1f} KiB each), best of {repetitions}."
    )
    print()
    limit = TARGET_SECONDS * n / 10_000
    print("| measure | CPU time | wall time | CPU per fixture | target | met |")
    print("| --- | --- | --- | --- | --- | --- |")
    rows = [
        ("`verify_store` in process", in_process, ""),
        ("secret scan alone (`find_fixture_secrets`)", scan, ""),
        ("`replaygate verify PATH` (subprocess)", cli, f"< {limit:.1f} s"),
        ("of which start-up (`replaygate verify --help`)", startup, ""),
        ("`replaygate --help` (imports every command)", every_command, ""),
    ]
    for label, (cpu, wall), target in rows:
        met = ("yes" if cpu < limit else "**no**") if target else ""
        print(
            f"| {label} | {cpu:.2f} s | {wall:.2f} s | {cpu / n * 1e6:.0f} µs | {target} | {met} |"
        )


if __name__ == "__main__":
    main()
