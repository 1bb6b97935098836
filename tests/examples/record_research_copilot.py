"""Re-record the fixtures of the ResearchCopilot assertion examples.

Run from the repository root (it calls the loopback simulator, never a paid API,
but recording still needs the explicit approval)::

    .venv/bin/python tests/examples/record_research_copilot.py --approve-live

It rewrites ``tests/examples/fixtures/rag_basics_samples.jsonl`` (5 samples of the
``rag-basics`` case from the simulator, seed 80; ``meta.source`` is ``sim``) and
``tests/examples/fixtures/judge.jsonl`` (the judge's grades of those answers, from a
rule-based stand-in judge; ``meta.source`` is ``scripted``). To grade with a live
judge instead, pass a live model to :func:`record_judge`.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from pathlib import Path

from replaygate.assertions import Judge, extract_citations
from replaygate.examples.research_copilot import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_MODEL,
    DEFAULT_SYSTEM,
    build_registry,
    load_cases,
    run,
)
from replaygate.models.fakes import FunctionModel
from replaygate.models.live import AnthropicModel
from replaygate.models.replay import RecordingModel, ReplayModel
from replaygate.models.types import Message, Model, ModelResponse, ToolSpec
from replaygate.sim import Simulator

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SAMPLED_STORE = FIXTURES / "rag_basics_samples.jsonl"
JUDGE_STORE = FIXTURES / "judge.jsonl"
CASE_ID = "rag-basics"
SAMPLES = 5
SIM_SEED = 80
"""The simulator's seed: its policy drops the citation in the last of the 5 samples."""
JUDGE_MODEL = "gpt-4o-mini"
JUDGE_INTERFACE = "openai.chat.completions"
JUDGE_MAX_TOKENS = 256
RUBRIC = (
    "The answer explains what retrieval-augmented generation (RAG) is and cites the "
    "document it relies on as [doc-id]. 5: correct and cited; 2: correct but uncited; "
    "1: wrong or off topic."
)


def question() -> str:
    """The question of the recorded case."""
    return next(case.question for case in load_cases() if case.id == CASE_ID)


def answer_model(sample: int, store: Path = SAMPLED_STORE) -> ReplayModel:
    """The model under test, replaying sample ``sample``."""
    return ReplayModel(
        store,
        model=DEFAULT_MODEL,
        max_tokens=DEFAULT_MAX_TOKENS,
        system=DEFAULT_SYSTEM,
        sample=sample,
    )


def judge_model(store: Path = JUDGE_STORE) -> ReplayModel:
    """The judge, replaying its recorded grades (one grade per distinct answer)."""
    return ReplayModel(
        store, model=JUDGE_MODEL, max_tokens=JUDGE_MAX_TOKENS, interface=JUDGE_INTERFACE
    )


def make_judge(model: Model, under_test: Model | str) -> Judge:
    """The example's judge: 4 of 5 or better passes."""
    return Judge(model, RUBRIC, threshold=4, under_test=under_test)


def record_samples(store: Path, *, approve_live: bool) -> list[str]:
    """Record ``SAMPLES`` runs of the case from the simulator; return the answers."""
    answers = []
    with Simulator(behavior="research-copilot", seed=SIM_SEED) as sim:
        import anthropic

        client = anthropic.Anthropic(base_url=sim.url, api_key="sim-key")
        live = AnthropicModel(
            client, model=DEFAULT_MODEL, max_tokens=DEFAULT_MAX_TOKENS, system=DEFAULT_SYSTEM
        )
        for sample in range(SAMPLES):
            recorder = RecordingModel(
                live,
                store,
                approve_live=approve_live,
                mode="rerecord",
                model=DEFAULT_MODEL,
                max_tokens=DEFAULT_MAX_TOKENS,
                system=DEFAULT_SYSTEM,
                sample=sample,
                source="sim",
                note=f"{CASE_ID}, simulator seed {SIM_SEED}, sample {sample}",
            )
            answers.append(run(recorder, build_registry(), question()).final)
    return answers


_GRADED = re.compile(r"<<<TEXT (\w+)>>>\n(.*?)\n<<<END \1>>>", re.DOTALL)


def stand_in_grade(messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
    """A rule-based stand-in judge: 5 when the quoted answer is on RAG and cites a doc."""
    match = _GRADED.search(messages[-1].content)
    text = "" if match is None else re.sub(r"^\| ", "", match.group(2), flags=re.MULTILINE)
    on_topic = "retriev" in text.lower()
    cited = bool(extract_citations(text))
    grade = 5 if on_topic and cited else 2 if on_topic else 1
    why = "on topic" if on_topic else "off topic"
    why += ", cites its source" if cited else ", no citation"
    return ModelResponse(text=f"The answer is {why}.\nGRADE: {grade}")


def record_judge(
    answers: Sequence[str], store: Path, *, approve_live: bool, live: Model | None = None
) -> None:
    """Record the judge's grade of each answer (``live`` defaults to the stand-in)."""
    recorder = RecordingModel(
        live or FunctionModel(stand_in_grade),
        store,
        approve_live=approve_live,
        mode="rerecord",
        model=JUDGE_MODEL,
        max_tokens=JUDGE_MAX_TOKENS,
        interface=JUDGE_INTERFACE,
        source=None if live else "scripted",
        note="grades of the rag-basics answers",
    )
    judge = make_judge(recorder, under_test=DEFAULT_MODEL)
    for answer in dict.fromkeys(answers):
        judge.grade(answer)


def main(argv: Sequence[str] | None = None) -> None:
    """Rewrite both fixture files."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--approve-live", action="store_true", help="approve the recording")
    args = parser.parse_args(argv)
    if not args.approve_live:
        parser.error("recording needs --approve-live; nothing was called or written")
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for store in (SAMPLED_STORE, JUDGE_STORE):
        store.unlink(missing_ok=True)
    answers = record_samples(SAMPLED_STORE, approve_live=True)
    record_judge(answers, JUDGE_STORE, approve_live=True)
    for store in (SAMPLED_STORE, JUDGE_STORE):
        store.with_name(store.name + ".lock").unlink(missing_ok=True)
    for sample, answer in enumerate(answers):
        print(f"sample {sample}: {answer}")
    print(f"wrote {SAMPLED_STORE} and {JUDGE_STORE}")


if __name__ == "__main__":
    main()
