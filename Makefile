# Two commands do all set-up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install demo test lint typecheck unit docs docs-build bench clean

# make demo installs what the quickstart uses: the library, the CLI and `sectio serve`
# (the [server] extra); no test, docs or benchmark tools.
DEMO_STAMP := $(VENV)/.installed-demo

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP) $(DEMO_STAMP)

$(DEMO_STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q -e '.[server]'
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

# One worker per core; a module's tests (a class's, in a class) on one worker, so its
# module fixtures are built once. The source is compiled first: the suite starts hundreds
# of `sectio` processes, and where PYTHONDONTWRITEBYTECODE is set (this project's machines
# set it) each would compile it again (~0.2 s a process).
unit: $(STAMP)
	$(BIN)/python -m compileall -q src
	$(BIN)/pytest -n auto --dist loadscope

# The documentation site (mkdocs.yml): `make docs` serves it at http://127.0.0.1:8000 with
# live reload; `make docs-build` builds it offline with --strict (a dead link, a missing
# page or a broken reference fails), as `make test` does.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve

docs-build: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

test: lint typecheck docs-build unit

clean:
	rm -rf $(VENV) .sectio .sectio-demo .pytest_cache .mypy_cache .ruff_cache site
