"""``[tool.replaygate]`` configuration and price tables: values, defaults, and errors
that name the file, the line and the key."""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forked_cli import ASCII_LOCALE, Forker
from replaygate.config import line_of
from replaygate.evals import (
    ConfigError,
    GateConfig,
    PriceError,
    load_config,
    load_price_file,
    shipped_prices,
    with_shipped,
)
from replaygate.evals.config import DEFAULT_MAX_DROP, DEFAULT_MAX_RISE, find_pyproject
from replaygate.evals.gate import gate_config
from replaygate.evals.prices import shipped_prices_path

FULL = """\
[project]
name = "demo"

[tool.replaygate]
cases = "evals/cases.jsonl"
fixtures = "evals/fixtures.jsonl"
history = "var/history.db"
model = "claude-sonnet-4-5"
max_tokens = 512

[tool.replaygate.prices]
currency = "EUR"
as_of = "2026-02-01"
"claude-sonnet-4-5" = { input = 2.5, output = 12.5 }

[tool.replaygate.gate]
max_drop = { success = 0.05, citation = 0.1 }
max_rise = { cost = 0.2 }
fail_on_block = false
fail_on_fallen = true

[tool.replaygate.report]
window = 10
min_runs = 4

[tool.replaygate.ci]
hits = "var/hits"

[[tool.replaygate.ci.stages]]
name = "unit"
when = "every-commit"
targets = ["tests/unit"]

[[tool.replaygate.ci.stages]]
name = "semantic"
when = "pull-request"
targets = ["tests/semantic"]
markers = "sampled"
samples = 5

[[tool.replaygate.ci.changes]]
name = "parse"
paths = ["src/*/parse/**"]
stages = ["unit"]
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "pyproject.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_full_configuration_is_read_with_paths_from_its_directory(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, FULL))
    root = tmp_path.resolve()
    assert config.root == root
    assert config.cases == root / "evals/cases.jsonl"
    assert config.history_path == root / "var/history.db"
    assert config.baseline_path == root / "evals/baseline.json"
    assert (config.model, config.max_tokens) == ("claude-sonnet-4-5", 512)
    assert config.prices is not None
    assert config.prices.currency == "EUR"
    assert config.prices.cost("claude-sonnet-4-5", 1_000_000, 2_000_000) == 2.5 + 25.0
    assert config.prices.cost("other-model", 10, 10) is None
    assert dict(config.gate.max_drop) == {
        "success": 0.05,
        "citation_precision": 0.1,
        "citation_recall": 0.1,
    }
    assert dict(config.gate.max_rise) == {**DEFAULT_MAX_RISE, "cost": 0.2}
    assert (config.gate.fail_on_block, config.gate.fail_on_fallen) == (False, True)
    assert (config.report.window, config.report.min_runs) == (10, 4)
    assert [s.name for s in config.ci.stages] == ["unit", "semantic"]
    assert config.ci.stage("semantic").pytest_args() == ["tests/semantic", "-m", "sampled"]
    assert config.ci.hits == root / "var/hits"
    assert config.ci.changes[0].stages == ("unit",)


def test_without_a_section_every_setting_has_its_default(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "[project]\nname = 'x'\n"))
    assert config.prices is None
    assert dict(config.gate.max_drop) == dict(DEFAULT_MAX_DROP)
    assert config.ci.stages == ()
    assert config.history_path == tmp_path.resolve() / ".replaygate" / "history.db"


def test_a_setting_of_the_config_sent_in_place_of_the_agents_is_noted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A prompt changed in the agent's code is not silently replaced by the config's."""
    from replaygate.cli.choices import choose_settings
    from replaygate.examples.research_copilot import SETTINGS, copilot

    table = '[tool.replaygate]\nsystem = "Be brief."\nmax_tokens = 1024\n'
    config = load_config(write(tmp_path, table))
    assert choose_settings(copilot, config).system == "Be brief."
    (note,) = capsys.readouterr().err.splitlines()  # max_tokens is the agent's own: no note
    assert note == (
        f"note: system 'Be brief.' of [tool.replaygate] in {config.file} is sent, not the "
        f"agent's own {repr(SETTINGS.system)[:57]}...: remove it there to send the agent's"
    )
    choose_settings(copilot, config, system="Be brief.")  # a flag is this run's own choice
    assert capsys.readouterr().err == ""


