# quizzer: `make run` opens the app, `make test` runs the whole suite. Both set up .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test check lint bench crosscheck clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# pip >= 25.1 reads [dependency-groups] (PEP 735); the stamp reinstalls when pyproject changes.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade "pip>=25.1"
	$(BIN)/python -m pip install --quiet -e . --group dev
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/quizzer --help

test: $(STAMP)
	$(BIN)/python -m pytest -n auto -q

lint: $(STAMP)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .

check: lint test

bench: $(STAMP)
	$(BIN)/python tests/bench/run.py

# Instantiates every preset with transformers on the meta device (needs torch + transformers, see README).
crosscheck: $(STAMP)
	$(BIN)/python -m pytest -q -m crosscheck tests/crosscheck -p no:randomly

clean:
	rm -rf $(VENV)
