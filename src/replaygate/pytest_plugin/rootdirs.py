"""Which rootdir pytest takes for a test file named alone: a monorepo with config files at
its top and in its packages gives a package's test file the package's folder, under which
its stores are looked for, where a run from the top has the top's. Imports no pytest, for
``replaygate ci plan``."""

from __future__ import annotations

import configparser
import tomllib
from collections.abc import Iterable
from pathlib import Path


def config_below(root: Path, files: Iterable[Path]) -> bool:
    """Whether a folder of one of ``files`` (test files under the rootdir ``root``) below
    ``root`` holds a pytest config file: pytest given that file takes the folder for its
    rootdir, and needs ``--rootdir`` to keep ``root``'s (and its stores)."""
    for file in files:
        folder = file.parent
        while folder != root and root in folder.parents:
            if holds_pytest_config(folder):
                return True
            folder = folder.parent
    return False


def holds_pytest_config(folder: Path) -> bool:
    """Whether ``folder`` holds a file pytest takes for its config: ``pytest.ini``,
    ``.pytest.ini``, or a ``pyproject.toml``, ``tox.ini`` or ``setup.cfg`` with its
    section (one that cannot be read is taken for one: pytest would stop at it)."""
    if (folder / "pytest.ini").is_file() or (folder / ".pytest.ini").is_file():
        return True
    try:
        if (folder / "pyproject.toml").is_file():
            tool = tomllib.loads((folder / "pyproject.toml").read_text("utf-8")).get("tool")
            if isinstance(tool, dict) and "pytest" in tool:
                return True
        for name, section in (("tox.ini", "pytest"), ("setup.cfg", "tool:pytest")):
            if (folder / name).is_file():
                parser = configparser.ConfigParser(interpolation=None)
                parser.read(folder / name, encoding="utf-8")
                if parser.has_section(section):
                    return True
    except (OSError, ValueError, configparser.Error):
        return True
    return False