def _plain_agent(model: object, question: str) -> object:
    """An agent that declares no settings."""
    raise NotImplementedError


def test_an_agent_of_no_settings_is_told_every_setting_it_lacks_at_once(tmp_path: Path) -> None:
    """Neither model nor max_tokens given: both are named, where a second run was needed to
    learn of the second."""
    from replaygate.cli.choices import choose_settings
    from replaygate.cli.options import CommandError
    from replaygate.evals import AgentEntry

    config = load_config(write(tmp_path, "[tool.replaygate]\n"))
    agent = AgentEntry(_plain_agent)
    with pytest.raises(CommandError) as both:
        choose_settings(agent, config)
    assert str(both.value).startswith(
        "no model id nor max_tokens for the requests: pass --model and --max-tokens, or set "
        "model and max_tokens in [tool.replaygate] of "
    )
    with pytest.raises(CommandError, match=r"^no max_tokens for the requests: pass --max-tokens,"):
        choose_settings(agent, config, model="claude-sonnet-4-6")


def test_a_long_prompt_of_the_config_is_noted_where_it_differs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two prompts of one long opening were both cut to it: the note showed them alike."""
    from replaygate.cli.choices import choose_settings
    from replaygate.examples.research_copilot import SETTINGS, copilot

    assert SETTINGS.system is not None
    old = SETTINGS.system + " Be brief."
    config = load_config(write(tmp_path, f'[tool.replaygate]\nsystem = "{old}"\n'))
    choose_settings(copilot, config)
    (note,) = capsys.readouterr().err.splitlines()
    assert note.startswith(f"note: system of [tool.replaygate] in {config.file} is sent, not ")
    assert f"(lengths {len(old)}, {len(SETTINGS.system)})" in note
    assert "[doc-id]. Be brief.' != ...' cite them as [doc-id].')" in note


def test_an_empty_system_prompt_of_the_config_is_noted_as_none_sent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``system = ""`` sends no prompt: the note said ``system '' ... is sent``."""
    from replaygate.cli.choices import choose_settings
    from replaygate.examples.research_copilot import copilot

    config = load_config(write(tmp_path, '[tool.replaygate]\nsystem = ""\n'))
    assert choose_settings(copilot, config).system is None
    (note,) = capsys.readouterr().err.splitlines()
    assert note.startswith(
        f'note: no system prompt is sent (system = "" of [tool.replaygate] in {config.file}), '
        "not the agent's own 'You are"
    )


def test_a_gate_table_naming_one_limit_keeps_every_other_default(tmp_path: Path) -> None:
    # loosening the cost limit alone must not lift the success, citation and
    # fabricated limits: a table overrides the defaults metric by metric, as flags do
    config = load_config(write(tmp_path, "[tool.replaygate.gate]\nmax_rise = { cost = 0.2 }\n"))
    assert dict(config.gate.max_drop) == dict(DEFAULT_MAX_DROP)
    assert dict(config.gate.max_rise) == {**DEFAULT_MAX_RISE, "cost": 0.2}
    config = load_config(write(tmp_path, "[tool.replaygate.gate]\nmax_drop = { citation = 1.0 }\n"))
    assert dict(config.gate.max_drop) == {
        "success": DEFAULT_MAX_DROP["success"],
        "citation_precision": 1.0,
        "citation_recall": 1.0,
    }
    assert dict(config.gate.max_rise) == dict(DEFAULT_MAX_RISE)


