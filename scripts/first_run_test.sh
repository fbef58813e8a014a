#!/usr/bin/env bash
# tests/e2e/test_first_run.py with the Airflow at $1 (the block of docs/installation.md runs with that airflow first
# on PATH), in a network namespace of its own when this user may make one (`unshare --net`, root in CI): the page's
# simulator listens on its fixed port, so the first run of several Airflows can go at once, beside other tests.
# Without one (a laptop), the port must be free. Extra arguments go to pytest.
#
#   scripts/first_run_test.sh build/first-run-venv-3.2/bin/airflow
set -euo pipefail
cd "$(dirname "$0")/.."
airflow="${1:?usage: scripts/first_run_test.sh AIRFLOW [pytest args]}"
shift
run=(env "SAGEMAKER_FLEET_DAGS_TEST_AIRFLOW=$airflow" .venv/bin/pytest -q -m e2e tests/e2e/test_first_run.py
  -p no:cacheprovider "$@")
if unshare --net true 2>/dev/null; then
  exec unshare --net bash -c 'ip link set lo up && exec "$@"' first-run "${run[@]}"
fi
exec "${run[@]}"
