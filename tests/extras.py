"""The mark of the tests that need the report extra, found without importing it.

``pytest.importorskip("matplotlib")`` at the top of a module imports matplotlib in every
xdist worker as it collects (half a second each); finding it costs nothing, and only the
worker that runs the module's tests imports it.
"""

from __future__ import annotations

from importlib.util import find_spec

import pytest

needs_matplotlib = pytest.mark.skipif(
    find_spec("matplotlib") is None, reason="the report needs the report extra (matplotlib)"
)
