#!/usr/bin/env bash
# Run the unit and integration tests in another virtualenv than the default .venv (Python 3.11, Airflow 3.3): on
# another supported Python, or against another Airflow minor. A suite is named by a target:
#
#   af3.0   Python 3.12, Airflow 3.0.6 under Amazon MWAA's constraints   requirements/airflow-3.0-py3.12.txt
#   af3.1   Python 3.13, Airflow 3.1 (its latest release)                 requirements/airflow-3.1-py3.13.txt
#   af3.2   Python 3.12, Airflow 3.2.1 under Amazon MWAA's constraints   requirements/airflow-3.2-py3.12.txt
#   3.12    Python 3.12, Airflow 3.3                                      requirements/constraints-py3.12.txt
#   3.13    Python 3.13, Airflow 3.3                                      requirements/constraints-py3.13.txt
#
# each in its own virtualenv (.venv-<target>, built from its pinned set when missing or older than the set; every
# package must match one of the set's hashes).
# `make test` (`make suites`) calls it beside the default interpreter's run; `make test-py PY=af3.0` runs one.
#
#   scripts/pythons.sh find 3.12      print a working python3.12 (exit 1 when there is none)
#   scripts/pythons.sh venv af3.0     build .venv-af3.0 if needed and print its path
#   scripts/pythons.sh test af3.0 ... build .venv-af3.0 if needed and run pytest -m "not e2e" there
#                                     (in $WORKERS xdist workers, 3 by default, by work stealing as
#                                     `make test` runs the default interpreter's)
#   scripts/pythons.sh side-by-side "af3.0 af3.1" ...
#                                     `test` for each target at the same time ($WORKERS workers each, 2 by
#                                     default), each into its own log, printed when all have ended; fails if any did
#
# Extra pytest arguments for one target only: SUITE_ARGS_<target with _ for . and ->, e.g. SUITE_ARGS_af3_2.
# No such interpreter on a laptop: a skip, said on stderr. With SAGEMAKER_FLEET_REQUIRE_SERVICES=1 (CI): a failure.
set -euo pipefail
cd "$(dirname "$0")/.."

find_python() {
  local version="$1" candidate
  for candidate in "python$version" "$HOME"/.pyenv/versions/"$version".*/bin/"python$version" \
      /usr/local/bin/"python$version" /usr/bin/"python$version"; do
    if command -v "$candidate" >/dev/null 2>&1 &&
        "$candidate" -c "import sys; sys.exit(0 if sys.version_info[:2] == tuple(map(int, '$version'.split('.'))) else 1)" 2>/dev/null; then
      command -v "$candidate"
      return 0
    fi
  done
  return 1
}

# target → "python-version pinned-set virtualenv"
target() {
  case "$1" in
    af3.0) echo "3.12 requirements/airflow-3.0-py3.12.txt .venv-af3.0" ;;
    af3.1) echo "3.13 requirements/airflow-3.1-py3.13.txt .venv-af3.1" ;;
    af3.2) echo "3.12 requirements/airflow-3.2-py3.12.txt .venv-af3.2" ;;
    3.1[123]) echo "$1 requirements/constraints-py$1.txt .venv-py$1" ;;
    *) echo "unknown suite target $1 (af3.0, af3.1, af3.2, 3.12, 3.13)" >&2; return 2 ;;
  esac
}

# Build the target's virtualenv when it is missing or older than pyproject.toml or its pinned set; print its path.
# Exit 3 when its interpreter is missing (a skip on a laptop, a failure in CI).
build_venv() {
  local spec version constraints venv python stamp
  spec="$(target "$1")" || exit 2
  read -r version constraints venv <<<"$spec"
  if ! python="$(find_python "$version")"; then
    if [ "${SAGEMAKER_FLEET_REQUIRE_SERVICES:-}" = "1" ]; then
      echo "no Python $version interpreter found (python$version, ~/.pyenv/versions/$version.*): CI requires it" >&2
      exit 1
    fi
    echo "SKIPPED: the tests of $1 (no python$version found; install it or set PATH)" >&2
    exit 3
  fi
  stamp="$venv/.installed"
  if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ "$constraints" -nt "$stamp" ] ||
      [ requirements/uv.txt -nt "$stamp" ]; then
    [ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
    # as the Makefile's .venv: uv by hash, every package of the set by hash, then the project alone
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes -r requirements/uv.txt >&2
    "$venv/bin/uv" pip install --python "$venv/bin/python" --quiet --compile-bytecode --require-hashes -r "$constraints" >&2
    "$venv/bin/uv" pip install --python "$venv/bin/python" --quiet --no-deps --no-build-isolation -e . >&2
    "$venv/bin/uv" pip check --python "$venv/bin/python" --quiet >&2
    touch "$stamp"
  fi
  echo "$venv"
}

case "${1:-}" in
  find)
    find_python "$2"
    ;;
  venv)
    build_venv "$2"
    ;;
  test)
    name="$2"; shift 2
    rc=0; venv="$(build_venv "$name")" || rc=$?
    [ "$rc" = "3" ] && exit 0
    [ "$rc" = "0" ] || exit "$rc"
    extra_var="SUITE_ARGS_${name//[.-]/_}"
    # shellcheck disable=SC2086 # the per-target arguments are words
    set -- ${!extra_var:-} "$@"
    airflow="$("$venv/bin/python" -c 'from importlib.metadata import version; print(version("apache-airflow"))')"
    echo "== unit and integration tests of $name: $("$venv/bin/python" -V 2>&1), Airflow $airflow"
    "$venv/bin/pytest" -q -n "${WORKERS:-3}" --dist worksteal -m "not e2e" "$@"
    ;;
  side-by-side)
    # Half of each suite's time is spent waiting on sockets and sub-processes (the simulator, Airflow's CLI): two
    # suites at once on 2 cores take ~1.4x one suite's time, not 2x.
    versions="$2"; shift 2
    logs="$(mktemp -d)"
    for version in $versions; do
      # `|| rc=$?`: under set -e a failing suite would end the subshell before its exit code is written
      (rc=0; WORKERS="${WORKERS:-2}" "$0" test "$version" "$@" >"$logs/$version.log" 2>&1 || rc=$?; echo "$rc" >"$logs/$version.rc") &
    done
    wait
    status=0
    for version in $versions; do
      cat "$logs/$version.log"
      rc="$(cat "$logs/$version.rc")"
      echo "== $version: exit code $rc"
      [ "$rc" = "0" ] || status=1
    done
    rm -rf "$logs"
    exit "$status"
    ;;
  *)
    echo "usage: scripts/pythons.sh find VERSION | venv TARGET | test TARGET [pytest args] | side-by-side \"TARGET ...\" [pytest args]" >&2
    exit 2
    ;;
esac
