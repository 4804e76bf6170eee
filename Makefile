# Two commands do all set-up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install demo test lint typecheck unit bench clean

# make demo needs the library and CLI only (no server, test or benchmark tools).
DEMO_STAMP := $(VENV)/.installed-demo

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP) $(DEMO_STAMP)

$(DEMO_STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q -e .
	touch $(DEMO_STAMP)

install: $(STAMP)

demo: $(DEMO_STAMP)
	SECTIO_HOME=$${SECTIO_HOME:-.sectio-demo} $(BIN)/sectio demo

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks tools
	$(BIN)/ruff format --check src tests benchmarks tools
	$(BIN)/lint-imports --no-cache
	$(BIN)/python tools/function_length.py

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest

test: lint typecheck unit

clean:
	rm -rf $(VENV) .sectio .sectio-demo .pytest_cache .mypy_cache .ruff_cache
