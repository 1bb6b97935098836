"""LLM-as-judge: another model grades an output against a rubric.

The judge is a :class:`~replaygate.models.types.Model`, so with a
:class:`~replaygate.models.replay.ReplayModel` or :class:`~replaygate.models.replay.RecordingModel`
its calls record and replay through a fixture store like any other model call, and a
judge-based test is deterministic in CI.
"""

from __future__ import annotations

from dataclasses import dataclass

from replaygate.assertions.errors import JudgeIndependenceError, JudgeReplyError
from replaygate.assertions.independence import (
    FamilyRule,
    check_independence,
    exact_only,
    model_id_of,
    told_id,
    vendor_family,
)
from replaygate.assertions.judge_prompt import build_prompt, parse_grade, reasoning
from replaygate.assertions.kinds import Check, Kind
from replaygate.assertions.text import preview, require_text
from replaygate.models.types import Message, Model, ModelResponse, check_model
from replaygate.type_names import numpy_note

FINISHED = frozenset({"end_turn", "stop_sequence"})
"""The stop reasons of a reply the judge finished; any other (``max_tokens``, ``refusal``,
``pause_turn``, ``tool_use``) ended it early, and its last grade line may be a draft."""


@dataclass(frozen=True)
class Grade:
    """The judge's grade of one text."""

    score: float
    threshold: float
    judge: str
    reply: str

    @property
    def passed(self) -> bool:
        """True when the grade reaches the threshold."""
        return self.score >= self.threshold

    @property
    def message(self) -> str:
        """The grade against the threshold, with the judge's reasoning."""
        verdict = "passes" if self.passed else "is below"
        return (
            f"judge {self.judge} graded {self.score:g}, which {verdict} the threshold "
            f"{self.threshold:g}; reasoning: {preview(reasoning(self.reply))}"
        )


def _judge_id(model: Model, judge_id: str | None) -> str:
    found = model_id_of(model) if judge_id is None else judge_id
    if found is None:
        raise JudgeIndependenceError(
            f"cannot tell which model the judge {type(model).__name__} is, so its independence "
            "from the model under test cannot be checked (law 8); pass judge_id='<model id>'"
        )
    return told_id(found, "the judge", "judge_id")


def _under_test_id(model: Model, under_test: Model | str) -> str:
    if isinstance(under_test, str):
        return told_id(under_test, "the model under test", "under_test")
    if under_test is model:
        raise JudgeIndependenceError(
            "refusing a judge that is the model under test: the same model object was given "
            "as judge and as under_test (law 8)"
        )
    found = model_id_of(under_test)
    if not found:
        raise JudgeIndependenceError(
            f"cannot tell which model the model under test {type(under_test).__name__} is, so "
            "the judge's independence cannot be checked (law 8); pass under_test='<model id>'"
        )
    return told_id(found, "the model under test", "under_test")


def _check_sent_id(model: Model, judge_id: str | None, under_test_id: str) -> None:
    """Refuse a judge whose model sends the model under test's id, whatever ``judge_id``
    says: ``judge_id`` names a model whose id cannot be read, never another model."""
    sent = model_id_of(model)
    if judge_id is None or sent is None:
        return
    try:
        check_independence(sent, under_test_id, exact_only)
    except JudgeIndependenceError as err:
        raise JudgeIndependenceError(
            f"judge_id={judge_id!r} names the judge, but its {type(model).__name__} sends "
            f"model {sent!r}: {err}"
        ) from None


def _answerers(model: object) -> list[object]:
    """``model`` and the models whose own answers it passes on: a recording's ``live``
    model, unless that one only sends the recording's request as it is (``complete_wire``,
    an SDK-backed model, where the request names the model that answers)."""
    chain = [model]
    live = getattr(model, "live", None)
    while live is not None and not callable(getattr(live, "complete_wire", None)):
        if any(live is seen for seen in chain):
            break
        chain.append(live)
        live = getattr(live, "live", None)
    return chain


def _check_answerers(
    model: Model, under_test: Model | str, under_test_id: str, family_rule: FamilyRule
) -> None:
    """Refuse a judge that passes its calls to a model answering as the model under test:
    that model itself (a recording whose ``live`` is it) or one whose id names it."""
    tested = [] if isinstance(under_test, str) else _answerers(under_test)
    for link in _answerers(model)[1:]:
        where = f"the judge's {type(model).__name__} is answered by its live {type(link).__name__}"
        if any(link is other for other in tested):
            raise JudgeIndependenceError(
                f"refusing a judge that is the model under test: {where}, which is the model "
                "under test (or the live model it records), whatever id the judge sends (law 8)"
            )
        found = model_id_of(link)
        if found is None:
            continue
        try:
            check_independence(found, under_test_id, family_rule)
        except JudgeIndependenceError as err:
            raise JudgeIndependenceError(f"{where} ({found!r}): {err}") from None


