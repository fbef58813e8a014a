#!/usr/bin/env bash
# Build the sdist and the wheel and smoke-test the wheel as a user on Amazon MWAA installs it (`make package`; CI).
#
#   1. build both with uv into dist/ (git-ignored; this package's earlier builds there are removed first),
#   2. check their metadata and file lists against pyproject.toml (scripts/package_metadata.py: name, version,
#      Requires-Python, Requires-Dist with the extras, classifiers, license, URLs, entry points, the package data,
#      no tests) and `twine check --strict` (the long description renders on PyPI),
#   3. install the wheel (not editable) with [openlineage,statsd] into a clean Python 3.12 virtualenv under MWAA
#      $PACKAGE_MWAA_VERSION's two constraint files, nothing else, and `uv pip check` it,
#   4. smoke-test it there with a throw-away AIRFLOW_HOME (SQLite, migrated) and dags/ as the DAG folder
#      (scripts/package_smoke.py): Airflow lists the provider and its version, the plugin loads, the DAGs parse
#      with no import error, every module imports, `sagemaker-fleet --version`, and `sim serve` without the
#      sim extra says which extra to install,
#   5. resolve the package with its openlineage and statsd extras inside every MWAA constraint set under
#      requirements/mwaa/ (both files of each version) on Python 3.12: needs PyPI; started after the build, it
#      runs beside steps 2-4 and is reported last.
#
# Prints each check; exits non-zero when any fails (all are still run and reported).
#
# Environment (all optional):
#   PACKAGE_VENV          the smoke virtualenv (default /tmp/sagemaker-fleet-package-venv), re-created each run
#   PACKAGE_AIRFLOW_HOME  its AIRFLOW_HOME (default /tmp/sagemaker-fleet-package-home), re-created each run; holds
#                         airflow.cfg, the migrated SQLite airflow.db and env.sh
#   PACKAGE_MWAA_VERSION  the MWAA constraint set the venv is installed under (default 3.0.6)
#   PACKAGE_CONSTRAINTS   constraint files to install under instead (space-separated), e.g.
#                         requirements/constraints-py3.12.txt: the latest Airflow 3.3 as this repository pins it
#   PACKAGE_PYTHON        the interpreter of the venv and the checks (default: scripts/pythons.sh find 3.12)
#   PACKAGE_OFFLINE=1     skip step 5 (the only step that needs PyPI when uv's cache is warm)
#   UV                    the uv to use (default: .venv/bin/uv, else uv on PATH, else requirements/uv.txt's uv,
#                         installed by hash into /tmp/sagemaker-fleet-package-uv)
#
# Hashes: an install under PACKAGE_CONSTRAINTS (this repository's pinned sets) checks every package of the set
# against its hashes (uv verifies the hashes of a constraints file); MWAA's constraint files carry none (they are
# MWAA's, copied unchanged), so the default install is checked by version only, as a user's on MWAA is.
#
# Reusing the smoke environment afterwards (e.g. an `airflow dags test` of a fleet DAG): the script leaves the venv
# and the migrated AIRFLOW_HOME in place and writes $PACKAGE_AIRFLOW_HOME/env.sh, which exports PATH (the venv's bin
# first), AIRFLOW_HOME, AIRFLOW__CORE__DAGS_FOLDER and AIRFLOW__CORE__LOAD_EXAMPLES as the smoke test used them:
#
#   scripts/package_check.sh && source /tmp/sagemaker-fleet-package-home/env.sh && airflow dags test ...
set -euo pipefail
cd "$(dirname "$0")/.."
REPO="$(pwd)"
START=$SECONDS
# Python may write its compiled modules: every airflow command below imports the same modules again.
unset PYTHONDONTWRITEBYTECODE PYTHONPATH

DIST_NAME="airflow-provider-sagemaker-fleet"
DIST_DIR="$REPO/dist"
PACKAGE_VENV="${PACKAGE_VENV:-/tmp/sagemaker-fleet-package-venv}"
PACKAGE_AIRFLOW_HOME="${PACKAGE_AIRFLOW_HOME:-/tmp/sagemaker-fleet-package-home}"
PACKAGE_MWAA_VERSION="${PACKAGE_MWAA_VERSION:-3.0.6}"
MWAA_DIR="requirements/mwaa"
failures=()

step() { printf '\n== %s (%ds)\n' "$1" "$((SECONDS - START))"; }
fail() { failures+=("$1"); echo "  FAIL  $1"; }

# A directory this script may empty: absent, empty, or one it made (its marker inside).
reusable_dir() {
  local dir="$1" marker="$2"
  [ ! -e "$dir" ] || [ -e "$dir/$marker" ] || [ -z "$(ls -A "$dir" 2>/dev/null)" ]
}

python="${PACKAGE_PYTHON:-$(scripts/pythons.sh find 3.12 || true)}"
if [ -z "$python" ]; then
  echo "no Python 3.12 interpreter found (scripts/pythons.sh find 3.12); set PACKAGE_PYTHON=/path/to/python3.12" >&2
  exit 1
