"""Known-safe patterns that are each valid but were combined into one expression.

Each pattern is its own expression: two naming the same group, a backreference, or
a pattern with a leading flag used to end ``verify`` (and every record) in a
``re.error`` traceback, or to mean something else inside the combination.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate.cli import main
from replaygate.fixtures.fixture import Fixture, make_meta
from replaygate.fixtures.store import FixtureStore
from replaygate.sanitize import SanitizeConfig
from replaygate.sanitize.config import SanitizeConfigError, load_config

TEST_TOKEN = "acme_test_" + "3f9a0c7e5b1d2e8f4a6c9b0d7e1f2a3c"
OTHER_TOKEN = "acme_demo_" + "9b0d7e1f2a3c3f9a0c7e5b1d2e8f4a6c"
REAL_TOKEN = "ghp_" + "Zq8Xv7Wm2Kp9Rt4Ly6Hb8Nc3Jd5Fg1Ss0Aa9b"


def fixture(text: str) -> Fixture:
    request = {"model": "m", "messages": [{"role": "user", "content": text}]}
    response = {"content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn"}
    return Fixture.create(
        request, [response], make_meta("anthropic.messages", "2023-06-01", "hand")
    )


def test_patterns_naming_the_same_group_and_backreferences_each_mean_what_they_say(
    tmp_path: Path,
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.replaygate.sanitize]\nknown_safe_patterns = [\n"
        "  'acme_(?P<kind>test)_[0-9a-f]{32}',\n"
        "  'acme_(?P<kind>demo)_[0-9a-f]{32}',\n"
        "  '(zz)\\1_[0-9a-f]{32}',\n"
        "]\n",
        encoding="utf-8",
    )
    store = tmp_path / "f.jsonl"
    FixtureStore.open(store).put(fixture(f"use {TEST_TOKEN} or {OTHER_TOKEN}"))
    done = CliRunner().invoke(main, ["verify", str(store)])
    assert done.exit_code == 0, done.output
    assert "Traceback" not in done.output
    safe = load_config(tmp_path / "pyproject.toml").safe_values()
    assert safe.mask(f"a zzzz_{'0' * 32} b").split() == ["a", "b"]
    assert REAL_TOKEN in safe.mask(f"{TEST_TOKEN} {REAL_TOKEN}")


def test_a_pattern_with_a_leading_flag_is_refused_with_what_to_write(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text(
        "[tool.replaygate.sanitize]\nknown_safe_patterns = ['(?i)acme_test_[0-9a-f]{32}']\n",
        encoding="utf-8",
    )
    with pytest.raises(SanitizeConfigError, match=r"known_safe_patterns\[0\]: .*\(\?i:\.\.\.\)"):
        load_config(path)


def test_a_scoped_flag_works() -> None:
    config = SanitizeConfig(known_safe_patterns=("(?i:ACME_TEST_)[0-9a-f]{32}",))
    assert config.safe_values().mask(TEST_TOKEN).strip() == ""
