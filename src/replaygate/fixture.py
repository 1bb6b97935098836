"""The 0.1 import path of :mod:`replaygate.fixtures.fixture`, kept so existing imports work."""

from replaygate.fixtures.fixture import (
    FIELDS,
    META_FIELDS,
    SOURCES,
    Fixture,
    InterfaceVersionError,
    check_source,
    from_json,
    interface_folder,
    make_meta,
    meta_problems,
    now_iso,
    version_mismatch,
)

__all__ = [
    "FIELDS",
    "META_FIELDS",
    "SOURCES",
    "Fixture",
    "InterfaceVersionError",
    "check_source",
    "from_json",
    "interface_folder",
    "make_meta",
    "meta_problems",
    "now_iso",
    "version_mismatch",
]
