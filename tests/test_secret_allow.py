"""Known-safe values: a project vouches for secret-looking strings; nothing else gets by."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from replaygate.cli import main
from replaygate.errors import SecretInFixtureError
from replaygate.fixtures.fixture import Fixture, make_meta
from replaygate.fixtures.store import FixtureStore
from replaygate.http import httpx2_client
from replaygate.hygiene.verify import verify_store
from replaygate.sanitize import SanitizeConfig
from replaygate.sanitize.config import SanitizeConfigError, load_config
from replaygate.sanitize.secret_scan import find_fixture_secrets
from replaygate.sim import Simulator
from sdks import anthropic

EXAMPLE_KEY = "AKIAIOSFODNN7EXAMPLE"  # AWS's documented example access key id
TEST_TOKEN = "acme_test_" + "3f9a0c7e5b1d2e8f4a6c9b0d7e1f2a3c"
REAL_TOKEN = "ghp_" + "Zq8Xv7Wm2Kp9Rt4Ly6Hb8Nc3Jd5Fg1Ss0Aa9b"
PYPROJECT = f"""
[tool.replaygate.sanitize]
known_safe = ["{EXAMPLE_KEY}"]
known_safe_patterns = ['acme_test_[0-9a-f]{{32}}']
"""


def _fixture(text: str, **fields: Any) -> Fixture:
    request = {"model": "m", "messages": [{"role": "user", "content": text}], **fields}
    response = {
        "content": [{"type": "text", "text": "ok"}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    return Fixture.create(
        request, [response], make_meta("anthropic.messages", "2023-06-01", "hand")
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    return tmp_path


@pytest.fixture
def elsewhere(project: Path) -> Path:
    """A project inside ``project`` that lists no known-safe value."""
    folder = project / "elsewhere"
    folder.mkdir()
    (folder / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    return folder


def test_the_config_reads_values_and_patterns(project: Path) -> None:
    config = load_config(project / "pyproject.toml")
    assert config.known_safe == (EXAMPLE_KEY,)
    safe = config.safe_values()
    assert safe.mask(f"a {EXAMPLE_KEY} b {TEST_TOKEN} c").split() == ["a", "b", "c"]


@pytest.mark.parametrize(
    ("table", "key", "reason"),
    [
        ('known_safe = ["short"]', "known_safe[0]", "shorter than 8"),
        ('known_safe = "AKIAIOSFODNN7EXAMPLE"', "known_safe", "a list of strings"),
        ("known_safe_patterns = ['(']", "known_safe_patterns[0]", "invalid regular expression"),
        ("known_safe_patterns = ['x*']", "known_safe_patterns[0]", "matches the empty string"),
    ],
)
def test_a_bad_entry_names_the_file_and_the_key(
    tmp_path: Path, table: str, key: str, reason: str
) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text(f"[tool.replaygate.sanitize]\n{table}\n")
    with pytest.raises(SanitizeConfigError) as err:
        load_config(path)
    assert err.value.key == f"tool.replaygate.sanitize.{key}"
    assert reason in err.value.reason and str(path) in str(err.value)


@pytest.mark.parametrize("value", [EXAMPLE_KEY, TEST_TOKEN])
def test_the_store_writes_a_known_safe_value_only_in_its_project(
    project: Path, elsewhere: Path, value: str
) -> None:
    with pytest.raises(SecretInFixtureError):
        FixtureStore.open(elsewhere / "f.jsonl").put(_fixture(f"api_key={value}"))
    store = FixtureStore.open(project / "f.jsonl")
    store.put(_fixture(f"api_key={value}"))
    assert len(FixtureStore.open(project / "f.jsonl")) == 1


def test_a_known_safe_field_name_is_written_and_verified_only_in_its_project(
    project: Path, elsewhere: Path
) -> None:
    with pytest.raises(SecretInFixtureError, match=r"request.metadata \(a field name\)"):
        FixtureStore.open(elsewhere / "f.jsonl").put(_fixture("hi", metadata={EXAMPLE_KEY: "x"}))
    store = project / "f.jsonl"
    FixtureStore.open(store).put(_fixture("hi", metadata={EXAMPLE_KEY: "x"}))
    assert verify_store(store) == (1, [])
    with pytest.raises(SecretInFixtureError, match="GitHub token"):
        FixtureStore.open(store).put(_fixture("hi", metadata={f"{EXAMPLE_KEY} {REAL_TOKEN}": "x"}))
    # a secret under a known-safe field name is named by that name, not as a hidden one
    found = f"GitHub token found at request.metadata.{EXAMPLE_KEY};"
    with pytest.raises(SecretInFixtureError, match=found):
        FixtureStore.open(store).put(_fixture("hi", metadata={EXAMPLE_KEY: REAL_TOKEN}))


def test_a_real_secret_beside_a_known_safe_one_is_still_refused(project: Path) -> None:
    store = FixtureStore.open(project / "f.jsonl")
    with pytest.raises(SecretInFixtureError, match="GitHub token"):
        store.put(_fixture(f"{EXAMPLE_KEY} and {REAL_TOKEN}"))
    joined = f"{EXAMPLE_KEY}{REAL_TOKEN}"  # no separator: the mask must not hide the rest
    assert find_fixture_secrets(
        _fixture(joined).to_json(), load_config(project / "pyproject.toml").safe_values()
    )
    assert not (project / "f.jsonl").exists() or REAL_TOKEN not in (project / "f.jsonl").read_text()


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_recording_through_the_sdk_keeps_a_known_safe_value(project: Path) -> None:
    store = project / "tests" / "fixtures" / "sdk.jsonl"
    with Simulator(behavior="echo") as sim:
        http = httpx2_client(store, "record-missing", approve_live=True)
        with anthropic.Anthropic(
            api_key="k", base_url=sim.url, http_client=http, max_retries=0
        ) as client:
            client.messages.create(
                model="m",
                max_tokens=16,
                messages=[{"role": "user", "content": f"use {EXAMPLE_KEY}"}],
            )
            with pytest.raises(SecretInFixtureError, match="GitHub token"):
                client.messages.create(
                    model="m", max_tokens=16, messages=[{"role": "user", "content": REAL_TOKEN}]
                )
    assert len(FixtureStore.open(store)) == 1
    assert EXAMPLE_KEY in store.read_text() and REAL_TOKEN not in store.read_text()


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_an_explicit_sanitize_config_carries_its_own_known_safe_values(tmp_path: Path) -> None:
    store = tmp_path / "f.jsonl"
    config = SanitizeConfig(known_safe=(EXAMPLE_KEY,))
    with Simulator(behavior="echo") as sim:
        http = httpx2_client(store, "record-missing", approve_live=True, sanitize=config)
        with anthropic.Anthropic(
            api_key="k", base_url=sim.url, http_client=http, max_retries=0
        ) as client:
            client.messages.create(
                model="m",
                max_tokens=16,
                messages=[{"role": "user", "content": f"use {EXAMPLE_KEY}"}],
            )
    assert EXAMPLE_KEY in store.read_text()
    # verify reads known-safe values only from pyproject.toml (docs/security.md)
    _, problems = verify_store(store)
    assert "AWS access key id at request.body.messages[0].content" in [p.reason for p in problems]


def test_verify_lets_known_safe_values_through_and_reports_a_broken_config(project: Path) -> None:
    store = project / "f.jsonl"
    FixtureStore.open(store).put(_fixture(f"key {EXAMPLE_KEY}"))
    assert verify_store(store) == (1, [])
    (project / "pyproject.toml").write_text(PYPROJECT.replace("[0-9a-f]{32}", "("))
    done = CliRunner().invoke(main, ["verify", str(store)])
    assert done.exit_code == 2, done.output
    assert "known_safe_patterns[0]: invalid regular expression" in done.output
    assert "Traceback" not in done.output
    (project / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    count, problems = verify_store(store)
    assert count == 1 and [p.reason for p in problems] == [
        "AWS access key id at request.messages[0].content"
    ]


@pytest.mark.parametrize(
    "table", ['known_safe = ["AKIAIOSF"]', "known_safe_patterns = ['AKIA[A-Z0-9]{4}']"]
)
def test_a_known_safe_value_never_hides_part_of_a_longer_key(tmp_path: Path, table: str) -> None:
    (tmp_path / "pyproject.toml").write_text(f"[tool.replaygate.sanitize]\n{table}\n")
    with pytest.raises(SecretInFixtureError, match="AWS"):
        FixtureStore.open(tmp_path / "f.jsonl").put(_fixture(f"key {EXAMPLE_KEY}"))
