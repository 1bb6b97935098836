"""A long conversation with large tool outputs, recorded through the Anthropic SDK.

Run: ``.venv/bin/python bench/bench_long_conversation.py [--turns N] [--output-kb K]
[--cut-levels L]`` (prints a markdown table row).

An agent resends its whole history with each request, so the requests of a conversation
of N turns, each adding a tool output of K kB, grow to N*K kB and its store holds about
N*N*K/2 kB. The conversation is recorded (``record-missing``) from the in-process
simulator (``echo``) through ``intercept()``, replayed, recorded again (``rerecord``, which
replaces each fixture in place) and verified (with nothing remembered clean, as a new
process does). ``--cut-levels 2`` cuts values for the
secret scan's gate as it did before it reached the turns of an HTTP-layer request
(:data:`~replaygate.sanitize.secret_gate._CUT_LEVELS`), to compare.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anthropic

import replaygate.http
from replaygate.hygiene.verify import verify_store
from replaygate.sanitize import secret_gate
from replaygate.sim import Simulator

TOOLS = [
    {
        "name": "fetch",
        "description": "Fetch a table.",
        "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}},
    }
]


def table(turn: int, size: int) -> str:
    """A CSV of about ``size`` bytes, its own for each turn."""
    rnd = random.Random(turn)
    rows = ["id,name,city,amount"]
    length = 0
    while length < size:
        rows.append(f"{len(rows)},user{rnd.randint(1, 9999)},city{rnd.randint(1, 99)}")
        length += len(rows[-1]) + 1
    return "\n".join(rows)


def converse(client: anthropic.Anthropic, turns: int, size: int) -> None:
    """``turns`` requests, each answered by a tool output of ``size`` bytes."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Analyse the tables."}]
    for turn in range(turns):
        reply = client.messages.create(
            model="claude-sonnet-4-5", max_tokens=64, messages=messages, tools=TOOLS
        )
        call = {"type": "tool_use", "id": f"toolu_{turn:04d}", "name": "fetch", "input": {}}
        text = {"type": "text", "text": reply.content[0].text}  # type: ignore[union-attr]
        messages.append({"role": "assistant", "content": [text, call]})
        result = {"type": "tool_result", "tool_use_id": call["id"], "content": table(turn, size)}
        messages.append({"role": "user", "content": [result]})


def timed(step: Callable[[], object]) -> float:
    start = time.perf_counter()
    step()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--output-kb", type=int, default=20)
    parser.add_argument("--cut-levels", type=int, default=secret_gate._CUT_LEVELS)
    args = parser.parse_args()
    secret_gate._CUT_LEVELS = args.cut_levels
    turns, size = args.turns, args.output_kb * 1000
    with tempfile.TemporaryDirectory() as folder, Simulator(behavior="echo") as sim:
        store = Path(folder) / "conversation.jsonl"

        def run(mode: str) -> None:
            live: dict[str, Any] = {"approve_live": True, "live_origin": sim.url}
            options = live if mode != "replay" else {}
            with (
                replaygate.http.intercept(store, mode, **options),
                anthropic.Anthropic(api_key="sk-ant-bench") as client,
            ):
                converse(client, turns, size)

        record = timed(lambda: run("record-missing"))
        megabytes = store.stat().st_size / 1e6
        replay = timed(lambda: run("replay"))
        rerecord = timed(lambda: run("rerecord"))
        secret_gate._clean.clear()  # verify as a new process runs it: nothing known clean
        secret_gate._clean_before.clear()
        verify = timed(lambda: verify_store(store))
    columns = "turns|output kB|cut levels|store MB|record (s)|replay (s)|rerecord (s)|verify (s)"
    print(f"| {columns.replace('|', ' | ')} |")
    print("| --- " * 8 + "|")
    print(
        f"| {turns} | {args.output_kb} | {args.cut_levels} | {megabytes:.0f} | {record:.2f} "
        f"| {replay:.2f} | {rerecord:.2f} | {verify:.2f} |"
    )


if __name__ == "__main__":
    main()
