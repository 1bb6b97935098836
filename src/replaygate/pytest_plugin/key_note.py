"""A note on a test that failed because its SDK found no API key.

A test whose own code builds ``anthropic.Anthropic()`` (the marker alone, no client
fixture of the plugin's) fails in a run with no key in the environment with the SDK's
error, raised before any request reaches replaygate, which says nothing of replay. The
error gets a note saying which variable to set, and that a replay takes any key (keys are
neither stored nor matched), while a live recording needs the real one. A framework that
raises an error of its own over the SDK's (LiteLLM's ``InternalServerError`` over
openai's, its ``APIConnectionError`` over its Gemini client's) is read down its chain;
LiteLLM's Anthropic client words the error itself.
"""

from __future__ import annotations

from collections.abc import Generator

import pytest

from replaygate.errors import exception_chain
from replaygate.key_names import misnamed_keys
from replaygate.pytest_plugin.offline import uses_replaygate

PLUGIN = "replaygate-key-note"

NO_KEY: tuple[tuple[str, str], ...] = (
    ("Could not resolve authentication method", "ANTHROPIC_API_KEY"),
    ("Missing credentials. Please pass an `api_key`", "OPENAI_API_KEY"),
    ("The api_key client option must be set", "OPENAI_API_KEY"),
    ("Missing key inputs argument!", "GEMINI_API_KEY"),
    ("No API key was provided.", "GEMINI_API_KEY"),
    ("litellm.AuthenticationError: Missing Anthropic API Key", "ANTHROPIC_API_KEY"),
    ("Missing Gemini API key.", "GEMINI_API_KEY"),
    ("Could not resolve AWS credentials from session", "AWS_ACCESS_KEY_ID"),
    (
        "litellm.AuthenticationError: BedrockException Invalid Authentication - Unable to "
        "locate credentials",
        "AWS_ACCESS_KEY_ID",
    ),
)
"""The start of each SDK's error for a client with no key (anthropic; openai 3.x and
older; google-genai, older and 3.x; LiteLLM's Anthropic and Gemini clients; for Amazon
Bedrock, anthropic.AnthropicBedrock's and LiteLLM's ``bedrock/`` models'), and the
variable it reads."""

_AWS_KEYS = (
    "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
    "AWS_ACCESS_KEY_ID=test and AWS_SECRET_ACCESS_KEY=test in the environment (or give the "
    'client any keys: aws_access_key_id="test" and aws_secret_access_key="test" to LiteLLM, '
    'AnthropicBedrock(aws_access_key="test", aws_secret_key="test"))',
)
_KEYS_SET = {"AWS_ACCESS_KEY_ID": _AWS_KEYS}
"""The variables of a key read under several names (Amazon Bedrock's, an AWS key pair), and
how a run that takes any sets them, by the variable :data:`NO_KEY` names."""


def missing_key(error: BaseException) -> str | None:
    """The environment variable ``error``, or an error in its chain, says its SDK found
    no key in, or None."""
    for link in exception_chain(error):
        said = str(link).lstrip('"')  # anthropic's message is quoted
        found = next((variable for start, variable in NO_KEY if said.startswith(start)), None)
        if found is not None:
            return found
    return None


class KeyNote:
    """Adds the note to a replaygate test's error of a missing key; ``how`` says how this
    run sends: ``replay``, ``simulator`` (recording from it) or ``live``."""

    def __init__(self, how: str) -> None:
        self.how = how

    def note(self, variable: str) -> str:
        """What to do, in this run, about a missing ``variable``, naming a variable set
        under a name the SDK never reads (:func:`misnamed_keys`)."""
        misnamed = misnamed_keys((variable,))
        return self._what_to_do(variable) + (f". {misnamed}" if misnamed else "")

    def _what_to_do(self, variable: str) -> str:
        """What to do, in this run, about a missing ``variable`` (:data:`_KEYS_SET`)."""
        plain = f'{variable}=test in the environment (or pass api_key="test" to the client)'
        names, setting = _KEYS_SET.get(variable, (variable, plain))
        if self.how == "live":
            return (
                f"replaygate: recording sends live requests, so it needs the real key in "
                f"{names} (or record from the loopback simulator, which takes any key: "
                "--replaygate-simulator)"
            )
        taker = "a replay, which sends nothing," if self.how == "replay" else "the simulator"
        return (
            f"replaygate: the SDK found no API key. In this run {taker} takes any key, and "
            f"keys are neither stored nor matched: set {setting}"
        )

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        """Note what to do on the error before its report is made."""
        error = None if call.excinfo is None else call.excinfo.value
        variable = None if error is None else missing_key(error)
        if error is not None and variable is not None and uses_replaygate(item):
            note = self.note(variable)
            if note not in getattr(error, "__notes__", ()):  # a fixture's error, raised again
                error.add_note(note)
        return (yield)
