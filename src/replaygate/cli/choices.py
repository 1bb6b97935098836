"""What a command runs with: the command line first, then ``[tool.replaygate]``.

The agent (``--agent`` or ``agent``), its request settings (``--model``, ``--max-tokens``,
``--system``, or ``model``, ``max_tokens``, ``system``, else what the agent declares, see
:class:`~replaygate.evals.agents.AgentEntry`), the fixture store and the questions.
What is found nowhere stops the command with exit status 2, naming the flag and the
key that would give it; nothing defaults to the shipped example.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from functools import wraps
from pathlib import Path
from typing import Any

import click

from replaygate.cli.options import (
    CommandError,
    agent_option,
    fixtures_option,
    questions_source,
    request_settings,
)
from replaygate.config import read_toml, store_pyproject, tool_table
from replaygate.evals.agents import AgentEntry, load_agent
from replaygate.evals.cases import load_eval_cases
from replaygate.evals.config import Config, load_config
from replaygate.fixtures.diff import text_change
from replaygate.jsondoc import shown
from replaygate.models.replay import RequestSettings
from replaygate.shell_words import shell_join


def missing_setting(what: str, flag: str, key: str, config: Config) -> CommandError:
    """What is found neither on the command line nor in ``config``: the flag, and the key
    of the file read (a store's own project may not be the one the command ran in)."""
    return CommandError(
        f"no {what}: pass {flag}, or set {key} in [tool.replaygate] of {_config_named(config)}"
    )


def _config_named(config: Config) -> str:
    """The config file read, for a message: its path, or what was looked for."""
    if config.file is None:
        return f"a pyproject.toml (none found at or above {config.root})"
    return str(config.file)


def choose_agent(given: str | None, config: Config) -> tuple[str, AgentEntry]:
    """The agent's ``module:function`` spec and the agent it names, its module looked for
    first in :func:`agent_folder`, then on the import path. A command runs the agent it
    names: a module of that name the process imported from elsewhere is imported anew."""
    folder = agent_folder(given, config)
    if given:
        return given, load_agent(given, folder=folder, replace=True)
    if not config.agent:
        raise missing_setting("agent to run", "--agent package.module:function", "agent", config)
    return config.agent, load_agent(config.agent, config.agent_from, folder, replace=True)


def agent_folder(given: str | None, config: Config) -> Path | None:
    """Where the agent's module is looked for first: the working folder (None) for one given
    on the command line, the config file's folder for the configured one."""
    return None if given else config.root


def choose_settings(
    agent: AgentEntry,
    config: Config,
    model: str | None = None,
    max_tokens: int | None = None,
    system: str | None = None,
) -> RequestSettings:
    """The request settings: flags, then ``[tool.replaygate]``, then the agent's own; an
    empty ``system`` (``--system ""``, ``system = ""``) is no system prompt. A setting of
    ``[tool.replaygate]`` sent in place of another the agent declares is noted on stderr."""
    declared = agent.settings
    given = {"model": model, "max_tokens": max_tokens, "system": system}
    for note in _config_overrides(declared, config, given):
        click.echo(f"note: {note}", err=True)
    chosen_model = model or config.model or (declared.model if declared else None)
    chosen_max_tokens = max_tokens or config.max_tokens or (declared.max_tokens if declared else 0)
    if not chosen_model or not chosen_max_tokens:  # every one missing named, in one run
        missing = [
            (what, flag, key)
            for what, flag, key, chosen in (
                ("model id", "--model", "model", chosen_model),
                ("max_tokens", "--max-tokens", "max_tokens", chosen_max_tokens),
            )
            if not chosen
        ]
        whats, flags, keys = (list(column) for column in zip(*missing, strict=True))
        what = " nor ".join(whats) + " for the requests"
        raise missing_setting(what, " and ".join(flags), " and ".join(keys), config)
    return RequestSettings(
        model=chosen_model,
        max_tokens=chosen_max_tokens,
        system=(system if system is not None else _configured_system(config, declared)) or None,
        interface=declared.interface if declared else "anthropic.messages",
        interface_version=declared.interface_version if declared else None,
    )


def _config_overrides(
    declared: RequestSettings | None, config: Config, given: Mapping[str, object]
) -> list[str]:
    """Each setting of ``config`` sent in place of a different one the agent ``declares``
    (none given on the command line): a prompt or model changed in the agent's code, and
    left as it was in ``[tool.replaygate]``, would otherwise go unseen, its requests never
    sent. A setting the agent leaves unset is the config's to give."""
    if declared is None:
        return []
    notes = []
    for name in ("model", "max_tokens", "system"):
        configured, own = getattr(config, name), getattr(declared, name)
        if given[name] is None and configured is not None and own is not None and configured != own:
            sent = _sent_in_place(name, configured, own, _config_named(config))
            notes.append(f"{sent}: remove it there to send the agent's")
    return notes


def _sent_in_place(name: str, configured: object, own: object, where: str) -> str:
    """``configured``, the setting ``name`` of ``[tool.replaygate]`` in ``where``, sent in
    place of the agent's ``own``: both cut short, or, where they are cut alike (two long
    prompts of one opening), both around their first difference, the config's first. An
    empty ``system`` sends no prompt, and is named so."""
    sent, kept = shown(configured), shown(own)
    if configured == "":
        return (
            f'no {name} prompt is sent ({name} = "" of [tool.replaygate] in {where}), not the '
            f"agent's own {kept}"
        )
    if sent != kept:
        return f"{name} {sent} of [tool.replaygate] in {where} is sent, not the agent's own {kept}"
    change = text_change(str(configured), str(own))
    return f"{name} of [tool.replaygate] in {where} is sent, not the agent's own ({change})"


def _configured_system(config: Config, declared: RequestSettings | None) -> str | None:
    """``system`` of ``[tool.replaygate]`` where it is set (``""``: none is sent, as with
    ``--system ""``), else the agent's own."""
    if config.system is not None:
        return config.system
    return declared.system if declared else None


def choose_fixtures(given: Path | None, config: Config) -> Path:
    """The fixture store; refused when ``config``'s file has a sanitize table that is not
    the one the store is written and matched with (:func:`_check_sanitized_with`)."""
    fixtures = given or config.fixtures
    if fixtures is None:
        raise missing_setting("fixture store", "--fixtures", "fixtures", config)
    _check_sanitized_with(fixtures, config)
    return fixtures


def _check_sanitized_with(store: Path, config: Config) -> None:
    """Refuse a store outside the project whose ``[tool.replaygate.sanitize]`` the command
    was given (``--config other/pyproject.toml``): a store is sanitized and matched with
    the config of the project it is in, from every command (law 6), so the rules given
    were silently not applied, and what they redact was written as it was."""
    if config.file is None:
        return
    tool = tool_table(read_toml(config.file).data)
    if not isinstance(tool, Mapping) or not tool.get("sanitize"):
        return
    owner = store_pyproject(store)
    if owner is not None and os.path.samefile(owner, config.file):
        return
    where = (
        f"is in the project of {owner}"
        if owner
        else "is in no project (no pyproject.toml above it)"
    )
    if config.file.name == "pyproject.toml":
        way = f"Put the store under {config.file.parent}, or the sanitize table in"
    else:  # only a pyproject.toml's table applies to a store
        way = "Put the sanitize table in"
    raise CommandError(
        f"{config.file}: its [tool.replaygate.sanitize] does not apply to the store {store}, "
        f"which {where}: a store is sanitized and matched with its own project's config, "
        f"from every command. {way} a pyproject.toml above the store"
    )


def choose_questions(questions: tuple[str, ...], cases: Path | None, config: Config) -> list[str]:
    """The questions to ask: the given ones, or those of the eval cases file."""
    if questions and cases:
        raise CommandError("give QUESTION arguments or --cases, not both")
    if questions:
        return list(questions)
    cases_file = cases or config.cases
    if cases_file is None:
        raise missing_setting("questions to ask", "QUESTION arguments or --cases", "cases", config)
    return [case.question for case in load_eval_cases(cases_file)]


@dataclass(frozen=True)
class AgentInputs:
    """What a command that runs the agent on questions was given on its command line."""

    agent: str | None
    fixtures_path: Path | None
    questions: tuple[str, ...]
    cases_path: Path | None
    model: str | None
    max_tokens: int | None
    system: str | None
    config_path: Path | None

    def resolve(self) -> tuple[AgentEntry, RequestSettings, Path, list[str]]:
        """The agent, its request settings, the fixture store and the questions."""
        config = load_config(self.config_path, near=self.fixtures_path)
        _, entry = choose_agent(self.agent, config)
        settings = choose_settings(entry, config, self.model, self.max_tokens, self.system)
        fixtures = choose_fixtures(self.fixtures_path, config)
        return entry, settings, fixtures, choose_questions(self.questions, self.cases_path, config)

    def record_command(self, *questions: str, mode: str = "record-missing") -> str:
        """The ``replaygate record`` command line that records ``questions`` (given none,
        those of ``--cases`` or of the config) with these inputs in ``mode``, quoted for a
        shell."""
        given = (
            ("--agent", self.agent),
            ("--fixtures", self.fixtures_path),
            ("--cases", None if questions else self.cases_path),
            ("--model", self.model),
            ("--max-tokens", self.max_tokens),
            ("--system", self.system),
            ("--config", self.config_path),
        )
        words = ["replaygate", "record"]
        words += [word for flag, value in given if value is not None for word in (flag, str(value))]
        if mode != "record-missing":  # the default
            words += ["--mode", mode]
        dash = ["--"] if any(question.startswith("-") for question in questions) else []
        words += ["--approve-live", *dash, *questions]
        return shell_join(words)


def agent_inputs(fn: Callable[..., None]) -> Callable[..., None]:
    """``--agent``, ``--fixtures``, the questions and the request settings, for ``fn``.

    The questions are the ``QUESTION`` arguments, then any deprecated ``--question``.

    With ``--config`` (given by its own decorator), they reach ``fn`` as one
    :class:`AgentInputs`, its ``inputs`` argument.
    """

    @wraps(fn)
    def command(**given: Any) -> None:
        given["questions"] += given.pop("legacy_questions")
        inputs = AgentInputs(**{f.name: given.pop(f.name) for f in fields(AgentInputs)})
        fn(inputs=inputs, **given)

    return agent_option(fixtures_option(questions_source(request_settings(command))))
