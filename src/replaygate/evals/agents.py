"""Agent entry points: any function ``(model, question) -> run result``, named ``module:callable``.

``--agent package.module:function`` (or ``[tool.replaygate] agent``) names one. A plain
function is enough; an :class:`AgentEntry` wraps one with what the agent declares: the
request settings it is recorded with (the defaults of ``--model``, ``--max-tokens`` and
``--system``) and the exceptions that mean it gave up on a run (the sample fails, the
eval goes on).
"""

from __future__ import annotations

import importlib
import importlib.machinery
import inspect
import os
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from replaygate.errors import ReplaygateError
from replaygate.evals.errors import AgentLoadError, AgentRunError
from replaygate.evals.output import RunLike, checked_run
from replaygate.extras import install_hint
from replaygate.models.replay import RequestSettings
from replaygate.models.types import Model
from replaygate.sanitize.secret_mask import masked_error

Agent = Callable[[Model, str], RunLike]
"""An agent entry point: answer ``question`` with ``model``."""


@dataclass(frozen=True)
class AgentEntry:
    """An agent entry point with what it declares.

    ``settings``: the request settings its fixtures are recorded with (used where the
    command line and ``[tool.replaygate]`` give none). ``failures``: the exceptions
    that mean the agent gave up on a run (its sample fails; any other exception stops
    the eval).
    """

    run: Agent
    settings: RequestSettings | None = None
    failures: tuple[type[BaseException], ...] = ()

    def __call__(self, model: Model, question: str) -> RunLike:
        """One run of the agent."""
        __tracebackhide__ = True
        return self.run(model, question)


def as_entry(
    agent: Agent | AgentEntry | str, folder: str | os.PathLike[str] | None = None
) -> AgentEntry:
    """``agent`` as an :class:`AgentEntry`: a spec is loaded (its module looked for first in
    ``folder``, default the working folder: :func:`load_agent`), a plain function wrapped."""
    if isinstance(agent, str):
        return load_agent(agent, folder=folder)
    return agent if isinstance(agent, AgentEntry) else AgentEntry(agent)


def agent_name(agent: Agent | AgentEntry) -> str:
    """How a message names ``agent``: ``module:function`` of its function."""
    if isinstance(agent, AgentEntry):
        agent = agent.run
    module, name = getattr(agent, "__module__", None), getattr(agent, "__qualname__", None)
    return f"{module}:{name}" if module and name else type(agent).__name__


_OWN = Path(__file__).resolve().parent.parent
"""The folder of replaygate's own code, whose frames are not the agent's."""
_EXAMPLES = _OWN / "examples"
"""The shipped example agent: a user of replaygate, whose frames are an agent's."""


def _own_frame(filename: str) -> bool:
    """Whether a frame of ``filename`` runs replaygate's own code (not the example's)."""
    path = Path(filename).resolve()
    return path.is_relative_to(_OWN) and not path.is_relative_to(_EXAMPLES)


def raised_at(err: BaseException) -> str:
    """Where ``err`` was raised, for a person: ``file:line in function`` of its innermost
    frame outside replaygate (the agent's line that called replaygate, when replaygate
    raised it), else of its innermost frame (the line of a syntax error)."""
    if isinstance(err, SyntaxError) and err.filename:
        return f"{err.filename}:{err.lineno}"
    frames = traceback.extract_tb(err.__traceback__)
    if not frames:
        return "an unknown place"
    theirs = [frame for frame in frames if not _own_frame(frame.filename)]
    frame = (theirs or frames)[-1]
    return f"{frame.filename}:{frame.lineno} in {frame.name}"


def ended_process(err: SystemExit) -> AgentRunError:
    """The error of an agent that ended the process instead of returning its run."""
    return AgentRunError(
        f"the agent ended the process (SystemExit({err.code!r}) at {raised_at(err)}): an "
        "agent returns its run; raise an exception it declares as a failure to give up"
    )


AGENT_RAISED = "raised by the agent at "
"""How the note an exception from the agent is given begins (:func:`raised_by_agent`)."""
AGENT_SIGNATURE = "the agent's signature is wrong: "
"""How the note of an agent that cannot be called with its arguments begins."""
CALLED_AS = "agent(model, question), with the Model to ask and the case's question (a str)"
"""How an eval calls an agent, as an error says it."""


def _agent_note(err: BaseException) -> str | None:
    """The note :func:`call_agent` gave ``err``; None when it gave none."""
    notes = getattr(err, "__notes__", ())
    return next((n for n in notes if n.startswith((AGENT_RAISED, AGENT_SIGNATURE))), None)


def raised_by_agent(err: BaseException) -> bool:
    """Whether ``err`` came from the agent's own code, not from replaygate."""
    return _agent_note(err) is not None


def _defined_at(function: Any) -> str:
    """Where ``function`` is defined, for a person: ``file:line`` of its code (a callable
    object's ``__call__``), or its repr when it has no code of Python."""
    code = getattr(inspect.unwrap(function), "__code__", None)
    if code is None:  # a callable object: its class's __call__
        code = getattr(inspect.getattr_static(type(function), "__call__", None), "__code__", None)
    return f"{code.co_filename}:{code.co_firstlineno}" if code is not None else repr(function)


