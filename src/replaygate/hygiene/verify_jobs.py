"""Running the segment checks of ``replaygate verify``: in this process, or in worker processes.

Results come back in the order of the tasks either way, so a report made from them is
the same for any number of jobs. At most two tasks a worker are in flight, so a slow
task holds back little memory.
"""

from __future__ import annotations

import itertools
import os
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from functools import partial

from replaygate.hygiene import verify_segments as segments
from replaygate.hygiene.verify_segment import SegmentResult, check_segment
from replaygate.hygiene.verify_segments import Segment
from replaygate.missing import cwd_gone
from replaygate.sanitize.secret_allow import KnownSafe
from replaygate.sanitize.secret_lines import expect_bytes
from replaygate.signals import ctrl_c_left_to_parent, held
from replaygate.start_methods import workers_context

MAX_DEFAULT_JOBS = 8
"""The default number of jobs is the usable CPUs, at most this many (memory stays bounded)."""
PARALLEL_SEGMENTS = 8
"""A store smaller than this many segments is checked in this process (starting workers
would cost more than they save): about 64 MiB, tens of thousands of fixtures."""


def default_jobs() -> int:
    """The usable CPUs of this process, at most :data:`MAX_DEFAULT_JOBS`."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, MAX_DEFAULT_JOBS))


def check_task(task: Sequence[Segment], require_meta: bool, safe: KnownSafe) -> list[SegmentResult]:
    """The results of each segment of ``task``, in order."""
    expect_bytes(sum(segment.size for segment in task))
    return [check_segment(segment, require_meta, safe) for segment in task]


def run_tasks(
    tasks: Sequence[Sequence[Segment]], jobs: int, require_meta: bool, safe: KnownSafe
) -> Iterator[SegmentResult]:
    """The result of every segment of ``tasks`` in order, using up to ``jobs`` processes.

    A store under :data:`PARALLEL_SEGMENTS` segments is checked here, and so is any store
    while the current folder no longer exists (removed under the shell): a worker process
    cannot start without one, and the store, named by its absolute path, can be read.
    """
    check = partial(check_task, require_meta=require_meta, safe=safe)
    size = sum(segment.size for task in tasks for segment in task)
    workers = min(jobs, len(tasks)) if size >= PARALLEL_SEGMENTS * segments.SEGMENT_BYTES else 1
    if workers <= 1 or cwd_gone():
        for task in tasks:
            yield from check(task)
        return
    context = workers_context([__name__])  # the checks loaded once
    starting = ProcessPoolExecutor(workers, mp_context=context, initializer=ctrl_c_left_to_parent)
    with starting as pool:
        pending: deque[Future[list[SegmentResult]]] = deque()
        remaining = iter(tasks)
        try:
            # The workers start whole: a Ctrl-C or SIGTERM meanwhile takes effect once they
            # run (one that cut a start short left the pool unable to shut down), and each
            # worker leaves Ctrl-C to this process, which stops them.
            with held():
                for task in itertools.islice(remaining, 2 * workers):
                    pending.append(pool.submit(check, task))
            while pending:
                done = pending.popleft().result()
                for task in remaining:
                    pending.append(pool.submit(check, task))
                    break
                yield from done
        finally:
            for future in pending:
                future.cancel()