@pytest.mark.parametrize(
    ("table", "given"),
    [
        ("max_rise = { cost = 0.2 }", {"max_rise": {"cost": 0.2}}),
        ("max_drop = { citation = 1.0 }", {"max_drop": {"citation": 1.0}}),
        (
            "max_drop = { success = 0.1 }\nfail_on_block = false",
            {"max_drop": {"success": 0.1}, "fail_on_block": False},
        ),
    ],
)
def test_a_gate_config_made_in_python_keeps_the_defaults_as_the_file_does(
    tmp_path: Path, table: str, given: dict[str, object]
) -> None:
    # GateConfig(max_rise={"cost": 0.2}) loosening one limit must not lift the others
    read = load_config(write(tmp_path, f"[tool.replaygate.gate]\n{table}\n")).gate
    assert GateConfig(**given) == read  # type: ignore[arg-type]
    assert GateConfig().max_drop == dict(DEFAULT_MAX_DROP)
    assert GateConfig().max_rise == dict(DEFAULT_MAX_RISE)


def test_a_gate_config_without_the_defaults_is_asked_for_by_name() -> None:
    only = GateConfig(max_drop={"citation": 0.1}, keep_defaults=False)
    assert dict(only.max_drop) == {"citation_precision": 0.1, "citation_recall": 0.1}
    assert dict(only.max_rise) == {}
    flagged = gate_config(only, max_rise={"cost": 0.1})  # --max-rise keeps it so
    assert dict(flagged.max_drop) == dict(only.max_drop)
    assert dict(flagged.max_rise) == {"cost": 0.1}


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (
            {"max_drop": {"sucess": 0.02}},
            "GateConfig max_drop['sucess']: names no metric: did you mean success? known: "
            "success, citation_precision",
        ),
        (
            {"max_rise": {"cost": -0.1}},
            "GateConfig max_rise['cost']: a limit must be a number >= 0, got -0.1",
        ),
        (
            {"max_rise": {"cost": "10%"}},
            "GateConfig max_rise['cost']: a limit must be a number >= 0, got '10%'",
        ),
        (
            {"max_drop": {"success": float("nan")}},
            "GateConfig max_drop['success']: a limit must be",
        ),
        ({"max_drop": ["success"]}, "GateConfig max_drop: expected a mapping of metric to limit"),
    ],
)
def test_a_gate_config_made_in_python_refuses_a_limit_the_file_refuses(
    given: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError) as raised:
        GateConfig(**given)  # type: ignore[arg-type]
    assert str(raised.value).startswith(message)


def test_an_amount_limit_may_be_configured_as_a_percentage(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, '[tool.replaygate.gate]\nmax_rise = { cost = "10%" }\n'))
    assert config.gate.max_rise["cost"] == pytest.approx(0.10)


def test_the_nearest_pyproject_is_found_upwards(tmp_path: Path) -> None:
    write(tmp_path, FULL)
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    assert find_pyproject(nested) == (tmp_path / "pyproject.toml").resolve()


def test_a_price_file_can_be_named_instead(tmp_path: Path) -> None:
    (tmp_path / "prices.toml").write_text('"m" = { input = 1, output = 2 }\n', encoding="utf-8")
    config = load_config(write(tmp_path, '[tool.replaygate.prices]\nfile = "prices.toml"\n'))
    assert config.prices is not None
    assert config.prices.cost("m", 1_000_000, 1_000_000) == 3.0
    assert config.prices.source == "prices.toml"  # from the project folder: alike everywhere


def test_the_shipped_price_table_is_library_data() -> None:
    prices = shipped_prices()
    assert prices.currency == "USD"
    assert prices.as_of
    assert prices.cost("claude-sonnet-4-5", 1000, 1000) is not None
    assert shipped_prices_path().parts[-4:] == ("replaygate", "evals", "data", "prices.toml")
    assert with_shipped(None) == prices


def test_a_project_table_overrides_and_extends_the_shipped_one(tmp_path: Path) -> None:
    config = load_config(
        write(
            tmp_path,
            "[tool.replaygate.prices]\n"
            '"claude-sonnet-4-5" = { input = 1.0, output = 2.0 }\n'
            '"my-fine-tune" = { input = 4.0, output = 8.0 }\n',
        )
    )
    prices = with_shipped(config.prices)
    shipped = shipped_prices()
    assert prices.cost("claude-sonnet-4-5", 1_000_000, 1_000_000) == 3.0  # overridden
    assert prices.cost("my-fine-tune", 1_000_000, 0) == 4.0  # added
    assert prices.cost("claude-haiku-4-5", 1000, 1000) == shipped.cost(
        "claude-haiku-4-5", 1000, 1000
    )  # kept
    assert (prices.currency, prices.as_of) == ("USD", shipped.as_of)
    assert prices.to_json()["source"] == (
        "pyproject.toml [tool.replaygate.prices] over replaygate/evals/data/prices.toml"
    )


