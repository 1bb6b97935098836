"""The secret scan of recorded fixtures, at a commit before and as the code is now.

Run: ``.venv/bin/python bench/bench_secret_recorded.py [--rounds N] [--repeat R]
[--trials T] [--before COMMIT]`` (prints a markdown table).

Every fixture recorded is scanned for secrets as it is prepared, and again, whole, as the
store writes it (the request alone before the live call too); ``verify`` scans each one
again. The fixture set: ``N`` rounds (50: 200 fixtures) of four calls recorded from the
loopback simulator (``echo``) through ``intercept()``: an Anthropic message with a system
prompt and a tool, an Anthropic stream of a three-turn conversation, an OpenAI chat
completion and an OpenAI stream. The same store is then scanned by the code of
``COMMIT`` (its ``src`` taken with ``git archive``) and by the code of the working tree,
each in T processes of its own taken in turn, best of R runs of CPU time in each, what
the scan remembers forgotten before each run (as a new process has it):

- one scan of each fixture (``find_fixture_secrets``), and of each of the fixtures of
  the example agent's store (:data:`AGENT_STORE`);
- the scans a recording makes of it: ``{"request"}`` before the call, ``{"request",
  "response"}`` as the answer is prepared, the whole fixture as it is written;
- ``verify_store`` of the store;
- the recording itself through the two SDKs (the simulator's thread included), of which
  the scans are a part.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BEFORE = "6c8b9c0f"
"""The commit before the scan's fast paths for recorded streams (2026-12-07)."""
ROOT = Path(__file__).resolve().parent.parent
AGENT_STORE = ROOT / "src/replaygate/examples/research_copilot/data/fixtures.jsonl"
"""The example agent's store: a third of its fixtures hold tool results of prose as JSON
text, which the gate sends on to the walk of every string."""


def converse(store: Path, url: str, rounds: int) -> None:
    """Record ``rounds`` rounds of the four calls into ``store`` from the simulator at ``url``."""
    import anthropic
    import openai

    import replaygate.http

    tools = [
        {
            "name": "weather",
            "description": "The weather in a city today.",
            "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
        }
    ]
    with (
        replaygate.http.intercept(store, "record-missing", approve_live=True, live_origin=url),
        anthropic.Anthropic(api_key="sk-ant-bench") as claude,
        openai.OpenAI(api_key="sk-bench", base_url=f"{url}/v1") as gpt,
    ):
        for i in range(rounds):
            asked = [{"role": "user", "content": f"Question {i}: what is the weather in Paris?"}]
            claude.messages.create(
                model="m",
                max_tokens=64,
                system="You are a helpful assistant.",
                messages=asked,
                tools=tools,  # type: ignore[arg-type]
            )
            turns = [
                *asked,
                {"role": "assistant", "content": "Sunny."},
                {"role": "user", "content": "And tomorrow?"},
            ]
            with claude.messages.stream(model="m", max_tokens=64, messages=turns) as stream:  # type: ignore[arg-type]
                stream.get_final_message()
            chat = [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": f"Tell me about item {i} of the catalogue."},
            ]
            gpt.chat.completions.create(model="m", messages=chat)  # type: ignore[arg-type]
            for _ in gpt.chat.completions.create(model="m", messages=chat, stream=True):  # type: ignore[arg-type]
                pass


def record(store: Path, rounds: int) -> None:
    from replaygate.sim import Simulator

    with Simulator(behavior="echo") as sim:
        converse(store, sim.url, rounds)


def forget() -> None:
    """Forget what the scan remembers (those of its memories the code at hand has)."""
    from replaygate.sanitize import secret_decode, secret_gate, secret_scan

    for module, name in (
        (secret_gate, "_clean"),
        (secret_gate, "_clean_before"),
        (secret_decode, "_QUIET_RUNS"),
        (secret_scan, "_SHORT"),
    ):
        kept = getattr(module, name, None)
        if kept is not None:
            kept.clear()
    for name in ("_STREAMS", "_VERDICTS"):
        kept = getattr(secret_scan, name, None)
        while kept is not None and not isinstance(kept, dict):  # the cache's own dict
            kept = getattr(kept, "_kept", None)
        if kept is not None:
            kept.clear()
    names = getattr(secret_scan._secret_looking_name, "cache_clear", None)
    if names is not None:
        names()


