"""``[tool.replaygate.sanitize]`` in pyproject.toml: loading, defaults, and every error message."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from replaygate import Message, ModelResponse, RecordingModel
from replaygate.fixtures.store import FixtureStore
from replaygate.models.fakes import ScriptedModel
from replaygate.sanitize import (
    RedactionRule,
    SanitizeConfig,
    SanitizeConfigError,
    Sanitizer,
    find_pyproject,
    load_config,
)

FULL = """
[project]
name = "agent"

[tool.replaygate.sanitize]
ids = true
times = true
normalize_usage = true
personal_data = ["email", "phone", "card"]

[[tool.replaygate.sanitize.rules]]
literal = "ACME Corp"
replace = "Example Corp"

[[tool.replaygate.sanitize.rules]]
pattern = "order-[0-9]{6}"
replace = "order-000000"
ignore_case = true

[tool.replaygate.sanitize.trim]
"anthropic.messages" = ["content", "stop_reason", "usage", "model"]
"""


def write(folder: Path, text: str) -> Path:
    path = folder / "pyproject.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_full_example_loads(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, FULL))
    assert config == SanitizeConfig(
        ids=True,
        times=True,
        normalize_usage=True,
        personal_data=("email", "phone", "card"),
        rules=(
            RedactionRule(literal="ACME Corp", replace="Example Corp"),
            RedactionRule(pattern="order-[0-9]{6}", replace="order-000000", ignore_case=True),
        ),
        trim={"anthropic.messages": ("content", "stop_reason", "usage", "model")},
    )


def test_no_file_or_no_table_is_the_default(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, '[project]\nname = "x"\n')) == SanitizeConfig()
    assert load_config(write(tmp_path, "[tool.replaygate.sanitize]\n")) == SanitizeConfig()
    default = SanitizeConfig()
    assert (default.ids, default.times, default.normalize_usage) == (False, False, False)
    assert (default.personal_data, default.rules, dict(default.trim)) == ((), (), {})


def test_the_nearest_pyproject_is_found_from_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    deep = project / "tests" / "unit"
    deep.mkdir(parents=True)
    path = write(project, FULL)
    assert find_pyproject(deep) == path.resolve()
    monkeypatch.chdir(deep)
    assert find_pyproject() == path.resolve()
    assert load_config().ids is True
    assert Sanitizer.from_pyproject().config.personal_data == ("email", "phone", "card")


def test_the_walk_follows_links_stops_at_installed_packages_and_survives_a_loop(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    (project / "data").mkdir(parents=True)
    path = write(project, FULL)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "linked").symlink_to(project / "data")
    assert find_pyproject(elsewhere / "linked" / "s.jsonl") == path.resolve()
    installed = project / "venv" / "site-packages" / "pkg"
    installed.mkdir(parents=True)
    assert find_pyproject(installed / "s.jsonl") is None
    loop = project / "data" / "loop"
    loop.symlink_to(loop)
    assert find_pyproject(loop / "s.jsonl") == path.resolve()


def test_a_rewritten_file_is_read_again(tmp_path: Path) -> None:
    path = write(tmp_path, "[tool.replaygate.sanitize]\nids = true\n")
    assert load_config(path).ids is True
    path.write_text("[tool.replaygate.sanitize]\nids = false\ntimes = true\n")
    os.utime(path, ns=(1, 1))
    assert load_config(path) == SanitizeConfig(times=True)


def test_recording_picks_up_the_config_of_the_project_that_owns_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, '[tool.replaygate.sanitize]\npersonal_data = ["email"]\n')
    live = ScriptedModel([ModelResponse(text="Done, wrote to bob@corp.com.")])
    store = tmp_path / "f.jsonl"
    settings = {"model": "m", "max_tokens": 8}
    recorder = RecordingModel(live, store, approve_live=True, **settings)
    answer = recorder.complete([Message.user("Mail bob@corp.com")], [])
    assert "bob@corp.com" not in store.read_text() and "bob@corp.com" not in answer.text
    fixture = next(iter(FixtureStore.open(store)))
    assert "@example.com" in fixture.request["messages"][0]["content"][0]["text"]


@pytest.mark.parametrize(
    ("toml", "key", "reason"),
    [
        ("idz = true", "tool.replaygate.sanitize.idz", "unknown key; known: ids, times"),
        ('ids = "yes"', "tool.replaygate.sanitize.ids", "expected true or false, got 'yes'"),
        ("times = 1", "tool.replaygate.sanitize.times", "expected true or false, got 1"),
        ('personal_data = "email"', "tool.replaygate.sanitize.personal_data", "expected a list"),
        (
            'personal_data = ["email", 1]',
            "tool.replaygate.sanitize.personal_data[1]",
            "expected a list of strings, got int 1",
        ),
        (
            'personal_data = ["email", "ssn"]',
            "tool.replaygate.sanitize.personal_data",
            "unknown class(es) 'ssn'; known: email, phone, card",
        ),
        ('rules = "x"', "tool.replaygate.sanitize.rules", "expected an array of tables"),
        ("rules = [1]", "tool.replaygate.sanitize.rules[0]", "expected a table"),
        (
            '[[tool.replaygate.sanitize.rules]]\nliteral = "ACME"\nwith = "b"',
            "tool.replaygate.sanitize.rules[0].with",
            "unknown key; known: literal, pattern, replace, ignore_case",
        ),
        (
            '[[tool.replaygate.sanitize.rules]]\nreplace = "b"',
            "tool.replaygate.sanitize.rules[0].literal",
            "a rule needs exactly one of 'literal' and 'pattern'",
        ),
        (
            '[[tool.replaygate.sanitize.rules]]\nliteral = "ACME"\n'
            '[[tool.replaygate.sanitize.rules]]\npattern = "(x"',
            "tool.replaygate.sanitize.rules[1].pattern",
            "invalid regular expression '(x'",
        ),
        (
            '[[tool.replaygate.sanitize.rules]]\nliteral = "Ann"\nreplace = "Annie"',
            "tool.replaygate.sanitize.rules[0].replace",
            "the replacement 'Annie' is itself matched by the rule",
        ),
        (
            "[[tool.replaygate.sanitize.rules]]\nliteral = 3",
            "tool.replaygate.sanitize.rules[0].literal",
            "expected a string, got 3",
        ),
        (
            '[[tool.replaygate.sanitize.rules]]\nliteral = "ACME"\nignore_case = "no"',
            "tool.replaygate.sanitize.rules[0].ignore_case",
            "expected true or false",
        ),
        ('trim = ["content"]', "tool.replaygate.sanitize.trim", "expected a table"),
        (
            '[tool.replaygate.sanitize.trim]\n"anthropic" = ["content"]',
            'tool.replaygate.sanitize.trim."anthropic"',
            "unknown interface; known: anthropic.messages, google.generate_content, "
            "openai.chat.completions, openai.responses",
        ),
        (
            '[tool.replaygate.sanitize.trim]\n"anthropic.messages" = ["contents"]',
            'tool.replaygate.sanitize.trim."anthropic.messages"',
            "'contents' is not a known response field of anthropic.messages",
        ),
        (
            '[tool.replaygate.sanitize.trim]\n"anthropic.messages" = "content"',
            'tool.replaygate.sanitize.trim."anthropic.messages"',
            "expected a list of strings",
        ),
        (
            '[tool.replaygate.sanitise]\npersonal_data = ["email"]',
            "tool.replaygate.sanitise",
            "unknown key: did you mean tool.replaygate.sanitize? As written, no sanitize rule",
        ),
        (
            '[tool.replaygate]\nmodel = "m"\nsanitizer = {ids = true}',
            "tool.replaygate.sanitizer",
            "unknown key: did you mean tool.replaygate.sanitize?",
        ),
        (
            f'[[tool.replaygate.sanitize.rules]]\nliteral = "x"\nreplace = "ghp_{"a1B2" * 9}"',
            "tool.replaygate.sanitize.rules[0].replace",
            "the replacement looks like a secret (GitHub token): every fixture it went into",
        ),
        (
            '[tool.replaygate]\nmodel = "m"\npersonal_data = ["email"]',
            "tool.replaygate.personal_data",
            "a key of tool.replaygate.sanitize, written under tool.replaygate: move it",
        ),
        (
            '[[tool.replaygate.rules]]\nliteral = "ACME Corp"',
            "tool.replaygate.rules",
            "move it into [tool.replaygate.sanitize]. As written, no sanitize rule applies",
        ),
        (
            '[tool.replay-gate.sanitize]\npersonal_data = ["email"]',
            "tool.replay-gate",
            "unknown table: did you mean tool.replaygate? As written, no sanitize rule",
        ),
        (
            "[tool]\nreplaygte.sanitise.ids = true",
            "tool.replaygte",
            "unknown table: did you mean tool.replaygate?",
        ),
    ],
)
def test_every_error_names_the_file_and_the_key(
    tmp_path: Path, toml: str, key: str, reason: str
) -> None:
    text = toml if toml.startswith("[") else f"[tool.replaygate.sanitize]\n{toml}\n"
    path = write(tmp_path, text)
    with pytest.raises(SanitizeConfigError) as caught:
        load_config(path)
    assert caught.value.source == str(path)
    assert caught.value.key == key
    assert reason in caught.value.reason
    line = caught.value.line
    assert line > 0 and str(caught.value).startswith(f"{path}:{line}: {key}: ")


def test_invalid_toml_and_a_missing_file_are_named(tmp_path: Path) -> None:
    path = write(tmp_path, "[tool.replaygate.sanitize\nids = true\n")
    with pytest.raises(
        SanitizeConfigError, match=r"pyproject.toml:1: tool.replaygate.sanitize: not valid TOML"
    ):
        load_config(path)
    with pytest.raises(SanitizeConfigError, match="cannot read: No such file"):
        load_config(tmp_path / "absent" / "pyproject.toml")
    write(tmp_path, "[tool.replaygate]\nsanitize = 3\n")
    with pytest.raises(SanitizeConfigError, match=r"tool\.replaygate\.sanitize: expected a table"):
        load_config(tmp_path / "pyproject.toml")


def test_a_config_built_in_python_takes_the_toml_shapes() -> None:
    """A rule's table and lists, as ``[tool.replaygate.sanitize]`` gives them, in code."""
    config = SanitizeConfig(
        rules=[{"literal": "ACME Corp", "replace": "Example Corp"}],  # type: ignore[arg-type]
        personal_data=["email"],  # type: ignore[arg-type]
        known_safe=["AKIAIOSFODNN7EXAMPLE"],  # type: ignore[arg-type]
        trim={"anthropic.messages": ["content"]},  # type: ignore[dict-item]
    )
    assert config == SanitizeConfig(
        rules=(RedactionRule(literal="ACME Corp", replace="Example Corp"),),
        personal_data=("email",),
        known_safe=("AKIAIOSFODNN7EXAMPLE",),
        trim={"anthropic.messages": ("content",)},
    )
    assert config.rules[0].apply("ACME Corp Inc") == "Example Corp Inc"


