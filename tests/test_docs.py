"""The code in the docs really runs: every block after a ``<!-- doctest -->`` marker.

Python blocks of one page run in order in one namespace, in a temporary working
directory; shell blocks run each line that starts with ``replaygate`` (the docs say once
to activate the project's venv, then use bare commands), in this process (``run_cli``:
the same click command a process would run). A block's ``subprocess.run`` of ``python -m
pytest`` runs that pytest session in this process too (:func:`_pytest_in_process`), as
test_hits.py runs its projects' sessions. A ``text`` block after a
``<!-- doctest output -->`` marker is what the shell block before it prints: each of
its lines (but those with ``...``) is in that output, up to dates, revisions
and runs of spaces.

The rest hold what the docs name to what the code takes, each a quick check that runs in
the inner loop too: the options of every command, the extras, the links and their
headings, the ``[tool.replaygate]`` tables shown, and the reference tables (config keys,
case fields, sanitize keys, trim fields, marker arguments, metrics, interfaces, --json).
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import functools
import io
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path
from textwrap import dedent
from typing import Any

import click
import pytest

from cli_commands import EVERY
from nested_pytest import NoClosingCollection
from replaygate.cli import main
from run_cli import replaygate

# Its tests import the provider SDKs through replaygate (the pages' examples).

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
BLOCK = re.compile(
    r"<!-- doctest -->\s*\n```(python|sh)\n(.*?)```"
    r"|<!-- doctest output -->\s*\n```(text)\n(.*?)```",
    re.DOTALL,
)
DATE = re.compile(r"\d{4}-\d\d-\d\d(T\d\d:\d\d:\d\dZ)?")
REVISION = re.compile(r"\b(HEAD|origin/main) \([0-9a-f]{7,40}\)")


def _blocks(page: Path) -> list[tuple[str, str]]:
    return [
        (m.group(1) or m.group(3), m.group(2) if m.group(1) else m.group(4))
        for m in BLOCK.finditer(page.read_text(encoding="utf-8"))
    ]


def _normal(line: str) -> str:
    """A line as compared: dates and revisions blanked, runs of spaces made one."""
    line = REVISION.sub(r"\1 (<rev>)", DATE.sub("<date>", line))
    return " ".join(line.split())


def _assert_printed(expected: str, printed: str, where: str) -> None:
    """Each line of ``expected`` but the elided ones is a line of ``printed``.

    Not in order: rows recorded within the same second (a patrol's, oldest first) may
    come in another order than the page's, recorded a few seconds apart.
    """
    lines = {_normal(line) for line in printed.splitlines()}
    for line in expected.splitlines():
        wanted = _normal(line)
        if not wanted or "..." in wanted or not wanted.strip("─"):
            continue
        assert wanted in lines, f"{where}: the docs show {line!r}, not printed:\n{printed}"


PAGES_WITH_BLOCKS = [p for p in PAGES if _blocks(p)]


RUN = subprocess.run


def _pytest_in_process(args: Any, **options: Any) -> subprocess.CompletedProcess[Any]:
    """``subprocess.run`` for a block: ``[sys.executable, "-m", "pytest", ARGS]`` is a
    pytest session of the block's folder run in this process (its test modules forgotten
    afterwards), answered as the process would (its exit status; ``check`` raises
    :class:`subprocess.CalledProcessError`); any other command runs as given. A fresh
    interpreter would only add the import of pytest, its plugins and replaygate (about
    0.6 s of CPU)."""
    if list(args[:3]) != [sys.executable, "-m", "pytest"]:
        return RUN(args, **options)
    said = io.StringIO()
    saved_path, saved_modules, folder = list(sys.path), set(sys.modules), str(Path.cwd())
    try:
        with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
            code = int(pytest.main(list(args[3:]), plugins=[NoClosingCollection()]))
    finally:
        sys.path[:] = saved_path
        for name in set(sys.modules) - saved_modules:
            if str(getattr(sys.modules[name], "__file__", "")).startswith(folder + os.sep):
                del sys.modules[name]
    text = said.getvalue() if options.get("text") else said.getvalue().encode()
    if options.get("check") and code != 0:
        raise subprocess.CalledProcessError(code, args, text, "")
    return subprocess.CompletedProcess(args, code, text, "")


@pytest.mark.slow  # every page's commands, end to end
@pytest.mark.parametrize("page", PAGES_WITH_BLOCKS, ids=lambda p: p.name)
def test_doc_blocks_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(subprocess, "run", _pytest_in_process)
    namespace: dict[str, object] = {"__name__": f"doc_{page.stem}"}
    printed = ""
    for language, code in _blocks(page):
        if language == "python":
            exec(compile(code, f"{page.name} block", "exec"), namespace)
            continue
        if language == "text":
            _assert_printed(code, printed, page.name)
            continue
        printed = ""
        for line in code.splitlines():
            if not line.startswith("replaygate "):
                continue
            args = shlex.split(line.split("  #")[0])[1:]
            done = replaygate(*args, env={"ANTHROPIC_API_KEY": ""})
            assert done.returncode == 0, f"{page.name}: {line}\n{done.stdout}\n{done.stderr}"
            printed += done.stdout + done.stderr


# --- Options: the docs and the command line name the same ones ---------------------

OPTION = re.compile(r"(?<![\w-])--[a-z][\w-]*")
# Options of other tools the pages name: git, nox, pytest, pytest-recording,
# pytest-rerunfailures, pytest-xdist.
OTHER_TOOLS = {
    "--global", "--reuse-venv", "--block-network", "--allowed-hosts", "--reruns", "--force-reruns",
    "--count", "--dist", "--keep-duplicates", "--collect-only", "--setup-only", "--setup-plan",
    "--deselect", "--ignore", "--ignore-glob", "--strict-markers", "--lf", "--showlocals",
    "--full-trace", "--rootdir", "--pdb", "--trace", "--junitxml", "--tb",  # pytest's
    "--randomly-dont-reorganize", "--randomly-dont-reset-seed",  # pytest-randomly's
    "--randomly-seed",
    "--timeout", "--timeout-method",  # pytest-timeout's
    "--logfire", "--no-logfire",  # Logfire's pytest plugin's
    "--disable-socket", "--allow-hosts",  # pytest-socket's
    "--benchmark-disable",  # pytest-benchmark's
    "--retries",  # pytest-retry's
    "--force-flaky",  # the flaky package's
    "--unshallow", "--ours", "--theirs", "--init", "--renormalize", "--add",  # git's
    "--filter", "--no-cone",  # git's too
}  # fmt: skip


def _docs_text() -> str:
    return "\n".join(page.read_text(encoding="utf-8") for page in PAGES)


def _options(command: click.Command) -> set[str]:
    return {
        name
        for param in command.params
        if isinstance(param, click.Option)
        for name in (*param.opts, *param.secondary_opts)
        if name.startswith("--")
    }


def _commands() -> dict[tuple[str, ...], click.Command]:
    return {(): main, **EVERY}


class _Options:
    """A stand-in for pytest's parser that keeps the names of the options added to it."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def getgroup(self, *args: object, **kwargs: object) -> _Options:
        return self

    def addoption(self, *names: str, **attrs: object) -> None:
        self.names.update(names)

    def addini(self, *args: object, **kwargs: object) -> None:
        pass


