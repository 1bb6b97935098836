"""Secrets: never rewritten, refused (law 4).

A secret is not a value to redact and carry on with: the recording that met one
is stopped, with the field path of the first finding, and nothing is written. The
check runs on what would be written, after the whole pipeline, including the text
of a streamed answer joined across its events. The store refuses a secret found in
any single field again when it writes (:meth:`~replaygate.fixtures.store.FixtureStore.put`).
"""

from __future__ import annotations

from typing import Any

from replaygate.errors import SecretInFixtureError
from replaygate.sanitize.secret_allow import NOTHING_SAFE, KnownSafe
from replaygate.sanitize.secret_scan import find_fixture_secrets


def refuse_secrets(request: Any, response: Any, safe: KnownSafe = NOTHING_SAFE) -> None:
    """Raise :class:`SecretInFixtureError` if ``request`` or ``response`` holds a secret.

    ``safe`` holds the project's known-safe values (:mod:`.secret_allow`).
    """
    findings = find_fixture_secrets({"request": request, "response": response}, safe)
    if findings:
        raise SecretInFixtureError(findings[0].path, findings[0].detector)