def _finished(response: ModelResponse) -> str:
    """The text of a reply the judge finished; :class:`JudgeReplyError` for one cut short
    (a grade line before the cut may be a draft the reply went on to revise)."""
    if response.stop_reason in FINISHED:
        return response.text
    advice = "; raise the judge's max_tokens" if response.stop_reason == "max_tokens" else ""
    raise JudgeReplyError(
        f"the judge's reply ended early (stop reason {response.stop_reason!r}{advice}), so "
        f"a grade line in it may be a draft it went on to revise; nothing was graded: "
        f"{preview(response.text)}"
    )


def _is_scale(scale: object) -> bool:
    """Whether ``scale`` is a pair of integers (not bools)."""
    return (
        isinstance(scale, tuple | list)
        and len(scale) == 2
        and all(type(end) is int for end in scale)
    )


class Judge:
    """Grades a text with ``model`` against ``rubric``; passes at ``grade >= threshold``.

    Refuses (:class:`JudgeIndependenceError`) a judge whose model id names the model of
    ``under_test`` (a model or its id; an alias, snapshot or provider's spelling of it, see
    :func:`~replaygate.assertions.independence.same_model`), or whose family is its
    family under ``family_rule``
    (default: :func:`~replaygate.assertions.independence.vendor_family`). The judge's
    id is read from ``model.settings.model`` unless ``judge_id`` is given.
    """

    def __init__(
        self,
        model: Model,
        rubric: str,
        *,
        threshold: float,
        under_test: Model | str,
        judge_id: str | None = None,
        family_rule: FamilyRule = vendor_family,
        scale: tuple[int, int] = (1, 5),
    ) -> None:
        check_model(model, "Judge: model")
        if not isinstance(rubric, str):
            raise TypeError(f"rubric must be text (str), got {type(rubric).__name__}")
        if not rubric.strip():
            raise ValueError("a judge needs a rubric: say what a good output does")
        if isinstance(threshold, bool) or not isinstance(threshold, int | float):
            raise TypeError(f"threshold must be a number, got {threshold!r}{numpy_note(threshold)}")
        if not _is_scale(scale):
            raise TypeError(f"scale must be (low, high), two whole numbers, got {scale!r}")
        low, high = scale
        if low >= high:
            raise ValueError(f"scale must be (low, high) with low < high, got {scale!r}")
        if not low <= threshold <= high:
            raise ValueError(f"threshold {threshold!r} is outside the scale {low}..{high}")
        if threshold == low:
            raise ValueError(
                f"threshold {threshold!r} is the lowest grade of the scale {low}..{high}: "
                "every grade would pass; give a threshold above it"
            )
        self.judge_id = _judge_id(model, judge_id)
        self.under_test_id = _under_test_id(model, under_test)
        check_independence(self.judge_id, self.under_test_id, family_rule)
        _check_sent_id(model, judge_id, self.under_test_id)
        _check_answerers(model, under_test, self.under_test_id, family_rule)
        self.model = model
        self.rubric = rubric
        self.threshold = threshold
        self.scale = scale

    def prompt(self, text: str) -> str:
        """The prompt sent to the judge for ``text``."""
        return build_prompt(
            self.rubric, require_text(text, "the text the judge grades"), self.scale
        )

    def grade(self, text: str) -> Grade:
        """Ask the judge; the last ``GRADE: n`` line of its reply is the grade."""
        response = self.model.complete((Message.user(self.prompt(text)),), ())
        score = parse_grade(_finished(response), self.scale)
        return Grade(score, self.threshold, self.judge_id, response.text)

    def assert_passes(self, text: str) -> Grade:
        """Raise :class:`AssertionError` when the grade is below the threshold."""
        grade = self.grade(text)
        if not grade.passed:
            raise AssertionError(grade.message)
        return grade

    def check(self, *, kind: Kind, name: str = "judge") -> Check[str]:
        """This judge as a named gate or signal on a text."""
        return Check(name, kind, self.grade, "judge", f"judge {self.judge_id}: {self.rubric}")