def _pytest_options() -> set[str]:
    """The pytest plugins' options, the short spellings among them whoever owns them here."""
    from replaygate.pytest_plugin import options, sampling

    parser = _Options()
    options.add_options(parser)  # type: ignore[arg-type]
    sampling.pytest_addoption(parser)  # type: ignore[arg-type]
    return parser.names | set(options.SHORT)


def test_every_option_of_every_command_is_in_the_docs() -> None:
    named = set(OPTION.findall(_docs_text()))
    missing = [
        f"replaygate {' '.join(path)} {option}".replace("  ", " ")
        for path, command in _commands().items()
        for option in sorted(_options(command) - {"--help"})
        if option not in named
    ]
    assert missing == [], f"options no page of docs/ or the README names: {missing}"


def test_every_option_the_docs_name_exists() -> None:
    known = set().union(*map(_options, _commands().values())) | _pytest_options()
    known |= OTHER_TOOLS | {"--help"}
    unknown = sorted(
        f"{page.name}: {option}"
        for page in PAGES
        for option in set(OPTION.findall(page.read_text(encoding="utf-8")))
        if option not in known
    )
    assert unknown == [], f"options that no command or pytest plugin of replaygate takes: {unknown}"


SPAN = re.compile(r"`((?:replaygate )?[a-z][a-z-]*(?: [a-z-]+)? --[^`]*)`")


