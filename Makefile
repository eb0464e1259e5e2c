# quizzer: `make run` opens the app, `make test` runs the whole suite. Both set up .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run serve test test-slow test-browser check lint typecheck bench crosscheck readme-table screenshot reference clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# pip >= 25.1 reads [dependency-groups] (PEP 735); the stamp reinstalls when pyproject changes. The extras
# come too: make test drives `quizzer serve` (serve), writes and reads back a deck (anki) and talks to the
# MCP server through the SDK's client (mcp).
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade "pip>=25.1"
	$(BIN)/python -m pip install --quiet -e ".[serve,anki,mcp]" --group dev
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/quizzer

# The app in a browser at http://127.0.0.1:8000 (the stamp installs the serve extra); Ctrl+C stops it.
# Options go in SERVE_ARGS, e.g. make serve SERVE_ARGS="--port 8001 --open".
SERVE_ARGS ?=
serve: $(STAMP)
	$(BIN)/quizzer serve $(SERVE_ARGS)

# CI=true selects the ci Hypothesis profile (tests/conftest.py). test-slow runs what test leaves out.
# The suite writes bytecode even where PYTHONDONTWRITEBYTECODE is set: each of its xdist workers and every
# `quizzer` it starts would otherwise compile every module again, and pytest rewrite every test module's
# asserts (4 s of each worker's start); __pycache__ is ignored by git.
TEST_ENV := PYTHONDONTWRITEBYTECODE=
test: $(STAMP)
	$(TEST_ENV) $(BIN)/python -m pytest -n auto --dist worksteal -q -m "not slow and not browser" $(if $(CI),--hypothesis-profile=ci)

test-slow: $(STAMP)
	$(TEST_ENV) $(BIN)/python -m pytest -n auto --dist worksteal -q -m slow $(if $(CI),--hypothesis-profile=ci)

# The real-browser test (tests/browser): headless Chromium from Debian's packages, driven by selenium through
# Debian's chromedriver; installs both with apt-get when missing (as root) and fails, saying why, if it cannot.
# It never skips: no browser is a failure. It saves docs/browser.png, the README's picture.
BROWSER_STAMP := $(VENV)/.browser-installed
$(BROWSER_STAMP): pyproject.toml $(STAMP)
	$(BIN)/python -m pip install --quiet --group browser
	touch $(BROWSER_STAMP)

test-browser: $(BROWSER_STAMP)
	@if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then \
	  if [ "$$(id -u)" != 0 ]; then \
	    echo "make test-browser: FAILED: /usr/bin/chromium or /usr/bin/chromedriver is missing, and installing" \
	      "them needs root: apt-get install chromium chromium-driver"; exit 1; fi; \
	  echo "make test-browser: installing chromium and chromium-driver with apt-get"; \
	  apt-get update -qq || { echo "make test-browser: FAILED: apt-get update did not work"; exit 1; }; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null || { \
	    echo "make test-browser: FAILED: apt-get could not install chromium and chromium-driver"; exit 1; }; \
	fi
	$(BIN)/python -m pytest -p no:xdist -q -m browser tests/browser

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

# Speed against baselines of the same run; exits non-zero only when a row is over its budget. Its tmux row
# installs tmux with apt-get when it is missing (as root), else prints that row as not measured.
bench: $(STAMP)
	$(BIN)/python tests/bench/run.py

# Instantiates every preset with transformers on the meta device: the types up to 2025 with transformers 4.57
# in .venv (install it there, see CONTRIBUTING.md), the types of 2025-26 with transformers 5.23 in .venv-tf5, which
# this makes on first use (torch 2.13.0 CPU, then transformers 5.23.0 and the project).
TF5 := .venv-tf5
$(TF5)/.installed: pyproject.toml
	$(PYTHON) -m venv $(TF5)
	$(TF5)/bin/python -m pip install --quiet --upgrade "pip>=25.1"
	$(TF5)/bin/python -m pip install --quiet torch==2.13.0
	$(TF5)/bin/python -m pip install --quiet transformers==5.23.0 -e ".[serve]" --group dev
	touch $@

crosscheck: $(STAMP) $(TF5)/.installed
	@$(BIN)/python -c "import torch, transformers" 2>/dev/null || { \
	  echo "make crosscheck needs torch and transformers in .venv:"; \
	  echo "  $(BIN)/pip install torch==2.13.0 && $(BIN)/pip install transformers==4.57.6"; exit 1; }
	$(BIN)/python -m pytest -q -p no:xdist tests/crosscheck/test_transformers.py
	$(TF5)/bin/python -m pytest -q -p no:xdist tests/crosscheck/test_transformers5.py

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
