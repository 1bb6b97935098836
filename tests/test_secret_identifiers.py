"""The free-standing high-entropy rule tells names in code from random keys.

A prompt, an answer or a note naming a test (``TestOpenAI.test_chat_completion_v1``), a
qualified name or a file path is recorded; a random key of 32 to 64 characters over the
base64, base64url or alphanumeric alphabet, with or without separators, is refused as
often as by the entropy rule alone. The names are those of this repository's source
and tests and of installed packages, generated here from their source files.
"""

from __future__ import annotations

import random
import re
import string
from collections.abc import Iterable
from pathlib import Path

import pytest

from replaygate.errors import SecretInFixtureError
from replaygate.fixtures.session import FixtureSession, Sample
from replaygate.hygiene.verify import verify_store
from replaygate.sanitize.secret_entropy import FREE_BITS, FREE_RUN, entropy, identifier
from replaygate.sanitize.secret_scan import detect_in_text, find_fixture_secrets

ROOT = Path(__file__).resolve().parent.parent
SITE = next((ROOT / ".venv" / "lib").glob("python3*/site-packages"), None)

NAMES = [
    "TestOpenAI.test_chat_completion_v1",
    "tests/test_llm/TestOpenAI.test_chat_completion_v1.yaml",
    "MyHTTPClient2.handle_request_v2",
    "src/app/OAuth2Handler.refresh_token_v3",
    "tests/test_llm.py::TestOpenAI::test_chat_completion_v1",
    "numpy/f2py/tests/test_array_from_pyobj.py",
    "anthropic.types.beta.BetaManagedAgentsS3MountResource",
    "cryptography.x509.extensions.AuthorityKeyIdentifier",
    "mpl_toolkits.mplot3d.axes3d.Axes3D.get_xlim",
]
"""Names that mix upper case, lower case and digits, as random keys do."""

_DEF = re.compile(r"\n( *)(?:async\s+)?(?:def|class)\s+(\w+)")
"""A definition at a line's start, in a text read with a line break before it (a search
for the line break skips to each line, where ``^`` in multi-line mode is tried at every
character)."""


def _names(root: Path, files: Iterable[Path]) -> list[str]:
    """Each file's path under ``root``, and each class and function defined in it by its
    qualified name (``pkg.mod.Class.method``) and after the file's path
    (``pkg/mod.py/Class.method``)."""
    names = []
    for file in files:
        path = file.relative_to(root)
        module = ".".join(path.with_suffix("").parts).removesuffix(".__init__")
        names.append(path.as_posix())
        nesting: list[tuple[int, str]] = []
        for match in _DEF.finditer("\n" + file.read_text("utf-8", errors="replace")):
            indent = len(match.group(1))
            while nesting and nesting[-1][0] >= indent:
                nesting.pop()
            nesting.append((indent, match.group(2)))
            qualified = ".".join(name for _, name in nesting)
            names += [f"{module}.{qualified}", f"{path.as_posix()}/{qualified}"]
    return names


KINDS = tuple(map(frozenset, (string.ascii_uppercase, string.ascii_lowercase, string.digits)))
"""Upper case, lower case and digits, as a run of :data:`FREE_RUN` (ASCII) holds them."""


def _mixed_and_dense(run: str) -> bool:
    """Whether ``run`` (of :data:`FREE_RUN`) mixes upper case, lower case and digits at the
    entropy a free-standing token needs: what the entropy rule alone refuses."""
    chars = set(run)
    return all(not kind.isdisjoint(chars) for kind in KINDS) and entropy(run) >= FREE_BITS


def _dense_runs(names: Iterable[str]) -> set[str]:
    runs = (m.group(0) for name in names for m in FREE_RUN.finditer(name))
    return {run for run in runs if _mixed_and_dense(run)}


@pytest.mark.parametrize("name", NAMES)
def test_a_name_in_code_is_no_secret(name: str) -> None:
    assert detect_in_text(name) is None
    assert detect_in_text(f"See `{name}` in the code.") is None
    fixture = {"request": {"body": {"messages": [{"role": "user", "content": name}]}}}
    assert find_fixture_secrets(fixture) == []


