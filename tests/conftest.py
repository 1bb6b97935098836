"""Shared test setup: pytester (for the pytest plugin's tests)."""

pytest_plugins = ("pytester",)