def best(step: Callable[[], object], repeat: int) -> float:
    """The least CPU seconds of ``repeat`` runs of ``step``, each after :func:`forget`."""
    times = []
    for _ in range(repeat):
        forget()
        start = time.process_time()
        step()
        times.append(time.process_time() - start)
    return min(times)


def measure(store: Path, rounds: int, repeat: int) -> dict[str, float]:
    """µs a fixture of each step, by the code on ``sys.path``."""
    import orjson

    from replaygate.hygiene.verify import verify_store
    from replaygate.sanitize.secret_scan import find_fixture_secrets

    def read(path: Path) -> list[dict[str, Any]]:
        fixtures = [orjson.loads(line) for line in path.read_bytes().splitlines() if line]
        for fixture in fixtures:
            fixture.pop("seal", None)
        return fixtures

    fixtures, agent = read(store), read(AGENT_STORE)
    count = len(fixtures)

    def once(fixtures: list[dict[str, Any]] = fixtures) -> None:
        for fixture in fixtures:
            assert not find_fixture_secrets(fixture)

    def as_recorded() -> None:
        for fixture in fixtures:
            request, response = fixture["request"], fixture["response"]
            assert not find_fixture_secrets({"request": request})
            assert not find_fixture_secrets({"request": request, "response": response})
            assert not find_fixture_secrets(fixture)

    def recording() -> None:
        with tempfile.TemporaryDirectory() as folder:
            record(Path(folder) / "store.jsonl", rounds)

    recording()  # the SDKs' first calls, imports and caches
    return {
        "one scan": best(once, repeat) / count * 1e6,
        "one scan, research_copilot's fixtures": best(lambda: once(agent), repeat)
        / len(agent)
        * 1e6,
        "the scans of a recording": best(as_recorded, repeat) / count * 1e6,
        "verify_store": best(lambda: verify_store(store), repeat) / count * 1e6,
        "recording through the SDKs": best(recording, repeat) / count * 1e6,
    }


def tree_of(commit: str, folder: Path) -> Path:
    """The ``src`` of ``commit``, written under ``folder``."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", commit, "src"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder / "src"


def run_with(source: Path, store: Path, rounds: int, repeat: int) -> dict[str, float]:
    """:func:`measure` in a new process whose ``replaygate`` is the one in ``source``."""
    env = {**os.environ, "PYTHONPATH": str(source)}
    command = [sys.executable, __file__, "--measure", str(store)]
    command += ["--rounds", str(rounds), "--repeat", str(repeat)]
    done = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--before", default=BEFORE)
    parser.add_argument("--trials", type=int, default=2)
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure is not None:
        print(json.dumps(measure(args.measure, args.rounds, args.repeat)))
        return
    with tempfile.TemporaryDirectory() as folder:
        store = Path(folder) / "recorded.jsonl"
        record(store, args.rounds)
        count = len(store.read_bytes().splitlines())
        trees = {"before": tree_of(args.before, Path(folder)), "now": ROOT / "src"}
        found: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
        for _ in range(args.trials):  # the processes in turn: a load on the machine shared
            for name, source in trees.items():
                found[name].append(run_with(source, store, args.rounds, args.repeat))
        before, after = (
            {step: min(run[step] for run in found[name]) for step in found[name][0]}
            for name in trees
        )
    runs = f"best of {args.repeat} runs in each of {args.trials} processes"
    print(f"{count} fixtures, {runs}, µs of CPU a fixture")
    print()
    print(f"| step | {args.before} | now | before / now |")
    print("| --- | ---: | ---: | ---: |")
    for step, was in before.items():
        now = after[step]
        print(f"| {step} | {was:,.0f} | {now:,.0f} | {was / now:.2f}x |")


if __name__ == "__main__":
    main()