def test_an_option_named_with_a_command_is_that_commands() -> None:
    """`eval --jobs N`, `replaygate drift --sample-seed` in the text: the command takes it."""
    commands, wrong = _commands(), []
    for page in PAGES:
        prose = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
        for span in SPAN.findall(prose.replace("\n", " ")):
            words = span.split()[1:] if span.startswith("replaygate ") else span.split()
            path: tuple[str, ...] = ()
            while len(path) < len(words) and (*path, words[len(path)]) in commands:
                path = (*path, words[len(path)])
            if not path:
                continue
            takes = _options(commands[path]) | {"--help"}
            for word in words[len(path) :]:
                for option in OPTION.findall(word.split("=")[0]):
                    if option not in takes:
                        wrong.append(f"{page.name}: `{span}`: {option}")
    assert wrong == [], wrong


# --- Extras: what a page installs covers what its commands import -------------------

EXTRAS = re.compile(r"replaygate\[([\w,]+)\]")
NEEDS = {  # what a command line needs beyond replaygate's own dependencies
    "anthropic": re.compile(
        r"--(replaygate-)?simulator|--approve-live|^replaygate (record|demo)\b"
    ),
    "report": re.compile(r"^replaygate report\b"),
}
QUICK_STARTS = {"quickstart-own-project.md": "", "evals.md": "## Quick start"}


def test_every_extra_the_docs_name_exists() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    offered = set(project["optional-dependencies"])
    named = {extra for found in EXTRAS.findall(_docs_text()) for extra in found.split(",")}
    assert named - offered == set(), f"extras pyproject.toml does not offer: {named - offered}"


@pytest.mark.parametrize(("name", "heading"), QUICK_STARTS.items())
def test_a_quick_start_installs_the_extras_its_commands_need(name: str, heading: str) -> None:
    text = (ROOT / "docs" / name).read_text(encoding="utf-8")
    if heading:
        text = text.split(heading, 1)[1].split("\n## ", 1)[0]
    installs = [
        m for line in text.splitlines() if "pip install" in line for m in EXTRAS.findall(line)
    ]
    assert installs, f"{name}: the quick start does not say what to install"
    installed = set(installs[0].split(","))
    commands = [
        line.strip()
        for block in re.findall(r"```sh\n(.*?)```", text, re.S)
        for line in block.splitlines()
        if line.startswith(("replaygate ", "pytest"))
    ]
    needed = {extra for extra, need in NEEDS.items() for line in commands if need.search(line)}
    assert commands and needed <= installed, (name, needed - installed)


IMPORTED = {  # an extra's modules, as a block imports them
    "openai": "openai", "google": "gemini", "httpx": "httpx", "aiohttp": "aiohttp",
    "requests": "requests", "matplotlib": "report", "yaml": "cassettes",
}  # fmt: skip


def _imported(code: str) -> set[str]:
    tree = ast.parse(dedent(code))
    return {
        name.split(".")[0]
        for node in ast.walk(tree)
        for name in (
            [alias.name for alias in node.names] if isinstance(node, ast.Import)
            else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
            else []
        )
    }  # fmt: skip


def test_a_page_names_the_extra_of_each_sdk_its_blocks_import() -> None:
    """A reader who installed the quick start's ``replaygate[anthropic]`` is told, before
    a block that imports ``openai`` (or ``requests``, ...), which extra installs it."""
    unnamed = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for m in FENCED.finditer(text):
            if m[1] != "python":
                continue
            named = {x for found in EXTRAS.findall(text[: m.start()]) for x in found.split(",")}
            for module in sorted(_imported(m[2])):
                if IMPORTED.get(module, "anthropic") not in named | {"anthropic"}:
                    line = text[: m.start()].count("\n") + 1
                    unnamed.append(f"{page.name}:{line}: {module} ({IMPORTED[module]})")
    assert unnamed == [], f"blocks import what no pip install named before them: {unnamed}"


TOUR_QUESTIONS = ("What is RAG?", "Why are some agent tests flaky?")
"""The questions the README's tour records into ``rc.jsonl``."""


