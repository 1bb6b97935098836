PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# Runs reuse compiled modules and pytest's rewritten test modules, even where the
# environment turns bytecode caches off (they live in ignored __pycache__ folders).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: demo test test-fast test-thorough test-wheel test-frameworks lint bench clean example-fixtures

$(STAMP): pyproject.toml
	@echo "Creating the virtual environment in $(VENV)"
	$(PYTHON) -m venv $(VENV)
	@echo "Upgrading pip in $(VENV)"
	$(BIN)/pip install --quiet --upgrade pip
	@echo "Installing replaygate and its development dependencies (about a minute, once)"
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/replaygate demo

# The whole suite, as CI runs it; prints the 15 slowest tests of each share. Two pytest
# processes each run a share of the modules, as in test-fast.
test: $(STAMP)
	$(BIN)/python tools/run_shares.py -q --durations=15

# The inner loop: everything but the end-to-end tests marked slow, property tests drawing
# 5 examples instead of 20. Two pytest processes, one per core, each collect and run a
# share of the test modules (tools/run_shares.py, tests/shares.py): a module's shared
# recordings and simulators, and the SDK models its tests build on first use, are made
# once; the modules using the provider SDKs are in two groups (openai alone; anthropic
# and the others), each in one share, so that few processes import them; the shares are balanced by the seconds each module took in the last run of
# the same suite (kept in .pytest_cache; on a fresh clone, those of tests/module_seconds.json).
test-fast: $(STAMP)
	$(BIN)/python tools/run_shares.py -q -m "not slow" --hypothesis-profile=inner-loop

# The whole suite with 500 examples per property test instead of 20.
test-thorough: $(STAMP)
	$(BIN)/python tools/run_shares.py -q --durations=15 --hypothesis-profile=thorough

# The built wheel in a new environment with only its declared dependencies, then the
# "your own project" page done as written in it (tests_newcomer/).
test-wheel:
	sh tools/check_wheel.sh

# The agent-framework recipes (tests_frameworks/), each in its own nox environment
# under build/nox, then the support matrix of docs/frameworks.md rendered from their
# results. --reuse-venv=yes keeps the environments but still runs their installs, so a
# changed pin takes effect (-R would skip them).
test-frameworks: $(STAMP)
	$(BIN)/ruff check tests_frameworks noxfile.py
	$(BIN)/ruff format --check tests_frameworks noxfile.py
	$(BIN)/nox --reuse-venv=yes
	$(BIN)/python -m tests_frameworks.matrix

lint: $(STAMP)
	$(BIN)/ruff check src tests tests_newcomer tests_typing bench
	$(BIN)/ruff format --check src tests tests_newcomer tests_typing bench
	$(BIN)/mypy

# Every benchmark in its quick form (about 15 minutes); each script's docstring gives
# its full form, and bench/RESULTS.md the figures with the command that made them.
bench: $(STAMP)
	$(BIN)/python bench/bench_replay.py --quick
	$(BIN)/python bench/bench_http.py --quick
	$(BIN)/python bench/bench_store_scale.py --n 100000
	$(BIN)/python bench/bench_samples.py --sizes 1000 10000
	$(BIN)/python bench/bench_verify.py
	$(BIN)/python bench/bench_writes.py
	$(BIN)/python bench/bench_evals.py
	$(BIN)/python bench/bench_pytest_scale.py --quick
	$(BIN)/python bench/bench_upload_recording.py
	$(BIN)/python bench/bench_plugin_overhead.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache

# Re-record the fixtures shipped with ResearchCopilot from the loopback simulator (seed 7,
# the seed of the shipped baseline): each eval case's question once (sample 0, what
# `replaygate run` replays), then the cases' other samples, as the demo's eval loop records
# them, then each request's samples folded onto its line.
example-fixtures: $(STAMP)
	rm -f src/replaygate/examples/research_copilot/data/fixtures.jsonl
	$(BIN)/replaygate record --approve-live --simulator --seed 7 \
	  --agent replaygate.examples.research_copilot:copilot \
	  --cases src/replaygate/examples/research_copilot/data/eval_cases.jsonl \
	  --fixtures src/replaygate/examples/research_copilot/data/fixtures.jsonl \
	  --note "ResearchCopilot eval cases, recorded from the loopback simulator"
	$(BIN)/replaygate eval --record-mode record-missing --approve-live --simulator --seed 7 \
	  --no-history --agent replaygate.examples.research_copilot:copilot \
	  --cases src/replaygate/examples/research_copilot/data/eval_cases.jsonl \
	  --fixtures src/replaygate/examples/research_copilot/data/fixtures.jsonl
	$(BIN)/replaygate compact src/replaygate/examples/research_copilot/data/fixtures.jsonl