def test_a_table_in_another_currency_replaces_the_shipped_one(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, FULL))
    assert config.prices is not None
    prices = with_shipped(config.prices)
    assert prices == config.prices
    assert prices.cost("claude-haiku-4-5", 1000, 1000) is None
    with pytest.raises(PriceError) as missing:
        prices.require("claude-haiku-4-5")
    assert (
        "in pyproject.toml [tool.replaygate.prices] (a table in EUR, which replaces the "
        "shipped table in USD: prices in two currencies never mix): add it to"
    ) in str(missing.value)


def test_a_currency_is_read_in_upper_case(tmp_path: Path) -> None:
    # "usd" counted as another currency than the shipped USD: the whole shipped table was
    # dropped, and a model priced there had no price, saying not why
    path = write(
        tmp_path, '[tool.replaygate.prices]\ncurrency = "usd"\n"m" = { input = 1, output = 2 }\n'
    )
    own = load_config(path).prices
    assert own is not None and own.currency == "USD"
    prices = with_shipped(own)
    assert prices.source == (
        "pyproject.toml [tool.replaygate.prices] over replaygate/evals/data/prices.toml"
    )
    shipped = shipped_prices()
    assert prices.cost("claude-sonnet-4-5", 1000, 1000) == shipped.cost(
        "claude-sonnet-4-5", 1000, 1000
    )
    assert prices.cost("m", 1_000_000, 0) == 1.0
    price_file = tmp_path / "prices.toml"
    price_file.write_text('currency = "eur"\n"m" = { input = 1, output = 2 }\n', encoding="utf-8")
    assert load_price_file(price_file).currency == "EUR"


