"""Which ``pyproject.toml`` a store is read with: its own project's, from any folder."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from nested_pytest import UNUSED_PLUGINS
from replaygate import Message, ModelResponse, RecordingModel, ReplayModel
from replaygate.cli import main
from replaygate.config import TomlFileError, find_pyproject, read_toml, store_pyproject
from replaygate.fixtures.store import FixtureStore
from replaygate.models.fakes import ScriptedModel
from replaygate.sanitize import SanitizeConfig, SanitizeConfigError, sanitizer_for, store_config

# Its tests import the provider SDKs through replaygate (the example agent).

PROJECT = """
[project]
name = "agent"

[tool.replaygate.sanitize]
personal_data = ["email"]

[[tool.replaygate.sanitize.rules]]
literal = "ACME Corp"
replace = "Example Corp"
"""
ELSEWHERE = """
[tool.replaygate.sanitize]
times = true

[[tool.replaygate.sanitize.rules]]
literal = "bob"
replace = "someone"
"""
SETTINGS = {"model": "m", "max_tokens": 8}
QUESTION = [Message.user("Mail bob@corp.com about ACME Corp")]
WHERE = ("root", "subfolder", "elsewhere")
AGENT = '[tool.replaygate]\nagent = "replaygate.examples.research_copilot:copilot"\n'
ASK = ["What is RAG? Ask bob@corp.com at ACME Corp"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with sanitize rules, and beside it an unrelated one with other rules."""
    root = tmp_path / "project"
    (root / "tests" / "unit").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PROJECT, encoding="utf-8")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "pyproject.toml").write_text(ELSEWHERE, encoding="utf-8")
    return root


def folder(project: Path, where: str) -> Path:
    """The folder a command runs from: the project root, a subfolder, an unrelated one."""
    return {
        "root": project,
        "subfolder": project / "tests" / "unit",
        "elsewhere": project.parent / "elsewhere",
    }[where]


def record(store: Path | str) -> ModelResponse:
    live = ScriptedModel([ModelResponse(text="Sent to bob@corp.com for ACME Corp.")])
    recorder = RecordingModel(live, store, approve_live=True, **SETTINGS)
    return recorder.complete(QUESTION, [])


def redacted(answer: ModelResponse) -> bool:
    """Whether the project's rules (not another folder's) rewrote ``answer``."""
    return "bob" not in answer.text and answer.text.endswith("@example.com for Example Corp.")


def without_time(data: bytes) -> bytes:
    """A store's bytes, the recording time masked (the only field that may differ)."""
    return re.sub(rb'"recorded_at":\s*"[^"]*"', b'"recorded_at":"-"', data)


