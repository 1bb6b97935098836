"""Why a path is not there, said so that a person can act on it: a relative path looked
for while the current folder no longer exists (removed, or renamed away, in another
shell) is missing for that reason, which a bare "no such file" would hide."""

from __future__ import annotations

import os
from pathlib import Path

from replaygate.checkouts import left_out_of_sparse_checkout

CWD_GONE = (
    "the current folder no longer exists (it was removed while this shell was in it): "
    "cd into an existing folder and run the command again"
)
"""What to say when the current folder no longer exists."""


def cwd_gone() -> bool:
    """Whether the current folder no longer exists."""
    try:
        os.getcwd()
    except FileNotFoundError:
        return True
    return False


def missing(path: str | os.PathLike[str], reason: str = "no such file or folder") -> str:
    """Why ``path`` is not there: ``reason``, or :data:`CWD_GONE` for a relative path
    while the current folder no longer exists; for a path git holds that a sparse
    checkout leaves out, ``reason`` and what to run to check it out."""
    if not os.path.isabs(path) and cwd_gone():
        return CWD_GONE
    left_out = left_out_of_sparse_checkout(Path(path))
    return reason if left_out is None else f"{reason}: {left_out}"
