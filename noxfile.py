"""One environment per agent framework (``make test-frameworks``).

Each session installs replaygate, the framework at the version of the support
matrix and pytest, and runs ``tests_frameworks/test_<session>.py``. Frameworks pin
SDK versions that conflict with each other and with the main ``dev`` install, so
none of them enters it. A session writes its results to
``build/frameworks/<session>.json`` (removed first, so a session that stops early
leaves none behind); ``python -m tests_frameworks.matrix`` renders them into the
support matrix of docs/frameworks.md.
"""

from __future__ import annotations

import re
from pathlib import Path

import nox

nox.options.default_venv_backend = "venv"
nox.options.envdir = "build/nox"
nox.options.error_on_missing_interpreters = True
nox.options.reuse_venv = "yes"  # an environment is made once; its installs still run

FRAMEWORKS: dict[str, tuple[str, ...]] = {
    "sdks": ("anthropic==2.14.0", "openai==3.57.0", "trio==0.35.0"),
    "pydantic_ai": ("pydantic-ai-slim[anthropic,openai]==2.68.0",),
    "openai_agents": ("openai-agents==0.24.0", "litellm==1.110.2"),
    "langchain": ("langchain-anthropic==1.7.10", "langchain-openai==1.7.4", "langgraph==1.2.24"),
    "litellm": ("litellm==1.110.2", "tenacity"),
    "instructor": ("instructor==1.17.0", "anthropic==2.14.0", "litellm==1.110.2"),
    "bedrock": (
        "boto3==1.43.117",
        "aiobotocore==3.10.0",
        "strands-agents==1.62.0",
        "pydantic-ai-slim[bedrock]==2.68.0",
        "langchain-aws==1.9.1",
    ),
}
"""Session name -> the packages it tests, at the versions of the matrix (LiteLLM's
``num_retries`` needs tenacity, which it does not install; the OpenAI Agents SDK's
``LitellmModel`` needs LiteLLM, at the version of its session; LangChain's row is tested
inside LangGraph graphs too; Instructor's Anthropic client needs the anthropic SDK, at the
version of ``sdks``, whose async calls are tested under trio too, and its ``from_litellm``
LiteLLM, at the version of its session; Amazon Bedrock's row is boto3's client and the
frameworks that call Bedrock through it, aiobotocore's async client beside it, which pins
botocore 1.43)."""

UNREPORTED = ("tenacity", "langgraph", "trio")
"""Packages a session installs beside the framework whose versions the matrix leaves out."""

SDKS = ("anthropic", "openai")
RESULTS = Path("build/frameworks")


def reported(requirements: tuple[str, ...]) -> str:
    """The distributions whose versions the matrix shows: the framework's, then the SDKs'."""
    names = [re.split(r"[\[=<>~! ]", r, maxsplit=1)[0] for r in requirements]
    return ",".join(dict.fromkeys([*(n for n in names if n not in UNREPORTED), *SDKS]))


def _run(session: nox.Session, framework: str) -> None:
    requirements = FRAMEWORKS[framework]
    session.install("-e", ".", *requirements, "pytest>=8.0")
    (RESULTS / f"{framework}.json").unlink(missing_ok=True)
    session.run(
        "python",
        "-m",
        "pytest",
        "-q",
        "-p",
        "tests_frameworks.results",
        f"tests_frameworks/test_{framework}.py",
        *session.posargs,
        env={
            "REPLAYGATE_FRAMEWORK": framework,
            "REPLAYGATE_RESULTS": str(RESULTS),
            "REPLAYGATE_PACKAGES": reported(requirements),
        },
    )


for _name in FRAMEWORKS:

    @nox.session(name=_name)
    def _session(session: nox.Session, _framework: str = _name) -> None:
        _run(session, _framework)
