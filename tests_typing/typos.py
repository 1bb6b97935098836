"""Names misspelt, each an error to mypy (where a package's lazy ``__getattr__`` made it
``Any``): an ignore of it that mypy found unused would fail ``make lint`` (``strict``
warns of unused ignores). The old name of a renamed class (``Problem``, ``Recording``)
still type-checks."""

import replaygate.evals
from replaygate import ReplayModle  # type: ignore[attr-defined]
from replaygate.assertions import Problem, assert_contain  # type: ignore[attr-defined]
from replaygate.evals import Recording
from replaygate.http import intercpet  # type: ignore[attr-defined]

_ = (ReplayModle, Problem, assert_contain, Recording, intercpet)
_ = replaygate.evals.run_evl  # type: ignore[attr-defined]
