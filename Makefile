# The README's two commands: `make demo` and `make test`. Both build .venv from the pinned set first.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
UV_VERSION := 0.13.8
PIP_AUDIT_VERSION := 2.10.1
# Supported: Python 3.11 (the default, the one the end-to-end runs use), 3.12 and 3.13, each with its own pinned set
# of Airflow 3.3; and Airflow 3.0.6 to 3.3. `make test` runs the unit and integration tests that touch Airflow on
# every Airflow minor and every Python (scripts/pythons.sh): .venv (Python 3.11, Airflow 3.3) and SUITES beside it —
# Airflow 3.0.6 and 3.2.1 exactly as Amazon MWAA pins them (Python 3.12, requirements/mwaa/), 3.1 on Python 3.13.
PYTHONS := 3.11 3.12 3.13
SUITES ?= af3.0 af3.1 af3.2
# Airflow 3.2.1 (Python 3.12, as 3.0.6) and 3.1 (Python 3.13) run the tests that touch Airflow or its providers; the
# pure core's — spec, plan, dispatch, simulator, cost, registry — run on 3.11 (.venv) and on 3.12 in af3.0, the
# Python and the oldest Airflow MWAA runs. Four whole suites side by side took 1,513 s of a 2-core machine's wall
# clock from a fresh clone (2026-12-07), most of it the pure core run twice more than needed.
AIRFLOW_TESTS := tests/unit/airflow tests/unit/cli tests/unit/dags tests/unit/fleetview tests/unit/links \
	tests/unit/observability tests/unit/plugin tests/unit/provider tests/unit/runnote tests/unit/testing \
	tests/integration/preflight tests/integration/airflow tests/integration/cli tests/integration/fleetview
export SUITE_ARGS_af3_2 := $(AIRFLOW_TESTS)
export SUITE_ARGS_af3_1 := $(AIRFLOW_TESTS)
# The package check's clean virtualenv (the wheel under MWAA 3.0.6's constraints) and its Airflow home; and for
# `make package-others`, the one where the wheel is installed under the latest Airflow 3.3.
PACKAGE_VENV ?= $(CURDIR)/build/package-venv
PACKAGE_AIRFLOW_HOME ?= $(CURDIR)/build/package-home
LATEST_VENV ?= $(CURDIR)/build/package-venv-latest
LATEST_AIRFLOW_HOME ?= $(CURDIR)/build/package-home-latest
# The first run of docs/installation.md is tried from the wheel on Airflow 3.0.6 and 3.2.1 (MWAA's constraints) and
# the latest 3.3, each in a virtualenv of its own.
FIRST_RUN_VENV_30 ?= $(CURDIR)/build/first-run-venv-3.0
FIRST_RUN_VENV_32 ?= $(CURDIR)/build/first-run-venv-3.2
FIRST_RUN_VENV_33 ?= $(CURDIR)/build/first-run-venv-3.3
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

.PHONY: install test suites test-py lint typecheck audit unit e2e demo demo-stop constraints clean package package-others

# Every third-party package comes from the pinned set and must match one of its hashes (--require-hashes: a package
# without a hash, or whose download hashes otherwise, is refused); then the project itself, editable, with no
# dependency of its own resolved (--no-deps) and built by the set's setuptools (--no-build-isolation: no build
# requirement downloaded unchecked); `uv pip check` fails when pyproject.toml wants a package the set lacks (run
# `make constraints`). uv itself is installed by hash too (requirements/uv.txt).
$(STAMP): pyproject.toml $(CONSTRAINTS) requirements/uv.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info[:2] in ((3, 11), (3, 12), (3, 13)) else "Python 3.11, 3.12 or 3.13 is required (found %s); set PYTHON=/path/to/python3.11" % sys.version.split()[0])'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --require-hashes -r requirements/uv.txt
	$(BIN)/uv pip install --python $(BIN)/python --quiet --compile-bytecode --require-hashes -r $(CONSTRAINTS)
	$(BIN)/uv pip install --python $(BIN)/python --quiet --no-deps --no-build-isolation -e .
	$(BIN)/uv pip check --python $(BIN)/python --quiet
	@touch $(STAMP)

install: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check provider tests benchmarks dags scripts
	$(BIN)/ruff format --check provider tests benchmarks dags scripts
	$(BIN)/lint-imports --no-cache
	$(BIN)/python scripts/docs_reference.py --check

typecheck: $(STAMP)
	$(BIN)/mypy

# The pinned sets against known vulnerabilities (scripts/audit_pins.py): the advisories and the exceptions MWAA's
# pins impose (requirements/audit-exceptions.toml), then pip-audit against the index's advisory data, every distinct
# pin once (~30 s, waiting on the index; beside the suites in `make test`). pip-audit gets its own virtualenv,
# installed by hash. AUDIT_ARGS=--require-data makes an index without advisory data a failure.
AUDIT_VENV := build/audit-venv
AUDIT_ARGS ?=
$(AUDIT_VENV)/.installed: requirements/audit-py3.11.txt $(STAMP)
	$(BIN)/uv venv --quiet --allow-existing --python $(BIN)/python $(AUDIT_VENV)
	$(BIN)/uv pip install --python $(AUDIT_VENV)/bin/python --quiet --require-hashes -r requirements/audit-py3.11.txt
	@touch $@

