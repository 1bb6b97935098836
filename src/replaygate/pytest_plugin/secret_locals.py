"""A test failed by an error about a secret shows none of its frames' locals.

A live answer refused for a secret went through the frames of the HTTP client, the SDK
and the code under test (a body's chunks, a stream's events, the text joined so far); a
request that holds a key is refused while recording and misses on replay (no recording
could have stored it), and the same frames hold the request. ``pytest -l``
(``--showlocals``), and ``--tb=long`` for each function's arguments, would print them to
the terminal, a ``--junitxml`` report and the CI log, key included, where the error's own
message masks it or names only its field. The frames of such an error are cleared before
pytest reports it, so the report shows their code and the message (the field and the
rule, the masked diff), no value.
"""

from __future__ import annotations

import traceback

from replaygate.errors import FixtureMismatchError, SecretInFixtureError, exception_chain


def about_a_secret(failed: BaseException) -> bool:
    """Whether ``failed``, or an error it was raised from, refused a request or a live
    answer holding a secret, or is a miss whose message masks a secret the request holds."""
    return any(
        isinstance(error, SecretInFixtureError)
        or (isinstance(error, FixtureMismatchError) and error.masked)
        for error in exception_chain(failed)
    )


def forget_secret_locals(failed: BaseException) -> None:
    """Clear the locals of the frames ``failed`` and the errors it was raised from went
    through, when it is about a secret (:func:`about_a_secret`)."""
    if about_a_secret(failed):
        for error in exception_chain(failed):
            traceback.clear_frames(error.__traceback__)
