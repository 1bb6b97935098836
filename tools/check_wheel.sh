#!/bin/sh
# The package as a user gets it: build the wheel, install it with only its declared
# dependencies in a new virtual environment, and run commands a first-time user runs.
# Each must exit as documented, with no traceback. Then add what the "your own project"
# page installs (the anthropic extra and pytest) and do what that page says
# (tests_newcomer/).
set -eu
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m pip wheel --quiet --no-deps --wheel-dir "$work/dist" .
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet "$work"/dist/replaygate-*.whl
rg="$work/venv/bin/replaygate"
fixtures=src/replaygate/examples/research_copilot/data/fixtures.jsonl

expect() {  # expect CODE TEXT -- COMMAND...: exit status CODE, TEXT in the output
    code=$1 text=$2
    shift 3
    set +e
    out=$("$@" 2>&1)
    got=$?
    set -e
    if [ "$got" != "$code" ] || ! printf '%s' "$out" | grep -qF -- "$text" \
        || printf '%s' "$out" | grep -q Traceback; then
        printf 'FAILED: %s\n  expected exit %s and "%s", got exit %s:\n%s\n' \
            "$*" "$code" "$text" "$got" "$out" >&2
        exit 1
    fi
    echo "ok: $*"
}

if "$work/venv/bin/python" -c "import pytest" 2>/dev/null; then
    echo "FAILED: pytest is installed by the wheel's dependencies" >&2
    exit 1
fi
expect 0 "Usage: replaygate" -- "$rg" --help
for command in $("$work/venv/bin/python" -c "from replaygate.cli import COMMANDS; print(*COMMANDS)"); do
    expect 0 "Usage: replaygate $command" -- "$rg" "$command" --help
done
expect 0 "problem(s)" -- "$rg" verify "$fixtures"
expect 0 "" -- "$rg" checksum "$fixtures"
expect 2 "no such file or folder" -- "$rg" verify "$work/missing.jsonl"
# the pages the messages name, installed with the package (not this checkout's docs/)
expect 0 "/site-packages/replaygate/docs/frameworks.md" -- "$rg" docs frameworks --path
expect 0 "## LangChain" -- "$rg" docs docs/frameworks.md#langchain
expect 2 "pip install 'replaygate[anthropic,report]'" -- "$rg" demo --out "$work/demo"
expect 0 "identical final: True" -- "$rg" run --agent replaygate.examples.research_copilot:copilot \
    --fixtures "$fixtures" --check-determinism "What is RAG?"
echo "the wheel works with only its declared dependencies"

wheel=$(ls "$work"/dist/replaygate-*.whl)
"$work/venv/bin/pip" install --quiet "replaygate[anthropic] @ file://$wheel" pytest
"$work/venv/bin/python" -m pytest -q -p no:cacheprovider --noconftest \
    --rootdir tests_newcomer tests_newcomer
echo "docs/quickstart-own-project.md runs as written from the wheel"