@pytest.mark.parametrize(
    ("text", "line", "key", "message"),
    [
        (
            "[tool.replaygate]\nfixture = 'x'\n",
            2,
            "tool.replaygate.fixture",
            "unknown key: did you mean tool.replaygate.fixtures? known keys: cases,",
        ),
        (
            "[tool.replaygate.sanitise]\nids = true\n",
            1,
            "tool.replaygate.sanitise",
            "unknown key: did you mean tool.replaygate.sanitize?",
        ),
        ("[tool.replaygate]\nzzz = 1\n", 2, "tool.replaygate.zzz", "unknown key; known keys:"),
        ("[tool.replaygate]\nmax_tokens = 'many'\n", 2, "tool.replaygate.max_tokens", "integer"),
        (
            '[tool.replaygate.ci]\nstages = [{name = "a", when = "pull-request"}, '
            '{name = "b", when = "nightly"}]\n',
            2,
            "tool.replaygate.ci.stages[1].when",
            "got 'nightly'",
        ),
        (
            '[tool.replaygate.ci]\n\n[[tool.replaygate.ci.stages]]\nname = "a"\n',
            3,
            "tool.replaygate.ci.stages[0].when",
            "every stage needs a when",
        ),
        (
            "[tool.replaygate.gate]\n\nmax_drop = { success = 'x' }\n",
            3,
            "tool.replaygate.gate.max_drop.success",
            "expected a number, got the string 'x'",
        ),
        (
            "[tool.replaygate.gate]\nmax_rise = { speed = 0.1 }\n",
            2,
            "tool.replaygate.gate.max_rise.speed",
            "names no metric: known: success, citation_precision",
        ),
        (
            "[tool.replaygate.gate]\nmax_drop = { citaton = 0.1 }\n",
            2,
            "tool.replaygate.gate.max_drop.citaton",
            "names no metric: did you mean citation? known: ",
        ),
        (
            "[tool.replaygate.gate]\nmax_drop = { success = '2%' }\n",
            2,
            "tool.replaygate.gate.max_drop.success",
            "success is a share, whose limit is in points",
        ),
        (
            "[tool.replaygate.gate]\nmax_rise = { cost = 'ten%' }\n",
            2,
            "tool.replaygate.gate.max_rise.cost",
            "'ten%' is not a number nor a percentage",
        ),
        (
            "[tool.replaygate.gate]\nmax_rise = { cost = '-5%' }\n",
            2,
            "tool.replaygate.gate.max_rise.cost",
            "'-5%': a limit must be a number >= 0",
        ),
        (
            "[tool.replaygate.gate]\nmax_drop = { success = -1 }\n",
            2,
            "tool.replaygate.gate.max_drop.success",
            "must be a number >= 0",
        ),
        (
            "[tool.replaygate.gate]\nfail_on_block = 'yes'\n",
            2,
            "tool.replaygate.gate.fail_on_block",
            "expected true or false",
        ),
        (
            "[tool.replaygate.prices]\n'm' = { input = 1 }\n",
            2,
            "tool.replaygate.prices.m.output",
            "missing",
        ),
        (
            "[tool.replaygate.prices]\n'm' = 3\n",
            2,
            "tool.replaygate.prices.m",
            "input = ..., output = ...",
        ),
        (
            "[tool.replaygate.prices]\nfile = 'nope.toml'\n",
            2,
            "tool.replaygate.prices.file",
            "no such file",
        ),
        (
            "[[tool.replaygate.ci.stages]]\nname = 'a'\nwhen = 'every-commit'\n"
            "[[tool.replaygate.ci.stages]]\nname = 'b'\nwhen = 'nightly'\n",
            6,
            "tool.replaygate.ci.stages[1].when",
            "expected one of every-commit, pull-request, merge-to-main, got 'nightly'",
        ),
        (
            "[[tool.replaygate.ci.stages]]\nname = 'a'\nwhen = 'every-commit'\nsamples = 0\n",
            4,
            "tool.replaygate.ci.stages[0].samples",
            "at least 1",
        ),
        (
            "[[tool.replaygate.ci.stages]]\nname = 'a'\nwhen = 'every-commit'\n"
            "[[tool.replaygate.ci.changes]]\nname = 'parse'\npaths = ['x']\nstages = ['b']\n",
            7,
            "tool.replaygate.ci.changes[0].stages",
            "no stage named 'b'",
        ),
        (
            "[[tool.replaygate.ci.stages]]\nname = 'a'\nwhen = 'every-commit'\n"
            "[[tool.replaygate.ci.stages]]\nname = 'a'\nwhen = 'every-commit'\n",
            5,
            "tool.replaygate.ci.stages[1].name",
            "two stages are named 'a'",
        ),
        (
            "[[tool.replaygate.ci.stages]]\nname = 'a'\nwhen = 'every-commit'\ntargets = 'tests'\n",
            4,
            "tool.replaygate.ci.stages[0].targets",
            "expected a list of non-empty strings",
        ),
        ("[tool.replaygate.report]\nwindow = 1\n", 2, "tool.replaygate.report.window", "at least"),
        (
            "[[tool.replaygate.ci.stages]]\nwhen = 'every-commit'\n",
            1,
            "tool.replaygate.ci.stages[0].name",
            "every stage needs a name",
        ),
        (
            "[[tool.replaygate.ci.stages]]\nname = 'a'\nwhen = 'every-commit'\nmock_kind = 'x'\n",
            4,
            "tool.replaygate.ci.stages[0].mock_kind",
            "unknown key; known keys: name, when, targets, markers, samples, mock",
        ),
        (
            "[tool.replaygate.ci]\nunclassified = ['nope']\n",
            2,
            "tool.replaygate.ci.unclassified",
            "no stage named 'nope'",
        ),
        (
            "[tool.replaygate.ci]\nchanges = 'parse'\n",
            2,
            "tool.replaygate.ci.changes",
            "expected an array of tables",
        ),
        (
            "[[tool.replaygate.ci.changes]]\npaths = ['x']\n",
            1,
            "tool.replaygate.ci.changes[0].name",
            "every change class needs a name",
        ),
        (
            "[tool.replaygate.prices]\nfile = 'p.toml'\ncurrency = 'USD'\n",
            2,
            "tool.replaygate.prices.file",
            "either a price file or prices inline",
        ),
        ("[tool.replaygate]\ngate = 3\n", 2, "tool.replaygate.gate", "expected a table"),
        # a multi-line string's lines are text, not headers or keys
        (
            '[tool.replaygate]\nsystem = """\nYou are a helper.\n[RULES]\nCite.\n"""\n'
            'model = "m"\nmax_tokens = "512"\n',
            8,
            "tool.replaygate.max_tokens",
            "expected an integer",
        ),
        (
            '[tool.replaygate]\nsystem = """\nmodel = the model you think fits\n"""\nmodel = 5\n',
            5,
            "tool.replaygate.model",
            "expected a string",
        ),
        (
            "[tool.replaygate]\nsystem = '''\n[RULES]\n'''\nmodle = 'm'\n",
            5,
            "tool.replaygate.modle",
            "unknown key",
        ),
        (
            '[tool.replaygate]\nsystem = """a \\""" b\nmodel = 1\n"""\nmodel = 5\n',
            5,
            "tool.replaygate.model",
            "expected a string",
        ),
    ],
)
def test_a_bad_value_names_file_line_and_key(
    tmp_path: Path, text: str, line: int, key: str, message: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    err = caught.value
    assert (err.file, err.line, err.key) == (str(path), line, key), str(err)
    assert str(err).startswith(f"{path}:{line}: {key}: ")
    assert message in str(err)


_TEXT = [
    "[RULES]",
    "[tool.replaygate]",
    "model = 'x' ",
    'model = "x" ',
    "\n",
    "#",
    "[",
    "{",
    "a",
    " ",
]
_BASIC = [*_TEXT, '"a', '""a', '\\"""a', "\\\\", "\\n", "'''", "\\\n"]
"""Pieces of a multi-line basic string: quotes that do not end it, escapes (an escaped
quote before two more), a line-ending backslash."""
_LITERAL = [*_TEXT, "'a", "''a", '"""', "\\", '"']
"""Pieces of a multi-line literal string (no escapes: a backslash is text)."""


def _values() -> st.SearchStrategy[str]:
    """A TOML value spanning lines: a multi-line string, or an array of them and of arrays."""
    basic = st.lists(st.sampled_from(_BASIC)).map(lambda parts: '"""' + "".join(parts) + '"""')
    literal = st.lists(st.sampled_from(_LITERAL)).map(lambda parts: "'''" + "".join(parts) + "'''")
    strings = basic | literal
    one_line = st.sampled_from(['\'"""\'', "\"'''\"", '"a \\" [RULES]"', '["x"]'])
    item = strings | strings.map(lambda value: f"[{value}]") | one_line
    array = st.lists(item, max_size=3).map(lambda items: "[\n  " + ",\n  ".join(items) + "\n]")
    return strings | array


_COMMENTS = ["", ' # """ [RULES]', " # '''"]


@settings(max_examples=10 * settings.default.max_examples, deadline=None)
@given(values=st.lists(st.tuples(_values(), st.sampled_from(_COMMENTS)), min_size=1, max_size=3))
def test_a_key_after_values_spanning_lines_is_found_at_its_line(
    values: list[tuple[str, str]],
) -> None:
    # their lines were taken for headers and keys: a prompt's "[RULES]" ended the table
    lines = (f"k{i} = {value}{comment}\n" for i, (value, comment) in enumerate(values))
    text = "[tool.replaygate]\n" + "".join(lines) + "model = 5\n"
    assert tomllib.loads(text)["tool"]["replaygate"]["model"] == 5  # valid TOML, one model
    assert line_of(text, "tool.replaygate", "model") == text.count("\n")


def test_a_toml_syntax_error_names_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, "[tool.replaygate]\ncases = \n")
    with pytest.raises(ConfigError, match=rf"^{path}:2: not valid TOML"):
        load_config(path)


