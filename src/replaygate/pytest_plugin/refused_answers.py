"""A test failed by a live answer refused for a secret shows none of its frames' locals.

The answer went through the frames of the HTTP client, the SDK and the code under test
(a body's chunks, a stream's events, the text joined so far): ``pytest -l``
(``--showlocals``) would print them to the terminal, a ``--junitxml`` report and the CI
log, key included. The frames of the error are cleared before pytest reports it, so
the report shows their code and the refusal's message (the field and the rule), no
value.
"""

from __future__ import annotations

import traceback

from replaygate.errors import SecretInFixtureError, exception_chain


def refused_answer(failed: BaseException) -> bool:
    """Whether ``failed``, or an error it was raised from, refused a live answer holding a
    secret (not a request, which the test's own code built)."""
    return any(
        isinstance(error, SecretInFixtureError) and not error.before_send
        for error in exception_chain(failed)
    )


def forget_answer_locals(failed: BaseException) -> None:
    """Clear the locals of the frames ``failed`` and the errors it was raised from went
    through, when one of them refused a live answer (:func:`refused_answer`)."""
    if refused_answer(failed):
        for error in exception_chain(failed):
            traceback.clear_frames(error.__traceback__)
