"""A sampling option naming a FIFO: refused before any test runs when no process reads
it, written as a stream when one does (as the commands' --out)."""

from __future__ import annotations

import json
import os
import threading

import pytest

from nested_pytest import UNUSED_PLUGINS

# Each test runs pytest itself on a project of its own (pytester): end to end.
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here"),
]

MODULE = "def test_a():\n    open('ran.txt', 'w').close()\n"


@pytest.mark.parametrize("option", ["--sampling-results", "--flaky-report", "--observe-queue"])
def test_a_fifo_no_process_reads_is_refused_before_the_tests(
    pytester: pytest.Pytester, option: str
) -> None:
    # The tests ran, then the session waited for ever for a reader.
    pytester.makepyfile(test_m=MODULE)
    fifo = pytester.path / "out.fifo"
    os.mkfifo(fifo)
    # were the session to wait, a reader leaving at once after 10 s ends the wait
    rescue = threading.Timer(10, lambda: os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)))
    rescue.start()
    result = pytester.runpytest(
        "--flaky-runs=2", f"{option}=out.fifo", "test_m.py", *UNUSED_PLUGINS
    )
    rescue.cancel()
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()
    assert not (pytester.path / "ran.txt").exists()
    assert f"{option}: {fifo}: is a FIFO that no process reads" in result.stderr.str()


def test_a_fifo_a_process_reads_gets_the_results(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_m=MODULE)
    fifo = pytester.path / "out.fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        result = pytester.runpytest(f"--sampling-results={fifo}", "test_m.py", *UNUSED_PLUGINS)
        assert result.ret == pytest.ExitCode.OK, result.stdout.str()
        streamed = os.read(reader, 1 << 20)
        assert os.read(reader, 100) == b""  # the end of the stream: the session closed it
    finally:
        os.close(reader)
    assert json.loads(streamed)["format"] == "replaygate.sampling.results"
