"""A user's test module: ``assert_json`` given a pydantic model, a star import of the
errors beside a helper of its own, and ``intercept`` decorating a function and a coroutine
function."""

from typing import assert_type

from replaygate.assertions import assert_json
from replaygate.errors import *  # noqa: F403
from replaygate.http import intercept


class Report:  # a pydantic model at run time; a plain class spares mypy reading pydantic
    citations: list[str]


def cited(text: str) -> list[str]:
    report = assert_json(text, Report)
    assert_type(report, Report)
    return report.citations


def timed_out(seconds: float) -> bool:  # a name of the user's own, beside the star import
    return seconds > 1


@intercept("x.jsonl")
def sync_answer(n: int) -> str:
    return str(n)


@intercept("x.jsonl")
async def async_answers(n: int) -> list[int]:
    return [n]


async def use() -> str:
    numbers: list[int] = await async_answers(1)
    try:
        return sync_answer(numbers[0])
    except FixtureMismatchError as err:  # noqa: F405
        kind: MissKind = err.kind  # noqa: F405
        return kind