def test_a_bad_price_file_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "prices.toml"
    path.write_text('currency = "USD"\n"m" = { input = "cheap", output = 1 }\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=rf"^{path}:2: m.input: expected a number"):
        load_price_file(path)


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        # "claude-sonnet-4-5 " priced no model run: the shipped price of claude-sonnet-4-5 held
        (
            '"m" = { input = 1, output = 2 }\n"m " = { input = 9, output = 9 }\n',
            ":2: m : the model id 'm ' has spaces",
        ),
        # the [tool.replaygate.prices] of pyproject.toml copied into a price file was read
        # as a model named "tool": "tool.replaygate: unknown key; known keys: input, output"
        (
            '[tool.replaygate.prices]\n"m" = { input = 1, output = 2 }\n',
            ":1: tool.replaygate: a price file holds its",
        ),
    ],
    ids=["spaces-around-a-model-id", "pyproject-header"],
)
def test_a_price_file_entry_no_model_is_priced_by_is_refused_at_its_line(
    tmp_path: Path, text: str, refused: str
) -> None:
    path = tmp_path / "prices.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=rf"^{re.escape(str(path) + refused)}"):
        load_price_file(path)


@pytest.mark.parametrize(
    ("written", "read"), [('"2026-03-01"', "2026-03-01"), ("2026-03-01", "2026-03-01")]
)
def test_a_price_table_is_as_of_a_date_quoted_or_not(
    tmp_path: Path, written: str, read: str
) -> None:
    path = tmp_path / "prices.toml"
    path.write_text(f'as_of = {written}\n"m" = {{ input = 1, output = 2 }}\n', encoding="utf-8")
    assert load_price_file(path).as_of == read