@pytest.mark.parametrize(
    ("given", "key", "reason"),
    [
        ({"rules": ["ACME"]}, "rules[0]", "expected a list of RedactionRule or of tables"),
        ({"rules": [{"literal": "A", "with": "B"}]}, "rules[0].with", "unknown key"),
        ({"rules": [{"pattern": "("}]}, "rules[0].pattern", "regular expression"),
        ({"rules": RedactionRule(literal="A")}, "rules", "got RedactionRule"),
        ({"personal_data": "email"}, "personal_data", "got the string 'email'"),
        ({"personal_data": ["email", 3]}, "personal_data[1]", "got int 3"),
        ({"known_safe": "AKIAIOSFODNN7EXAMPLE"}, "known_safe", "expected a list of strings"),
        ({"known_safe_patterns": "acme_.*"}, "known_safe_patterns", "got the string"),
        ({"trim": {"anthropic.messages": "content"}}, 'trim."anthropic.messages"', "string"),
        ({"trim": ["content"]}, "trim", "expected a mapping of interface to fields"),
    ],
)
def test_a_config_built_in_python_of_another_shape_names_the_field(
    given: dict[str, Any], key: str, reason: str
) -> None:
    with pytest.raises(SanitizeConfigError) as caught:
        SanitizeConfig(**given)
    assert caught.value.source == "SanitizeConfig"
    assert caught.value.key == f"tool.replaygate.sanitize.{key}"
    assert reason in caught.value.reason


def test_a_config_built_in_python_is_checked_too() -> None:
    with pytest.raises(
        SanitizeConfigError,
        match=r"SanitizeConfig: tool.replaygate.sanitize.ids: expected true or false, got 'no'",
    ):  # a string is true in Python: "no" would have turned ids on
        SanitizeConfig(ids="no")  # type: ignore[arg-type]
    with pytest.raises(SanitizeConfigError, match="not a known response field"):
        SanitizeConfig(trim={"openai.chat.completions": ("choice",)})
