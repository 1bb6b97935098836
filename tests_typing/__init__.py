"""Modules a user writes from the docs, type-checked by ``make lint`` (``mypy --strict``,
with the package's sources, in one run) against the package as installed: it ships
``py.typed``."""
