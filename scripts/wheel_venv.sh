#!/usr/bin/env bash
# A clean Python 3.12 virtualenv with the wheel in dist/ installed the way a user tries a fleet in their own Airflow
# (docs/installation.md, "Try a fleet with airflow dags test"): the provider with its openlineage, statsd and sim
# extras under the given constraint files, nothing else. For the first-run test on each Airflow minor
# (tests/e2e/test_first_run.py; `make e2e`), after `make package` has built the wheel.
#
#   scripts/wheel_venv.sh VENV CONSTRAINTS...
#
#   scripts/wheel_venv.sh build/venv-3.2 requirements/mwaa/airflow-3.2.1-constraints.txt \
#       requirements/mwaa/airflow-3.2.1-mwaa-essential-constraints.txt
#
# WHEEL names the wheel (default: the one in dist/). An existing virtualenv there is replaced. Prints the Airflow it
# holds; exits non-zero when the install fails.
set -euo pipefail
cd "$(dirname "$0")/.."
unset PYTHONPATH
venv="${1:?usage: scripts/wheel_venv.sh VENV CONSTRAINTS...}"
shift
[ "$#" -gt 0 ] || { echo "give the constraint files to install under" >&2; exit 2; }
wheel="${WHEEL:-$(ls "$PWD"/dist/airflow_provider_sagemaker_fleet-*.whl 2>/dev/null | head -1)}"
[ -n "$wheel" ] && [ -f "$wheel" ] || { echo "no wheel (${wheel:-dist/ is empty}): run make package first" >&2; exit 1; }
wheel="$(cd "$(dirname "$wheel")" && pwd)/$(basename "$wheel")"
python="${PACKAGE_PYTHON:-$(scripts/pythons.sh find 3.12)}"
uv="${UV:-.venv/bin/uv}"
constraints=()
for file in "$@"; do
  [ -f "$file" ] || { echo "no constraints file $file" >&2; exit 1; }
  constraints+=(-c "$file")
done
rm -rf "$venv"
"$uv" venv --quiet --python "$python" "$venv"
"$uv" pip install --quiet --compile-bytecode --python "$venv/bin/python" "${constraints[@]}" \
  "airflow-provider-sagemaker-fleet[openlineage,statsd,sim] @ file://$wheel"
"$uv" pip check --quiet --python "$venv/bin/python"
echo "$venv: Airflow $("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("apache-airflow"))'), $(basename "$wheel")"
