"""Shared test setup: pytester (for the pytest plugin's tests) and Hypothesis profiles.

Every property test runs in every profile; the profile sets how many examples each
one draws (a test's own ``@settings`` keep their other options), with no per-example
deadline (the machine running the suite is often shared; a slow example is not a
failure of what the test asserts):

- ``quick`` (the default: ``make test``, ``make test-fast``): 25 examples;
- ``thorough`` (``make test-thorough``, or ``--hypothesis-profile=thorough``):
  500 examples, for a scheduled run or a change to the parsers, the canonical form
  or the secret scanner.

``HYPOTHESIS_PROFILE=thorough`` selects a profile from the environment too.

Under ``-m "not slow"`` (``make test-fast``) a module marked slow as a whole is not
collected at all: none of its tests would run, and importing some of them (the Gemini
SDK, matplotlib, the pytest plugins' projects) costs each worker seconds.
"""

from __future__ import annotations

import ast
import functools
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

pytest_plugins = ("pytester",)
# pytest-recording is not loaded here (pyproject.toml's addopts), but the projects the
# tests run in process load it, and it asks for vcr.matchers' asserts to be rewritten:
# asked here too, before any test imports vcr, so that they need not warn that it was
# imported without.
pytest.register_assert_rewrite("vcr.matchers")

settings.register_profile("quick", max_examples=25, deadline=None)
settings.register_profile("thorough", max_examples=500, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "quick"))


@pytest.fixture(autouse=True, scope="session")
def _one_default_tls_context() -> Iterator[None]:
    """Clients built during the tests share one default TLS context.

    Building one reads the whole CA bundle (about 40 ms of CPU). Each SDK client, each
    plain httpx client and each fixture transport with a live side builds its own, a few
    hundred times in the suite, and no test makes a TLS connection: the simulator is
    plain HTTP on loopback, and replay blocks the network.
    """
    with pytest.MonkeyPatch.context() as patch:
        try:
            import httpcore2
        except ImportError:  # without the SDKs' transport there is nothing to share
            pass
        else:
            patch.setattr(
                httpcore2, "default_ssl_context", functools.cache(httpcore2.default_ssl_context)
            )
        try:
            from httpx._transports import default as httpx_transports
        except ImportError:
            pass
        else:  # the transports call it by this name, with hashable arguments by default
            patch.setattr(
                httpx_transports,
                "create_ssl_context",
                functools.cache(httpx_transports.create_ssl_context),
            )
        yield


def marked_slow_as_a_whole(source: str) -> bool:
    """Whether a module's own ``pytestmark`` (one mark or a list) includes ``slow``."""
    if "pytestmark" not in source or "mark.slow" not in source:
        return False
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "pytestmark" for target in node.targets
        ):
            marks = node.value.elts if isinstance(node.value, ast.List) else [node.value]
            return any(ast.unparse(mark) == "pytest.mark.slow" for mark in marks)
    return False


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if config.option.markexpr.strip() != "not slow" or collection_path.suffix != ".py":
        return None
    if not collection_path.name.startswith("test_"):
        return None
    return True if marked_slow_as_a_whole(collection_path.read_text(encoding="utf-8")) else None