fi
if [ -z "${UV:-}" ]; then
  if [ -x .venv/bin/uv ]; then
    UV=.venv/bin/uv
  elif command -v uv >/dev/null 2>&1; then
    UV="$(command -v uv)"
  else
    tools=/tmp/sagemaker-fleet-package-uv
    [ -x "$tools/bin/uv" ] || { "$python" -m venv "$tools" &&
      "$tools/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes -r requirements/uv.txt; }
    UV="$tools/bin/uv"
  fi
fi
for dir_marker in "$PACKAGE_VENV:pyvenv.cfg" "$PACKAGE_AIRFLOW_HOME:.sagemaker-fleet-package-home"; do
  if ! reusable_dir "${dir_marker%:*}" "${dir_marker##*:}"; then
    echo "refusing to empty ${dir_marker%:*}: it is not one this script made; pick another path" >&2
    exit 1
  fi
done
if [ -n "${PACKAGE_CONSTRAINTS:-}" ]; then
  read -r -a constraints <<<"$PACKAGE_CONSTRAINTS"
  under="$PACKAGE_CONSTRAINTS"
else
  constraints=("$MWAA_DIR/airflow-$PACKAGE_MWAA_VERSION-constraints.txt"
    "$MWAA_DIR/airflow-$PACKAGE_MWAA_VERSION-mwaa-essential-constraints.txt")
  under="MWAA $PACKAGE_MWAA_VERSION's constraints"
fi
for file in "${constraints[@]}"; do
  [ -f "$file" ] || { echo "no constraints file $file" >&2; exit 1; }
done
# The Airflow the constraints pin: what the smoke test expects to find installed.
expected_airflow="$(grep -h -m1 -E '^apache-airflow==' "${constraints[@]}" | head -1 | cut -d= -f3)"
[ -n "$expected_airflow" ] || { echo "the constraints pin no apache-airflow: ${constraints[*]}" >&2; exit 1; }
echo "package check: $("$python" -V) at $python, $("$UV" --version), under $under (Airflow $expected_airflow)"

# -- 1. build -----------------------------------------------------------------------------------------------------
step "1. build the sdist and the wheel into dist/"
build="$(mktemp -d)"
logs="$(mktemp -d)"
# On an early exit, stop the resolutions this script started (by their ids) before their logs go.
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$build" "$logs"' EXIT
# uv builds the sdist from the tree, then the wheel from the sdist: a file the sdist leaves out is missing from the
# wheel too, as it would be for anyone who installs from the sdist.
"$UV" build --quiet --python "$python" --out-dir "$build" "$REPO" 2>"$logs/build.log" || {
  cat "$logs/build.log"; echo "the build failed" >&2; exit 1; }
mkdir -p "$DIST_DIR"
rm -f "$DIST_DIR"/airflow_provider_sagemaker_fleet-*  # this package's earlier builds; nothing else in dist/
mv "$build"/*.whl "$build"/*.tar.gz "$DIST_DIR"/
wheel="$(ls "$DIST_DIR"/*.whl)"
sdist="$(ls "$DIST_DIR"/*.tar.gz)"
version="$(basename "$wheel" | cut -d- -f2)"
echo "  $(du -h "$sdist" | cut -f1)  $sdist"
echo "  $(du -h "$wheel" | cut -f1)  $wheel"

# -- 5. started now, beside steps 2-4: each resolution mostly waits on PyPI --------------------------------------
resolve_versions=()
if [ "${PACKAGE_OFFLINE:-}" != "1" ]; then
  for file in "$MWAA_DIR"/airflow-*-mwaa-essential-constraints.txt; do
    v="$(basename "$file" | sed -E 's/^airflow-(.+)-mwaa-essential-constraints\.txt$/\1/')"
    resolve_versions+=("$v")
    (rc=0; "$UV" pip compile pyproject.toml --quiet --extra openlineage --extra statsd --python-version 3.12 \
        --no-header --no-annotate -c "$MWAA_DIR/airflow-$v-constraints.txt" -c "$file" \
        -o "$logs/resolve-$v.txt" >"$logs/resolve-$v.log" 2>&1 || rc=$?; echo "$rc" >"$logs/resolve-$v.rc") &
  done
fi

# -- 2. metadata --------------------------------------------------------------------------------------------------
step "2. check the metadata and the file lists"
check_env=(--no-project --isolated --python "$python" --with "packaging>=24.2" --with trove-classifiers
  --with "twine>=6.1")
"$UV" run "${check_env[@]}" python scripts/package_metadata.py "$DIST_DIR" || fail "metadata and file lists"
twine_rc=0
NO_COLOR=1 COLUMNS=200 "$UV" run "${check_env[@]}" twine check --strict "$sdist" "$wheel" >"$logs/twine.log" 2>&1 ||
  twine_rc=$?
sed -e $'s/\x1b\\[[0-9;]*m//g' -e 's/^/  twine: /' "$logs/twine.log"
[ "$twine_rc" = 0 ] || fail "twine check --strict"

# -- 3. install -------------------------------------------------------------------------------------------------
step "3. install the wheel with [openlineage,statsd] into a clean Python 3.12 venv under $under"
rm -rf "$PACKAGE_VENV"
"$UV" venv --quiet --python "$python" "$PACKAGE_VENV"
constraint_args=()
for file in "${constraints[@]}"; do constraint_args+=(-c "$file"); done
if "$UV" pip install --quiet --python "$PACKAGE_VENV/bin/python" "${constraint_args[@]}" \
    "$DIST_NAME[openlineage,statsd] @ file://$wheel" 2>"$logs/install.log"; then
  "$UV" pip list --python "$PACKAGE_VENV/bin/python" 2>/dev/null |
    grep -Ei "^(apache-airflow|apache-airflow-core|apache-airflow-providers-(amazon|openlineage|common-compat)|$DIST_NAME|statsd|boto3|pydantic) " |
    sed 's/^/  /'
  echo "  $(( $("$UV" pip list --python "$PACKAGE_VENV/bin/python" 2>/dev/null | wc -l) - 2 )) packages in $PACKAGE_VENV"
  "$UV" pip check --python "$PACKAGE_VENV/bin/python" >"$logs/pipcheck.log" 2>&1 &&
    echo "  ok    uv pip check: no broken requirements" || { cat "$logs/pipcheck.log"; fail "uv pip check"; }
  installed=1
else
  cat "$logs/install.log"; fail "install under $under"
  installed=0
fi

# -- 4. smoke test ----------------------------------------------------------------------------------------------
if [ "$installed" = 1 ]; then
  step "4. smoke-test it with AIRFLOW_HOME=$PACKAGE_AIRFLOW_HOME"
  rm -rf "$PACKAGE_AIRFLOW_HOME"
  mkdir -p "$PACKAGE_AIRFLOW_HOME"
  touch "$PACKAGE_AIRFLOW_HOME/.sagemaker-fleet-package-home"
  # Only what this script sets: no AIRFLOW__* or AIRFLOW_CONFIG of the caller's reaches the smoke test.
  while IFS= read -r name; do unset "$name"; done < <(compgen -e | grep -E '^AIRFLOW(__|_CONFIG$)' || true)
  cat >"$PACKAGE_AIRFLOW_HOME/env.sh" <<EOF
# The smoke environment of scripts/package_check.sh: source it to run Airflow on the installed wheel.
export PATH="$PACKAGE_VENV/bin:\$PATH"
export AIRFLOW_HOME="$PACKAGE_AIRFLOW_HOME"
export AIRFLOW__CORE__DAGS_FOLDER="$REPO/dags"
export AIRFLOW__CORE__LOAD_EXAMPLES=False
EOF
  # shellcheck source=/dev/null
  source "$PACKAGE_AIRFLOW_HOME/env.sh"
  airflow_version="$("$PACKAGE_VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("apache-airflow"))')"
  # Run from the home, not the checkout: nothing of provider/ may be importable by accident.
  if (cd "$PACKAGE_AIRFLOW_HOME" && airflow db migrate >"$logs/migrate.log" 2>&1); then
    echo "  ok    airflow db migrate (SQLite, Airflow $airflow_version)"
  else
    tail -30 "$logs/migrate.log"; fail "airflow db migrate"
  fi
  (cd "$PACKAGE_AIRFLOW_HOME" && "$PACKAGE_VENV/bin/python" "$REPO/scripts/package_smoke.py" \
      --version "$version" --airflow "$expected_airflow" --dags "$REPO/dags") || fail "smoke test"
fi

# -- 5. the resolutions started after the build -----------------------------------------------------------------------------
if [ "${#resolve_versions[@]}" -gt 0 ]; then
  step "5. resolve [openlineage,statsd] inside each MWAA constraint set (Python 3.12)"
  wait
  for v in "${resolve_versions[@]}"; do
    if [ "$(cat "$logs/resolve-$v.rc")" = "0" ]; then
      pins="$(grep -E '^(apache-airflow|apache-airflow-providers-amazon|apache-airflow-providers-openlineage|statsd)==' \
        "$logs/resolve-$v.txt" | tr '\n' ' ')"
      echo "  ok    MWAA $v: $pins"
    else
      sed 's/^/        /' "$logs/resolve-$v.log"; fail "resolve inside MWAA $v's constraints"
    fi
  done
else
  step "5. skipped: PACKAGE_OFFLINE=1 (the resolutions inside the MWAA constraint sets need PyPI)"
fi

step "done"
echo "  dist:          $DIST_DIR ($(basename "$sdist"), $(basename "$wheel"))"
echo "  smoke venv:    $PACKAGE_VENV"
echo "  AIRFLOW_HOME:  $PACKAGE_AIRFLOW_HOME (source $PACKAGE_AIRFLOW_HOME/env.sh to reuse both)"
if [ "${#failures[@]}" -gt 0 ]; then
  echo "FAILED (${#failures[@]}): ${failures[*]}"
  exit 1
fi
echo "package check passed in $((SECONDS - START)) s"