def _signature_problem(agent: Agent, model: Model, question: str) -> str | None:
    """What is wrong with the signature of ``agent`` when it cannot be called with the
    arguments an eval gives it; None when it can (what it raised came from its code)."""
    function = agent.run if isinstance(agent, AgentEntry) else agent
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):  # a builtin, a callable without a signature
        return None
    try:
        signature.bind(model, question)
    except TypeError:
        return (
            f"{AGENT_SIGNATURE}{agent_name(function)}{signature}, defined at "
            f"{_defined_at(function)}, is called as {CALLED_AS}"
        )
    return None


def _model_misused(err: Exception, model: Model) -> str:
    """What an agent that asked ``model`` for an attribute it lacks meant, said after where
    it raised ``err`` (``model.messages``: an agent written for an SDK client, given the
    :class:`Model` an eval asks with); nothing for another error."""
    if not isinstance(err, AttributeError) or err.obj is not model:
        return ""
    return (
        f": the agent asked the Model it was given for `.{err.name}`, as of an SDK client. "
        f"An eval calls {CALLED_AS}: the Model is replaygate's, whose one method is "
        "complete(messages, tools); ask it with that (docs/evals.md, the agent). Code that "
        "calls the anthropic or openai SDK itself is tested with the pytest plugin's "
        "clients (anthropic_client, the replaygate marker), its answers that vary sampled "
        "with @pytest.mark.sampled (docs/sampling.md)"
    )


def call_agent(
    agent: Agent, model: Model, question: str, passed: tuple[type[BaseException], ...] = ()
) -> Any:
    """What one run of ``agent`` returns. replaygate's own errors (a miss, a refused
    recording) and those of ``passed`` go through as they are; any other exception goes
    through with a note of where the agent raised it (:func:`raised_by_agent`); an end of
    the process, or another BaseException (a cancelled asyncio task), is an
    :class:`AgentRunError` (:func:`ended_process`); Ctrl-C goes through."""
    __tracebackhide__ = True
    through: tuple[type[BaseException], ...] = (ReplaygateError, *passed)
    try:
        return agent(model, question)
    except through:
        raise
    except Exception as err:
        wrong = _signature_problem(agent, model, question) if isinstance(err, TypeError) else None
        err.add_note(wrong or f"{AGENT_RAISED}{raised_at(err)}{_model_misused(err, model)}")
        raise
    except SystemExit as err:
        raise ended_process(err) from None
    except KeyboardInterrupt:
        raise  # Ctrl-C: the command stops, saying what it kept
    except BaseException as err:  # GeneratorExit, asyncio.CancelledError: not a failure
        raise AgentRunError(
            f"the agent raised {type(err).__name__}{f': {err}' if str(err) else ''} at "
            f"{raised_at(err)}, a BaseException no caller expects (an asyncio task "
            "cancelled, a generator closed): an agent returns its run, or raises an "
            "Exception it declares as a failure"
        ) from None


def run_agent(
    agent: Agent,
    model: Model,
    question: str,
    passed: tuple[type[BaseException], ...] = (),
) -> RunLike:
    """One run of ``agent`` for a command that shows it (:func:`call_agent`): an exception
    the agent raised, or a result that is no run result, is an :class:`AgentRunError`
    naming it and where the agent raised it."""
    try:
        result = call_agent(agent, model, question, passed)
    except Exception as err:
        note = _agent_note(err)
        if note is None:
            raise
        where = note.replace(AGENT_RAISED, "at ", 1) if note.startswith(AGENT_RAISED) else note
        raise AgentRunError(f"the agent raised {masked_error(err)} ({where})") from None
    return checked_run(result, agent_name(agent))


def _origin(module: ModuleType) -> str | None:
    """The file ``module`` was imported from (a package's ``__init__.py``), if any."""
    spec = getattr(module, "__spec__", None)
    origin = getattr(spec, "origin", None) or getattr(module, "__file__", None)
    return origin if isinstance(origin, str) and os.path.isfile(origin) else None


def _same_file(one: str | None, other: str | None) -> bool:
    return one is not None and other is not None and os.path.samefile(one, other)


def _first_on_path(folder: str) -> None:
    """Put ``folder`` first on the import path (the module found there is the one imported,
    and so are the modules it imports from there)."""
    if sys.path[:1] != [folder]:
        while folder in sys.path:
            sys.path.remove(folder)
        sys.path.insert(0, folder)


def _forget(top: str) -> None:
    """Drop the imported module ``top`` and its submodules, to import them again."""
    for name in [n for n in sys.modules if n == top or n.startswith(f"{top}.")]:
        del sys.modules[name]


