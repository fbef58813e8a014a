# The README's two commands: `make demo` and `make test`. Both build .venv from the pinned set first.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
UV_VERSION := 0.13.8
# Supported: 3.11 (the default, the one the end-to-end runs use), 3.12 and 3.13, each with its own pinned set.
PYTHONS := 3.11 3.12 3.13
OTHER_PYTHONS ?= 3.12 3.13
PY_VERSION := $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
CONSTRAINTS := requirements/constraints-py$(PY_VERSION).txt
STAMP := $(VENV)/.installed
PYTEST_ARGS ?=
# Workers for the unit and integration tests: they wait on sockets and sub-processes more than they compute
# (two workers kept 2 cores 62 % busy), so three finish sooner on a 2-core machine. They take tests by work
# stealing (--dist worksteal): xdist's default hands each worker a quarter of the suite round-robin up front, and
# the worker dealt most of the slow integration tests ran on alone for the last ~2 minutes (3.11: 361 s, 235 s;
# 3.12 and 3.13 side by side: 450 s, 331 s).
WORKERS ?= 3

# Python caches compiled modules (__pycache__) unless PYTHONDONTWRITEBYTECODE is set, as it is on some CI images:
# then every process — each Airflow component, each test worker — compiles every module it imports from source
# again (`import airflow` and the Amazon provider: 6.0 s instead of 2.9 s of CPU). The install compiles the
# virtualenv once (uv's --compile-bytecode) and the targets below let Python cache the project's own modules.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: install test suites test-py lint typecheck unit demo demo-stop constraints clean

$(STAMP): pyproject.toml $(CONSTRAINTS)
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info[:2] in ((3, 11), (3, 12), (3, 13)) else "Python 3.11, 3.12 or 3.13 is required (found %s); set PYTHON=/path/to/python3.11" % sys.version.split()[0])'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check "uv==$(UV_VERSION)"
	$(BIN)/uv pip install --python $(BIN)/python --quiet --compile-bytecode -c $(CONSTRAINTS) -e ".[dev]"
	@touch $(STAMP)

install: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check provider tests benchmarks dags scripts
	$(BIN)/ruff format --check provider tests benchmarks dags scripts
	$(BIN)/lint-imports --no-cache

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest tests/unit -q $(PYTEST_ARGS)

# The unit and integration tests (`make suites`); then the end-to-end runs of real Airflow (on the default Python), two
# stacks at once: the LocalExecutor run beside the Celery run and the browser scenarios (tests/e2e: their xdist
# groups). Each mostly waits on its simulated clock (two stacks together kept 2 cores 34 % busy); three at once were
# too many, and the other Pythons' suites beside them failed the end-to-end and timing-bound integration tests.
test: lint typecheck suites
	$(BIN)/pytest -q -m e2e -n 2 --dist loadgroup $(PYTEST_ARGS)

# Unit and integration tests in $(WORKERS) workers, and at the same time the same on the other supported Pythons (each
# in .venv-py<version>, built first if needed), side by side, two workers each, their output printed when they end.
# One suite after the other left the cores idle (3.11 alone: 224 s of CPU in 235 s, 2 cores 48 % busy): 235 s then
# 331 s side by side, 566 s in all; all three at once took 490 s (3.11 in 382 s, 3.12 in 487 s, 3.13 in 462 s; 684 s
# of CPU, 70 % busy), measured on the shared 2-core machine with an end-to-end run of another checkout beside them;
# 376 s with the machine to themselves (3.11 in 295 s, 3.12 in 374 s, 3.13 in 364 s).
suites: $(STAMP)
	WORKERS=2 scripts/pythons.sh side-by-side "$(OTHER_PYTHONS)" $(PYTEST_ARGS) & others=$$!; rc=0; \
	$(BIN)/pytest -q -n $(WORKERS) --dist worksteal -m "not e2e" $(PYTEST_ARGS) || rc=$$?; \
	wait $$others || rc=1; exit $$rc

# The unit and integration tests on one other Python: make test-py PY=3.13
test-py:
	WORKERS=$(WORKERS) scripts/pythons.sh test $(PY) $(PYTEST_ARGS)

demo: $(STAMP)
	$(BIN)/python scripts/demo.py

demo-stop:
	@$(BIN)/python scripts/demo.py --stop

# Regenerate the pinned install sets, one per supported Python (Airflow's upstream constraints files cannot be
# downloaded here). Existing pins are kept unless a dependency change needs another version.
constraints: $(STAMP)
	@for v in $(PYTHONS); do \
		$(BIN)/uv pip compile pyproject.toml --extra dev --python-version $$v --quiet \
			--no-emit-package airflow-provider-sagemaker-fleet --custom-compile-command "make constraints" \
			-o requirements/constraints-py$$v.txt || exit 1; \
	done

clean:
	rm -rf $(VENV) .venv-py3.* .pytest_cache .mypy_cache .ruff_cache