@pytest.mark.parametrize("written", ['"yesterday"', '"2026-13-01"', '"２０２６-03-01"'])
def test_a_price_table_as_of_no_date_is_refused_at_its_line(tmp_path: Path, written: str) -> None:
    # "yesterday" was kept and printed by the gate as the day the prices were read
    path = tmp_path / "prices.toml"
    path.write_text(f'"m" = {{ input = 1, output = 2 }}\nas_of = {written}\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=rf"^{path}:2: as_of: expected a date, YYYY-MM-DD"):
        load_price_file(path)


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("'evals\\fixtures.jsonl'", "separates folders with a backslash"),
        ('"evals\\fixtures.jsonl"', "holds a control character: in a double-quoted TOML"),
        ('"evals/aux/fixtures.jsonl"', "cannot be checked out on Windows: 'aux' is a device"),
        ('"evals/what?.jsonl"', "cannot be checked out on Windows: 'what.*' holds '.'"),
    ],
)
def test_a_windows_style_path_is_refused_at_its_line(
    tmp_path: Path, written: str, said: str
) -> None:
    """A path written with a backslash names another file on Linux and macOS, and in
    double quotes TOML reads ``\\f`` as a form feed: both refused, naming the key; so is
    one no Windows checkout can hold, which a recording on Linux made without a word."""
    path = write(tmp_path, f'[tool.replaygate]\nmodel = "m"\nfixtures = {written}\n')
    with pytest.raises(ConfigError, match=rf"^{path}:3: .*fixtures.*{said}"):
        load_config(path)


@pytest.mark.slow
def test_a_path_named_outside_ascii_is_opened_in_an_ascii_locale(
    tmp_path: Path, ascii_forker: Forker
) -> None:
    # under LC_ALL=C the ASCII file system encoding cannot encode 'évals/cases.jsonl' as
    # TOML gives it: eval ended in a UnicodeEncodeError traceback opening the cases file
    (tmp_path / "évals").mkdir()
    (tmp_path / "évals" / "cases.jsonl").write_text("{}\n", encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.replaygate]\ncases = "évals/cases.jsonl"\n', encoding="utf-8"
    )
    read = "from replaygate.evals import load_config; print(open(load_config().cases).read())"
    done = ascii_forker.capture([], cwd=tmp_path, env={**os.environ, **ASCII_LOCALE}, code=read)
    assert done.stdout == b"{}\n\n", done.stderr.decode()
