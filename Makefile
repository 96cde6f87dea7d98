# The two commands in the README. Each sets itself up on a fresh machine.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# `make latest`: the newest SDK releases, in a venv of their own
LATEST_VENV ?= .venv-latest
PYTEST_ARGS ?=
# pytest-xdist: one worker per core; a module's tests stay on one worker, so its module fixtures run once;
# modules are handed out in the order tests/conftest.py gives (those with a slow test first)
XDIST ?= -n auto --dist loadscope --no-loadscope-reorder
# The suite starts many Python processes over the same sources (two xdist workers, each with its fork server,
# and every `amlkit` subprocess a test runs): with PYTHONDONTWRITEBYTECODE set (this machine's shells set it)
# each one compiles amlkit's sources again, pytest rewrites every test module in each worker, and the VM
# catalogue is parsed again (amlkit.vmcache), ~4 s of CPU per `amlkit check` subprocess. The tests run with
# bytecode on, as an installed amlkit does (bench/measure.py's bytecode_env); __pycache__/ is in .gitignore.
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest

.PHONY: install preview test test-fast test-rule lint typecheck bench docs latest clean

# The SDKs at the releases constraints.txt pins (the ones amlkit's SDK patches were verified on).
$(BIN)/amlkit-installed: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[test]'
	touch $@

install: $(BIN)/amlkit-installed

# Offline preview and policy review of every sample stack in stacks/.
preview: install
	$(BIN)/amlkit preview

lint: install
	$(BIN)/ruff check .

# mypy --strict over amlkit/, components/ and policies/ as the package amlkit (tools/typecheck.py).
typecheck: install
	$(BIN)/python tools/typecheck.py

# What CI runs (.ci/run). Under CI=true the run also fails on a test over 8 s without the slow mark
# (tests/loops.py); locally add PYTEST_ARGS=--slow-check for the same.
test: lint typecheck
	$(PYTEST) $(XDIST) $(PYTEST_ARGS)

# The quick loop: every test not marked slow, in parallel (no lint or typecheck).
test-fast: install
	$(PYTEST) -q -m "not slow" $(XDIST) $(PYTEST_ARGS)

# One rule's tests: its unit tests and documented example (tests/policies/test_<rule>.py), and every test
# parametrized with it (its metadata checks, its example through the engine, its provider twins). RULE=aml-workspace-hbi
test-rule: install
	@test -n "$(RULE)" || { echo "usage: make test-rule RULE=<rule name, e.g. aml-workspace-hbi>"; exit 2; }
	$(PYTEST) -q --rule=$(RULE) $(XDIST) $(PYTEST_ARGS)

bench: install
	$(BIN)/python bench/review_speed.py

# Regenerate docs/configuration.md, docs/cli.md, docs/rules/ and the component reference block of
# docs/components.md from the code (tests/test_docs.py checks them).
docs: install
	$(BIN)/python tools/gen_docs.py --write

# The newest releases of every dependency (constraints.txt not applied) in $(LATEST_VENV), then the suite.
# Prints the SDK versions, the SDK patches that switched off and why, and the start-up canary, before
# and after the tests; fails when the suite fails. PYTEST_ARGS='-m "not slow"' for a quicker run.
latest:
	$(PYTHON) -m venv $(LATEST_VENV)
	$(LATEST_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(LATEST_VENV)/bin/python -m pip install --quiet --upgrade --upgrade-strategy eager -e '.[test]'
	$(LATEST_VENV)/bin/python tools/sdk_report.py
	status=0; $(LATEST_VENV)/bin/python -m pytest $(PYTEST_ARGS) || status=$$?; \
	$(LATEST_VENV)/bin/python tools/sdk_report.py; exit $$status

clean:
	rm -rf $(VENV) $(LATEST_VENV) build dist *.egg-info
