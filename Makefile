# The two commands in the README. Each sets itself up on a fresh machine.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: install preview test lint bench docs clean

$(BIN)/amlkit-installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

install: $(BIN)/amlkit-installed

# Offline preview and policy review of every sample stack in stacks/.
preview: install
	$(BIN)/amlkit preview

lint: install
	$(BIN)/ruff check .

test: lint
	$(BIN)/python -m pytest

bench: install
	$(BIN)/python bench/review_speed.py

# Regenerate docs/configuration.md, docs/cli.md, docs/rules/ and the component reference block of
# docs/components.md from the code (tests/test_docs.py checks them).
docs: install
	$(BIN)/python tools/gen_docs.py --write

clean:
	rm -rf $(VENV) build dist *.egg-info