audit: $(AUDIT_VENV)/.installed
	$(BIN)/python scripts/audit_pins.py --pip-audit $(AUDIT_VENV)/bin/pip-audit --cache-dir build/pip-audit-cache \
		$(AUDIT_ARGS)

unit: $(STAMP)
	$(BIN)/pytest tests/unit -q $(PYTEST_ARGS)

# Lint, types and the audit of the pinned sets beside the unit and integration tests on every Airflow minor (`make
# suites`; lint and mypy alone kept the 2 cores busy for ~2 minutes before the suites started); then the end-to-end
# runs (`make e2e`).
test: $(STAMP)
	@$(MAKE) --no-print-directory lint typecheck audit > build-checks.log 2>&1 & checks=$$!; rc=0; \
	$(MAKE) --no-print-directory suites || rc=$$?; \
	wait $$checks || { rc=1; }; echo "== lint, types and the audit"; cat build-checks.log; rm -f build-checks.log; \
	[ $$rc = 0 ] || exit $$rc
	@$(MAKE) --no-print-directory e2e

# The end-to-end runs of real Airflow (on the default Python and Airflow 3.3), two stacks at once (the LocalExecutor
# run beside the Celery run and the browser scenarios: tests/e2e, their xdist groups). Each mostly waits on its
# simulated clock (two stacks together kept 2 cores 34 % busy); three at once were too many. Beside them: the wheel,
# built once, then at once `make package` (the wheel checked and smoke-tested under MWAA 3.0.6's constraints) and
# the first run of docs/installation.md, word for word, from that wheel on Airflow 3.0.6 and 3.2.1 (MWAA's
# constraints) and the latest 3.3, each in a virtualenv (scripts/wheel_venv.sh) and a network namespace of its own
# (scripts/first_run_test.sh). Each Airflow runs the first run and the checks of it; the scenarios after it go to
# one Airflow each: the Fleet view in Chromium on 3.0 (its own page) and 3.3 (the run's tab), SIGTERM and the same
# date again on 3.2, the conf contract on 3.3.
FIRST_RUN_WHEEL := $(CURDIR)/build/first-run-wheel
e2e: $(STAMP)
	@mkdir -p build
	@rm -rf $(FIRST_RUN_WHEEL) && $(BIN)/uv build --quiet --wheel --out-dir $(FIRST_RUN_WHEEL) . && \
	( wheel=$$(ls $(FIRST_RUN_WHEEL)/*.whl); \
	  PACKAGE_VENV=$(PACKAGE_VENV) PACKAGE_AIRFLOW_HOME=$(PACKAGE_AIRFLOW_HOME) scripts/package_check.sh \
	    > build/package.log 2>&1 & p=$$!; \
	  ( WHEEL=$$wheel scripts/wheel_venv.sh $(FIRST_RUN_VENV_30) $(MWAA)/airflow-3.0.6-constraints.txt \
	      $(MWAA)/airflow-3.0.6-mwaa-essential-constraints.txt && \
	    scripts/first_run_test.sh $(FIRST_RUN_VENV_30)/bin/airflow -k "not sigterm and not conf_" ) \
	    > build/first-run-3.0.log 2>&1 & a=$$!; \
	  ( WHEEL=$$wheel scripts/wheel_venv.sh $(FIRST_RUN_VENV_32) $(MWAA)/airflow-3.2.1-constraints.txt \
	      $(MWAA)/airflow-3.2.1-mwaa-essential-constraints.txt && \
	    scripts/first_run_test.sh $(FIRST_RUN_VENV_32)/bin/airflow -k "not fleet_view and not conf_" ) \
	    > build/first-run-3.2.log 2>&1 & b=$$!; \
	  ( WHEEL=$$wheel scripts/wheel_venv.sh $(FIRST_RUN_VENV_33) requirements/constraints-py3.12.txt && \
	    scripts/first_run_test.sh $(FIRST_RUN_VENV_33)/bin/airflow -k "not sigterm" ) \
	    > build/first-run-3.3.log 2>&1 & c=$$!; \
	  rc=0; wait $$p || rc=1; wait $$a || rc=1; wait $$b || rc=1; wait $$c || rc=1; cat build/package.log; \
	  for v in 3.0 3.2 3.3; do echo "== the first run from the wheel on Airflow $$v"; cat build/first-run-$$v.log; done; \
	  exit $$rc ) > build/package-and-first-run.log 2>&1 & beside=$$!; rc=0; \
	$(BIN)/pytest -q -m e2e -n 2 --dist loadgroup --ignore=tests/e2e/test_first_run.py $(PYTEST_ARGS) || rc=$$?; \
	wait $$beside || rc=1; \
	echo "== the package, and the first run of docs/installation.md from its wheel on Airflow 3.0.6, 3.2.1 and 3.3"; \
	cat build/package-and-first-run.log; exit $$rc

# Unit and integration tests in $(WORKERS) workers on .venv, and at the same time the same in each of $(SUITES)
# (scripts/pythons.sh: each its own virtualenv, built first if needed, two workers each), side by side, their output
# printed when they end. One suite after the other left the cores idle (3.11 alone: 224 s of CPU in 235 s, 2 cores
# 48 % busy); three at once took 490 s (684 s of CPU, 70 % busy) on the shared 2-core machine.
suites: $(STAMP)
	WORKERS=2 scripts/pythons.sh side-by-side "$(SUITES)" $(PYTEST_ARGS) & others=$$!; rc=0; \
	$(BIN)/pytest -q -n $(WORKERS) --dist worksteal -m "not e2e" $(PYTEST_ARGS) || rc=$$?; \
	wait $$others || rc=1; exit $$rc

# The unit and integration tests in one other suite: make test-py PY=af3.0 (af3.1, af3.2; or 3.12, 3.13: Airflow 3.3)
test-py:
	WORKERS=$(WORKERS) scripts/pythons.sh test $(PY) $(PYTEST_ARGS)

demo: $(STAMP)
	$(BIN)/python scripts/demo.py

demo-stop:
	@$(BIN)/python scripts/demo.py --stop

# Regenerate the pinned install sets: Airflow 3.3 on each supported Python, and one per older Airflow minor —
# 3.0.6 and 3.2.1 inside Amazon MWAA's own constraints (requirements/mwaa/, copied unchanged from MWAA's images), 3.1
# at its latest release —, the Docker image's (inside the 3.11 set), uv, and the audit's pip-audit. Existing pins are kept unless a dependency change needs
# another version; every pin carries the hashes of its files on the index (--generate-hashes), which the installs
# require.
COMPILE := $(BIN)/uv pip compile pyproject.toml --extra dev --quiet --no-emit-package airflow-provider-sagemaker-fleet \
	--generate-hashes --custom-compile-command "make constraints"
MWAA := requirements/mwaa
constraints: $(STAMP)
	@for v in $(PYTHONS); do \
		$(COMPILE) --python-version $$v -o requirements/constraints-py$$v.txt || exit 1; \
	done
	$(COMPILE) --python-version 3.12 -c $(MWAA)/airflow-3.0.6-constraints.txt \
		-c $(MWAA)/airflow-3.0.6-mwaa-essential-constraints.txt -o requirements/airflow-3.0-py3.12.txt
	$(COMPILE) --python-version 3.12 -c $(MWAA)/airflow-3.2.1-constraints.txt \
		-c $(MWAA)/airflow-3.2.1-mwaa-essential-constraints.txt -o requirements/airflow-3.2-py3.12.txt
	$(COMPILE) --python-version 3.13 -c requirements/airflow-3.1.txt -o requirements/airflow-3.1-py3.13.txt
	$(BIN)/uv pip compile pyproject.toml requirements/image.in --extra sim --quiet --generate-hashes \
		--no-emit-package airflow-provider-sagemaker-fleet --python-version 3.11 -c requirements/constraints-py3.11.txt \
		--custom-compile-command "make constraints" -o requirements/image-py3.11.txt
	echo "uv==$(UV_VERSION)" | $(BIN)/uv pip compile - --quiet --generate-hashes \
		--custom-compile-command "make constraints" -o requirements/uv.txt
	echo "pip-audit==$(PIP_AUDIT_VERSION)" | $(BIN)/uv pip compile - --quiet --generate-hashes --python-version 3.11 \
		--custom-compile-command "make constraints" -o requirements/audit-py3.11.txt

# Build the sdist and the wheel into dist/ and smoke-test the wheel in a clean Python 3.12 virtualenv as Amazon MWAA
# installs it, under its Airflow 3.0.6 constraints (scripts/package_check.sh says what it checks and how to reuse
# its virtualenv and AIRFLOW_HOME).
package:
	PACKAGE_VENV=$(PACKAGE_VENV) PACKAGE_AIRFLOW_HOME=$(PACKAGE_AIRFLOW_HOME) scripts/package_check.sh

# The wheel's smoke test (every module imported, the plugin loaded, the DAGs parsed) under MWAA 3.2.1's constraints
# and under the latest Airflow 3.3 (requirements/constraints-py3.12.txt), before a release; `make e2e` runs the first
# run of docs/installation.md from the wheel on both (and on 3.0.6) in every test run.
package-others: $(STAMP)
	PACKAGE_MWAA_VERSION=3.2.1 PACKAGE_VENV=$(CURDIR)/build/package-venv-3.2 \
	  PACKAGE_AIRFLOW_HOME=$(CURDIR)/build/package-home-3.2 PACKAGE_OFFLINE=1 scripts/package_check.sh
	PACKAGE_CONSTRAINTS=requirements/constraints-py3.12.txt PACKAGE_VENV=$(LATEST_VENV) \
	  PACKAGE_AIRFLOW_HOME=$(LATEST_AIRFLOW_HOME) PACKAGE_OFFLINE=1 scripts/package_check.sh

clean:
	rm -rf $(VENV) .venv-py3.* .venv-af3.* build .pytest_cache .mypy_cache .ruff_cache