def test_a_store_records_the_same_bytes_and_keys_from_any_folder(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stores = project / "tests" / "fixtures"
    for where in WHERE:
        monkeypatch.chdir(folder(project, where))
        assert redacted(record(stores / f"{where}.jsonl"))
    recorded = {where: (stores / f"{where}.jsonl").read_bytes() for where in WHERE}
    assert len({without_time(data) for data in recorded.values()}) == 1
    assert b"bob@corp.com" not in recorded["elsewhere"]
    assert b"ACME" not in recorded["elsewhere"]
    keys = {tuple(FixtureStore.open(stores / f"{where}.jsonl").keys()) for where in WHERE}
    assert len(keys) == 1


@pytest.mark.parametrize("where", WHERE)
def test_a_store_replays_from_any_folder(
    project: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    store = project / "tests" / "fixtures" / "rc.jsonl"
    monkeypatch.chdir(project)
    recorded = record(store)
    monkeypatch.chdir(folder(project, where))
    replay = ReplayModel(store, **SETTINGS)
    assert replay.complete(QUESTION, []) == recorded


def test_a_relative_store_path_is_taken_from_the_current_folder(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project / "tests")
    recorded = record("fixtures/rc.jsonl")
    assert redacted(recorded)
    assert store_pyproject("fixtures/rc.jsonl") == (project / "pyproject.toml").resolve()
    assert ReplayModel("fixtures/rc.jsonl", **SETTINGS).complete(QUESTION, []) == recorded


def test_the_owner_is_found_above_a_store_that_does_not_exist_yet(project: Path) -> None:
    owner = (project / "pyproject.toml").resolve()
    assert store_pyproject(project / "tests" / "fixtures" / "new" / "rc.jsonl") == owner
    assert store_pyproject(project / "tests" / "fixtures" / "folder-store") == owner
    assert store_pyproject(project / "tests") == owner
    assert store_config(project / "tests" / "rc.jsonl").personal_data == ("email",)


def test_a_store_without_a_project_uses_the_defaults(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert find_pyproject(tmp_path) is None, "a pyproject.toml above the temporary folder"
    store = tmp_path / "bare" / "rc.jsonl"
    monkeypatch.chdir(project)
    assert store_pyproject(store) is None
    assert store_config(store) == SanitizeConfig()
    record(store)
    assert b"bob@corp.com for ACME Corp" in store.read_bytes()


def test_a_store_in_a_folder_linked_in_from_no_project_is_the_projects(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The lookup went by the folder linked to, above which no pyproject.toml is: the
    # project's rules were not applied, and bob@corp.com was written as it was.
    (tmp_path / "shared").mkdir()
    (project / "tests" / "fixtures").symlink_to(tmp_path / "shared")
    monkeypatch.chdir(project / "tests")
    assert store_pyproject("fixtures/rc.jsonl") == project / "pyproject.toml"
    assert redacted(record("fixtures/rc.jsonl"))
    assert b"bob@corp.com" not in (tmp_path / "shared" / "rc.jsonl").read_bytes()


def test_fixtures_shipped_in_an_installed_package_use_the_defaults(project: Path) -> None:
    installed = project / ".venv" / "lib" / "python3.11" / "site-packages" / "agentkit"
    (installed / "data").mkdir(parents=True)
    assert store_pyproject(installed / "data" / "fixtures.jsonl") is None
    assert store_config(installed / "data" / "fixtures.jsonl") == SanitizeConfig()


@pytest.mark.parametrize("kind", ["symlink to nothing", "FIFO", "folder"])
def test_a_project_file_that_is_no_regular_file_is_refused_not_passed_over(
    project: Path, kind: str
) -> None:
    # The lookup walked on to the folder above, whose settings and store were used.
    package = project / "packages" / "tool"
    package.mkdir(parents=True)
    own = package / "pyproject.toml"
    if kind == "FIFO":
        os.mkfifo(own)
        expected = "is a FIFO, where a file is expected"
    elif kind == "folder":
        own.mkdir()
        expected = "is a folder, where a file is expected"
    else:
        own.symlink_to("../shared/pyproject.toml")
        expected = "is a symlink to '../shared/pyproject.toml', which does not exist"
    for lookup in (
        lambda: find_pyproject(package),
        lambda: store_pyproject(package / "fixtures" / "rc.jsonl"),
        lambda: store_pyproject(project.parent / "bare" / "rc.jsonl", root=package),
        lambda: store_config(package / "rc.jsonl"),
    ):
        with pytest.raises(TomlFileError) as refused:
            lookup()
        assert refused.value.file == own
        assert expected in refused.value.reason and "folder above" in refused.value.reason
    (package / "rc.jsonl").write_bytes(b"")
    done = CliRunner().invoke(main, ["verify", str(package / "rc.jsonl")])
    assert done.exit_code == 2 and f"{own}: {expected}" in done.output, done.output


def test_the_pytest_rootdir_is_used_when_no_project_is_above_the_store(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project.parent / "elsewhere")
    outside = tmp_path / "shared" / "rc.jsonl"
    assert store_config(outside, root=project).personal_data == ("email",)
    assert sanitizer_for(outside, root=project).config.rules[0].replace == "Example Corp"
    nested = project / "packages" / "tool"
    nested.mkdir(parents=True)
    (nested / "pyproject.toml").write_text("[tool.replaygate.sanitize]\nids = true\n")
    assert store_config(nested / "fixtures" / "rc.jsonl", root=project) == SanitizeConfig(ids=True)
    assert store_config(project / "fixtures" / "rc.jsonl", root=nested).personal_data == ("email",)


def test_a_symlinked_pyproject_takes_its_paths_from_the_folder_of_the_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # They were taken from the folder of the file linked to: record wrote into the
    # store of the project the config is shared from, and eval read its cases.
    from replaygate.evals.config import load_config

    shared, service = tmp_path / "shared", tmp_path / "svc"
    shared.mkdir()
    (service / "evals").mkdir(parents=True)
    (shared / "pyproject.toml").write_text(
        '[tool.replaygate]\nfixtures = "evals/fixtures.jsonl"\ncases = "evals/cases.jsonl"\n'
        '[tool.replaygate.prices]\nfile = "prices.toml"\n',
        encoding="utf-8",
    )
    (service / "prices.toml").write_text('currency = "EUR"\n"m" = { input = 1, output = 2 }\n')
    link = service / "pyproject.toml"
    link.symlink_to("../shared/pyproject.toml")
    here = service.resolve()
    monkeypatch.chdir(service)
    for config in (load_config(), load_config(link), load_config(near=service / "evals")):
        assert config.root == here and config.file is not None
        assert config.file.parent == here
        assert config.fixtures == here / "evals" / "fixtures.jsonl"
        assert config.cases == here / "evals" / "cases.jsonl"
        assert config.prices is not None and config.prices.currency == "EUR"
    assert store_pyproject(tmp_path / "elsewhere" / "rc.jsonl", root=service) == here / (
        "pyproject.toml"
    )


@pytest.mark.slow
def test_the_pytest_plugin_anchors_its_stores_at_the_rootdir(
    pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory
) -> None:
    pytester.makepyprojecttoml(PROJECT + "\n[tool.pytest.ini_options]\n")
    outside = tmp_path_factory.mktemp("outside") / "rc.jsonl"
    pytester.makepyfile(
        test_anchor=f"""
import pytest

@pytest.mark.replaygate(fixtures={str(outside)!r})
def test_outside(replaygate_exchange):
    pass

def test_inside(replaygate_exchange):
    pass
"""
    )
    import replaygate.sanitize

    seen: list[tuple[object, ...]] = []
    real = replaygate.sanitize.sanitizer_for

    def spy(store: Path, sanitize: None = None, root: Path | None = None) -> object:
        found = real(store, sanitize, root)
        seen.append((Path(store), root, found.config.personal_data))
        return found

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(replaygate.sanitize, "sanitizer_for", spy)
        pytester.runpytest_inprocess("-p", "no:cacheprovider", *UNUSED_PLUGINS).assert_outcomes(
            passed=2
        )
    assert sorted(seen) == sorted(
        [
            (outside, pytester.path, ("email",)),
            (
                pytester.path / "tests/fixtures/test_anchor/test_inside.jsonl",
                pytester.path,
                ("email",),
            ),
        ]
    )


def test_a_bad_config_names_the_owner_file_and_line(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project.parent / "elsewhere")
    owner = project / "pyproject.toml"
    store = project / "tests" / "fixtures" / "rc.jsonl"
    owner.write_text('[project]\nname = "agent"\n\n[tool.replaygate.sanitize\nids = true\n')
    with pytest.raises(SanitizeConfigError) as caught:
        sanitizer_for(store)
    assert caught.value.source == str(owner.resolve())
    assert "not valid TOML" in caught.value.reason and "line 4" in caught.value.reason
    with pytest.raises(TomlFileError) as unparsed:
        read_toml(owner)
    assert (unparsed.value.file, unparsed.value.line) == (owner, 4)
    owner.write_text('[tool.replaygate.sanitize]\npersonal_data = ["ssn"]\n')
    with pytest.raises(SanitizeConfigError, match=r"tool\.replaygate\.sanitize\.personal_data"):
        sanitizer_for(store)


def test_a_config_that_is_not_utf8_is_named_without_a_traceback(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    owner = project / "pyproject.toml"
    owner.write_bytes(b'\xff\xfe[tool.replaygate]\nfixtures = "f.jsonl"\n')  # UTF-16 mark
    with pytest.raises(TomlFileError) as caught:
        read_toml(owner)
    assert (caught.value.file, caught.value.line) == (owner, 1)
    utf16 = "not UTF-8 text (it looks like UTF-16: re-save the file as UTF-8), e.g. `iconv -f"
    new = owner.with_name("pyproject.utf8.toml")
    then = f"`, then `mv {new} {owner}`"
    assert caught.value.reason == f"{utf16} UTF-16 -t UTF-8 {owner} > {new}{then}"
    owner.write_text('[tool.replaygate]\nfixtures = "f.jsonl"\n', encoding="utf-16-le")
    with pytest.raises(TomlFileError) as caught:
        read_toml(owner)
    assert caught.value.reason == f"{utf16} UTF-16LE -t UTF-8 {owner} > {new}{then}"
    owner.write_bytes(b'[tool.replaygate]\nfixtures = "caf\xe9.jsonl"\n')  # Latin-1
    with pytest.raises(TomlFileError) as caught:
        read_toml(owner)
    assert (caught.value.line, caught.value.reason) == (
        2,
        "not UTF-8 text (byte 0xe9 at column 16)",
    )
    owner.write_bytes(b'[tool.replaygate]\rfixtures = "f.jsonl"\r')  # an old Mac's line ends
    with pytest.raises(TomlFileError) as caught:
        read_toml(owner)
    assert caught.value.line == 1
    assert caught.value.reason.startswith("lines end in a lone carriage return (CR) where")
    fixed = owner.with_name("pyproject.fixed.toml")
    convert = f"e.g. `tr '\\r' '\\n' < {owner} > {fixed}`, then `mv {fixed} {owner}`"
    assert caught.value.reason.endswith(convert)
    owner.write_bytes(b'\xff\xfe[tool.replaygate]\nfixtures = "f.jsonl"\n')
    monkeypatch.chdir(project)
    result = CliRunner().invoke(main, ["eval"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"Error: {owner.resolve()}:1: not UTF-8 text (it looks like UTF-16" in result.output


def test_the_eval_config_of_a_store_names_file_line_and_key(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from replaygate.evals.config import load_config
    from replaygate.evals.errors import ConfigError

    monkeypatch.chdir(project.parent / "elsewhere")
    store = project / "tests" / "fixtures" / "rc.jsonl"
    owner = project / "pyproject.toml"
    owner.write_text('[tool.replaygate]\nmodel = "m"\nmax_tokens = "many"\n')
    with pytest.raises(ConfigError) as caught:
        load_config(near=store)
    assert (caught.value.file, caught.value.line) == (str(owner.resolve()), 3)
    assert caught.value.key == "tool.replaygate.max_tokens"
    owner.write_text('[tool.replaygate]\nmodel = "m"\n')
    assert load_config(near=store).model == "m"
    assert load_config(near=store).root == project.resolve()
    assert load_config().file == (project.parent / "elsewhere" / "pyproject.toml").resolve()


def test_a_file_is_parsed_once_while_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text("[tool.replaygate]\nmodel = 'a'\n")
    first = read_toml(path)
    assert read_toml(path) is first
    path.write_text("[tool.replaygate]\nmodel = 'bb'\n")
    assert read_toml(path).data["tool"]["replaygate"]["model"] == "bb"


@pytest.mark.slow
def test_the_cli_records_and_replays_a_store_the_same_from_any_folder(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "pyproject.toml").write_text(AGENT + PROJECT, encoding="utf-8")
    elsewhere = project.parent / "elsewhere" / "pyproject.toml"
    elsewhere.write_text(AGENT + 'model = "another-model"\n' + ELSEWHERE, encoding="utf-8")
    stores = project / "tests" / "fixtures"
    runner = CliRunner()
    replayed: set[str] = set()
    for where in WHERE:
        monkeypatch.chdir(folder(project, where))
        store = str(stores / f"{where}.jsonl")
        done = runner.invoke(
            main, ["record", "--fixtures", store, "--simulator", "--approve-live", *ASK]
        )
        assert done.exit_code == 0, done.output
        done = runner.invoke(main, ["run", "--fixtures", str(stores / "root.jsonl"), *ASK])
        assert done.exit_code == 0, done.output
        replayed.add(done.output)
    recorded = {without_time((stores / f"{where}.jsonl").read_bytes()) for where in WHERE}
    assert len(recorded) == 1 and len(replayed) == 1
    assert b"bob@corp.com" not in recorded.pop()


NESTED = "zz = " + "[" * 2000 + "]" * 2000 + "\n"
"""Valid TOML nested deeper than ``tomllib`` can parse without running out of stack."""
COPILOT = ["--agent", "replaygate.examples.research_copilot:copilot"]
READERS = {
    "show": ["show", "265288aeb827", "--fixtures", "f.jsonl"],
    "run": ["run", *COPILOT, "--fixtures", "f.jsonl", "What is RAG?"],
    "eval": ["eval", *COPILOT, "--fixtures", "f.jsonl", "--no-history"],
    "gate": ["gate", "--results", "results.json"],
    "report": ["report"],
    "record": ["record", *COPILOT, "--fixtures", "n.jsonl", "--approve-live", "--simulator", "hi"],
    "ci plan": ["ci", "plan", "--changed", "src/agent.py"],
    "verify": ["verify", "f.jsonl"],
}


@pytest.mark.parametrize("command", READERS)
def test_a_config_nested_too_deeply_is_named_by_every_command(command: str, tmp_path: Path) -> None:
    from replaygate.examples.research_copilot import shipped_fixtures
    from run_cli import replaygate

    (tmp_path / "f.jsonl").write_bytes(shipped_fixtures().read_bytes())
    (tmp_path / "pyproject.toml").write_text(f'[tool.replaygate]\nmodel = "m"\n{NESTED}')
    done = replaygate(*READERS[command], cwd=tmp_path)
    output = done.stdout + done.stderr  # verify lists what it cannot check on stdout
    assert done.returncode == 2 and "Traceback" not in output, output
    assert "pyproject.toml" in output and "nested too deeply" in output


def test_a_byte_order_mark_is_named(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text('\ufeff[tool.replaygate]\nmodel = "m"\n', encoding="utf-8")
    with pytest.raises(TomlFileError) as caught:
        read_toml(path)
    assert caught.value.line == 1 and "byte order mark (BOM)" in caught.value.reason


@pytest.mark.parametrize(
    ("toml", "line", "key"),
    [
        ("[tool.replaygate.sanitize]\nids = true\n\npersonal_data = ['ssn']\n", 4,
         "tool.replaygate.sanitize.personal_data"),
        ("[tool.replaygate.sanitize]\nknown_safe = ['a', 3]\n", 2,
         "tool.replaygate.sanitize.known_safe[1]"),
        ("[tool.replaygate]\nmodel = 'm'\nsanitize = 3\n", 3, "tool.replaygate.sanitize"),
        ("[tool.replaygate.sanitize]\nidz = true\n", 2, "tool.replaygate.sanitize.idz"),
        ("[[tool.replaygate.sanitize.rules]]\nliteral = 'ACME'\nreplace = 'X'\n\n"
         "[[tool.replaygate.sanitize.rules]]\nreplace = 'X'\npattern = '('\n", 7,
         "tool.replaygate.sanitize.rules[1].pattern"),
        ('[tool.replaygate.sanitize.trim]\n"anthropic.messages" = ["content"]\n'
         '"nope.api" = ["x"]\n', 3, 'tool.replaygate.sanitize.trim."nope.api"'),
        ("[tool.replaygate.sanitize\n", 1, "tool.replaygate.sanitize"),
    ],
)  # fmt: skip
def test_a_sanitize_error_names_its_line(tmp_path: Path, toml: str, line: int, key: str) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text(toml, encoding="utf-8")
    with pytest.raises(SanitizeConfigError) as caught:
        store_config(tmp_path / "f.jsonl")
    assert (caught.value.line, caught.value.key) == (line, key)
    assert str(caught.value).startswith(f"{path.resolve()}:{line}: {key}: ")


def test_a_max_tokens_no_api_takes_is_refused_at_its_line(tmp_path: Path) -> None:
    from run_cli import replaygate

    config = '[tool.replaygate]\nmodel = "m"\nmax_tokens = 9223372036854775807\n'
    (tmp_path / "pyproject.toml").write_text(config, encoding="utf-8")
    done = replaygate(*READERS["record"], cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert f"{(tmp_path / 'pyproject.toml').resolve()}:3: tool.replaygate.max_tokens" in (
        done.stderr
    )
    assert "at most 2147483647" in done.stderr and not (tmp_path / "n.jsonl").exists()
    (tmp_path / "pyproject.toml").write_text('[tool.replaygate]\nmodel = "m"\n')
    flag = replaygate(*READERS["record"], "--max-tokens", str(2**63 - 1), cwd=tmp_path)
    assert flag.returncode == 2 and "x<=2147483647" in flag.stderr, flag.stderr


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("max_tokens = 0", "tool.replaygate.max_tokens: must be at least 1, got 0"),
        ('model = ""', "tool.replaygate.model: expected a non-empty string"),
        ('agent = " "', "tool.replaygate.agent: expected a non-empty string"),
        ('fixtures = ""', "tool.replaygate.fixtures: expected a non-empty string"),
        ('cases = ""', "tool.replaygate.cases: expected a non-empty string"),
    ],
)
def test_an_empty_setting_is_refused_not_taken_for_unset(
    tmp_path: Path, setting: str, message: str
) -> None:
    from run_cli import replaygate

    (tmp_path / "pyproject.toml").write_text(f"[tool.replaygate]\n{setting}\n", encoding="utf-8")
    done = replaygate(*READERS["record"], cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert f"{(tmp_path / 'pyproject.toml').resolve()}:2: {message}" in done.stderr
    assert not (tmp_path / "n.jsonl").exists()


def test_a_max_tokens_flag_below_one_is_refused(tmp_path: Path) -> None:
    from run_cli import replaygate

    done = replaygate(*READERS["record"], "--max-tokens", "0", cwd=tmp_path)
    assert done.returncode == 2 and "'--max-tokens': 0 is not in the range 1<=x" in done.stderr
    assert not (tmp_path / "n.jsonl").exists()


def test_a_key_tool_replaygate_does_not_define_stops_a_replaying_session_at_its_line(
    pytester: pytest.Pytester,
) -> None:
    # only a recording session read the whole table: a typo of a key replay passes over
    # (`fixture` for `fixtures`, `max_cots`) went unseen until the first recording
    pytester.makepyprojecttoml('[tool.replaygate]\nhits = ".log"\nmax_cots = 1.0\n')
    pytester.makepyfile("def test_nothing_recorded():\n    pass\n")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", *UNUSED_PLUGINS)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*pyproject.toml:3: tool.replaygate.max_cots: unknown key: did you mean "
         "tool.replaygate.max_cost?*"]
    )  # fmt: skip
    pytester.makepyprojecttoml('[tool.replaygate]\nhits = ".log"\nmax_cost = 1.0\n')
    pytester.runpytest_inprocess("-p", "no:cacheprovider", *UNUSED_PLUGINS).assert_outcomes(
        passed=1
    )