def test_a_prompt_naming_code_is_recorded_and_verifies(tmp_path: Path) -> None:
    store = tmp_path / "fixtures.jsonl"
    prompt = "Fix " + ", ".join(NAMES[:4])
    request = {"method": "POST", "path": "/v1/messages", "headers": {}, "body": {"q": prompt}}
    response = {"status": 200, "headers": {}, "body": {"text": f"Edited {NAMES[3]}"}}
    session = FixtureSession(store, mode="record-missing", approve_live=True, shape="http")
    meta = session.meta("http", "v1", default_source="hand")
    session.record(request, response, Sample(0), interface="http", meta=meta)
    assert NAMES[3].encode() in store.read_bytes()
    assert verify_store(store)[1] == []


def test_a_key_beside_a_name_is_still_refused(tmp_path: Path) -> None:
    key = "q8Zr2LxV9mT4wK7pB1nC6dH3" + "Yw5Ej0Fs"
    store = tmp_path / "fixtures.jsonl"
    session = FixtureSession(store, mode="record-missing", approve_live=True, shape="http")
    for text in (f"{NAMES[0]}.{key}", f"{NAMES[2]} {key}", f"tests/{key}/{NAMES[0]}"):
        request = {"method": "POST", "path": "/v1/m", "headers": {}, "body": {"q": text}}
        with pytest.raises(SecretInFixtureError, match=r"request\.body\.q"):
            session.record(request, {"status": 200}, Sample(0), interface="http", meta=None)
    assert not store.exists() or store.read_bytes() == b""


def test_no_name_of_this_repository_is_a_secret() -> None:
    files = [*sorted((ROOT / "src").rglob("*.py")), *sorted((ROOT / "tests").rglob("*.py"))]
    dense = _dense_runs(_names(ROOT, files))
    assert len(dense) >= 10, "names the entropy rule alone refuses"
    assert [run for run in dense if detect_in_text(run)] == []


@pytest.mark.slow  # some 20,000 names read from five packages' sources
@pytest.mark.skipif(SITE is None, reason="no virtual environment beside the repository")
def test_the_names_of_installed_packages_are_no_secrets() -> None:
    assert SITE is not None
    packages = ("anthropic", "httpcore", "pydantic", "urllib3", "cryptography")
    files = [file for package in packages for file in sorted((SITE / package).rglob("*.py"))]
    dense = _dense_runs(_names(SITE, files))
    assert len(dense) > 1500, "names the entropy rule alone refuses"
    still = sorted(run for run in dense if not identifier(run))
    assert len(still) <= len(dense) // 40, still


ALPHABETS = {
    "base64": string.ascii_letters + string.digits + "+/",
    "base64url": string.ascii_letters + string.digits + "-_",
    "alphanumeric": string.ascii_letters + string.digits,
}


def _random_keys(count: int, seed: int) -> list[str]:
    """``count`` random keys of 32 to 64 characters over each alphabet, half of them with
    one to six ``-``, ``_`` or ``.`` inserted."""
    rnd = random.Random(seed)
    keys = []
    for i in range(count):
        alphabet = list(ALPHABETS.values())[i % len(ALPHABETS)]
        key = rnd.choices(alphabet, k=rnd.randint(32, 64))
        for _ in range(rnd.randint(1, 6) if i % 2 else 0):
            key.insert(rnd.randint(1, len(key) - 1), rnd.choice("-_."))
        keys.append("".join(key))
    return keys


def test_random_keys_are_refused_as_often_as_before() -> None:
    keys = _random_keys(6000, seed=7)
    refused = [key for key in keys if detect_in_text(f"use {key} now")]
    assert len(refused) == REFUSED_BY_ENTROPY
    assert all(not identifier(m.group(0)) for key in keys for m in FREE_RUN.finditer(key))


REFUSED_BY_ENTROPY = 5994
"""Of the keys of :func:`_random_keys`, those the entropy rule alone refuses."""
