"""Where drift may write its reports: not inside a fixture folder it compares (the
store would read the report as a damaged fixture), and not into a folder that is not
there."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def output_problem(out: Path, stores: Mapping[str, Path | None]) -> str | None:
    """Why the report file ``out`` cannot be written, or None; ``stores`` are the fixture
    sets compared, by what each is."""
    place = out.resolve()
    for what, store in stores.items():
        if store is not None and store.is_dir() and place.is_relative_to(store.resolve()):
            return (
                f"{out}: is inside {what} ({store}), which would read the report as a "
                "fixture file; choose a file outside it (nothing was sent)"
            )
    folder = out.absolute().parent
    if not folder.is_dir():
        return (
            f"{out}: the folder {out.parent} does not exist; make it or choose another "
            "file (nothing was sent)"
        )
    return None
