"""Shared set-up of the recipe tests: keys in the environment, a store per test."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests_frameworks.harness import FAKE_KEY


@pytest.fixture(autouse=True)
def _api_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Frameworks read their keys from the environment; the simulator wants one."""
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.setenv(name, FAKE_KEY)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A fresh fixture store for one test."""
    return tmp_path / "fixtures.jsonl"


def pytest_configure(config: pytest.Config) -> None:
    """Quiet the frameworks' own import-time warnings, which say nothing about the recipes;
    LiteLLM reads its bundled model cost map and Anthropic beta headers instead of fetching
    them (the map in a background thread), which under ``intercept()`` would be requests
    of the test's own."""
    os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
    config.addinivalue_line("filterwarnings", "ignore:.*ReadOnly. qualifier:UserWarning")
    config.addinivalue_line(
        "filterwarnings", "ignore:Accessing the 'model_.*' attribute on the instance is deprecated"
    )
