"""Errors raised by the assertions."""

from __future__ import annotations

from replaygate.errors import ReplaygateError


class JudgeIndependenceError(ReplaygateError):
    """A judge would grade the output of its own model or model family (law 8).

    A refusal, not a warning: pick a judge from another vendor family, or loosen the
    family rule explicitly (``family_rule=exact_only``) if you mean to.
    """


class JudgeReplyError(ReplaygateError):
    """The judge's reply holds no usable ``GRADE: n`` line."""
