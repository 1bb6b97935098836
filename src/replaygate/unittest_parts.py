"""How unittest took an error that left a test: as the test's error, or as the failure a
test marked ``@unittest.expectedFailure`` expects, which passes it.

unittest runs each part of a test (its ``setUp``, the test, a ``subTest``, its
``tearDown``) inside ``_Outcome.testPartExecutor``, which reports what leaves the part
(under pytest too): an error that left the part passed through that frame, which still
holds the test it ran.
"""

from __future__ import annotations

import sys
from typing import Literal

Taken = Literal["error", "expected"]


def unittest_took(error: BaseException) -> Taken | None:
    """``"error"`` when ``error`` left a part of a unittest test and was reported as that
    test's error, ``"expected"`` when it left a test marked ``@expectedFailure`` (whose
    error, any error, is the failure it expects), None when it never reached unittest.
    A marked test's ``setUp`` or ``tearDown`` counts as expecting one too."""
    case = sys.modules.get("unittest.case")
    at = error.__traceback__
    while case is not None and at is not None:
        code = at.tb_frame.f_code
        if code.co_name == "testPartExecutor" and code.co_filename == case.__file__:
            test = at.tb_frame.f_locals.get("test_case")
            test = getattr(test, "test_case", test)  # a subTest's test
            if not isinstance(test, case.TestCase):
                return None
            method = getattr(test, test._testMethodName, None)
            marked = (
                getattr(held, "__unittest_expecting_failure__", False) for held in (test, method)
            )
            return "expected" if any(marked) else "error"
        at = at.tb_next
    return None
