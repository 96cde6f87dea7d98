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

# Regenerate the configuration and rule references (README.md) and the component reference
# (docs/components.md) between their GENERATED markers.
docs: install
	$(BIN)/python -m amlkit.docs --write README.md
	$(BIN)/python -m amlkit.docs --write docs/components.md

clean:
	rm -rf $(VENV) build dist *.egg-info
