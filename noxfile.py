"""One environment per agent framework: each installs replaygate, the framework and
pytest, and runs ``tests_frameworks/test_<framework>.py`` (``make test-frameworks``).

Frameworks pin SDK versions that conflict with each other and with the main ``dev``
install, so none of them enters it. Each session writes its results to
``build/frameworks/<framework>.json``; ``python -m tests_frameworks.matrix`` renders
them into the support matrix of docs/frameworks.md.
"""

from __future__ import annotations

import nox

nox.options.default_venv_backend = "venv"
nox.options.error_on_missing_interpreters = True
nox.options.envdir = "build/nox"

FRAMEWORKS: dict[str, tuple[str, ...]] = {
    "sdks": ("anthropic==2.14.0", "openai==3.57.0"),
    "pydantic_ai": ("pydantic-ai-slim[anthropic,openai]==2.68.0",),
    "openai_agents": ("openai-agents==0.24.0",),
    "langchain": ("langchain-anthropic==1.7.10", "langchain-openai==1.7.4"),
    "litellm": ("litellm==1.110.2", "tenacity"),
    "instructor": ("instructor==1.17.0",),
}
"""Session name -> the framework packages it tests, at the versions of the matrix."""

TEST_TOOLS = ("pytest>=8.0",)
RESULTS = "build/frameworks"


def _run(session: nox.Session, framework: str) -> None:
    session.install("-e", ".", *FRAMEWORKS[framework], *TEST_TOOLS)
    session.run(
        "python",
        "-m",
        "pytest",
        "-q",
        "-p",
        "tests_frameworks.results",
        f"tests_frameworks/test_{framework}.py",
        *session.posargs,
        env={"REPLAYGATE_FRAMEWORK": framework, "REPLAYGATE_RESULTS": RESULTS},
    )


for _name in FRAMEWORKS:

    @nox.session(name=_name)
    def _session(session: nox.Session, _framework: str = _name) -> None:
        _run(session, _framework)
