"""Known-safe patterns that are each valid but were combined into one expression, or
that match the shape of real keys.

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
    response = {
        "content": [{"type": "text", "text": "ok"}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
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


@pytest.mark.parametrize(
    "pattern", [".+", r"[A-Za-z0-9_-]{20,}", r"sk-ant-api03-[A-Za-z0-9_-]+", r"[A-Z0-9]{20}"]
)
def test_a_known_safe_pattern_that_matches_real_keys_is_refused(
    tmp_path: Path, pattern: str
) -> None:
    # each let every real key of a family through the scan, and so onto disk (law 4)
    path = tmp_path / "pyproject.toml"
    path.write_text(
        f"[tool.replaygate.sanitize]\nknown_safe_patterns = ['{pattern}']\n", encoding="utf-8"
    )
    with pytest.raises(SanitizeConfigError) as caught:
        load_config(path)
    assert caught.value.key == "tool.replaygate.sanitize.known_safe_patterns[0]"
    assert caught.value.line == 2
    assert "matches the shape of a real " in caught.value.reason
    assert "every such key would be written to disk" in caught.value.reason


def test_the_real_shapes_are_secrets_of_every_family_and_a_project_pattern_is_kept() -> None:
    from replaygate.sanitize.secret_rules import DETECTORS
    from replaygate.sanitize.secret_scan import find_fixture_secrets
    from replaygate.sanitize.secret_shapes import real_shapes

    for family, shape in real_shapes():
        fixture = {"key": "k" * 16, "request": {"text": f"see {shape} here"}, "response": {}}
        assert [f.detector for f in find_fixture_secrets(fixture)] == [family]
    families = {family for family, _ in real_shapes()}
    assert {detector.name for detector in DETECTORS} <= families
    for detector in DETECTORS:  # each anchor of each family has a shape
        for anchor in detector.anchors:
            assert any(
                anchor in shape for family, shape in real_shapes() if family == detector.name
            )
    SanitizeConfig(known_safe_patterns=("acme_test_[0-9a-f]{32}", r"(?i:acme_)[0-9]{12}"))


@pytest.mark.parametrize(
    "pattern",
    [
        "sk-[A-Za-z0-9]{48}",
        "sk-ant-admin01-[A-Za-z0-9_-]+",
        "xox[bp]-[0-9A-Za-z-]+",
        "glpat-[A-Za-z0-9_-]{20}",
        r"eyJ[\w.-]+",
        "ASIA[0-9A-Z]{16}",
        r"sk-svcacct-[\w-]+",
        "[A-Za-z0-9]{32}",
        "[0-9a-f]{32}-us[0-9]+",
        r"[\w.\-]{120,}",  # long keys: a JWT, an OAuth token, a free-standing token
    ],
)
def test_a_pattern_of_any_family_s_shape_is_refused(pattern: str) -> None:
    with pytest.raises(SanitizeConfigError, match="matches the shape of a real"):
        SanitizeConfig(known_safe_patterns=(pattern,))
