# The README's two commands: `make demo` and `make test`. Both build .venv from the pinned set first.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
UV_VERSION := 0.13.8
CONSTRAINTS := requirements/constraints-py3.11.txt
STAMP := $(VENV)/.installed
PYTEST_ARGS ?=

.PHONY: install test lint typecheck unit demo demo-stop constraints clean

$(STAMP): pyproject.toml $(CONSTRAINTS)
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else "Python 3.11 is required (found %s); set PYTHON=/path/to/python3.11" % sys.version.split()[0])'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check "uv==$(UV_VERSION)"
	$(BIN)/uv pip install --python $(BIN)/python --quiet -c $(CONSTRAINTS) -e ".[dev]"
	@touch $(STAMP)

install: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check provider tests benchmarks dags scripts

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest tests/unit -q $(PYTEST_ARGS)

# Unit and integration tests on both cores, then the end-to-end runs of real Airflow one at a time.
test: lint typecheck
	$(BIN)/pytest -q -n 2 -m "not e2e" $(PYTEST_ARGS)
	$(BIN)/pytest -q -m e2e $(PYTEST_ARGS)

demo: $(STAMP)
	$(BIN)/python scripts/demo.py

demo-stop:
	@$(BIN)/python scripts/demo.py --stop

# Regenerate the pinned install set (Airflow's upstream constraints file cannot be downloaded here).
constraints:
	$(BIN)/uv pip compile pyproject.toml --extra dev --python-version 3.11 \
		--no-emit-package airflow-provider-sagemaker-fleet --custom-compile-command "make constraints" \
		-o $(CONSTRAINTS)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
