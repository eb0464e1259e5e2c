# quizzer: `make run` opens the app, `make test` runs the whole suite. Both set up .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-slow check lint typecheck bench crosscheck readme-table screenshot reference clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# pip >= 25.1 reads [dependency-groups] (PEP 735); the stamp reinstalls when pyproject changes.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade "pip>=25.1"
	$(BIN)/python -m pip install --quiet -e . --group dev
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/quizzer

# CI=true selects the ci Hypothesis profile (tests/conftest.py). test-slow runs what test leaves out.
test: $(STAMP)
	$(BIN)/python -m pytest -n auto --dist worksteal -q -m "not slow" $(if $(CI),--hypothesis-profile=ci)

test-slow: $(STAMP)
	$(BIN)/python -m pytest -n auto --dist worksteal -q -m slow $(if $(CI),--hypothesis-profile=ci)

# ruff (format, then lint), import-linter (the layer contracts in pyproject.toml), then mypy.
lint: $(STAMP)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-cache
	$(BIN)/mypy

# mypy alone (strict below the TUI; the configuration is in pyproject.toml).
typecheck: $(STAMP)
	$(BIN)/mypy

check: lint test

bench: $(STAMP)
	$(BIN)/python tests/bench/run.py

# Instantiates every preset with transformers on the meta device (needs torch + transformers, see README).
crosscheck: $(STAMP)
	@$(BIN)/python -c "import torch, transformers" 2>/dev/null || { \
	  echo "make crosscheck needs torch and transformers in .venv:"; \
	  echo "  $(BIN)/pip install torch==2.13.0 && $(BIN)/pip install transformers==4.57.6"; exit 1; }
	$(BIN)/python -m pytest -q -p no:xdist tests/crosscheck

# The "What you can practise" table in README.md, generated from the bank (a test checks it is current).
readme-table: $(STAMP)
	@$(BIN)/quizzer list --markdown

# The README's screenshot of a drill's feedback, taken by the app itself.
screenshot: $(STAMP)
	$(BIN)/python tests/tui/screenshot.py

# Refreshes tests/data/reference/ from ../shared/reference/ (or QUIZZER_REFERENCE_DIR) where that folder exists.
reference:
	$(PYTHON) tests/data/refresh_reference.py

clean:
	rm -rf $(VENV)