@pytest.mark.parametrize(
    ("page", "store", "asked"),
    [("README.md", "rc.jsonl", TOUR_QUESTIONS), ("docs/replay.md", "tests/fixtures/rc.jsonl", ())],
    ids=["the tour's two questions", "the eval cases' questions"],
)
def test_a_page_shows_the_mismatch_the_example_meets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, page: str, store: str, asked: tuple[str, ...]
) -> None:
    """The example's reworded question fails with the keys, store size and field a page
    shows, replayed from the store the README's tour records (``replaygate record`` from the
    simulator: the shipped fixtures of the questions ``asked``, or of every eval case, as
    ``--cases`` records them), as its step 3 replays. A line shown with ``...`` is left out."""
    from replaygate import ReplayModel
    from replaygate.errors import FixtureMismatchError
    from replaygate.examples.research_copilot import (
        SETTINGS,
        build_registry,
        run,
        shipped_fixtures,
    )

    lines = shipped_fixtures().read_text(encoding="utf-8").splitlines(keepends=True)
    # What `record --cases` wrote, as `make example-fixtures` records it first (the lines
    # up to the last one holding its --note); the eval's other samples come after them.
    recorded = max(n for n, line in enumerate(lines, 1) if '"note":"ResearchCopilot' in line)
    kept = [
        line
        for line in lines[:recorded]
        if not asked or any(f'"text":"{q}"' in line for q in asked)
    ]
    (tmp_path / store).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / store).write_text("".join(kept), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    model = ReplayModel(
        store, model=SETTINGS.model, max_tokens=SETTINGS.max_tokens, system=SETTINGS.system
    )
    with pytest.raises(FixtureMismatchError) as missed:
        run(model, build_registry(), "RAG, what is it?")
    shown = re.search(
        r"```\nFixtureMismatchError: (.*?)```", (ROOT / page).read_text(encoding="utf-8"), re.S
    )
    assert shown is not None
    said = str(missed.value).splitlines()
    pairs = zip(shown.group(1).splitlines(), said, strict=False)
    assert [(s, w) for s, w in pairs if "..." not in s and s != w] == []


def test_the_readme_names_every_make_target() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    targets = re.search(r"^\.PHONY: (.*)$", makefile, re.M)
    assert targets is not None
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert [t for t in targets.group(1).split() if f"make {t}" not in readme] == []


# --- Links: every relative link reaches a file, and its #anchor a heading there ---------


_FENCED = re.compile(r"^```.*?^```[^\n]*$", re.S | re.M)
"""A fenced block: from a line opening with three backticks to the next such line (three
backticks inside a line are inline code: ```` ```json ```` names a fence)."""


@functools.cache
def _prose(page: Path) -> str:
    """The page without its fenced blocks and inline code (where `[text](url)` is text);
    worked out once per page (the pages do not change while the tests read them)."""
    text = _FENCED.sub("", page.read_text(encoding="utf-8"))
    return re.sub(r"(`+).*?\1", "", text, flags=re.S)  # a span closes on as many backticks


@functools.cache
def _anchors(page: Path) -> frozenset[str]:
    """The ids GitHub gives the page's headings: lower case, punctuation dropped, spaces
    made hyphens (worked out once per page, not once per link to it)."""
    headings = re.findall(r"^#+ (.*)$", _FENCED.sub("", page.read_text("utf-8")), re.M)
    return frozenset(re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings)


def test_every_link_of_the_docs_reaches_its_page_and_heading() -> None:
    broken = []
    for page in PAGES:
        for link in re.findall(r"\]\(([^)\s]+)\)", _prose(page)):
            if re.match(r"[a-z]+:", link):
                continue  # https:, mailto:
            path, _, anchor = link.partition("#")
            target = (page.parent / path).resolve() if path else page
            if not target.exists():
                broken.append(f"{page.name}: {link}: no such file")
            elif anchor and target.suffix == ".md" and anchor not in _anchors(target):
                broken.append(f"{page.name}: {link}: no such heading")
    assert broken == []


CITED = re.compile(r"\b(law \d|seed 00\d)\b")
LAWS = "architecture.md#where-each-law-lives"


def test_a_page_citing_a_law_or_a_seed_links_where_they_are_explained() -> None:
    """A "law 7" or a "seed 003" means nothing to a reader who has not seen the design: the
    first citation of each on a page links to architecture.md, which says what they are."""
    unlinked = [
        f"{page.name}: {kind}"
        for page in PAGES
        if page.name != "architecture.md"
        for kind in ("law", "seed")
        if (cited := [m for m in CITED.findall(_prose(page)) if m.startswith(kind)])
        and f"[{cited[0]}]({LAWS})" not in page.read_text(encoding="utf-8")
    ]
    assert unlinked == []
    explained = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    explained = explained.split("\n## Where each law lives\n", 1)[1].split("\n| law |", 1)[0]
    cited = {m for page in PAGES for m in CITED.findall(_prose(page)) if m.startswith("seed")}
    assert cited and all(seed in explained for seed in cited), cited


# --- Blocks the pages show but do not run: they still parse, and a config still loads ---

FENCED = re.compile(r"^ *```(python|toml)\n(.*?)^ *```", re.S | re.M)


def _fenced(language: str) -> list[tuple[str, str]]:
    return [
        (f"{page.name}:{page.read_text('utf-8')[: m.start()].count(chr(10)) + 1}", dedent(m[2]))
        for page in PAGES
        for m in FENCED.finditer(page.read_text(encoding="utf-8"))
        if m[1] == language
    ]


def test_every_python_block_of_the_docs_parses() -> None:
    for where, code in _fenced("python"):
        ast.parse(code, where)


def test_the_pre_commit_hook_of_the_docs_checks_a_merge_git_completes_too() -> None:
    yaml = pytest.importorskip("yaml")
    page = (ROOT / "docs" / "sanitize.md").read_text(encoding="utf-8")
    [config] = re.findall(r"^```yaml\n(# \.pre-commit-config\.yaml\n.*?)^```", page, re.S | re.M)
    hook_types = yaml.safe_load(config)["default_install_hook_types"]
    assert {"pre-commit", "pre-merge-commit"} <= set(hook_types)


def test_every_fence_of_the_docs_stands_on_a_line_of_its_own() -> None:
    # text after a closing fence leaves the block open: the rest of the page renders as code
    stray = [
        f"{page.name}:{number}"
        for page in PAGES
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
        if line.lstrip().startswith("```") and not re.fullmatch(r" *```[a-z]*", line)
    ]
    assert stray == []


STANDS_FOR = {"run_agent"}  # frameworks.md: "`run_agent()` stands for your code"


def _bound(tree: ast.AST) -> set[str]:
    """The names a block defines: assigned, imported, a function's, a class's, an argument's."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


def test_every_name_a_python_block_uses_is_defined_on_its_page() -> None:
    """A reader copying a page's blocks in order never meets a name the page did not
    import or define (``pytest`` in a test module, the agent a test calls)."""
    undefined = []
    for page in PAGES:
        known = set(dir(builtins)) | STANDS_FOR
        for m in FENCED.finditer(page.read_text(encoding="utf-8")):
            if m[1] != "python":
                continue
            tree = ast.parse(dedent(m[2]))
            known |= _bound(tree)
            used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
            line = page.read_text(encoding="utf-8")[: m.start()].count("\n") + 1
            undefined += [f"{page.name}:{line}: {name}" for name in sorted(used - known)]
    assert undefined == [], undefined


PROVIDER_KEYS = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
"""The variable each pydantic-ai provider reads its key from."""


def _agents_built_at_import(tree: ast.Module) -> set[str]:
    """The providers of the pydantic-ai ``Agent("provider:model")`` a module builds as it
    is imported (outside any function): pydantic-ai wants the provider's key then."""
    found = set()
    for statement in tree.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for node in ast.walk(statement):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "Agent"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                found.add(node.args[0].value.partition(":")[0])
    return found & PROVIDER_KEYS.keys()


def test_a_page_sets_a_placeholder_key_before_an_agent_built_at_import() -> None:
    """A test module copied from a page that builds a pydantic-ai agent at its top is
    told first to set the placeholder key, else pytest stops as it collects the module
    (pydantic-ai's ``Set the `ANTHROPIC_API_KEY` environment variable``), replaying too."""
    unset = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for m in FENCED.finditer(text):
            if m[1] != "python":
                continue
            for provider in sorted(_agents_built_at_import(ast.parse(dedent(m[2])))):
                said = re.compile(rf"""{PROVIDER_KEYS[provider]}(=test|", "test")""")
                if not said.search(text[: m.start()]):
                    line = text[: m.start()].count("\n") + 1
                    unset.append(f"{page.name}:{line}: {PROVIDER_KEYS[provider]}")
    assert unset == [], f"agents built at import with no placeholder key set before: {unset}"


UNPRICED = re.compile(r"`no price for model '([^']+)'([^`]*)`")
"""A price error quoted by a page: the model it names and what follows."""


def test_a_quoted_price_error_names_a_model_the_shipped_table_lacks() -> None:
    """A page shows the error of a model with no price with one the shipped table lacks
    (or with a table of another currency, which replaces it): naming a priced one tells
    the reader to add a price replaygate already has."""
    from replaygate.evals.prices import shipped_prices

    priced = shipped_prices().models
    wrong = [
        f"{page.name}: {m[1]}"
        for page in PAGES
        for m in UNPRICED.finditer(" ".join(page.read_text(encoding="utf-8").split()))
        if m[1] in priced and "(a table in" not in m[2]
    ]
    assert wrong == [], f"price errors quoted for models the shipped table prices: {wrong}"


def test_every_replaygate_config_of_the_docs_loads(tmp_path: Path) -> None:
    """Each ``[tool.replaygate...]`` table shown, as a ``pyproject.toml``, is read without
    an error: no key that replaygate does not know, no value of the wrong kind."""
    from replaygate.evals.config import load_config
    from replaygate.sanitize.config import load_config as load_sanitize

    shown = [(where, toml) for where, toml in _fenced("toml") if "[tool.replaygate" in toml]
    assert len(shown) >= 6
    for where, toml in shown:
        pyproject = tmp_path / "pyproject.toml"
        pyproject.write_text(toml, encoding="utf-8")
        try:
            load_config(pyproject)
            load_sanitize(pyproject)
        except ValueError as err:
            raise AssertionError(f"{where}: {err}") from err


def test_the_configuration_reference_names_every_key(tmp_path: Path) -> None:
    """docs/evals.md's reference shows each key ``[tool.replaygate]`` takes, as the
    error about an unknown key lists them."""
    from replaygate.evals.config import load_config

    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text("[tool.replaygate]\nno_such_key = 1\n", encoding="utf-8")
    with pytest.raises(ValueError, match="known keys: ") as raised:
        load_config(pyproject)
    known = str(raised.value).split("known keys: ", 1)[1].split(", ")
    section = (ROOT / "docs" / "evals.md").read_text("utf-8").split("## Configuration reference")[1]
    reference = re.search(r"```toml\n(.*?)```", section, re.S)
    assert reference is not None
    shown = set(re.findall(r"^(\w+) =|^\[tool\.replaygate\.(\w+)\]", reference[1], re.M))
    assert [key for key in known if (key, "") not in shown and ("", key) not in shown] == []


def test_the_cases_table_names_every_field_of_a_case() -> None:
    from replaygate.evals.cases import FIELDS

    section = (ROOT / "docs" / "evals.md").read_text("utf-8").split("\n## Cases\n")[1]
    table = section.split("\n\n| field |", 1)[1].split("\n\n", 1)[0]
    named = {
        name for row in table.splitlines()[2:] for name in re.findall(r"`(\w+)`", row.split("|")[1])
    }
    assert named == set(FIELDS)


# --- Reference tables name exactly what the code takes ----------------------------------


def _table(page: str, header: str) -> list[list[str]]:
    """The rows (cells stripped) of the table of ``docs/page`` whose header starts so."""
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    lines = text.split("\n" + header, 1)[1].split("\n\n", 1)[0].splitlines()[2:]
    return [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in lines]


def _names(cell: str) -> set[str]:
    """The names in a cell's code spans: `ids`, `fixtures="path"`, `interface=`."""
    return set(re.findall(r"`(\w+)[^`]*`", cell))


def test_the_sanitize_table_names_every_key(tmp_path: Path) -> None:
    from replaygate.sanitize.config import load_config

    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text("[tool.replaygate.sanitize]\nno_such_key = 1\n", encoding="utf-8")
    with pytest.raises(ValueError, match="known: ") as raised:
        load_config(pyproject)
    known = set(str(raised.value).split("known: ", 1)[1].split(", "))
    rows = _table("sanitize.md", "| key | type | default | what it does |")
    assert {name for row in rows for name in _names(row[0])} == known


def test_the_trim_table_names_every_interface_and_field() -> None:
    from replaygate.sanitize.trim import KNOWN_FIELDS, REQUIRED_FIELDS

    rows = _table("sanitize.md", "| interface | fields replaygate knows |")
    shown = {row[0].strip("`"): (_names(row[1]), _names(row[2])) for row in rows}
    assert shown == {i: (set(KNOWN_FIELDS[i]), set(REQUIRED_FIELDS[i])) for i in KNOWN_FIELDS}


def test_the_marker_table_and_the_config_name_every_setting() -> None:
    from replaygate.pytest_plugin.settings import CONFIG_KEYS, MARKER_ARGUMENTS

    rows = _table("http.md", "| argument | meaning |")
    assert {name for row in rows for name in _names(row[0])} == set(MARKER_ARGUMENTS)
    http = (ROOT / "docs" / "http.md").read_text(encoding="utf-8")
    config = http.split("takes its settings from the `replaygate_config` fixture", 1)[1]
    config = config.split("\n\n", 1)[0]
    assert [key for key in CONFIG_KEYS if f"`{key}`" not in config] == []


def test_the_metrics_table_names_every_metric() -> None:
    from replaygate.evals.metrics import METRICS

    rows = _table("evals.md", "| metric | scale | definition |")
    assert [row[0].strip("`") for row in rows] == list(METRICS)


def test_the_json_table_names_every_command_with_json() -> None:
    cli = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    table = cli.split("## `--json`: data for a program", 1)[1].split("\n\n| command |", 1)[1]
    table = table.split("\n\n", 1)[0]
    missing = [
        " ".join(path)
        for path, command in EVERY.items()
        if "--json" in _options(command) and f"`{' '.join(path)} --json`" not in table
    ]
    assert missing == []


def test_the_interfaces_table_names_every_interface() -> None:
    from replaygate.models.providers import INTERFACES

    rows = _table("providers.md", "| interface | version | path |")
    assert [row[0].strip("`") for row in rows] == list(INTERFACES)


def test_the_interfaces_table_names_the_version_the_anthropic_sdk_sends() -> None:
    """A fixture recorded through the installed SDK holds its version: the page names it.
    Read from the SDK's source, not imported (thousands of model classes)."""
    import importlib.util

    spec = importlib.util.find_spec("anthropic")
    assert spec is not None and spec.origin is not None
    constants = (Path(spec.origin).parent / "_constants.py").read_text(encoding="utf-8")
    sent = re.search(r'^ANTHROPIC_API_VERSION = "([^"]+)"', constants, re.M)
    assert sent is not None
    rows = _table("providers.md", "| interface | version | path |")
    assert f"`{sent.group(1)}`" in rows[0][1]


@pytest.mark.slow  # two pytest sessions of their own
def test_the_pytest_examples_of_http_md_record_and_replay(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plugin's examples, as one test module: recorded from the simulator, then
    replayed offline, each store where the page says."""
    text = (ROOT / "docs" / "http.md").read_text(encoding="utf-8")
    blocks = re.findall(r"<!-- pytester -->\s*\n```python\n(.*?)```", text, re.S)
    assert len(blocks) == 2
    from sdks import imported

    for sdk in ("anthropic", "openai"):  # here, so the nested session shares their classes
        imported(sdk)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    pytester.makepyfile(test_plugin="\n".join(blocks))
    anyio = ("-p", "anyio")  # the page's async test is run by anyio's plugin, as a user's is
    recording = pytester.runpytest(
        *anyio,
        "--replaygate-record-mode=record-missing",
        "--replaygate-approve-live",
        "--replaygate-simulator=echo",
    )
    recording.assert_outcomes(passed=3)
    stores = pytester.path / "tests" / "fixtures"
    assert (stores / "test_plugin" / "test_answer.jsonl").is_file()
    assert (stores / "test_plugin" / "test_async_answer[asyncio].jsonl").is_file()
    assert '"note":"nightly"' in (stores / "shared" / "answers.jsonl").read_text("utf-8")
    pytester.runpytest(*anyio).assert_outcomes(passed=3)


def test_the_inline_asserts_of_a_page_hold_with_its_examples_names() -> None:
    """An ``assert`` quoted in a page's text runs with the names the page's examples
    define (sampling.md tests a check with the gate its pytest example declares)."""
    page = ROOT / "docs" / "sampling.md"
    text = page.read_text(encoding="utf-8")
    namespace: dict[str, object] = {"__name__": "doc_sampling_inline"}
    for block in re.findall(r"<!-- pytester -->\s*\n```python\n(.*?)```", text, re.S):
        exec(compile(block, f"{page.name} block", "exec"), namespace)
    asserts = re.findall(r"`(assert [^`]*)`", text)
    assert asserts
    for line in asserts:
        exec(compile(line, f"{page.name}: {line}", "exec"), namespace)
