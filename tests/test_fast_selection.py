"""``make test-fast`` leaves out whole modules marked slow without losing a fast test."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import marked_slow_as_a_whole

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize(
    ("source", "whole"),
    [
        ("import pytest\npytestmark = pytest.mark.slow\n", True),
        ("pytestmark = [\n    pytest.mark.slow,\n    pytest.mark.filterwarnings('x'),\n]\n", True),
        ("pytestmark = pytest.mark.skipif(True, reason='mark.slow is not it')\n", False),
        ("@pytest.mark.slow\ndef test_one():\n    pass\n", False),
        ("pytestmark = [pytest.mark.slowish]\n# pytest.mark.slow\n", False),
    ],
)
def test_only_a_module_level_slow_mark_counts(source: str, whole: bool) -> None:
    assert marked_slow_as_a_whole(source) is whole


def test_every_test_of_a_module_left_out_is_slow(request: pytest.FixtureRequest) -> None:
    left_out = {
        path.name
        for path in HERE.rglob("test_*.py")
        if marked_slow_as_a_whole(path.read_text(encoding="utf-8"))
    }
    assert "test_gemini.py" in left_out
    items = [item for item in request.session.items if item.path.name in left_out]
    if request.config.option.markexpr.strip() == "not slow":
        assert items == [], "a module marked slow as a whole was collected by test-fast"
    assert all(item.get_closest_marker("slow") for item in items)