def _import(module_name: str, folder: str, named: str, again: bool) -> ModuleType:
    """The module ``module_name``, looked for first in ``folder``, then on the import path.

    A module of that name already imported from elsewhere is refused where ``folder`` holds
    one (a process holds one module of a name), or, ``again``, imported anew (in a worker
    process, whose fork server imported it by an import path of its own).
    """
    top = module_name.partition(".")[0]
    spec = importlib.machinery.PathFinder.find_spec(top, [folder])
    here = spec.origin if spec is not None and spec.origin and os.path.isfile(spec.origin) else None
    if here is None:  # not in the folder: the import path's, as imported
        spec = importlib.machinery.PathFinder.find_spec(top)
        expected = spec.origin if spec is not None else None
    else:
        expected = here
        _first_on_path(folder)
    loaded = sys.modules.get(top)
    if loaded is not None and expected is not None and not _same_file(_origin(loaded), expected):
        if again and top != _OWN.name:  # never replaygate itself, which is running
            _forget(top)
        elif here is not None:
            raise AgentLoadError(
                f"{named}: {folder} holds the module {top!r} ({here}), but another module "
                f"of that name is already imported ({_origin(loaded) or repr(loaded)}), and a "
                "process holds one module of a name: give the agent itself, not its name, or "
                f"run from a folder that holds no other {top!r}"
            )
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if err.name != top or here is not None or folder in sys.path:
            raise
    _first_on_path(folder)  # a namespace package of the folder (no __init__.py)
    return importlib.import_module(module_name)


def load_agent(
    spec: str,
    named_by: str | None = None,
    folder: str | os.PathLike[str] | None = None,
    *,
    replace: bool = False,
) -> AgentEntry:
    """The agent named ``module:callable`` (an :class:`AgentEntry` or a plain function).

    The module is looked for first in ``folder`` (default: the working folder; the
    project's folder for the agent of ``[tool.replaygate]``), then on the import path,
    however the process was started. A module of that name already imported from
    elsewhere is refused where ``folder`` holds one, or with ``replace`` imported anew
    (a worker process of ``eval --jobs``). Errors name the agent as ``named_by`` says where
    ``spec`` came from (default ``--agent``; ``pyproject.toml:2: tool.replaygate.agent``
    for a configured one).
    """
    named = f"{named_by or '--agent'} {spec!r}"
    module_name, sep, attribute = spec.partition(":")
    dotted = module_name.split(".") + attribute.split(".")
    if not sep or not all(part.isidentifier() for part in dotted):
        module_part, dot, function = spec.rpartition(".")
        meant = (
            f": did you mean '{module_part}:{function}'?"
            if not sep and dot and all(p.isidentifier() for p in spec.split("."))
            else ""
        )  # the function joined with a dot, as an import names it
        raise AgentLoadError(f"{named}: expected 'package.module:function'{meant}")
    searched = agent_search_folder(folder)
    try:
        module = _import(module_name, searched, named, replace)
    except AgentLoadError:
        raise
    except ImportError as err:
        where = ""
        if isinstance(err, ModuleNotFoundError) and err.name == module_name.partition(".")[0]:
            where = f" (looked for in {searched}, then on the import path)"
        elif isinstance(err, ModuleNotFoundError) and err.name:
            where = install_hint(err.name) or _package_found(err.name, searched)
        raise AgentLoadError(f"{named}: cannot import {module_name!r}: {err}{where}") from None
    except (Exception, SystemExit) as err:  # the module's own code failed as it was imported
        raise AgentLoadError(
            f"{named}: importing {module_name!r} raised {type(err).__name__}: {err} "
            f"(at {raised_at(err)})"
        ) from None
    found: Any = module
    for part in attribute.split("."):
        found = getattr(found, part, None)
        if found is None:
            raise AgentLoadError(f"{named}: {module_name} has no attribute {attribute!r}")
    if not callable(found):
        raise AgentLoadError(f"{named}: {attribute} is not callable")
    return as_entry(found)


def _package_found(missing: str, searched: str) -> str:
    """Where the package of ``missing``, a module not found in it, was found: another
    project's package of the same name, installed or on the import path, is named, since
    it is not the one meant; "" when it was not imported."""
    parent, _, name = missing.rpartition(".")
    folders = list(getattr(sys.modules.get(parent), "__path__", None) or ())
    if not folders:
        return ""
    return (
        f" ({parent!r} was looked for in {searched}, then on the import path, and the one "
        f"found is {folders[0]}, which holds no {name!r})"
    )


def agent_search_folder(folder: str | os.PathLike[str] | None = None) -> str:
    """The folder an agent's module is looked for in first: ``folder``, made absolute, or
    the working folder."""
    return str(Path(folder).resolve()) if folder is not None else os.getcwd()


def shadowed(module_name: str, folder: str) -> bool:
    """Whether ``folder`` holds a module named as the top-level package of ``module_name``
    that is not the one imported in this process (any, where none is imported)."""
    top = module_name.partition(".")[0]
    spec = importlib.machinery.PathFinder.find_spec(top, [folder])
    there = spec.origin if spec is not None else None
    if there is None or not os.path.isfile(there):
        return False
    loaded = sys.modules.get(top)
    return loaded is None or not _same_file(_origin(loaded), there)
