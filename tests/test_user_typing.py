"""A star import of the errors gives a user's module the errors alone. That test code written
from the docs type-checks under ``mypy --strict``, and that a misspelt name does not, is
checked by ``make lint`` (``tests_typing/``)."""

from __future__ import annotations

import replaygate.errors


def test_a_star_import_of_the_errors_gives_the_errors_warnings_and_kind_of_a_miss() -> None:
    # Without __all__ it gave every helper and import of the module (os, sys, Any,
    # timed_out, located...), shadowing or redefining the importer's own names.
    names: dict[str, object] = {}
    exec("from replaygate.errors import *", names)
    given = set(names) - {"__builtins__"}
    raised = {
        name
        for name, value in vars(replaygate.errors).items()
        if isinstance(value, type)
        and issubclass(value, BaseException)
        and value.__module__ == "replaygate.errors"
    }
    assert given == raised | {"MissKind"}
