"""Optional dependencies: a missing one names the extra that installs it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from replaygate.errors import MissingExtraError
from replaygate.extras import require


def test_a_module_of_a_namespace_package_installed_without_it_names_its_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # google-genai missing where another package put the google namespace (protobuf, an
    # API client): "No module named 'google.genai'", which drift listed as a fixture's error
    (tmp_path / "namespace_xyz").mkdir()  # as google is, without google-genai
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(MissingExtraError, match=r"pip install 'replaygate\[gemini\]'"):
        require("namespace_xyz.genai", "gemini", "re-sending Gemini fixtures")
    sys.modules.pop("namespace_xyz", None)
    (tmp_path / "broken_xyz").mkdir()  # a module it imports missing: not this extra's
    (tmp_path / "broken_xyz" / "__init__.py").write_text("import gone_xyz\n", "utf-8")
    with pytest.raises(ModuleNotFoundError, match="gone_xyz"):
        require("broken_xyz", "x", "p")
